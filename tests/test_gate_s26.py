"""Session 26 gate fixes: code hip-clang refuses to compile (rules tagged `breaks-build`: inline PTX, a 32-bit lane
mask HIP static-asserts against) is handled only by what keeps the ROCm build from compiling it - never by a runtime
vendor branch (hip-clang compiles both branches of an `if`) nor by a class twin in the same file (both structs are
compiled); and under --isolated a new finding whose only evidence is a non-guard line of a C/C++ file the change
adds or modifies is open again (porter.diff._reopen (4)). Runtime-only findings (an API HIP has under another name)
keep their runtime branch."""
from __future__ import annotations

import json

from helpers import git, make_repo, porter_here

RUNTIME = """\
#include <cuda_runtime.h>
bool is_hip();
__device__ bool dev_is_hip() { return false; }
__global__ void k(float* x) {
  if (dev_is_hip()) {
  } else {
    unsigned m = __ballot_sync(0xffffffff, x[threadIdx.x] > 0);
    asm volatile("bar.sync 0;");
    x[0] = m;
  }
}
void host(float** p) {
  if (is_hip()) {
  } else {
    cudaMalloc(p, 4);
  }
}
"""

TWIN = """\
struct CudaReducer {
  __device__ static unsigned run(float v) {
    unsigned m = __ballot_sync(0xffffffff, v > 0);
    asm volatile("bar.sync 0;");
    return m;
  }
};
struct HipReducer {
  __device__ static unsigned run(float v) { return 0; }
};
"""

GUARDED = """\
__device__ unsigned lane_vote(float v) {
#ifdef __HIP_PLATFORM_AMD__
  return __ballot(v > 0);
#else
  asm volatile("bar.sync 0;");
  return __ballot_sync(0xffffffff, v > 0);
#endif
}
"""


def _rows(doc, *rules):
    return [(f["path"], f["line"], f["rule"], f["status"], f.get("handled_by")) for f in doc["findings"]
            if f["rule"] in rules]


def _scan(*args):
    p = porter_here("scan", *args, "-f", "json", "--no-cache")
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, json.loads(p.stdout)


def test_breaking_code_is_not_handled_by_a_runtime_branch_or_a_same_file_twin(tmp_path):
    repo = make_repo(tmp_path / "r", {"a.cu": RUNTIME, "b.cu": TWIN, "c.cu": GUARDED})
    _, doc = _scan(str(repo))
    assert _rows(doc, "DEV001", "DEV002", "DEV003", "API001") == [
        ("a.cu", 7, "DEV003", "handled", "a.cu:5"),   # a truncated ballot compiles: the runtime branch answers it
        ("a.cu", 7, "DEV002", "open", None),          # HIP static-asserts a 64-bit mask: both branches compile
        ("a.cu", 8, "DEV001", "open", None),          # PTX: hip-clang compiles the else branch too
        ("a.cu", 15, "API001", "handled", "a.cu:13"),  # runtime-only: the runtime branch still handles it
        ("b.cu", 3, "DEV003", "handled", "b.cu:8"),
        ("b.cu", 3, "DEV002", "open", None),
        ("b.cu", 4, "DEV001", "open", None),
        ("c.cu", 5, "DEV001", "handled", "c.cu:2"),   # a preprocessor guard keeps the ROCm build away
        ("c.cu", 6, "DEV002", "handled", "c.cu:2"),
    ]


def test_breaks_build_tag_is_rule_data():
    from porter.portaware.status import BREAKS_BUILD_TAG
    from porter.rules import load_rules

    tagged = sorted(r.id for r in load_rules().rules if BREAKS_BUILD_TAG in r.tags)
    assert tagged == ["API002", "API006", "DEV001", "DEV002", "DEV005", "DEV006", "DEV007", "DEV008", "DEV012",
                      "DEV021", "DEV027", "DEV037", "DEV038", "DEV040", "LIB003"]


# Session 27: an API HIP lacks (API002), a cache-hinted load HIP has no overload for (DEV027) and a launch whose
# chevrons clang does not lex (DEV040) fail the hip-clang compile of the branch a runtime check never takes, as PTX does.
RUNTIME_MORE = """\
#include <cuda_runtime.h>
bool is_hip();
__device__ bool dev_is_hip() { return false; }
__global__ void k(const float4* a, float4* b) {
  if (dev_is_hip()) b[0] = a[0];
  else b[0] = __ldcs(a);
}
void host(const float4* a, float4* b) {
  if (is_hip()) {
  } else {
    k << <1, 64 >> >(a, b);
    cudaCtxResetPersistingL2Cache();
  }
}
"""


def test_more_breaking_rules_are_not_handled_by_a_runtime_branch(tmp_path):
    repo = make_repo(tmp_path / "r", {"m.cu": RUNTIME_MORE})
    _, doc = _scan(str(repo))
    assert _rows(doc, "API002", "DEV027", "DEV040") == [
        ("m.cu", 6, "DEV027", "open", None),
        ("m.cu", 11, "DEV040", "open", None),
        ("m.cu", 12, "API002", "open", None),
    ]


