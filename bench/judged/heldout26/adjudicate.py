"""Writes adjudication.jsonl and kernels_adjudicated.jsonl from the first judge's kernels.jsonl (branch s23-h26) and
kernels_second.jsonl; run from the worktree root (python3 bench/judged/heldout26/adjudicate.py).

The two blind files disagree on 3 of 120 pairs (agreement_kernels.txt). Each is decided below with its reason;
every other pair must agree (the script fails loudly otherwise). kernels_adjudicated.jsonl is the first judge's
file with the decided verdicts (and, where the second judge's verdict wins, its reason) substituted.
"""
import json
import subprocess
from pathlib import Path

HERE = Path("bench/judged/heldout26")
first_text = subprocess.run(["git", "show", "s23-h26:bench/judged/heldout26/kernels.jsonl"],
                            capture_output=True, text=True, check=True).stdout
first = [json.loads(l) for l in first_text.splitlines() if l.strip()]
second = {(r["project"], r["path"], r["line"], r["kernel"], r["target"]): r
          for r in map(json.loads, open(HERE / "kernels_second.jsonl"))}
assert len(first) == len(second) == 120, (len(first), len(second))

HSCHUR = ("retune (first judge). makeHSchur runs block (32, cameraDim + pointDim) = 32 x 12 with blockDim.x = 32 "
          "chosen so one warp is one threadIdx.y row (the kernel's comment). A wave64 holds rows 8 and 9, so the "
          "camera branch (threadIdx.y < 9) and the point branch both run in that wave. The second judge called "
          "this a small divergence, but the resDim loop has a __syncthreads on every iteration, so the straddling "
          "wave, running both branches' atomics and stores, sets the pace of the whole block on each iteration. "
          "The remedy is a launch-shape change (blockDim.x = warpSize, or rows packed to wave width), which is "
          "porter's retune. MI455X (one row per wave32) stays ok.")
SPLIT = ("fix (second judge). SplitReceiveKernel is launched with <<<>>> in distributed_worklist.h:295/303, but "
         "fused_distributed_worklist.h:294 launches it as `SplitReceiveKernel <TLocal, TRemote, SplitOps> << < "
         "grid_dims, block_dims, 0, stream.cuda_stream >> >(`. That header is included by "
         "graphs/traversal_algo.h, so by bfs/sssp/pr_async.cu, and by the three *_async_opt.cu sources, all in "
         "CMake's bfs/sssp/pr executables. hip-clang rejects the spaced form even in an uninstantiated template "
         "member (\"expected expression\", checked with clang-22 -x hip -fsyntax-only). The session convention "
         "makes a kernel with a spaced launch fix, and the first judge's own findings count such launches as real "
         "(DEV040 rows at sssp_async.cu:444/581). The first judge's wave32 reading of the ballots is right, but "
         "that site still has to be respelled on MI455X too.")
DECIDE = {
    ("MegviiRobot/MegBA", "src/edge/build_linear_system.cu", 88, "makeHSchur", "mi300x"): ("retune", "first", HSCHUR),
    ("MegviiRobot/MegBA", "src/edge/build_linear_system.cu", 88, "makeHSchur", "mi355x"): ("retune", "first", HSCHUR),
    ("groute/groute", "include/groute/distributed_worklist.h", 119, "SplitReceiveKernel", "mi455x"):
        ("fix", "second", SPLIT),
}
adj, out = [], []
for r in first:
    k = (r["project"], r["path"], r["line"], r["kernel"], r["target"])
    s = second[k]
    row = dict(r)
    if s["expected"] != r["expected"]:
        if k not in DECIDE:
            raise SystemExit(f"undecided disagreement {k}: first={r['expected']} second={s['expected']}")
        verdict, side, why = DECIDE[k]
        assert verdict in (r["expected"], s["expected"])
        adj.append({"key": dict(zip(("project", "path", "line", "kernel", "target"), k)),
                    "first": r["expected"], "second": s["expected"], "adjudicated": verdict, "follows": side,
                    "first_reason": r["reason"], "second_reason": s["reason"], "adjudication": why})
        if side == "second":
            row["expected"], row["reason"] = s["expected"], s["reason"]
    else:
        assert k not in DECIDE, k
    out.append(row)
assert len(adj) == len(DECIDE), (len(adj), len(DECIDE))
(HERE / "adjudication.jsonl").write_text("".join(json.dumps(a, sort_keys=True) + "\n" for a in adj))
(HERE / "kernels_adjudicated.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in out))
print(f"{len(adj)} disagreements adjudicated, {len(out)} rows written")
