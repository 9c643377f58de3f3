"""The port's entry: scan the work tree, then plan its port in a budgeted worker (porter.budget)."""
from __future__ import annotations

from pathlib import Path

from porter.port.model import PortOptions, PortPlan


def port_repository(path: Path, settings, options: PortOptions = PortOptions()) -> PortPlan:
    """Scan the work tree at `path` with `settings` and plan its port (under the stage budget)."""
    import dataclasses

    from porter.budget import Overrun, run_stage, stage_budget
    from porter.errors import UsageError
    from porter.pipeline import file_budget, run
    from porter.source.read import source_for

    root = Path(path).resolve()
    if not root.is_dir():
        raise UsageError(f"{path}: porter port needs a directory (a git work tree for --apply)")
    result = run(source_for(root, None), settings).result
    from porter.model.report import ScanStats

    # What the worker needs is the findings and kernels: not the rule set or the scan's held file bytes.
    result = dataclasses.replace(result, rules=None, stats=ScanStats())
    budget = stage_budget(file_budget(settings), max(1, len(result.files)))
    answer = run_stage(_plan_task, (root, result, options), budget)
    if isinstance(answer, Overrun):
        raise UsageError(f"{path}: planning the port {answer.reason}; nothing written")
    return answer


def _plan_task(root: Path, result, options: PortOptions) -> PortPlan:
    from porter.port.plan import plan

    return plan(root, result, options)
