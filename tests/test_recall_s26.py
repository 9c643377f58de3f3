"""Exact-line tests for session 26's recall mechanisms (issue 27, judged-real CUDA sides of ROCm guards): API016, the
project's own CUDA-named identifiers in a repository that keeps a ROCm path, and LIB014's headers whose HIP twin the
repository holds."""
from __future__ import annotations

from pathlib import Path

from porter.match.kinds.code_vendor_names import project_cuda_name
from porter.pipeline import scan
from porter.settings import Settings


def _lines(tree: Path, rule: str) -> list[tuple[str, int]]:
    result = scan(tree, Settings(jobs=1, cache_dir=None))
    return sorted((f.path, f.line) for f in result.findings if f.rule == rule)


FACTORY = (
    "#include \"grid.h\"\n"                                   # 1
    "Grid *make(int mode, int n) {\n"                         # 2
    "#ifdef __CUDA__\n"                                       # 3
    "  if (mode == GRID_MODE_CUDA) return new Grid_Cuda(n);\n"  # 4
    "#endif\n"                                                # 5
    "  CudaDeviceSetup(0, n); HipDeviceSetup(0, n);\n"        # 6: names both vendors
    "  cudaStream_t s; cudaStreamCreate(&s);\n"               # 7: CUDA's own API
    "  return new Grid_Cpu(n);\n"                             # 8
    "}\n"
)


def test_api016_needs_a_rocm_path_in_the_repository(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "grid_factory.cpp").write_text(FACTORY)
    assert _lines(tmp_path, "API016") == []
    (tmp_path / "src" / "grid_Hip.h").write_text("#pragma once\nclass Grid_Hip {};\n")
    assert _lines(tmp_path, "API016") == [("src/grid_factory.cpp", 4)]


def test_api016_leaves_the_rocm_path_itself_and_directive_lines(tmp_path):
    (tmp_path / "hip").mkdir()
    (tmp_path / "hip" / "device.cpp").write_text("void f() { CudaDeviceSetup(0); }\n")
    (tmp_path / "common.cpp").write_text("#if defined(HAVE_CUDA_GRID)\nint x = Grid_Cuda::size;\n#endif\n")
    assert _lines(tmp_path, "API016") == [("common.cpp", 2)]


def test_api016_leaves_pytorch_code_alone(tmp_path):
    (tmp_path / "hip").mkdir()
    (tmp_path / "hip" / "k.hip").write_text("// the ROCm path\n")
    (tmp_path / "binding.cpp").write_text(
        "#include <torch/extension.h>\n"
        "void check_fp16_cuda(const torch::Tensor& t) { TORCH_CHECK(t.is_cuda()); }\n")
    (tmp_path / "plain.cpp").write_text("void check_fp16_cuda(float *t);\nint x = t.is_cuda();\n")
    assert _lines(tmp_path, "API016") == [("plain.cpp", 1), ("plain.cpp", 2)]


def test_project_cuda_name_reads_words_not_letters():
    named = ["Grid_Cuda", "CudaDeviceSetup", "CuMemFree", "setCuBlasHandle", "DEVICE_CUDA",
             "launch_flux_cuda_kernel_post", "recycle_allocator_cuda_host", "VecCUDAGetArray", "Real2CudaComplex",
             "ELPA_2STAGE_REAL_NVIDIA_GPU", "DEVICE_OPTIX", "optixDirectCall"]
    not_named = ["cuda", "CUDA", "cudaMalloc", "cuda_fp16", "CUDA_VERSION", "CUDART_VERSION", "CUDA_R_32F",
                 "__CUDACC__", "cu_seqlens", "CU_DEVICE_ATTRIBUTE", "barracuda", "Cube", "typecasts_cuda_hip",
                 "nontcCuda_Hip", "CUDA_CHECK", "nvidia", "optix", "Envidia"]
    assert [n for n in named if not project_cuda_name(n)] == []
    assert [n for n in not_named if project_cuda_name(n)] == []


def test_lib014_reads_a_header_with_a_hip_twin(tmp_path):
    gpu = tmp_path / "gpu_utils"
    gpu.mkdir()
    for name in ("gputraits.cuh", "gputraits_hip.h", "devicebuffer.h", "devicebuffer_hip.h", "plain.cuh",
                 "cudautils.cuh", "hiputils.h"):
        (gpu / name).write_text("#pragma once\n")
    (tmp_path / "ff").mkdir()
    (tmp_path / "ff" / "mont_t.cuh").write_text("#pragma once\n")
    (tmp_path / "ff" / "mont_t.hip").write_text("// twin\n")
    (tmp_path / "lin" / "gpuistl").mkdir(parents=True)
    (tmp_path / "lin" / "gpuistl_hip").mkdir()
    (tmp_path / "lin" / "gpuistl" / "Vec.hpp").write_text("#pragma once\n")
    (tmp_path / "lin" / "gpuistl_hip" / "Vec.hpp").write_text("#pragma once\n")
    (tmp_path / "pme.cpp").write_text(
        '#include "gpu_utils/gputraits.cuh"\n'   # 1: .cuh beside gputraits_hip.h
        '#include "gpu_utils/devicebuffer.h"\n'  # 2: the neutral header beside devicebuffer_hip.h
        '#include "gpu_utils/plain.cuh"\n'       # 3: no twin
        '#include "ff/mont_t.cuh"\n'             # 4: beside mont_t.hip
        '#include <lin/gpuistl/Vec.hpp>\n'       # 5: the same name in gpuistl_hip/
        '#include "gpu_utils/hiputils.h"\n'      # 6: the twin itself
        '#include "gpu_utils/cudautils.cuh"\n')  # 7: names CUDA (as before)
    # from a .cu file nothing: the CUDA layer including its own headers
    (tmp_path / "k.cu").write_text('#include "gpu_utils/gputraits.cuh"\n')
    assert _lines(tmp_path, "LIB014") == [("pme.cpp", 1), ("pme.cpp", 4), ("pme.cpp", 5), ("pme.cpp", 7)]


def test_api016_leaves_the_cuda_layer_own_files(tmp_path):
    (tmp_path / "hip").mkdir()
    (tmp_path / "hip" / "k.hip").write_text("// the ROCm path\n")
    for rel in ("devices/multicuda/device.cpp", "device/optix/queue.cpp", "src/k.cu", "common/gpu/x.cpp"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("void f() { FastllmCudaMalloc(8); }\n")
    assert _lines(tmp_path, "API016") == [("common/gpu/x.cpp", 1)]
