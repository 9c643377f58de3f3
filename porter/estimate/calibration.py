"""Calibrate the effort model on past ports: read a history of ports, compare porter's estimates with them, fit.

A history file (bench/calibration/ports.yaml for the public set; a team writes its own in the same format) lists
ports with the commit just before each one and what the port really took: lines changed, calendar days, people, or
the engineer-days the team booked (`effort_days`). `reference_days` turns a public port's record into engineer-days
(the lines changed at `lines_per_day`, never more than calendar days × people); `spearman` ranks porter's likely days
against the ports' size; `fit` finds the multipliers per item kind (kernel, finding, one-off) that bring porter's
estimates closest to the reference days in log space, the `calibration.scale` of the effort model. Pure functions:
running porter on the pre-port trees is bench/calibrate.py's job.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from porter.datafile import display_path, read_yaml
from porter.errors import DataFileError

KINDS = ("kernel", "finding", "one-off")
DEFAULT_LINES_PER_DAY = 100.0


class HistoryError(DataFileError):
    """A history file of ports that cannot be used; names the file and the field."""


@dataclass(frozen=True)
class Port:
    """One past port: where its pre-port tree is and what it took."""

    id: str
    repository: str  # owner/name on GitHub, or any label a team uses
    pre_port_commit: str
    lines_changed: int
    size: str = ""  # small | medium | big, as the history file classes it
    calendar_days: float | None = None
    people: int | None = None
    effort_days: float | None = None  # engineer-days really spent, when the team knows them
    data: Mapping[str, Any] = field(default_factory=dict, compare=False)
    set: str = "fit"  # fit | held-out: held-out ports are never looked at while fitting
    author_days: int | None = None  # distinct author and author-date pairs of the port's commits

    @property
    def project(self) -> str:
        """Ports of one project are fitted or held out together."""
        return self.repository


@dataclass(frozen=True)
class History:
    ports: tuple[Port, ...]
    lines_per_day: float = DEFAULT_LINES_PER_DAY


def load_history(path: Path | str) -> History:
    """The ports of a history file (see bench/calibration/ports.yaml for the format)."""
    path = Path(path)
    shown = display_path(path)
    doc = read_yaml(path, HistoryError, shown)
    if not isinstance(doc, dict) or not isinstance(doc.get("ports"), list) or not doc["ports"]:
        raise HistoryError(shown, "ports", "a history file is a mapping with a non-empty list `ports`")
    ports = []
    for i, p in enumerate(doc["ports"]):
        where = f"ports[{i}]"
        if not isinstance(p, dict):
            raise HistoryError(shown, where, "each port is a mapping")
        for key in ("id", "repository", "pre_port_commit", "lines_changed"):
            if key not in p:
                raise HistoryError(shown, f"{where}.{key}", "missing")
        if not isinstance(p["lines_changed"], int) or p["lines_changed"] < 0:
            raise HistoryError(shown, f"{where}.lines_changed", "must be a non-negative integer")
        if p.get("set", "fit") not in ("fit", "held-out"):
            raise HistoryError(shown, f"{where}.set", "must be fit or held-out")
        ports.append(Port(str(p["id"]), str(p["repository"]), str(p["pre_port_commit"]), p["lines_changed"],
                          str(p.get("size", "")), _number(p.get("calendar_days")), _int(p.get("people")),
                          _number(p.get("effort_days")), p, str(p.get("set", "fit")), _int(p.get("author_days"))))
    ids = [p.id for p in ports]
    if len(set(ids)) != len(ids):
        raise HistoryError(shown, "ports", "duplicate id")
    return History(tuple(ports), float(doc.get("lines_per_day", DEFAULT_LINES_PER_DAY)))


def _number(v) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _int(v) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def reference_days(port: Port, lines_per_day: float) -> float:
    """What the port took in engineer-days: the booked effort when known, else its lines changed at
    `lines_per_day`, never more than its calendar days × people."""
    if port.effort_days is not None:
        return port.effort_days
    days = port.lines_changed / lines_per_day
    if port.calendar_days is not None and port.people is not None:
        days = min(days, max(port.calendar_days, 1) * port.people)
    return max(days, 0.1)


def ranks(values: list[float]) -> list[float]:
    """1-based ranks, ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman's rank correlation (Pearson's on the ranks, so ties are handled)."""
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError("spearman needs two lists of the same length, at least 2")
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    var = math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    return cov / var if var else 0.0


def docs_table(record: Mapping[str, Any]) -> str:
    """The calibration table of docs/effort-model.md, from a run recorded by bench/calibrate.py --record."""
    head = ("| port | set | size | lines | reference days | P10 | likely | P90 | P90/P10 | likely / reference | "
            "parity likely | verdict |")
    out = [head, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in record["ports"]:
        out.append(f"| {r['repository']} | {r['set']} | {r['size']} | {r['lines']} | {r['reference_days']:g} | "
                   f"{r['p10']:g} | {r['likely']:g} | {r['p90']:g} | {r['spread']:.2f} | {r['ratio']:.2f} | "
                   f"{'–' if r['parity'] is None else format(r['parity'], 'g')} | {r['verdict']} |")
    out.append("")
    out.append("| ports | n | Spearman ρ | median likely / reference | within 2× |")
    out.append("|---|---:|---:|---:|---:|")
    for s in record["summaries"]:
        out.append(f"| {s['label']} | {s['n']} | {s['rho']:.3f} | {s['median']:.2f} | {100 * s['within2']:.0f}% |")
    return "\n".join(out)


def median(values: list[float]) -> float:
    xs = sorted(values)
    if not xs:
        raise ValueError("median of nothing")
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def within(ratios: list[float], factor: float) -> float:
    """The share of ratios (estimate / reference) within `factor` either way."""
    return sum(1 for r in ratios if 1 / factor <= r <= factor) / len(ratios) if ratios else 0.0


def leave_one_project_out(rows: list[tuple[str, Mapping[str, float], float]], **fit_args) -> dict[int, float]:
    """For each row (project, hours by kind at scale 1, reference hours): its hours with the multipliers fitted on
    every other project's rows, so no port is priced by a fit that saw its own project. Index → hours."""
    out: dict[int, float] = {}
    for project in sorted({p for p, _, _ in rows}):
        train = [(h, ref) for p, h, ref in rows if p != project]
        scale = fit(train, **fit_args) if train else {}
        for i, (p, h, _) in enumerate(rows):
            if p == project:
                out[i] = sum(scale.get(k, 1.0) * v for k, v in h.items())
    return out


