"""Render findings as CSV for spreadsheets: one row per finding, with its port status, the count it is in (the
leaf rows of the assessment's counts: free_with_hipify, needs_engineer, informational, optional, other_targets,
handled, cuda_only), its effort item, the item's hours and its file's hours when assessed. A pivot on `status` or
`counted_as` gives the same numbers as every other format's counts."""
from __future__ import annotations

import csv
import io

from porter.estimate import Assessment
from porter.model import ScanResult
from porter.render.safe import spreadsheet_cell

COLUMNS = ("path", "line", "column", "end_line", "end_column", "rule", "category", "severity", "confidence", "status",
           "counted_as", "kernel", "function", "message", "replacement", "snippet", "class", "effort_item", "fingerprint",
           "item_low_h", "item_likely_h", "item_high_h", "item_findings", "file_likely_h")


def _safe_row(row: tuple[object, ...]) -> tuple[object, ...]:
    """Every text cell made safe in one place: a path, kernel or function name, and the effort item id built from
    them, can start with `=` or carry ESC and CR as easily as a message can. Numbers stay numbers."""
    return tuple(spreadsheet_cell(v) if isinstance(v, str) else v for v in row)


def render(result: ScanResult, assessment: Assessment | None = None, explain: bool = False) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    items = assessment.finding_item if assessment is not None else {}
    classes = assessment.finding_class if assessment is not None else {}
    counted = assessment.counts.counted_as if assessment is not None and assessment.counts is not None else {}
    # Hours per item and per file, so a spreadsheet can redo the arithmetic (an item's hours appear on each of its
    # findings' rows: divide by item_findings before summing).
    item_hours = {it.id: it for it in assessment.items} if assessment is not None else {}
    file_hours = {r.path: r.hours.likely for r in assessment.breakdowns.by_file} if assessment is not None else {}
    for f in result.findings:
        it = item_hours.get(items.get(f.fingerprint, ""))
        hours = (round(it.hours.low, 2), round(it.hours.likely, 2), round(it.hours.high, 2), len(it.findings)) if it else ("", "", "", "")
        writer.writerow(_safe_row((f.path, f.line, f.column, f.end_line, f.end_column, f.rule, f.category,
                                   str(f.severity), str(f.confidence), str(f.status),
                                   counted.get(f.fingerprint, ""), f.kernel or "", f.function or "", f.message,
                                   f.replacement or "", f.snippet, classes.get(f.fingerprint, ""),
                                   items.get(f.fingerprint, ""), f.fingerprint, *hours, file_hours.get(f.path, ""))))
    return buf.getvalue()
