"""Tally, over every judged development set, the judged-false findings porter STILL reads open on current code, per
rule, with the judges' reasons: the target list of a precision session.

Each set in bench/judged/<set>/ (projects.json, findings.jsonl) is scored on its trees (default /tmp/h<N> for
heldout<N>, one directory per project under projects.json's `tree` name; a set whose directory is missing is
skipped and named). Every judged row is looked up as bench/score_judged.py does (judged_lookup: fingerprint, then
line, then a rule merged into the keeper) and counted open when porter reports it open at severity low or worse.
Judged real = verdict true and not guarded (score_judged's definition).

    python bench/false_open.py                             # every dev set (heldout3-46) whose trees exist
    python bench/false_open.py --cuda-only --json /tmp/before.json heldout20 heldout22
    python bench/false_open.py --cuda-only --compare /tmp/before.json --json /tmp/after.json

Output: one line per set (precision of open judged rows, real kept, open findings over the set's trees), then the
rules by the number of judged-false rows still open (with the judged-real rows of the same rule still open beside
them, the ones a fix must keep), each false row with its path:line and the judge's reason. With --compare, a
before/after table per set and per rule, and every tree whose open-finding count rose (which must not happen).
The same porter run scores each set's kernel verdicts (kernels_adjudicated.jsonl where the set has one, else
kernels.jsonl, as score_judged's --kernels does): agreement per target per set and pooled, then every judged pair
porter gets wrong or does not find (with --compare, each project whose kernel agreement moved).
Porter runs cold (no cache) with two workers, as score_judged does.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from score_judged import (JUDGED, TARGETS, density, is_open_finding, judged_lookup, kernel_by_target,  # noqa: E402
                          load_set, run_porter)


# The development sets (issue 27): heldout3-heldout49 (37-49 scored once in sessions 28 to 31). A newer set is held
# out until it has been scored once at the end of its session, so the default never reads it.
LAST_DEV_SET = 49

# Where a set's trees are looked for when --root is not given, first match wins ({n} the set's number): the layout
# make_trees.py gives (/tmp/hN), the one a set's builder leaves (/tmp/hN/hN), and a helper's own copies.
DEFAULT_ROOTS = ("/tmp/h{n}/h{n}", "/tmp/h{n}", "/tmp/prec/h{n}")


def dev_sets() -> list[str]:
    """heldout3 ... heldout<LAST_DEV_SET> that have judged findings, in numeric order."""
    names = [d.name for d in JUDGED.glob("heldout*") if (d / "findings.jsonl").is_file()
             and re.fullmatch(r"heldout\d+", d.name) and 3 <= int(d.name[7:]) <= LAST_DEV_SET]
    return sorted(names, key=lambda n: int(n[7:]))


def find_root(name: str, template: str | None) -> Path | None:
    """The directory holding a set's trees: --root's, else the first default layout with one of its trees in it."""
    n = re.sub(r"\D", "", name)
    if template:
        root = Path(template.format(n=n))
        return root if root.is_dir() else None
    trees = [p["tree"] for p in load_set(name)[0]]
    for t in DEFAULT_ROOTS:
        root = Path(t.format(n=n))
        if any((root / tree).is_dir() for tree in trees):
            return root
    return None


def set_kernels(name: str) -> list[dict]:
    """A set's judged kernel verdicts: the adjudicated file where the set has one, else its kernels.jsonl."""
    adjudicated = JUDGED / name / "kernels_adjudicated.jsonl"
    if adjudicated.is_file():
        return [json.loads(line) for line in adjudicated.read_text().splitlines() if line.strip()]
    return load_set(name)[1]


