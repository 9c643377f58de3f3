"""`porter history`: the burndown of a port over the first-parent git history, or what changed between two
commits (--compare)."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

import porter.cli.options as options
from porter.cli.base import EXIT_OK, PlainHelp, app, err, run_command
from porter.cli.output import check_suffix, colour_on_stdout, history_progress, notes, stdout_width, to_stdout, write_output
from porter.cli.runs import settings_for
from porter.errors import UsageError


@app.command("history", cls=PlainHelp)
def history_cmd(
    path: Path = options.path("The git repository, or a directory inside it."),
    since: Optional[str] = typer.Option(None, "--since", metavar="DATE", help="Only commits from this ISO date on."),
    until: Optional[str] = typer.Option(None, "--until", metavar="DATE", help="Only commits up to this ISO date."),
    max_commits: Optional[int] = typer.Option(None, "--max-commits", metavar="N", help="The last N first-parent commits (default: at most 1000)."),
    every: str = typer.Option("commit", "--every", metavar="PERIOD", help="A point per commit, day, week or month (the last commit of each)."),
    target: Optional[List[str]] = options.targets(),
    format: Optional[str] = options.format_("console, json, csv, markdown (md) or html; default: from -o's suffix, else console."),
    output: Optional[Path] = options.output(),
    compare: Optional[str] = typer.Option(None, "--compare", metavar="A..B", help="A..B: what was ported, added and still open between two commits."),
    allow_shallow: bool = typer.Option(False, "--allow-shallow", metavar="", help="Walk a shallow clone from its shallow boundary."),
    include: Optional[List[str]] = options.include(),
    exclude: Optional[List[str]] = options.exclude(),
    jobs: Optional[int] = options.jobs(),
    quiet: bool = options.quiet("No progress or summary on stderr."),
    verbose: bool = options.verbose(),
    no_cache: bool = options.no_cache(),
    cache_dir: Optional[Path] = options.cache_dir(),
    config: Optional[Path] = options.config(),
    isolated: bool = options.isolated(),
    no_color: bool = options.no_color(),
    date: Optional[str] = options.date(),
) -> None:
    """The burndown of a port over the first-parent git history: open, handled and cuda-only work per commit."""

    def body() -> int:
        from porter.history import report

        check_suffix(format, output, tuple(s for _, suffixes in report.FORMATS.values() for s in suffixes))
        name = report.format_name(format, output)
        day = options.report_date(date)
        cli = options.command_line(include, exclude, jobs, None, target, no_cache, cache_dir, config, isolated)
        if not path.is_dir():
            raise UsageError(f"{path}: no such directory" if not path.exists() else
                             f"{path}: history needs a directory (the repository or a part of it), not a file")
        settings = settings_for(path, cli)
        if compare is not None:
            from porter.history.compare import compare as compare_points, render as render_compare

            write_output(render_compare(compare_points(path, compare, settings), name), output)
            return EXIT_OK
        from porter.history.points import history
        from porter.history.walk import walk

        walked = walk(path, since=since, until=until, max_commits=max_commits, allow_shallow=allow_shallow)
        prog, callback = history_progress(not quiet)
        if prog:
            with prog:
                result = history(walked, settings, every, progress=callback)
        else:
            result = history(walked, settings, every, progress=callback)
        write_output(report.render(name, report.document(result, day), width=stdout_width() if to_stdout(output) else 120,
                                   terminal=colour_on_stdout(output)), output, styled=name == "console")
        notes(result.notices)
        if not quiet:
            s = result.stats
            err().print(f"history: {s['commits']} commits, {s['points']} points ({s['points_computed']} computed, "
                        f"{s['points_cached']} from the cache), {s['blobs_scanned']} blobs scanned, "
                        f"{s['cache_hits']} cache hits", markup=False, highlight=False)
        return EXIT_OK

    run_command(body, verbose)
