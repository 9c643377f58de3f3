"""A multiline `^\\s*` on Python's `re` is quadratic in a run of blank lines: a lint over porter's own patterns.

`^` matches at every line start, and `\\s*` then runs over every blank line after it before the rest of the pattern
fails; a run of N blank lines costs N^2/2 steps. porter.kernels.triton's `^\\s*from triton import ... jit` took
about 8 s on a 32 KB Python file of newlines (it runs on every Python file a Triton scan reads, outside any
per-pattern bound). `^[^\\S\\n]*` finds the same lines. This test fails when any regex literal in porter's source
(re.compile / re.search / ... / lazy_regex, with re.M or an inline `(?m)`) or any multiline rule pattern starts a
line with `\\s*` or `\\s+` again.
"""
from __future__ import annotations

import ast
import re
import time
from pathlib import Path

import yaml
from test_architecture import MODULES, porter_trees  # noqa: F401 - a fixture

ROOT = Path(__file__).resolve().parents[1]
_CALLS = {"compile", "search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "lazy_regex"}
_BLANK_RUN = re.compile(r"\^\\s[*+]")


def _literal(node: ast.AST) -> str:
    """The text of the string/bytes constants in an expression (a concatenation's pieces joined)."""
    parts = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, (str, bytes)):
            parts.append(sub.value.decode("latin-1") if isinstance(sub.value, bytes) else sub.value)
    return "".join(parts)


def _multiline(call: ast.Call, pattern: str) -> bool:
    if re.search(r"\(\?[a-zA-Z]*m", pattern):
        return True
    for arg in [*call.args[1:], *(k.value for k in call.keywords)]:
        for sub in ast.walk(arg):
            if isinstance(sub, ast.Attribute) and sub.attr in ("M", "MULTILINE"):
                return True
    return False


def _offenders_in_source(parsed) -> list[str]:
    out = []
    for path in MODULES.values():  # every module of porter/, its tree shared with the other such checks (test_architecture)
        tree = parsed(path)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name not in _CALLS:
                continue
            pattern = _literal(node.args[0])
            if _BLANK_RUN.search(pattern) and _multiline(node, pattern):
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return out


def test_no_multiline_pattern_in_porters_source_starts_a_line_with_a_newline_crossing_space_run(porter_trees):
    assert _offenders_in_source(porter_trees) == []


def test_no_multiline_rule_pattern_starts_a_line_with_a_newline_crossing_space_run():
    out = []
    for path in sorted((ROOT / "rules").rglob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        for p in (doc or {}).get("patterns", []) if isinstance(doc, dict) else []:
            if not isinstance(p, dict) or "regex" not in p:
                continue
            if _BLANK_RUN.search(p["regex"]) and ("multiline" in p.get("flags", ()) or re.match(r"\(\?[a-z]*m", p["regex"])):
                out.append(f"{path.name}: {p['regex'][:60]}")
    assert out == []


def test_the_triton_import_searches_are_linear_in_a_run_of_blank_lines():
    from porter.kernels import triton

    data = b"\n" * 32768 + b"x = 1\n"
    t = time.monotonic()
    assert triton._FROM_TRITON_JIT.search(data) is None
    assert list(triton._CUDA_EXTRA_IMPORT.finditer(data.decode())) == []
    assert time.monotonic() - t < 0.5
    # the same lines as before
    assert triton._FROM_TRITON_JIT.search(b"\n\n  from triton import heuristics, jit\n") is not None
    m = next(triton._CUDA_EXTRA_IMPORT.finditer("\n\nfrom triton.language.extra.cuda import libdevice\n"))
    assert m.group("names") == "libdevice"