def _pr(tmp_path, files):
    repo = make_repo(tmp_path / "r", {"main.cpp": "int main(){return 0;}\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    for rel, text in files.items():
        (repo / rel).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    return repo, base


def test_isolated_gate_fails_on_breaking_code_behind_a_runtime_branch_or_twin(tmp_path):
    repo, base = _pr(tmp_path, {"a.cu": RUNTIME, "b.cu": TWIN})
    code, doc = _scan(str(repo), "--new-since", base, "--fail-on", "high", "--isolated")
    assert code == 1
    # the handled DEV003 rested on the change's own runtime check / twin: open again, and listed reopened
    assert sorted((f["path"], f["line"], f["rule"]) for f in doc["reopened"]) == [
        ("a.cu", 7, "DEV003"), ("a.cu", 15, "API001"), ("b.cu", 3, "DEV003")]
    assert {f["status"] for f in doc["findings"] if f["severity"] == "high"} == {"open"}


def test_trusted_diff_and_guarded_code_keep_their_status(tmp_path):
    repo, base = _pr(tmp_path, {"a.cu": RUNTIME, "c.cu": GUARDED})
    code, doc = _scan(str(repo), "--new-since", base, "--fail-on", "high")
    assert code == 1  # DEV001/DEV002 in a.cu are open in any mode
    assert "reopened" not in doc
    assert ("a.cu", 7, "DEV003", "handled", "a.cu:5") in _rows(doc, "DEV003")
    code, doc = _scan(str(repo), "--new-since", base, "--fail-on", "high", "--isolated")
    # a guard whose ROCm arm holds code is real evidence even when the change adds it
    assert _rows(doc, "DEV001", "DEV002") == [
        ("a.cu", 7, "DEV002", "open", None), ("a.cu", 8, "DEV001", "open", None),
        ("c.cu", 5, "DEV001", "handled", "c.cu:2"), ("c.cu", 6, "DEV002", "handled", "c.cu:2")]


def test_negated_vendor_names_are_no_rocm_switch():
    from porter.source.preprocessor import is_rocm_name

    assert [n for n in ("NO_HIP", "DISABLE_ROCM", "WITHOUT_HIP", "HIP_DISABLED", "APP_NO_ROCM", "USE_HIP",
                        "GGML_HIP_NO_MMQ", "GGML_USE_HIP", "__HIP_NO_HALF_CONVERSIONS__") if is_rocm_name(n)] == [
        "USE_HIP", "GGML_HIP_NO_MMQ", "GGML_USE_HIP", "__HIP_NO_HALF_CONVERSIONS__"]


def test_a_header_nothing_includes_derives_no_rocm_name():
    from porter.source.preprocessor import derived_names, preprocess

    header = b"#ifdef USE_ROCM\n#define FAST_PATH 1\n#endif\n"
    user = b"#ifdef FAST_PATH\nint a;\n#else\nint b;\n#endif\n"
    including = b'#include "cfg/fast.h"\n' + user
    dirs = {p: (preprocess(t).directives, t.count(b"\n")) for p, t in
            (("fast.h", header), ("b.cu", user), ("c.cu", including))}
    assert "FAST_PATH" not in derived_names({p: dirs[p] for p in ("fast.h", "b.cu")})[0]
    assert "FAST_PATH" in derived_names(dirs)[0]  # once a file includes it, its ROCm arm speaks for the build
    # a compiled unit's own ROCm arm derives as before
    unit = {"u.cu": (preprocess(header + user).directives, 8)}
    assert "FAST_PATH" in derived_names(unit)[0]


def test_isolated_gate_fails_on_negated_switch_and_unincluded_header(tmp_path):
    kernel = ("__global__ void evil(float* x) {\n  unsigned m = __ballot_sync(0xffffffff, x[threadIdx.x] > 0);\n"
              '  asm volatile("bar.sync 0;");\n  x[0] = m;\n}\n')
    repo, base = _pr(tmp_path, {
        "a.cu": "#ifndef NO_HIP\n" + kernel + "#else\nint placeholder = 0;\n#endif\n",
        "never_included.h": "#ifdef USE_ROCM\n#define FAST_PATH 1\n#endif\n",
        "b.cu": "#ifdef FAST_PATH\nint placeholder_b = 0;\n#else\n" + kernel + "#endif\n"})
    code, doc = _scan(str(repo), "--new-since", base, "--fail-on", "high", "--isolated")
    assert code == 1
    assert _rows(doc, "DEV001") == [("a.cu", 4, "DEV001", "open", None), ("b.cu", 6, "DEV001", "open", None)]


def test_a_submodule_the_change_adds_fails_the_gate_and_an_old_one_does_not(tmp_path):
    sub = make_repo(tmp_path / "sub", {"evil.cu": '__global__ void k() { asm volatile("bar.sync 0;"); }\n'})
    repo = make_repo(tmp_path / "r", {"CMakeLists.txt": "project(x CUDA CXX)\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "-c", "protocol.file.allow=always", "submodule", "-q", "add", str(sub), "third_party/evil")
    git(repo, "commit", "-qm", "add submodule")
    code, doc = _scan(str(repo), "--new-since", base, "--fail-on", "high", "--isolated")
    assert code == 1
    assert doc["skipped"] == [{"path": "third_party/evil", "reason":
                               "git submodule this change adds: its code is unseen here (scan it separately)"}]
    # a later change beside the submodule the base already has: today's plain skip, no failure
    mid = git(repo, "rev-parse", "HEAD").strip()
    (repo / "CMakeLists.txt").write_text("project(x CUDA CXX)\nadd_subdirectory(third_party/evil)\n")
    git(repo, "commit", "-qam", "build it")
    code, doc = _scan(str(repo), "--new-since", mid, "--fail-on", "high", "--isolated")
    assert code == 0
    assert all(s["reason"] != "git submodule this change adds: its code is unseen here (scan it separately)"
               for s in doc["skipped"])


PTX_TXT = '__global__ void evil(float* x) {\n  asm volatile("bar.sync 0;");\n}\n'


def test_an_angle_include_of_a_project_file_is_scanned(tmp_path):
    repo = make_repo(tmp_path / "r", {"kern/evil.txt": PTX_TXT, "main.cu": "#include <kern/evil.txt>\n#include <vector>\n"
                                      "int main(){}\n"})
    code, doc = _scan(str(repo), "--fail-on", "high")
    assert code == 1
    assert _rows(doc, "DEV001") == [("kern/evil.txt", 2, "DEV001", "open", None)]
    assert doc["skipped"] == []  # <vector> is the toolchain's: no extension, no unseen entry


def test_an_include_only_an_include_directory_reaches_is_listed_unseen(tmp_path):
    repo = make_repo(tmp_path / "r", {"kern/evil.inc.txt": PTX_TXT,
                                      "src/main.cu": '#include "evil.inc.txt"\nint main(){}\n',
                                      "CMakeLists.txt": "include_directories(kern)\nadd_executable(x src/main.cu)\n"})
    code, doc = _scan(str(repo), "--fail-on", "high")
    assert code == 1
    assert doc["skipped"] == [{"path": "src/main.cu", "reason": "#include of evil.inc.txt names a file with no "
                               "source language that is not beside it or above it (an include directory?)"}]


def test_an_undef_of_a_rocm_name_leaves_its_arms_to_no_build():
    from porter.source.preprocessor import evaluate, preprocess, side_at, undone_names

    text = b"#undef USE_ROCM\n#ifdef USE_ROCM\nint a;\n#else\nint b;\n#endif\n#ifdef __HIP_PLATFORM_AMD__\nint c;\n#endif\n"
    regs = evaluate(preprocess(text).directives, 9)
    # the file's own #undef: USE_ROCM is no switch from there on (both arms "both"); __HIP_PLATFORM_AMD__ still is
    assert [side_at(regs, n)[0] for n in (3, 5, 8)] == ["both", "both", "rocm"]
    header = (preprocess(b"#pragma once\n#undef USE_ROCM\n#undef USE_HIP\n#define USE_HIP 1\n").directives, 4)
    unit = (preprocess(b"#undef __HIP_PLATFORM_AMD__\n").directives, 1)
    # a header's #undef that stands (USE_HIP is defined again after it; a unit's reaches only itself)
    assert undone_names({"platform.h": header, "a.cu": unit}) == frozenset({"USE_ROCM"})
    user = preprocess(b'#include "platform.h"\n#ifdef USE_ROCM\nint a;\n#else\nint b;\n#endif\n').directives
    assert [side_at(evaluate(user, 6), n)[0] for n in (3, 5)] == ["rocm", "cuda"]
    assert [side_at(evaluate(user, 6, undone={"USE_ROCM"}), n)[0] for n in (3, 5)] == ["both", "both"]


def test_isolated_gate_fails_when_a_header_undefines_the_rocm_switch(tmp_path):
    repo, base = _pr(tmp_path, {
        "platform.h": "#pragma once\n#undef USE_ROCM\n",
        "a.cu": '#include "platform.h"\n#ifdef USE_ROCM\nint placeholder = 0;\n#else\n__global__ void evil(float* x) {\n'
                '  asm volatile("bar.sync 0;");\n}\n#endif\n'})
    code, doc = _scan(str(repo), "--new-since", base, "--fail-on", "high", "--isolated")
    assert code == 1
    assert _rows(doc, "DEV001") == [("a.cu", 6, "DEV001", "open", None)]
