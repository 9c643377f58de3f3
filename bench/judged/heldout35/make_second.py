"""Second judge's blind kernel verdicts for heldout35 (session 27, branch s27-j35).

    python3 bench/judged/heldout35/make_second.py   (run from the worktree root)

writes kernels_second.jsonl: the kernels `select_kernels.py /tmp/j35/h35` draws (GHEX 8, f5c 3, VapourSynth-BM3DCUDA
3, Vship 8, gt4py 0, gridtools 8 = 30 definitions) x MI300X, MI355X (wave64) and MI455X (wave32) = 90 rows. They were
judged from the code in trees built with `make_trees.py heldout35 /tmp/j35/h35`: the kernel, its device helpers, its
launch sites, the build files and the project's ROCm arms / HIP twins. Only select_kernels.py, projects.json and the
key fields of guards.jsonl were read from s27-h35 before the blind commit.

Conventions (brief j35, as heldout30): judge hipify's output compiled by hip-clang; blocks below the wave size (or
stepping by 32) on real work are retune on wave64; textures are fix; a kernel no build compiles is ok; a project-wide
macro problem is decided per kernel that reaches it; a CUDA kernel the ROCm build replaces with a hand-kept HIP twin
is judged by the twin (ok when complete and right on the target).

Facts used:
- GHEX and GridTools are CUDA-spelled sources compiled by nvcc or hip-clang. GHEX's config.hpp defines GHEX_CUDACC for
  __CUDACC__ or __HIP_PLATFORM_AMD__ and include/ghex/device/cuda/runtime.hpp maps the cuda* names to hip* under
  __HIP_PLATFORM_AMD__ (cudaStream_t, cudaIpc*, ...); GridTools' common/cuda_runtime.hpp does the same, and its
  reduction has a `#ifdef __HIP__` warp_reduce arm on __shfl_down with the warp size (32 or 64) taken at run time from
  cudaDeviceProp::warpSize.
- f5c's ROCm build (`make rocm=1`) compiles src/align.hip, a hand-kept twin of align.cu: the same text with cuda ->
  hip, f5cmisc_rocm.h, and align_kernel_post's WARP_HACK stepping by 64 instead of 32 (one working lane per 64
  threads). pre/core run with blocks (BLOCK_LEN_BANDWIDTH 128, 1) for ALN_BANDWIDTH 100.
- BM3DCUDA's ROCm build (ENABLE_HIP) compiles hip_source/kernel.hip.cpp, a hand-kept twin of source/kernel.cu (PTX
  %laneid replaced by threadIdx.x, *_sync shuffles by width-8 __shfl*, __syncwarp/__activemask dropped), with
  `-mno-wavefrontsize64 -mcumode`. All its kernels run with 32-thread blocks (blockDim(32), __launch_bounds__(32)).
  Checked with clang-22 --cuda-device-only: on gfx942 -mno-wavefrontsize64 is ignored (.wavefront_size: 64), on
  gfx1250 the kernel is wave32. So on MI300X/MI355X each bm3d block is half a wave64; on MI455X it is the wave32 design
  the twin was written for.
- Vship is HIP-first (hipcc builds it for AMD; nvcc through util/preprocessor.hpp), so its kernels are HIP code.
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


# ---------------------------------------------------------------- GHEX
P = "ghex-org/GHEX"
GH = (" GHEX compiles it with hip-clang in ghex_gpu_mode hip (GHEX_CUDACC covers __HIP_PLATFORM_AMD__; runtime.hpp maps "
      "cudaStream_t and the runtime calls to hip*)")
UNS = ("; launched with 32x8 = 256-thread blocks (GHEX_UNSTRUCTURED_SERIALIZATION_THREADS_PER_BLOCK_X/Y), one thread "
       "per (index, level), bounds-checked, no shared memory or warp code:" + GH + ": ok")
add(P, "include/ghex/unstructured/user_concepts.hpp", 477, "pack_kernel_levels_last", "ok",
    "unstructured halo pack, levels-last layout (idx on x, level on y)" + UNS)
add(P, "include/ghex/unstructured/user_concepts.hpp", 510, "unpack_kernel_levels_last", "ok",
    "unstructured halo unpack, levels-last layout" + UNS)
add(P, "include/ghex/unstructured/user_concepts.hpp", 461, "pack_kernel_levels_first", "ok",
    "unstructured halo pack, levels-first layout (level on x, idx on y)" + UNS)
ATL = ("; launched with GHEX_ATLAS_SERIALIZATION_THREADS_PER_BLOCK = 32 threads per block, one thread per halo index "
       "looping over components (real work over every halo point), built when GHEX_ENABLE_ATLAS_BINDINGS is on;" + GH)
add(P, "include/ghex/glue/atlas/atlas_user_concepts.hpp", 376, "unpack_kernel", ("retune", "retune", "ok"),
    ("Atlas field halo unpack" + ATL + ". A 32-thread block is half a wave64: retune",) * 2
    + ("Atlas field halo unpack" + ATL + ". A 32-thread block is one full wave32: ok",))
add(P, "include/ghex/glue/atlas/atlas_user_concepts.hpp", 361, "pack_kernel", ("retune", "retune", "ok"),
    ("Atlas field halo pack" + ATL + ". A 32-thread block is half a wave64: retune",) * 2
    + ("Atlas field halo pack" + ATL + ". A 32-thread block is one full wave32: ok",))
add(P, "include/ghex/packer.hpp", 99, "pack_kernel_u", "ok",
    "structured pack of up to 34 iteration spaces per launch through a by-value kernel_argument array (blockIdx.y picks "
    "the space), 128-thread blocks, one element per thread with a bounds check; no warp code or shared memory;" + GH
    + ": ok")
add(P, "include/ghex/structured/pack_kernels.hpp", 163, "pack_kernel", "ok",
    "structured halo pack, block_dim 128, elements_per_thread 1, coordinate computed from strides; no warp code or "
    "shared memory;" + GH + ": ok")
add(P, "include/ghex/structured/rma_put.hpp", 206, "put_device_to_device_kernel", "ok",
    "RMA device-to-device put over chunked ranges, 128-thread blocks, one element per thread with a device memcpy "
    "(supported by hip-clang); the IPC handles it relies on are mapped to hipIpc* in runtime.hpp;" + GH + ": ok")

# ---------------------------------------------------------------- f5c
P = "hasindu2008/f5c"
F5 = (" The ROCm build (make rocm=1) compiles the hand-kept twin src/align.hip with hipcc (-fgpu-rdc), which is this "
      "kernel with cuda -> hip names and f5cmisc_rocm.h, so the twin is judged")
add(P, "src/align.cu", 493, "align_kernel_post", "ok",
    "adaptive-banded alignment traceback, one serial thread per read (WARP_HACK: one working lane per warp so reads do "
    "not diverge against each other)." + F5 + ": its WARP_HACK steps by 64 (tid/64, tid%64==0, grid BLOCK_LEN/64, "
    "assert BLOCK_LEN>=64), one read per wave64; on wave32 the second wave of each 64 has no work and exits at once. No "
    "shared memory, barriers or shuffles: ok")
add(P, "src/align.cu", 256, "align_kernel_core_2d_shm", "ok",
    "adaptive-banded DP fill, one read per block of (128, 1) threads with ALN_BANDWIDTH 100 active lanes, three band "
    "rows in shared memory and __syncthreads per band." + F5 + ". The barriers sit inside `offset < ALN_BANDWIDTH`, but "
    "every wave (two wave64 or four wave32: lanes 96-99 keep the last one live) reaches them the same number of times "
    "since the band loop is uniform per block, as on NVIDIA's warps: ok")
add(P, "src/align.cu", 149, "align_kernel_pre_2d", "ok",
    "alignment set-up: thread 0 caches k-mer models serially, threads < bandwidth initialise the first band rows; blocks "
    "(128, 1)." + F5 + "; no warp code, barriers or shared memory: ok")

# ---------------------------------------------------------------- VapourSynth-BM3DCUDA
P = "WolframRhodium/VapourSynth-BM3DCUDA"
BM = ("BM3D block matching + 3D collaborative filtering, one 32-thread block per reference patch (blockDim(32), "
      "__launch_bounds__(32)), 8-wide shuffle groups for the DCT/Haar transforms and the block-matching sort, atomicAdd "
      "accumulation. ")
TW = ("The ROCm build (ENABLE_HIP) compiles the hand-kept twin hip_source/kernel.hip.cpp (lane id = threadIdx.x, "
      "width-8 __shfl/__shfl_xor/__shfl_up, no __syncwarp/__activemask, compiled -mno-wavefrontsize64 -mcumode), which "
      "is complete and right for one block = 32 lanes. ")
W64 = ("On gfx942/gfx950 -mno-wavefrontsize64 is ignored (checked: .wavefront_size 64), so each 32-thread block runs "
       "as half a wave64 on all the real work: retune")
W32 = "On gfx1250 it is the wave32 design the twin was written for: ok"
add(P, "source/kernel.cu", 367, "bm3d", ("retune", "retune", "ok"),
    (BM + "CUDA build (PTX %laneid asm, *_sync shuffles). " + TW + W64,) * 2 + (BM + "CUDA build. " + TW + W32,))
add(P, "rtc_source/kernel.hpp", 690, "bm3d", ("retune", "retune", "ok"),
    (BM + "NVRTC build (the same kernel as a runtime-compiled string, PTX %laneid asm). The ROCm arm has no hiprtc "
     "build; its counterpart is the static HIP twin. " + TW + W64,) * 2
    + (BM + "NVRTC build; its ROCm counterpart is the static HIP twin. " + TW + W32,))
add(P, "hip_source/kernel.hip.cpp", 374, "defined", ("retune", "retune", "ok"),
    (BM + "This is the hand-kept HIP twin itself (the draw names it `defined` from the gfx launch-bounds #if). " + TW
     + W64,) * 2 + (BM + "This is the hand-kept HIP twin itself. " + TW + W32,))

# ---------------------------------------------------------------- Vship
P = "Line-fr/Vship"
VS = " Vship is HIP-first, built by hipcc for AMD; no warp code or shared memory: ok"
EW = " one thread per sample, bounds-checked,"
add(P, "src/butter/simplerdiff.hpp", 21, "diffclamp_Kernel", "ok",
    "Butteraugli clamp-and-difference, elementwise;" + EW + " blocks of min(256, width) threads (width is a plane "
    "size), __launch_bounds__(256);" + VS)
add(P, "src/gpuColorToLinear/anyDepthToFloat.hpp", 71, "convertToFloatPlane_Kernel", "ok",
    "integer/half/float sample to float plane conversion with range scaling;" + EW + " 256-thread blocks;" + VS)
add(P, "src/butter/diffnorms.hpp", 11, "sumreduce", "ok",
    "block sum/sum/max reduction of three planes in shared memory, launched with 1024 threads (diffnorms and "
    "ssimu2 score.hpp), tree steps under __syncthreads at every level, no warp-synchronous tail, so wave size does not "
    "matter; Vship is HIP-first, built by hipcc: ok")
add(P, "src/gpuColorToLinear/primaries.hpp", 147, "primariesToPrimaries_kernel", "ok",
    "colour primaries conversion on float3 pixels;" + EW + " 256-thread blocks;" + VS)
add(P, "src/butter/separatefrequencies.hpp", 142, "XybLowFreqToVals_Kernel", "ok",
    "XYB low-frequency to values transform;" + EW + " blocks of min(256, width) threads;" + VS)
add(P, "src/butter/separatefrequencies.hpp", 53, "subarray_removerangearound0_Kernel", "ok",
    "subtract and remove range around zero;" + EW + " blocks of min(256, width) threads;" + VS)
add(P, "src/gpuColorToLinear/YUVToLinRGB.hpp", 166, "YUVToLinRGBPipeline_Kernel", "ok",
    "YUV to linear RGB pipeline (matrix + transfer templates) on float3;" + EW + " 256-thread blocks;" + VS)
add(P, "src/cvvdp/colors.hpp", 51, "linrgb_to_loglms_dklKernel", "ok",
    "linear RGB to log-LMS/DKL on float3, elementwise (the source says it is not used; nothing launches it);" + VS)

# ---------------------------------------------------------------- gridtools
P = "GridTools/gridtools"
GT = (" GridTools compiles it with hip-clang (GT_CUDACC covers both device compilers; common/cuda_runtime.hpp maps the "
      "runtime names to hip*)")
GCL = ("; 1x32x8 or 32x8(x1) = 256-thread blocks, one element per thread with bounds checks, the 27-pointer message "
       "table loaded into shared memory by the first lanes before a __syncthreads; no warp code;" + GT + ": ok")
add(P, "include/gridtools/reduction/gpu.hpp", 266, "launch", "ok",
    "generic reduction step launcher (tiny/shmem/small_warp/big_warp kernels chosen at compile time per block size "
    "and warp size). The warp size is read at run time (cudaDeviceProp::warpSize) and dispatched as 32 or 64, and the "
    "`#ifdef __HIP__` warp_reduce arm uses __shfl_down with offsets up to 32, so wave64 and wave32 both get a matching "
    "kernel; HIP_VERSION > 400 takes big_warp_kernel;" + GT + ": ok")
add(P, "include/gridtools/gcl/high_level/m_unpackXU.hpp", 16, "m_unpackXUKernel", "ok",
    "GCL halo unpack, X upper face" + GCL)
add(P, "include/gridtools/reduction/gpu.hpp", 367, "fill", "ok",
    "fills the rounding tail of a reduction buffer, one element per thread, gcd(rounded_size, maxThreadsPerBlock) "
    "threads (rounded_size is a multiple of a power-of-two chunk);" + GT + ": ok")
add(P, "include/gridtools/gcl/high_level/m_unpackXL_generic.hpp", 15, "m_unpackXLKernel_generic", "ok",
    "GCL generic halo unpack, X lower face" + GCL)
add(P, "include/gridtools/gcl/high_level/m_unpackXL.hpp", 16, "m_unpackXLKernel", "ok",
    "GCL halo unpack, X lower face" + GCL)
add(P, "include/gridtools/gcl/high_level/m_packYU.hpp", 16, "m_packYUKernel", "ok",
    "GCL halo pack, Y upper face" + GCL)
add(P, "include/gridtools/gcl/high_level/m_unpackZL_generic.hpp", 15, "m_unpackZLKernel_generic", "ok",
    "GCL generic halo unpack, Z lower face" + GCL)
add(P, "include/gridtools/gcl/high_level/m_unpackZU_generic.hpp", 15, "m_unpackZUKernel_generic", "ok",
    "GCL generic halo unpack, Z upper face" + GCL)

assert len(rows) == 90, len(rows)
with open(HERE / "kernels_second.jsonl", "w") as f:
    for r in rows:
        f.write(json.dumps(r, sort_keys=True) + "\n")
print(len(rows), "rows")
