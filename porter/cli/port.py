"""`porter port`: one source tree that builds for NVIDIA and AMD, as a patch or applied to a clean git work tree."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

import porter.cli.options as options
from porter.cli.base import EXIT_FINDINGS, EXIT_OK, PlainHelp, app, err, run_command, unwind_on_signals
from porter.cli.runs import settings_for
from porter.errors import UsageError


@app.command("port", cls=PlainHelp)
def port_cmd(
    path: Path = options.path("The repository to port (a git work tree for --apply)."),
    output: Optional[Path] = options.output("Write the patch here (default: stdout)."),
    apply: bool = typer.Option(False, "--apply", metavar="", help="Apply the patch to PATH (a clean git work tree)."),
    header: str = typer.Option("porter_hip_compat.h", "--header", metavar="PATH", help="The compat header's path in the repository."),
    mask_type: str = typer.Option("lane_mask_t", "--mask-type", metavar="NAME", help="The portable lane-mask type's name."),
    gfx: Optional[List[str]] = typer.Option(None, "--gfx", metavar="GFX", help="ROCm architectures for the build files (repeatable; default gfx90a, gfx942, gfx950)."),
    summary: Optional[Path] = typer.Option(None, "--summary", metavar="FILE", help="Write the JSON summary (changes, open work) here ('-': stdout, instead of the patch)."),
    verify: bool = typer.Option(False, "--verify", metavar="", help="With --apply: compile the ported tree with nvcc and the HIP compilers found."),
    include_dir: List[Path] = typer.Option([], "-I", "--include-dir", metavar="DIR", help="A directory of the project's headers for --verify (repeatable)."),
    define: List[str] = typer.Option([], "-D", "--define", metavar="NAME[=VALUE]", help="A macro for --verify (repeatable)."),
    compile_commands: Optional[Path] = typer.Option(None, "--compile-commands", metavar="FILE", help="A compile_commands.json for --verify's flags."),
    include: Optional[List[str]] = options.include(),
    exclude: Optional[List[str]] = options.exclude(),
    config: Optional[Path] = options.config(),
    isolated: bool = options.isolated(),
    verbose: bool = options.verbose("List every change; tracebacks."),
    no_color: bool = options.no_color(),
) -> None:
    """Write the minimal-footprint dual build: a compat header, portable fixes and ROCm build branches."""

    def body() -> int:
        from porter.port import PortOptions
        from porter.port.run import port_repository
        from porter.port.model import DEFAULT_HEADER
        from porter.port.patch import apply as apply_plan, as_applied, unified_diff
        from porter.port.report import render_text

        if not path.is_dir():
            raise UsageError(f"{path}: porter port needs a directory")
        if not mask_type.isidentifier():
            raise UsageError(f"--mask-type {mask_type!r}: must be a C identifier")
        if verify and not apply:
            raise UsageError("--verify compiles the ported tree: it needs --apply")
        opts = PortOptions(header=header or DEFAULT_HEADER, mask_type=mask_type,
                           gfx=tuple(gfx) if gfx else PortOptions().gfx)
        settings = settings_for(path, options.command_line(include, exclude, config=config, isolated=isolated))
        plan = port_repository(path, settings, opts)
        from porter.cli.output import write_output

        data = unified_diff(plan)
        if apply:
            with unwind_on_signals():
                written = apply_plan(plan)
            print(f"porter port: applied to {len(written)} file(s) in {path}", file=sys.stderr)
            plan = as_applied(plan)  # the open items where the applied files now have them
        elif output is not None or summary is None or str(summary) != "-":
            write_output(data, output)  # `--summary -` takes stdout's place only when the patch has no file of its own
        render_text(plan, err(), verbose=verbose)
        doc = plan.to_dict()
        doc["root"] = str(path)
        if verify:
            doc["verify"] = _verify(path, settings, plan, include_dir, define, compile_commands)
        if summary is not None:
            write_output((json.dumps(doc, indent=2, sort_keys=True) + "\n").encode(), summary)
        # A unit that failed where porter's own port is wrong fails the command, as a file translate failed on does:
        # CI running `port --apply --verify` must not pass on code porter wrote wrongly. Predicted failures (open work
        # the port listed) and this machine's missing libraries do not.
        if verify and any(s["defect"] for s in doc["verify"]["summary"].values()):
            return EXIT_FINDINGS
        return EXIT_OK

    run_command(body, verbose)


def _verify(path: Path, settings, plan, include_dir, define, compile_commands) -> dict:
    """Scan the ported tree again (its open findings predict failures) and compile it with every compiler here."""
    from porter.pipeline import run
    from porter.port.verify import render, summary, units_of, verify_tree, written_lines
    from porter.source.read import source_for
    from porter.translate.buildinfo import build_info
    from porter.translate.model import TranslateError

    after = run(source_for(path.resolve(), None), settings).result
    paths = [f.path for f in after.files]
    units = units_of(paths, {fp.path for fp in plan.files}, path.resolve())
    try:
        build = build_info(path, paths, tuple(str(p) for p in include_dir), tuple(define), None, compile_commands)
    except TranslateError as e:
        raise UsageError(str(e)) from None
    results, missing = verify_tree(path, units, list(after.findings), build, paths=paths,
                                   written=written_lines(plan))
    render(results, missing, err())
    return {"summary": summary(results), "missing": missing, "units": [r.to_dict() for r in results]}
