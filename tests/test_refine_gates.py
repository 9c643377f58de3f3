"""porter.match.refine runs a file's fallback search only when a finding can use it (issue 26, speed)."""
from __future__ import annotations

import porter.match.refine as refine_module
from porter.match.draft import Draft
from porter.model import Confidence, Severity, Status
from porter.source.parse import parse

# Line 2's test has a plain-C #else that HIP compiles: a DEV009 there is dropped (the fallback search says so).
TEXT = b"""__global__ void k(float* x) {
#if __CUDA_ARCH__ >= 700
  x[0] = __ldg(x);
#else
  x[0] = x[1];
#endif
}
"""


def _draft(line: int, rule: str) -> Draft:
    return Draft(path="k.cu", line=line, column=1, rule=rule, end_line=line, end_column=2, category="device",
                 severity=Severity.MEDIUM, confidence=Confidence.HIGH, message="m", snippet="", function=None,
                 kernel=None, fingerprint="", replacement=None, data=(), status=Status.OPEN, handled_by=None)


def _counting(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = refine_module.fallback_tests

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(refine_module, "fallback_tests", counted)
    return calls


def test_a_file_without_fallback_findings_skips_the_fallback_search(monkeypatch):
    calls = _counting(monkeypatch)
    sf = parse("k.cu", "cuda", TEXT)
    kept = refine_module.refine([_draft(2, "DEV001"), _draft(3, "KRN001")], sf)
    assert calls == []
    assert [(f.line, f.rule) for f in kept] == [(2, "DEV001"), (3, "KRN001")]


def test_a_fallback_finding_still_runs_the_search_and_is_dropped_at_a_compiled_else(monkeypatch):
    calls = _counting(monkeypatch)
    sf = parse("k.cu", "cuda", TEXT)
    kept = refine_module.refine([_draft(2, "DEV001"), _draft(2, "DEV009")], sf)
    assert calls == [1]
    assert [(f.line, f.rule) for f in kept] == [(2, "DEV001")]
