"""Every command-line option, declared once: its names, value name and help. A command takes the ones it needs
(`verbose: bool = options.verbose()`); where a command means something narrower it passes its own help text.

Also the one builder of porter.settings.CommandLine from them.
"""
from __future__ import annotations


import typer

from porter.cli.base import turn_colour_off
from porter.errors import UsageError

TARGETS_HELP = "AMD target id(s), gfx name, 'all' or a profile .yaml (default: mi355x)."


def path(help: str = "A directory, git work tree or single file."):
    return typer.Argument(..., metavar="PATH", help=help)


def format_(help: str, default: str | None = None):
    return typer.Option(default, "--format", "-f", metavar="FORMAT", help=help)


def output(help: str = "Write the result here (default: stdout).", required: bool = False):
    return typer.Option(... if required else None, "--output", "-o", metavar="FILE", help=help)


def include():
    return typer.Option(None, "--include", metavar="GLOB", help="Only paths matching this glob (repeatable).")


def exclude():
    return typer.Option(None, "--exclude", metavar="GLOB", help="Skip paths matching this glob (repeatable).")


def jobs():
    return typer.Option(None, "--jobs", "-j", metavar="N", help="Most worker processes (default: all cores; small trees start fewer).")


def fail_on(default: str | None = None, also: str = ""):
    from porter.model import Severity

    return typer.Option(default, "--fail-on", metavar="SEVERITY",
                        help=f"Exit 1 when a finding has this severity or worse: {', '.join(str(s) for s in Severity)}."
                        + (f" {also}" if also else ""))


# What scan's --fail-on also counts on a change (porter.diff.KERNEL_SEVERITY, porter.cli.gate).
FAIL_ON_KERNELS = ("With --new-since or --baseline, a kernel verdict the change makes worse on an open kernel counts "
                   "too: fix as medium, rewrite as high.")


def targets(help: str = TARGETS_HELP):
    return typer.Option(None, "--target", "-t", metavar="TARGET", help=help)


def rev(help: str = "Scan the tree of this git commit (from git objects; the work tree is not touched)."):
    return typer.Option(None, "--rev", metavar="COMMIT", help=help)


def quiet(help: str):
    return typer.Option(False, "--quiet", "-q", metavar="", help=help)


def verbose(help: str = "Tracebacks on internal errors."):
    return typer.Option(False, "--verbose", "-v", metavar="", help=help)


def no_cache():
    return typer.Option(False, "--no-cache", metavar="", help="Do not read or write the result cache.")


def cache_dir():
    return typer.Option(None, "--cache-dir", metavar="DIR",
                        help="Cache location (default: $PORTER_CACHE_DIR or ~/.cache/porter).")


def config():
    return typer.Option(None, "--config", metavar="FILE",
                        help="Use this porter.toml / pyproject.toml instead of the closest one.")


def isolated():
    return typer.Option(False, "--isolated", metavar="",
                        help="Ignore the repository's own configuration (for CI on untrusted code).")


def max_file_size_mb():
    return typer.Option(None, "--max-file-size-mb", metavar="MB", help="Skip files larger than this (default 8).")


def rocm():
    from porter.rocm import default_release, releases

    return typer.Option(None, "--rocm", metavar="RELEASE",
                        help=f"Judge HIP as ROCm {'|'.join(releases())} ships it (default: {default_release()}).")


def deep():
    return typer.Option(False, "--deep", metavar="", help="Refine kernel facts with libclang (optional extra 'deep').")


def no_color():
    return typer.Option(False, "--no-color", metavar="", callback=turn_colour_off, is_eager=True, expose_value=False,
                        help="No colour on a terminal (as NO_COLOR=1 does).")


def select():
    return typer.Option(None, "--select", metavar="RULE",
                        help="Only these rules: an id (KRN001) or a prefix (KRN); repeatable or comma-separated.")


def ignore():
    return typer.Option(None, "--ignore", metavar="RULE",
                        help="Leave out these rules: an id or a prefix; repeatable or comma-separated.")


def min_severity():
    from porter.model import Severity

    return typer.Option(None, "--min-severity", metavar="SEVERITY",
                        help=f"Show only findings of this severity or worse: {', '.join(str(s) for s in Severity)} "
                             "(what is shown, not what --fail-on counts).")


def date():
    return typer.Option(None, "--date", metavar="DATE",
                        help="Put this date in the report's title line: YYYY-MM-DD, or 'today' (UTC). Default: no date, "
                             "so one tree always renders the same bytes.")


def report_date(value: str | None) -> str | None:
    """--date's value as the ISO date the titles show (None: not asked)."""
    if value is None:
        return None
    import datetime as dt

    text = value.strip()
    if text.lower() == "today":
        return dt.datetime.now(dt.timezone.utc).date().isoformat()
    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        raise UsageError(f"--date {value[:40]!r}: expected YYYY-MM-DD or 'today'") from None


def command_line(include=None, exclude=None, jobs=None, fail_on=None, target=None, no_cache=False, cache_dir=None,
                 config=None, isolated=False, deep=False, max_file_size_mb=None, rocm=None):
    """porter.settings.CommandLine from the options a command took (None: not given)."""
    from porter.settings import CommandLine

    # Written as `not low <= x <= high` so that nan fails too (every comparison with it is false); inf and a
    # denormal like 1e-320 (0 bytes: every file skipped) are as meaningless. 4096 is porter.toml's own bound.
    if max_file_size_mb is not None and not 1e-6 <= max_file_size_mb <= 4096:
        raise UsageError(f"--max-file-size-mb must be a number from 0.000001 to 4096 (MiB), not {max_file_size_mb!r}")
    if rocm is not None:
        from porter.rocm import check_release

        try:
            check_release(rocm)
        except ValueError as e:
            raise UsageError(f"--rocm: {e}") from None
    from porter.budget import untrusted_run

    untrusted_run(isolated)  # untrusted code: the run ends by a deadline even when the job names none
    return CommandLine(include=tuple(include) if include else None, exclude=tuple(exclude) if exclude else None,
                       jobs=jobs, fail_on=fail_on, targets=tuple(target) if target else None, no_cache=no_cache,
                       cache_dir=cache_dir, config=config, isolated=isolated, deep=deep,
                       max_file_size_mb=max_file_size_mb, rocm=rocm)
