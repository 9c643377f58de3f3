"""porter.source.preprocessor: one lex per file answers dead lines, build arms, __CUDA_ARCH__ arms and groups."""
from __future__ import annotations

from porter.match.refine import dead_lines
from porter.source.parse import parse
from porter.source.preprocessor import preprocess, preprocessed


CONTINUED = ("#if 0 \\\n"                  # 1: one directive over two lines
             "    && defined(FOO)\n"       # 2
             "a\n"                         # 3 dead
             "#endif\n"                    # 4
             "#if defined(USE_ROCM) || \\\n"  # 5
             "    false\n"                 # 6: `false` is C++'s literal, not a macro
             "b\n"                         # 7 ROCm build only
             "#else\n"                     # 8
             "c\n"                         # 9 CUDA build only
             "#endif\n")                   # 10


def test_a_continued_if_zero_is_dead_for_every_reader():
    pre = preprocess(CONTINUED.encode())
    assert sorted(pre.dead) == [3]
    assert sorted(dead_lines(parse("k.cu", "cuda", CONTINUED.encode()))) == [3]
    sides = [(r.start, r.end, r.side, r.guard) for r in pre.regions()]
    assert sides == [(1, 2, "both", 0), (3, 4, "none", 0), (5, 6, "both", 0), (7, 8, "rocm", 5), (9, 10, "cuda", 5)]


def test_groups_carry_arms_and_their_bodies():
    pre = preprocess(CONTINUED.encode())
    assert [[(a.kind, a.text, a.line, a.end_line, list(a.body)) for a in g.arms] for g in pre.groups] == [
        [("if", "0      && defined(FOO)", 1, 2, [3])],
        [("if", "defined(USE_ROCM) ||      false", 5, 6, [7]), ("else", "", 8, 8, [9])]]
    assert [g.endif for g in pre.groups] == [4, 10] and pre.groups[1].has_else


ARCH = ("__device__ int f() {\n"                 # 1
        "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"  # 2
        "  return 1;\n"                          # 3 device pass only
        "#elif FOO\n"                            # 4
        "  return 2;\n"                          # 5 not: an arm after the arch test
        "#else\n"                                # 6
        "  return 3;\n"                          # 7
        "#endif\n"                               # 8
        "#ifndef __CUDA_ARCH__\n"                # 9
        "  host();\n"                            # 10
        "#else\n"                                # 11
        "#ifdef BAR\n"                           # 12
        "  dev();\n"                             # 13 device only: the innermost arch test decides
        "#endif\n"                               # 14
        "#endif\n"                               # 15
        "}\n")                                   # 16


def test_cuda_arch_arms():
    pre = preprocess(ARCH.encode())
    assert [n for n in range(1, 17) if pre.device_only(n)] == [2, 3, 11, 12, 13, 14, 15]


def test_conditional_lines_and_one_lex_per_parsed_file():
    sf = parse("k.cu", "cuda", CONTINUED.encode())
    pre = preprocessed(sf)
    assert preprocessed(sf) is pre
    assert [pre.conditional_at(n) for n in range(1, 11)] == [
        "if", "if", None, "endif", "if", "if", None, "else", None, "endif"]
