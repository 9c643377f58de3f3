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
    (TS, "src/tilespgemm-cuda.h", 255, "tile_spgemm_step1_cuda_spa_kernel", None, None),
    (TS, "src/utils_cuda_scan.h", 144, "init_sum_cuda_kernel", None, None),
    (TS, "src/utils_cuda_scan.h", 156, "exclusive_scan_cuda_kernel", None, None),
    (TS, "src/tilespgemm-cuda.h", 299, "tile_spgemm_step1_numeric_cuda_spa_kernel", None, None),
    (TS, "src/tilespgemm-cuda.h", 1237, "tile_spgemm_step3_cuda_kernel_dns_halfwarp", None, None),
    (TS, "src/tilespgemm-cuda.h", 1814, "tile_spgemm_step4_cuda_kernel_smem_v3_halfwarp", None, None),
    (TS, "src/tilespgemm-cuda.h", 369, "tile_spgemm_step3_cuda_kernel_2level", None, None),
    (TS, "src/tilespgemm-cuda.h", 753, "tile_spgemm_step3_cuda_kernel_2level_halfwarp", None, None),
    (KP, "libethash-cuda/CUDAMiner_cuda.cu", 100, "ethash_calculate_dag_item", None, None),
    (KP, "libethash-cuda/ethash_cuda_miner_kernel.cu", 20, "ethash_search", None, None),
    (KP, "libethash-cuda/CUDAMiner_kernel.cu", 172, "progpow_search", None, None),
    (BM, "src/filtering.cu", 231, "aggregate_block", None, None),
    (BM, "src/filtering.cu", 155, "hard_treshold_block", None, None),
    (BM, "src/filtering.cu", 114, "get_block", None, None),
    (BM, "src/dct8x8.cu", 151, "DCT2D8x8", None, None),
    (BM, "src/dct8x8.cu", 200, "IDCT2D8x8", None, None),
    (BM, "src/filtering.cu", 302, "wiener_filtering", None, None),
    (BM, "src/filtering.cu", 281, "aggregate_final", None, None),
    (BM, "src/blockmatching.cu", 74, "block_matching", None, None),
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
