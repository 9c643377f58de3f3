"""Second judge's blind kernel verdicts for heldout39 (session 28, branch s28-j39).

    python3 bench/judged/heldout39/make_second.py   (run from the worktree root)

writes kernels_second.jsonl: the kernels `select_kernels.py /tmp/j39` draws (QGEMM 8, pgs_solver 4,
Dual-Compatibility-LOB 3, sdnext 3, SimpleTuner 0 = 18 definitions) x MI300X, MI355X (wave64) and MI455X (wave32) = 54
rows. They were judged from the code in /tmp/j39 (trees built with make_trees.py heldout39 from the mirrors): the
kernel, its device helpers, its launch sites, the build files and the project's ROCm arms. Only select_kernels.py,
projects.json and the key fields of guards.jsonl (through sample_guards_second.py) were read from s28-h39 before the
blind commit.

Conventions (brief j39, as heldout30): judge hipify's output compiled by hip-clang; blocks below the wave size (or
stepping by 32) on real work are retune on wave64; textures are fix; a kernel no build compiles is ok; a project-wide
macro problem is decided per kernel that reaches it; a CUDA kernel the ROCm build replaces with a hand-kept HIP twin is
judged by the twin.

Facts used:
- QGEMM's CMakeLists.txt has an empty `if(USE_HIP)` arm: there is no ROCm build. The USE_CUDA arm compiles
  test_cutlass_gemm.cu, test_cublas_gemm.cu, src/transpose/transpose.cu and the glob src/gemm/sm${ARCH}_*.cu (sm80_*
  for 80, sm89_* for 89). include/gpu_lib.h's USE_CUDA arm defines the PTX macros (ldmatrix, mma.sync m16n8k16,
  cp.async, movmatrix); its HIP arm only aliases rocwmma and defines LIB_CALL. The playground probes are built by
  playground/Makefile at the branch commit (`nvcc -O3 --gpu-architecture ${ARCH} -o test.ldmatrix.layout
  test.ldmatrix.layout.cu`, same for test.movmatrix.cu; checked with `git show` in the mirror, the file is not in the
  archived tree), so they are compiled code, not dead code, and are judged on their content as heldout23's ENCCS
  stand-alone examples were.
- AMD has no ldmatrix/movmatrix/mma.sync/cp.async: inline PTX does not compile for amdgcn, and the MFMA/WMMA operand
  layouts differ from NVIDIA's m16n8k16/m8n8 fragments, so kernels built on them are rewrite. gemm_utils.cuh's
  load_data_from_global_memory_to_shared_memory_async issues copy_cg_async (cp.async.cg) for every tile.
- pgs_solver's CMake ROCm arm (PGS_USE_ROCM) compiles src/pgs_solver.cu, dlpack_integration.cu, the example and the
  bindings as HIP with gpu_compat.h's name map; hipify maps the same names. The drawn kernels use no CUDA-only device
  feature.
- Dual-Compatibility-LOB's only CMakeLists.txt (Windows) compiles src/engine.cu and src/lob_kernel.cu with hipcc
  -DUSE_HIP; the src/*.hip twins differ from the .cu files only in comments.
- sdnext's SDNQ Triton kernels are selected for backend "rocm" in kernel_wrappers.py (use_triton_mm) and the configs
  use num_stages=1 when torch.version.hip. Triton's AMD backend lowers tl.make_tensor_descriptor loads/stores to
  pointer loads (no TMA needed), and emulates OCP float8_e4m3fn dots on CDNA3 through fp16 (triton-lang/triton
  #7186), so the fp8 path SDNQ enables on gfx94x compiles; whether that path is worth having on MI300X is a host-side
  choice, not a kernel change.
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
C = {p["project"]: p["commit"] for p in json.loads((HERE / "projects.json").read_text())}
T = ("mi300x", "mi355x", "mi455x")
rows = []


def add(project, path, line, kernel, verdicts, reasons):
    if isinstance(verdicts, str):
        verdicts = (verdicts,) * 3
    if isinstance(reasons, str):
        reasons = (reasons,) * 3
    for t, v, r in zip(T, verdicts, reasons):
        rows.append({"commit": C[project], "expected": v, "kernel": kernel, "line": line, "path": path,
                     "project": project, "reason": r, "target": t})


# ---------------------------------------------------------------- QGEMM
P = "machinelv/QGEMM"
PROBE = ("a PTX layout probe built by playground/Makefile with nvcc (no hipcc arm), launched <<<1, 32>>>: ")
add(P, "playground/test.movmatrix.cu", 50, "test_movmatrix", "rewrite",
    PROBE + "ldmatrix.sync.aligned.m8n8.x1 then movmatrix.sync.aligned.m8n8.trans in inline PTX. Its launch is "
    "commented out in main, but the non-template kernel is compiled with the file, and its asm does not assemble for "
    "amdgcn; AMD has no warp-collective 8x8 fragment load or in-register transpose, and the probe's whole point (the "
    "NVIDIA fragment layout) has no meaning on MFMA: rewrite")
add(P, "triton/fp8_gemm.py", 9, "_triton_matmul_kernel", "ok",
    "Triton GEMM D = A.B + C with 32x32x32 blocks and tl.dot; Triton's AMD backend compiles tl.dot to MFMA/WMMA. "
    "The file is imported by nothing and its host wrapper is broken on every vendor (self._triton_matmul_kernel on a "
    "module-level staticmethod, undefined PrecisionType, scalar block pointers with 2-D masks), so nothing here is "
    "AMD-specific work: ok")
add(P, "src/transpose/transpose.cu", 12, "matrix_transpose_kernel_v3", "ok",
    "bf16 transpose through a padded [32][64+16] shared tile: 256-thread blocks (64x32 tile / 8 bf16 per float4), "
    "float4 global loads/stores, __syncthreads, no warp code. Compiled by the CUDA CMake build (GEMM_SOURCES); after "
    "hipify __nv_bfloat16 becomes __hip_bfloat16 and the kernel compiles and runs as is: ok")
add(P, "playground/test.ldmatrix.layout.cu", 47, "test_ldmatrix_x2", "rewrite",
    PROBE + "two ldmatrix.sync.aligned.m8n8.x2(.trans).b16 loads per thread in inline PTX to print NVIDIA's fragment "
    "layout; the asm does not assemble for amdgcn and AMD has no ldmatrix (MFMA operands use another layout): rewrite")
add(P, "src/gemm/sm89_gemm_kernel_v2.cu", 76, "GEMM_kernel_bf16_v2", "rewrite",
    "bf16 GEMM with fp32 accumulation on nvcuda::wmma 16x16x16 fragments, 32-lane warps tiling 64x64 per warp "
    "(WARP_SIZE 32, warp_id = tid/32), tiles staged by gemm_utils.cuh's load_data_from_global_memory_to_shared_memory_"
    "async, which issues cp.async.cg PTX, then cp.async.wait_all. Compiled by the CUDA build for ARCH 89; the CMake "
    "USE_HIP arm is empty. hip-clang rejects the cp.async asm and nvcuda::wmma has no hipify mapping; a port needs "
    "rocWMMA or MFMA fragments re-tiled per 64-lane wavefront (two 32-lane 'warps' would share one wave64 fragment) "
    "and a new global-to-LDS staging: rewrite")
add(P, "playground/test.ldmatrix.layout.cu", 19, "test_ldmatrix_x4", "rewrite",
    PROBE + "ldmatrix.sync.aligned.m8n8.x4(.trans).b16 in inline PTX to print NVIDIA's fragment layout; the asm does "
    "not assemble for amdgcn and AMD has no ldmatrix: rewrite")
add(P, "playground/test.movmatrix.cu", 22, "test_movmatrix_x4", "rewrite",
    PROBE + "ldmatrix.x4 (LDMATRIX_BF16_X4) then four movmatrix.sync.aligned.m8n8.trans.b16 in inline PTX; launched "
    "twice by main. Neither instruction exists on AMD and the asm does not assemble for amdgcn: rewrite")
add(P, "src/gemm/sm80_gemm_kernel_v3.cu", 134, "GEMM_kernel_bf16_v3", "rewrite",
    "bf16 GEMM on raw mma.sync.aligned.m16n8k16 (BF16F32MMA16816) with ldmatrix fragment loads, per-lane register "
    "fragments sized for 32 lanes (WMMA_REG_PER_THREAD_* = tile bytes / 32), a lane-indexed epilogue that writes the "
    "m16n8 accumulator layout, and cp.async tile staging; compiled by the CUDA build for ARCH 80 (the first of its "
    "sm80/sm89 copies). None of the PTX exists on AMD and the fragment/lane math is NVIDIA's: rewrite")

# ---------------------------------------------------------------- pgs_solver
P = "flferretti/pgs_solver"
PGS = ("built by both CMake arms (PGS_USE_ROCM compiles the .cu files as HIP with gpu_compat.h's name map), launched "
       "with 256-thread blocks over rows; ")
add(P, "src/pgs_solver.cu", 286, "pgsBlackIterationKernel", "ok",
    "black half-sweep of red-black projected Gauss-Seidel: one thread per CSR row, skips red rows, serial row loop, "
    "relaxation and box projection; " + PGS + "plain loads/stores and float math, no warp code: ok")
add(P, "examples/poisson_cuda_example.cu", 14, "inspectMatrixKernel", "ok",
    "debug kernel that printf's the first CSR row pointers and values; never launched in main, compiled by the "
    "example target in both CMake arms (LANGUAGE HIP in the ROCm arm); device printf exists in HIP: ok")
add(P, "src/pgs_solver.cu", 230, "pgsRedIterationKernel", "ok",
    "red half-sweep of red-black projected Gauss-Seidel: one thread per CSR row, skips black rows, serial row loop, "
    "relaxation and box projection; " + PGS + "plain loads/stores and float math, no warp code: ok")
add(P, "src/pgs_solver.cu", 342, "computeResidualKernel", "ok",
    "per-row squared residual (b - A x)^2 of a CSR matrix, one thread per row; " + PGS + "nothing vendor-specific: ok")

# ---------------------------------------------------------------- Dual-Compatibility-LOB
P = "Flawxd/Dual-Compatibility-LOB"
LOB = ("compiled by the project's hipcc build (CMakeLists.txt runs hipcc -DUSE_HIP on src/engine.cu and "
       "src/lob_kernel.cu; the .hip twins differ only in comments), 256-thread blocks; ")
add(P, "src/engine.cu", 4, "hello_kernel", "ok",
    "test kernel writing idx*idx per thread; " + LOB + "nothing vendor-specific: ok")
add(P, "src/lob_kernel.cu", 174, "add_liquidity_kernel", "ok",
    "adds each order's quantity to the bid or ask book with int atomicAdd; " + LOB + "int atomics exist in HIP: ok")
add(P, "src/lob_kernel.cu", 9, "match_orders_kernel", "ok",
    "one thread per order matches against the opposite book level with int atomicSub/atomicAdd and an overdraw "
    "rollback; " + LOB + "no warp code, int atomics exist in HIP (the matching race is the design's, on both "
    "vendors): ok")

# ---------------------------------------------------------------- sdnext
P = "vladmandic/sdnext"
SD = ("SDNQ selects it on backend 'rocm' (kernel_wrappers.py use_triton_mm/use_triton_scaled_mm) and its autotune "
      "configs already use num_stages=1 under torch.version.hip; Triton's AMD backend lowers tl.make_tensor_descriptor "
      "loads/stores to pointer loads and tl.dot to MFMA (wave64) / WMMA (wave32); num_warps 4 gives 256 work-items. ")
add(P, "modules/sdnq/kernels/triton_scaled_mm.py", 23, "sdnq_scaled_mm_kernel", "ok",
    "grouped-tile quantized GEMM (int8 -> int32 or fp -> fp32 accumulation) through tensor descriptors, then "
    "per-row/per-column scales and optional bias; " + SD + "The fp8 (e4m3fn) path SDNQ enables on gfx94x is emulated "
    "through fp16 by Triton on CDNA3; nothing in the kernel changes: ok")
add(P, "modules/sdnq/kernels/triton_mm.py", 23, "sdnq_triton_mm_kernel", "ok",
    "grouped-tile int8/fp/fp8 GEMM through tensor descriptors with optional bias; " + SD + "ok")
add(P, "modules/sdnq/kernels/triton_atten.py", 37, "sdnq_attn_kernel", "ok",
    "flash-attention forward with optional int8/fp8 quantized QK and PV dots, causal/explicit masks, exp2 online "
    "softmax, descriptor loads per head; " + SD + "ok")

assert len(rows) == 18 * 3, len(rows)
with open(HERE / "kernels_second.jsonl", "w") as f:
    for r in sorted(rows, key=lambda r: (r["project"], r["path"], r["line"], r["target"])):
        f.write(json.dumps(r, sort_keys=True) + "\n")
print(len(rows), "rows")
