"""Second judge's blind kernel verdicts for heldout43 (session 30, branch s30-j43).

    python3 bench/judged/heldout43/make_second.py   (run from the worktree root)

writes kernels_second.jsonl: the kernels `select_kernels.py /tmp/j43` draws (NPB-GPU 8, HiOp 8, GX 8, PIAFS 0 = 24
definitions) x MI300X, MI355X (wave64) and MI455X (wave32) = 72 rows. They were judged from the code in /tmp/j43
(trees built with make_trees.py heldout43 from the mirrors): the kernel, its device helpers and macros, its launch
sites, the build files and the project's ROCm arms. Only select_kernels.py, projects.json and the key fields of
guards.jsonl (through sample_guards_second.py) were read from s30-h43 before the blind commit.

Conventions (brief j43, as heldout30/39): judge hipify's output compiled by hip-clang; blocks below the wave size (or
stepping by 32) on real work are retune on wave64, 16-thread blocks on wave32 too; a `<<<1, 1>>>` serial task is not
a partial wave; textures are fix; a kernel no build compiles is ok; a project-wide macro problem is decided per kernel
that reaches it; a CUDA kernel the ROCm build replaces with a hand-kept HIP twin is judged by the twin.

Facts used:
- NPB-GPU: CUDA/ (.cu, nvcc) and HIP/ (.cpp, hipcc through HIP/config/make.def) are twins; with cuda->hip renamed,
  cg, lu, ft and mg differ only in comments, the runtime include, hipDeviceProp_t and (mg) C-style VLA casts. Block
  sizes come from config/gpu.config (identical in both trees) through setparams into npbparams.hpp; the warpSize
  fallback is used only when a configured size is out of range. Each benchmark's Makefile compiles one source:
  MG/Makefile compiles mg.cu (mg.cpp); CUDA/MG/mg-no-cast.cu and HIP/MG/mg-no-cast.cpp are in no Makefile (the HIP
  copy still calls cudaMalloc/cudaMemcpy, so it was never built by hipcc).
- HiOp: VectorCudaKernels.cu has a hand-kept HIP twin VectorHipKernels.cpp (same bodies, *_hip names, 256-thread
  grid-stride launches in both). MatrixSparseCsrCudaKernels.cu serves hiopMatrixSparseCsrCuda.cpp (whole file under
  HIOP_USE_CUDA), which has no HIP twin; ExecPolicyCuda sets bl_sz_binary_search = 16 for its binary-search kernels
  (ExecPolicyHip has no such field).
- GX: src/*.cu are compiled by nvcc or, with Makefiles/Makefile.frontier, by hipcc (-fgpu-rdc, gfx90a); gpu_defs.h's
  __HIPCC__ arm includes gpu_defs_hip.h (cu* -> hip* names) and sets WARPSIZE 64 for every HIP target (also wave32
  gfx1250), used only in host launch shapes. device_funcs.h's complex operators are non-template overloads on
  cuComplex (= hipFloatComplex), preferred over HIP's templated float2 operators.
- PIAFS: its kernels are written `GPU_KERNEL void ...` with the macro defined in each .cu file, so the draw finds no
  `__global__` definition: no kernel rows.
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


# ---------------------------------------------------------------- NPB-GPU
P = "GMAP/NPB-GPU"
NPB = ("the HIP/ twin (hipcc through HIP/config/make.def) is the same kernel and launch with cuda -> hip names; block "
       "size from config/gpu.config, identical in both trees; ")
NOCAST = ("CUDA/MG/mg-no-cast.cu is in no Makefile (MG/Makefile compiles mg.cu; the HIP/ copy mg-no-cast.cpp still "
          "calls cudaMalloc, so it was never built), so no build compiles this definition: ok by the convention. ")
add(P, "CUDA/CG/cg.cu", 1033, "gpu_kernel_five_2", "ok",
    "r[j] -= alpha*q[j], one thread per element with a bounds check; CG_THREADS_PER_BLOCK_ON_KERNEL_FIVE = 64 (one "
    "wave64, two wave32); " + NPB + "nothing vendor-specific: ok")
add(P, "CUDA/MG/mg-no-cast.cu", 1396, "norm2u3_gpu_kernel", "ok",
    NOCAST + "Its content would be ok too: one block per (i2, i3) row, THREADS_PER_BLOCK_ON_NORM2U3 = 128 (the file's "
    "own #define) strided over i1, shared-memory sum/max tree with __syncthreads, no warp code. (The built mg.cu/"
    "mg.cpp kernel of the same name runs with MG_THREADS_PER_BLOCK_ON_NORM2U3 = 32, which would be retune on "
    "wave64; it is a different definition from the drawn one.)")
add(P, "CUDA/MG/mg-no-cast.cu", 1986, "rprj3_gpu_kernel", "ok",
    NOCAST + "Its content would be ok too: one block per (j2, j3) row with blockDim = m1j-1 (the grid row length, "
    "data-shaped, the same in the built mg.cu/mg.cpp), static shared x1[M]/y1[M] and one __syncthreads, no warp code.")
add(P, "CUDA/LU/lu.cu", 1693, "norm_gpu_kernel", "ok",
    "single-block 5-component sum: each thread accumulates a strided slice into dynamic shared memory, then a "
    "halving tree with __syncthreads; launched <<<1, LU_THREADS_PER_BLOCK_ON_NORM = 512, 5*512*8 bytes>>> (halved only "
    "if shared memory is short); " + NPB + "no warp code: ok")
add(P, "CUDA/MG/mg-no-cast.cu", 1120, "interp_gpu_kernel", "ok",
    NOCAST + "Its content would be ok too: one block per (i2, i3) row with blockDim = mm1 (the coarse grid row "
    "length, data-shaped, also in the built mg.cu/mg.cpp), static shared z1/z2/z3[M], one __syncthreads, no warp code.")
add(P, "CUDA/FT/ft.cu", 1245, "evolve_gpu_kernel", ("retune", "retune", "ok"),
    ("elementwise u0 *= twiddle, u1 = u0 over NX*NY*NZ; launched with FT_THREADS_PER_BLOCK_ON_EVOLVE = 32 (" + NPB +
     "the HIP twin keeps 32): a 32-thread block fills half a wave64 on the main time-step kernel: retune",) * 2 +
    ("elementwise u0 *= twiddle, u1 = u0; 32-thread blocks are one full wave32; " + NPB + "ok",))
add(P, "CUDA/FT/ft.cu", 575, "cffts1_gpu_kernel_1", "ok",
    "transposes x_in into y0 (x <-> y) one element per thread; FT_THREADS_PER_BLOCK_ON_FFTX_1 = 1024; " + NPB +
    "nothing vendor-specific: ok")
add(P, "CUDA/LU/lu.cu", 3420, "ssor_gpu_kernel_1", "ok",
    "scales rsd by dt (a __constant__ in constants_device) over one (j, k) line per block; launched with "
    "max(nx-2, LU_THREADS_PER_BLOCK_ON_SSOR_1 = 512) threads, surplus threads return; " + NPB + "ok")

# ---------------------------------------------------------------- HiOp
P = "LLNL/hiop"
VEC = ("grid-stride loop over n, launched <<<(n+255)/256, 256>>> by the VectorCudaKernels.cu wrapper; the HIOP_USE_HIP "
       "build uses the hand-kept twin in VectorHipKernels.cpp (same body, *_hip name, same 256-thread launch); ")
add(P, "src/LinAlg/VectorHipKernels.cpp", 334, "add_constant_hip", "ok",
    "y[i] += c, grid-stride, launched <<<(n+255)/256, 256>>> by add_constant_kernel in the same file: a HIP kernel "
    "of the HIOP_USE_HIP build (twin of add_constant_cu); nothing to port: ok")
add(P, "src/LinAlg/VectorCudaKernels.cu", 234, "component_max_cu", "ok",
    "y[i] = max(y[i], c); " + VEC + "ok")
add(P, "src/LinAlg/VectorCudaKernels.cu", 596, "set_to_linspace_cu", "ok",
    "vec[i] = i0 + i*di for hiopVectorInt::linspace; " + VEC + "ok")
add(P, "src/LinAlg/VectorCudaKernels.cu", 416, "select_pattern_cu", "ok",
    "zeroes data[i] where id[i] == 0; " + VEC + "ok")
add(P, "src/LinAlg/VectorCudaKernels.cu", 297, "axdzpy_w_pattern_cu", "ok",
    "y[i] += alpha*x[i]/z[i] where id[i] == 1; " + VEC + "ok")
add(P, "src/LinAlg/VectorCudaKernels.cu", 369, "set_linear_damping_term_cu", "ok",
    "y[i] = v[i] where l[i] == 1 and r[i] == 0, else 0; " + VEC + "ok")
add(P, "src/LinAlg/VectorCudaKernels.cu", 427, "match_pattern_cu", "ok",
    "zeroes data[i] where id[i] == 0 (same body as select_pattern_cu); " + VEC + "ok")
add(P, "src/LinAlg/MatrixSparseCsrCudaKernels.cu", 154, "csr_set_diag_to_val", "retune",
    "sets the diagonal of a CSR matrix: per row (grid-stride) a binary search of the sorted column indices, device "
    "asserts; launched by csr_set_diag_kernel with block_size = ExecPolicyCuda::bl_sz_binary_search = 16 (the wrapper's "
    "comment: smaller blocks run 1.5-2x faster on NVIDIA). The file and hiopMatrixSparseCsrCuda.cpp are CUDA-only "
    "(no HIP twin; ExecPolicyHip has no binary-search block size), so hipify's output is judged: it compiles (assert "
    "exists in HIP device code), but 16-thread blocks fill a quarter of a wave64 and half a wave32: retune")

# ---------------------------------------------------------------- GX
P = "stellfoundry/gx-ai"
GX = ("src/device_funcs.cu is compiled by nvcc or, through gpu_defs.h's __HIPCC__ arm (gpu_defs_hip.h name map), by "
      "hipcc (Makefiles/Makefile.frontier); ")
add(P, "src/device_funcs.cu", 824, "init_m0", "ok",
    "per (ky, z) integer shift m0 for the twist-and-shift boundary (round, floorf and % wrap-around on "
    "__constant__ grid sizes); launched from geometry.cu with dimBlock_ntft (32, 16) = 512 threads; " + GX +
    "no warp code: ok")
add(P, "src/device_funcs.cu", 2503, "qneut_and_ampere_perp", "ok",
    "solves the 2x2 quasineutrality/perpendicular-Ampere system per (ky, kx, z) with the project's cuComplex "
    "operators; launched with GQN = (min(Nyc, WARPSIZE), min(Nx, 4), min(Nz, 4)) threads, WARPSIZE 64 in the HIP "
    "arm (up to 1024 threads, data-shaped); " + GX + "ok")
add(P, "src/device_funcs.cu", 623, "setI", "ok",
    "writes 1 on the diagonal of an N x N matrix; never launched in the archived sources; " + GX + "ok")
add(P, "src/device_funcs.cu", 1187, "ddx", "ok",
    "res = i kx f per (ky, kx, z) with the cuComplex operators and the unmasked() dealiasing test; never launched in "
    "the archived sources; " + GX + "ok")
add(P, "src/device_funcs.cu", 1900, "Wapar_summand_krehm", "ok",
    "|k_perp A_par|^2 spectrum summand per (ky, kx, z) with cuConjf (mapped to hipConjf); launched from "
    "diagnostic_classes.cu with dB = (min(8, Nyc), min(8, Nx), min(8, Nz)) (data-shaped, up to 512); " + GX + "ok")
add(P, "src/device_funcs.cu", 2492, "ampere_apar", "ok",
    "apar = fapar * jbar / denom per (ky, kx, z) (complex / float operator); launched with GQN (min(Nyc, WARPSIZE = 64 "
    "on HIP), min(Nx, 4), min(Nz, 4)); " + GX + "ok")
add(P, "src/device_funcs.cu", 1183, "castDoubleToFloat", "ok",
    "serial loop converting size cuDoubleComplex values to cuComplex (cuComplexDoubleToFloat -> "
    "hipComplexDoubleToFloat); launched <<<1, 1>>> in smith_par_closure.cu, a serial task, not a partial wave; " + GX +
    "ok")
add(P, "src/device_funcs.cu", 4165, "kxstar_phase_shift", "ok",
    "E x B shear kx* tracking per (ky, kx) in double, with sincosf into the .y/.x of the hipFloatComplex phase "
    "factors; launched from exb.cu with dimBlock_xy (32, 16) = 512 threads; " + GX + "no warp code: ok")

assert len(rows) == 24 * 3, len(rows)
with open(HERE / "kernels_second.jsonl", "w") as f:
    for r in sorted(rows, key=lambda r: (r["project"], r["path"], r["line"], r["target"])):
        f.write(json.dumps(r, sort_keys=True) + "\n")
print(len(rows), "rows")
