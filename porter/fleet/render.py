"""The fleet document (porter.fleet.report) as console text, Markdown, JSON or CSV: one document, so every format
carries the same numbers (tests/test_fleet.py compares them)."""
from __future__ import annotations

import csv
import html
import io
from typing import Any

import orjson

from porter.render.safe import md_text, one_line

FORMATS = ("console", "markdown", "json", "csv", "html")
ALIASES = {"md": "markdown", "text": "console"}


def format_name(name: str | None, output: str | None) -> str:
    """The format asked for, else the one -o's suffix names, else console."""
    if name:
        name = ALIASES.get(name.lower(), name.lower())
        if name not in FORMATS:
            from porter.errors import UsageError

            raise UsageError(f"--format {name}: one of {', '.join(FORMATS)} (md)")
        return name
    suffix = (output or "").rsplit(".", 1)[-1].lower() if output and "." in output else ""
    return {"md": "markdown", "json": "json", "csv": "csv", "html": "html", "htm": "html"}.get(suffix, "console")


def render(name: str, doc: dict[str, Any]) -> bytes:
    return {"console": console, "markdown": markdown, "json": as_json, "csv": as_csv, "html": as_html}[name](doc)


def _n(x: float) -> str:
    return f"{x:g}"


def as_json(doc: dict[str, Any]) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def console(doc: dict[str, Any]) -> bytes:
    run, tot = doc["run"], doc["totals"]
    out = [f"porter fleet: run {run['id']} ({run['started']}, {run['executor']}, porter {run['porter_version']})",
           f"{tot['repositories']} repositories: {tot['assessed']} assessed, {tot['failed']} failed; "
           f"{tot['open_findings']} open findings, {_v(tot['handled_findings'])} handled, {tot['kernels']} kernels", ""]
    for t in doc["targets"]:
        v = t["verdicts"]
        out.append(f"{t['target']}: open effort {_n(t['open_days']['low'])}–{_n(t['open_days']['high'])} "
                   f"engineer-days, likely {_n(t['open_days']['likely'])}; "
                   + ", ".join(f"{k} {v[k]}" for k in v))
        width = max([len(x["repository"]) for x in t["ranking"]] + [10])
        out.append(f"  {'repository':<{width}}  {'verdict':<10}  {'likely':>7}  {'low–high':>13}  {'open':>6}  "
                   f"{'handled':>7}  commit")
        for x in t["ranking"]:
            out.append(f"  {_c(x['repository']):<{width}}  {x['verdict']:<10}  {_n(x['days_likely']):>7}  "
                       f"{_n(x['days_low']) + '–' + _n(x['days_high']):>13}  {x['open_findings']:>6}  "
                       f"{_v(x['handled_findings']):>7}  {x['commit']}")
        out.append(f"  ready now ({len(t['ready_now'])}): {_c(', '.join(t['ready_now']) or '-')}")
        out.append(f"  blockers on {t['target']} ({len(t['blockers'])}):" + ("" if t["blockers"] else " none"))
        for b in t["blockers"]:
            out.append(f"    {b['count']:>3}  {_c(b['blocker'])}: {_c(', '.join(b['repositories']))}")
        out.append("")
    for key, title, head in (("blockers", "blocker", "Blockers"), ("libraries", "library", "Libraries")):
        out.append(f"{head} across the fleet ({len(doc[key])}):" + ("" if doc[key] else " none"))
        for b in doc[key]:
            out.append(f"  {b['count']:>3}  {_c(b[title])}: {_c(', '.join(b['repositories']))}")
        out.append("")
    out.append(f"Failed ({len(doc['failed'])}):" + ("" if doc["failed"] else " none"))
    for f in doc["failed"]:
        out.append(f"  {_c(f['repository'])}: {_c(f['reason'])}")
    out.append("")
    prev = doc["previous_run"]
    out.append("Changes: no earlier run" if prev is None else f"Changes since run {prev}: none" if not doc["changes"]
               else f"Changes since run {prev} ({len(doc['changes'])}):")
    for c in doc["changes"]:
        out.append(f"  {_c(c['repository'])}{' [' + c['target'] + ']' if c['target'] else ''}: {c['change']} "
                   f"{_c(_v(c['before']))} -> {_c(_v(c['after']))}")
    if doc["burndown"]:
        out += ["", "Burndown (open engineer-days of the fleet, week by week):",
                f"  {'week':<10}  {'repos':>5}  {'likely':>7}  {'low–high':>13}  {'open findings':>13}"]
        for b in doc["burndown"]:
            out.append(f"  {b['week']:<10}  {b['repositories']:>5}  {_n(b['days_likely']):>7}  "
                       f"{_n(b['days_low']) + '–' + _n(b['days_high']):>13}  {b['open_findings']:>13}")
    return ("\n".join(out) + "\n").encode()


