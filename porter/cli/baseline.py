"""`porter baseline`: the fingerprints of today's findings, so `scan --baseline` reports only what is added later."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import porter.cli.options as options
from porter.cli.base import EXIT_OK, PlainHelp, app, err, run_command
from porter.cli.output import write_output
from porter.cli.runs import pipeline
from porter.render.safe import literal


@app.command("baseline", cls=PlainHelp)
def baseline_cmd(
    path: Path = options.path(),
    output: Path = options.output("Write the baseline JSON here (commit it; `scan --baseline` reads it).", required=True),
    target: Optional[List[str]] = options.targets(),
    include: Optional[List[str]] = options.include(),
    exclude: Optional[List[str]] = options.exclude(),
    rev: Optional[str] = options.rev("The tree of this git commit (from git objects)."),
    no_cache: bool = options.no_cache(),
    config: Optional[Path] = options.config(),
    isolated: bool = options.isolated(),
    verbose: bool = options.verbose(),
) -> None:
    """Write the fingerprints of today's findings, so `scan --baseline FILE` reports only what is added later."""

    def body() -> int:
        from porter.diff import baseline_document
        from porter.render.json import render_bytes

        cli = options.command_line(include, exclude, target=target, no_cache=no_cache, config=config,
                                   isolated=isolated)
        # --isolated: as `scan --baseline --isolated` reads the tree it compares (porter.pipeline.run_diff)
        run = pipeline(path, cli, rev, assess=False, show_progress=False, untrusted=isolated)
        write_output(render_bytes(baseline_document(run.result)), output)
        err().print(f"baseline: {len(run.result.findings)} findings, {len(run.result.kernels)} kernels → ",
                    literal(str(output)), sep="")
        return EXIT_OK

    run_command(body, verbose)
