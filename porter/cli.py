"""porter's command line: a thin typer layer that turns options into library calls and errors into exit codes.

Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage, input or configuration error, 3 internal error.
This is the only module that prints or exits.
"""
from __future__ import annotations

import gc

# Loading porter's modules allocates ~100,000 objects that live as long as the process (functions, classes, code),
# and the cycle collector would traverse them at every collection of their generation: importing this module ran 27
# collections and the scan path's modules one more of 50,000 objects that alone cost 12-20 ms on cuda-samples,
# all finding nothing to free. So modules load with the collector off and are then exempt from it (gc.freeze; also
# what keeps forked workers' copies of them shared): see _uncollected_imports.
_COLLECTING = gc.isenabled()
gc.disable()

import atexit  # noqa: E402 - the imports below load with the collector off (above)
import contextlib  # noqa: E402
import copy  # noqa: E402
import functools  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Callable, List, Optional  # noqa: E402

import typer  # noqa: E402

from porter import __version__  # noqa: E402
from porter.errors import PorterError, UsageError  # noqa: E402
from porter.render.safe import literal  # noqa: E402

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

app = typer.Typer(
    name="porter",
    help="CUDA-to-HIP porting assistant: find what a move to AMD Instinct GPUs takes.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain click help: option values by name (FORMAT, FILE), no <bool>/<str>/{path}
)
class PlainHelp(typer.core.TyperCommand):
    """Help that names values as a person reads them: `PATH`, `--format FORMAT`, flags bare (no <bool>, <str>,
    {path}), and the choices in each option's help text."""

    def collect_usage_pieces(self, ctx):
        pieces = [self.options_metavar] if self.options_metavar else []
        return pieces + [_shown_name(p) for p in self.get_params(ctx) if p.param_type_name == "argument"]

    def format_options(self, ctx, formatter) -> None:
        args, opts = [], []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                args.append((_shown_name(param), (param.help or "") + ("  [required]" if param.required else "")))
            elif (rec := param.get_help_record(ctx)) is not None:
                opts.append(rec)
        for title, rows in (("Arguments", args), ("Options", opts)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def _shown_name(param) -> str:
    """An argument as help names it: its metavar, else its name."""
    return param.metavar if param.metavar is not None else param.name


rules_app = typer.Typer(help="The rule catalogue.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(rules_app, name="rules")
from porter.fleet.cli import app as fleet_app  # noqa: E402
app.add_typer(fleet_app, name="fleet")


@functools.cache
def _err():
    """The stderr console, made on first use: a scan that writes its report to a file and has nothing to say
    never loads rich (importing it was a twentieth of a one-file scan)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def _stderr_may_be_terminal() -> bool:
    """False only when rich would also find stderr no terminal: not a tty, and neither FORCE_COLOR nor
    TTY_COMPATIBLE=1 makes it one. Asked before rich is loaded just to draw no progress bar."""
    return sys.stderr.isatty() or bool(os.environ.get("FORCE_COLOR")) or os.environ.get("TTY_COMPATIBLE") == "1"


def _say_error(label: str, message: str) -> None:
    """An error line on stderr; the message is literal text (it may quote file names from the repository)."""
    from rich.text import Text

    # One line per message: greppable.
    _err().print(Text.assemble((label, "red"), " ", literal(message)), soft_wrap=True)


def _traceback() -> str:
    """The exception being handled, formatted (traceback loads only then: most runs never need it)."""
    import traceback

    return traceback.format_exc()


def _run(fn: Callable[[], int], verbose: bool = False) -> None:
    """Call a command body and map every outcome to porter's exit codes (PorterError carries its own)."""
    try:
        code = fn()
    except PorterError as e:
        if verbose:
            _err().print(literal(_traceback()))
        _say_error("error:" if e.exit_code == EXIT_USAGE else "internal error:", str(e))
        raise typer.Exit(e.exit_code)
    except KeyboardInterrupt:
        _err().print("interrupted")
        raise typer.Exit(130)
    except Terminated as e:
        _err().print(f"terminated by {e.name}; files already rewritten in place were restored", markup=False)
        raise typer.Exit(128 + e.signum)
    except typer.Exit:
        raise
    except Exception as e:  # a crash must never look like "findings"
        if verbose:
            _err().print(literal(_traceback()))
        _say_error("internal error:", f"{type(e).__name__}: {e} (run with -v for the traceback)")
        raise typer.Exit(EXIT_INTERNAL)
    raise typer.Exit(code)


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived while files were being rewritten: unwinds like Ctrl-C so the writer restores them."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum
        self.name = signal.Signals(signum).name


@contextlib.contextmanager
def _unwind_on_signals():
    """For the duration of an in-place write, SIGTERM and SIGHUP raise Terminated (SIGINT stays KeyboardInterrupt).
    Only the first signal raises: a second one must not cut short the restore the first one started."""
    fired: list[int] = []

    def handler(signum, frame):
        if fired:
            return
        fired.append(signum)
        raise KeyboardInterrupt if signum == signal.SIGINT else Terminated(signum)

    caught = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
    previous = {s: signal.signal(s, handler) for s in caught}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


# A scan allocates millions of short-lived objects (tree nodes, hits, findings) and frees a file's objects without
# the cycle collector (tests/test_tokens.py checks that), so the default 700-allocation first generation ran ~190
# collections on cuda-samples that found almost nothing to free (0.049 CPU-s, timed with gc.callbacks); at 50,000
# they are ~30 (0.031), and on CuTe 0.17 -> 0.10 CPU-s, peak memory unchanged. Worker processes fork from this one
# and keep the setting.
GC_THRESHOLDS = (50_000, 10, 10)

# What a command leaves to the end of a process that entry() ends with os._exit (see _leave_to_exit).
_LEFT_TO_EXIT: list = []
_ENDS_WITHOUT_FREEING = False


def _leave_to_exit(obj) -> None:
    """Keep `obj` (what a command rendered) alive to the end of the process when entry() ends it with os._exit:
    freeing a scan's result object by object when the command returns was ~10 ms of a cuda-samples scan, for
    nothing anyone sees. In any other process (tests, the library) it is freed as usual."""
    if _ENDS_WITHOUT_FREEING:
        _LEFT_TO_EXIT.append(obj)


def entry() -> None:
    """The `porter` command and `python -m porter`: the command line, then a prompt end of the process.

    When a command returns, its output is flushed and its files are closed; what the interpreter would still do is
    free every object of the run one by one and tear its modules down, a fifth of a one-file scan's CPU time (~0.1
    CPU-s after scanning cuda-samples) for nothing anyone sees. Exit handlers still run. With another thread alive,
    an exit status that is not a number, or output that cannot be flushed (a closed pipe), the interpreter ends as
    it always did, so those end exactly as before."""
    global _ENDS_WITHOUT_FREEING
    gc.set_threshold(*GC_THRESHOLDS)
    _ENDS_WITHOUT_FREEING = True
    try:
        _app_for(sys.argv)(prog_name="porter")
        code = 0
    except SystemExit as e:  # click's standalone mode ends every command this way
        code = 0 if e.code is None else e.code
    if not isinstance(code, int) or threading.active_count() > 1:
        raise SystemExit(code)
    atexit._run_exitfuncs()  # what interpreter shutdown would run first (and then forget them)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        raise SystemExit(code) from None
    os._exit(code)


def _app_for(argv: list[str]) -> typer.Typer:
    """The app that runs `argv`: for `porter <command> ...` a copy of `app` holding only that command (or group),
    since typer builds the click parameters of every command before running one (~4 ms of every run, a fortieth of
    a one-file scan); `app` itself for anything else (`porter`, `porter --help`, a misspelt command)."""
    name = argv[1] if len(argv) > 1 else None
    commands = [c for c in app.registered_commands
                if (c.name or typer.main.get_command_name(c.callback.__name__)) == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if len(commands) + len(groups) != 1:
        return app
    one = copy.copy(app)
    one.registered_commands, one.registered_groups = commands, groups
    return one


def _version(value: bool) -> None:
    if value:
        print(f"porter {__version__}")
        raise typer.Exit(0)


@app.callback()
def main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    """porter: scan, translate and assess CUDA code for AMD Instinct GPUs."""


def _write(data: bytes, output: Optional[Path]) -> None:
    if output is None or str(output) == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    from porter import contain

    top = contain.checkout_of(output)
    try:
        # Checked before creating anything: a committed `reports -> /elsewhere` symlink must not receive a directory.
        if top is not None and not contain.inside(output.parent, top):
            raise UsageError(f"{output}: its directory leads outside {top}; not written")
        output.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"{output}: cannot write: {e.strerror or e}") from None
    # Written beside and renamed over the name: a symlink a PR committed at `-o porter.sarif` is replaced, not
    # written through.
    contain.write_bytes(output, data, root=top)


def _progress(enabled: bool):
    """A rich progress bar on stderr when it is a terminal; a no-op otherwise."""
    if not enabled or not _stderr_may_be_terminal() or not _err().is_terminal:
        return None, None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    prog = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=_err(), transient=True)
    task = prog.add_task("scanning", total=None)
    return prog, lambda done, total: prog.update(task, completed=done, total=total)


@contextlib.contextmanager
def _uncollected_imports(module: str):
    """Load `module` (and what it imports) with the cycle collector off, then exempt the loaded objects from it
    (gc.freeze), as this module's own imports are (see the top). Only the first time: a process that runs several
    commands (tests) must not freeze the garbage of earlier ones."""
    if module in sys.modules:
        yield
        return
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if collecting:
            gc.enable()


def _pipeline(path: Path, cli, rev: Optional[str], assess: bool, show_progress: bool):
    """Settings for `path` from its configuration and the options, then the one pipeline."""
    with _uncollected_imports("porter.pipeline"):
        from porter.pipeline import run
        from porter.settings import resolve_settings
        from porter.source.read import source_for

    settings = resolve_settings(path, cli)
    source = source_for(path, rev)
    prog, callback = _progress(show_progress)
    if prog:
        with prog:
            return run(source, settings, assess=assess, progress=callback)
    return run(source, settings, assess=assess)


def _show(run, fmt, output: Optional[Path], opts) -> None:
    """Render through the registry: to the terminal (colour, its width) or plain 120-column text into a file."""
    import dataclasses

    to_stdout = output is None or str(output) == "-"
    # stdout: the terminal's width (or $COLUMNS when piped), colour only on a terminal; a file: plain 120 columns.
    opts = dataclasses.replace(opts, terminal=to_stdout and sys.stdout.isatty(), width=_stdout_width() if to_stdout else 120)
    from porter.cache import collector_paused

    # A report is tens of thousands of acyclic dicts and lists built beside the whole scan they describe: the
    # collector would walk both again and again (half of rendering cuda-samples as JSON).
    with collector_paused():
        data = fmt.render(run, opts)
    _write(data, output)
    for notice in run.result.stats.get("notices", ()):
        from rich.text import Text

        _err().print(Text.assemble(("note:", "yellow"), " ", literal(notice)), soft_wrap=True)
    _leave_to_exit(run)


def _stdout_width() -> int:
    """The width rich gives stdout: the terminal's, or $COLUMNS when piped."""
    from rich.console import Console

    return Console().width


def _format_help() -> str:
    """The --format values from the renderer registry, so a new format is listed the moment it is registered."""
    from porter.render import FORMATS

    names = [f.name + (f" ({', '.join(f.aliases)})" if f.aliases else "") for f in FORMATS.values()]
    return f"One of: {', '.join(names)}. Default: from -o's suffix, else console."


def _fail_on_help() -> str:
    from porter.model import Severity

    return f"Exit 1 when a finding has this severity or worse: {', '.join(str(s) for s in Severity)}."


_FORMAT_HELP = _format_help()


@app.command(cls=PlainHelp)
def scan(
    path: Path = typer.Argument(..., metavar="PATH", help="A directory, git work tree or single file."),
    format: Optional[str] = typer.Option(None, "--format", "-f", metavar="FORMAT", help=_FORMAT_HELP),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the result here (default: stdout)."),
    include: Optional[List[str]] = typer.Option(None, "--include", metavar="GLOB", help="Only paths matching this glob (repeatable)."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", metavar="GLOB", help="Skip paths matching this glob (repeatable)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", metavar="N", help="Worker processes (default: all cores)."),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", metavar="SEVERITY", help=_fail_on_help()),
    target: Optional[List[str]] = typer.Option(None, "--target", "-t", metavar="TARGET", help="AMD target id(s), gfx name, 'all' or a profile .yaml (default: mi355x)."),
    rev: Optional[str] = typer.Option(None, "--rev", metavar="COMMIT", help="Scan the tree of this git commit (from git objects; the work tree is not touched)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", metavar="", help="Only the summary line."),
    verbose: bool = typer.Option(False, "--verbose", "-v", metavar="", help="Every finding; tracebacks on internal errors."),
    no_cache: bool = typer.Option(False, "--no-cache", metavar="", help="Do not read or write the result cache."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", metavar="DIR", help="Cache location (default: $PORTER_CACHE_DIR or ~/.cache/porter)."),
    config: Optional[Path] = typer.Option(None, "--config", metavar="FILE", help="Use this porter.toml / pyproject.toml instead of the closest one."),
    isolated: bool = typer.Option(False, "--isolated", metavar="", help="Ignore the repository's own configuration (for CI on untrusted code)."),
    max_file_size_mb: Optional[float] = typer.Option(None, "--max-file-size-mb", metavar="MB", help="Skip files larger than this (default 8)."),
    deep: bool = typer.Option(False, "--deep", metavar="", help="Refine kernel facts with libclang (optional extra 'deep')."),
    status: Optional[str] = typer.Option(None, "--status", metavar="STATUS", help="Show only findings and kernels with this port status: open, handled, cuda-only or all (default: all shown; --fail-on counts open ones)."),
    new_since: Optional[str] = typer.Option(None, "--new-since", metavar="REF", help="Only what changed since the merge base with this commit or branch (e.g. the PR base): new findings, fixed ones, kernel verdict changes."),
    baseline: Optional[Path] = typer.Option(None, "--baseline", metavar="FILE", help="Only findings not in this baseline file (written by `porter baseline`)."),
    summary: Optional[Path] = typer.Option(None, "--summary", metavar="FILE", help="Also append a Markdown summary to this file (e.g. \"$GITHUB_STEP_SUMMARY\")."),
) -> None:
    """Inventory everything CUDA in a repository."""

    def body() -> int:
        from porter.render import RenderOptions, format_for

        import dataclasses

        from porter.portaware import STATUS_CHOICES, select

        if status is not None and status.strip().lower() not in STATUS_CHOICES:
            raise UsageError(f"--status must be one of {', '.join(STATUS_CHOICES)}, not {status!r}")
        fmt = format_for(format, output)
        cli = _command_line(include, exclude, jobs, fail_on, target, no_cache, cache_dir, config, isolated, deep,
                            max_file_size_mb)
        if new_since is not None or baseline is not None:
            run = _diff_pipeline(path, cli, rev, new_since, baseline, fmt.needs_assessment)
        else:
            run = _pipeline(path, cli, rev, fmt.needs_assessment, show_progress=not quiet)
        shown = status.strip().lower() if status else "all"
        _show(dataclasses.replace(run, result=select(run.result, shown)), fmt, output,
              RenderOptions(explain=False, verbose=verbose, quiet=quiet, command="scan"))
        if run.diff is not None:
            c = run.diff.counts()
            git_base = not c["base"].startswith("baseline:")
            _err().print(f"compared {c['base'][:12] if git_base else c['base']} → {c['head'][:12]}: {c['new']} new, "
                      f"{c['fixed']} fixed, {c['unchanged']} unchanged{' in the files that differ' if git_base else ''}"
                      f"; {len(run.diff.worse_kernels)} kernel verdicts worse", markup=False, highlight=False,
                      soft_wrap=True)
        if summary is not None:
            _append_summary(run, summary)
        if not _scanned_any(run):
            from rich.text import Text

            _err().print(Text.assemble(("warning:", "yellow"), " ", literal(_nothing_scanned(path, run))),
                         soft_wrap=True)
        threshold = run.settings.fail_on
        if run.diff is not None:
            from porter.diff import gating

            return EXIT_FINDINGS if gating(run.diff.new, threshold) else EXIT_OK
        # The gate counts open work unless --status names what to count: handled and cuda-only code never fails CI.
        gated = select(run.result, status.strip().lower() if status else "open").findings
        if threshold is not None and any(f.severity >= threshold for f in gated):
            return EXIT_FINDINGS
        return EXIT_OK

    _run(body, verbose)


def _diff_pipeline(path: Path, cli, rev, new_since, baseline, assess: bool):
    """Settings for `path`, then the pipeline's diff entry (porter.pipeline.run_diff)."""
    with _uncollected_imports("porter.pipeline"):
        from porter.pipeline import run_diff
        from porter.settings import resolve_settings

    if new_since is not None and baseline is not None:
        raise UsageError("--new-since and --baseline cannot be combined: choose the git base or the baseline file")
    settings = resolve_settings(path, cli)
    return run_diff(path, settings, new_since=new_since, baseline=baseline, rev=rev, assess=assess,
                    isolated=cli.isolated)


def _append_summary(run, summary: Path) -> None:
    """Append the Markdown summary (the PR comment body) to a file, as $GITHUB_STEP_SUMMARY expects."""
    from porter.render.pr_comment import render

    from porter import contain

    try:
        contain.append_text(summary, render(run.result, run.diff) + "\n")
    except contain.Refused as e:
        raise UsageError(f"--summary {e}") from None


def _scanned_any(run) -> bool:
    return any(f.skipped is None for f in run.result.files)


def _nothing_scanned(path: Path, run) -> str:
    skipped = len(run.result.skipped)
    return f"no source files found under {path}" + (f" ({skipped} file(s) skipped; see the report)" if skipped else "")


def _command_line(include, exclude, jobs, fail_on, target, no_cache, cache_dir, config, isolated, deep=False,
                  max_file_size_mb=None):
    from porter.settings import CommandLine

    # Written as `not low <= x <= high` so that nan fails too (every comparison with it is false); inf and a
    # denormal like 1e-320 (0 bytes: every file skipped) are as meaningless. 4096 is porter.toml's own bound.
    if max_file_size_mb is not None and not 1e-6 <= max_file_size_mb <= 4096:
        raise UsageError(f"--max-file-size-mb must be a number from 0.000001 to 4096 (MiB), not {max_file_size_mb!r}")
    return CommandLine(include=tuple(include) if include else None, exclude=tuple(exclude) if exclude else None,
                       jobs=jobs, fail_on=fail_on, targets=tuple(target) if target else None, no_cache=no_cache,
                       cache_dir=cache_dir, config=config, isolated=isolated, deep=deep,
                       max_file_size_mb=max_file_size_mb)


@app.command("assess", cls=PlainHelp)
def assess_cmd(
    path: Path = typer.Argument(..., metavar="PATH", help="A directory, git work tree or single file."),
    target: Optional[List[str]] = typer.Option(None, "--target", "-t", metavar="TARGET", help="AMD target id(s), gfx name, 'all' or a profile .yaml (default: mi355x)."),
    format: Optional[str] = typer.Option(None, "--format", "-f", metavar="FORMAT", help=_FORMAT_HELP),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the report here (default: stdout)."),
    explain: bool = typer.Option(False, "--explain", metavar="", help="Show how every figure adds up, down to the findings."),
    include: Optional[List[str]] = typer.Option(None, "--include", metavar="GLOB", help="Only paths matching this glob (repeatable)."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", metavar="GLOB", help="Skip paths matching this glob (repeatable)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", metavar="N", help="Worker processes (default: all cores)."),
    rev: Optional[str] = typer.Option(None, "--rev", metavar="COMMIT", help="Assess the tree of this git commit (from git objects)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", metavar="", help="Only the headline."),
    verbose: bool = typer.Option(False, "--verbose", "-v", metavar="", help="Tracebacks on internal errors."),
    no_cache: bool = typer.Option(False, "--no-cache", metavar="", help="Do not read or write the result cache."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", metavar="DIR", help="Cache location (default: $PORTER_CACHE_DIR or ~/.cache/porter)."),
    config: Optional[Path] = typer.Option(None, "--config", metavar="FILE", help="Use this porter.toml / pyproject.toml instead of the closest one."),
    isolated: bool = typer.Option(False, "--isolated", metavar="", help="Ignore the repository's own configuration (for CI on untrusted code)."),
    deep: bool = typer.Option(False, "--deep", metavar="", help="Refine kernel facts with libclang (optional extra 'deep')."),
) -> None:
    """Assess what it takes to run a repository on AMD Instinct GPUs: verdict, effort, blockers, breakdowns."""

    def body() -> int:
        from porter.render import RenderOptions, format_for

        fmt = format_for(format, output)
        cli = _command_line(include, exclude, jobs, None, target, no_cache, cache_dir, config, isolated, deep)
        run = _pipeline(path, cli, rev, assess=True, show_progress=not quiet and fmt.name == "console")
        if not _scanned_any(run):
            # "ready, nothing to port" about a wrong or empty directory would be a confident wrong answer
            raise UsageError(_nothing_scanned(path, run))
        _show(run, fmt, output, RenderOptions(explain=explain, verbose=verbose, quiet=quiet, command="assess"))
        return EXIT_OK

    _run(body, verbose)


@app.command("targets", cls=PlainHelp)
def targets_cmd(
    format: str = typer.Option("console", "--format", "-f", metavar="FORMAT", help="console or json."),
    profile: Optional[List[Path]] = typer.Option(None, "--profile", metavar="FILE", help="Also load this user profile file (repeatable)."),
) -> None:
    """List the AMD GPU target profiles (ids for --target)."""

    def body() -> int:
        from porter.targets import load_targets

        loaded = load_targets(extra=list(profile or []))
        if format == "json":
            from porter.render.json import render

            sys.stdout.write(render({"targets": [t.to_dict() for t in loaded.values()]}))
            return EXIT_OK
        if format != "console":
            raise UsageError(f"--format must be console or json, not {format!r}")
        from rich.console import Console
        from rich.table import Table

        t = Table(title=f"{len(loaded)} targets", title_justify="left")
        for col in ("id", "name", "gfx", "arch", "wave", "LDS KiB", "CUs", "matrix", "HBM GiB"):
            t.add_column(col, no_wrap=(col == "id"))  # ids are what --target takes: never truncated
        for tg in loaded.values():
            t.add_row(literal(tg.id), literal(tg.name), literal(tg.gfx), literal(tg.architecture), str(tg.wavefront_size), f"{tg.lds_kib:g}",
                      str(tg.compute_units), tg.matrix_unit, f"{tg.hbm_gib:g}")
        Console(highlight=False).print(t)
        return EXIT_OK

    _run(body)


@rules_app.command("list", cls=PlainHelp)
def rules_list(
    format: str = typer.Option("console", "--format", "-f", metavar="FORMAT", help="console or json."),
    category: Optional[str] = typer.Option(None, "--category", metavar="CATEGORY", help="Only this category."),
) -> None:
    """List every rule with its severity, category and fixture coverage."""

    def body() -> int:
        from porter.rules import load_rules
        from porter.rulecatalog import FIXTURES_DIR, catalogue

        if format not in ("console", "json"):
            raise UsageError(f"--format must be console or json, not {format!r}")
        rs = load_rules()
        categories = sorted({r.category for r in rs.rules})
        if category is not None and category not in categories:
            raise UsageError(f"no category {category!r}; categories: {', '.join(categories)}")
        rows = catalogue(rs, category)
        if format == "json":
            from porter.render.json import render

            sys.stdout.write(render(rows))
            return EXIT_OK
        from rich.console import Console
        from rich.table import Table

        out = Console(highlight=False)
        t = Table(title=f"{len(rows['rules'])} rules", title_justify="left")
        for col in ("id", "category", "severity", "confidence", "title", "fixture"):
            t.add_column(col)
        for r in rows["rules"]:
            t.add_row(literal(r["id"]), r["category"], r["severity"], r["confidence"], literal(r["title"]),
                      "yes" if r["fixture"] else "NO" if FIXTURES_DIR is not None else "n/a")
        out.print(t)
        c = Table(title="By category", title_justify="left")
        for col in ("category", "rules", "with fixture"):
            c.add_column(col)
        for name, v in rows["categories"].items():
            c.add_row(name, str(v["rules"]), f"{v['with_fixture']}/{v['rules']}")
        out.print(c)
        return EXIT_OK

    _run(body)


@rules_app.command("explain", cls=PlainHelp)
def rules_explain(rule_id: str = typer.Argument(..., metavar="RULE", help="A rule id, e.g. DEV002.")) -> None:
    """Show one rule's full documentation."""

    def body() -> int:
        from rich.console import Console

        from porter.rules import load_rules
        from porter.rulecatalog import explain

        rule = load_rules().get(rule_id.upper())
        if rule is None:
            raise UsageError(f"no rule {rule_id!r}; `porter rules list` shows them all")
        Console(highlight=False).print(explain(rule), markup=False)
        return EXIT_OK

    _run(body)


@app.command("translate", cls=PlainHelp)
def translate_cmd(
    path: Path = typer.Argument(..., metavar="PATH", help="A directory, git work tree or single file of CUDA sources."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the HIP tree here (outside the source tree)."),
    in_place: bool = typer.Option(False, "--in-place", metavar="", help="Rewrite the files where they are (git work tree, committed)."),
    force: bool = typer.Option(False, "--force", metavar="", help="--in-place despite uncommitted changes or files it cannot rewrite (outside git: allowed)."),
    diff: bool = typer.Option(False, "--diff", metavar="", help="Print a unified diff; write nothing."),
    engine: str = typer.Option("auto", "--engine", metavar="ENGINE", help="auto, builtin, hipify-perl or hipify-clang."),
    hipify: Optional[Path] = typer.Option(None, "--hipify", metavar="EXE", help="The hipify-perl or hipify-clang executable to use."),
    verify: bool = typer.Option(False, "--verify", metavar="", help="Compile each translated file with the HIP compiler found."),
    target: Optional[str] = typer.Option(None, "--target", "-t", metavar="TARGET", help="--verify for this target id or gfx name (default gfx90a)."),
    format: str = typer.Option("console", "--format", "-f", metavar="FORMAT", help="console or json."),
    overwrite: bool = typer.Option(False, "--overwrite", metavar="", help="Write into a non-empty OUTDIR."),
    timeout: float = typer.Option(300.0, "--timeout", metavar="SECONDS", help="Seconds per hipify run and per compile."),
    translate_strings: bool = typer.Option(False, "--translate-strings", metavar="", help="Also rename inside comments and strings."),
    verbose: bool = typer.Option(False, "--verbose", "-v", metavar="", help="List warnings and unchanged files; tracebacks."),
    undo: bool = typer.Option(False, "--undo", metavar="", help="Put back every file of the newest --in-place backup under PATH (--force: even over later edits)."),
    include_dir: List[Path] = typer.Option([], "-I", "--include-dir", metavar="DIR", help="A directory of the project's headers (repeatable)."),
    define: List[str] = typer.Option([], "-D", "--define", metavar="NAME[=VALUE]", help="A macro for --verify (repeatable)."),
    std: Optional[str] = typer.Option(None, "--std", metavar="STD", help="C++ standard for --verify (default c++17)."),
    build_dir: Optional[Path] = typer.Option(None, "-p", "--build-dir", metavar="DIR", help="A build directory holding compile_commands.json."),
    compile_commands: Optional[Path] = typer.Option(None, "--compile-commands", metavar="FILE", help="A compile_commands.json file."),
    no_fixups: bool = typer.Option(False, "--no-fixups", metavar="", help="Leave the engine's output as it is (no guard/header/shim post-pass)."),
    include: Optional[List[str]] = typer.Option(None, "--include", metavar="GLOB", help="Only paths matching this glob (repeatable; default: porter.toml's)."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", metavar="GLOB", help="Skip paths matching this glob (repeatable; default: porter.toml's)."),
    config: Optional[Path] = typer.Option(None, "--config", metavar="FILE", help="Use this porter.toml / pyproject.toml instead of the closest one."),
    isolated: bool = typer.Option(False, "--isolated", metavar="", help="Ignore the repository's own configuration (for untrusted code)."),
) -> None:
    """Translate CUDA to HIP (hipify when installed, porter's built-in engine otherwise) and report what is left."""

    def body() -> int:
        from rich.console import Console

        from porter.translate import TranslateOptions
        from porter.translate.report import render_console, render_undo, to_json

        if undo:
            from porter.translate.write import undo_in_place

            if in_place or diff or output is not None or verify:
                raise UsageError("--undo cannot be combined with --in-place, --diff, -o or --verify")
            with _unwind_on_signals():
                report = undo_in_place(path, force=force)
            render_undo(report, Console(highlight=False))
            return EXIT_OK
        if format not in ("console", "json"):
            raise UsageError(f"--format must be console or json, not {format!r}")
        if diff and format == "json":
            raise UsageError("--diff prints a diff on stdout; it cannot be combined with --format json")
        if timeout <= 0:
            raise UsageError("--timeout must be positive")
        if build_dir is not None and compile_commands is not None:
            raise UsageError("-p/--build-dir and --compile-commands cannot be combined")
        opts = TranslateOptions(engine=engine, hipify=hipify, translate_strings=translate_strings, timeout=timeout,
                                include_dirs=tuple(str(p) for p in include_dir), defines=tuple(define), std=std,
                                compile_commands=compile_commands or build_dir, fixups=not no_fixups,
                                targets=(target,) if target else ())
        from porter.pipeline import translate
        from porter.settings import CommandLine, resolve_settings

        if not path.exists():
            raise UsageError(f"{path}: no such file or directory")
        settings = resolve_settings(path, CommandLine(include=tuple(include) if include else None,
                                                      exclude=tuple(exclude) if exclude else None,
                                                      config=config, isolated=isolated))
        with _unwind_on_signals() if in_place else contextlib.nullcontext():
            run = translate(path, settings, opts, output=output, in_place=in_place, force=force, diff=diff,
                            overwrite=overwrite, verify=verify, target=target)
        if run.diff is not None:
            sys.stdout.flush()
            sys.stdout.buffer.write(run.diff)
            sys.stdout.flush()
            render_console(run.result, _err(), verbose=verbose)
        elif format == "json":
            sys.stdout.write(to_json(run.result))
        else:
            render_console(run.result, Console(highlight=False), verbose=verbose)
        return EXIT_FINDINGS if run.failed else EXIT_OK

    _run(body, verbose)


@app.command("baseline", cls=PlainHelp)
def baseline_cmd(
    path: Path = typer.Argument(..., metavar="PATH", help="A directory, git work tree or single file."),
    output: Path = typer.Option(..., "--output", "-o", metavar="FILE", help="Write the baseline JSON here (commit it; `scan --baseline` reads it)."),
    target: Optional[List[str]] = typer.Option(None, "--target", "-t", metavar="TARGET", help="AMD target id(s) for the kernel verdicts (default: mi355x)."),
    include: Optional[List[str]] = typer.Option(None, "--include", metavar="GLOB", help="Only paths matching this glob (repeatable)."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", metavar="GLOB", help="Skip paths matching this glob (repeatable)."),
    rev: Optional[str] = typer.Option(None, "--rev", metavar="COMMIT", help="The tree of this git commit (from git objects)."),
    no_cache: bool = typer.Option(False, "--no-cache", metavar="", help="Do not read or write the result cache."),
    config: Optional[Path] = typer.Option(None, "--config", metavar="FILE", help="Use this porter.toml / pyproject.toml instead of the closest one."),
    isolated: bool = typer.Option(False, "--isolated", metavar="", help="Ignore the repository's own configuration."),
    verbose: bool = typer.Option(False, "--verbose", "-v", metavar="", help="Tracebacks on internal errors."),
) -> None:
    """Write the fingerprints of today's findings, so `scan --baseline FILE` reports only what is added later."""

    def body() -> int:
        from porter.diff import baseline_document
        from porter.render.json import render_bytes

        cli = _command_line(include, exclude, None, None, target, no_cache, None, config, isolated)
        run = _pipeline(path, cli, rev, assess=False, show_progress=False)
        _write(render_bytes(baseline_document(run.result)), output)
        _err().print(f"baseline: {len(run.result.findings)} findings, {len(run.result.kernels)} kernels → ",
                  literal(str(output)), sep="")
        return EXIT_OK

    _run(body, verbose)


@app.command("comment", cls=PlainHelp)
def comment_cmd(
    body_file: Path = typer.Argument(..., metavar="BODY", help="The comment body (e.g. from `porter scan --new-since BASE -f markdown`); '-' reads stdin."),
    pr: Optional[int] = typer.Option(None, "--pr", metavar="N", help="Pull / merge request number (default: from $GITHUB_EVENT_PATH, or $CI_MERGE_REQUEST_IID with --gitlab)."),
    gitlab: bool = typer.Option(False, "--gitlab", metavar="", help="Post a GitLab merge-request note ($CI_API_V4_URL, $CI_PROJECT_ID) instead."),
    token_env: str = typer.Option("PORTER_GITLAB_TOKEN", "--token-env", metavar="VAR", help="With --gitlab: the variable that holds the API token."),
    head_sha: Optional[str] = typer.Option(None, "--head-sha", metavar="SHA", help="GitHub: post only if the PR's head is this commit (for a workflow_run job)."),
    bot_login: Optional[str] = typer.Option(None, "--bot-login", metavar="NAME", help="The login the token posts as, when it cannot call GET /user (a GitHub App: my-app[bot]); only a marked comment by it is edited."),
    verbose: bool = typer.Option(False, "--verbose", "-v", metavar="", help="Tracebacks on internal errors."),
) -> None:
    """Create or update porter's one sticky comment on a pull request (GitHub) or merge request (GitLab)."""

    def body() -> int:
        from porter.comment import post_github, post_gitlab

        try:
            text = sys.stdin.read() if str(body_file) == "-" else body_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"{body_file}: cannot read the comment body: {e}") from None
        if gitlab and head_sha is not None:
            raise UsageError("--head-sha is for GitHub pull requests")
        if bot_login is not None and not bot_login.strip():
            raise UsageError("--bot-login must name a login")
        outcome = (post_gitlab(text, pr, token_variable=token_env, bot_login=bot_login) if gitlab
                   else post_github(text, pr, head_sha=head_sha, bot_login=bot_login))
        _err().print(f"comment {outcome.action}", *((" ", literal(outcome.url)) if outcome.url else ()), sep="")
        return EXIT_OK

    _run(body, verbose)


@app.command("check", cls=PlainHelp)
def check_cmd(
    files: List[Path] = typer.Argument(..., metavar="FILES...", help="Files of the repository in the current directory (pre-commit passes the staged ones)."),
    fail_on: str = typer.Option("high", "--fail-on", metavar="SEVERITY", help=_fail_on_help()),
    target: Optional[List[str]] = typer.Option(None, "--target", "-t", metavar="TARGET", help="AMD target id(s) (default: mi355x)."),
    isolated: bool = typer.Option(False, "--isolated", metavar="", help="Ignore the repository's own configuration."),
    verbose: bool = typer.Option(False, "--verbose", "-v", metavar="", help="Tracebacks on internal errors."),
) -> None:
    """Scan just these files (the pre-commit hook): one line per finding, no translation, no assessment."""

    def body() -> int:
        import os

        from porter.model import Severity
        from porter.pipeline import run
        from porter.render.safe import one_line
        from porter.settings import resolve_settings
        from porter.source.read import WorkTree

        root = Path(".")
        cli = _command_line(None, None, 1, fail_on, target, False, None, None, isolated)
        settings = resolve_settings(root, cli)
        wanted = frozenset(Path(os.path.relpath(f.resolve(), root.resolve())).as_posix() for f in files)
        result = run(WorkTree(root), settings, only=wanted).result
        threshold = settings.fail_on if settings.fail_on is not None else Severity.HIGH  # INFO is 0
        for f in result.findings:
            sys.stdout.write(f"{one_line(f.path)}:{f.line}:{f.column}: {f.rule} [{f.severity}] {one_line(f.message)}\n")
        failing = [f for f in result.findings if f.severity >= threshold and str(f.status) == "open"]
        return EXIT_FINDINGS if failing else EXIT_OK

    _run(body, verbose)


@app.command("history", cls=PlainHelp)
def history_cmd(
    path: Path = typer.Argument(..., metavar="PATH", help="The git repository, or a directory inside it."),
    since: Optional[str] = typer.Option(None, "--since", metavar="DATE", help="Only commits from this ISO date on."),
    until: Optional[str] = typer.Option(None, "--until", metavar="DATE", help="Only commits up to this ISO date."),
    max_commits: Optional[int] = typer.Option(None, "--max-commits", metavar="N", help="The last N first-parent commits (default: at most 1000)."),
    every: str = typer.Option("commit", "--every", metavar="PERIOD", help="A point per commit, day, week or month (the last commit of each)."),
    target: Optional[List[str]] = typer.Option(None, "--target", "-t", metavar="TARGET", help="AMD target id(s), gfx name, 'all' or a profile .yaml (default: mi355x)."),
    format: Optional[str] = typer.Option(None, "--format", "-f", metavar="FORMAT", help="console, json, csv, markdown (md) or html; default: from -o's suffix, else console."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the result here (default: stdout)."),
    compare: Optional[str] = typer.Option(None, "--compare", metavar="A..B", help="A..B: what was ported, added and still open between two commits."),
    allow_shallow: bool = typer.Option(False, "--allow-shallow", metavar="", help="Walk a shallow clone from its shallow boundary."),
    include: Optional[List[str]] = typer.Option(None, "--include", metavar="GLOB", help="Only paths matching this glob (repeatable)."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", metavar="GLOB", help="Skip paths matching this glob (repeatable)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", metavar="N", help="Worker processes (default: all cores)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", metavar="", help="No progress or summary on stderr."),
    verbose: bool = typer.Option(False, "--verbose", "-v", metavar="", help="Tracebacks on internal errors."),
    no_cache: bool = typer.Option(False, "--no-cache", metavar="", help="Do not read or write the result cache."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", metavar="DIR", help="Cache location (default: $PORTER_CACHE_DIR or ~/.cache/porter)."),
    config: Optional[Path] = typer.Option(None, "--config", metavar="FILE", help="Use this porter.toml / pyproject.toml instead of the closest one."),
    isolated: bool = typer.Option(False, "--isolated", metavar="", help="Ignore the repository's own configuration (for CI on untrusted code)."),
) -> None:
    """The burndown of a port over the first-parent git history: open, handled and cuda-only work per commit."""

    def body() -> int:
        from porter.history import report
        from porter.settings import resolve_settings

        name = report.format_name(format, output)
        cli = _command_line(include, exclude, jobs, None, target, no_cache, cache_dir, config, isolated)
        if not path.is_dir():
            raise UsageError(f"{path}: no such directory" if not path.exists() else
                             f"{path}: history needs a directory (the repository or a part of it), not a file")
        settings = resolve_settings(path, cli)
        if compare is not None:
            from porter.history.compare import compare as compare_points, render as render_compare

            _write(render_compare(compare_points(path, compare, settings), name), output)
            return EXIT_OK
        from porter.history.points import history
        from porter.history.walk import walk

        walked = walk(path, since=since, until=until, max_commits=max_commits, allow_shallow=allow_shallow)
        prog, callback = _history_progress(not quiet)
        if prog:
            with prog:
                result = history(walked, settings, every, progress=callback)
        else:
            result = history(walked, settings, every)
        to_stdout = output is None or str(output) == "-"
        _write(report.render(name, report.document(result), width=_stdout_width() if to_stdout else 120,
                             terminal=to_stdout and sys.stdout.isatty()), output)
        for notice in result.notices:
            from rich.text import Text

            _err().print(Text.assemble(("note:", "yellow"), " ", literal(notice)), soft_wrap=True)
        if not quiet:
            s = result.stats
            _err().print(f"history: {s['commits']} commits, {s['points']} points ({s['points_computed']} computed, "
                      f"{s['points_cached']} from the cache), {s['blobs_scanned']} blobs scanned, "
                      f"{s['cache_hits']} cache hits", markup=False, highlight=False)
        return EXIT_OK

    _run(body, verbose)


def _history_progress(enabled: bool):
    """A progress line on stderr while a history walks (a terminal only): points done, blobs scanned, cache hits."""
    if not enabled or not _stderr_may_be_terminal() or not _err().is_terminal:
        return None, None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    prog = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[detail]}"), TimeElapsedColumn(), console=_err(), transient=True)
    task = prog.add_task("commits", total=None, detail="")
    return prog, lambda p: prog.update(task, completed=p.commits_done, total=p.commits_total,
                                       detail=f"{p.blobs_scanned} blobs scanned, {p.cache_hits} cache hits")


# The end of this module's imports (see the top).
gc.freeze()
if _COLLECTING:
    gc.enable()
