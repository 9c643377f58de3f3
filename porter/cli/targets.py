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
        from porter.render.layout import Col, fit_table

        # The id (what --target takes), name and gfx always; the rest while the terminal is wide enough.
        cols = [Col("id", 0, wrap="none"), Col("name", 0, 12), Col("gfx", 0, wrap="none"), Col("arch", 2, wrap="none"),
                Col("wave", 1, wrap="none"), Col("LDS KiB", 1, wrap="none"), Col("CUs", 3, wrap="none"),
                Col("matrix", 2, wrap="none"), Col("HBM GiB", 3, wrap="none")]
        rows = [[literal(tg.id), literal(tg.name), literal(tg.gfx), literal(tg.architecture), str(tg.wavefront_size),
                 f"{tg.lds_kib:g}", str(tg.compute_units), tg.matrix_unit, f"{tg.hbm_gib:g}"] for tg in loaded.values()]
        out = stdout_console()
        out.print(fit_table(f"{len(loaded)} targets", cols, rows, out.width))
        return EXIT_OK

    run_command(body)
