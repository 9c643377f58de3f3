"""Draw the heldout49 findings sample from porter's scans (run only after kernels.jsonl is committed).

    python bench/judged/heldout49/sample_findings.py SCANS_DIR [--seed 3492] [--per-project 20]

SCANS_DIR holds one `porter scan --format json --isolated --no-cache -t mi300x -t mi355x -t mi455x` output per
project, named <tree>.json after projects.json. Per project (in the table's order, one random.Random(seed)): the
open findings of severity low or worse, grouped by rule; each group sorted by (path, line, fingerprint) and
shuffled; then round-robin over the rules in a shuffled order until PER_PROJECT are drawn (all of them when fewer).
Prints one JSON object per line (project, commit, path, line, rule, fingerprint, severity, message) to judge.

heldout6 (issue 27, session 11) keeps heldout5's procedure with 11 findings per project (ten projects, 110 rows)
and its own seed. heldout7 (session 12) keeps heldout6's procedure with 8 findings per project (eight projects, at
most 64 rows) and its own seed. heldout8 (session 13) keeps heldout7's procedure (8 findings per project, ten
projects, at most 80 rows) with seed 2809. heldout9 (session 14) keeps heldout8's procedure (8 findings per project,
eleven projects, at most 88 rows) with seed 2909. heldout10 (session 15) keeps heldout9's procedure (8 findings per
project, ten projects, at most 80 rows) with seed 3009. heldout12 (session 16) keeps heldout10's procedure (8 findings
per project, five non-dual projects, at most 40 rows) with seed 3022. heldout14 (session 17) keeps heldout12's
procedure (8 findings per project, five non-dual projects, at most 40 rows) with seed 3142. heldout16 (session 18)
keeps heldout14's procedure (8 findings per project, five non-dual projects, at most 40 rows) with seed 3162. heldout18 (session 19) keeps heldout16's procedure (8 findings per project, five non-dual
projects, at most 40 rows) with seed 3182. heldout20 (session 20) keeps heldout18's procedure (8 findings per
project, five non-dual projects, at most 40 rows) with seed 3202. heldout22 (session 21) keeps heldout20's procedure (8 findings
per project, five non-dual projects, at most 40 rows) with seed 3222. heldout24 (session 22) keeps heldout22's procedure (8 findings
per project, five non-dual projects, at most 40 rows) with seed 3242. heldout26 (session 23) keeps heldout24's procedure (8
findings per project, five non-dual projects, at most 40 rows) with seed 3262. heldout29 (session 24) keeps heldout26's procedure (8
findings per project, five non-dual projects, at most 40 rows) with seed 3292.
heldout38 (session 28) keeps heldout29's procedure (8 findings per project, five non-dual projects, at most 40 rows)
with seed 3382.
heldout41 (session 29) keeps heldout38's procedure with seed 3412 and 20 findings per project (as heldout30-39 draw):
four non-dual projects, at most 80 rows.
heldout44 (session 30) keeps heldout41's procedure with seed 3442 (set before the first run) and 20 findings per
project: four non-dual CUDA-only projects, at most 80 rows.
heldout49 (session 31) keeps heldout44's procedure with seed 3492 (set before the first run) and 20 findings per
project: three non-dual CUDA-only projects, at most 60 rows.
"""
from __future__ import annotations

import json
import random
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEVERE = ("low", "medium", "high", "blocker")


def sample(scans: Path, seed: int, per_project: int) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for p in json.loads((HERE / "projects.json").read_text()):
        scan = json.loads((scans / f"{p['tree']}.json").read_text())
        groups: dict[str, list[dict]] = defaultdict(list)
        for f in scan["findings"]:
            if f["status"] == "open" and f["severity"] in SEVERE:
                groups[f["rule"]].append(f)
        for rule in groups:
            groups[rule].sort(key=lambda f: (f["path"], f["line"], f["fingerprint"]))
            rng.shuffle(groups[rule])
        # heldout3 went round the rules in sorted order, so with more rules than draws the first round stopped
        # at the same letter in every project; a shuffled order gives every rule the same chance.
        order = sorted(groups)
        rng.shuffle(order)
        drawn: list[dict] = []
        while len(drawn) < per_project and any(groups.values()):
            for rule in order:
                if groups[rule] and len(drawn) < per_project:
                    drawn.append(groups[rule].pop())
        for f in drawn:
            out.append({"project": p["project"], "commit": p["commit"], "path": f["path"], "line": f["line"],
                        "rule": f["rule"], "fingerprint": f["fingerprint"], "severity": f["severity"],
                        "message": f["message"]})
    return out


if __name__ == "__main__":
    args = sys.argv[1:]
    opts = {"--seed": 3492, "--per-project": 20}
    for name in list(opts):
        if name in args:
            i = args.index(name)
            opts[name] = int(args[i + 1])
            del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        raise SystemExit(2)
    for row in sample(Path(args[0]), opts["--seed"], opts["--per-project"]):
        print(json.dumps(row, sort_keys=True))