def _v(x: Any) -> str:
    return "-" if x is None else _n(x) if isinstance(x, float) else str(x)


def _md(text: Any) -> str:
    """Repository-influenced text (names, git's messages, blocker titles) in a Markdown cell: porter's escaping."""
    return md_text(text)


def _c(text: Any) -> str:
    """The same on a terminal line: control characters and line breaks as visible escapes."""
    return one_line(str(text))


def markdown(doc: dict[str, Any]) -> bytes:
    run, tot = doc["run"], doc["totals"]
    out = [f"# porter fleet: run {run['id']}", "",
           f"{run['started']} · {run['executor']} · porter {run['porter_version']}", "",
           f"**{tot['repositories']} repositories**: {tot['assessed']} assessed, {tot['failed']} failed; "
           f"{tot['open_findings']} open findings, {_v(tot['handled_findings'])} handled, {tot['kernels']} kernels.", ""]
    for t in doc["targets"]:
        v = t["verdicts"]
        out += [f"## {t['target']}", "",
                f"Open effort {_n(t['open_days']['low'])}–{_n(t['open_days']['high'])} engineer-days, likely "
                f"{_n(t['open_days']['likely'])}. Verdicts: " + ", ".join(f"{k} {v[k]}" for k in v) + ".", "",
                "| repository | verdict | likely days | low | high | open findings | handled | commit |",
                "|---|---|---:|---:|---:|---:|---:|---|"]
        out += [f"| {_md(x['repository'])} | {x['verdict']} | {_n(x['days_likely'])} | {_n(x['days_low'])} | "
                f"{_n(x['days_high'])} | {x['open_findings']} | {_v(x['handled_findings'])} | `{x['commit']}` |"
                for x in t["ranking"]]
        out += ["", f"Ready now ({len(t['ready_now'])}): {_md(', '.join(t['ready_now']) or '-')}", ""]
        out += [f"Blockers on {t['target']} ({len(t['blockers'])}):" + ("" if t["blockers"] else " none."), ""]
        if t["blockers"]:
            out += ["| blocker | repositories | which |", "|---|---:|---|"]
            out += [f"| {_md(b['blocker'])} | {b['count']} | {_md(', '.join(b['repositories']))} |"
                    for b in t["blockers"]]
            out.append("")
    for key, title, head in (("blockers", "blocker", "Blockers"), ("libraries", "library", "Libraries")):
        # An empty section says so in words: a table of headers alone reads as a rendering fault.
        out += [f"## {head} across the fleet", ""]
        out += ([f"| {title} | repositories | which |", "|---|---:|---|"]
                + [f"| {_md(b[title])} | {b['count']} | {_md(', '.join(b['repositories']))} |" for b in doc[key]]
                if doc[key] else ["None."])
        out.append("")
    out += ["## Failed", ""]
    out += (["| repository | reason |", "|---|---|"]
            + [f"| {_md(f['repository'])} | {_md(f['reason'])} |" for f in doc["failed"]] if doc["failed"] else ["None."])
    prev = doc["previous_run"]
    out += ["", f"## Changes since run {prev}" if prev is not None else "## Changes", ""]
    if prev is None:
        out.append("No earlier run.")
    elif not doc["changes"]:
        out.append(f"No change since run {prev}.")
    else:
        out += ["| repository | target | change | before | after |", "|---|---|---|---|---|"]
        out += [f"| {_md(c['repository'])} | {c['target']} | {c['change']} | {_md(_v(c['before']))} | "
                f"{_md(_v(c['after']))} |" for c in doc["changes"]]
    if doc["burndown"]:
        out += ["", "## Burndown", "", "| week | repositories | likely days | low | high | open findings |",
                "|---|---:|---:|---:|---:|---:|"]
        out += [f"| {b['week']} | {b['repositories']} | {_n(b['days_likely'])} | {_n(b['days_low'])} | "
                f"{_n(b['days_high'])} | {b['open_findings']} |" for b in doc["burndown"]]
    return ("\n".join(out) + "\n").encode()


