"""`porter assess`: what it takes to run a repository on AMD Instinct GPUs."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

import porter.cli.options as options
from porter.cli.base import EXIT_OK, PlainHelp, app, run_command
from porter.cli.output import check_suffix, show
from porter.cli.runs import nothing_scanned, pipeline, scanned_any
from porter.cli.scan import FORMAT_HELP, report_suffixes
from porter.errors import UsageError


@app.command("assess", cls=PlainHelp)
def assess_cmd(
    path: Path = options.path(),
    target: Optional[List[str]] = options.targets(),
    format: Optional[str] = options.format_(FORMAT_HELP),
    output: Optional[Path] = options.output("Write the report here (default: stdout)."),
    explain: bool = typer.Option(False, "--explain", metavar="", help="Show how every figure adds up, down to the findings."),
    include: Optional[List[str]] = options.include(),
    exclude: Optional[List[str]] = options.exclude(),
    jobs: Optional[int] = options.jobs(),
    rev: Optional[str] = options.rev("Assess the tree of this git commit (from git objects)."),
    quiet: bool = options.quiet("Only the headline."),
    verbose: bool = options.verbose(),
    no_cache: bool = options.no_cache(),
    cache_dir: Optional[Path] = options.cache_dir(),
    config: Optional[Path] = options.config(),
    isolated: bool = options.isolated(),
    deep: bool = options.deep(),
    rocm: Optional[str] = options.rocm(),
    no_color: bool = options.no_color(),
) -> None:
    """Assess what it takes to run a repository on AMD Instinct GPUs: verdict, effort, blockers, breakdowns."""

    def body() -> int:
        from porter.render import RenderOptions, format_for

        check_suffix(format, output, report_suffixes())
        fmt = format_for(format, output)
        cli = options.command_line(include, exclude, jobs, None, target, no_cache, cache_dir, config, isolated, deep,
                                   rocm=rocm)
        run = pipeline(path, cli, rev, assess=True, show_progress=not quiet and fmt.name == "console")
        if not scanned_any(run):
            # "ready, nothing to port" about a wrong or empty directory would be a confident wrong answer
            raise UsageError(nothing_scanned(path, run))
        show(run, fmt, output, RenderOptions(explain=explain, verbose=verbose, quiet=quiet, command="assess"))
        return EXIT_OK

    run_command(body, verbose)
