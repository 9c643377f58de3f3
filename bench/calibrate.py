"""Re-run porter on the pre-port trees of a history of ports, print the table and the rank correlation, and fit.

Fetches nothing: point it at repositories (bare mirrors or clones) or checked-out trees a developer already has.

    python bench/calibrate.py                                   # bench/calibration/ports.yaml, mirrors in ./mirrors
    python bench/calibrate.py --mirrors /work/.mirror           # <dir>/<owner>+<name>/repo, <owner>+<name>, <owner>/<name>, <name>
    python bench/calibrate.py --repo mamba=~/src/mamba          # a clone that has the pre-port commit
    python bench/calibrate.py --tree autogptq=/tmp/autogptq     # a checked-out pre-port tree
    python bench/calibrate.py --history team-ports.yaml --fit team-effort.yaml   # a team's own ports: fit, write

With --fit it finds the multiplier (one for every item kind; with --per-kind one each for kernel, finding and
one-off items) that brings porter's estimates closest to the ports' reference effort (porter.estimate.calibration),
writes it as an effort override (use it with
`effort = "team-effort.yaml"` in porter.toml), and prints the table again with them. Exit status: 0 when every
quality bar holds (leave-one-project-out Spearman ρ ≥ 0.85 and at least 80% of the ports within 2× of their
reference, P90/P10 ≤ 3, a one-person one-day port at most 3 likely days), 1 when one fails, 2 on bad arguments or a
tree it cannot find.
"""
from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from porter.estimate.assess import assess  # noqa: E402
from porter.estimate.calibration import (KINDS, fit, leave_one_project_out, load_history, median,  # noqa: E402
                                         docs_table, reference_days, spearman, within)
from porter.estimate.effort_model import load_effort_model  # noqa: E402
from porter.estimate.ranges import pert  # noqa: E402
from porter.errors import PorterError  # noqa: E402
from porter.pipeline import run  # noqa: E402
from porter.settings import Settings, default_cache_dir  # noqa: E402
from porter.source.read import GitTree, WorkTree  # noqa: E402
from porter.targets import resolve_targets  # noqa: E402

# What decides the estimates a calibration run records: the effort model and the modules that apply it. A recorded
# run whose fingerprint differs was made with another model, and the table in docs/effort-model.md is stale.
MODEL_INPUTS = ("rules/effort/model.yaml", "porter/estimate/cost.py", "porter/estimate/dedup.py",
                "porter/estimate/inputs.py", "porter/estimate/kernel_verdicts.py", "porter/estimate/ranges.py",
                "porter/estimate/effort_model.py", "porter/estimate/assess.py", "porter/schemas/effort.schema.json")


