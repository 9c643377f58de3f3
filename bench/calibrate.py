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
quality bar holds (Spearman ρ ≥ 0.85, every small port below every big one, P90/P10 ≤ 3, a one-person one-day port
at most 3 likely days), 1 when one fails, 2 on bad arguments or a tree it cannot find.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from porter.estimate.assess import assess  # noqa: E402
from porter.estimate.calibration import KINDS, fit, load_history, reference_days, spearman  # noqa: E402
from porter.estimate.effort_model import load_effort_model  # noqa: E402
from porter.estimate.ranges import pert  # noqa: E402
from porter.errors import PorterError  # noqa: E402
from porter.pipeline import run  # noqa: E402
from porter.settings import Settings, default_cache_dir  # noqa: E402
from porter.source.read import GitTree, WorkTree  # noqa: E402
from porter.targets import resolve_targets  # noqa: E402

RHO_MIN, RATIO_MAX, ONE_DAY_MAX = 0.85, 3.0, 3.0


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
    """Mean hours per item kind at the model's own calibration scales, divided back to scale 1."""
    out = {k: 0.0 for k in KINDS}
    for it in a.items:
        out[it.kind] += pert(it.hours).mean / a.model.scale(it.kind)
    return out


def table(history, results, model, targets) -> tuple[list[dict], bool]:
    rows = []
    for port in history.ports:
        a = assess(results[port.id], targets, model)
        rows.append({"port": port, "a": a, "ref": reference_days(port, history.lines_per_day)})
    head = f"{'port':18} {'size':6} {'lines':>6} {'days':>5} {'ppl':>3} {'ref d':>6} {'P10':>6} {'likely':>6} {'P90':>6} {'P90/P10':>7} verdict"
    print(head)
    print("-" * len(head))
    for r in rows:
        p, a = r["port"], r["a"]
        ratio = a.hours.high / a.hours.low if a.hours.low else float("inf")
        r["ratio"] = ratio
        print(f"{p.id:18} {p.size:6} {p.lines_changed:6} {p.calendar_days or 0:5g} {p.people or 0:3} {r['ref']:6.1f} "
              f"{a.days.low:6g} {a.days.likely:6g} {a.days.high:6g} {ratio:7.2f} {a.verdict}")
    rho = spearman([r["port"].lines_changed for r in rows], [r["a"].days.likely for r in rows])
    small = [r for r in rows if r["port"].size == "small"]
    big = [r for r in rows if r["port"].size == "big"]
    separated = not small or not big or max(r["a"].days.likely for r in small) < min(r["a"].days.likely for r in big)
    ratio_ok = all(r["ratio"] <= RATIO_MAX for r in rows)
    one_day = [r for r in rows if r["port"].people == 1 and (r["port"].calendar_days or 99) <= 1]
    one_day_ok = all(r["a"].days.likely <= ONE_DAY_MAX for r in one_day)
    print()
    print(f"Spearman rho (likely days vs lines changed): {rho:.3f}  (bar >= {RHO_MIN})")
    print(f"every small port below every big one: {'yes' if separated else 'NO'}")
    print(f"P90/P10 <= {RATIO_MAX:g} on every port: {'yes' if ratio_ok else 'NO'} (widest {max(r['ratio'] for r in rows):.2f})")
    if one_day:
        print("one-person one-day port(s) at most 3 likely days: "
              + ("yes" if one_day_ok else "NO") + " (" + ", ".join(f"{r['port'].id} {r['a'].days.likely:g}" for r in one_day) + ")")
    return rows, rho >= RHO_MIN and separated and ratio_ok and one_day_ok


def write_override(path: Path, scale: dict[str, float], history_path: Path) -> None:
    lines = ["# Effort override fitted by bench/calibrate.py: multipliers per item kind, on the ports of",
             f"# {history_path.name}. Use it with `effort = \"{path.name}\"` in porter.toml or [tool.porter].",
             "version: 1", "calibration:", f"  fitted_on: {history_path.name}", "  scale:"]
    lines += [f"    {k}: {v:g}" for k, v in scale.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--history", type=Path, default=REPO / "bench" / "calibration" / "ports.yaml")
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
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--cache-dir", type=Path, default=None)
    args = ap.parse_args(argv)
    try:
        history = load_history(args.history)
        model = load_effort_model(args.effort)
        targets = list(resolve_targets(args.target))
        settings = Settings(jobs=args.jobs, targets=tuple(args.target), cache_dir=args.cache_dir or default_cache_dir())
        mirrors = args.mirrors or [Path("mirrors")]
        repos, trees = _pairs(args.repo, "--repo"), _pairs(args.tree, "--tree")
        results = {}
        for port in history.ports:
            source = locate(port, mirrors, repos, trees)
            # the one pipeline (scan, kernel analysis, port status) without the assessment: that is re-done per model
            results[port.id] = run(source, settings).result
        rows, ok = table(history, results, model, targets)
        if args.fit:
            scale = fit([(by_kind(r["a"]), r["ref"] * model.hours_per_day) for r in rows],
                        tied=not args.per_kind, ridge=args.ridge)
            write_override(args.fit, scale, args.history)
            print(f"\nfitted multipliers: {scale} -> {args.fit}\n")
            fitted = load_effort_model(args.fit)
            rows, ok = table(history, results, fitted, targets)
    except PorterError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
