"""porter's command line: a thin typer layer that turns options into library calls and errors into exit codes.

Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage, input or configuration error, 3 internal error.
This is the only module that prints or exits.
"""
from __future__ import annotations

import contextlib
import signal
import sys
import traceback
from pathlib import Path
from typing import Callable, List, Optional

import typer
from rich.console import Console
from rich.text import Text

from porter import __version__
from porter.errors import PorterError, UsageError
from porter.render.safe import literal

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

app = typer.Typer(
    name="porter",
    help="CUDA-to-HIP porting assistant: find what a move to AMD Instinct GPUs takes.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
rules_app = typer.Typer(help="The rule catalogue.", no_args_is_help=True)
app.add_typer(rules_app, name="rules")

err = Console(stderr=True, highlight=False)


def _say_error(label: str, message: str) -> None:
    """An error line on stderr; the message is literal text (it may quote file names from the repository)."""
    err.print(Text.assemble((label, "red"), " ", literal(message)), soft_wrap=True)  # one line per message: greppable


def _run(fn: Callable[[], int], verbose: bool = False) -> None:
    """Call a command body and map every outcome to porter's exit codes (PorterError carries its own)."""
    try:
        code = fn()
    except PorterError as e:
        if verbose:
            err.print(literal(traceback.format_exc()))
        _say_error("error:" if e.exit_code == EXIT_USAGE else "internal error:", str(e))
        raise typer.Exit(e.exit_code)
    except KeyboardInterrupt:
        err.print("interrupted")
        raise typer.Exit(130)
    except Terminated as e:
        err.print(f"terminated by {e.name}; files already rewritten in place were restored", markup=False)
        raise typer.Exit(128 + e.signum)
    except typer.Exit:
        raise
    except Exception as e:  # a crash must never look like "findings"
        if verbose:
            err.print(literal(traceback.format_exc()))
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
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_bytes(data)
    except OSError as e:
        raise UsageError(f"{output}: cannot write: {e.strerror or e}") from None


def _progress(enabled: bool):
    """A rich progress bar on stderr when it is a terminal; a no-op otherwise."""
    if not enabled or not err.is_terminal:
        return None, None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    prog = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=err, transient=True)
    task = prog.add_task("scanning", total=None)
    return prog, lambda done, total: prog.update(task, completed=done, total=total)


def _pipeline(path: Path, cli, rev: Optional[str], assess: bool, show_progress: bool):
    """Settings for `path` from its configuration and the options, then the one pipeline."""
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

    from rich.console import Console as _Console

    to_stdout = output is None or str(output) == "-"
    # stdout: the terminal's width (or $COLUMNS when piped), colour only on a terminal; a file: plain 120 columns.
    opts = dataclasses.replace(opts, terminal=to_stdout and sys.stdout.isatty(), width=_Console().width if to_stdout else 120)
    _write(fmt.render(run, opts), output)
    for notice in run.result.stats.get("notices", ()):
        err.print(Text.assemble(("note:", "yellow"), " ", literal(notice)), soft_wrap=True)


_FORMAT_HELP = "console, json, markdown (md), html, sarif or csv; default: from -o's suffix, else console."


