"""The data porter passes between pipeline stages: frozen dataclasses and enums, nothing that does work.

Every stage takes and returns these values, so a stage can be tested alone and results can be cached,
compared and serialised. `to_dict` gives the JSON contract documented in porter/schemas/scan.schema.json.

Each name is loaded from its module on first use (PEP 562): making the ~40 dataclasses of kernel and report was a
tenth of a re-scan that porter.runcache answers, which needs only Severity and Skipped.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from porter.model.finding import Confidence, Finding, Severity, Skipped, Status
    from porter.model.kernel import Kernel, Launch
    from porter.model.report import (SCHEMA_VERSION, AnalysedTarget, FileResult, KernelAnalysisSummary, PortFacts,
                                     PortStatusSummary, ScanResult, ScanStats, StatusCounts)

_WHERE = {
    **dict.fromkeys(("Confidence", "Finding", "Severity", "Skipped", "Status"), "finding"),
    **dict.fromkeys(("Kernel", "Launch"), "kernel"),
    **dict.fromkeys(("SCHEMA_VERSION", "AnalysedTarget", "FileResult", "KernelAnalysisSummary", "PortFacts",
                     "PortStatusSummary", "ScanResult", "ScanStats", "StatusCounts"), "report"),
}

__all__ = ["SCHEMA_VERSION", "AnalysedTarget", "Confidence", "FileResult", "KernelAnalysisSummary", "Finding", "Kernel", "Launch", "PortFacts", "PortStatusSummary",
           "ScanResult", "ScanStats", "Severity", "Skipped", "Status", "StatusCounts"]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'porter.model' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"porter.model.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
