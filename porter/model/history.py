"""A port's history: each point's state and change (what porter.history.points measures), and the report its
formats read (points, movers, the projection), as frozen dataclasses.

The history's JSON document (porter.history.report.document, published as porter/schemas/history.schema.json) is
the contract: JSON writes it as it is, and every other format reads it. `HistoryReport.of(doc)` types it once, so
the console, CSV, Markdown and HTML renderers read fields, never the document by string key.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from porter.model.assessment import Range


@dataclass(frozen=True)
class HistoryAbout:
    """What the history is about: the repository's name, the newest commit walked, its branch, porter's version and
    the report's date (each None when not known or not asked)."""

    name: str
    commit: str | None
    branch: str | None
    version: str
    date: str | None

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> HistoryAbout:
        return cls(d["name"], d["commit"], d["branch"], d["version"], d["date"])


@dataclass(frozen=True)
class PointChange:
    """How a point moved since the previous one (likely days to two decimals)."""

    open_findings: int
    handled_findings: int
    cuda_only_findings: int
    effort_likely: float
    open_kernels: Mapping[str, int]  # target id → change of its open kernels
    blockers: int

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> PointChange:
        return cls(d["open_findings"], d["handled_findings"], d["cuda_only_findings"], d["effort_likely"],
                   dict(d["open_kernels"]), d["blockers"])

    def to_dict(self) -> dict[str, Any]:
        return {"open_findings": self.open_findings, "handled_findings": self.handled_findings,
                "cuda_only_findings": self.cuda_only_findings, "effort_likely": self.effort_likely,
                "open_kernels": dict(self.open_kernels), "blockers": self.blockers}

    @property
    def size(self) -> float:
        """How much the point moved, for ranking the moves a table shows: days first, then findings."""
        return abs(self.effort_likely) * 1000 + abs(self.open_findings) + abs(self.handled_findings) \
            + abs(self.cuda_only_findings)


@dataclass(frozen=True)
class Blocker:
    """A blocked reason of a point's assessment."""

    key: str
    title: str
    count: int

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Blocker:
        return cls(d["key"], d["title"], d["count"])

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "title": self.title, "count": self.count}


@dataclass(frozen=True)
class Point:
    """The port's state at one commit, and how it moved since the previous point."""

    commit: str
    date: str
    author: str
    subject: str
    merge: bool
    commits: int  # first-parent commits this point covers since the previous one (1 unless --every groups them)
    open_findings: int
    handled_findings: int
    cuda_only_findings: int
    effort: Range  # engineer-days of the open work
    verdict: str  # the assessment's verdict for the open work
    open_kernels: Mapping[str, int]  # target id → open kernels that need work there (verdict other than ok)
    blockers: tuple[Blocker, ...]  # the assessment's blocked reasons
    files: int  # files scanned at this point
    change: PointChange | None = None  # the difference from the previous point; None for the first

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Point:
        return cls(d["commit"], d["date"], d["author"], d["subject"], d["merge"], d["commits"], d["open_findings"],
                   d["handled_findings"], d["cuda_only_findings"], Range.of(d["effort"]), d["verdict"],
                   dict(d["open_kernels"]), tuple(map(Blocker.of, d["blockers"])), d["files"],
                   PointChange.of(d["change"]) if d["change"] else None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "commit": self.commit, "date": self.date, "author": self.author, "subject": self.subject,
            "merge": self.merge, "commits": self.commits,
            "open_findings": self.open_findings, "handled_findings": self.handled_findings,
            "cuda_only_findings": self.cuda_only_findings, "effort": self.effort.to_dict(), "verdict": self.verdict,
            "open_kernels": dict(self.open_kernels), "blockers": [b.to_dict() for b in self.blockers],
            "files": self.files, "change": self.change.to_dict() if self.change else None,
        }


@dataclass(frozen=True)
class Mover:
    """A point that moved the open work a lot (porter.history.trend.movers)."""

    commit: str
    date: str
    author: str
    subject: str
    effort_likely: float
    open_findings: int

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Mover:
        return cls(d["commit"], d["date"], d["author"], d["subject"], d["effort_likely"], d["open_findings"])


@dataclass(frozen=True)
class Movers:
    """The biggest moves, by likely days (`reduced`, `added`) and by open findings (`reduced_open`, `added_open`)."""

    reduced: tuple[Mover, ...] = ()
    added: tuple[Mover, ...] = ()
    reduced_open: tuple[Mover, ...] = ()
    added_open: tuple[Mover, ...] = ()

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Movers:
        def ms(key: str) -> tuple[Mover, ...]:
            return tuple(map(Mover.of, d.get(key, ())))

        return cls(ms("reduced"), ms("added"), ms("reduced_open"), ms("added_open"))


@dataclass(frozen=True)
class ProjectionBasis:
    """The points a projection is fitted to: from and to which date, how many, over how many days."""

    start: str  # the JSON's "from"
    end: str  # the JSON's "to"
    points: int
    days: int

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> ProjectionBasis:
        return cls(d["from"], d["to"], d["points"], d["days"])


@dataclass(frozen=True)
class Projection:
    """When the open work reaches zero at the recent burn rate (porter.history.trend.projection); `status` says
    why there is no date: done, flat, rising, too few points, no points."""

    status: str
    date: str | None
    earliest: str | None
    latest: str | None
    rate_per_week: float | None
    basis: ProjectionBasis | None

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Projection:
        return cls(d["status"], d["date"], d["earliest"], d["latest"], d["rate_per_week"],
                   ProjectionBasis.of(d["basis"]) if d["basis"] else None)


@dataclass(frozen=True)
class HistoryReport:
    """The whole history document, typed: what it is about, the targets, the points (oldest first), the movers, the
    projection and the notices."""

    about: HistoryAbout
    repository: str
    path: str
    every: str
    targets: tuple[tuple[str, str], ...]  # (id, name)
    points: tuple[Point, ...]
    movers: Movers
    projection: Projection
    notices: tuple[str, ...]

    @property
    def target_ids(self) -> list[str]:
        return [t for t, _ in self.targets]

    @classmethod
    def of(cls, doc: Mapping[str, Any]) -> HistoryReport:
        return cls(HistoryAbout.of(doc["about"]), doc["repository"], doc["path"], doc["every"],
                   tuple((t["id"], t["name"]) for t in doc["targets"]), tuple(map(Point.of, doc["points"])),
                   Movers.of(doc["movers"]), Projection.of(doc["projection"]), tuple(doc["notices"]))
