"""bench/score_judged.py's held-out-set helpers on a tiny written corpus: which lines are the CUDA side of a
project's ROCm guard (C/C++ with the project's own macros, and Python `if` guards), what the blanked copy keeps,
and how judged rows are loaded and matched."""
from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _scorer():
    spec = importlib.util.spec_from_file_location("score_judged", REPO / "bench" / "score_judged.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("score_judged", module)
    spec.loader.exec_module(module)
    return module


S = _scorer()

CU = """\
#if defined(LIB_DEVICE_CUDA)
#include <cuda/atomic>
#elif defined(LIB_DEVICE_HIP)
#include <hip/hip_runtime.h>
#else
#error no device
#endif
#if defined(WITH_CUDA) || defined(WITH_HIP)
int common();
#endif
#ifndef USE_ROCM
__shfl_xor_sync(0xffffffff, v, 1);
#else
__shfl_xor(v, 1);
#endif
#if !defined(__HIP_PLATFORM_AMD__)
int cuda_only();
int cuda_only2();
#endif
#if defined(__CUDACC__) && !defined(USE_ROCM)
int cuda_path();
#endif
"""

PY = """\
import torch
if torch.version.hip:
    flags = ["--offload-arch=gfx942"]
else:
    flags = ["-gencode", "arch=compute_90,code=sm_90"]
    flags += ["-lineinfo"]
if not is_hip:
    lib = "libnccl.so.2"
if CUDA_HOME is not None or is_rocm_pytorch:
    build = True
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_blank_guards_reads_project_macros_elif_and_negation(tmp_path):
    src = _write(tmp_path / "src", {"k.cu": CU})
    rocm = re.compile(S.ROCM_GUARD.pattern + r"|\b(?:LIB_DEVICE_HIP|WITH_HIP)\b")
    cuda = re.compile(r"\b(?:LIB_DEVICE_CUDA|WITH_CUDA)\b")
    sides = S.blank_guards(src, tmp_path / "dst", rocm, cuda)
    # The CUDA arm of LIB_DEVICE_CUDA (line 2), the #ifndef USE_ROCM arm (12), the !__HIP_PLATFORM_AMD__ arm
    # (17-18) and the !defined(USE_ROCM) arm (21); `WITH_CUDA || WITH_HIP` is common code, the #elif is the ROCm
    # side and the #else after it is not CUDA.
    assert sides == [("k.cu", 2, 2), ("k.cu", 12, 12), ("k.cu", 17, 18), ("k.cu", 21, 21)]
    out = (tmp_path / "dst" / "k.cu").read_text().split("\n")
    assert out[1] == "#include <cuda/atomic>"
    assert out[3] == "" and out[5] == ""  # the HIP arm and the #else after it are blanked
    assert out[7] == "#if defined(WITH_CUDA) || defined(WITH_HIP)" and out[8] == "int common();"
    assert out[11] == "__shfl_xor_sync(0xffffffff, v, 1);" and out[13] == ""
    assert out[10] == out[12] == out[14] == ""
    assert out[16:18] == ["int cuda_only();", "int cuda_only2();"]
    assert out[20] == "int cuda_path();"


def test_blank_python_guards_keeps_the_cuda_body_in_place(tmp_path):
    src = _write(tmp_path / "src", {"setup.py": PY})
    sides = S.blank_python_guards(src, tmp_path / "dst")
    assert sides == [("setup.py", 5, 6), ("setup.py", 8, 8)]
    out = (tmp_path / "dst" / "setup.py").read_text().split("\n")
    assert out[1] == "if _guard_blanked_2:" and out[2] == "    pass" and out[3] == "else:"
    assert out[4:6] == ['    flags = ["-gencode", "arch=compute_90,code=sm_90"]', '    flags += ["-lineinfo"]']
    assert out[6] == "if _guard_blanked_7:" and out[7] == '    lib = "libnccl.so.2"'
    assert out[8] == "if CUDA_HOME is not None or is_rocm_pytorch:"  # `or`: common code, left alone


def test_load_set_and_density_of_the_committed_heldout3():
    projects, kernels, findings = S.load_set("heldout3")
    names = [p["project"] for p in projects]
    assert len(names) == 9 and sum(p["dual"] for p in projects) == 5
    assert {k["project"] for k in kernels} == set(names)
    assert len(kernels) == 132 and len(findings) == 101
    assert {k["target"] for k in kernels} == {"mi300x", "mi355x", "mi455x"}
    assert all(k["expected"] in ("ok", "check", "retune", "fix", "rewrite") for k in kernels)
    assert all(set(f) == {"commit", "fingerprint", "guarded", "line", "path", "project", "reason", "rule", "verdict"}
               for f in findings)
    by_project = {p["project"]: p["commit"] for p in projects}
    assert all(row["commit"] == by_project[row["project"]] for row in kernels + findings)
    assert json.loads((REPO / "bench" / "judged" / "heldout3" / "projects.json").read_text()) == projects


def test_include_guards_named_hip_are_not_rocm_guards(tmp_path):
    # ginkgo names its headers' include guards GKO_..._HIP_..._HPP_; ROCM_GUARD's `_HIP_\w*` matched them, so the
    # whole header was counted as the CUDA side of a ROCm guard.
    header = ("#ifndef GKO_COMMON_CUDA_HIP_BASE_MATH_HPP_\n"   # 1 include guard
              "#define GKO_COMMON_CUDA_HIP_BASE_MATH_HPP_\n"    # 2
              "#ifndef __HIP_PLATFORM_AMD__\n"                 # 3 a real guard: CUDA side below
              "int cuda_only();\n"                             # 4
              "#endif\n"                                       # 5
              "int common();\n"                                # 6
              "#endif\n")                                      # 7
    src = _write(tmp_path / "src", {"math.hpp": header})
    cuda = re.compile(r"\bGKO_COMPILING_CUDA\b")
    assert S.blank_guards(src, tmp_path / "dst", S.ROCM_GUARD, cuda) == [("math.hpp", 4, 4)]
    assert S.blank_rocm_guards(src, tmp_path / "dst2") == [("math.hpp", 4, 4)]
    out = (tmp_path / "dst" / "math.hpp").read_text().split("\n")
    assert out[0] == "#ifndef GKO_COMMON_CUDA_HIP_BASE_MATH_HPP_" and out[5] == "int common();"


def test_an_is_amd_if_guard_is_a_python_rocm_guard(tmp_path):
    src = _write(tmp_path / "src", {"ops.py": "if IS_AMD:\n    warps = [2, 4]\nelse:\n    warps = [2, 4, 8, 32]\n"})
    assert S.blank_python_guards(src, tmp_path / "dst") == [("ops.py", 4, 4)]


def test_real_recall_counts_only_the_sides_judged_real():
    # The blanker reads an `elif` of a chain opened by `... and not is_hip` as a CUDA side (13-14); guards.jsonl
    # judges it not real, so only the real sides (2-2 hit, 8-9 missed) count, and a real row the blanker no longer
    # writes (30-31) is reported apart instead of counting as a miss.
    detail = [("k.cu", 2, 2, True), ("k.cu", 8, 9, False), ("ops.py", 13, 14, True)]
    judged = [{"kind": "c", "path": "k.cu", "first": 2, "last": 2, "real": True},
              {"kind": "c", "path": "k.cu", "first": 8, "last": 9, "real": True},
              {"kind": "c", "path": "k.cu", "first": 30, "last": 31, "real": True},
              {"kind": "python", "path": "ops.py", "first": 13, "last": 14, "real": False}]
    assert S.real_recall(judged, detail, "c") == (1, 2, 1)
    assert S.real_recall(judged, detail, "python") == (0, 0, 0)


def test_touched_sides_marks_each_blanked_side_by_porters_findings(tmp_path):
    # Side 2-2 holds a 32-bit-mask shuffle porter reports; side 6-6 holds plain code it does not.
    cu = ("#ifndef USE_ROCM\n"
          "__device__ int f(int v) { return __shfl_xor_sync(0xffffffff, v, 1); }\n"
          "#endif\n"
          "int common();\n"
          "#ifndef USE_ROCM\n"
          "int cuda_only();\n"
          "#endif\n")
    src = _write(tmp_path / "src", {"k.cu": cu})
    detail = S.touched_sides(src, S.blank_rocm_guards)
    assert detail == [("k.cu", 2, 2, True), ("k.cu", 6, 6, False)]
    assert S.recall_sides(src, S.blank_rocm_guards) == (1, 2)


def test_load_guards_of_the_committed_heldout8():
    guards = S.load_guards("heldout8")
    assert len(guards) == 131
    assert sum(g["kind"] == "c" for g in guards) == 111 and sum(g["kind"] == "python" for g in guards) == 20
    assert sum(g["real"] for g in guards if g["kind"] == "c") == 76
    assert sum(g["real"] for g in guards if g["kind"] == "python") == 12
    assert S.load_guards("heldout3") == []  # a set without guards.jsonl


PY_CHAINS = """\
if torch.version.cuda is not None:
    so_file = "libnccl.so.2"
elif torch.version.hip is not None:
    so_file = "librccl.so.1"
else:
    raise ValueError("no NCCL")
if SYSTEM == "rocm":
    from .rocm import attention
elif SYSTEM == "ipex":
    from .ipex import attention
else:
    from .cuda import attention
if SYSTEM == "ipex":
    import ipex_ops
elif SYSTEM == "cuda":
    moe = load_kernel("moe")
if device.type == "cuda":
    x = 1
if SYSTEM == "rocm":
    if SYSTEM == "cuda":
        y = 2
"""


def test_python_guards_v2_reads_each_branch_by_its_own_test(tmp_path):
    """Version 2 (session 13): an `elif` ROCm test is blanked, `SYSTEM == "cuda"` and `torch.version.cuda` arms are
    CUDA sides, an IPEX branch is neither, an `else` is a CUDA side only after a ROCm branch with no CUDA branch,
    `device.type == "cuda"` is no platform test, and a chain inside a blanked ROCm body is gone with it."""
    src = _write(tmp_path / "src", {"m.py": PY_CHAINS})
    sides = S.blank_python_guards_v2(src, tmp_path / "dst")
    assert sides == [("m.py", 2, 2), ("m.py", 12, 12), ("m.py", 16, 16)]
    out = (tmp_path / "dst" / "m.py").read_text().split("\n")
    assert out[0:6] == ["if _guard_blanked_1:", '    so_file = "libnccl.so.2"', "elif _guard_blanked_3:", "    pass",
                        "else:", '    raise ValueError("no NCCL")']
    assert out[6:12] == ["if _guard_blanked_7:", "    pass", 'elif SYSTEM == "ipex":', "    from .ipex import attention",
                         "else:", "    from .cuda import attention"]
    assert out[12:16] == ['if SYSTEM == "ipex":', "    import ipex_ops", "elif _guard_blanked_15:",
                          '    moe = load_kernel("moe")']
    assert out[16] == 'if device.type == "cuda":'
    assert out[18:21] == ["if _guard_blanked_19:", "    pass", ""]
    # Version 1 is kept as it was (`--py-guards 1` reproduces sessions 11-12): a ROCm test must head the chain, so
    # it misses the first and third chains and counts the IPEX branch as a CUDA side.
    assert S.blank_python_guards(src, tmp_path / "v1") == [("m.py", 10, 10), ("m.py", 12, 12)]


def test_score_set_scores_the_kernels_file_it_is_given(tmp_path, monkeypatch, capsys):
    # --set with --kernels once ignored the file and scored the set's own kernels.jsonl.
    judged = tmp_path / "judged"
    (judged / "s").mkdir(parents=True)
    tree = tmp_path / "trees" / "t"
    tree.mkdir(parents=True)
    (tree / "k.cu").write_text("__global__ void scale(float* x, float a) {\n"
                               "    x[blockIdx.x * blockDim.x + threadIdx.x] *= a;\n}\n")
    (judged / "s" / "projects.json").write_text(json.dumps([{"project": "o/p", "commit": "c", "tree": "t",
                                                             "dual": False}]))
    row = {"project": "o/p", "commit": "c", "path": "k.cu", "line": 1, "kernel": "scale", "reason": "r"}
    rows = lambda verdict: "".join(json.dumps({**row, "target": t, "expected": verdict}) + "\n"  # noqa: E731
                                   for t in ("mi300x", "mi355x", "mi455x"))
    (judged / "s" / "kernels.jsonl").write_text(rows("rewrite"))
    (judged / "s" / "findings.jsonl").write_text("")
    adjudicated = tmp_path / "adjudicated.jsonl"
    adjudicated.write_text(rows("ok"))
    monkeypatch.setattr(S, "JUDGED", judged)
    assert S.score_set("s", [], tmp_path / "trees", False) == 0
    assert "kernels mi300x 0.0% (0/1), mi355x 0.0% (0/1), mi455x 0.0% (0/1)" in capsys.readouterr().out
    assert S.score_set("s", [], tmp_path / "trees", False, kernels_file=adjudicated) == 0
    assert "kernels mi300x 100.0% (1/1), mi355x 100.0% (1/1), mi455x 100.0% (1/1)" in capsys.readouterr().out


def test_open_findings_follow_a_judged_rule_merged_into_a_more_specific_one():
    # A judged API004 note at k.cu:5 that porter now reports as DEV002 (API004 under data `also`) is still open and
    # real; a judged finding nothing reports is gone; a judged-false one read open is listed.
    from types import SimpleNamespace as F

    findings = [F(path="k.cu", rule="DEV002", line=5, fingerprint="a", status="open", severity="high",
                  data=(("also", "API004: same name in HIP"),)),
                F(path="k.cu", rule="DEV011", line=9, fingerprint="b", status="open", severity="medium", data=())]
    judged = [{"path": "k.cu", "rule": "API004", "line": 5, "fingerprint": "x", "verdict": True},
              {"path": "k.cu", "rule": "DEV009", "line": 7, "fingerprint": "y", "verdict": True},
              {"path": "k.cu", "rule": "DEV011", "line": 9, "fingerprint": "b", "verdict": False, "reason": "logical"}]
    false: list[str] = []
    c = S.score_open_findings(judged, F(findings=findings), false)
    assert (c["judged"], c["real"], c["gone"], c["open"], c["open_real"]) == (3, 2, 1, 2, 1)
    assert false == ["false: DEV011 k.cu:9 logical"]


def test_cuda_or_hip_compiler_test_is_common_code_and_nested_sides_of_a_blanked_arm_drop(tmp_path):
    # `defined(__CUDACC__) || defined(__HIPCC__)` is code both compilers take: the blanker read it as a ROCm arm
    # and wiped the CUDA sides nested in it, which then counted as misses no finding could touch.
    header = ("#if defined(__CUDACC__) || defined(__HIPCC__)\n"   # 1 common GPU code
              "#ifdef __HIPCC__\n"                                # 2
              "int hip_cast();\n"                                 # 3
              "#else\n"                                           # 4
              'int cuda_cast() { asm("mov.b32 %0, %1;"); }\n'     # 5 the CUDA side
              "#endif\n"                                          # 6
              "#endif\n"                                          # 7
              "#ifdef USE_HIP\n"                                  # 8 a ROCm arm
              "#ifndef __HIPCC__\n"                               # 9
              "int host_pass();\n"                                # 10 nested, blanked with its arm
              "#endif\n"                                          # 11
              "#endif\n")                                         # 12
    src = _write(tmp_path / "src", {"redop.inl": header})
    rocm = re.compile(S.ROCM_GUARD.pattern)
    cuda = re.compile(r"\bLIB_USE_CUDA\b")
    assert S.blank_guards(src, tmp_path / "dst", rocm, cuda) == [("redop.inl", 5, 5)]
    out = (tmp_path / "dst" / "redop.inl").read_text().split("\n")
    assert out[0] == "#if defined(__CUDACC__) || defined(__HIPCC__)" and out[4].startswith("int cuda_cast()")
    assert out[2] == "" and out[9] == ""
    # A negated CUDA compiler test beside a ROCm macro is still a guard: `__HIPCC__ && !__CUDACC__` is the ROCm arm.
    src2 = _write(tmp_path / "src2", {"a.h": "#if defined(__HIPCC__) && !defined(__CUDACC__)\nint h();\n#else\n"
                                             "int c();\n#endif\n"})
    assert S.blank_guards(src2, tmp_path / "dst2", rocm, cuda) == [("a.h", 4, 4)]


def test_a_kernel_named_by_a_function_like_macro_is_found_by_the_macro_and_its_line():
    # StarPU-FFT's `__global__ void STARPUFFT(cuda_twiddle_1d)(...)` is porter's `STARPUFFT(cuda_twiddle_1d)`; the
    # judge names it `STARPUFFT` at its line. The kernel whose extent holds the line is the one; another line is not.
    from types import SimpleNamespace as N

    verdict = lambda v: tuple(N(target=t, verdict=v) for t in S.TARGETS)  # noqa: E731
    kernels = [N(path="k.cu", name="STARPUFFT(cuda_twist1_1d)", line=46, end_line=54, verdicts=verdict("fix"),
                 verdict_on=lambda t: N(target=t, verdict="fix", details=())),
               N(path="k.cu", name="STARPUFFT(cuda_twiddle_1d)", line=61, end_line=70, verdicts=verdict("ok"),
                 verdict_on=lambda t: N(target=t, verdict="ok", details=()))]
    judged = [{"path": "k.cu", "kernel": "STARPUFFT", "line": 61, "target": t, "expected": "ok", "reason": "r"}
              for t in S.TARGETS] + [{"path": "k.cu", "kernel": "STARPUFFT", "line": 58, "target": "mi300x",
                                      "expected": "ok", "reason": "r"}]
    disagree: list[str] = []
    out = S.kernel_by_target(judged, N(kernels=kernels), disagree)
    assert {t: (c["pairs"], c["agree"], c["missing"]) for t, c in out.items()} == {
        "mi300x": (1, 1, 1), "mi355x": (1, 1, 0), "mi455x": (1, 1, 0)}
    assert disagree == ["not found: STARPUFFT k.cu:58 mi300x"]


def test_a_judged_kernel_no_build_compiles_is_counted_apart_but_still_missing(tmp_path):
    # session 23: judges drew kernels inside `/* ... */` (GASAL2, cuPDLP-C, SIMULATeQCD) and in the `#else` of
    # `#if 1` (Librett); porter lists none of them, rightly, and the line says so without changing agreement
    from types import SimpleNamespace as N

    (tmp_path / "k.cu").write_text("/*\n__global__ void old(float *x) {}\n*/\n#if 1\n__global__ void k(float *x) {}\n"
                                   "#else\n__global__ void k2(float *x) {}\n#endif\n__global__ void lost(float *x) {}\n")
    assert [S.uncompiled_line(tmp_path, "k.cu", n) for n in (2, 5, 7, 9)] == ["comment", None, "dead arm", None]
    assert S.uncompiled_line(tmp_path, "absent.cu", 1) is None and S.uncompiled_line(None, "k.cu", 2) is None
    judged = [{"path": "k.cu", "kernel": name, "line": line, "target": "mi300x", "expected": "ok", "reason": "r"}
              for name, line in (("old", 2), ("k2", 7), ("lost", 9))]
    disagree: list[str] = []
    out = S.kernel_by_target(judged, N(kernels=[]), disagree, tmp_path)
    assert (out["mi300x"]["missing"], out["mi300x"]["uncompiled"], out["mi300x"]["agree"]) == (3, 2, 0)
    assert disagree == ["not found: old k.cu:2 mi300x (the judged line is in a comment: no build compiles it)",
                        "not found: k2 k.cu:7 mi300x (the judged line is in a dead arm: no build compiles it)",
                        "not found: lost k.cu:9 mi300x"]
