"""porter's command line: a thin typer layer that turns options into library calls and errors into exit codes.

One module per command (scan, assess, targets, rules, translate, baseline, comment, check, history); the options
they share are declared once in options.py, the exit gate once in gate.py, and base.py maps every outcome to an
exit code: 0 clean, 1 findings at or above --fail-on, 2 usage, input or configuration error, 3 internal error.
This package is the only place that prints or exits. `main(argv) -> int` runs a command in this process (tests);
`entry()` is the `porter` script.
"""
from __future__ import annotations

import gc

# Loading porter's modules allocates ~100,000 objects that live as long as the process (functions, classes, code),
# and the cycle collector would traverse them at every collection of their generation: importing the CLI ran 27
# collections and the scan path's modules one more of 50,000 objects that alone cost 12-20 ms on cuda-samples,
# all finding nothing to free. So modules load with the collector off and are then exempt from it (gc.freeze; also
# what keeps forked workers' copies of them shared): see porter.cli.base.uncollected_imports.
_COLLECTING = gc.isenabled()
gc.disable()

# The ~95 dataclasses defined on a scan's path have their methods compiled once per installation, not every run
# (porter.classcode): ~0.08 CPU-s of every command.
from porter import classcode  # noqa: E402

classcode.install()

import atexit  # noqa: E402 - the imports below load with the collector off (above)
import copy  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from typing import Sequence  # noqa: E402

import typer  # noqa: E402

from porter import __version__  # noqa: E402
# Each command module registers its command on `app`; in this order `porter --help` lists them.
from porter.cli import scan, assess, targets, translate, port, baseline, comment, check, history, rules, fleet  # noqa: E402,F401,I001
import porter.cli.options as options  # noqa: E402
from porter.cli.base import app, end_without_freeing, reset_colour  # noqa: E402
from porter.cli.output import InertStderr  # noqa: E402

# A scan allocates millions of short-lived objects (tree nodes, hits, findings) and frees a file's objects without
# the cycle collector (tests/test_tokens.py checks that), so the default 700-allocation first generation ran ~190
# collections on cuda-samples that found almost nothing to free (0.049 CPU-s, timed with gc.callbacks); at 50,000
# they are ~30 (0.031), and on CuTe 0.17 -> 0.10 CPU-s, peak memory unchanged. Worker processes fork from this one
# and keep the setting.
GC_THRESHOLDS = (50_000, 10, 10)


def _version(value: bool) -> None:
    if value:
        print(f"porter {__version__}")
        raise typer.Exit(0)


@app.callback()
def root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
    no_color: bool = options.no_color(),
) -> None:
    """porter: scan, translate and assess CUDA code for AMD Instinct GPUs."""


def app_for(argv: Sequence[str]) -> typer.Typer:
    """The app that runs `argv` (without the program name): for `<command> ...` a copy of `app` holding only that
    command (or group), since typer builds the click parameters of every command before running one (~4 ms of every
    run, a fortieth of a one-file scan); `app` itself for anything else (no command, `--help`, a misspelt one)."""
    name = argv[0] if argv else None
    commands = [c for c in app.registered_commands
                if (c.name or typer.main.get_command_name(c.callback.__name__)) == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if len(commands) + len(groups) != 1:
        return app
    one = copy.copy(app)
    one.registered_commands, one.registered_groups = commands, groups
    return one


def main(argv: Sequence[str] | None = None) -> int:
    """Run porter's command line on `argv` (default: sys.argv[1:]) in this process and return its exit status.

    In a GitHub Actions step stderr is InertStderr for the run: notices quote paths, commit subjects and compiler
    lines from the scanned repository, and the runner executes workflow commands on stderr as on stdout."""
    args = list(sys.argv[1:] if argv is None else argv)
    reset_colour()
    stderr = sys.stderr
    if os.environ.get("GITHUB_ACTIONS") == "true" and not isinstance(stderr, InertStderr):
        sys.stderr = InertStderr(stderr)
    try:
        return _run(args)
    finally:
        sys.stderr = stderr


def _run(args: list[str]) -> int:
    try:
        app_for(args)(args=args, prog_name="porter")
    except SystemExit as e:  # click's standalone mode ends every command this way
        code = e.code
    else:
        code = 0
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # what the interpreter does with a SystemExit that is not a number
    return 1


def entry() -> None:
    """The `porter` command and `python -m porter`: the command line, then a prompt end of the process.

    When a command returns, its output is flushed and its files are closed; what the interpreter would still do is
    free every object of the run one by one and tear its modules down, a fifth of a one-file scan's CPU time (~0.1
    CPU-s after scanning cuda-samples) for nothing anyone sees. Exit handlers still run. With another thread alive
    or output that cannot be flushed (a closed pipe), the interpreter ends as it always did."""
    gc.set_threshold(*GC_THRESHOLDS)
    end_without_freeing()
    code = main()
    if threading.active_count() > 1:
        raise SystemExit(code)
    atexit._run_exitfuncs()  # what interpreter shutdown would run first (and then forget them)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        raise SystemExit(code) from None
    os._exit(code)


# The end of this package's imports (see the top).
gc.freeze()
if _COLLECTING:
    gc.enable()