def model_fingerprint(root: Path = REPO) -> str:
    """sha256 over the effort model and the estimate modules that turn a scan into days (MODEL_INPUTS)."""
    import hashlib

    h = hashlib.sha256()
    for rel in MODEL_INPUTS:
        h.update(rel.encode() + b"\0" + (root / rel).read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return h.hexdigest()[:16]


# The effort model's schema checks rules/effort/model.yaml: part of the assessment this script re-does, not of the scan.
EFFORT_SCHEMA = ("schemas/effort.schema.json",)


def scan_fingerprint(root: Path = REPO, targets: tuple[str, ...] = ()) -> str:
    """sha256 over what a cached scan (--results-cache) is a function of: porter's code and data outside the
    assessment stage that this script re-does per model (porter/estimate/, rules/effort/), and the targets. A scan
    cached by other code is not found under this name, so a change to the scan, the kernel analysis or port status
    is never hidden by a warm cache; a change to the effort model alone keeps it."""
    import hashlib

    h = hashlib.sha256(",".join(targets).encode() + b"\0")
    files = [p for p in (root / "porter").rglob("*") if p.is_file() and p.suffix in (".py", ".json")
             and "estimate" not in p.relative_to(root / "porter").parts[:1] and "__pycache__" not in p.parts
             and p.relative_to(root / "porter").as_posix() not in EFFORT_SCHEMA]
    files += [p for p in (root / "rules").rglob("*") if p.is_file() and p.relative_to(root / "rules").parts[0] != "effort"
              and "__pycache__" not in p.parts]
    for p in sorted(files):
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return h.hexdigest()[:12]


RHO_MIN, RATIO_MAX, ONE_DAY_MAX, WITHIN2_MIN = 0.85, 3.0, 3.0, 0.8


def _pairs(values: list[str], flag: str) -> dict[str, Path]:
    out = {}
    for v in values:
        if "=" not in v:
            raise SystemExit(f"error: {flag} takes ID=PATH, got {v!r}")
        k, p = v.split("=", 1)
        out[k] = Path(p).expanduser()
    return out


def locate(port, mirrors: list[Path], repos: dict[str, Path], trees: dict[str, Path]):
    """The pre-port tree of `port`: a checked-out tree, else its commit in a repository or mirror."""
    if port.id in trees:
        return WorkTree(trees[port.id])
    owner, _, name = port.repository.partition("/")
    candidates = [repos[port.id]] if port.id in repos else []
    for m in mirrors:
        candidates += [m / f"{owner}+{name}" / "repo", m / f"{owner}+{name}", m / owner / name, m / name]
    for c in candidates:
        if c.is_dir():
            return GitTree(c, port.pre_port_commit)
    raise SystemExit(f"error: no tree for {port.id} ({port.repository} at {port.pre_port_commit[:12]}): "
                     f"give --mirrors, --repo {port.id}=PATH or --tree {port.id}=DIR")


def by_kind(a) -> dict[str, float]:
    """The likely (median) hours split over the item kinds in proportion to their PERT means, at scale 1: what the
    fit moves. With one multiplier for every kind the median scales with it, so fitting these fits the likely days
    the table and the bars read (fitting the means would put the median low: the sum is right-skewed)."""
    means = {k: 0.0 for k in KINDS}
    for it in a.items:
        means[it.kind] += pert(it.hours).mean / a.model.scale(it.kind)
    shipped = sum(a.model.scale(k) * v for k, v in means.items())
    factor = a.hours.likely / shipped if shipped else 0.0
    return {k: v * factor for k, v in means.items()}


def summary(label: str, rows: list[dict], key: str = "likely") -> dict:
    """Spearman rho of likely days against the reference, the median estimate/reference and the share within 2x."""
    if len(rows) < 2:
        return {}
    ratios = [r[key] / r["ref"] for r in rows]
    out = {"n": len(rows), "rho": spearman([r["ref"] for r in rows], [r[key] for r in rows]),
           "median": median(ratios), "within2": within(ratios, 2.0)}
    out["label"] = label
    print(f"{label:34} n={out['n']:2}  rho {out['rho']:.3f}  median est/ref {out['median']:.2f}  "
          f"within 2x {100 * out['within2']:.0f}%")
    return out


def table(history, results, model, targets) -> tuple[list[dict], bool]:
    rows = []
    for port in history.ports:
        if port.id not in results:
            continue
        a = assess(results[port.id], targets, model)
        rows.append({"port": port, "a": a, "ref": reference_days(port, history.lines_per_day),
                     "likely": a.hours.likely / model.hours_per_day})
    head = (f"{'port':20} {'set':8} {'size':6} {'lines':>6} {'ref d':>6} {'P10':>6} {'likely':>6} {'P90':>6} "
            f"{'P90/P10':>7} {'est/ref':>7} {'parity':>6} verdict")
    print(head)
    print("-" * len(head))
    for r in rows:
        p, a = r["port"], r["a"]
        ratio = a.hours.high / a.hours.low if a.hours.low else float("inf")
        r["ratio"] = ratio
        parity = f"{a.parity.days.likely:g}" if a.parity else "-"
        print(f"{p.id:20} {p.set:8} {p.size:6} {p.lines_changed:6} {r['ref']:6.1f} {a.days.low:6g} {a.days.likely:6g} "
              f"{a.days.high:6g} {ratio:7.2f} {r['likely'] / r['ref']:7.2f} {parity:>6} {a.verdict}")
    # Leave one project out: the multiplier fitted on every other project's ports prices this one.
    lopo = leave_one_project_out([(r["port"].project, by_kind(r["a"]), r["ref"] * model.hours_per_day) for r in rows],
                                 tied=True)
    for i, r in enumerate(rows):
        # the same items at the left-out multiplier instead of the model's: a tied multiplier scales the median too
        r["lopo"] = lopo[i] / model.hours_per_day
    print()
    sums = [summary(f"{name} set", [r for r in rows if r["port"].set == name]) for name in ("fit", "held-out")]
    sums.append(summary("all ports", rows))
    lo = summary("all ports, leave-one-project-out", rows, key="lopo")
    sums += [lo, summary("held-out, leave-one-project-out", [r for r in rows if r["port"].set == "held-out"], key="lopo")]
    table.summaries = [s for s in sums if s]
    ratio_ok = all(r["ratio"] <= RATIO_MAX for r in rows)
    one_day = [r for r in rows if r["port"].people == 1 and (r["port"].calendar_days if r["port"].calendar_days is not None else 99) <= 1]
    one_day_ok = all(r["a"].days.likely <= ONE_DAY_MAX for r in one_day)
    print(f"P90/P10 <= {RATIO_MAX:g} on every port: {'yes' if ratio_ok else 'NO'} (widest {max(r['ratio'] for r in rows):.2f})")
    if one_day:
        print("one-person one-day port(s) at most 3 likely days: "
              + ("yes" if one_day_ok else "NO") + " (" + ", ".join(f"{r['port'].id} {r['a'].days.likely:g}" for r in one_day) + ")")
    ok = bool(lo) and lo["rho"] >= RHO_MIN and lo["within2"] >= WITHIN2_MIN and ratio_ok and one_day_ok
    return rows, ok


def merge_histories(histories: list) -> "History":
    """Several history files as one set of ports (the first file's lines per day); an id given twice is an error."""
    from porter.estimate.calibration import History, HistoryError

    ports = [p for h in histories for p in h.ports]
    ids = [p.id for p in ports]
    if len(set(ids)) != len(ids):
        raise HistoryError("--history", "ports", "an id is in more than one history file")
    return History(tuple(ports), histories[0].lines_per_day)


def record(path: Path, rows: list[dict], summaries: list[dict], model, history_path: Path) -> None:
    """The run as data (per port and the summaries), with the fingerprint of the model that made it: the docs table
    is rendered from it, and tests/test_effort_scope.py fails when the model changed after it was recorded."""
    import yaml

    doc = {"model_fingerprint": model_fingerprint(REPO), "history": history_path.name,
           "override": model.override, "ports": [], "summaries": summaries}
    for r in rows:
        p, a = r["port"], r["a"]
        doc["ports"].append({"id": p.id, "repository": p.repository, "set": p.set, "size": p.size,
                             "lines": p.lines_changed, "reference_days": round(r["ref"], 1),
                             "p10": a.days.low, "likely": a.days.likely, "p90": a.days.high,
                             "spread": round(r["ratio"], 2), "ratio": round(r["likely"] / r["ref"], 2),
                             "parity": a.parity.days.likely if a.parity else None, "verdict": a.verdict})
    for s in doc["summaries"]:
        for k in ("rho", "median", "within2"):
            s[k] = round(s[k], 3)
    path.write_text("# Written by bench/calibrate.py --record; docs/effort-model.md's table is rendered from it.\n"
                    + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")


def write_docs(record_path: Path, docs: Path) -> None:
    """Replace the table between the calibration markers of docs/effort-model.md with the recorded run's."""
    import yaml

    text = docs.read_text(encoding="utf-8")
    start, end = "<!-- calibration:start -->", "<!-- calibration:end -->"
    table_md = docs_table(yaml.safe_load(record_path.read_text(encoding="utf-8")))
    a, b = text.index(start) + len(start), text.index(end)
    docs.write_text(text[:a] + "\n" + table_md + "\n" + text[b:], encoding="utf-8")


def write_override(path: Path, scale: dict[str, float], history_path: Path) -> None:
    lines = ["# Effort override fitted by bench/calibrate.py: multipliers per item kind, on the ports of",
             f"# {history_path.name}. Use it with `effort = \"{path.name}\"` in porter.toml or [tool.porter].",
             "version: 1", "calibration:", f"  fitted_on: {history_path.name}", "  scale:"]
    lines += [f"    {k}: {v:g}" for k, v in scale.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--history", type=Path, action="append", default=[],
                    help="a history file of ports (default bench/calibration/ports.yaml); given twice or more, their ports "
                         "are priced as one set (e.g. ports.yaml with candidates.yaml)")
    ap.add_argument("--mirrors", type=Path, action="append", default=[])
    ap.add_argument("--repo", action="append", default=[], help="ID=PATH of a repository holding the pre-port commit")
    ap.add_argument("--tree", action="append", default=[], help="ID=DIR of a checked-out pre-port tree")
    ap.add_argument("--target", action="append", default=[], help="target id (default: porter's default)")
    ap.add_argument("--effort", type=Path, help="an effort override to assess with")
    ap.add_argument("--fit", type=Path, help="fit the calibration multipliers and write them to this override")
    ap.add_argument("--per-kind", action="store_true",
                    help="fit one multiplier per item kind (kernel, finding, one-off) instead of one for all: "
                         "for a history of many ports; on a few it fits noise")
    ap.add_argument("--ridge", type=float, default=0.0,
                    help="with --per-kind: pull the multipliers towards 1 by this weight (e.g. 3)")
    ap.add_argument("--set", choices=("fit", "held-out", "all"), default="all",
                    help="which ports to run (fit: only the ones the model is fitted on; held-out ports are run once)")
    ap.add_argument("--results-cache", type=Path,
                    help="keep each pre-port tree's scan here (pickled, by port id, commit and scan_fingerprint: porter's "
                         "code outside the effort model) to re-assess quickly while changing only the effort model")
    ap.add_argument("--record", type=Path, help="write the run (per port and summaries) to this YAML file")
    ap.add_argument("--docs", action="store_true",
                    help="with --record: render docs/effort-model.md's calibration table from the recorded run")
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--cache-dir", type=Path, default=None)
    args = ap.parse_args(argv)
    try:
        paths = args.history or [REPO / "bench" / "calibration" / "ports.yaml"]
        history = merge_histories([load_history(p) for p in paths])
        args.history = paths[0]
        model = load_effort_model(args.effort)
        targets = list(resolve_targets(args.target))
        settings = Settings(jobs=args.jobs, targets=tuple(args.target), cache_dir=args.cache_dir or default_cache_dir())
        mirrors = args.mirrors or [Path("mirrors")]
        repos, trees = _pairs(args.repo, "--repo"), _pairs(args.tree, "--tree")
        results = {}
        scan_key = scan_fingerprint(REPO, tuple(args.target)) if args.results_cache else ""
        for port in history.ports:
            if args.set != "all" and port.set != args.set:
                continue
            cached = (args.results_cache / f"{port.id}-{port.pre_port_commit[:12]}-{scan_key}.pickle"
                      if args.results_cache else None)
            if cached is not None and cached.is_file():
                results[port.id] = pickle.loads(cached.read_bytes())
                continue
            source = locate(port, mirrors, repos, trees)
            # the one pipeline (scan, kernel analysis, port status) without the assessment: that is re-done per model
            results[port.id] = run(source, settings).result
            if cached is not None:
                cached.parent.mkdir(parents=True, exist_ok=True)
                cached.write_bytes(pickle.dumps(results[port.id]))
        rows, ok = table(history, results, model, targets)
        if args.fit:
            # Fitted on the fit set only: held-out ports never move the multiplier.
            scale = fit([(by_kind(r["a"]), r["ref"] * model.hours_per_day) for r in rows if r["port"].set == "fit"],
                        tied=not args.per_kind, ridge=args.ridge)
            write_override(args.fit, scale, args.history)
            print(f"\nfitted multipliers: {scale} -> {args.fit}\n")
            fitted = load_effort_model(args.fit)
            rows, ok = table(history, results, fitted, targets)
            model = fitted
        if args.record:
            record(args.record, rows, table.summaries, model, args.history)
            if args.docs:
                write_docs(args.record, REPO / "docs" / "effort-model.md")
    except PorterError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
