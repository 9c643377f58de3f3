"""porter's own rules whose regexes ran on Python's backtracking engine took time superlinear in a file's length.

The README says rule regexes run on RE2, in linear time; a shipped pattern RE2 cannot express (a look-around) ran
on `re` instead. DEV014's `NAME = ... cc >= 80 ? a : b` pattern and DEV011's `(threads + 31) / 32` pattern each
held a `=(?!=)` before a lazy `[^;{}]*?`: every `warp=` in a run without `;`, `{` or `}` started a scan to the
run's end, each of which tried the rest of the pattern at every step. A 65 KB line of `warp=` took DEV014 past
the 30 s file budget (the file was skipped, its kernel unseen); 16 KB of `threads=` took DEV011 1.3 s. The
look-ahead only says the `=` is not the first of `==`, which a class says as well (`=(?:[^=;{}][^;{}]*?)??`),
so both now run on RE2.
"""
from __future__ import annotations

from porter.match.regex import _Pattern, compile_regex
from porter.pipeline import scan
from porter.rules import load_rules
from porter.settings import Settings


def _rule_regexes(rule_id: str) -> list[str]:
    rule = next(r for r in load_rules().rules if r.id == rule_id)
    return [p["regex"] for p in rule.patterns if "regex" in p]


def test_the_assignment_patterns_of_dev011_and_dev014_run_on_the_linear_engine():
    for rid, marker in (("DEV014", "?\\s*\\d+\\s*:"), ("DEV011", "\\+\\s*31")):
        pats = [p for p in _rule_regexes(rid) if marker in p and "[^;{}]*?" in p]
        assert pats, rid
        assert all(isinstance(compile_regex(p), _Pattern) for p in pats), rid


def test_a_long_run_of_assignments_is_scanned_within_a_small_budget(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    pad = "warp=" * 13_000 + "threads=" * 8_000  # 129 KB on one line: no `;`, `{` or `}` to end a run
    (src / "a.cu").write_text(
        "__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n"
        + pad + "\n"
        + "int pick(int sm) { int num_warps = sm >= 80 ? 8 : 4; return num_warps; }\n"
        + "void go(int n) { int threads = 256; dim3 grid((threads + 31) / 32); }\n")
    result = scan(src, Settings(jobs=1, file_seconds=10))
    assert [s.path for s in result.skipped] == []
    hits = sorted((f.rule, f.line) for f in result.findings if f.rule in ("DEV011", "DEV014"))
    assert ("DEV014", 3) in hits
    assert ("DEV011", 4) in hits


# The patterns as they were (on `re`), to show the rewrite kept their meaning: same matches, same `hit` spans.
OLD = {
    "DEV014": r"(?:\b\w*(?:[Ww]arps?|WARPS?|[Tt]hreads|THREADS|[Bb]lock|BLOCK|[Tt]ile|TILE|[Ss]tages|STAGES|MMQ|mmq|"
              r"[Rr]ows|ROWS|[Cc]ols|COLS|[Ss]plit|SPLIT)\w*\s*=(?!=)[^;{}]*?|\breturn\s+)(?P<hit>\b(?:\w+_)?(?:cc|arch|"
              r"sm|CC|ARCH|SM|major|sm_version|compute_capability)(?:_\w+)?\s*(?:>=|<=|==|>|<)\s*(?:\w*(?:CC|ARCH|SM)_"
              r"(?:KEPLER|MAXWELL|PASCAL|VOLTA|TURING|AMPERE|ADA|ADA_LOVELACE|HOPPER|BLACKWELL)\w*|[5-9]\d|1[0-2]\d|"
              r"[5-9]\d0|1[0-2]\d0)\s*\?\s*\d+\s*:\s*\d+)\b",
    "DEV011": r"(?:\bdim3\s+\w*(?:[Bb]lock|[Tt]hreads?)\w*\s*\(|\b(?:\w*(?:[Tt]hreads?|THREADS?|[Ww]arps?|WARPS?)\w*|"
              r"[TW]PB|[tw]pb|block(?:\s*\.\s*[xyz])?|\w*[Bb]lock_?(?:[Ss]ize|[Dd]im)\w*|BLOCK_SIZE\w*)\s*=(?!=))"
              r"[^;{}]*?\+\s*31\s*\)\s*(?P<hit>/\s*32|>>\s*5)\b",
}
PIECES = {
    "DEV014": [("", "x;", "{", "\n", "return ", "y = 1;"), ("num_warps", "warps", "BLOCK_M", "threads", "x_rows", "w", ""),
               ("", " "), ("=", "==", "= ="), ("", " ", "=", "a + ", "(", ";", "{"),
               ("cc", "sm", "x_cc", "major", "CC"), ("", " "), (">=", "<", "==", "="), ("", " "),
               ("80", "7", "700", "GGML_CUDA_CC_VOLTA", "SM_AMPERE_X", "130"), ("", " "), ("?", ""), ("", " "),
               ("128", "x"), (" : ", ":", " ; "), ("64", "y"), ("", ";", "_x", " ")],
    "DEV011": [("", "x;", "{", "\n", "dim3 "), ("block", "threads", "nThreads", "TPB", "BLOCK_SIZE", "block.x", "x"),
               ("", " "), ("(", "=", "==", "= ="), ("", " ", "=", "(n", "n", ";", "{", "=n"), ("+", " + ", ""), ("", " "),
               ("31", "32"), ("", " "), (")", ""), ("", " "), ("/", ">>", "/ ", ""), ("", " "), ("32", "5", "64"),
               ("", ";", "x", ")")],
}


def test_the_rewritten_patterns_match_what_the_look_ahead_versions_matched():
    import random
    import re

    rng = random.Random(18)
    for rid, old in OLD.items():
        new = next(p for p in _rule_regexes(rid) if "[^=;{}][^;{}]*?)??" in p)
        before, after = re.compile(old.encode()), compile_regex(new)
        matched = 0
        for _ in range(6000):
            text = "".join(rng.choice(c) for c in PIECES[rid]) * rng.randint(1, 2)
            want = [(m.span(), m.span("hit")) for m in before.finditer(text.encode())]
            assert [(m.span(), m.span("hit")) for m in after.finditer(text.encode())] == want, text
            matched += bool(want)
        assert matched > 20, rid  # the texts reach the patterns' matches, not only their misses
