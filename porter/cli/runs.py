"""From options to a run: the settings for a path (its configuration under the command line), then the pipeline."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from porter.cli.base import uncollected_imports
from porter.cli.output import scan_progress
from porter.errors import UsageError


def settings_for(path: Path, cli, load_pipeline: bool = True):
    """The settings for `path`: its configuration under the command line's options, checked. With load_pipeline
    the pipeline's modules are loaded here (uncollected) for the run that follows; `scan` loads them only when it
    runs the pipeline (a run porter.runcache answers needs none of them)."""
    if load_pipeline:
        _load_pipeline()
    from porter.settings import resolve_settings

    settings = resolve_settings(path, cli)
    check_configuration(settings, cli)
    return settings


def check_configuration(settings, cli) -> None:
    """What the configuration names exists: every `disable` id is a rule (porter's, or one of the configuration's
    own rule files; a misspelt id would turn nothing off, silently), and configured `targets` resolve. An error
    names the configuration key, not a command-line flag the user never gave. (Here rather than in porter.settings,
    which the rule and target loaders' own imports reach.)"""
    from porter.settings import ConfigError

    where = str(settings.config_path) if settings.config_path is not None else "configuration"
    if settings.disabled_rules:
        import difflib

        from porter.rulecatalog import rule_ids

        known = rule_ids(settings.extra_rules)
        for rid in settings.disabled_rules:
            if rid not in known:
                close = difflib.get_close_matches(rid.upper(), sorted(known), n=1, cutoff=0.8)
                hint = f"did you mean {close[0]}? " if close else ""
                raise ConfigError(f"{where}: disable: no rule {rid[:64]!r} ({hint}`porter rules list` shows them)")
    if settings.rocm and not getattr(cli, "rocm", None):
        from porter.rocm import check_release

        try:
            check_release(settings.rocm)
        except ValueError as e:
            raise ConfigError(f"{where}: rocm: {e}") from None
    if settings.targets and not cli.targets:
        from porter.targets import TargetError, resolve_targets

        try:
            resolve_targets(settings.targets)
        except TargetError as e:
            raise ConfigError(f"{where}: targets: {e.problem}") from None


def _load_pipeline() -> None:
    """The pipeline's modules, loaded uncollected (porter.cli.base.uncollected_imports) for the run that follows."""
    import importlib

    with uncollected_imports("porter.pipeline"):
        importlib.import_module("porter.pipeline")


def pipeline(path: Path, cli, rev: Optional[str], assess: bool, show_progress: bool, settings=None, source=None,
             found=None, untrusted: bool = False):
    """Settings for `path` from its configuration and the options (unless given), then the one pipeline (on
    `source` and its discovery `found` when the caller made them: porter.cli.scan's run cache); `untrusted`:
    porter.pipeline.run's (no file is taken for a toolkit copy on its own word)."""
    settings = settings if settings is not None else settings_for(path, cli)
    _load_pipeline()
    from porter.pipeline import run
    from porter.source.read import source_for

    source = source if source is not None else source_for(path, rev)
    prog, callback = scan_progress(show_progress)
    if prog:
        with prog:
            return run(source, settings, assess=assess, progress=callback, found=found, untrusted=untrusted)
    return run(source, settings, assess=assess, progress=callback, found=found, untrusted=untrusted)


def reusable_run(path: Path, rev: Optional[str], settings, format: str, opts, output, status: str, selection: str,
                 wanted: bool = True):
    """(the source, its porter.runcache.RunCache or None when such a run is not kept, the render options): the
    options as the report will be rendered with them (a console's width and colour; for markdown and html what the
    report is about, read from git once here), since the kept report is named by them."""
    import dataclasses

    from porter.runcache import RunCache, Request
    from porter.source.read import GitTree, source_for

    source = source_for(path, rev)
    if not wanted:
        return source, None, opts
    about = None
    if format == "console":
        from porter.cli.output import colour_on_stdout, stdout_width, to_stdout

        opts = dataclasses.replace(opts, terminal=colour_on_stdout(output),
                                   width=stdout_width() if to_stdout(output) else 120)
    elif format in ("markdown", "html") and opts.about is None:
        from porter.render.about import about as about_of

        opts = dataclasses.replace(opts, about=about_of(source.label, date=opts.date))
        about = opts.about.to_dict()
    request = Request(format, (opts.explain, opts.verbose, opts.quiet, opts.command, opts.date, opts.min_severity,
                               opts.width, about), status, selection, terminal=opts.terminal)
    try:
        return source, RunCache.open(source, settings, request), opts
    finally:
        # The run cache reads the tree's content ids through git; a kept report needs no run, and a run reads
        # through a reader of its own (pipeline.run ends it): this one ends here.
        if isinstance(source, GitTree):
            source.close()


def diff_pipeline(path: Path, cli, rev, new_since, baseline, assess: bool, settings=None):
    """Settings for `path` (unless given), then the pipeline's diff entry (porter.pipeline.run_diff)."""
    if new_since is not None and baseline is not None:
        raise UsageError("--new-since and --baseline cannot be combined: choose the git base or the baseline file")
    settings = settings if settings is not None else settings_for(path, cli)
    _load_pipeline()
    from porter.pipeline import run_diff

    return run_diff(path, settings, new_since=new_since, baseline=baseline, rev=rev, assess=assess,
                    isolated=cli.isolated)


def scanned_any(run) -> bool:
    return any(f.skipped is None for f in run.result.files)


def nothing_scanned(path: Path, run) -> str:
    from porter.source import git

    if git.is_bare(Path(path)):
        # A mirror or a fleet's clone cache: its files are in commits, not on disk.
        return (f"no source files found under {path}: it is a bare git repository (no work tree); scan a commit of "
                "it with --rev HEAD, or its history with porter history")
    skipped = len(run.result.skipped)
    return f"no source files found under {path}" + (f" ({skipped} file(s) skipped; see the report)" if skipped else "")
