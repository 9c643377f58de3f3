"""`porter translate`: CUDA to HIP (hipify when installed, porter's built-in engine otherwise), and what is left."""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import List, Optional

import typer

import porter.cli.options as options
from porter.cli.base import EXIT_FINDINGS, EXIT_OK, PlainHelp, app, err, run_command, stdout_console, unwind_on_signals
from porter.cli.runs import settings_for
from porter.cli.output import write_output
from porter.errors import UsageError


@app.command("translate", cls=PlainHelp)
def translate_cmd(
    path: Path = options.path("A directory, git work tree or single file of CUDA sources."),
    output: Optional[Path] = options.output("Write the HIP tree here (outside the source tree)."),
    in_place: bool = typer.Option(False, "--in-place", metavar="", help="Rewrite the files where they are (git work tree, committed)."),
    force: bool = typer.Option(False, "--force", metavar="", help="--in-place despite uncommitted changes or files it cannot rewrite (outside git: allowed)."),
    diff: bool = typer.Option(False, "--diff", metavar="", help="Print a unified diff; write nothing."),
    engine: str = typer.Option("auto", "--engine", metavar="ENGINE", help="auto, builtin, hipify-perl or hipify-clang."),
    hipify: Optional[Path] = typer.Option(None, "--hipify", metavar="EXE", help="The hipify-perl or hipify-clang executable to use."),
    verify: bool = typer.Option(False, "--verify", metavar="", help="Compile each translated file with the HIP compiler found."),
    target: Optional[str] = options.targets("--verify for this target id or gfx name (default gfx90a)."),
    format: str = options.format_("console or json.", "console"),
    overwrite: bool = typer.Option(False, "--overwrite", metavar="", help="Write into a non-empty OUTDIR."),
    timeout: float = typer.Option(300.0, "--timeout", metavar="SECONDS", help="Seconds per hipify run and per compile."),
    translate_strings: bool = typer.Option(False, "--translate-strings", metavar="", help="Also rename inside comments and strings."),
    verbose: bool = options.verbose("List warnings and unchanged files; tracebacks."),
    undo: bool = typer.Option(False, "--undo", metavar="", help="Put back every file of the newest --in-place backup under PATH (--force: even over later edits)."),
    include_dir: List[Path] = typer.Option([], "-I", "--include-dir", metavar="DIR", help="A directory of the project's headers (repeatable)."),
    define: List[str] = typer.Option([], "-D", "--define", metavar="NAME[=VALUE]", help="A macro for --verify (repeatable)."),
    std: Optional[str] = typer.Option(None, "--std", metavar="STD", help="C++ standard for --verify (default c++17)."),
    build_dir: Optional[Path] = typer.Option(None, "-p", "--build-dir", metavar="DIR", help="A build directory holding compile_commands.json."),
    compile_commands: Optional[Path] = typer.Option(None, "--compile-commands", metavar="FILE", help="A compile_commands.json file."),
    no_fixups: bool = typer.Option(False, "--no-fixups", metavar="", help="Leave the engine's output as it is (no guard/header/shim post-pass)."),
    include: Optional[List[str]] = options.include(),
    exclude: Optional[List[str]] = options.exclude(),
    config: Optional[Path] = options.config(),
    isolated: bool = options.isolated(),
    no_color: bool = options.no_color(),
) -> None:
    """Translate CUDA to HIP (hipify when installed, porter's built-in engine otherwise) and report what is left."""

    def body() -> int:
        from porter.translate import TranslateOptions
        from porter.translate.report import render_console, render_undo, to_json

        if undo:
            from porter.translate.write import undo_in_place

            if in_place or diff or output is not None or verify:
                raise UsageError("--undo cannot be combined with --in-place, --diff, -o or --verify")
            with unwind_on_signals():
                report = undo_in_place(path, force=force)
            render_undo(report, stdout_console())
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

        if not path.exists():
            raise UsageError(f"{path}: no such file or directory")
        settings = settings_for(path, options.command_line(include, exclude, config=config, isolated=isolated))
        with unwind_on_signals() if in_place else contextlib.nullcontext():
            run = translate(path, settings, opts, output=output, in_place=in_place, force=force, diff=diff,
                            overwrite=overwrite, verify=verify, target=target)
        if run.diff is not None:
            write_output(run.diff, None)  # the one stdout writer: inert in GitHub Actions, escaped on a terminal
            render_console(run.result, err(), verbose=verbose)
        elif format == "json":
            sys.stdout.write(to_json(run.result))
        else:
            render_console(run.result, stdout_console(), verbose=verbose)
        return EXIT_FINDINGS if run.failed else EXIT_OK

    run_command(body, verbose)