def score_set(name: str, root: Path, cuda_only: bool) -> dict:
    """One set: per project, its open-finding count and one row per judged finding (rule, path, line, real, open,
    reason), and its kernel agreement per target with one line per pair porter gets wrong (`kernels`)."""
    projects, _kernels, findings = load_set(name)
    kernels = set_kernels(name)
    out: dict = {"projects": {}, "rows": [], "kernels": []}
    for p in projects:
        if cuda_only and p.get("dual"):
            continue
        tree = root / p["tree"]
        if not tree.is_dir():
            print(f"{name}: {p['project']}: no tree {tree}", file=sys.stderr)
            continue
        result, _ = run_porter(tree)
        lookup = judged_lookup(result)
        n_open, lines = density(result)
        out["projects"][p["project"]] = {"open": n_open, "lines": lines, "dual": bool(p.get("dual"))}
        wrong: list[str] = []
        agreement = kernel_by_target([j for j in kernels if j["project"] == p["project"]], result, wrong, tree)
        out["projects"][p["project"]]["kernels"] = {
            t: [agreement[t]["agree"], agreement[t]["pairs"] + agreement[t]["missing"]] for t in TARGETS}
        out["kernels"] += [{"set": name, "project": p["project"], "dual": bool(p.get("dual")), "line": w}
                           for w in wrong]
        for j in findings:
            if j["project"] != p["project"]:
                continue
            f = lookup(j)
            out["rows"].append({
                "set": name, "project": p["project"], "dual": bool(p.get("dual")), "rule": j["rule"],
                "path": j["path"], "line": j["line"], "real": bool(j["verdict"]) and not j.get("guarded"),
                "open": is_open_finding(f), "reason": j.get("reason", ""),
                "now": None if f is None else f"{f.status}/{f.severity}",
            })
    return out


def set_line(name: str, data: dict) -> str:
    rows = data["rows"]
    op = sum(r["open"] for r in rows)
    op_real = sum(r["open"] and r["real"] for r in rows)
    real = sum(r["real"] for r in rows)
    n_open = sum(p["open"] for p in data["projects"].values())
    return (f"{name}: precision {_ratio(op_real, op)} | real kept {_ratio(op_real, real)} | "
            f"{n_open} open findings in {len(data['projects'])} trees")


def kernel_line(name: str, data: dict) -> str:
    """A set's (or the pool's) kernel agreement per target over its judged pairs (a kernel porter misses counts
    against it, as in score_judged)."""
    parts = []
    for t in TARGETS:
        agree = sum(p.get("kernels", {}).get(t, [0, 0])[0] for p in data["projects"].values())
        pairs = sum(p.get("kernels", {}).get(t, [0, 0])[1] for p in data["projects"].values())
        parts.append(f"{t} {_ratio(agree, pairs)}")
    return f"{name}: kernels " + ", ".join(parts)


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.1%} ({a}/{b})" if b else "n/a"


def per_rule(sets: dict) -> dict[str, Counter]:
    """rule -> Counter(false_open, real_open, real)."""
    table: dict[str, Counter] = defaultdict(Counter)
    for data in sets.values():
        for r in data["rows"]:
            c = table[r["rule"]]
            c["false_open"] += r["open"] and not r["real"]
            c["real_open"] += r["open"] and r["real"]
            c["real"] += r["real"]
    return table


def false_projects(sets: dict) -> dict[str, set]:
    """rule -> the projects (set, project) in which a judged-false row of it is still open: a family met in one
    project only is that project's, one met in several is porter's."""
    out: dict[str, set] = defaultdict(set)
    for data in sets.values():
        for r in data["rows"]:
            if r["open"] and not r["real"]:
                out[r["rule"]].add((r["set"], r["project"]))
    return out


