"""The CUDA-library → ROCm map: shipped entries, lookups by header/link/import/package/file, and loader errors."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from porter import libraries as L
from porter.libraries import (
    Library,
    LibraryMapError,
    by_file,
    by_header,
    by_import,
    by_link,
    by_package,
    load_libraries,
    normalize_link,
    normalize_package,
)

REQUIRED_IDS = [
    "cuda-runtime", "cublas", "cublaslt", "cudnn", "cufft", "curand", "cusparse", "cusolver", "cutensor", "nccl",
    "nvshmem", "thrust", "cub", "libcudacxx", "cutlass", "nvjpeg", "nvdec", "npp", "nvtx", "nvml", "cupti", "nvrtc",
    "cufile", "tensorrt", "tensorrt-llm", "cudf", "optix", "nvcomp", "amgx", "flash-attn", "transformer-engine",
    "apex", "bitsandbytes", "xformers", "deepspeed", "triton", "cupy", "pycuda", "numba-cuda", "cuda-python",
    "pynvml", "modelopt",
]


@pytest.fixture(scope="module")
def libs() -> dict[str, Library]:
    return load_libraries()


def _raw() -> dict:
    return yaml.safe_load(L.LIBRARIES_PATH.read_text())


def _write(tmp_path: Path, doc: dict | str) -> Path:
    path = tmp_path / "libraries.yaml"
    path.write_text(doc if isinstance(doc, str) else yaml.safe_dump(doc, sort_keys=False))
    return path


# ------------------------------------------------------------------------------------------- shipped data


def test_every_required_library_is_mapped(libs):
    assert set(REQUIRED_IDS) <= set(libs)
    assert len(libs) == 51  # flashinfer and deep-gemm added by issue 11; cupy-cuda-wheel, cupy-cuda-only, nvtx-python,
    # nvtx-plugins (issue 27); quanto-cuda-extension (issue 27, session 30)
    assert list(libs)[0] == "cuda-runtime"  # file order is kept


def test_every_entry_is_documented(libs):
    for lib in libs.values():
        assert lib.sources and lib.note and "\n" not in lib.note, lib.id
        assert lib.kind in L.KINDS and lib.vendor_kind in L.VENDOR_KINDS, lib.id
        assert lib.headers or lib.links or lib.imports or lib.packages or lib.files, lib.id
        if lib.kind != "none":
            assert lib.rocm, lib.id


@pytest.mark.parametrize(
    "lib_id, kind, rocm",
    [
        ("cuda-runtime", "drop-in", ("HIP runtime",)),
        ("cublas", "drop-in", ("hipBLAS", "rocBLAS")),
        ("cublaslt", "drop-in", ("hipBLASLt",)),
        ("cudnn", "port", ("MIOpen", "hipDNN")),
        ("nccl", "drop-in", ("RCCL",)),
        ("nvshmem", "port", ("rocSHMEM",)),
        ("cub", "drop-in", ("hipCUB", "rocPRIM")),
        ("npp", "none", ()),
        ("nvml", "port", ("AMD SMI (amdsmi)",)),
        ("cufile", "early-access", ("hipFile",)),
        ("tensorrt", "port", ("MIGraphX",)),
        ("tensorrt-llm", "none", ("vLLM (ROCm)", "SGLang (ROCm)")),
        ("cudf", "early-access", ("hipDF (ROCm-DS)",)),
        ("optix", "none", ("HIP RT",)),
        ("nvcomp", "early-access", ("hipCOMP",)),
        ("amgx", "port", ("rocALUTION",)),
        ("cupy", "drop-in", ("CuPy for ROCm (cupy-rocm-*)",)),
        ("cupy-cuda-wheel", "early-access", ("CuPy for ROCm (cupy-rocm-*)",)),
        ("cupy-cuda-only", "port", ("MIOpen", "hipTENSOR")),
        ("modelopt", "port", ("AMD Quark",)),
    ],
)
def test_kind_and_replacement(libs, lib_id, kind, rocm):
    assert (libs[lib_id].kind, libs[lib_id].rocm) == (kind, rocm)


def test_hard_lock_in_entries(libs):
    assert sorted(lib.id for lib in libs.values() if lib.kind == "none") == [
        "cuda-binary", "npp", "optix", "tensorrt-engine", "tensorrt-llm"]
    assert libs["tensorrt-llm"].vendor_kind == "serving"
    assert libs["tensorrt-engine"].vendor_kind == "binary-format"


def test_library_is_frozen(libs):
    with pytest.raises(dataclasses.FrozenInstanceError):
        libs["cublas"].kind = "none"  # type: ignore[misc]
    assert libs["cublas"].to_dict()["packages"] == ["nvidia-cublas", "nvidia-cublas-cu*"]


# ------------------------------------------------------------------------------------------------- lookups


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("nvidia-cublas-cu12", "cublas"),
        ("nvidia_cublas_cu12==12.4.5.8", "cublas"),
        ("nvidia-cublas", "cublas"),
        ("NVIDIA.CuDNN-cu12>=9", "cudnn"),
        ("tensorrt-llm", "tensorrt-llm"),
        ("tensorrt_llm[all]>=0.9", "tensorrt-llm"),
        ("TensorRT", "tensorrt"),
        ("tensorrt-cu12-bindings", "tensorrt"),
        ("torch-tensorrt==2.4", "tensorrt"),
        ("flash-attn>=2.5; sys_platform == 'linux'", "flash-attn"),
        ("flash_attn", "flash-attn"),
        ("transformer_engine[pytorch]", "transformer-engine"),
        ("apex", "apex"),
        ("bitsandbytes", "bitsandbytes"),
        ("xformers==0.0.28", "xformers"),
        ("deepspeed @ https://example.invalid/deepspeed.whl", "deepspeed"),
        ("triton", "triton"),
        ("cupy-cuda12x", "cupy-cuda-wheel"),
        ("cupy", "cupy"),
        ("pycuda", "pycuda"),
        ("numba-cuda", "numba-cuda"),
        ("cuda-python", "cuda-python"),
        ("cuda-bindings", "cuda-python"),
        ("pynvml", "pynvml"),
        ("nvidia-ml-py", "pynvml"),
        ("nvidia-modelopt[torch]", "modelopt"),
        ("nvidia-nccl-cu12", "nccl"),
        ("cudf-cu12", "cudf"),
        ("-e git+https://example.invalid/apex.git#egg=apex", "apex"),
        ("cupy-rocm-7-0", None),
        ("pytorch-triton-rocm", None),
        ("numba", None),
        ("torch", None),
        ("", None),
    ],
)
def test_by_package(spec, expected):
    found = by_package(spec)
    assert (found.id if found else None) == expected


@pytest.mark.parametrize(
    "module, expected",
    [
        ("tensorrt_llm", "tensorrt-llm"),
        ("tensorrt_llm.llmapi", "tensorrt-llm"),
        ("tensorrt", "tensorrt"),
        ("torch_tensorrt", "tensorrt"),
        ("numba.cuda", "numba-cuda"),
        ("numba.cuda.cudadrv", "numba-cuda"),
        ("cuda.bindings.driver", "cuda-python"),
        ("cupyx.scipy.sparse", "cupy"),
        ("cupy.cuda.cudnn", "cupy-cuda-only"),
        ("cupy_backends.cuda.libs.cutensor", "cupy-cuda-only"),
        ("cupy.cuda.nccl", "cupy"),
        ("nvidia.cublas.lib", "cublas"),
        ("flash_attn.flash_attn_interface", "flash-attn"),
        ("pynvml", "pynvml"),
        ("modelopt.torch.quantization", "modelopt"),
        ("numba", None),
        ("tensorrt_llmx", None),
        ("torch.cuda", None),
    ],
)
def test_by_import(module, expected):
    found = by_import(module)
    assert (found.id if found else None) == expected


def test_by_import_tensorrt_llm_is_hard_lock_in():
    lib = by_import("tensorrt_llm.llmapi")
    assert (lib.id, lib.kind, lib.rocm) == ("tensorrt-llm", "none", ("vLLM (ROCm)", "SGLang (ROCm)"))


@pytest.mark.parametrize(
    "header, expected",
    [
        ("cublas_v2.h", "cublas"),
        ("<cublasLt.h>", "cublaslt"),
        ('"cudnn.h"', "cudnn"),
        ("cudnn_version.h", "cudnn"),
        ("cuda/include/cudnn_version.h", "cudnn"),
        ("third_party/gpus/cuda/include/cublas_v2.h", "cublas"),
        ("cuda_runtime.h", "cuda-runtime"),
        ("cooperative_groups/reduce.h", "cuda-runtime"),
        ("cub/cub.cuh", "cub"),
        ("thrust/device_vector.h", "thrust"),
        ("thrust/system/cuda/detail/cub/util.h", "thrust"),
        ("cuda/std/atomic", "libcudacxx"),
        ("cutlass/gemm/device/gemm.h", "cutlass"),
        ("cute/tensor.hpp", "cutlass"),
        ("third_party/cutlass/include/cutlass/cutlass.h", "cutlass"),
        ("nvtx3/nvToolsExt.h", "nvtx"),
        ("NvInfer.h", "tensorrt"),
        ("NvInferRuntime.h", "tensorrt"),
        ("tensorrt_llm/runtime/gptSession.h", "tensorrt-llm"),
        ("nppi_filtering_functions.h", "npp"),
        ("nccl.h", "nccl"),
        ("optix_stubs.h", "optix"),
        ("src/cuda/kernels.h", None),
        ("hip/hip_runtime.h", None),
        ("", None),
    ],
)
def test_by_header(header, expected):
    found = by_header(header)
    assert (found.id if found else None) == expected


@pytest.mark.parametrize(
    "name, expected",
    [
        ("CUDA::cublas", "cublas"),
        ("CUDA::cublasLt", "cublaslt"),
        ("CUDA::cublas_static", "cublas"),
        ("-lcublas", "cublas"),
        ("libcublas.so.12", "cublas"),
        ("/usr/local/cuda/lib64/libcublasLt.so", "cublaslt"),
        ("@local_config_cuda//cuda:cublas", "cublas"),
        ("@local_config_cuda//cuda:cudnn", "cudnn"),
        ("@local_config_nccl//:nccl", "nccl"),
        ("nccl_static", "nccl"),
        ("cudnn_ops_infer", "cudnn"),
        ("CUDA::cudart", "cuda-runtime"),
        ("-lcuda", "cuda-runtime"),
        ("CUDA::nppig", "npp"),
        ("nvinfer_plugin", "tensorrt"),
        ("-lnvinfer_plugin_tensorrt_llm", "tensorrt-llm"),
        ("CUDA::cuFile", "cufile"),
        ("nvidia::cutlass::cutlass", "cutlass"),
        ("-lnvidia-ml", "nvml"),
        ("rocblas", None),
        ("roc::hipblas", None),
        ("", None),
    ],
)
def test_by_link(name, expected):
    found = by_link(name)
    assert (found.id if found else None) == expected


def test_by_file():
    assert by_file("models/llama.engine").id == "tensorrt-engine"
    assert by_file("kernels.CUBIN").id == "cuda-binary"
    assert by_file("model.onnx") is None


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("Flash_Attn[x]>=2; python_version>'3'", "flash-attn"),
        ("zope.interface", "zope-interface"),
        ("  nvidia-cublas-cu12 ~= 12.1  ", "nvidia-cublas-cu12"),
        ("name @ https://example.invalid/x.whl", "name"),
        ("git+https://example.invalid/repo.git#egg=My_Pkg", "my-pkg"),
        ("==1.0", ""),
    ],
)
def test_normalize_package(spec, expected):
    assert normalize_package(spec) == expected


@pytest.mark.parametrize(
    "name, expected",
    [
        ("CUDA::cublasLt", "cublaslt"),
        ("-lnvToolsExt", "nvtoolsext"),
        ("libcudart_static.a", "cudart_static"),
        ("C:\\cuda\\lib\\x64\\cublas.lib", "cublas"),
        ("//third_party/cuda:cupti", "cupti"),
        ("@cuda//cuda/cublas", "cublas"),
        ('"CUDA::nvrtc"', "nvrtc"),
    ],
)
def test_normalize_link(name, expected):
    assert normalize_link(name) == expected


def test_lookups_accept_another_map(tmp_path):
    doc = {"version": 1, "libraries": [dict(_raw()["libraries"][1], packages=["my-blas"])]}
    path = _write(tmp_path, doc)
    assert by_package("my_blas", map_path=path).id == "cublas"
    assert by_package("nvidia-cublas-cu12", map_path=path) is None
    assert list(load_libraries(path)) == ["cublas"]


# -------------------------------------------------------------------------------------------- loader errors


def test_malformed_map_names_file_and_field(tmp_path):
    doc = _raw()
    doc["libraries"][1]["kind"] = "rename"
    path = _write(tmp_path, doc)
    with pytest.raises(ValueError) as exc:
        load_libraries(path)
    assert isinstance(exc.value, LibraryMapError)
    assert (exc.value.path, exc.value.field) == (str(path), "libraries[cublas].kind")
    assert "'rename' is not one of" in str(exc.value)


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda d: d["libraries"][3].pop("note"), "libraries[cudnn].note"),
        (lambda d: d["libraries"][3].update(sources=[]), "libraries[cudnn].sources"),
        (lambda d: d["libraries"][3].update(vendor="nvidia"), "libraries[cudnn].vendor"),
        (lambda d: d["libraries"][3].update(packages=["Bad_Name"]), "libraries[cudnn].packages.0"),
        (lambda d: d["libraries"][3].update(imports=["not a module"]), "libraries[cudnn].imports.0"),
        (lambda d: d.pop("version"), "version"),
        (lambda d: d["libraries"][3].update(packages=["nvidia-cublas-cu*"]), "libraries[cudnn].packages"),
        (lambda d: d["libraries"][3].update(links=["-lcublas"]), "libraries[cudnn].links"),
        (lambda d: d["libraries"][3].update(id="cublas"), "libraries[cublas].id"),
    ],
)
def test_each_kind_of_bad_entry_is_named(tmp_path, change, field):
    doc = _raw()
    change(doc)
    path = _write(tmp_path, doc)
    with pytest.raises(LibraryMapError) as exc:
        load_libraries(path)
    assert exc.value.field == field
    assert str(exc.value).startswith(f"{path}: {field}: ")


def test_bad_yaml_is_reported_with_the_line(tmp_path):
    path = _write(tmp_path, "version: 1\nlibraries: [\n")
    with pytest.raises(LibraryMapError, match=r"libraries\.yaml: <file>: not valid YAML \(line 3\)"):
        load_libraries(path)
