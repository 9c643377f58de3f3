"""Where a command's output goes: a report to stdout or a contained file, notices on stderr, and progress (a bar on
a terminal, a plain line every few seconds in a CI log)."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional

from porter.cli.base import err, leave_to_exit, no_color, say, stderr_may_be_terminal
from porter.errors import UsageError

# A CI log gets a progress line at most this often (seconds): enough to see a long scan move, few enough to read.
PLAIN_PROGRESS_SECONDS = 10.0

def to_stdout(output: Optional[Path]) -> bool:
    return output is None or str(output) == "-"


def check_suffix(format: Optional[str], output: Optional[Path], suffixes) -> None:
    """With -o FILE and no --format the format comes from FILE's suffix; a suffix no format has (report.docx) is
    refused rather than filled with console text. A name without a suffix gets console text, as stdout does."""
    if format or to_stdout(output) or not output.suffix:
        return
    if output.suffix.lower() not in suffixes:
        raise UsageError(f"-o {output}: no format writes {output.suffix} files (suffixes: {', '.join(suffixes)}); "
                         "name one with --format")


def inert_in_actions(data: bytes) -> bytes:
    """`data` made inert to the GitHub Actions runner when porter runs in a workflow step (GITHUB_ACTIONS=true).

    The runner executes any stdout line whose first non-blank characters are `::cmd::` and any `##[cmd]` anywhere
    in a line; a repository's file names, code and commit subjects reach the console, JSON and history reports, and
    rich wraps a long name onto a line of its own (`::error::x.cu`, `##[set-output ...]`). The runner's documented
    way to print untrusted text is to stop command processing around it with a token nobody can guess
    (docs.github.com/en/actions/reference/workflow-commands-for-github-actions, "Stopping and starting workflow
    commands"): here the SHA-256 of the text itself, which the text cannot contain, so the output stays deterministic."""
    import hashlib

    token = hashlib.sha256(data).hexdigest()
    tail = b"" if not data or data.endswith(b"\n") else b"\n"
    return b"::stop-commands::" + token.encode() + b"\n" + data + tail + b"::" + token.encode() + b"::\n"


def outside_actions_wrapper(data: bytes) -> bytes:
    """`data` without the wrapper inert_in_actions put around it, when it has exactly that wrapper (a report piped
    from `porter scan` inside a workflow step into `porter comment -`); anything else unchanged. The token must be
    the SHA-256 of what it wraps, so text that only looks like a wrapper stays as it is."""
    import hashlib

    head, sep, rest = data.partition(b"\n")
    token = head[len(b"::stop-commands::"):]
    if not sep or not head.startswith(b"::stop-commands::") or len(token) != 64:
        return data
    tail = b"::" + token + b"::\n"
    if not rest.endswith(tail):
        return data
    inner = rest[:-len(tail)]
    for candidate in (inner, inner[:-1] if inner.endswith(b"\n") else None):
        if candidate is not None and hashlib.sha256(candidate).hexdigest().encode() == token:
            return candidate
    return data


def commands_in(text: str) -> bool:
    """True when the GitHub Actions runner would act on some line of `text`: a line whose first non-blank characters
    are `::`, or `##[` anywhere (the two forms inert_in_actions documents)."""
    return "##[" in text or any(line.lstrip().startswith("::") for line in text.splitlines())


class InertStderr:
    """sys.stderr for a run inside a GitHub Actions step: every write that the runner would read as a workflow
    command goes out wrapped by inert_in_actions; the rest passes through unchanged, so a log stays readable.

    The runner reads commands from stderr as from stdout, and notices quote what they are about (paths, commit
    subjects, compiler lines). Replacing the stream once, where the command line starts, covers rich's stderr
    console, print(file=sys.stderr) and progress lines alike: no writer has to remember. Each write is wrapped on
    its own, so a github-format report on stdout between two notices keeps its annotations."""

    def __init__(self, inner):
        self.inner = inner

    def write(self, text: str) -> int:
        if commands_in(text):
            wrapped = inert_in_actions(text.encode("utf-8", "surrogateescape"))
            buffer = getattr(self.inner, "buffer", None)  # a text-only stream (a test's StringIO) has none
            self.inner.flush()
            if buffer is None:
                self.inner.write(wrapped.decode("utf-8", "surrogateescape"))
            else:
                buffer.write(wrapped)
                buffer.flush()
        else:
            self.inner.write(text)
        return len(text)

    def __getattr__(self, name):  # flush, isatty, fileno, encoding, buffer...: the real stream's
        return getattr(self.inner, name)


def write_output(data: bytes, output: Optional[Path], commands: bool = False, styled: bool = False) -> None:
    """`data` to stdout (no -o, or -o -) or to the file -o names, contained in the checkout that holds it. On stdout
    in a GitHub Actions step, text that is not meant as workflow commands (`commands`: the github format) is
    wrapped inert (inert_in_actions). On a terminal, control characters are shown as escapes (a diff or patch
    quotes the repository's code as it is: an ESC in it would steer the terminal) unless `styled`: a console report
    whose escapes are porter's own colours, its repository text already escaped (porter.render.safe.literal). A
    pipe or a file gets the bytes."""
    if to_stdout(output):
        if not commands and os.environ.get("GITHUB_ACTIONS") == "true":
            data = inert_in_actions(data)
        if not styled and sys.stdout.isatty():
            from porter.render.safe import printable

            data = printable(data.decode("utf-8", "surrogateescape")).encode("utf-8")
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


def stdout_width() -> int:
    """The width rich gives stdout: the terminal's, or $COLUMNS when piped."""
    from rich.console import Console

    return Console().width


def colour_on_stdout(output: Optional[Path]) -> bool:
    """Colour (and terminal control) only for a terminal on stdout, and never under NO_COLOR or --no-color."""
    return to_stdout(output) and sys.stdout.isatty() and not no_color()


def show(run, fmt, output: Optional[Path], opts) -> bytes:
    """Render through the registry: to the terminal (colour, its width) or plain 120-column text into a file.
    Returns the bytes rendered (porter.cli.scan keeps them for an unchanged re-run: porter.runcache)."""
    import dataclasses

    # stdout: the terminal's width (or $COLUMNS when piped), colour only on a terminal; a file: plain 120 columns.
    opts = dataclasses.replace(opts, terminal=colour_on_stdout(output),
                               width=stdout_width() if to_stdout(output) else 120)
    from porter.cache import collector_paused

    # A report is tens of thousands of acyclic dicts and lists built beside the whole scan they describe: the
    # collector would walk both again and again (half of rendering cuda-samples as JSON).
    with collector_paused():
        data = fmt.render(run, opts)
    write_output(data, output, commands=fmt.name == "github", styled=fmt.name == "console")
    notes(run.result.stats.notices)
    leave_to_exit(run)
    return data


def notes(notices) -> None:
    for notice in notices:
        say("note:", "yellow", notice)


class PlainProgress:
    """Progress for a log: one plain line on stderr when `period` seconds have passed since the last one (the first
    after `period` too: a quick run prints none). `clock` is time.monotonic outside tests."""

    def __init__(self, label: str, write: Callable[[str], None], period: float = PLAIN_PROGRESS_SECONDS,
                 clock: Callable[[], float] = time.monotonic):
        self.label, self.write, self.period, self.clock = label, write, period, clock
        self.last = clock()

    def __call__(self, done: int, total: int | None, detail: str = "") -> None:
        now = self.clock()
        if now - self.last < self.period:
            return
        self.last = now
        of = f"/{total}" if total is not None else ""
        self.write(f"{self.label}: {done}{of}{' ' + detail if detail else ''}\n")


def _stderr_line(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def scan_progress(enabled: bool):
    """(a context manager or None, a progress callback or None): a rich bar on a terminal, plain lines otherwise."""
    if not enabled:
        return None, None
    if not stderr_may_be_terminal() or not err().is_terminal:
        return None, PlainProgress("scanning files", _stderr_line)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    prog = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=err(), transient=True)
    task = prog.add_task("scanning", total=None)
    return prog, lambda done, total: prog.update(task, completed=done, total=total)


def history_detail(p: Any) -> str:
    """'this point: 6768/6937 files · 6768 blobs scanned, 0 cache hits' while a point's files are scanned (the first
    point scans the whole tree), else the running totals alone."""
    totals = f"{p.blobs_scanned} blobs scanned, {p.cache_hits} cache hits"
    return f"this point: {p.files_done}/{p.files_total} files · {totals}" if p.files_total else totals


def history_progress(enabled: bool):
    """Progress while a history walks: points done, blobs scanned, cache hits; a bar on a terminal, plain lines in a
    log."""
    if not enabled:
        return None, None
    if not stderr_may_be_terminal() or not err().is_terminal:
        plain = PlainProgress("history commits", _stderr_line)
        return None, lambda p: plain(p.commits_done, p.commits_total, f"({history_detail(p)})")
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    prog = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[detail]}"), TimeElapsedColumn(), console=err(), transient=True)
    task = prog.add_task("commits", total=None, detail="")
    return prog, lambda p: prog.update(task, completed=p.commits_done, total=p.commits_total,
                                       detail=history_detail(p))
