"""Session 28's preprocessor evasions (a report-only attacker's): a pull request hid a CUDA-only kernel from
porter's reading of the preprocessor, so `scan --isolated --new-since main --fail-on ...` passed it. Fixed at one
place each in porter.source.preprocessor: `#if` arithmetic is C's 64-bit typed arithmetic (_Eval/_apply/_int), a
block comment spanning lines continues its directive (_lex), a stringizing macro call in `#include` is expanded and
a computed include nothing resolves fails closed under --isolated (quoted_includes / unresolved_includes)."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from porter.source.preprocessor import (CUDA, Build, condition, directives, include_macros, preprocess,
                                        quoted_includes, unresolved_includes)
from test_gate_s27 import KERNEL, KERNEL_RULES, gate, pr

# (expression, what gcc 13 and clang 22 make of `#if expression`: True, False, or None for an error).
# Checked against both (test_the_table_is_what_the_compilers_say); porter must give the same where it decides.
ARITHMETIC = [
    ("0u - 1 > 0", True),                                  # unsigned wrap-around
    ("!(-1 < 0u)", True),                                  # -1 converted to uintmax_t
    ("-7 % 2 == -1", True),                                # % truncates toward zero
    ("7 % -2 == 1", True),
    ("-3 % 2 == -1", True),
    ("-7 / 2 == -3", True),
    ("9007199254740993 / 1 == 9007199254740993", True),    # integer division, not float
    ("0xFFFFFFFFFFFFFFFFu + 1 == 0", True),
    ("-1 > 0u", True),
    ("18446744073709551615 == -1", True),                  # too large for intmax_t: unsigned
    ("9223372036854775807 + 1 < 0", True),                 # signed overflow wraps (gcc/clang warn)
    ("-9223372036854775807 - 1 < 0", True),
    ("(-9223372036854775807 - 1) / -1 < 0", True),
    ("-9223372036854775808 < 0", False),                   # 9223372036854775808 is unsigned: so is its negation
    ("9223372036854775808 > 0", True),
    ("1 << 63 < 0", True),
    ("1u << 63 > 0", True),
    ("-1 >> 1 == -1", True),
    ("-1u >> 63 == 1", True),
    ("~0u == 18446744073709551615u", True),
    ("~0 == -1", True),
    ("(1 ? -1 : 0u) > 0", True),                           # the conditional's arms are converted together
    ("(0 ? 1u : -1) > 0", True),
    ("(2 - 3u) > 1", True),
    ("(0u - 1) / 2 == 9223372036854775807", True),
    ("-1 * 1u > 0", True),
    ("(-1 | 0u) > 0", True),
    ("(-1 & 0u) == 0", True),
    ("1 == 1u", True),
    ("-0u == 0", True),
    ("3 / 2 * 2 == 2", True),
    ("0x10 == 16", True),
    ("010 == 8", True),
    ("0b101 == 5", True),
    ("1'000 == 1000", True),
    ("1ULL == 1", True),
    ("2ll * 3 == 6", True),
    ("1 / 0", None),                                       # division by zero: an error, undecided (no crash)
    ("1 % 0", None),
    ("08", None),                                          # not an octal literal
    ("18446744073709551616", None),                        # too large for uintmax_t (gcc: warning and 0)
    ("1_0 == 10", None),                                   # Python's digit separator is no C one
]
# Where porter stays undecided on purpose though a compiler decides (undecided is the safe side: an arm of unknown
# truth is read as live in both builds): a division by zero a short circuit skips, a shift count outside 0..63.
UNDECIDED = {"0 && 1 / 0": False, "1 || 1 / 0": True, "1 << 64": False, "1 << -1": False}


@pytest.mark.parametrize("expr,want", ARITHMETIC)
def test_if_arithmetic_is_c_intmax_arithmetic(expr, want):
    assert condition("if", expr, Build(CUDA))[0] is want


@pytest.mark.parametrize("expr", sorted(UNDECIDED))
def test_what_a_compiler_decides_by_undefined_or_skipped_operations_is_undecided(expr):
    assert condition("if", expr, Build(CUDA))[0] is None


def _compiler_says(cmd: list[str], expr: str) -> bool | None:
    src = f"#if {expr}\nporter_yes\n#else\nporter_no\n#endif\n"
    p = subprocess.run(cmd, input=src, capture_output=True, text=True, timeout=60)
    return None if p.returncode else "porter_yes" in p.stdout.split()


COMPILERS = [c for c in (["cpp", "-P", "-x", "c++", "-std=c++17", "-"],
                         [shutil.which("clang-22") or shutil.which("clang") or "clang", "-E", "-P", "-x", "c++",
                          "-std=c++17", "-"]) if shutil.which(c[0])]


@pytest.mark.skipif(not COMPILERS, reason="needs cpp (gcc) or clang on PATH to compare #if answers with")
@pytest.mark.parametrize("expr,want", [*ARITHMETIC, *UNDECIDED.items()])
def test_the_table_is_what_the_compilers_say(expr, want):
    """porter's answer is the compilers' wherever porter decides; where a compiler errors porter is undecided
    (gcc reads an integer too large for uintmax_t as 0 with a warning, clang errors: both are the table's None)."""
    mine = condition("if", expr, Build(CUDA))[0]
    for cmd in COMPILERS:
        said = _compiler_says(cmd, expr)
        if mine is not None:
            assert said is mine, (cmd[0], expr)
        elif expr not in UNDECIDED and said is not None:
            assert expr == "18446744073709551616" and said is False, (cmd[0], expr)


DIRECTIVE_COMMENT = ("#if 0 /*\n"          # 1: the comment is one space: `#if 0 || 1`
                     "*/ || 1\n"           # 2
                     "live();\n"           # 3
                     "#endif\n"            # 4
                     "#ifdef NOT_DEFINED_ANYWHERE\n"  # 5
                     "#elif 0 /* multi\n"  # 6
                     "   line */ + 1\n"    # 7: `#elif 0 + 1`
                     "live2();\n"          # 8
                     "#endif\n"            # 9
                     "#if 0 /* one line */\n"  # 10
                     "dead();\n"           # 11
                     "#endif\n")           # 12


def test_a_block_comment_over_lines_continues_its_directive():
    pre = preprocess(DIRECTIVE_COMMENT.encode())
    assert [(d.line, d.end_line, d.kind, " ".join(d.text.split())) for d in pre.directives] == [
        (1, 2, "if", "0 || 1"), (4, 4, "endif", ""), (5, 5, "ifdef", "NOT_DEFINED_ANYWHERE"),
        (6, 7, "elif", "0 + 1"), (9, 9, "endif", ""), (10, 10, "if", "0"), (12, 12, "endif", "")]
    assert sorted(pre.dead) == [11]
    # directives() (no preprocess first) reads the same
    assert [(d.line, d.end_line) for d in directives(DIRECTIVE_COMMENT.encode() + b"\n")] == [
        (1, 2), (4, 4), (5, 5), (6, 7), (9, 9), (10, 10), (12, 12)]


COMPUTED = ("#define STR(x) #x\n"          # 1
            "#define XSTR(x) STR(x)\n"     # 2
            "#include XSTR(kern.def)\n"    # 3: "kern.def"
            "#include KFILE\n"             # 4: from the build's -D only: unresolved
            '#include "a.h"\n'             # 5
            "#define H <cuda.h>\n"         # 6
            "#include H\n"                 # 7: an angle name: resolved
            "#include XSTR(a   b)\n"       # 8: blanks collapse: "a b"
            "#define P(a, b) a##b\n"       # 9
            "#include P(x, y)\n")          # 10: pasting is not read: unresolved


def test_a_stringizing_macro_call_in_an_include_names_its_file_and_the_rest_is_unresolved():
    dirs = directives(COMPUTED.encode())
    assert quoted_includes(dirs) == [(3, "kern.def"), (5, "a.h"), (8, "a b")]
    assert quoted_includes(dirs, angle=True) == [(3, "kern.def"), (5, "a.h"), (7, "cuda.h"), (8, "a b")]
    assert unresolved_includes(dirs) == [(4, "KFILE"), (10, "P(x, y)")]
    # the repository's table keeps the stringizer and the forwarding call, not the pasting macro
    table = include_macros(dirs)
    assert {k: v for k, v in table.items() if k.endswith("(")} == {"STR(": ("(x) #x",), "XSTR(": ("(x) STR(x)",)}
    other = directives(b"#include XSTR(k.def)\n#include KF\n")
    assert quoted_includes(other, table) == [(1, "k.def")]
    assert unresolved_includes(other, table) == [(2, "KF")]


BASE = {"main.cpp": "int main(){return 0;}\n"}


@pytest.mark.parametrize("head", ["#if 0u - 1 > 0", "#if -7 % 2 == -1", "#if 0 /*\n*/ || 1"])
def test_the_gate_reads_typed_arithmetic_and_comment_continued_directives(tmp_path, head):
    repo = pr(tmp_path, BASE, {"k.cu": f"{head}\n{KERNEL}#endif\n"})
    code, found, _d = gate(repo)
    assert code == 1 and sorted({r for p, r in found if p == "k.cu"}) == KERNEL_RULES


def test_the_gate_reads_a_file_a_stringizing_macro_includes(tmp_path):
    repo = pr(tmp_path, BASE, {"kern.def": KERNEL, "k.cu": "#define STR(x) #x\n#define XSTR(x) STR(x)\n"
                                                               "#include XSTR(kern.def)\n"})
    code, found, d = gate(repo)
    assert code == 1 and sorted({r for p, r in found if p == "kern.def"}) == KERNEL_RULES
    assert d["skipped"] == []


CMAKE_D = {"CMakeLists.txt": "project(x LANGUAGES CXX CUDA)\nadd_compile_definitions(KFILE=\"kern.def\")\n"
                             "add_library(k k.cu)\n", "k.cu": "int main(){return 0;}\n"}


def test_an_include_of_a_macro_only_the_build_defines_fails_the_gate_closed(tmp_path):
    repo = pr(tmp_path, CMAKE_D, {"k.cu": "#include KFILE\n", "kern.def": KERNEL})
    code, found, d = gate(repo)
    assert (code, found) == (1, [])
    assert d["skipped"] == [{"path": "k.cu", "reason": "#include KFILE names its file through macros porter cannot "
                                                       "resolve (the build's -D?)"}]
    # a trusted scan (no --isolated) leaves it: a library's configured header is no unseen code
    from helpers import porter_here
    import json
    p = porter_here("scan", str(repo), "--no-cache", "-f", "json")
    assert p.returncode == 0 and json.loads(p.stdout)["skipped"] == []
