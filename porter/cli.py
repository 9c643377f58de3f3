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


class UsageError(Exception):
    """Bad input from the user (path, option, config, rules): exit 2 with the message."""


def _run(fn: Callable[[], int], verbose: bool = False) -> None:
    """Call a command body and map every outcome to porter's exit codes."""
    from porter.settings import ConfigError
    from porter.source.discover import DiscoveryError
    from porter.rules import RuleError

    try:
        code = fn()
    except (UsageError, ConfigError, DiscoveryError, RuleError, ValueError, FileNotFoundError) as e:
        if verbose and not isinstance(e, (UsageError, ConfigError, DiscoveryError, RuleError)):
            # a bare ValueError is usually bad input, but may be a bug: -v shows where it came from
            err.print(literal(traceback.format_exc()))
        err.print(Text.assemble(("error:", "red"), " ", literal(e)), soft_wrap=True)  # one greppable line
        raise typer.Exit(EXIT_USAGE)
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
        err.print(Text.assemble(("internal error:", "red"), " ", literal(f"{type(e).__name__}: {e} (run with -v for the traceback)")),
                  soft_wrap=True)
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


def _write(text: str | bytes, output: Optional[Path]) -> None:
    data = text.encode("utf-8") if isinstance(text, str) else text
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


def build_scan_options(path: Path, include, exclude, jobs, no_cache, cache_dir, targets, config_file):
    """Merge command-line options over the closest configuration file; returns (ScanOptions, Config)."""
    from porter.settings import find_config, load_config
    from porter.pipeline import DEFAULT_MAX_FILE_BYTES, ScanOptions, default_cache_dir

    if not path.exists() and not path.is_symlink():
        raise UsageError(f"{path}: no such file or directory")
    cfg = load_config(config_file if config_file else find_config(path))
    use_cache = not no_cache and cfg.get("cache", True)
    extra_rules = tuple(Path(cfg.path.parent / p) for p in cfg.get("rules", [])) if cfg.path else ()
    opts = ScanOptions(
        include=tuple(include or cfg.get("include", [])),
        exclude=tuple(exclude or cfg.get("exclude", [])),
        jobs=jobs if jobs is not None else cfg.get("jobs", 0),
        cache_dir=(cache_dir or default_cache_dir()) if use_cache else None,
        max_file_bytes=int(cfg.get("max_file_size_mb", DEFAULT_MAX_FILE_BYTES / 1048576) * 1048576),
        disabled_rules=tuple(cfg.get("disable", [])),
        targets=tuple(targets or cfg.get("targets", [])),
        extra_rules=extra_rules,
    )
    if opts.jobs < 0:
        raise UsageError("--jobs must be 0 (all cores) or more")
    return opts, cfg


