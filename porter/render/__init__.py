"""The renderer registry: every output format by name, with one signature, for the CLI, scripts and tests.

`render(name, run, options)` returns the report as bytes. A format that shows effort (markdown, html, sarif, csv)
needs the run's assessment (`FORMATS[name].needs_assessment`), so the pipeline is asked for one when such a format
is chosen. `format_for(name, output)` picks the format from an explicit name (any case, `md` for markdown, `text`
for console) or from
the output file's suffix.
"""
from __future__ import annotations

import importlib
import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol

from porter.errors import UsageError

if TYPE_CHECKING:
    from porter.diff import Diff
    from porter.estimate import Assessment
    from porter.model import ScanResult


class Shown(Protocol):
    """What a renderer is given: porter.pipeline.Run's parts (named here, not imported: the pipeline's later stages
    reach modules that use the renderers' helpers)."""

    @property
    def result(self) -> ScanResult: ...
    @property
    def assessment(self) -> Assessment | None: ...
    @property
    def diff(self) -> Diff | None: ...


@dataclass(frozen=True)
class RenderOptions:
    """How a person asked to see a run: detail level, and for console text the width and whether to colour."""

    explain: bool = False
    verbose: bool = False
    quiet: bool = False
    width: int = 120
    terminal: bool = False  # True: colour and terminal width; False: plain text (files, pipes, reports)
    command: str = "scan"  # scan's console view is an inventory; assess's is the effort report
    date: str | None = None  # the report's date, shown in titles only when asked (reports are otherwise reproducible)
    about: object | None = None  # porter.render.about.About; None: read from the scanned tree when a title needs it
    # SARIF uploads findings at or above this severity; None: all but the info notes of rename rules (render.sarif)
    min_severity: Any = None


@dataclass(frozen=True)
class Format:
    name: str
    suffixes: tuple[str, ...]
    needs_assessment: bool
    render: Callable[[Shown, RenderOptions], bytes]
    aliases: tuple[str, ...] = ()


def _console(run: Shown, opts: RenderOptions) -> bytes:
    from rich.console import Console

    from porter.render import console  # assess_console only for `assess`: it loads the effort model (~0.08 CPU-s)
    from porter.render.safe import literal

    buf = io.StringIO()
    c = Console(file=buf, width=opts.width, highlight=False, force_terminal=opts.terminal,
                no_color=not opts.terminal, color_system="auto" if opts.terminal else None, legacy_windows=False)
    if run.assessment is not None and opts.command == "assess":
        if opts.quiet:  # -q is one line, whatever the width: a script reads it with `head -1`
            c.print(literal(run.assessment.headline), soft_wrap=True)
        else:
            from porter.render import assess_console

            assess_console.render(run.result, run.assessment, c, opts.explain, about=_about(run, opts))
    elif opts.quiet:
        c.print(literal(console.summary_line(run.result)), soft_wrap=True)
    else:
        console.render(run.result, c, verbose=opts.verbose)
    text = buf.getvalue()
    if not opts.terminal:  # rich pads table lines to the full width: plain text keeps no trailing blanks
        text = "\n".join(line.rstrip() for line in text.split("\n"))
    return text.encode("utf-8")


def _module_renderer(module: str) -> Callable[[Shown, RenderOptions], bytes]:
    def render(run: Shown, opts: RenderOptions) -> bytes:
        if getattr(run, "diff", None) is not None and module in _DIFF_FORMS:
            return _DIFF_FORMS[module](run, opts)
        mod = importlib.import_module(f"porter.render.{module}")  # each format's module: `render` (and json's bytes)
        if module == "json":
            if run.assessment is None:
                data: bytes = mod.render_bytes(run.result)
                return data
            # An assessment names its subject as the titles of the other formats do (porter.render.about).
            doc = run.result.to_dict()
            out: bytes = mod.render_bytes({**{k: doc[k] for k in ("schema", "tool")}, "about": _about(run, opts).to_dict(),
                                           **{k: v for k, v in doc.items() if k not in ("schema", "tool")}})
            return out
        text: str
        if module == "sarif":
            text = mod.render(run.result, run.assessment, prefix=run.result.stats.prefix, min_severity=opts.min_severity)
        elif module in ("markdown", "html"):
            text = mod.render(run.result, run.assessment, explain=opts.explain, about=_about(run, opts))
        else:
            text = mod.render(run.result, run.assessment, explain=opts.explain)
        return text.encode("utf-8")

    return render


def _about(run: Shown, opts: RenderOptions) -> Any:
    """What the report is about: the caller's, else the scanned tree's name, commit and branch."""
    if opts.about is not None:
        return opts.about
    from porter.render.about import about

    return about(run.result.root, date=opts.date)


def _pr_comment(run: Shown, opts: RenderOptions | None = None) -> bytes:
    import os

    from porter.render import pr_comment as mod

    # In a GitHub workflow the comment's line links open the pull request's head commit (its web origin and
    # repository are the run's own: GITHUB_SERVER_URL, GITHUB_REPOSITORY); elsewhere lines are plain text.
    repository = os.environ.get("GITHUB_REPOSITORY", "")
    link = mod.line_links(run.result, run.diff, mod.github_server(os.environ), repository) if repository else None
    return mod.render(run.result, run.diff, link=link).encode("utf-8")


def _sarif_diff(run: Shown, opts: RenderOptions) -> bytes:
    from porter.render import sarif_baseline as mod

    assert run.diff is not None, "asked only for a run with a diff"
    return mod.render(run.result, run.diff, run.assessment, prefix=run.result.stats.prefix,
                      min_severity=opts.min_severity).encode("utf-8")


# With `scan --new-since` / `--baseline` (a run that carries a diff) these formats show the change, not the tree:
# markdown is the pull-request comment, SARIF marks each result's baselineState.
_DIFF_FORMS: dict[str, Callable[[Shown, RenderOptions], bytes]] = {"markdown": _pr_comment, "sarif": _sarif_diff}


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("console", (".txt",), False, _console, aliases=("text",)),  # `text`, as ruff and semgrep name it
    Format("json", (".json",), False, _module_renderer("json")),
    Format("markdown", (".md", ".markdown"), True, _module_renderer("markdown"), aliases=("md",)),
    Format("html", (".html", ".htm"), True, _module_renderer("html")),
    Format("sarif", (".sarif",), True, _module_renderer("sarif")),
    Format("csv", (".csv",), True, _module_renderer("csv")),
    Format("github", (), False, _module_renderer("github")),
    Format("pr-comment", (), False, lambda run, opts: _pr_comment(run)),
    Format("rdjsonl", (".rdjsonl", ".jsonl"), False, _module_renderer("rdjsonl")),
    Format("gitlab", (), False, _module_renderer("gitlab")),
)}


def format_for(name: str | None, output: Path | None = None) -> Format:
    """The format asked for by name (any case, aliases allowed), else by the output file's suffix, else console."""
    if name:
        key = name.strip().lower()
        for f in FORMATS.values():
            if key == f.name or key in f.aliases:
                return f
        raise UsageError(f"--format must be one of {', '.join(FORMATS)} (or md, text), not {name!r}")
    if output is not None and str(output) != "-":
        suffix = output.suffix.lower()
        for f in FORMATS.values():
            if suffix in f.suffixes:
                return f
    return FORMATS["console"]


def render(name: str, run: Shown, options: RenderOptions = RenderOptions()) -> bytes:
    """The run in format `name`, as bytes."""
    return format_for(name).render(run, options)
