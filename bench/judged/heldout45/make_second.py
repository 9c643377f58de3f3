"""Second judge's blind kernel verdicts for heldout45: a skeleton for a judge who has not read kernels.jsonl.

    python3 bench/judged/heldout45/make_second.py /tmp/j45/h45   (run from the worktree root)

Helper h45 built the set; a second judge (j45) fills V, so V below is empty on purpose: the builder must not fill
it. A second judge builds the trees (`make_trees.py heldout45 DIR`), runs `select_kernels.py DIR` to get the
24 drawn kernels (GPAW 8, spconv-triton 8, FlagSparse 8; torch-ivf has none), judges each from the code (the kernel, its helpers, launch sites,
build files and the project's ROCm arms or twins) for MI300X (gfx942, wave64), MI355X (gfx950, wave64) and MI455X
(gfx1250, wave32) with heldout30's conventions (hipify's output with hip-clang; blocks below the wave size are retune;
a kernel no build compiles is ok; a CUDA kernel the ROCm build replaces by a twin or arm is judged by the replacement),
writes one V entry per kernel, and only then opens kernels.jsonl. The script writes kernels_second.jsonl in
kernels.jsonl's format and refuses to write while any drawn kernel lacks a verdict or V names a kernel not drawn.
Guard sides: `sample_guards_second.py guards.jsonl > guard_keys_second.jsonl` gives the keys without the first
judge's `real`/`reason`; a make_guards_second.py like heldout39's turns the second judge's table into
guards_second.jsonl.
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from select_kernels import draw  # noqa: E402

T = ("mi300x", "mi355x", "mi455x")
# (project, path, line) -> ((verdict mi300x, verdict mi355x, verdict mi455x), reason); filled by the second judge.
V: dict[tuple[str, str, int], tuple[tuple[str, str, str], str]] = {}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    commits = {p["project"]: p["commit"] for p in json.loads((HERE / "projects.json").read_text())}
    drawn = draw(Path(argv[0]), 3451)
    keys = {(project, k["path"], k["line"]): k["kernel"] for project, ks in drawn.items() for k in ks}
    missing = sorted(set(keys) - set(V))
    extra = sorted(set(V) - set(keys))
    if missing or extra:
        print(f"{len(missing)} drawn kernels without a verdict, {len(extra)} verdicts for kernels not drawn; "
              "nothing written", file=sys.stderr)
        return 1
    rows = []
    for (project, path, line), kernel in sorted(keys.items()):
        verdicts, reason = V[(project, path, line)]
        for target, verdict in zip(T, verdicts):
            rows.append({"commit": commits[project], "expected": verdict, "kernel": kernel, "line": line,
                         "path": path, "project": project, "reason": reason, "target": target})
    (HERE / "kernels_second.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    print(f"{len(rows)} rows written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
