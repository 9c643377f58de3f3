"""The parts of an assessment a report reads: per-target lines, breakdown rows, recommendations, optional and handled
work, as frozen dataclasses with one `to_dict` each (the JSON contract of porter/schemas/scan.schema.json).

porter.estimate.assess builds them once; renderers read their fields, never the JSON by string key. The estimate's
stages (porter.estimate.breakdowns, .shares, .advice) still hand over plain rows; `of` turns each such row into its
type exactly once, and `to_dict` gives back the same keys in the same order (tests/test_assessment_parts.py checks
the round trip on every example repository, so the JSON stays byte-identical).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

POINTS = ("low", "likely", "high")


@dataclass(frozen=True)
class Range:
    """A low–likely–high figure (hours or days, the field that holds it says which), as the estimate gave it: a
    value is kept as written (an int stays an int), so the JSON reads the same."""

    low: float = 0.0
    likely: float = 0.0
    high: float = 0.0

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Range:
        return cls(d["low"], d["likely"], d["high"])

    def to_dict(self) -> dict[str, float]:
        return {"low": self.low, "likely": self.likely, "high": self.high}


def _ranges(d: Mapping[str, Mapping[str, Any]]) -> dict[str, Range]:
    return {k: Range.of(v) for k, v in d.items()}


@dataclass(frozen=True)
class TargetLine:
    """The assessment for one selected target on its own: its verdict, effort and the reasons that decide it."""

    id: str
    name: str
    gfx: str
    pre_release: bool
    verdict: str
    effort: Range  # engineer-days (`unit`)
    unit: str
    deciding: tuple[str, ...]  # titles of the reasons at the target's verdict level

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "gfx": self.gfx, "pre_release": self.pre_release,
                "verdict": self.verdict, "effort": {**self.effort.to_dict(), "unit": self.unit},
                "deciding": list(self.deciding)}


@dataclass(frozen=True)
class CategoryRow:
    """One category of costed work: `share_days` is its part of the headline (the rows add up to it);
    `standalone_*` the category's own range were it the whole port; `hours`/`days` the items' plain sums."""

    category: str
    findings: int
    hours: Range
    days: Range
    share_days: Range
    standalone_hours: Range
    standalone_days: Range

    @property
    def share(self) -> Range:
        """The days a table shows for this row (what every other breakdown row calls `share`)."""
        return self.share_days

    @property
    def label(self) -> str:
        return self.category

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> CategoryRow:
        return cls(r["category"], r["findings"], Range.of(r["hours"]), Range.of(r["days"]), Range.of(r["share_days"]),
                   Range.of(r["standalone_hours"]), Range.of(r["standalone_days"]))

    def to_dict(self) -> dict[str, Any]:
        return {"category": self.category, "findings": self.findings, "hours": self.hours.to_dict(),
                "days": self.days.to_dict(), "share_days": self.share_days.to_dict(),
                "standalone_hours": self.standalone_hours.to_dict(), "standalone_days": self.standalone_days.to_dict()}


@dataclass(frozen=True)
class DirectoryRow:
    """A directory with everything below it rolled up ("." is the repository, with its repository-wide jobs);
    `share` is its part of its parent's share, `own_share` the part of what sits directly in it."""

    path: str
    depth: int
    findings: int
    files: int
    hours: Range
    days: Range
    share: Range
    own_share: Range

    @property
    def label(self) -> str:
        return self.path

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> DirectoryRow:
        return cls(r["path"], r["depth"], r["findings"], r["files"], Range.of(r["hours"]), Range.of(r["days"]),
                   Range.of(r["share"]), Range.of(r["own_share"]))

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "depth": self.depth, "findings": self.findings, "files": self.files,
                "hours": self.hours.to_dict(), "days": self.days.to_dict(), "share": self.share.to_dict(),
                "own_share": self.own_share.to_dict()}


@dataclass(frozen=True)
class KernelOnTarget:
    """A kernel's verdict on one target and what it rests on."""

    verdict: str
    reasons: tuple[str, ...]
    ids: tuple[str, ...]
    analysed: bool

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> KernelOnTarget:
        return cls(r["verdict"], tuple(r["reasons"]), tuple(r["ids"]), r["analysed"])

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "reasons": list(self.reasons), "ids": list(self.ids), "analysed": self.analysed}