def as_csv(doc: dict[str, Any]) -> bytes:
    """One long table: section, target, name, field, value (a spreadsheet pivots it)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["section", "target", "name", "field", "value"])
    for k, v in doc["totals"].items():
        w.writerow(["totals", "", "", k, _v(v)])
    for t in doc["targets"]:
        for k, v in t["verdicts"].items():
            w.writerow(["verdicts", t["target"], "", k, v])
        for k, v in t["open_days"].items():
            w.writerow(["open_days", t["target"], "", k, _n(v)])
        for x in t["ranking"]:
            for k in ("verdict", "days_likely", "days_low", "days_high", "open_findings", "handled_findings", "commit"):
                w.writerow(["ranking", t["target"], x["repository"], k,
                            _n(x[k]) if isinstance(x[k], float) else _v(x[k])])
        for name in t["ready_now"]:
            w.writerow(["ready_now", t["target"], name, "", ""])
        for b in t["blockers"]:
            for repo in b["repositories"]:
                w.writerow(["target_blockers", t["target"], b["blocker"], "repository", repo])
    for key, title in (("blockers", "blocker"), ("libraries", "library")):
        for b in doc[key]:
            for repo in b["repositories"]:
                w.writerow([key, "", b[title], "repository", repo])
    for f in doc["failed"]:
        w.writerow(["failed", "", f["repository"], "reason", f["reason"]])
    for c in doc["changes"]:
        w.writerow(["changes", c["target"], c["repository"], c["change"], f"{_v(c['before'])} -> {_v(c['after'])}"])
    for b in doc["burndown"]:
        for k in ("repositories", "days_likely", "days_low", "days_high", "open_findings"):
            w.writerow(["burndown", "", b["week"], k, _n(b[k]) if isinstance(b[k], float) else b[k]])
    return buf.getvalue().encode()


_CSS = ("body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:.5em 0 1.5em}"
        "th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}td.n{text-align:right}"
        ".blocked{color:#b00020}.port{color:#c46200}.mechanical{color:#1a5fb4}.ready{color:#26a269}"
        "svg{border:1px solid #ccc}")


def _h(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _table(head: list[str], rows: list[list[str]], numeric: frozenset[int] | set[int] = frozenset(),
           cls: str = "") -> str:
    """A table; cells are already escaped HTML."""
    th = "".join(f"<th>{_h(x)}</th>" for x in head)
    body = "".join("<tr>" + "".join(f'<td class="n">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                    for i, c in enumerate(r)) + "</tr>" for r in rows)
    return f'<table class="{cls}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'


def _burndown_svg(points: list[dict[str, Any]]) -> str:
    """The fleet's likely open days per week as a polyline (no script, no external asset)."""
    w, h, pad = 640, 200, 30
    top = max([p["days_likely"] for p in points] + [1.0])
    step = (w - 2 * pad) / max(1, len(points) - 1)
    xy = [(pad + i * step, h - pad - (h - 2 * pad) * p["days_likely"] / top) for i, p in enumerate(points)]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
    dots = "".join(f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="3"><title>{_h(p["week"])}: '
                   f'{_n(p["days_likely"])} days</title></circle>' for (x, y), p in zip(xy, points))
    return (f'<svg id="burndown" width="{w}" height="{h}" viewBox="0 0 {w} {h}" xmlns="http://www.w3.org/2000/svg">'
            f'<polyline fill="none" stroke="#1a5fb4" stroke-width="2" points="{line}"/>{dots}</svg>')