@app.command()
def scan(
    path: Path = typer.Argument(..., help="A directory, git work tree or single file."),
    format: Optional[str] = typer.Option(None, "--format", "-f", help=_FORMAT_HELP),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the result here (default: stdout)."),
    include: Optional[List[str]] = typer.Option(None, "--include", help="Only paths matching this glob (repeatable)."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", help="Skip paths matching this glob (repeatable)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Worker processes (default: all cores)."),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", help="Exit 1 when a finding has this severity or worse."),
    target: Optional[List[str]] = typer.Option(None, "--target", "-t", help="AMD target id(s), gfx name, 'all' or a profile .yaml (default: mi355x)."),
    rev: Optional[str] = typer.Option(None, "--rev", help="Scan the tree of this git commit (from git objects; the work tree is not touched)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the summary line."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Every finding; tracebacks on internal errors."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the result cache."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="Cache location (default: $PORTER_CACHE_DIR or ~/.cache/porter)."),
    config: Optional[Path] = typer.Option(None, "--config", help="Use this porter.toml / pyproject.toml instead of the closest one."),
    isolated: bool = typer.Option(False, "--isolated", help="Ignore the repository's own configuration (for CI on untrusted code)."),
    max_file_size_mb: Optional[float] = typer.Option(None, "--max-file-size-mb", help="Skip files larger than this (default 8)."),
    deep: bool = typer.Option(False, "--deep", help="Refine kernel facts with libclang (optional extra 'deep')."),
) -> None:
    """Inventory everything CUDA in a repository."""

    def body() -> int:
        from porter.render import RenderOptions, format_for

        fmt = format_for(format, output)
        cli = _command_line(include, exclude, jobs, fail_on, target, no_cache, cache_dir, config, isolated, deep,
                            max_file_size_mb)
        run = _pipeline(path, cli, rev, fmt.needs_assessment, show_progress=not quiet)
        _show(run, fmt, output, RenderOptions(explain=False, verbose=verbose, quiet=quiet, command="scan"))
        threshold = run.settings.fail_on
        if threshold is not None and any(f.severity >= threshold for f in run.result.findings):
            return EXIT_FINDINGS
        return EXIT_OK

    _run(body, verbose)


def _command_line(include, exclude, jobs, fail_on, target, no_cache, cache_dir, config, isolated, deep=False,
                  max_file_size_mb=None):
    from porter.settings import CommandLine

    if max_file_size_mb is not None and max_file_size_mb <= 0:
        raise UsageError("--max-file-size-mb must be positive")
    return CommandLine(include=tuple(include) if include else None, exclude=tuple(exclude) if exclude else None,
                       jobs=jobs, fail_on=fail_on, targets=tuple(target) if target else None, no_cache=no_cache,
                       cache_dir=cache_dir, config=config, isolated=isolated, deep=deep,
                       max_file_size_mb=max_file_size_mb)


