"""From options to a run: the settings for a path (its configuration under the command line), then the pipeline."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from porter.cli.base import uncollected_imports
from porter.cli.output import scan_progress
from porter.errors import UsageError


def settings_for(path: Path, cli):
    """The settings for `path`: its configuration under the command line's options."""
    with uncollected_imports("porter.pipeline"):
        import porter.pipeline  # noqa: F401 - loaded here, uncollected, for the run that follows
        from porter.settings import resolve_settings

    return resolve_settings(path, cli)


def pipeline(path: Path, cli, rev: Optional[str], assess: bool, show_progress: bool, settings=None):
    """Settings for `path` from its configuration and the options (unless given), then the one pipeline."""
    settings = settings if settings is not None else settings_for(path, cli)
    from porter.pipeline import run
    from porter.source.read import source_for

    source = source_for(path, rev)
    prog, callback = scan_progress(show_progress)
    if prog:
        with prog:
            return run(source, settings, assess=assess, progress=callback)
    return run(source, settings, assess=assess, progress=callback)


def diff_pipeline(path: Path, cli, rev, new_since, baseline, assess: bool, settings=None):
    """Settings for `path` (unless given), then the pipeline's diff entry (porter.pipeline.run_diff)."""
    if new_since is not None and baseline is not None:
        raise UsageError("--new-since and --baseline cannot be combined: choose the git base or the baseline file")
    settings = settings if settings is not None else settings_for(path, cli)
    from porter.pipeline import run_diff

    return run_diff(path, settings, new_since=new_since, baseline=baseline, rev=rev, assess=assess,
                    isolated=cli.isolated)


def scanned_any(run) -> bool:
    return any(f.skipped is None for f in run.result.files)


def nothing_scanned(path: Path, run) -> str:
    skipped = len(run.result.skipped)
    return f"no source files found under {path}" + (f" ({skipped} file(s) skipped; see the report)" if skipped else "")
