"""`porter check`: the pre-commit hook: scan just the named files, one line per finding."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

import porter.cli.options as options
from porter.cli.base import PlainHelp, app, run_command
from porter.cli.gate import gate
from porter.cli.output import write_output
from porter.cli.runs import settings_for
from porter.cli.selection import selection, unselected


@app.command("check", cls=PlainHelp)
def check_cmd(
    files: List[Path] = typer.Argument(..., metavar="FILES...", help="Files of the repository in the current directory (pre-commit passes the staged ones)."),
    fail_on: str = options.fail_on("high"),
    target: Optional[List[str]] = options.targets(),
    isolated: bool = options.isolated(),
    select_rules: Optional[List[str]] = options.select(),
    ignore_rules: Optional[List[str]] = options.ignore(),
    min_severity: Optional[str] = options.min_severity(),
    verbose: bool = options.verbose(),
) -> None:
    """Scan just these files (the pre-commit hook): one line per finding, no translation, no assessment."""

    def body() -> int:
        import dataclasses
        import os

        from porter.model import Severity
        from porter.pipeline import run
        from porter.render.safe import one_line
        from porter.rulecatalog import rule_ids
        from porter.source.read import WorkTree

        root = Path(".")
        settings = settings_for(root, options.command_line(jobs=1, fail_on=fail_on, target=target,
                                                               isolated=isolated))
        known = rule_ids(settings.extra_rules)
        sel = selection(select_rules, ignore_rules, min_severity, known)
        # As `scan`: a rule --select leaves out or --ignore names does not run, so the gate does not count it
        # either; --min-severity narrows only the lines shown (--fail-on is the gate's own threshold).
        settings = dataclasses.replace(settings, disabled_rules=unselected(settings.disabled_rules, known, sel))
        wanted = frozenset(Path(os.path.relpath(f.resolve(), root.resolve())).as_posix() for f in files)
        result = run(WorkTree(root), settings, only=wanted).result
        lines = [f"{one_line(f.path)}:{f.line}:{f.column}: {f.rule} [{f.severity}] {one_line(f.message)}\n"
                 for f in result.findings if sel.min_severity is None or f.severity >= sel.min_severity]
        if lines:  # through the one stdout writer: a file named `::error file=…::k.cu` is no workflow command
            write_output("".join(lines).encode("utf-8", "surrogateescape"), None)
        return gate(result.findings, settings.fail_on if settings.fail_on is not None else Severity.HIGH)

    run_command(body, verbose)