def report(sets: dict, reasons: bool) -> None:
    for name, data in sets.items():
        print(set_line(name, data))
    rows = [r for d in sets.values() for r in d["rows"]]
    pooled = {"rows": rows, "projects": {f"{n} {k}": v for n, d in sets.items() for k, v in d["projects"].items()}}
    print(set_line("all", pooled))
    for name, data in sets.items():
        print(kernel_line(name, data))
    print(kernel_line("all", pooled))
    table = per_rule(sets)
    projects = false_projects(sets)
    print("\nrule: judged-false still open (in how many projects) | judged-real still open / judged real")
    for rule, c in sorted(table.items(), key=lambda kv: (-kv[1]["false_open"], kv[0])):
        if not c["false_open"]:
            continue
        print(f"{rule}: {c['false_open']} false open ({len(projects[rule])} projects) | "
              f"{c['real_open']}/{c['real']} real kept")
        if reasons:
            for r in rows:
                if r["rule"] == rule and r["open"] and not r["real"]:
                    print(f"    {r['set']} {r['project']} {r['path']}:{r['line']} {r['reason'][:220]}")
    wrong = [k for d in sets.values() for k in d.get("kernels", ())]
    kprojects = {(k["set"], k["project"]) for k in wrong}
    print(f"\nkernel pairs porter gets wrong or misses: {len(wrong)} in {len(kprojects)} projects")
    for k in wrong:
        print(f"    {k['set']} {k['project']}{' (dual)' if k['dual'] else ''}: {k['line'][:260]}")


def compare(before: dict, after: dict) -> None:
    print("\nset: before -> after")
    for name in after:
        if name in before:
            print(f"  {set_line(name, before[name])}\n  -> {set_line(name, after[name]).split(': ', 1)[1]}")
    tb, ta = per_rule(before), per_rule(after)
    print("\nrule: false open before -> after | real open before -> after")
    for rule in sorted(set(tb) | set(ta), key=lambda r: (-tb[r]["false_open"], r)):
        b, a = tb[rule], ta[rule]
        if b != a or b["false_open"]:
            print(f"  {rule}: {b['false_open']} -> {a['false_open']} | {b['real_open']} -> {a['real_open']} "
                  f"(of {a['real']})")
    for name, data in after.items():
        for project, p in data["projects"].items():
            old = before.get(name, {}).get("projects", {}).get(project)
            if old is not None and p["open"] != old["open"]:
                mark = "ROSE" if p["open"] > old["open"] else "fell"
                print(f"  {mark}: {name} {project} open {old['open']} -> {p['open']}")
            if old is not None and p.get("kernels") != old.get("kernels"):
                print(f"  kernels: {name} {project} {old.get('kernels')} -> {p.get('kernels')}")
    lost = [(n, r) for n, d in after.items() for r in d["rows"] if r["real"] and not r["open"]
            and any(b["real"] and b["open"] and (b["project"], b["path"], b["line"], b["rule"]) ==
                    (r["project"], r["path"], r["line"], r["rule"]) for b in before.get(n, {}).get("rows", ()))]
    for n, r in lost:
        print(f"  LOST real: {n} {r['rule']} {r['path']}:{r['line']} now {r['now']}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sets", nargs="*", help="sets to score (default: the development sets heldout3-heldout49)")
    ap.add_argument("--root", help="tree directory per set, {n} the set's number (default: the first of "
                    + ", ".join(DEFAULT_ROOTS) + " that holds one of the set's trees)")
    ap.add_argument("--cuda-only", action="store_true", help="score only the projects projects.json marks not dual")
    ap.add_argument("--json", type=Path, help="write the rows here (for a later --compare)")
    ap.add_argument("--compare", type=Path, help="a --json file from an earlier run: print before/after")
    ap.add_argument("--no-reasons", action="store_true", help="per-rule counts only")
    args = ap.parse_args(argv)
    sets: dict = {}
    for name in args.sets or dev_sets():
        root = find_root(name, args.root)
        if root is None:
            print(f"{name}: no trees at {root}, skipped", file=sys.stderr)
            continue
        sets[name] = score_set(name, root, args.cuda_only)
        print(set_line(name, sets[name]) + " | " + kernel_line(name, sets[name]).split(": ", 1)[1],
              file=sys.stderr, flush=True)
    if args.json:
        args.json.write_text(json.dumps(sets, indent=0, sort_keys=True))
    report(sets, not args.no_reasons)
    if args.compare:
        before = json.loads(args.compare.read_text())
        compare(before, sets)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
