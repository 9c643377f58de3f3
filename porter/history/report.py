"""The history as one document (what JSON shows and every other format reads), and the format registry.

`document(history)` is the contract published as porter/schemas/history.schema.json; `render(name, history,
...)` gives a format's bytes. The points are oldest first; movers and the projection come from porter.history.trend.
"""
from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

from porter import __version__
from porter.errors import UsageError
from porter.history.points import History
from porter.history.trend import movers, projection
from porter.model.history import HistoryReport

SCHEMA = "porter-history-1"
# name → (module under porter.history, file suffixes)
FORMATS = {
    "console": ("render_console", (".txt",)),
    "json": ("report", (".json",)),
    "csv": ("render_csv", (".csv",)),
    "markdown": ("render_markdown", (".md", ".markdown")),
    "html": ("render_html", (".html", ".htm")),
}


def document(history: History, date: str | None = None) -> dict[str, Any]:
    points = history.points
    return {
        "schema": SCHEMA,
        "tool": {"name": "porter", "version": __version__},
        "about": about_history(history, date),
        "repository": history.repository,
        "path": history.subdir,
        "every": history.every,
        "targets": [{"id": t.id, "name": t.name} for t in history.targets],
        "points": [p.to_dict() for p in points],
        "movers": movers(points),
        "projection": projection(points),
        "notices": list(history.notices),
    }


def about_history(history: History, date: str | None = None) -> dict[str, Any]:
    """What the history is about: the repository's name (with the part walked), its branch, the newest commit
    walked (not the work tree's HEAD: `--until` can end the window earlier), porter's version, the date if asked."""
    from porter.render.about import about

    a = about(history.repository)
    name = a.name if a.commit else Path(history.repository).resolve().name
    return {"name": name, "commit": history.points[-1].commit if history.points else None, "branch": a.branch,
            "version": __version__, "date": date}


def heading(doc: HistoryReport) -> str:
    """'Port burndown: vllm' (with the part walked: 'Port burndown: vllm/csrc')."""
    return f"Port burndown: {doc.about.name}"


def about_line(doc: HistoryReport) -> str:
    """'porter 0.9.0 · branch main · commit 1a2b3c4d5e6f': the line under every format's heading."""
    ab = doc.about
    parts = [f"porter {ab.version}"]
    if ab.branch:
        parts.append(f"branch {ab.branch}")
    if ab.commit:
        parts.append(f"commit {ab.commit[:12]}")
    if ab.date:
        parts.append(ab.date)
    return " · ".join(parts)


def format_name(name: str | None, output: Path | None) -> str:
    """The format asked for (any case, `md` for markdown), else from the output's suffix, else console."""
    if name:
        key = name.strip().lower()
        key = "markdown" if key == "md" else key
        if key not in FORMATS:
            raise UsageError(f"--format must be one of {', '.join(FORMATS)} (or md), not {name!r}")
        return key
    if output is not None and str(output) != "-":
        for key, (_, suffixes) in FORMATS.items():
            if output.suffix.lower() in suffixes:
                return key
    return "console"


def render(name: str, doc: dict[str, Any], *, width: int = 120, terminal: bool = False) -> bytes:
    """The document in format `name` as bytes."""
    if name == "json":
        return render_json(doc)
    mod = importlib.import_module(f"porter.history.{FORMATS[name][0]}")
    typed = HistoryReport.of(doc)  # the other formats read fields, typed once here
    if name == "console":
        out: bytes = mod.render(typed, width=width, terminal=terminal)
        return out
    text: str = mod.render(typed)
    return text.encode("utf-8")


def render_json(doc: dict[str, Any]) -> bytes:
    return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