def log_error(scale: Mapping[str, float], rows: Iterable[tuple[Mapping[str, float], float]]) -> float:
    """Sum of squared log ratios of the scaled estimate (hours by kind) to the reference hours."""
    total = 0.0
    for by_kind, ref in rows:
        est = sum(scale.get(k, 1.0) * h for k, h in by_kind.items())
        total += math.log(max(est, 1e-6) / ref) ** 2
    return total


def fit(rows: list[tuple[Mapping[str, float], float]], kinds: Iterable[str] = KINDS,
        bounds: tuple[float, float] = (0.25, 4.0), rounds: int = 20, ridge: float = 0.0,
        tied: bool = False) -> dict[str, float]:
    """Multipliers per item kind that minimise `log_error` plus `ridge` × Σ log(multiplier)² (which pulls them towards
    the model's own numbers, 1): coordinate descent on a log grid within `bounds`, rounded to two significant
    digits so the fitted model reads cleanly. `tied`: one multiplier shared by every kind (it moves the estimates,
    never their order). `rows`: (hours by kind at scale 1, reference hours) per port."""
    kinds = list(kinds)
    scale = {k: 1.0 for k in kinds}
    lo, hi = math.log(bounds[0]), math.log(bounds[1])
    grid = [math.exp(lo + (hi - lo) * i / 200) for i in range(201)]

    def cost(sc: Mapping[str, float]) -> tuple[float, float]:
        return (log_error(sc, rows) + ridge * sum(math.log(v) ** 2 for v in sc.values()),
                sum(abs(math.log(v)) for v in sc.values()))

    if tied:
        best = min(grid, key=lambda v: cost({k: v for k in kinds}))
        return {k: float(f"{best:.2g}") for k in kinds}
    for _ in range(rounds):
        before = dict(scale)
        for k in kinds:
            scale[k] = min(grid, key=lambda v: cost({**scale, k: v}))
        if scale == before:
            break
    return {k: float(f"{v:.2g}") for k, v in scale.items()}
