"""The history as CSV: one row per point, oldest first, for spreadsheets and plotting."""
from __future__ import annotations

import csv
import io
from porter.model.history import HistoryReport
from porter.render.safe import spreadsheet_cell

COLUMNS = ("commit", "date", "author", "subject", "merge", "commits", "open_findings", "handled_findings",
           "cuda_only_findings", "effort_low", "effort_likely", "effort_high", "verdict", "blockers",
           "change_open_findings", "change_effort_likely")


def render(doc: HistoryReport) -> str:
    targets = doc.target_ids
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS + tuple(f"open_kernels_{t}" for t in targets))
    for p in doc.points:
        c = p.change
        writer.writerow((p.commit, p.date, spreadsheet_cell(p.author), spreadsheet_cell(p.subject),
                         int(p.merge), p.commits, p.open_findings, p.handled_findings,
                         p.cuda_only_findings, p.effort.low, p.effort.likely, p.effort.high,
                         p.verdict, len(p.blockers), c.open_findings if c else "",
                         c.effort_likely if c else "", *(p.open_kernels.get(t, 0) for t in targets)))
    return buf.getvalue()
