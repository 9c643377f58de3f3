"""Re-score porter against the hand-judged set in bench/judged/: precision per project, kernel-verdict agreement,
and recall on the CUDA sides of ROCm guards.

The judged data (never fetched code) lives in bench/judged/:
- findings.jsonl: one porter finding per line - project, commit, path, line, rule, fingerprint, verdict (true: a
  real porting issue as the code reads; false: a false positive), guarded (the spot is already inside a ROCm guard
  or twin, i.e. handled for HIP), reason (one line).
- kernels.jsonl: one kernel per target per line - project, commit, path, line, kernel, target, expected verdict
  (ok/check/retune/fix/rewrite) and reason.
- kernels_heldout.jsonl: the same fields for kernels of projects porter was not tuned on, judged blind; score it
  with `--kernels bench/judged/kernels_heldout.jsonl` (the judged findings then match nothing).

The developer fetches the projects at the recorded commits and passes their trees:

    python bench/score_judged.py NVIDIA/apex=/tmp/apex Dao-AILab/flash-attention=/tmp/fa ... [--recall]

porter is re-run on each tree (the same pipeline as `porter scan`), each judged finding is looked up by
(path, rule, fingerprint), falling back to (path, rule, line). Precision = true / judged findings porter still
reports; a guarded-for-HIP finding counts as false unless porter gives it status handled or cuda-only (until
port-awareness lands everything reads open, so the guarded count is also shown apart). Findings porter no longer
reports are listed as gone (a gone false one is a fixed false positive; a gone true one is a lost hit).
Agreement = judged kernel/target pairs whose porter verdict equals the expected one / pairs whose kernel porter
still finds. `--recall` blanks every ROCm guard (the `#if` line, the ROCm branch and the `#else`/`#endif`) in a copy
of each tree and counts the CUDA sides a finding at most 10 lines wide touches.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
JUDGED = HERE / "judged"
sys.path.insert(0, str(HERE.parent))

from porter.pipeline import run, scan  # noqa: E402
from porter.settings import Settings  # noqa: E402

TARGETS = ("mi300x", "mi355x", "mi455x")
ROCM_GUARD = re.compile(r"__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|USE_ROCM|__HIPCC__|__HIP__|HIP_PLATFORM|"
                        r"__HIP_DEVICE_COMPILE__|ROCM|_HIP_\w*|\bHIP\b|USE_HIP|GGML_USE_HIP|__gfx\w+")
DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c", ".hxx", ".inl")


def load(name: str) -> list[dict]:
    path = JUDGED / name
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def run_porter(tree: Path):
    """porter's result on a tree as a user gets it: the one pipeline, port status included (so a guarded spot that
    reads handled is not counted against precision)."""
    result = run(tree, Settings(jobs=2, cache_dir=None, targets=TARGETS)).result
    return result, result


def score_findings(project: str, judged: list[dict], result) -> dict:
    by_fp = {(f.path, f.rule, f.fingerprint): f for f in result.findings}
    by_line = {(f.path, f.rule, f.line): f for f in result.findings}
    # One spot, one finding: a judged finding whose rule porter now merges into a more specific one on that line
    # (its message under data `also`) is still reported, by the keeper.
    for f in result.findings:
        for merged in str(dict(f.data).get("also", "")).split("\n"):
            rule = merged.split(":", 1)[0]
            if rule:
                by_line.setdefault((f.path, rule, f.line), f)
    counts = Counter()
    gone = []
    per_rule: dict[str, Counter] = defaultdict(Counter)
    for j in judged:
        f = by_fp.get((j["path"], j["rule"], j["fingerprint"])) or by_line.get((j["path"], j["rule"], j["line"]))
        if f is None:
            gone.append(j)
            continue
        handled = str(f.status) in ("handled", "cuda-only")
        true = bool(j["verdict"]) and (not j.get("guarded") or handled)
        counts["reported"] += 1
        counts["true"] += true
        counts["guarded_open"] += bool(j["verdict"] and j.get("guarded") and not handled)
        per_rule[j["rule"]]["reported"] += 1
        per_rule[j["rule"]]["true"] += true
    return {"counts": counts, "gone": gone, "per_rule": per_rule}


def score_kernels(judged: list[dict], analysed) -> Counter:
    kernels = {(k.path, k.name, k.line): k for k in analysed.kernels}
    by_name = {(k.path, k.name): k for k in analysed.kernels}
    c = Counter()
    for j in judged:
        k = kernels.get((j["path"], j["kernel"], j["line"])) or by_name.get((j["path"], j["kernel"]))
        if k is None:
            c["missing"] += 1
            continue
        c["pairs"] += 1
        got = k.verdict_on(j["target"]).verdict
        c["agree"] += got == j["expected"]
        if got != j["expected"]:
            c[f"disagree:{j['kernel']}@{j['target']}:{got}!={j['expected']}"] += 1
    return c


def blank_rocm_guards(src: Path, dst: Path) -> list[tuple[str, int, int]]:
    """Copy the tree's C/C++/CUDA files with every ROCm guard blanked; return the CUDA sides (path, first, last)."""
    sides = []
    for p in sorted(src.rglob("*")):
        if not p.is_file() or p.suffix not in SOURCE_SUFFIXES or p.is_symlink():
            continue
        rel = p.relative_to(src).as_posix()
        try:
            lines = p.read_text(encoding="utf-8").split("\n")
        except (UnicodeDecodeError, OSError):
            continue
        out = list(lines)
        stack: list[dict] = []
        for i, line in enumerate(lines):
            m = DIRECTIVE.match(line)
            if not m:
                continue
            kind, cond = m.group(1), m.group(2)
            if kind in ("if", "ifdef", "ifndef"):
                rocm = bool(ROCM_GUARD.search(cond))
                negated = kind == "ifndef" or cond.strip().startswith("!")
                stack.append({"rocm": rocm, "branch_rocm": rocm and not negated, "start": i, "first": True})
                if rocm:
                    out[i] = ""
            elif stack and kind in ("elif", "else", "endif"):
                top = stack[-1]
                if top["rocm"]:
                    if not top["branch_rocm"] and i - top["start"] > 1:
                        sides.append((rel, top["start"] + 2, i))  # 1-based lines strictly inside the CUDA branch
                    if top["branch_rocm"]:
                        for k in range(top["start"], i):
                            out[k] = ""
                    out[i] = ""
                    top["branch_rocm"] = not top["branch_rocm"] if kind == "else" else top["branch_rocm"]
                    top["start"] = i
                if kind == "endif":
                    stack.pop()
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(out), encoding="utf-8")
    return sides