@app.command()
def scan(
    path: Path = typer.Argument(..., help="A directory, git work tree or single file."),
    format: str = typer.Option("console", "--format", "-f", help="console or json."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the result here (default: stdout)."),
    include: Optional[List[str]] = typer.Option(None, "--include", help="Only paths matching this glob (repeatable)."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", help="Skip paths matching this glob (repeatable)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Worker processes (default: all cores)."),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", help="Exit 1 when a finding has this severity or worse."),
    target: Optional[List[str]] = typer.Option(None, "--target", "-t", help="AMD target id(s) or 'all' (see `porter targets`)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the summary line."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Every finding; tracebacks on internal errors."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the result cache."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="Cache location (default: $PORTER_CACHE_DIR or ~/.cache/porter)."),
    config: Optional[Path] = typer.Option(None, "--config", help="Use this porter.toml / pyproject.toml instead of the closest one."),
    deep: bool = typer.Option(False, "--deep", help="Refine kernel facts with libclang (optional extra 'deep')."),
) -> None:
    """Inventory everything CUDA in a repository."""

    def body() -> int:
        from porter.model import Severity
        from porter.pipeline import scan as run_scan

        if format not in ("console", "json"):
            raise UsageError(f"--format must be console or json, not {format!r}")
        opts, cfg = build_scan_options(path, include, exclude, jobs, no_cache, cache_dir, target, config)
        threshold_text = fail_on or cfg.get("fail_on")
        threshold = Severity.parse(threshold_text) if threshold_text else None
        prog, callback = _progress(not quiet)
        if prog:
            with prog:
                result = run_scan(path, opts, progress=callback)
        else:
            result = run_scan(path, opts)
        from porter.kernels.verdicts import analyse

        result = analyse(result, list(opts.targets), deep=deep) if deep else analyse(result, list(opts.targets))
        if format == "json":
            from porter.render.json import render_bytes

            _write(render_bytes(result), output)
        else:
            _console_render(result, output, quiet, verbose)
        if threshold is not None and any(f.severity >= threshold for f in result.findings):
            return EXIT_FINDINGS
        return EXIT_OK

    _run(body, verbose)


ASSESS_FORMATS = ("console", "markdown", "html", "json", "sarif", "csv")


@app.command("assess")
def assess_cmd(
    path: Path = typer.Argument(..., help="A directory, git work tree or single file."),
    target: Optional[List[str]] = typer.Option(None, "--target", "-t", help="AMD target id(s) or 'all' (default: mi355x)."),
    format: str = typer.Option("console", "--format", "-f", help="console, markdown, html, json, sarif or csv."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report here (default: stdout)."),
    explain: bool = typer.Option(False, "--explain", help="Show how every figure adds up, down to the findings."),
    include: Optional[List[str]] = typer.Option(None, "--include", help="Only paths matching this glob (repeatable)."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", help="Skip paths matching this glob (repeatable)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Worker processes (default: all cores)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the headline."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Tracebacks on internal errors."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the result cache."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="Cache location (default: $PORTER_CACHE_DIR or ~/.cache/porter)."),
    config: Optional[Path] = typer.Option(None, "--config", help="Use this porter.toml / pyproject.toml instead of the closest one."),
) -> None:
    """Assess what it takes to run a repository on AMD Instinct GPUs: verdict, effort, blockers, breakdowns."""

    def body() -> int:
        import dataclasses

        from porter.estimate.assess import run_assessment
        from porter.estimate.effort_model import load_effort_model
        from porter.targets import load_targets, select_targets

        if format not in ASSESS_FORMATS:
            raise UsageError(f"--format must be one of {', '.join(ASSESS_FORMATS)}, not {format!r}")
        opts, cfg = build_scan_options(path, include, exclude, jobs, no_cache, cache_dir, target, config)
        chosen = select_targets(list(opts.targets) or None, load_targets())
        opts = dataclasses.replace(opts, targets=tuple(t.id for t in chosen))
        model = load_effort_model(cfg.resolve("effort"))
        prog, callback = _progress(not quiet and format == "console")
        if prog:
            with prog:
                result, assessment = run_assessment(path, opts, chosen, model, progress=callback)
        else:
            result, assessment = run_assessment(path, opts, chosen, model)
        if format == "console" and quiet:
            _console_out(output, lambda c: c.print(literal(assessment.headline)))
        elif format == "console":
            from porter.render import assess_console

            _console_out(output, lambda c: assess_console.render(result, assessment, c, explain))
        else:
            import importlib

            renderer = importlib.import_module(f"porter.render.{format}")
            text = (renderer.render(result) if format == "json"
                    else renderer.render(result, assessment, explain=explain))
            _write(text, output)
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


def _console_render(result, output, quiet, verbose) -> None:
    from porter.render import console as console_render

    if quiet:
        _console_out(output, lambda c: c.print(literal(console_render.summary_line(result))))
    else:
        _console_out(output, lambda c: console_render.render(result, c, verbose=verbose))


def _console_out(output: Optional[Path], draw: Callable[[Console], None]) -> None:
    """Draw a console view on the terminal, or as plain 120-column text into `output` through _write."""
    if output is None or str(output) == "-":
        draw(Console(highlight=False))
        return
    import io

    buf = io.StringIO()
    draw(Console(file=buf, width=120, no_color=True))
    _write(buf.getvalue(), output)


@rules_app.command("list")
def rules_list(
    format: str = typer.Option("console", "--format", "-f", help="console or json."),
    category: Optional[str] = typer.Option(None, "--category", help="Only this category."),
) -> None:
    """List every rule with its severity, category and fixture coverage."""

    def body() -> int:
        from porter.rules import load_rules
        from porter.rulecatalog import catalogue

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
            t.add_row(literal(r["id"]), r["category"], r["severity"], r["confidence"], literal(r["title"]), "yes" if r["fixture"] else "NO")
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
        opts = TranslateOptions(engine=engine, hipify=hipify, translate_strings=translate_strings, timeout=timeout)
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
