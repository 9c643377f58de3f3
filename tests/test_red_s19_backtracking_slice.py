"""One of porter's own patterns that must run on Python's backtracking `re` took the whole file's budget.

PYT011's `NAME = ... else 32` pattern (a look-ahead keeps it off RE2) scans `[^\\n#]*?` from every `num_warps =`
on a line: one 140 KB line of them took it past the 30 s per-file budget, the file was skipped and every other
rule's findings in it were lost with it. 36 shipped patterns run on `re`; instead of rewriting them one by one,
every search on `re` now runs under a time slice (porter.match.regex.backtrack_seconds): past it the rule stops on
that file and says so in a finding (which a gate counts), and the rest of the file is scanned as usual.
"""
from __future__ import annotations

import signal
import time

import pytest

from porter.match import regex as rx_mod
from porter.match.regex import Backtracked, compile_regex
from porter.pipeline import scan
from porter.rules import load_rules
from porter.settings import Settings

LONG = "num_warps = 1 " * 10_000  # 140 KB on one line


def _pyt011_else_pattern() -> dict:
    rule = next(r for r in load_rules().rules if r.id == "PYT011")
    return next(p for p in rule.patterns if "else[ \\t]+(?P<hit>" in p["regex"])


def test_a_backtracking_search_past_its_slice_raises_and_leaves_no_timer(monkeypatch):
    monkeypatch.setattr(rx_mod, "BACKTRACK_BASE_S", 0.3)
    monkeypatch.setattr(rx_mod, "BACKTRACK_PER_MIB_S", 0.0)
    p = _pyt011_else_pattern()
    rx = compile_regex(p["regex"], tuple(p.get("flags", ())))
    before = signal.getsignal(signal.SIGALRM)
    t = time.monotonic()
    with pytest.raises(Backtracked):
        list(rx.finditer(LONG.encode() + b"\n"))
    assert time.monotonic() - t < 2.0
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is before
    # Within the slice the pattern means what it meant: the same matches.
    line = b"    ce_num_warps = 8 if small else 32\n"
    assert [m.group("hit") for m in rx.finditer(line)] == [b"32"]
    with pytest.raises(Backtracked):
        rx.search(LONG.encode())


def test_a_quadratic_line_costs_one_rule_a_slice_not_the_file_its_findings(tmp_path, monkeypatch):
    monkeypatch.setattr(rx_mod, "BACKTRACK_BASE_S", 0.5)
    monkeypatch.setattr(rx_mod, "BACKTRACK_PER_MIB_S", 0.0)
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.py").write_text("import triton\nimport triton.language as tl\nx = 1\n" + LONG + "\n"
                              "def pick(n):\n    num_warps = 32\n    num_warps = 8 if n else 32\n    return num_warps\n")
    # The budget is wall clock on a shared, loaded machine: generous, the slice is what bounds the rule.
    result = scan(src, Settings(jobs=1, file_seconds=120))
    assert [s.path for s in result.skipped] == []
    hits = sorted((f.rule, f.line, f.message.split(":")[0]) for f in result.findings if f.rule == "PYT011")
    assert hits[0][:2] == ("PYT011", 1)
    assert hits[0][2].startswith("PYT011 was not checked to the end of this file")
    assert ("PYT011", 6) in [h[:2] for h in hits]
