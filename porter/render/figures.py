"""The figures a person reads, rounded once: displayed parts add up to the displayed total, in one unit per table.

An assessment keeps exact hours; reports show engineer-days. The model rounds once (porter.estimate.shares): the
headline is the effort model's `days`, and every breakdown row carries its `share`, apportioned so the rows sum
exactly to the figure above them. Renderers read those shares and never round again, so every format shows the
same numbers. A table that does not show every row (the top rows of a long list, a directory's own files next to
its subdirectories) shows the rest as a remainder row (the total minus what is shown), so the column still adds up.

`plural` spells counts ("1 file", "3 files"); an effort range is written by porter.estimate.wording (`days_range`,
and `effort_text` for the headline effort), which the assessment's own headline uses too.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Generic, Iterable, Protocol, Sequence, TypeVar

from porter.estimate.wording import Points

if TYPE_CHECKING:
    from porter.model.assessment import DirectoryRow, Range
    from porter.estimate import Assessment
    from porter.estimate.counts import Counts


# Why "all kernels" is not the kernel row of "Effort by category" (session 25's new user read them as two totals for
# one thing): the kernel table adds up each kernel's own estimate; the category also holds the fix-once sites kernels
# share (a helper, a compatibility header) and is its share of the total's P10–likely–P90.
KERNEL_DAYS_NOTE = ("Days are each kernel's own likely estimate; \"all kernels\" adds them up. The kernel row of the "
                    "effort by category differs: it also holds the fixes made once for many kernels (a shared helper, "
                    "a compatibility header) and is that category's share of the total's range.")


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 file', '2 files', '0 files' ('many' for irregular plurals: 'kernel(s)' never appears)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


class Shared(Protocol):
    """A breakdown row with its label and its apportioned share (porter.model.assessment's row types)."""

    @property
    def label(self) -> str: ...
    @property
    def share(self) -> Range: ...


R = TypeVar("R", bound=Shared)


class Ranked(Protocol):
    """A kernel row as worst_first orders it (porter.model.assessment.KernelRow)."""

    @property
    def worst(self) -> str: ...
    @property
    def hours(self) -> Range: ...
    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int: ...


K = TypeVar("K", bound=Ranked)


@dataclass(frozen=True)
class Row(Generic[R]):
    """One displayed row: its label, the days shown (apportioned) and the source row it came from (None for a
    remainder row)."""

    label: str
    days: Range
    source: R | None = None
    depth: int = 0
    # A directory's remainder row counts what it stands for (the findings and files directly in the directory,
    # and in the subdirectories beyond the limit), so the column adds up like the days do; None elsewhere.
    findings: int | None = None
    files: int | None = None


def source_of(row: Row[R]) -> R:
    """The breakdown row a displayed row shows (every category row has one; remainder rows, which have none, are
    made only where a table is cut)."""
    if row.source is None:
        raise ValueError(f"row {row.label!r} has no source row")
    return row.source


def counts_of(a: Assessment) -> Counts:
    """An assessment's counts (porter.estimate.assess always makes them; only a hand-built one lacks them)."""
    if a.counts is None:
        raise ValueError("an assessment without counts cannot be rendered")
    return a.counts


def _minus(total: Points, parts: Iterable[Range]) -> Range:
    parts = list(parts)

    def left(p: Callable[[Points], float]) -> float:
        return round(p(total) - sum(p(x) for x in parts), 1) + 0.0

    from porter.model.assessment import Range

    return Range(left(lambda x: x.low), left(lambda x: x.likely), left(lambda x: x.high))


def shown_rows(rows: Sequence[R], total: Points, limit: int | None = None, rest_label: str = "{n} more") -> list[Row[R]]:
    """`rows` with the days the model gave them (each row's `share`, which add up to `total`); beyond `limit` the
    others are one remainder row, so what is shown still sums to the total. Nothing is rounded here."""
    keep = list(rows) if limit is None or len(rows) <= limit else list(rows[:limit])
    out: list[Row[R]] = [Row(r.label, r.share, r) for r in keep]
    if len(rows) > len(keep):
        out.append(Row(rest_label.format(n=len(rows) - len(keep)), _minus(total, (r.share for r in keep))))
    return out


def worst_first(kernels: Sequence[K]) -> list[K]:
    """Kernel rows in the one order every format lists them: the worst verdict on any target first, then the most
    likely hours, then place. The verdict leads because it is what the headline names ("4 kernels need work"): a
    console table cut at its top rows must still show those kernels, even when the fix itself costs nothing."""
    from porter.estimate import KERNEL_VERDICTS

    return sorted(kernels, key=lambda k: (-KERNEL_VERDICTS.index(k.worst), -k.hours.likely, k.path, k.line))


def directory_rows(rows: Sequence[DirectoryRow], total: Points, max_depth: int = 2,
                   limit: int | None = None) -> list[Row[DirectoryRow]]:
    """The rolled-up directory tree (breakdowns' by_directory, with the model's shares) to `max_depth`: a
    directory's subdirectories plus a remainder row for what sits directly in it (its own files, and at the root
    the repository-wide jobs, and the subdirectories beyond `limit`) add up to the directory's figure."""
    by_path = {r.path: r for r in rows}
    children: dict[str, list[DirectoryRow]] = {}
    for r in rows:
        if r.path == ".":
            continue
        parent = r.path.rsplit("/", 1)[0] if "/" in r.path else "."
        children.setdefault(parent, []).append(r)
    out: list[Row[DirectoryRow]] = []

    def walk(path: str, depth: int) -> None:
        node = by_path[path]
        out.append(Row(path, node.share, node, depth))
        kids = sorted(children.get(path, []), key=lambda r: (-r.hours.likely, r.path))
        if depth >= max_depth or not kids:
            return
        keep = kids if limit is None else kids[:limit]
        for k in keep:
            walk(k.path, depth + 1)
        rest = _minus(node.share, (k.share for k in keep))
        findings = node.findings - sum(k.findings for k in keep)
        if rest.low or rest.likely or rest.high or findings:
            more = len(kids) - len(keep)
            what = ("repository-wide jobs, top-level files" if path == "." else f"files directly in {path}/")
            out.append(Row(f"({what}" + (f", {plural(more, 'more directory', 'more directories')}" if more else "") + ")",
                           rest, None, depth + 1, findings, node.files - sum(k.files for k in keep)))

    if "." in by_path:
        walk(".", 0)
    return out


def total_of(rows: Iterable[Row[Any]]) -> Range:
    from porter.model.assessment import Range

    rows = list(rows)
    return Range(round(sum(r.days.low for r in rows), 10), round(sum(r.days.likely for r in rows), 10),
                 round(sum(r.days.high for r in rows), 10))


# The finding counts as every format lists them: (key of porter.estimate.counts.Counts, indent). The rows partition:
# the open ones in the estimate (by class), the other open ones, then handled and cuda-only, then all of them.
COUNT_ROWS = (("estimated", 0), ("free_with_hipify", 1), ("needs_engineer", 1), ("informational", 1),
              ("optional", 0), ("other_targets", 0), ("open", 0), ("handled", 0), ("cuda_only", 0), ("findings", 0))


def count_rows(counts: Any) -> list[tuple[str, int, int]]:
    """(label, value, indent) for each of COUNT_ROWS, from the assessment's Counts."""
    from porter.estimate.counts import LABELS

    return [(LABELS[key], getattr(counts, key), depth) for key, depth in COUNT_ROWS]


def files_line(counts: Any) -> str:
    """'1031 files scanned · 615 files with findings · 127 files with open findings'."""
    from porter.estimate.counts import phrase

    return " · ".join(phrase(k, getattr(counts, k)) for k in
                      ("files_scanned", "files_with_findings", "files_with_open_findings", "skipped"))


def others_line(counts: Any) -> str:
    """'7 kernels · 1 launch site · 0 suppressed'."""
    return " · ".join((plural(counts.kernels, "kernel"), plural(counts.launches, "launch site"),
                       f"{counts.suppressed} suppressed"))


# Why a kernel the scan found has no row in the kernel breakdown, by its port status (an open kernel without a row
# sits under an optional path: porter.estimate.inputs costs those apart).
_UNLISTED = (("handled", "handled for ROCm"), ("cuda-only", "kept CUDA-only"), ("open", "under optional paths, costed apart"))


def unlisted_kernels(kernels: Iterable[Any], rows: Iterable[Any], names: int = 3) -> str:
    """The sentence under the kernel table naming the kernels the scan found that the table does not list ("" when
    it lists them all): the counts line says "7 kernels" and a table of 6 must say where the seventh went."""
    listed = {(r.path, r.line, r.qualified_name) for r in rows}
    groups: dict[str, list[Any]] = {}
    for k in sorted(kernels, key=lambda k: (k.path, k.line, k.qualified_name)):
        if (k.path, k.line, k.qualified_name) not in listed:
            groups.setdefault(getattr(k.status, "value", str(k.status)), []).append(k)
    parts = []
    for status, why in _UNLISTED:
        ks = groups.get(status, [])
        if ks:
            named = ", ".join(f"{k.qualified_name} ({k.path}:{k.line})" for k in ks[:names])
            parts.append(f"{why}: {named}" + (f" and {len(ks) - names} more" if len(ks) > names else ""))
    n = sum(len(v) for v in groups.values())
    return f"{plural(n, 'more kernel')} not in this table — " + "; ".join(parts) + "." if n else ""


def severity_rows(t: Any) -> tuple[list[str], list[tuple[str, list[int], int]]]:
    """The totals table every report prints (porter.model.totals): the severities (worst first) as columns, one row
    per port status and an `all findings` row, each with its total."""
    from porter.model.totals import SEVERITIES

    sevs = [str(s) for s in SEVERITIES]
    rows = [(label, [t.by_status[key][s] for s in sevs], t.status(key))
            for key, label in (("open", "open"), ("handled", "handled"), ("cuda_only", "cuda-only"))]
    rows.append(("all findings", [t.severity(s) for s in sevs], t.findings))
    return sevs, rows


def narrowed_note(t: Any, c: Any) -> str | None:
    """When `--status` or `--min-severity` narrowed what a report shows, the sentence that says the totals table
    counts the findings shown while the counts and effort above are the assessment's, of every finding (None when
    nothing was narrowed: the two agree)."""
    if t.findings == c.findings:
        return None
    return (f"This table counts the {t.findings} findings shown (--status or --min-severity narrowed them); the counts "
            f"and the effort are the assessment's, of all {c.findings} findings.")
