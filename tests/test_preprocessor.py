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


VERSIONED = """#include <cuda_runtime.h>
__global__ void k(float* x, unsigned m) {
#if CUDART_VERSION >= 12000
  x[0] = __shfl_xor_sync(0xffffffff, x[0], 1);
#else
  x[0] = __shfl_xor(x[0], 1);
#endif
#if CUDART_VERSION >= 12000
  x[1] = __shfl_down_sync(0xffffffff, x[1], 1);
#endif
#ifndef USE_ROCM
  x[2] = __shfl_up_sync(0xffffffff, x[2], 1);
#endif
}
"""


def test_a_toolkit_version_test_whose_else_is_the_hip_path_is_not_open_work(tmp_path):
    from porter.pipeline import run
    from porter.settings import Settings

    (tmp_path / "k.cu").write_text(VERSIONED)
    result = run(tmp_path, Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
    status = sorted((f.line, f.rule, str(f.status), f.handled_by) for f in result.findings if f.rule == "DEV002")
    # Line 4: HIP compiles the #else (HIP defines no CUDART_VERSION). Line 9: no #else, HIP would lack the code:
    # still open. Line 12: the CUDA side of a ROCm guard.
    assert status == [(4, "DEV002", "handled", "k.cu:3"), (9, "DEV002", "open", None),
                      (12, "DEV002", "handled", "k.cu:11")]
    assert sorted(preprocess(VERSIONED.encode()).toolkit_lines) == [3]


def test_vanishing_arms_name_the_kernels_they_empty(tmp_path):
    from porter.pipeline import scan
    from porter.settings import Settings
    from conftest import FIXTURES

    result = scan(FIXTURES / "rules" / "DEV016-vanishing-cuda-arch-arm", Settings(jobs=1, cache_dir=None))
    assert [(f.path, f.line, f.message) for f in result.findings if f.rule == "DEV016"] == [
        ("k.cu", 7, "`#if __CUDA_ARCH__ >= 800` has no #else with code: hip-clang leaves __CUDA_ARCH__ undefined, so "
                    "on HIP this arm compiles to nothing, leaving kernel gemm_tc without its code and with no error."),
        ("k.cu", 16, "`#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= ARCH_AMPERE` has no #else with code: hip-clang "
                     "leaves __CUDA_ARCH__ undefined, so on HIP this arm compiles to nothing, leaving kernel attn "
                     "without its code and with no error."),
        ("k.cu", 27, "`#if __CUDA_ARCH__ >= ARCH_TURING` has no #else with code: hip-clang leaves __CUDA_ARCH__ "
                     "undefined, so on HIP this arm compiles to nothing, leaving device function helper (called by "
                     "kernel k_turing) without its code and with no error."),
        ("k.cu", 86, "`#ifdef __CUDA_ARCH__` has no #else with code: hip-clang leaves __CUDA_ARCH__ undefined, so on "
                     "HIP this arm compiles to nothing, leaving device function lane_id without its code and with no "
                     "error."),
        # (the fixture's arms that end in a dangling else or hold only a PDL trigger, a cp.async fence or a printf
        # empty nothing; a PDL trigger beside a store and a cp.async copy do)
        ("k.cu", 118, "`#if __CUDA_ARCH__ >= 900` has no #else with code: hip-clang leaves __CUDA_ARCH__ undefined, so "
                      "on HIP this arm compiles to nothing, leaving kernel sorted_fast without its code and with no "
                      "error."),
        ("k.cu", 142, "`#if __CUDA_ARCH__ >= 800` has no #else with code: hip-clang leaves __CUDA_ARCH__ undefined, so "
                      "on HIP this arm compiles to nothing, leaving device function cp_async_copy without its code and "
                      "with no error.")]
    # DEV009's capability-test finding on the same token is merged into DEV016's, not lost.
    assert not [f for f in result.findings if f.rule == "DEV009" and f.line in (7, 16, 27, 86)]


def test_a_named_level_is_decided_only_with_the_repository_constant():
    from porter.source.preprocessor import vanishing_arms

    src = b"__global__ void k(float* x) {\n#if __CUDA_ARCH__ >= LEVEL\n  x[0] = 1;\n#endif\n}\n"
    pre = preprocess(src)
    assert [a.line for _g, a in vanishing_arms(pre, ["__CUDA_ARCH__"], {"LEVEL": 750})] == [2]
    assert vanishing_arms(pre, ["__CUDA_ARCH__"], {}) == []
    assert vanishing_arms(pre, ["__CUDA_ARCH__"], {"LEVEL": 0}) == []  # 0 >= 0: HIP compiles the arm too


def test_only_c_and_cpp_files_have_directives():
    text = b"#if 0\nimport pycuda.autoinit\n#endif\n"  # comments in Python, not a dead branch
    assert dead_lines(parse("setup.py", "python", text)) == frozenset()
    assert sorted(dead_lines(parse("k.cu", "cuda", text))) == [2]


def test_a_long_elif_chain_is_lexed_in_linear_time():
    # Each arm's `__CUDA_ARCH__` answer is one step (the nearest arm testing it is kept), not a walk back over every
    # earlier arm: 8,000 arms cost about four times 2,000, where the walk made it sixteen (23 s at 5,000 arms).
    import time

    from porter.source.preprocessor import preprocess

    def cpu(n: int) -> float:
        data = ("#if A\n" + "#elif B\nint x;\n" * n + "#endif\n").encode()
        start = time.process_time()
        pre = preprocess(data)
        took = time.process_time() - start
        assert len(pre.groups) == 1 and len(pre.groups[0].arms) == n + 1
        return took

    small, big = min(cpu(2000) for _ in range(3)), min(cpu(8000) for _ in range(3))
    assert big < 8 * small + 0.05, (small, big)


def test_the_nearest_arch_arm_decides_in_an_elif_chain():
    from porter.source.preprocessor import preprocess

    pre = preprocess(b"#if A\nint a;\n#elif defined(__CUDA_ARCH__)\nint d;\n#elif B\nint b;\n#else\nint e;\n#endif\n")
    assert [pre.device_only(n) for n in (2, 4, 6, 8)] == [False, True, False, False]


def test_if_expressions_by_precedence_climbing_read_as_by_descent_through_the_levels():
    """_Eval.binary climbs by precedence (one call per operand) instead of descending through its eight levels:
    on random token streams (every operator, parentheses, defined, ?:, unknown and undefined names, division by
    zero, malformed input) it gives the same value and the same vendor answer as the descent did."""
    import random

    from porter.source.preprocessor import _Eval, _apply

    class Descent(_Eval):
        def binary(self, level):
            if level == len(self._LEVELS):
                return self.unary()
            v = self.binary(level + 1)
            while self.peek() in self._LEVELS[level]:
                op = self.take()
                w = self.binary(level + 1)
                v = None if v is None or w is None else _apply(op, v, w)
            return v

    class Build:
        values = {"A": 1, "B": 0, "C": 7, "U": None, "F": False, "HIP": 1, "HX": None}

        def value(self, name):
            return self.values.get(name)

        def vendor(self, name):
            return name.startswith("H")

    ops = [op for level in _Eval._LEVELS for op in level] + ["&&", "||", "?", ":", "!", "~", "-", "+"]
    atoms = ["0", "1", "2", "3", "16", "0x20", "A", "B", "C", "U", "F", "HIP", "HX", "true", "f"]
    rng = random.Random(26)
    values = set()
    for _ in range(20000):
        tokens: list[str] = []
        for _ in range(rng.randint(1, 24)):
            r = rng.random()
            if r < 0.45:
                tokens.append(rng.choice(atoms))
            elif r < 0.85:
                tokens.append(rng.choice(ops))
            elif r < 0.93:
                tokens.append(rng.choice(["(", ")"]))
            else:
                tokens.extend(rng.choice([["defined", "(", "HIP", ")"], ["defined", "U"], ["f", "(", "1", ")"]]))
        if rng.random() < 0.5:  # mostly well-formed: atom (op atom)*
            tokens = [t for pair in zip((rng.choice(atoms) for _ in tokens), tokens) for t in pair
                      if t not in ("(", ")")][:-1] or ["1"]
        new, old = _Eval(list(tokens), Build()), Descent(list(tokens), Build())
        got, want = new.run(), old.run()
        assert (got, new.vendor) == (want, old.vendor), tokens
        values.add(got)
    assert None in values and 0 in values and 1 in values and len(values) > 20  # the streams reach every case

NESTED_VERSION = ("#if defined(LIB_HAVE_HIP)\n"      # 1
                  "hip_call();\n"                     # 2 ROCm build only
                  "#else\n"                           # 3
                  "  #if CUDA_VERSION >= 7500\n"      # 4
                  "cublas_call();\n"                  # 5 CUDA build only (when the toolkit is new enough)
                  "  #endif\n"                        # 6
                  "#endif\n")                         # 7


def test_a_version_derived_as_cuda_side_is_undecided_in_the_cuda_build():
    # A project that #defines CUDA_VERSION only in CUDA arms makes it a CUDA-side name (derived_names); its value
    # is still unknown, so `>= 7500` must not read false for CUDA and leave line 5 compiled by neither build.
    pre = preprocess(NESTED_VERSION.encode())
    sides = [(r.start, r.end, r.side, r.guard) for r in pre.regions(frozenset(), frozenset({"CUDA_VERSION"}))]
    # (a directive line belongs to the arm it closes; line 4's CUDA-side version test guards its own arm)
    assert sides == [(1, 1, "both", 0), (2, 3, "rocm", 1), (4, 4, "cuda", 1), (5, 6, "cuda", 4), (7, 7, "cuda", 1)]


def test_a_cuda_switch_forked_against_a_rocm_arm_is_the_cuda_builds():
    from porter.source.preprocessor import paired_cuda_switches

    text = ("#if GOOGLE_CUDA\n"                 # 1: forked against line 3's ROCm test
            'asm("trap;");\n'                   # 2 CUDA build only
            "#elif TENSORFLOW_USE_ROCM\n"       # 3
            "__builtin_trap();\n"               # 4 ROCm build only
            "#endif\n"                          # 5
            "#if defined(WITH_CUDA_GRAPHS)\n"   # 6: no ROCm arm in its group: stays unknown
            "#endif\n"                          # 7
            "#if __CUDA_ARCH__ >= 800\n"        # 8: a comparison, not a switch
            "#elif defined(USE_ROCM)\n"         # 9
            "#endif\n")                         # 10
    pre = preprocess(text.encode())
    cuda = paired_cuda_switches([(list(pre.directives), pre.total)])
    assert cuda == {"GOOGLE_CUDA"}
    sides = [(r.start, r.end, r.side, r.guard) for r in pre.regions(frozenset(), frozenset(cuda))][:3]
    assert sides == [(1, 1, "both", 0), (2, 3, "cuda", 1), (4, 5, "rocm", 1)]


def test_a_switch_named_for_the_nvidia_device_forked_against_an_amd_arm_is_the_cuda_builds():
    # DFT-FE's DeviceKernelLauncherConstants.h: each vendor's warp and block sizes under a device-vendor switch
    from porter.source.preprocessor import paired_cuda_switches

    text = ("#ifdef DFTFE_WITH_DEVICE_NVIDIA\n"  # 1: forked against line 3's AMD test
            "static const int WARP = 32;\n"      # 2 CUDA build only
            "#elif DFTFE_WITH_DEVICE_AMD\n"      # 3
            "static const int WARP = 64;\n"      # 4 ROCm build only
            "#endif\n"                           # 5
            "#ifdef USE_NVIDIA_TOOLS\n"          # 6: no ROCm arm in its group: stays unknown
            "#endif\n"                           # 7
            "#ifdef FAST_PATH\n"                 # 8: no vendor word: a feature switch a ROCm build may set
            "#elif defined(USE_HIP)\n"           # 9
            "#endif\n")                          # 10
    pre = preprocess(text.encode())
    cuda = paired_cuda_switches([(list(pre.directives), pre.total)])
    assert cuda == {"DFTFE_WITH_DEVICE_NVIDIA"}
    sides = [(r.start, r.end, r.side, r.guard) for r in pre.regions(frozenset(), frozenset(cuda))][:3]
    assert sides == [(1, 1, "both", 0), (2, 3, "cuda", 1), (4, 5, "rocm", 1)]


ARCH_FORKS = ("__device__ float sum(float v) {\n"                             # 1
              "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700\n"          # 2: the HIP arm follows
              "  v += __shfl_down_sync(0xffffffff, v, 16);\n"                 # 3 CUDA build only
              "#elif defined(USE_HIP)\n"                                      # 4
              "  v += __shfl_down(v, 16);\n"                                  # 5 ROCm build only
              "#endif\n"                                                      # 6
              "#if __CUDA_ARCH__ >= 800\n"                                    # 7: a plain #else: often a stub
              '  asm volatile("cp.async.commit_group;\\n" ::);\n'            # 8 or a slow path: still open
              "#else\n"                                                       # 9
              "  __syncthreads();\n"                                          # 10
              "#endif\n"                                                      # 11
              "#if __CUDA_ARCH__ >= 800\n"                                    # 12: no #else - HIP lacks the code
              '  asm volatile("cp.async.wait_all;\\n" ::);\n'                # 13 open
              "#endif\n"                                                      # 14
              "#ifdef __CUDA_ARCH__\n"                                        # 15: device pass vs host pass
              "  v = __ldg(&v);\n"                                            # 16 unknown: HIP's device pass
              "#else\n"                                                       # 17   compiles the host arm
              "  v = 0;\n"                                                    # 18
              "#endif\n"                                                      # 19
              "#if defined(__CUDACC_VER_MAJOR__) \\\n"                        # 20: a continued version test
              "    && __CUDACC_VER_MAJOR__ < 12\n"                            # 21 the test itself: handled
              "  v = __frsqrt_rn(v);\n"                                       # 22
              "#else\n"                                                       # 23
              "  v = rsqrtf(v);\n"                                            # 24
              "#endif\n"                                                      # 25
              "  return v;\n"                                                 # 26
              "}\n")                                                          # 27


def test_an_arch_level_test_before_a_rocm_arm_is_the_cuda_builds(tmp_path):
    pre = preprocess(ARCH_FORKS.encode())
    from porter.source.preprocessor import side_at
    sides = {line: side_at(pre.regions(), line) for line in (3, 5, 8, 10, 13, 16, 18, 22)}
    assert sides == {3: ("cuda", 2), 5: ("rocm", 2), 8: ("both", 0), 10: ("both", 0), 13: ("both", 0),
                     16: ("both", 0), 18: ("both", 0), 22: ("cuda", 20)}

    from porter.pipeline import run
    from porter.settings import Settings

    (tmp_path / "k.cu").write_text(ARCH_FORKS)
    result = run(tmp_path, Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
    status = sorted((f.line, f.rule, str(f.status), f.handled_by) for f in result.findings
                    if f.rule in ("DEV002", "DEV009", "DEV010", "DEV012", "DEV016"))
    # Line 12's arm has no #else: on HIP it vanishes; it holds only an async-copy fence, which empties nothing the
    # copies' own findings do not report (DEV016 silent, porter.match.kinds.arms), so its capability test (DEV009)
    # and its PTX stay open work. Line 21's version test HIP answers as CUDA 13 does (false on both): no porting
    # item (porter.match.refine, step 3).
    assert status == [(2, "DEV009", "handled", "k.cu:2"), (3, "DEV002", "handled", "k.cu:2"),
                      (8, "DEV012", "open", None), (12, "DEV009", "open", None), (13, "DEV012", "open", None)]


FP8_FEATURE_TEST = ("#include <ATen/ATen.h>\n"                                 # 1
                    "#if (defined(USE_ROCM) && ROCM_VERSION >= 60200)\n"       # 2
                    "#if HIP_FP8_TYPE_OCP && !HIP_FP8_TYPE_FNUZ\n"             # 3: HIP's feature macros
                    "#define torch_fp8_e4m3 at::kFloat8_e4m3fn\n"              # 4   the ROCm build's OCP arm
                    "#else\n"                                                  # 5
                    "#define torch_fp8_e4m3 at::kFloat8_e4m3fnuz\n"            # 6
                    "#endif\n"                                                 # 7
                    "#else\n"                                                  # 8
                    "#define torch_fp8_e4m3 at::kFloat8_e4m3fn\n"              # 9   CUDA's (both: ROCM_VERSION unknown)
                    "#endif\n")                                                # 10


def test_a_rocm_named_feature_test_inside_a_rocm_arm_stays_rocm_side(tmp_path):
    # `!HIP_FP8_TYPE_FNUZ` read as "not the ROCm build" made line 4 code no build compiles, so FBGEMM's OCP arm
    # under USE_ROCM read as open FP8 work; inside a ROCm-only arm the test is a feature test, unknown for ROCm.
    from porter.source.preprocessor import side_at
    pre = preprocess(FP8_FEATURE_TEST.encode())
    sides = {line: side_at(pre.regions(), line) for line in (4, 6, 9)}
    assert sides == {4: ("rocm", 3), 6: ("rocm", 2), 9: ("both", 0)}

    from porter.pipeline import run
    from porter.settings import Settings

    (tmp_path / "q.cu").write_text(FP8_FEATURE_TEST)
    result = run(tmp_path, Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
    status = sorted((f.line, f.rule, str(f.status), f.handled_by) for f in result.findings if f.rule == "QNT002")
    assert status == [(4, "QNT002", "handled", "q.cu:3"), (9, "QNT002", "open", None)]

def test_the_split_run_pre_check_answers_as_the_split_run_regex():
    # as_compiled skips its rewrite when _splits_a_run says no splice splits a run: it must say exactly what
    # searching with _SPLIT_RUN says, on the edge cases and on every short string of the bytes that matter.
    import itertools

    from porter.source.preprocessor import _SPLIT_RUN, _splits_a_run, as_compiled

    edges = [b"", b"\\", b"\\\n", b"a\\\n", b"\\\nb", b"a\\\nb", b"a \\\nb", b"a\\\n b", b"a\\ \t\r\nb",
             b"a\\\\\nb", b"a\\\n\\b", b"#define X(a) \\\n  a\n", b"__shfl_\\\ndown_sync(v, 1);\n",
             b"k<<\\\n<grid, block>>>();\n", b"a\\\r\n\nb", b"a\\\n\\\nb"]
    alphabet = b"a \\\n\r\t"
    short = [bytes(t) for n in range(1, 7) for t in itertools.product(alphabet, repeat=n)]
    for data in edges + short:
        assert _splits_a_run(data) == (_SPLIT_RUN.search(data) is not None), data
    assert as_compiled(b"__shfl_\\\ndown_sync(v, 1);\n") == b"__shfl_down_sync(v,\\\n 1);\n"
    assert as_compiled(b"#define X(a) \\\n  a\n") == b"#define X(a) \\\n  a\n"


def test_the_unrolled_comment_and_string_lexer_finds_what_the_plain_one_finds():
    # preprocessor._COMMENT_OR_STRING is written as runs of one byte class (faster in `re`); this plain form, one
    # alternation per byte, is what it must mean: the same matches on every text of up to 5 bytes over the bytes
    # that matter to it, and on longer random texts.
    import itertools
    import random
    import re

    from porter.source.preprocessor import _COMMENT_OR_STRING

    plain = re.compile(rb'//(?:\\[ \t\f\v]*\r?\n|[^\n])*|/\*.*?(?:\*/|\Z)|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                       re.S)
    unrolled = re.compile(_COMMENT_OR_STRING, re.S)
    alphabet = b"/*\"'\\\n\r \ta"
    texts = [bytes(t) for n in range(1, 6) for t in itertools.product(alphabet, repeat=n)]
    rng = random.Random(26)
    texts += [bytes(rng.choice(alphabet) for _ in range(rng.randint(6, 40))) for _ in range(20000)]
    found = 0
    for data in texts:
        spans = [m.span() for m in plain.finditer(data)]
        assert [m.span() for m in unrolled.finditer(data)] == spans, data
        found += len(spans)
    assert found == 48538  # of 131,110 texts (a fixed seed): many comments and strings were compared


def _reference_spans(data: bytes) -> list[tuple[int, int]]:
    # The lexer's meaning, written plainly: every match of the raw string, the comments and the strings that close,
    # found left to right; the comments' and raw strings' spans (quadratic on `"\"\"\"...`, which is why it is not
    # the lexer).
    import re

    from porter.source.preprocessor import _COMMENT_OR_STRING, _RAW_STRING

    full = re.compile(_RAW_STRING + b"|" + _COMMENT_OR_STRING, re.S)
    return [m.span() for m in full.finditer(data) if data[m.start()] not in b"\"'"]


def test_the_lexer_finds_the_comments_and_raw_strings_the_plain_finditer_finds():
    # _comment_spans (which blank_comments blanks) takes the lexer without the raw-string alternative when `R"` is not in the file, matches a
    # string that never closes to where it fails and then searches that span without its quote: it must find the
    # very spans the plain finditer finds, on every short text over the bytes that matter and on longer random ones
    # (strings that never close, nested in each other, with comments and raw strings inside and running past them).
    import itertools
    import random

    from porter.source.preprocessor import _comment_spans, _lexer, blank_comments, preprocess

    alphabet = b"/*\"'\\\nuR("
    texts = [bytes(t) for n in range(1, 5) for t in itertools.product(alphabet, repeat=n)]
    rng = random.Random(2614)
    pieces = [b'"', b"'", b"\\", b"\n", b"/", b"*", b"//", b"/*", b"*/", b'R"(', b')"', b'R"x(', b')x"', b"a", b" \\\n"]
    texts += [b"".join(rng.choice(pieces) for _ in range(rng.randint(4, 60))) for _ in range(20000)]
    found = unclosed = 0
    for data in texts:
        spans = _reference_spans(data)
        assert list(_comment_spans(data)) == spans, data
        blanked = bytearray(data)
        for start, end in spans:
            blanked[start:end] = bytes(10 if b == 10 else 32 for b in data[start:end])
        assert blank_comments(data) == blanked, data
        found += len(spans)
        unclosed += any(m.lastindex not in (None, m.re.groupindex["c"])
                        for m in _lexer(b'R"' in data, True, True).finditer(data))
    # Of the 27,380 texts above (a fixed seed): many comments and raw strings compared, 12,697 texts with a
    # string that never closes (the careful walk).
    assert (found, unclosed) == (44157, 12697)
    raw = b'auto s = R"(\n#if 0\n)";\nint live;\n'
    assert sorted(preprocess(raw).dead) == []
    assert sorted(preprocess(b'// R"(\n#if 0\nint dead;\n#endif\n').dead) == [3]
    # A quote that never closes does not hide the comment after it (nor the `#if 0` the comment holds).
    assert list(_comment_spans(b'#error don\'t "x\\"\n/* a */ "b\\"c" // d\n')) == [(18, 25), (33, 37)]


def test_a_line_of_unclosed_strings_is_lexed_in_linear_time():
    # `"\` repeated made the old lexer try a string at each quote, each to the line's end: quadratic (46 CPU-s for
    # 100 KB). Against a linear baseline, a file of the same size made of ordinary code lexed in the same process,
    # the 20 KB line of `"\` (and of `'\`, and both nested) must take no more than 25 times as long (the old lexer
    # took ~1,800 times as long at this size; 0.5-6.5x now). Three tries, so a busy machine cannot make it fail.
    import time

    from porter.source.preprocessor import blank_comments

    def cpu(data: bytes) -> float:
        t = time.process_time()
        blank_comments(data)
        return time.process_time() - t

    size = 20_000
    ordinary = (b'int f(int a) { /* block */ return g("s\\"t", \'c\'); } // line\n' * (size // 60))[:size]
    baseline = min(cpu(ordinary) for _ in range(5))
    for bad in (b'"\\' * (size // 2), b"'\\" * (size // 2), b"\"'\\" * (size // 3), b"x = '\"\\" * (size // 6)):
        assert any(cpu(bad) <= 25 * max(baseline, 1e-4) for _ in range(3)), bad[:12]


def test_directives_of_the_file_preprocessed_last_are_its_own():
    """directives() answers from the last preprocessed file's lex when asked about the same bytes (equal, not only
    identical), and lexes any other file itself."""
    from porter.source.preprocessor import Directive, directives

    other = b"// #if 0 in a comment\n#ifdef OTHER\nx\n#endif\n"
    preprocess(CONTINUED.encode())
    assert directives(bytes(bytearray(CONTINUED.encode()))) == [
        Directive(1, 2, "if", "0      && defined(FOO)"), Directive(4, 4, "endif", ""),
        Directive(5, 6, "if", "defined(USE_ROCM) ||      false"), Directive(8, 8, "else", ""),
        Directive(10, 10, "endif", "")]
    assert directives(other) == [Directive(2, 2, "ifdef", "OTHER"), Directive(4, 4, "endif", "")]
    listed = directives(CONTINUED.encode())
    listed.append(Directive(11, 11, "endif", ""))  # a caller's list is its own: the kept lex is not changed
    assert len(directives(CONTINUED.encode())) == 5


EDITOR = ("#if __INTELLISENSE__\n"        # 1
          "a\n"                           # 2 dead: only the editor's code model defines it
          "#else\n"                       # 3
          "b\n"                           # 4 every compiler
          "#endif\n"                      # 5
          "#ifndef __INTELLISENSE__\n"    # 6
          "c\n"                           # 7 every compiler
          "#else\n"                       # 8
          "d\n"                           # 9 dead
          "#endif\n"                      # 10
          "#if defined(__INTELLISENSE__) || FOO\n"  # 11
          "e\n"                           # 12 undecided: FOO
          "#endif\n")                     # 13


def test_intellisense_arms_are_dead_and_their_else_compiles():
    pre = preprocess(EDITOR.encode())
    assert sorted(pre.dead) == [2, 9]
    assert sorted(dead_lines(parse("k.cu", "cuda", EDITOR.encode()))) == [2, 9]


def test_cpp_alternative_tokens_are_operators_in_if_expressions():
    """C++ reads `and`, `or`, `not`, `bitand`, `bitor`, `xor`, `compl` and `not_eq` as operators in #if
    ([lex.digraph]; clang-22 -x hip takes SoftRas's `__CUDA_ARCH__ < 600 and defined(__CUDA_ARCH__)` arm off): the
    arch build reads that test false on ROCm; as undefined names they made it unreadable."""
    from porter.source.preprocessor import CUDA, ROCM, _ArchBuild, _tokens, condition

    assert _tokens("A and not B or C bitand D bitor E xor F not_eq compl G") == [
        "A", "&&", "!", "B", "||", "C", "&", "D", "|", "E", "^", "F", "!=", "~", "G"]
    softras = "__CUDA_ARCH__ < 600 and defined(__CUDA_ARCH__)"
    assert condition("if", softras, _ArchBuild(ROCM))[0] is False
    assert condition("if", softras, _ArchBuild(CUDA))[0] is None  # the CUDA device pass's level is unknown here
    assert condition("if", "1 and not 0", _ArchBuild(ROCM))[0] is True
    # a name merely starting with one is a name: `android`, `order`
    assert _tokens("android or order") == ["android", "||", "order"]
