"""`porter fleet` commands (scan, report) as a typer app that porter.cli mounts with one add_typer line: options
into porter.fleet calls, errors into porter's exit codes (0 ok, 2 usage or input, 3 internal)."""
from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import Callable, List, Optional

import typer

from porter.errors import PorterError

app = typer.Typer(name="fleet", help="Assess and track many repositories into a database, then report on the estate.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)

DEFAULT_DB = "porter-fleet.db"


def _run(body: Callable[[], int], verbose: bool) -> None:
    try:
        code = body()
    except PorterError as e:
        from porter.render.safe import one_line

        print(one_line(f"error: {e}"), file=sys.stderr)
        code = e.exit_code
    except KeyboardInterrupt:
        print("interrupted: finished repositories are recorded; run the same command to resume", file=sys.stderr)
        code = 130
    except Exception as e:  # a crash must never look like success
        if verbose:
            traceback.print_exc()
        print(f"internal error: {type(e).__name__}: {e}", file=sys.stderr)
        code = 3
    raise typer.Exit(code)


def _default_clone_cache() -> Path:
    from porter.settings import default_cache_dir

    return default_cache_dir() / "fleet-clones"


@app.command("scan")
def scan_cmd(
    repositories: Path = typer.Argument(..., metavar="LIST", help="A file of `LOCATION [REF [NAME]]` lines, or a directory of clones."),
    db: str = typer.Option(DEFAULT_DB, "--db", metavar="DB", help="SQLite file or postgresql://… URL."),
    target: Optional[List[str]] = typer.Option(None, "--target", "-t", metavar="TARGET", help="AMD target id(s), gfx name or 'all' (default: mi355x)."),
    workers: int = typer.Option(1, "--workers", "-w", metavar="N", help="Local worker processes (one repository each)."),
    executor: Optional[str] = typer.Option(None, "--executor", metavar="URL", help="dask://HOST:PORT: run on an existing Dask cluster (extra 'fleet-dask')."),
    clone_cache: Optional[Path] = typer.Option(None, "--clone-cache", metavar="DIR", help="Where clones are kept (default: the porter cache's fleet-clones)."),
    include: Optional[List[str]] = typer.Option(None, "--include", metavar="GLOB", help="Only paths matching this glob (repeatable)."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", metavar="GLOB", help="Skip paths matching this glob (repeatable)."),
    trust_config: bool = typer.Option(False, "--trust-config", metavar="", help="Read each repository's own porter configuration (default: --isolated)."),
    timeout: float = typer.Option(1800.0, "--timeout", metavar="SECONDS", help="Per repository: clone or fetch, then assessment."),
    no_cache: bool = typer.Option(False, "--no-cache", metavar="", help="Do not read or write porter's result cache."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", metavar="DIR", help="porter's result cache (default: $PORTER_CACHE_DIR or ~/.cache/porter)."),
    history: Optional[str] = typer.Option(None, "--history", metavar="PERIOD", help="Also record history points: daily, weekly or monthly (porter history)."),
    since: Optional[str] = typer.Option(None, "--since", metavar="DATE", help="With --history: points from this ISO date on."),
    new_run: bool = typer.Option(False, "--new-run", metavar="", help="Start a new run even when the last one was interrupted."),
    quiet: bool = typer.Option(False, "--quiet", "-q", metavar="", help="No line per repository on stderr."),
    verbose: bool = typer.Option(False, "--verbose", "-v", metavar="", help="Tracebacks on internal errors."),
) -> None:
    """Assess every repository of LIST into the database; a key already stored is not assessed again."""

    def body() -> int:
        from porter.errors import UsageError
        from porter.fleet import inventory
        from porter.fleet.assess import Options
        from porter.fleet.scan import scan
        from porter.fleet.store import Store
        from porter.render.safe import one_line

        if workers < 1:
            raise UsageError("--workers must be 1 or more")
        if timeout <= 0:
            raise UsageError("--timeout must be more than 0 seconds")
        every = {"daily": "day", "weekly": "week", "monthly": "month", "day": "day", "week": "week",
                 "month": "month"}.get((history or "").lower()) if history else None
        if history and every is None:
            raise UsageError(f"--history {history}: daily, weekly or monthly")
        if since and not history:
            raise UsageError("--since needs --history")
        if since:
            from porter.history.walk import parse_date

            parse_date(since, "--since")
        entries = inventory.load(repositories)
        options = Options(targets=tuple(target or ()), include=tuple(include or ()), exclude=tuple(exclude or ()),
                          isolated=not trust_config, no_cache=no_cache, cache_dir=cache_dir,
                          clone_cache=(clone_cache or _default_clone_cache()).resolve(), timeout=timeout,
                          history_every=every, history_since=since)
        store = Store.open(db)
        try:
            def progress(o) -> None:
                if not quiet:
                    what = o.verdict if o.status == "assessed" else o.reason if o.status == "failed" else "stored"
                    print(one_line(f"{o.status:>8}  {o.name}  {what}  ({o.seconds:.1f} s)"), file=sys.stderr)

            s = scan(store, entries, options, executor=executor, workers=workers, resume=not new_run,
                     progress=progress)
        finally:
            store.close()
        print(f"fleet run {s.run_id}: {s.assessed} assessed, {s.stored} already stored, {s.failed} failed"
              + (f", {s.resumed} recorded before the interruption" if s.resumed else "")
              + (f"; {s.points} history points computed" + (f", {s.points_failed} failed" if s.points_failed else "")
                 if every else ""), file=sys.stderr)
        if s.failed and not (s.assessed or s.stored or s.resumed):
            # Nothing of the estate was assessed: a cron line `fleet scan ... && fleet report` must not go on to
            # report an empty estate as if the run had worked (the failures are stored, `fleet report` lists them).
            print("error: every repository failed; `porter fleet report` lists why", file=sys.stderr)
            return 2
        return 0

    _run(body, verbose)


@app.command("report")
def report_cmd(
    db: str = typer.Option(DEFAULT_DB, "--db", metavar="DB", help="SQLite file or postgresql://… URL."),
    run: Optional[int] = typer.Option(None, "--run", metavar="ID", help="Report this run (default: the latest)."),
    format: Optional[str] = typer.Option(None, "--format", "-f", metavar="FORMAT", help="console, markdown (md), json, csv or html; default: from -o's suffix, else console."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the report here (default: stdout)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", metavar="", help="Tracebacks on internal errors."),
) -> None:
    """The fleet from the database: ranking per target, verdicts, blockers, libraries, ready now, changes."""

    def body() -> int:
        from porter import contain
        from porter.fleet.render import format_name, render
        from porter.fleet.report import document
        from porter.fleet.store import Store

        name = format_name(format, str(output) if output else None)
        store = Store.open(db)
        try:
            data = render(name, document(store, run))
        finally:
            store.close()
        if output is None or str(output) == "-":
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            contain.write_bytes(output, data)
        return 0

    _run(body, verbose)
