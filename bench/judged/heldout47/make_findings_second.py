"""Second judge's blind verdicts on a fixed-seed 20-row sample of heldout47's findings.jsonl (j47, session 31).

    python3 bench/judged/heldout47/make_findings_second.py   (run from the worktree root)

findings_sample_second.jsonl is `sample_second_findings.py FIRST_FINDINGS.jsonl` (seed 3473, 20 of the first judge's
68 rows, identifying fields only: no verdict, no reason). Each row is judged true (real port work at that line) or
false from the code in /tmp/j47 and the build files, before the first judge's verdicts for these rows were read; the
rule ids were read as earlier development sets' findings describe them (porter/ and rules/ not read). Writes
findings_second.jsonl (the sample rows plus verdict and reason).
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
CB = ("CUDART_CB on a stream callback: hipify gives HIPRT_CB, which AMD's HIP headers do not define (HIP's own tests "
      "define it empty under __HIP_PLATFORM_AMD__), so the declaration must drop the macro; device_raw_buffer.cu is in "
      "meson.build's sources")
V = {  # (path, line, rule) -> (verdict, reason)
    ("meson.build", 31, "BLD015"): (True, "Meson `dependency('cuda', modules: ['cublas', 'cufft'])` is the only GPU "
                                    "dependency of the build (with project languages cuda); a ROCm build needs hip / "
                                    "hipblas / hipfft dependencies and the hip language"),
    ("meson.build", 31, "LIB004"): (True, "links cuBLAS and cuFFT for every build (beamformer.cu, upchannelizer.cu); "
                                    "ROCm needs hipBLAS/rocBLAS and hipFFT/rocFFT"),
    ("csrc/cutlass_kernels/cutlass_preprocessors.cc", 118, "DEV013"): (
        True, "getLayoutDetailsForTransform picks a CUTLASS Sm70/75/80 weight layout by compute capability; the file "
              "is in setup.py's sources and the preprocessing runs for every quantised model; on ROCm the capability "
              "reads 9.x (gfx9) and hits `Unsupported Arch`, and the CUTLASS layouts themselves have no ROCm "
              "counterpart"),
    ("device_raw_buffer.cu", 74, "API002"): (True, CB),
    ("device_raw_buffer.cu", 66, "API002"): (True, CB),
    ("device_raw_buffer.h", 55, "API002"): (True, CB),
    ("device_raw_buffer.h", 59, "API002"): (True, CB),
    ("beamformer.cu", 146, "API002"): (True, "cublasCgemm3mStridedBatched (3M complex GEMM) has no hipBLAS/rocBLAS "
                                       "counterpart; it is the default beamforming path (use_cublas_beamform = true), "
                                       "so the port must call hipblasCgemmStridedBatched"),
    ("csrc/weightOnlyBatchedGemv/kernel.h", 480, "DEV016"): (
        False, "the `__CUDA_ARCH__ >= 800 && ENABLE_BF16` arm of weight_only_batched_gemv_wrapper vanishes on HIP, but "
               "ENABLE_BF16 is defined by no build (setup.py has no such macro) and the bf16 launches sit under "
               "`#if defined(ENABLE_BF16)` too, so no bf16 instantiation exists on either vendor"),
    ("csrc/weightOnlyBatchedGemv/kernel.h", 480, "DEV009"): (
        False, "same guard: off on both vendors because ENABLE_BF16 is never defined; nothing changes on HIP"),
    ("csrc/cutlass_kernels/CMakeLists.txt", 25, "BLD005"): (
        False, "-gencode flags in csrc's CMake project (a FasterTransformer leftover); EETQ builds only through "
               "setup.py's CUDAExtension, which names the sources itself, so no build uses this CMake (uncertain: a "
               "judge counting every in-repo build system says true)"),
    ("csrc/cutlass_kernels/CMakeLists.txt", 24, "BLD005"): (
        False, "same unused csrc CMake project as line 25 (uncertain for the same reason)"),
    ("nvblox/cmake/setup_compilers.cmake", 108, "BLD005"): (
        False, "the -gencode string is the `CMAKE_VERSION < 3.18` arm; nvblox requires CMake 3.22.1 "
               "(cmake_minimum_required), so the 3.18+ arm (an architecture list) is always taken and this one never"),
    ("nvblox/executables/CMakeLists.txt", 34, "BLD004"): (
        False, "CUDA_SEPARABLE_COMPILATION OFF on an executable is CMake's default and has no effect on a HIP build; "
               "nothing to change"),
    ("cuda/intrinsics/voting.hu", 48, "API004"): (
        False, "the `__any_sync(mask, ...)` arm is selected by `CUDART_VERSION >= 9000 || __CUDA_ARCH__ >= 700`; "
               "hip-clang defines neither, so HIP compiles the legacy `__any(predicate)` arm, which HIP has; the "
               "header's real port item is its `#error` guard (shfl.hu:3 / voting.hu:3), not this mask"),
    ("setup.py", 37, "PYT002"): (
        False, "torch.version.cuda inside check_cuda_torch_binary_vs_bare_metal, which setup.py never calls (the "
               "build calls get_cuda_bare_metal_version(CUDA_HOME) directly, a different problem on ROCm)"),
    ("nvblox/CMakeLists.txt", 217, "BLD003"): (
        True, "appends CMAKE_CUDA_ARCHITECTURES to nvblox_lib's CUDA_ARCHITECTURES; the library is built with the CUDA "
              "language only, and a ROCm build needs HIP architectures (gfx942/gfx950/gfx1250)"),
    ("csrc/cutlass_kernels/cutlass_heuristic.cc", 111, "DEV014"): (
        True, "stage count chosen by compute capability (`sm >= 80 ? 4 : 2`) for CUTLASS multistage (cp.async) GEMM "
              "candidates; compiled in setup.py's sources and used by the fpA_intB GEMM dispatch, which has no ROCm "
              "counterpart and must be replaced (low confidence: the line changes only as part of that rewrite)"),
    ("HostCUDA.h", 13, "DEV011"): (
        False, "WARP_INDEX = threadIdx.x >> 5 (GPU_LOCAL_TREE_WALK only) indexes 32-lane shared stacks in "
               "gpuLocalTreeWalk's lockstep arm; 32-lane groups are subsets of a lockstep wave64, so the grouping "
               "stays correct; the port item is the arm selection (`__CUDA_ARCH__ >= 700`), not this macro"),
    ("cuda/intrinsics/shfl.hu", 3, "DEV010"): (
        True, "`#ifndef __NVCC__ #error`: hip-clang does not define __NVCC__, so HostCUDA.cu (the only CUDA source "
              "cuda.mk.in builds) stops here; the guard must accept HIP"),
}

rows = [json.loads(l) for l in open(HERE / "findings_sample_second.jsonl")]
out = []
for r in rows:
    v, why = V[(r["path"], r["line"], r["rule"])]
    out.append(dict(r, verdict=v, reason=why))
assert len(out) == len(V) == 20
(HERE / "findings_second.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in out))
print(f"wrote {len(out)} rows: {sum(r['verdict'] for r in out)} true")
