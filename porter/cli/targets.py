"""`porter targets`: the AMD GPU target profiles, the ids --target takes."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

import porter.cli.options as options
from porter.cli.base import EXIT_OK, PlainHelp, app, run_command, stdout_console
from porter.errors import UsageError
from porter.render.safe import literal


@app.command("targets", cls=PlainHelp)
def targets_cmd(
    format: str = options.format_("console or json.", "console"),
    profile: Optional[List[Path]] = typer.Option(None, "--profile", metavar="FILE", help="Also load this user profile file (repeatable)."),
    no_color: bool = options.no_color(),
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
            t.add_row(literal(tg.id), literal(tg.name), literal(tg.gfx), literal(tg.architecture), str(tg.wavefront_size),
                      f"{tg.lds_kib:g}", str(tg.compute_units), tg.matrix_unit, f"{tg.hbm_gib:g}")
        stdout_console().print(t)
        return EXIT_OK

    run_command(body)
