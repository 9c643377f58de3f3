"""Compare two points of the history: what was ported, what was added and what is still open between A and B.

Both trees are scanned from git objects through the one pipeline (cached by blob id), and findings are matched by
fingerprint (stable across line moves). Open at A and handled at B: ported. Open at A and cuda-only at B: kept
CUDA-only — no ROCm path was written, the team scoped the code out of the port (an example built only for the CUDA
backend, a `cuda_only` path), which is not what "ported" promises. Open at A and gone at B: removed. Open at B and
not open at A: added (new) or reopened (handled or cuda-only at A). Open at both: still open.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from porter.errors import UsageError
from porter.history.walk import open_repository
from porter.model import Status
from porter.settings import Settings
from porter.source import git
from porter.source.read import GitTree

SCHEMA = "porter-history-compare-1"
KINDS = ("ported", "kept_cuda_only", "removed", "added", "reopened", "still_open")
LABELS = {"ported": "ported", "kept_cuda_only": "kept CUDA-only", "removed": "removed", "added": "added",
          "reopened": "reopened", "still_open": "still open"}


def parse_range(text: str) -> tuple[str, str]:
    a, sep, b = text.partition("..")
    if not sep or not a or not b or b.startswith("."):
        raise UsageError(f"--compare takes A..B (two commits, e.g. v1.0..main), not {text!r}")
    return a, b


def _commit(top: Path, rev: str) -> dict[str, str]:
    try:
        out = git.run(top, "log", "-1", "--no-show-signature", "--no-mailmap", "--format=%H%x00%an%x00%cI%x00%s",
                      "--end-of-options", f"{rev}^{{commit}}", "--")
    except git.GitError:
        raise UsageError(f"{rev!r}: no such commit in {top}") from None
    sha, author, date, subject = out.decode("utf-8", "replace").rstrip("\n").split("\0", 3)
    return {"commit": sha, "author": author, "date": date, "subject": subject}


def compare(path: Path, spec: str, settings: Settings) -> dict[str, Any]:
    from porter.pipeline import run

    top, subdir = open_repository(path)
    a, b = parse_range(spec)
    ends = [_commit(top, a), _commit(top, b)]
    runs = [run(GitTree(top, e["commit"], subdir), settings) for e in ends]
    before, after = (_by_fingerprint(r.result.findings) for r in runs)
    rows: dict[str, list] = {k: [] for k in KINDS}
    for fp, f in before.items():
        if f.status is not Status.OPEN:
            continue
        g = after.get(fp)
        if g is None:
            rows["removed"].append(f)
        elif g.status is Status.OPEN:
            rows["still_open"].append(g)
        elif g.status is Status.CUDA_ONLY:
            rows["kept_cuda_only"].append(g)
        else:
            rows["ported"].append(g)
    for fp, g in after.items():
        if g.status is Status.OPEN and fp not in before:
            rows["added"].append(g)
        elif g.status is Status.OPEN and before[fp].status is not Status.OPEN:
            rows["reopened"].append(g)
    return {
        "schema": SCHEMA,
        "repository": str(path),
        "path": subdir,
        "from": ends[0],
        "to": ends[1],
        "targets": [t.id for t in runs[1].targets],
        "counts": {k: len(v) for k, v in rows.items()},
        "by_rule": {k: dict(sorted(Counter(f.rule for f in v).items())) for k, v in rows.items()},
        **{k: [_row(f) for f in sorted(v)] for k, v in rows.items()},
    }


def _by_fingerprint(findings) -> dict[tuple[str, int], Any]:
    """Findings by (fingerprint, occurrence): two identical lines in one file share a fingerprint."""
    seen: Counter = Counter()
    out = {}
    for f in sorted(findings):
        out[(f.fingerprint, seen[f.fingerprint])] = f
        seen[f.fingerprint] += 1
    return out


def _row(f) -> dict[str, Any]:
    return {"rule": f.rule, "path": f.path, "line": f.line, "severity": str(f.severity), "status": str(f.status),
            "handled_by": f.handled_by, "message": f.message, "fingerprint": f.fingerprint}


def render(doc: dict[str, Any], name: str) -> bytes:
    """The comparison in one of the history formats."""
    import csv
    import html
    import io
    import json

    from porter.render.safe import md_code, md_text, one_line, spreadsheet_cell

    a, b = doc["from"], doc["to"]
    counts = doc["counts"]
    title = (f"{a['commit'][:12]} ({a['date'][:10]}) → {b['commit'][:12]} ({b['date'][:10]}): "
             + ", ".join(f"{counts[k]} {LABELS[k]}" for k in KINDS))
    if name == "json":
        return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if name == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(("change", "rule", "severity", "status", "path", "line", "handled_by", "message", "fingerprint"))
        for k in KINDS:
            for r in doc[k]:
                w.writerow((k, r["rule"], r["severity"], r["status"], spreadsheet_cell(r["path"]), r["line"],
                            spreadsheet_cell(r["handled_by"] or ""), spreadsheet_cell(r["message"]), r["fingerprint"]))
        return buf.getvalue().encode("utf-8")
    if name == "markdown":
        out = [f"# Port progress {md_code(a['commit'][:12])}..{md_code(b['commit'][:12])}", "", md_text(title), ""]
        for k in KINDS:
            if doc[k]:
                out += [f"## {LABELS[k][:1].upper() + LABELS[k][1:]} ({counts[k]})", "", "| rule | where | message |",
                        "|---|---|---|"]
                out += [f"| {r['rule']} | {md_code(r['path'] + ':' + str(r['line']))} | {md_text(r['message'])} |"
                        for r in doc[k]]
                out.append("")
        return ("\n".join(out).rstrip("\n") + "\n").encode("utf-8")
    if name == "html":
        t = lambda v: html.escape(str(v), quote=True)  # noqa: E731
        out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8"><title>Port progress</title></head>'
               "<body>", f"<h1>Port progress</h1><p>{t(title)}</p>"]
        for k in KINDS:
            if doc[k]:
                out.append(f"<h2>{t(LABELS[k])} ({counts[k]})</h2><table>")
                out += [f"<tr><td>{t(r['rule'])}</td><td><code>{t(r['path'])}:{r['line']}</code></td>"
                        f"<td>{t(r['message'])}</td></tr>" for r in doc[k]]
                out.append("</table>")
        out.append("</body></html>")
        return ("\n".join(out) + "\n").encode("utf-8")
    lines = [one_line(title)]
    for k in ("ported", "kept_cuda_only", "removed", "added", "reopened"):
        for rule, n in doc["by_rule"][k].items():
            lines.append(f"  {LABELS[k]}: {n} × {rule}")
    return ("\n".join(lines) + "\n").encode("utf-8")