def as_html(doc: dict[str, Any]) -> bytes:
    """One self-contained page: inline CSS, an inline SVG burndown, no script."""
    run, tot = doc["run"], doc["totals"]
    # As porter's own HTML report: a policy that allows no request, so the page can be mailed or attached safely.
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; '
           'img-src data:">',
           f"<title>porter fleet: run {_h(run['id'])}</title><style>{_CSS}</style></head><body>",
           f"<h1>porter fleet: run {_h(run['id'])}</h1>",
           f"<p>{_h(run['started'])} · {_h(run['executor'])} · porter {_h(run['porter_version'])}</p>",
           f'<p id="totals"><b>{tot["repositories"]} repositories</b>: {tot["assessed"]} assessed, {tot["failed"]} '
           f"failed; {tot['open_findings']} open findings, {_h(_v(tot['handled_findings']))} handled, {tot['kernels']} "
           "kernels.</p>"]
    for t in doc["targets"]:
        v = t["verdicts"]
        out += [f'<h2 id="target-{_h(t["target"])}">{_h(t["target"])}</h2>',
                f"<p>Open effort {_n(t['open_days']['low'])}–{_n(t['open_days']['high'])} engineer-days, likely "
                f"{_n(t['open_days']['likely'])}. Verdicts: " + ", ".join(f"{k} {v[k]}" for k in v) + ".</p>",
                _table(["repository", "verdict", "likely days", "low", "high", "open findings", "handled", "commit"],
                       [[_h(x["repository"]), f'<span class="{_h(x["verdict"])}">{_h(x["verdict"])}</span>',
                         _n(x["days_likely"]), _n(x["days_low"]), _n(x["days_high"]), str(x["open_findings"]),
                         _h(_v(x["handled_findings"])), f"<code>{_h(x['commit'])}</code>"] for x in t["ranking"]],
                       {2, 3, 4, 5, 6}, "ranking"),
                f"<p>Ready now ({len(t['ready_now'])}): {_h(', '.join(t['ready_now']) or '-')}</p>",
                f"<h3>Blockers on {_h(t['target'])} ({len(t['blockers'])})</h3>",
                _table(["blocker", "repositories", "which"],
                       [[_h(b["blocker"]), str(b["count"]), _h(", ".join(b["repositories"]))] for b in t["blockers"]],
                       {1}, "target-blockers") if t["blockers"] else "<p>None.</p>"]
    for key, title, head in (("blockers", "blocker", "Blockers"), ("libraries", "library", "Libraries")):
        out += [f"<h2>{head} across the fleet</h2>",
                _table([title, "repositories", "which"],
                       [[_h(b[title]), str(b["count"]), _h(", ".join(b["repositories"]))] for b in doc[key]], {1}, key)
                if doc[key] else "<p>None.</p>"]
    out += ["<h2>Failed</h2>", _table(["repository", "reason"],
                                      [[_h(f["repository"]), _h(f["reason"])] for f in doc["failed"]], set(), "failed")
            if doc["failed"] else "<p>None.</p>"]
    prev = doc["previous_run"]
    out.append(f"<h2>Changes since run {_h(prev)}</h2>" if prev is not None else "<h2>Changes</h2><p>No earlier run.</p>")
    if prev is not None and not doc["changes"]:
        out.append(f"<p>No change since run {_h(prev)}.</p>")
    elif prev is not None:
        out.append(_table(["repository", "target", "change", "before", "after"],
                          [[_h(c["repository"]), _h(c["target"]), _h(c["change"]), _h(_v(c["before"])),
                            _h(_v(c["after"]))] for c in doc["changes"]], set(), "changes"))
    if doc["burndown"]:
        out += ["<h2>Burndown</h2>", _burndown_svg(doc["burndown"]),
                _table(["week", "repositories", "likely days", "low", "high", "open findings"],
                       [[_h(b["week"]), str(b["repositories"]), _n(b["days_likely"]), _n(b["days_low"]),
                         _n(b["days_high"]), str(b["open_findings"])] for b in doc["burndown"]], {1, 2, 3, 4, 5},
                       "burndown")]
    out.append("</body></html>")
    return ("\n".join(out) + "\n").encode()
