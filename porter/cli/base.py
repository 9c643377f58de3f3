"""What every command shares: the typer app, plain help, the stderr console, and the one place that maps a command
body's outcome (a number, a PorterError, Ctrl-C, a crash) to porter's exit codes.

Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage, input or configuration error, 3 internal error.
"""
from __future__ import annotations

import contextlib
import functools
import gc
import os
import signal
import sys
from typing import Callable

import typer

from porter.errors import PorterError
from porter.render.safe import literal

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

# -h as well as --help, as ruff and semgrep take it; subcommands inherit it from the group's context.
CONTEXT = {"help_option_names": ["-h", "--help"]}


def first_paragraph(text: str | None) -> str:
    """A command's summary as `porter --help` lists it: its docstring's first paragraph, whole, on one line."""
    return " ".join((text or "").strip().split("\n\n")[0].split())


class PlainGroup(typer.core.TyperGroup):
    """`porter --help` lists each command's whole summary (click cuts it at the column where the line would end)."""

    def format_commands(self, ctx, formatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, first_paragraph(cmd.help)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


app = typer.Typer(
    name="porter",
    help="CUDA-to-HIP porting assistant: find what a move to AMD Instinct GPUs takes.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain click help: option values by name (FORMAT, FILE), no <bool>/<str>/{path}
    cls=PlainGroup,
    context_settings=CONTEXT,
)


class PlainHelp(typer.core.TyperCommand):
    """Help that names values as a person reads them: `PATH`, `--format FORMAT`, flags bare (no <bool>, <str>,
    {path}), and the choices in each option's help text."""

    def collect_usage_pieces(self, ctx):
        pieces = [self.options_metavar] if self.options_metavar else []
        return pieces + [shown_name(p) for p in self.get_params(ctx) if p.param_type_name == "argument"]

    def format_options(self, ctx, formatter) -> None:
        args, opts = [], []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                args.append((shown_name(param), (param.help or "") + ("  [required]" if param.required else "")))
            elif (rec := param.get_help_record(ctx)) is not None:
                opts.append(rec)
        for title, rows in (("Arguments", args), ("Options", opts)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def shown_name(param) -> str:
    """An argument as help names it: its metavar, else its name."""
    return param.metavar if param.metavar is not None else param.name


rules_app = typer.Typer(help="The rule catalogue: list the rules, explain one.", cls=PlainGroup, no_args_is_help=True,
                        rich_markup_mode=None, context_settings=CONTEXT)
app.add_typer(rules_app, name="rules")


@functools.cache
def err():
    """The stderr console, made on first use: a scan that writes its report to a file and has nothing to say
    never loads rich (importing it was a twentieth of a one-file scan)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, **colour())


_COLOR = {"off": False}


def turn_colour_off(value: bool) -> None:
    """--no-color's callback (it is eager: set before the stderr console is made)."""
    if value:
        _COLOR["off"] = True
        err.cache_clear()


def reset_colour() -> None:
    """Back to NO_COLOR alone, for a new command line in the same process (porter.cli.main)."""
    _COLOR["off"] = False
    err.cache_clear()


def no_color() -> bool | None:
    """True when --no-color was given or NO_COLOR (https://no-color.org) is set to anything non-empty; None lets
    rich decide (colour on a terminal only)."""
    return True if _COLOR["off"] or os.environ.get("NO_COLOR") else None


def colour() -> dict:
    """A rich Console's colour arguments: none at all (not even bold or italic) under NO_COLOR or --no-color."""
    return {"no_color": True, "color_system": None} if no_color() else {}


def stdout_console():
    """A console on stdout for tables and reports: colour on a terminal unless NO_COLOR or --no-color."""
    from rich.console import Console

    return Console(highlight=False, **colour())


def stderr_may_be_terminal() -> bool:
    """False only when rich would also find stderr no terminal: not a tty, and neither FORCE_COLOR nor
    TTY_COMPATIBLE=1 makes it one. Asked before rich is loaded just to draw no progress bar."""
    return sys.stderr.isatty() or bool(os.environ.get("FORCE_COLOR")) or os.environ.get("TTY_COMPATIBLE") == "1"


def say(label: str, style: str, message: str) -> None:
    """A labelled line on stderr (`error:`, `warning:`, `note:`); the message is literal text (it may quote file
    names from the repository). One line per message: greppable."""
    from rich.text import Text

    err().print(Text.assemble((label, style), " ", literal(message)), soft_wrap=True)


def _traceback() -> str:
    """The exception being handled, formatted (traceback loads only then: most runs never need it)."""
    import traceback

    return traceback.format_exc()


def run_command(fn: Callable[[], int], verbose: bool = False) -> None:
    """Call a command body and map every outcome to porter's exit codes (PorterError carries its own). The run's
    deadline, if it has one, is watched meanwhile (porter.budget.watch_deadline)."""
    from porter.budget import DeadlineExceeded, unwatch_deadline, watch_deadline

    try:
        watch_deadline()
        code = fn()
    except DeadlineExceeded as e:
        unwatch_deadline()
        say("error:", "red", str(e))
        raise typer.Exit(DeadlineExceeded.exit_code)
    except PorterError as e:
        if verbose:
            err().print(literal(_traceback()))
        say("error:" if e.exit_code == EXIT_USAGE else "internal error:", "red", str(e))
        raise typer.Exit(e.exit_code)
    except KeyboardInterrupt:
        err().print("interrupted")
        raise typer.Exit(130)
    except Terminated as e:
        err().print(f"terminated by {e.name}; files already rewritten in place were restored", markup=False)
        raise typer.Exit(128 + e.signum)
    except typer.Exit:
        raise
    except Exception as e:  # a crash must never look like "findings"
        if verbose:
            err().print(literal(_traceback()))
        say("internal error:", "red", f"{type(e).__name__}: {e} (run with -v for the traceback)")
        raise typer.Exit(EXIT_INTERNAL)
    finally:
        unwatch_deadline()
    raise typer.Exit(code)


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived while files were being rewritten: unwinds like Ctrl-C so the writer restores them."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum
        self.name = signal.Signals(signum).name


@contextlib.contextmanager
def unwind_on_signals():
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


# What a command leaves to the end of a process that porter.cli.entry ends with os._exit (see leave_to_exit).
LEFT_TO_EXIT: list = []
_ENDING = {"without_freeing": False}


def end_without_freeing() -> None:
    """Called by porter.cli.entry: this process ends with os._exit, so what a command rendered may be kept."""
    _ENDING["without_freeing"] = True


def ends_with_command() -> bool:
    """Whether this process ends when its command returns (porter.cli.entry), so what the command keeps may be kept
    as it is to the end (porter.cache.keep_decoded_to_exit)."""
    return _ENDING["without_freeing"]


def leave_to_exit(obj) -> None:
    """Keep `obj` (what a command rendered) alive to the end of the process when entry() ends it with os._exit:
    freeing a scan's result object by object when the command returns was ~10 ms of a cuda-samples scan, for
    nothing anyone sees. In any other process (tests, the library) it is freed as usual."""
    if _ENDING["without_freeing"]:
        LEFT_TO_EXIT.append(obj)


@contextlib.contextmanager
def uncollected_imports(module: str):
    """Load `module` (and what it imports) with the cycle collector off, then exempt the loaded objects from it
    (gc.freeze), as porter.cli's own imports are (see porter/cli/__init__.py). Only the first time: a process that
    runs several commands (tests) must not freeze the garbage of earlier ones."""
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
