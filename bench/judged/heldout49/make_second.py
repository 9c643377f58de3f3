"""Second judge's blind kernel verdicts for heldout49 (issue 27, session 31): a skeleton with the drawn list, no verdicts.

    python3 bench/judged/heldout49/make_second.py   (run from the worktree root)

writes kernels_second.jsonl once every entry of KERNELS has verdicts and reasons filled in. The list is what
`select_kernels.py /tmp/<judge>/h49` draws (seed 3491; TileSpGEMM 8, kawpowminer 3, bm3d-gpu 8; DyCuckoo's kernels are
declared through a GLOBALQUALIFIER macro and are not drawn) x MI300X, MI355X (wave64) and MI455X (wave32) = 57 rows.
Build the trees yourself with `make_trees.py heldout49 DIR`; do not use /tmp/h49, and do not open kernels.jsonl,
findings.jsonl or README.md of this directory before your blind commit. Conventions: heldout30's, as heldout44's README
restates them (hipify output compiled by hip-clang; sub-wave blocks on real work retune on wave64; textures fix; code
no build compiles ok; translation-unit problems charged per kernel that reaches them; dynamic parallelism rewrite).
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
C = {p["project"]: p["commit"] for p in json.loads((HERE / "projects.json").read_text())}
T = ("mi300x", "mi355x", "mi455x")
TS, KP, BM = "SuperScientificSoftwareLaboratory/TileSpGEMM", "RavenCommunity/kawpowminer", "DawyD/bm3d-gpu"

# (project, path, line, kernel, verdicts (one for all targets or three), reason (one or three)); fill in None.
KERNELS = [
    (TS, "src/tilespgemm-cuda.h", 255, "tile_spgemm_step1_cuda_spa_kernel", 'fix', "launched (tilespgemm-cuda.h:2773, 128 threads = 4 x 32-lane warps); reaches sum_32_shfl (tilespgemm-cuda.h:4-11), __shfl_xor_sync with the 32-bit mask 0xffffffff, which HIP's *_sync shuffles reject (64-bit mask required), so it does not build on any target; the xor offsets 16..1 stay inside each 32-lane group, so the wave64 logic holds once the mask is widened"),
    (TS, "src/utils_cuda_scan.h", 144, "init_sum_cuda_kernel", 'ok', 'plain global stores, no warp-level code; compiled (utils_cuda_scan.h is included by main.cu) but never launched: its only launcher exclusive_scan_device_cuda is called nowhere (the calls are commented out at spgemm_nsparse_kernel.h:1309; tilespgemm-cuda.h uses the thrust scan); nothing to port'),
    (TS, "src/utils_cuda_scan.h", 156, "exclusive_scan_cuda_kernel", 'fix', "never launched (exclusive_scan_device_cuda has no live caller), but it is a non-template kernel in a header main.cu includes, so it is compiled, and its own body has __shfl_sync(0xffffffff, segid, 0) (utils_cuda_scan.h:168) and reaches scan_32_shfl's 32-bit-mask __shfl_up_sync: the translation unit fails in this kernel's own code, so the port must edit it (or drop it); it also hard-codes WARP_SIZE 32 per segment with a broadcast from absolute lane 0, wrong for the upper half of a wave64"),
    (TS, "src/tilespgemm-cuda.h", 299, "tile_spgemm_step1_numeric_cuda_spa_kernel", ('fix', 'fix', 'fix'), ("launched (tilespgemm-cuda.h:2830); scan_32_shfl and __shfl_sync(0xffffffff, cnt_scan, 31) use 32-bit masks that HIP's *_sync shuffles reject; on wave64 the absolute-lane broadcast from lane 31 (default width 64) gives the second 32-lane warp of each wave the first warp's running offset, so column indices are written to wrong positions: needs width 32 as well as 64-bit masks", "launched (tilespgemm-cuda.h:2830); scan_32_shfl and __shfl_sync(0xffffffff, cnt_scan, 31) use 32-bit masks that HIP's *_sync shuffles reject; on wave64 the absolute-lane broadcast from lane 31 (default width 64) gives the second 32-lane warp of each wave the first warp's running offset, so column indices are written to wrong positions: needs width 32 as well as 64-bit masks", "launched (tilespgemm-cuda.h:2830); scan_32_shfl and __shfl_sync(0xffffffff, cnt_scan, 31) use 32-bit masks that HIP's *_sync shuffles reject, so it does not build; on wave32 the 32-lane logic is otherwise right")),
    (TS, "src/tilespgemm-cuda.h", 1237, "tile_spgemm_step3_cuda_kernel_dns_halfwarp", 'fix', 'never launched (USE_DNS_THREAD is 1 in common.h, so the dense branch at tilespgemm-cuda.h:2903 always takes dns_thread) but compiled as a non-template kernel in a header main.cu includes; its own body uses __shfl_sync(0xffffffff, ..., (lane_id >> 4) << 4) and sum_16_shfl/scan_32_shfl with 32-bit masks (-1 and 0xffffffff), which HIP rejects, so the port must edit it; the absolute-lane broadcasts with lane_id = threadIdx & 31 would also mix 32-lane halves on wave64'),
    (TS, "src/tilespgemm-cuda.h", 1814, "tile_spgemm_step4_cuda_kernel_smem_v3_halfwarp", 'fix', "launched (tilespgemm-cuda.h:3023, <SMEM_TNY_TH>, 8 half-warps of 16); no shuffles, and its warp-synchronous shared-memory use within 16 lanes holds on AMD, but it loads through nsparse_asm.h's ld_gbl_int32/ld_gbl_uchar/ld_gbl_real, inline PTX ld.global.cv.* (nsparse_asm.h:69-110), which hip-clang cannot compile: replace with volatile or nontemporal loads on every target"),
    (TS, "src/tilespgemm-cuda.h", 369, "tile_spgemm_step3_cuda_kernel_2level", 'fix', 'never launched (USE_HALFWARP is 1, so tilespgemm-cuda.h:2940 takes the half-warp kernel) but compiled as a non-template kernel; its own body has five __shfl_sync(0xffffffff, pos, 0) and reaches sum_32_shfl/scan_32_shfl, all with 32-bit masks HIP rejects, so the file does not build until it is edited; with 32-lane warps packed two per wave64 the lane-0 broadcasts would also be wrong for the upper half'),
    (TS, "src/tilespgemm-cuda.h", 753, "tile_spgemm_step3_cuda_kernel_2level_halfwarp", ('fix', 'fix', 'fix'), ("launched (tilespgemm-cuda.h:2944, 128 threads); __shfl_sync(0xffffffff, pos, (lane_id >> 4) << 4) with lane_id = threadIdx & 31, scan_32_shfl and sum_16_shfl pass 32-bit masks HIP rejects; on wave64 the absolute source lanes 0/16 (default width 64) hand lanes 32-63 the first half's atomicAdd positions and scan offsets, so the tile lists are corrupted: needs width 32 (or wave-aware source lanes) as well as 64-bit masks", "launched (tilespgemm-cuda.h:2944, 128 threads); __shfl_sync(0xffffffff, pos, (lane_id >> 4) << 4) with lane_id = threadIdx & 31, scan_32_shfl and sum_16_shfl pass 32-bit masks HIP rejects; on wave64 the absolute source lanes 0/16 (default width 64) hand lanes 32-63 the first half's atomicAdd positions and scan offsets, so the tile lists are corrupted: needs width 32 (or wave-aware source lanes) as well as 64-bit masks", 'launched (tilespgemm-cuda.h:2944); __shfl_sync/__shfl_up_sync/__shfl_xor_sync with 32-bit masks (0xffffffff, -1) are rejected by HIP, so it does not build; on wave32 the half-warp broadcasts are otherwise right')),
    (KP, "libethash-cuda/CUDAMiner_cuda.cu", 100, "ethash_calculate_dag_item", 'fix', "compiled (CUDAMiner_cuda.cu is in the CMake sources) and launched by ethash_generate_dag; cuda_helper.h, which the file includes, declares host stubs `extern const dim3 blockDim; extern const uint3 threadIdx;` under #ifndef __CUDA_ARCH__, which hip-clang does not define, so they clash with HIP's builtins that this kernel uses (clang-22 -x hip for gfx942 and gfx1250: 'redeclaration of blockDim/threadIdx'), and the same header's non-template MAKE_ULONGLONG and xor helpers use PTX '=l' asm (rejected); the width-4 SHFL takes the legacy __shfl arm (no __CUDACC_VER_MAJOR__) and holds on wave64 and wave32"),
    (KP, "libethash-cuda/ethash_cuda_miner_kernel.cu", 20, "ethash_search", 'ok', "ethash_cuda_miner_kernel.cu is not in libethash-cuda's CMake sources (file(GLOB sources CUDAMiner.cpp CUDAMiner_cuda.cu)) and no file includes it, so no build compiles this kernel; nothing to port"),
    (KP, "libethash-cuda/CUDAMiner_kernel.cu", 172, "progpow_search", 'fix', 'NVRTC source compiled at run time (CUDAMiner.cpp:360-470: --gpu-architecture=compute_XY, PTX loaded with cuModuleLoadDataEx, cuLaunchKernel): the kernel text has __shfl_sync(0xFFFFFFFF, ..., h, PROGPOW_LANES) with a 32-bit mask that HIP rejects, and the host pipeline must move to hiprtc with an offload-arch option and code objects; the 16-lane groups with width PROGPOW_LANES hold on wave64 and wave32'),
    (BM, "src/filtering.cu", 231, "aggregate_block", 'ok', "k x k = 64-thread blocks (bm3d.hpp:314), per-pixel float atomicAdd to global numerator/denominator (supported by HIP), no warp-level code; filtering.cu's 32-bit-mask warpReduceSum is a template reached only by hard_treshold_block and wiener_filtering, not by this kernel"),
    (BM, "src/filtering.cu", 155, "hard_treshold_block", 'fix', "reaches blockReduceSum -> warpReduceSum (filtering.cu:13-19), __shfl_down_sync(0xffffffff, ...) with a 32-bit mask HIP's *_sync shuffles reject, so it does not build on any target; the reduction itself uses warpSize and with k*k = 64 threads works on wave64 (one wave) and wave32"),
    (BM, "src/filtering.cu", 114, "get_block", 'ok', "64-thread (8x8) gather of patches from the image into the stack, no shared memory or warp-level code; does not reach filtering.cu's shuffle template; ports as is"),
    (BM, "src/dct8x8.cu", 151, "DCT2D8x8", 'ok', '(8, 16) blocks (bm3d.hpp:320), 8x8 DCT per 8 consecutive threads through shared memory with no barrier between the column load and the row/column passes: it relies on the 8 threads of a tile sharing a warp, which holds on wave64 and wave32 (lockstep waves); no intrinsics to port'),
    (BM, "src/dct8x8.cu", 200, "IDCT2D8x8", 'ok', 'same structure as DCT2D8x8 (inverse transform, 8 threads per 8x8 tile in one wave, no barrier needed in lockstep waves); ports as is'),
    (BM, "src/filtering.cu", 302, "wiener_filtering", 'fix', "reaches blockReduceSum<float> -> warpReduceSum's __shfl_down_sync(0xffffffff, ...) (filtering.cu:17), a 32-bit mask HIP rejects, so it does not build on any target; the warpSize-based reduction is otherwise right for 64 threads on wave64 and wave32"),
    (BM, "src/filtering.cu", 281, "aggregate_final", 'ok', '(128, 4) elementwise divide/round/clamp with lrintf; nothing wave- or vendor-specific'),
    (BM, "src/blockmatching.cu", 74, "block_matching", ('fix', 'fix', 'ok'), ('warpSize-generic kernel, but the host launch (get_BM_launch_parameters, bm3d.hpp:264-285) sizes the block as properties.warpSize * num_warps with num_warps = min(sharedMemPerBlock / per-warp bytes, 32): with warpSize 64 that is 24 warps = 1536 threads at 64 KiB LDS (MI300X) and 32 x 64 = 2048 at 160 KiB (MI355X), above the 1024-thread block limit, so the launch fails: cap num_warps at maxThreadsPerBlock / warpSize', 'warpSize-generic kernel, but the host launch (get_BM_launch_parameters, bm3d.hpp:264-285) sizes the block as properties.warpSize * num_warps with num_warps = min(sharedMemPerBlock / per-warp bytes, 32): with warpSize 64 that is 24 warps = 1536 threads at 64 KiB LDS (MI300X) and 32 x 64 = 2048 at 160 KiB (MI355X), above the 1024-thread block limit, so the launch fails: cap num_warps at maxThreadsPerBlock / warpSize', 'warp-synchronous shared-memory matching written against warpSize (kernel) and properties.warpSize (host); on wave32 num_warps is capped at 32, so at most 1024 threads, and the lane-to-lane s_diff reads hold in lockstep waves; ports as is')),
]


def rows():
    out = []
    for project, path, line, kernel, verdicts, reasons in KERNELS:
        if verdicts is None or reasons is None:
            raise SystemExit(f"no verdict yet for {project} {kernel}")
        verdicts = (verdicts,) * 3 if isinstance(verdicts, str) else tuple(verdicts)
        reasons = (reasons,) * 3 if isinstance(reasons, str) else tuple(reasons)
        assert len(verdicts) == len(reasons) == 3, kernel
        for t, v, r in zip(T, verdicts, reasons):
            out.append({"commit": C[project], "expected": v, "kernel": kernel, "line": line, "path": path,
                        "project": project, "reason": r, "target": t})
    return out


if __name__ == "__main__":
    done = rows()  # raises before any file is written while a verdict is missing
    with (HERE / "kernels_second.jsonl").open("w") as f:
        for row in done:
            f.write(json.dumps(row, sort_keys=True) + "\n")