@app.command("assess")
def assess_cmd(
    path: Path = typer.Argument(..., help="A directory, git work tree or single file."),
    target: Optional[List[str]] = typer.Option(None, "--target", "-t", help="AMD target id(s), gfx name, 'all' or a profile .yaml (default: mi355x)."),
    format: Optional[str] = typer.Option(None, "--format", "-f", help=_FORMAT_HELP),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report here (default: stdout)."),
    explain: bool = typer.Option(False, "--explain", help="Show how every figure adds up, down to the findings."),
    include: Optional[List[str]] = typer.Option(None, "--include", help="Only paths matching this glob (repeatable)."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", help="Skip paths matching this glob (repeatable)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Worker processes (default: all cores)."),
    rev: Optional[str] = typer.Option(None, "--rev", help="Assess the tree of this git commit (from git objects)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the headline."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Tracebacks on internal errors."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the result cache."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="Cache location (default: $PORTER_CACHE_DIR or ~/.cache/porter)."),
    config: Optional[Path] = typer.Option(None, "--config", help="Use this porter.toml / pyproject.toml instead of the closest one."),
    isolated: bool = typer.Option(False, "--isolated", help="Ignore the repository's own configuration (for CI on untrusted code)."),
) -> None:
    """Assess what it takes to run a repository on AMD Instinct GPUs: verdict, effort, blockers, breakdowns."""

    def body() -> int:
        from porter.render import RenderOptions, format_for

        fmt = format_for(format, output)
        cli = _command_line(include, exclude, jobs, None, target, no_cache, cache_dir, config, isolated)
        run = _pipeline(path, cli, rev, assess=True, show_progress=not quiet and fmt.name == "console")
        _show(run, fmt, output, RenderOptions(explain=explain, verbose=verbose, quiet=quiet, command="assess"))
        return EXIT_OK

    _run(body, verbose)


@app.command("targets")
def targets_cmd(
    format: str = typer.Option("console", "--format", "-f", help="console or json."),
    profile: Optional[List[Path]] = typer.Option(None, "--profile", help="Also load this user profile file (repeatable)."),
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


@rules_app.command("list")
def rules_list(
    format: str = typer.Option("console", "--format", "-f", help="console or json."),
    category: Optional[str] = typer.Option(None, "--category", help="Only this category."),
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


@rules_app.command("explain")
def rules_explain(rule_id: str = typer.Argument(..., help="A rule id, e.g. DEV002.")) -> None:
    """Show one rule's full documentation."""

    def body() -> int:
        from porter.rules import load_rules
        from porter.rulecatalog import explain

        rule = load_rules().get(rule_id.upper())
        if rule is None:
            raise UsageError(f"no rule {rule_id!r}; `porter rules list` shows them all")
        Console(highlight=False).print(explain(rule), markup=False)
        return EXIT_OK

    _run(body)


@app.command("translate")
def translate_cmd(
    path: Path = typer.Argument(..., help="A directory, git work tree or single file of CUDA sources."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the HIP tree here (outside the source tree)."),
    in_place: bool = typer.Option(False, "--in-place", help="Rewrite the files where they are (git work tree, committed)."),
    force: bool = typer.Option(False, "--force", help="--in-place despite uncommitted changes or files it cannot rewrite (outside git: allowed)."),
    diff: bool = typer.Option(False, "--diff", help="Print a unified diff; write nothing."),
    engine: str = typer.Option("auto", "--engine", help="auto, builtin, hipify-perl or hipify-clang."),
    hipify: Optional[Path] = typer.Option(None, "--hipify", help="The hipify-perl or hipify-clang executable to use."),
    verify: bool = typer.Option(False, "--verify", help="Compile each translated file with the HIP compiler found."),
    target: Optional[str] = typer.Option(None, "--target", "-t", help="--verify for this target id or gfx name (default gfx90a)."),
    format: str = typer.Option("console", "--format", "-f", help="console or json."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Write into a non-empty OUTDIR."),
    timeout: float = typer.Option(300.0, "--timeout", help="Seconds per hipify run and per compile."),
    translate_strings: bool = typer.Option(False, "--translate-strings", help="Also rename inside comments and strings."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="List warnings and unchanged files; tracebacks."),
    undo: bool = typer.Option(False, "--undo", help="Put back every file of the newest --in-place backup under PATH (--force: even over later edits)."),
    include_dir: List[Path] = typer.Option([], "-I", "--include-dir", help="A directory of the project's headers (repeatable)."),
    define: List[str] = typer.Option([], "-D", "--define", help="NAME[=VALUE] for --verify (repeatable)."),
    std: Optional[str] = typer.Option(None, "--std", help="C++ standard for --verify (default c++17)."),
    build_dir: Optional[Path] = typer.Option(None, "-p", "--build-dir", help="A build directory holding compile_commands.json."),
    compile_commands: Optional[Path] = typer.Option(None, "--compile-commands", help="A compile_commands.json file."),
    no_fixups: bool = typer.Option(False, "--no-fixups", help="Leave the engine's output as it is (no guard/header/shim post-pass)."),
) -> None:
    """Translate CUDA to HIP (hipify when installed, porter's built-in engine otherwise) and report what is left."""

    def body() -> int:
        from porter.translate import TranslateOptions
        from porter.translate.report import render_console, render_undo, to_json
        from porter.translate.run import run_translate

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
        with _unwind_on_signals() if in_place else contextlib.nullcontext():
            run = run_translate(path, opts, output=output, in_place=in_place, force=force, diff=diff,
                                overwrite=overwrite, verify=verify, target=target)
        if run.diff is not None:
            sys.stdout.flush()
            sys.stdout.buffer.write(run.diff)
            sys.stdout.flush()
            render_console(run.result, err, verbose=verbose)
        elif format == "json":
            sys.stdout.write(to_json(run.result))
        else:
            render_console(run.result, Console(highlight=False), verbose=verbose)
        return EXIT_FINDINGS if run.failed else EXIT_OK

    _run(body, verbose)
