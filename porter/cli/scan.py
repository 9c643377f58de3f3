"""`porter scan`: inventory everything CUDA in a repository, optionally only what changed since a base."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

import porter.cli.options as options
from porter.cli.base import EXIT_FINDINGS, PlainHelp, app, ends_with_command, err, run_command, say
from porter.cli.gate import gate, unseen_warning
from porter.cli.output import check_suffix, notes, show, write_output
from porter.cli.selection import narrow_severity, selection, unselected
from porter.cli.runs import diff_pipeline, nothing_scanned, pipeline, reusable_run, scanned_any, settings_for
from porter.errors import UsageError
from porter.render.figures import plural


def format_help() -> str:
    """The --format values from the renderer registry, so a new format is listed the moment it is registered."""
    from porter.render import FORMATS

    names = [f.name + (f" ({', '.join(f.aliases)})" if f.aliases else "") for f in FORMATS.values()]
    return f"One of: {', '.join(names)}. Default: from -o's suffix, else console."


FORMAT_HELP = format_help()


def report_suffixes() -> tuple[str, ...]:
    """The -o suffixes that choose a format of scan and assess (.json, .sarif, ...)."""
    from porter.render import FORMATS

    return tuple(s for f in FORMATS.values() for s in f.suffixes)


@app.command(cls=PlainHelp)
def scan(
    path: Path = options.path(),
    format: Optional[str] = options.format_(FORMAT_HELP),
    output: Optional[Path] = options.output(),
    include: Optional[List[str]] = options.include(),
    exclude: Optional[List[str]] = options.exclude(),
    jobs: Optional[int] = options.jobs(),
    fail_on: Optional[str] = options.fail_on(also=options.FAIL_ON_KERNELS),
    target: Optional[List[str]] = options.targets(),
    rev: Optional[str] = options.rev(),
    quiet: bool = options.quiet("Only the summary line."),
    verbose: bool = options.verbose("Every finding; tracebacks on internal errors."),
    no_cache: bool = options.no_cache(),
    cache_dir: Optional[Path] = options.cache_dir(),
    config: Optional[Path] = options.config(),
    isolated: bool = options.isolated(),
    max_file_size_mb: Optional[float] = options.max_file_size_mb(),
    deep: bool = options.deep(),
    rocm: Optional[str] = options.rocm(),
    status: Optional[str] = typer.Option(None, "--status", metavar="STATUS", help="Show only findings and kernels with this port status: open, handled, cuda-only or all (default: all shown; --fail-on counts open ones)."),
    new_since: Optional[str] = typer.Option(None, "--new-since", metavar="REF", help="Only what changed since the merge base with this commit or branch (e.g. the PR base): new findings, fixed ones, kernel verdict changes."),
    baseline: Optional[Path] = typer.Option(None, "--baseline", metavar="FILE", help="Only findings not in this baseline file (written by `porter baseline`)."),
    summary: Optional[Path] = typer.Option(None, "--summary", metavar="FILE", help="Also append a Markdown summary to this file (e.g. \"$GITHUB_STEP_SUMMARY\")."),
    select_rules: Optional[List[str]] = options.select(),
    ignore_rules: Optional[List[str]] = options.ignore(),
    min_severity: Optional[str] = options.min_severity(),
    no_color: bool = options.no_color(),
    date: Optional[str] = options.date(),
) -> None:
    """Inventory everything CUDA in a repository."""

    def body() -> int:
        import dataclasses

        from porter.model.finding import STATUS_CHOICES
        from porter.render import RenderOptions, format_for
        from porter.rulecatalog import rule_ids
        from porter.runcache import Outcome

        if status is not None and status.strip().lower() not in STATUS_CHOICES:
            raise UsageError(f"--status must be one of {', '.join(STATUS_CHOICES)}, not {status!r}")
        check_suffix(format, output, report_suffixes())
        fmt = format_for(format, output)
        day = options.report_date(date)
        cli = options.command_line(include, exclude, jobs, fail_on, target, no_cache, cache_dir, config, isolated, deep,
                                   max_file_size_mb, rocm)
        settings = settings_for(path, cli, load_pipeline=False)
        known = rule_ids(settings.extra_rules)
        sel = selection(select_rules, ignore_rules, min_severity, known)
        # A rule --select leaves out (or --ignore names) does not run, as in ruff: every format, the assessment
        # and the gate see the same findings (and the cache keys on the rules that ran).
        settings = dataclasses.replace(settings, disabled_rules=unselected(settings.disabled_rules, known, sel))
        status_shown = status.strip().lower() if status else "all"
        # --min-severity is also what SARIF uploads: asked for (`--min-severity info`), code scanning gets the rename
        # notes it leaves out by default (porter.render.sarif.uploaded)
        opts = RenderOptions(explain=False, verbose=verbose, quiet=quiet, command="scan", date=day,
                             min_severity=sel.min_severity)
        reuse = None
        if new_since is not None or baseline is not None:
            run = diff_pipeline(path, cli, rev, new_since, baseline, fmt.needs_assessment, settings)
        else:
            # An unchanged tree scanned the same way again: the report, exit code and notices the last such run gave.
            source, reuse, opts = reusable_run(path, rev, settings, fmt.name, opts, output, status_shown, repr(sel),
                                               summary is None)
            if reuse is not None and (kept := reuse.get()) is not None:
                write_output(kept.report, output, commands=fmt.name == "github", styled=fmt.name == "console")
                notes(kept.notices)
                return kept.code
            if ends_with_command():
                # the `porter` program: the results this scan decodes from the cache live to its end (porter.cache)
                from porter.cache import keep_decoded_to_exit

                keep_decoded_to_exit()
            run = pipeline(path, cli, rev, fmt.needs_assessment, show_progress=not quiet, settings=settings,
                           source=source, found=reuse.found if reuse is not None else None)
        from porter.portaware import select

        shown = narrow_severity(dataclasses.replace(run, result=select(run.result, status_shown)), sel)
        report = show(shown, fmt, output, opts)
        # Kept for the next run only when the same inputs must give the same output: no warning below is said and
        # no notice beyond the configuration's own (a budget overrun, an unusable cache).
        keep = (reuse is not None and scanned_any(run) and not run.result.unseen
                and set(run.result.stats.notices) <= set(run.settings.notices))
        if run.diff is not None:
            c = run.diff.counts()
            git_base = not c["base"].startswith("baseline:")
            # new findings whose code the base had handled (a ROCm guard removed): said, so the count is no surprise
            worse = f" ({c['status_worse']} of them handled at the base, open now)" if c["status_worse"] else ""
            err().print(f"compared {c['base'][:12] if git_base else c['base']} → {c['head'][:12]}: {c['new']} new"
                        f"{worse}, "
                        f"{c['fixed']} fixed, {c['unchanged']} unchanged{' in the files that differ' if git_base else ''}"
                        f"; {plural(len(run.diff.worse_kernels), 'kernel verdict')} worse{gating_note(run)}",
                        markup=False, highlight=False, soft_wrap=True)
        if summary is not None:
            append_summary(shown, summary)
        only_changed = run.diff is not None and not run.diff.counts()["base"].startswith("baseline:")
        if not scanned_any(run) and not only_changed:
            say("warning:", "yellow", nothing_scanned(path, run))
        elif not scanned_any(run) and run.result.skipped:
            # --new-since scans only the files that differ: none of them is no warning (the line above says "0
            # new"), and "no source files found under ." would be untrue of the repository.
            say("warning:", "yellow", f"none of the files that differ could be scanned ({len(run.result.skipped)} "
                                      "file(s) skipped; see the report)")
        from porter.budget import DEADLINE_ENV, cut_by_deadline

        late = cut_by_deadline(s.reason for s in run.result.skipped)
        if late:
            threshold = run.settings.fail_on
            err().print(f"warning: the run's deadline ({DEADLINE_ENV}) passed; {late} file(s) were not scanned and "
                        "are listed as skipped" + ("; --fail-on fails rather than pass code it did not see"
                                                   if threshold is not None else ""), soft_wrap=True, markup=False)
            if threshold is not None:
                return EXIT_FINDINGS
            keep = False
        missed = run.result.unseen
        if missed:
            changed = run.diff is not None and not run.diff.counts()["base"].startswith("baseline:")
            err().print(unseen_warning(missed, changed, run.settings.fail_on is not None),
                        soft_wrap=True, markup=False, highlight=False)
            if run.settings.fail_on is not None:
                return EXIT_FINDINGS
        if run.diff is not None:
            return gate(run.diff.new, run.settings.fail_on, kernels=run.diff.kernels)
        # The gate counts open work unless --status names what to count.
        code = gate(run.result.findings, run.settings.fail_on, status.strip().lower() if status else "open")
        if reuse is not None:
            if keep:
                reuse.put(Outcome(report, code, run.result.stats.notices))
            else:
                reuse.save_index()
        return code

    run_command(body, verbose)


def gating_note(run) -> str:
    """What of the worse kernel verdicts fails --fail-on (porter.diff.gating_kernels), said beside their count."""
    from porter.diff import gating_kernels

    failing = gating_kernels(run.diff.kernels, run.settings.fail_on)
    return f" ({len(failing)} of them at fix or worse: --fail-on counts them)" if failing else ""


def append_summary(run, summary: Path) -> None:
    """Append the Markdown summary (the PR comment body) to a file, as $GITHUB_STEP_SUMMARY expects."""
    from porter import contain
    from porter.render.pr_comment import render

    try:
        contain.append_text(summary, render(run.result, run.diff) + "\n")
    except contain.Refused as e:
        raise UsageError(f"--summary {e}") from None