def recall(tree: Path) -> tuple[int, int]:
    with tempfile.TemporaryDirectory(prefix="porter-recall-") as tmp:
        sides = blank_rocm_guards(tree, Path(tmp))
        if not sides:
            return 0, 0
        result = scan(Path(tmp), Settings(jobs=2, cache_dir=None, targets=TARGETS))
        spans = defaultdict(list)
        for f in result.findings:
            if f.end_line - f.line <= 10:
                spans[f.path].append((f.line, f.end_line))
        touched = sum(1 for path, a, b in sides if any(x <= b and a <= y for x, y in spans.get(path, ())))
        return touched, len(sides)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trees", nargs="+", help="PROJECT=PATH, e.g. NVIDIA/apex=/tmp/apex")
    ap.add_argument("--recall", action="store_true", help="also measure recall on blanked ROCm guards")
    ap.add_argument("--show-false", action="store_true", help="list the judged false positives still reported")
    ap.add_argument("--kernels", type=Path, default=None,
                    help="kernel expectations to score (default bench/judged/kernels.jsonl; e.g. the held-out "
                         "bench/judged/kernels_heldout.jsonl)")
    args = ap.parse_args(argv)
    findings = load("findings.jsonl")
    if args.kernels is None:
        kernels = load("kernels.jsonl")
    elif args.kernels.is_file():
        kernels = [json.loads(line) for line in args.kernels.read_text().splitlines() if line.strip()]
    else:
        print(f"--kernels: {args.kernels} is not a file", file=sys.stderr)
        return 2
    total = Counter()
    ktotal = Counter()
    for spec in args.trees:
        project, _, path = spec.partition("=")
        tree = Path(path)
        if not tree.is_dir():
            print(f"{project}: {tree} is not a directory", file=sys.stderr)
            return 2
        result, analysed = run_porter(tree)
        fj = [j for j in findings if j["project"] == project]
        kj = [j for j in kernels if j["project"] == project]
        s = score_findings(project, fj, result)
        c = s["counts"]
        k = score_kernels(kj, analysed)
        total.update(c)
        ktotal.update({key: v for key, v in k.items() if not key.startswith("disagree")})
        prec = f"{c['true'] / c['reported']:.1%}" if c["reported"] else "n/a"
        agree = f"{k['agree'] / k['pairs']:.1%}" if k["pairs"] else "n/a"
        gone_true = sum(1 for j in s["gone"] if j["verdict"])
        line = (f"{project}: precision {prec} ({c['true']}/{c['reported']} judged findings still reported; "
                f"{c['guarded_open']} true but guarded-for-HIP and read open; {len(s['gone'])} gone, {gone_true} of "
                f"them judged true) | kernel agreement {agree} ({k['agree']}/{k['pairs']} kernel-target pairs"
                f"{', ' + str(k['missing']) + ' kernels not found' if k['missing'] else ''})")
        if args.recall:
            touched, sides = recall(tree)
            line += f" | recall {touched}/{sides}" + (f" = {touched / sides:.1%}" if sides else "")
        print(line)
        for key in sorted(x for x in k if x.startswith("disagree")):
            print(f"    {key[9:]}")
        if args.show_false:
            # The ones counted false: judged false, or guarded for HIP while porter reads them open.
            status = {(f.path, f.rule, f.fingerprint): str(f.status) for f in result.findings}
            for j in fj:
                got = status.get((j["path"], j["rule"], j["fingerprint"]))
                if got is not None and (not j["verdict"] or (j.get("guarded") and got == "open")):
                    print(f"    false: {j['rule']} {j['path']}:{j['line']} {j['reason']}")
    if total["reported"]:
        print(f"all: precision {total['true'] / total['reported']:.1%} ({total['true']}/{total['reported']}), "
              f"{total['guarded_open']} guarded-for-HIP read open; kernel agreement "
              f"{(ktotal['agree'] / ktotal['pairs']) if ktotal['pairs'] else 0:.1%} ({ktotal['agree']}/{ktotal['pairs']})")
    elif args.kernels is not None and ktotal["pairs"]:
        # A kernels-only set (the held-out one has no judged findings).
        print(f"all: kernel agreement {ktotal['agree'] / ktotal['pairs']:.1%} ({ktotal['agree']}/{ktotal['pairs']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
