"""`porter assess`: what it takes to run a repository on AMD Instinct GPUs."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

import porter.cli.options as options
from porter.cli.base import EXIT_OK, PlainHelp, app, run_command
from porter.cli.output import check_suffix, notes, show, write_output
from porter.cli.runs import nothing_scanned, pipeline, reusable_run, scanned_any, settings_for
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
    date: Optional[str] = options.date(),
    select_rules: Optional[List[str]] = options.select(),
    ignore_rules: Optional[List[str]] = options.ignore(),
) -> None:
    """Assess what it takes to run a repository on AMD Instinct GPUs: verdict, effort, blockers, breakdowns."""

    def body() -> int:
        from porter.render import RenderOptions, format_for

        check_suffix(format, output, report_suffixes())
        fmt = format_for(format, output)
        day = options.report_date(date)
        cli = options.command_line(include, exclude, jobs, None, target, no_cache, cache_dir, config, isolated, deep,
                                   rocm=rocm)
        settings = settings_for(path, cli, load_pipeline=False)
        if select_rules or ignore_rules:
            import dataclasses

            from porter.cli.selection import selection, unselected
            from porter.rulecatalog import rule_ids

            known = rule_ids(settings.extra_rules)
            # As `scan`: the rules left out do not run, so the assessment is of the rules chosen, in every format.
            settings = dataclasses.replace(settings, disabled_rules=unselected(
                settings.disabled_rules, known, selection(select_rules, ignore_rules, None, known)))
        opts = RenderOptions(explain=explain, verbose=verbose, quiet=quiet, command="assess", date=day)
        # An unchanged tree assessed the same way again: the report the last such run gave (porter.runcache; the
        # render options' command keeps it apart from a scan's).
        source, reuse, opts = reusable_run(path, rev, settings, fmt.name, opts, output, "all", "")
        if reuse is not None and (kept := reuse.get()) is not None:
            write_output(kept.report, output, commands=fmt.name == "github", styled=fmt.name == "console")
            notes(kept.notices)
            return kept.code
        run = pipeline(path, cli, rev, assess=True, show_progress=not quiet and fmt.name == "console",
                       settings=settings, source=source, found=reuse.found if reuse is not None else None)
        if not scanned_any(run):
            # "ready, nothing to port" about a wrong or empty directory would be a confident wrong answer
            raise UsageError(nothing_scanned(path, run))
        report = show(run, fmt, output, opts)
        if reuse is not None:
            if not run.result.unseen and set(run.result.stats.notices) <= set(run.settings.notices):
                from porter.runcache import Outcome

                reuse.put(Outcome(report, EXIT_OK, run.result.stats.notices))
            else:
                reuse.save_index()
        return EXIT_OK

    run_command(body, verbose)
