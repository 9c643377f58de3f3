"""The data porter passes between pipeline stages: frozen dataclasses and enums, nothing that does work.

Every stage takes and returns these values, so a stage can be tested alone and results can be cached,
compared and serialised. `to_dict` gives the JSON contract documented in porter/schemas/scan.schema.json.
"""
from porter.model.finding import Confidence, Finding, Severity, Skipped, Status
from porter.model.kernel import Kernel, Launch
from porter.model.report import (SCHEMA_VERSION, AnalysedTarget, FileResult, KernelAnalysisSummary, PortFacts,
                                 PortStatusSummary, ScanResult, ScanStats, StatusCounts)

__all__ = ["SCHEMA_VERSION", "AnalysedTarget", "Confidence", "FileResult", "KernelAnalysisSummary", "Finding", "Kernel", "Launch", "PortFacts", "PortStatusSummary",
           "ScanResult", "ScanStats", "Severity", "Skipped", "Status", "StatusCounts"]