@dataclass(frozen=True)
class KernelRow:
    """A costed kernel: its verdict on every target, the target that decides its cost (`worst_target`), the item
    that carries it, and `share`, its part of all kernels' days."""

    name: str
    qualified_name: str
    path: str
    line: int
    end_line: int
    lines: int
    is_template: bool
    launches: int
    targets: Mapping[str, KernelOnTarget]  # by target id, in the targets' order
    worst: str
    worst_target: str
    item: str
    hours: Range
    days: Range
    findings: int  # findings written in the kernel's own body
    share: Range

    @property
    def label(self) -> str:
        return self.qualified_name

    @property
    def deciding(self) -> KernelOnTarget:
        """The verdict on the target that decides the kernel's cost."""
        return self.targets[self.worst_target]

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> KernelRow:
        return cls(r["name"], r["qualified_name"], r["path"], r["line"], r["end_line"], r["lines"], r["is_template"],
                   r["launches"], {t: KernelOnTarget.of(v) for t, v in r["targets"].items()}, r["worst"],
                   r["worst_target"], r["item"], Range.of(r["hours"]), Range.of(r["days"]), r["findings"],
                   Range.of(r["share"]))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "qualified_name": self.qualified_name, "path": self.path, "line": self.line,
                "end_line": self.end_line, "lines": self.lines, "is_template": self.is_template,
                "launches": self.launches, "targets": {t: v.to_dict() for t, v in self.targets.items()},
                "worst": self.worst, "worst_target": self.worst_target, "item": self.item,
                "hours": self.hours.to_dict(), "days": self.days.to_dict(), "findings": self.findings,
                "share": self.share.to_dict()}


@dataclass(frozen=True)
class LibraryRow:
    """A CUDA library or package the findings depend on, its ROCm counterparts and the work its findings carry."""

    id: str
    name: str
    kind: str  # drop-in | port | early-access | none
    rocm: tuple[str, ...]
    note: str
    findings: int
    files: int
    hours: Range
    days: Range
    items: tuple[str, ...]  # ids of the items its findings are costed in

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> LibraryRow:
        return cls(r["id"], r["name"], r["kind"], tuple(r["rocm"]), r["note"], r["findings"], r["files"],
                   Range.of(r["hours"]), Range.of(r["days"]), tuple(r["items"]))

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "kind": self.kind, "rocm": list(self.rocm), "note": self.note,
                "findings": self.findings, "files": self.files, "hours": self.hours.to_dict(),
                "days": self.days.to_dict(), "items": list(self.items)}


@dataclass(frozen=True)
class FileRow:
    """A file with findings in the estimate or costed work: its findings by class, worst severity and hours."""

    path: str
    lines: int
    findings: int
    worst: str  # the worst severity among its findings
    free_with_hipify: int
    needs_engineer: int
    kernels: int
    hours: Range
    days: Range

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> FileRow:
        return cls(r["path"], r["lines"], r["findings"], r["worst"], r["free_with_hipify"], r["needs_engineer"],
                   r["kernels"], Range.of(r["hours"]), Range.of(r["days"]))

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "lines": self.lines, "findings": self.findings, "worst": self.worst,
                "free_with_hipify": self.free_with_hipify, "needs_engineer": self.needs_engineer,
                "kernels": self.kernels, "hours": self.hours.to_dict(), "days": self.days.to_dict()}


@dataclass(frozen=True)
class ClassCount:
    """How many findings, lines and files one class of findings (porter.estimate.inputs.CLASSES) has."""

    findings: int
    lines: int
    files: int

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> ClassCount:
        return cls(r["findings"], r["lines"], r["files"])

    def to_dict(self) -> dict[str, int]:
        return {"findings": self.findings, "lines": self.lines, "files": self.files}


@dataclass(frozen=True)
class HipifySplit:
    """The findings in the estimate by what they need: hipify alone, an engineer, or nothing (informational)."""

    free_with_hipify: ClassCount
    needs_engineer: ClassCount
    informational: ClassCount
    free_share: float  # of the findings, to three decimals

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> HipifySplit:
        return cls(ClassCount.of(r["free_with_hipify"]), ClassCount.of(r["needs_engineer"]),
                   ClassCount.of(r["informational"]), r["free_share"])

    def to_dict(self) -> dict[str, Any]:
        return {"free_with_hipify": self.free_with_hipify.to_dict(), "needs_engineer": self.needs_engineer.to_dict(),
                "informational": self.informational.to_dict(), "free_share": self.free_share}


@dataclass(frozen=True)
class Totals:
    """The figures the breakdown shares add up to: headline days, all kernels' days, total hours, and each costed
    item's share of the hours (by item id)."""

    days: Range
    kernel_days: Range
    hours: Range
    item_hours: Mapping[str, Range]

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> Totals:
        return cls(Range.of(r["days"]), Range.of(r["kernel_days"]), Range.of(r["hours"]), _ranges(r["item_hours"]))

    def to_dict(self) -> dict[str, Any]:
        return {"days": self.days.to_dict(), "kernel_days": self.kernel_days.to_dict(), "hours": self.hours.to_dict(),
                "item_hours": {k: v.to_dict() for k, v in self.item_hours.items()}}


@dataclass(frozen=True)
class Breakdowns:
    """Where the costed work is: by category, directory, kernel, library and file, the hipify split, and the totals
    the rows' shares add up to (porter.estimate.breakdowns with porter.estimate.shares)."""

    by_category: tuple[CategoryRow, ...]
    by_directory: tuple[DirectoryRow, ...]
    by_kernel: tuple[KernelRow, ...]  # most likely hours first (porter.estimate.shares.kernel_order)
    by_library: tuple[LibraryRow, ...]
    by_file: tuple[FileRow, ...]
    hipify: HipifySplit
    totals: Totals

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> Breakdowns:
        return cls(tuple(map(CategoryRow.of, r["by_category"])), tuple(map(DirectoryRow.of, r["by_directory"])),
                   tuple(map(KernelRow.of, r["by_kernel"])), tuple(map(LibraryRow.of, r["by_library"])),
                   tuple(map(FileRow.of, r["by_file"])), HipifySplit.of(r["hipify"]), Totals.of(r["totals"]))

    def to_dict(self) -> dict[str, Any]:
        return {"by_category": [x.to_dict() for x in self.by_category],
                "by_directory": [x.to_dict() for x in self.by_directory],
                "by_kernel": [x.to_dict() for x in self.by_kernel],
                "by_library": [x.to_dict() for x in self.by_library],
                "by_file": [x.to_dict() for x in self.by_file],
                "hipify": self.hipify.to_dict(), "totals": self.totals.to_dict()}


@dataclass(frozen=True)
class PlanStep:
    """A repository-wide job a recommendation carries out, with its days."""

    item: str
    title: str
    days: Range

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> PlanStep:
        return cls(r["item"], r["title"], Range.of(r["days"]))

    def to_dict(self) -> dict[str, Any]:
        return {"item": self.item, "title": self.title, "days": self.days.to_dict()}


@dataclass(frozen=True)
class Recommendation:
    """What to do about a blocker, a CUDA library or a target topic (porter.estimate.advice)."""

    id: str
    kind: str  # blocker | library | topic
    title: str
    replacement: str | None
    library_kind: str | None
    text: str
    plan: tuple[PlanStep, ...]
    targets: Mapping[str, tuple[str, ...]]  # target id → what it means there
    findings: int
    items: tuple[str, ...]
    hours: Range

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> Recommendation:
        return cls(r["id"], r["kind"], r["title"], r["replacement"], r["library_kind"], r["text"],
                   tuple(map(PlanStep.of, r["plan"])), {t: tuple(v) for t, v in r["targets"].items()}, r["findings"],
                   tuple(r["items"]), Range.of(r["hours"]))

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "title": self.title, "replacement": self.replacement,
                "library_kind": self.library_kind, "text": self.text, "plan": [s.to_dict() for s in self.plan],
                "targets": {t: list(v) for t, v in self.targets.items()}, "findings": self.findings,
                "items": list(self.items), "hours": self.hours.to_dict()}


@dataclass(frozen=True)
class OptionalWork:
    """Work kept out of the headline and the verdict (cuda-only spots, optional paths), costed apart."""

    findings: int
    kernels: int
    files: int
    hours: Range
    days: Range
    mean_hours: float
    text: str
    # The optional items as their JSON (porter.estimate.cost.Item.to_dict): no report reads them one by one.
    items: tuple[Mapping[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"findings": self.findings, "kernels": self.kernels, "files": self.files, "hours": self.hours.to_dict(),
                "days": self.days.to_dict(), "mean_hours": self.mean_hours, "text": self.text,
                "items": [dict(i) for i in self.items]}


@dataclass(frozen=True)
class HandledCounts:
    """How much of the port is done already: handled spots of all, open and kept CUDA-only."""

    handled: int
    open: int
    total: int
    share: int  # percent handled
    cuda_only: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"handled": self.handled, "open": self.open, "total": self.total, "share": self.share,
                "cuda_only": self.cuda_only, "text": self.text}
