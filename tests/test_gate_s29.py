"""Session 29's PR-gate holes (attacker attack29, bench/attack29.md findings 1, 3, 5, 6): a pull request that adds
CUDA-only code and passes `scan --isolated --new-since main --fail-on medium` by compiling text the base already
held (1), adding a kernel file to the CUDA arm of a split build with no ROCm counterpart (3), giving a CUDA kernel a
stub ROCm arm (5), or adding a kernel only kernel analysis rates `fix` (6). Each test builds the repository of the
attacker's reproduction in tmp_path and runs the gate as CI does; each hole has a legitimate dual pull request beside
it that still passes."""
from __future__ import annotations

import json

import jsonschema

from helpers import REPO, porter_here, pull_request

CMAKE = """cmake_minimum_required(VERSION 3.21)
project(demo LANGUAGES CXX)
option(USE_ROCM "build for ROCm" OFF)
if(USE_ROCM)
  enable_language(HIP)
  add_compile_definitions(USE_ROCM)
else()
  enable_language(CUDA)
endif()
add_library(demo src/a.cu)
"""
A_CU = """#include <cstdio>
#ifdef USE_ROCM
#include <hip/hip_runtime.h>
#else
#include <cuda_runtime.h>
#endif
__global__ void add(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }
"""
MAIN = {"CMakeLists.txt": CMAKE, "src/a.cu": A_CU}


def payload(name: str) -> str:
    """The attacker's CUDA-only payload: a 32-lane shuffle (DEV002 high, DEV011 medium) and its launch."""
    return (f"__global__ void {name}(float* x) {{ float v = x[threadIdx.x]; v += __shfl_down_sync(0xffffffff, v, 16);"
            f" x[0] = v; }}\nvoid go_{name}(float* x) {{ float* d; cudaMalloc(&d, 128); {name}<<<1, 32>>>(d); }}\n")


def gate(repo, *extra: str):
    p = porter_here("scan", str(repo), "--isolated", "--new-since", "main", "--fail-on", "medium", "--no-cache",
                    "-f", "json", *extra)
    assert p.returncode in (0, 1), p.stderr
    d = json.loads(p.stdout)
    jsonschema.validate(d, json.loads((REPO / "porter" / "schemas" / "scan.schema.json").read_text()))
    return p.returncode, sorted((f["path"], f["line"], f["rule"], f["status"]) for f in d["findings"]
                                if f["severity"] != "info"), d


# ------------------------------------------------------------------------------------------------ finding 1


def test_text_the_base_held_that_the_change_starts_compiling_is_new_code(tmp_path):
    """PR 1 (merged) added text files no build used; PR 2 changes only an `#include` line and two CMake lines. The
    files whose reading changed had the same blob at base and head, so they were outside the diff: exit 0, 0 new.
    Now a file the head reads as C/C++/CUDA and the base did not joins the change on both sides."""
    base = {**MAIN, "docs/snippets/reduce.txt": payload("red_i"), "docs/snippets/reduce2.txt": payload("red_c")}
    repo = pull_request(tmp_path / "r", base, {
        "src/a.cu": A_CU + '#include "../docs/snippets/reduce.txt"\n',
        "CMakeLists.txt": CMAKE + "set_source_files_properties(docs/snippets/reduce2.txt PROPERTIES LANGUAGE CUDA)\n"
                                  "target_sources(demo PRIVATE docs/snippets/reduce2.txt)\n"})
    code, fs, d = gate(repo)
    assert (code, fs) == (1, [("docs/snippets/reduce.txt", 1, "DEV002", "open"),
                              ("docs/snippets/reduce.txt", 1, "DEV011", "open"),
                              ("docs/snippets/reduce2.txt", 1, "DEV002", "open"),
                              ("docs/snippets/reduce2.txt", 1, "DEV011", "open")])
    assert (d["diff"]["new"], d["diff"]["unchanged"]) == (10, 3)


def test_text_the_base_already_compiled_is_not_new(tmp_path):
    """The control: the base already includes the text; a change to the includer elsewhere adds nothing new."""
    base = {**MAIN, "src/a.cu": A_CU + '#include "../docs/snippets/reduce.txt"\n',
            "docs/snippets/reduce.txt": payload("red_i")}
    repo = pull_request(tmp_path / "r", base, {"src/a.cu": "// a comment\n" + base["src/a.cu"]})
    code, fs, d = gate(repo)
    assert (code, fs, d["diff"]["new"]) == (0, [], 0)


# ------------------------------------------------------------------------------------------------ finding 3

SPLIT = """cmake_minimum_required(VERSION 3.21)
project(demo LANGUAGES CXX)
option(USE_ROCM "build for ROCm" OFF)
if(USE_ROCM)
  enable_language(HIP)
  file(GLOB KERNEL_SRCS kernels/hip/*.hip)
else()
  enable_language(CUDA)
  file(GLOB KERNEL_SRCS kernels/cuda/*.cu)
endif()
add_library(demo ${KERNEL_SRCS})
"""
SCALE_CU = ("__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; "
            "float v = __shfl_down_sync(0xffffffff, x[0], 16); x[1] = v; }\n")
SCALE_HIP = ("#include <hip/hip_runtime.h>\n__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; "
             "float v = __shfl_down(x[0], 16); x[1] = v; }\n")
SPLIT_MAIN = {"CMakeLists.txt": SPLIT, "kernels/cuda/scale.cu": SCALE_CU, "kernels/hip/scale.hip": SCALE_HIP}


def test_a_new_kernel_in_the_cuda_arm_of_a_split_build_without_a_rocm_counterpart_is_open(tmp_path):
    """The CUDA arm globs kernels/cuda/*.cu, the ROCm arm kernels/hip/*.hip; kernels/hip/ has no fast_topk. It read
    handled by the unchanged ROCm arm (CMakeLists.txt:4), exit 0; the kernel is now unported in a full scan too."""
    repo = pull_request(tmp_path / "r", SPLIT_MAIN, {"kernels/cuda/fast_topk.cu": payload("fast_topk")})
    code, fs, d = gate(repo)
    assert (code, fs) == (1, [("kernels/cuda/fast_topk.cu", 1, "DEV002", "open"),
                              ("kernels/cuda/fast_topk.cu", 1, "DEV011", "open")])
    # a plain scan agrees: the new kernel is open, the twinned one stays handled by the arm
    p = porter_here("scan", str(repo), "--no-cache", "-f", "json")
    full = sorted((f["path"], f["rule"], f["status"], f.get("handled_by")) for f in json.loads(p.stdout)["findings"]
                  if f["rule"] in ("DEV002", "KRN001") and "/cuda/" in f["path"])
    assert full == [("kernels/cuda/fast_topk.cu", "DEV002", "open", None),
                    ("kernels/cuda/fast_topk.cu", "KRN001", "open", None),
                    ("kernels/cuda/scale.cu", "DEV002", "handled", "CMakeLists.txt:4"),
                    ("kernels/cuda/scale.cu", "KRN001", "handled", "CMakeLists.txt:4")]


def test_a_new_kernel_with_its_rocm_twin_in_the_split_build_still_passes(tmp_path):
    repo = pull_request(tmp_path / "r", SPLIT_MAIN, {
        "kernels/cuda/fast_topk.cu": payload("fast_topk"),
        "kernels/hip/fast_topk.hip": "#include <hip/hip_runtime.h>\n__global__ void fast_topk(float* x) "
                                     "{ float v = x[threadIdx.x]; for (int o = warpSize / 2; o > 0; o /= 2) "
                                     "v += __shfl_down(v, o); x[0] = v; }\n"})
    code, fs, d = gate(repo)
    assert (code, fs) == (0, [("kernels/cuda/fast_topk.cu", 1, "DEV002", "handled"),
                              ("kernels/cuda/fast_topk.cu", 1, "DEV011", "handled")])


def test_a_rocm_counterpart_under_a_vendor_prefixed_name_keeps_its_kernel_handled(tmp_path):
    """OPM's gpubridge/cuda/cuWellContributions.cu beside gpubridge/rocm/rocsparseWellContributions.cpp, which
    implements its kernel under another name: the file has its counterpart (one core stem), so the kernel stays the
    component's. The control: the same ROCm directory without that file leaves the kernel open."""
    from porter.pipeline import run
    from porter.settings import Settings

    cuda = ("__global__ void apply_well(float* x) { float v = x[threadIdx.x]; "
            "v += __shfl_down_sync(0xffffffff, v, 16); x[0] = v; }\n")
    hip = ("#include <hip/hip_runtime.h>\n__global__ void stdwell_apply(float* x) { x[threadIdx.x] *= 2; }\n")
    for name, want in (("rocsparseWellContributions.cpp", ("handled", "gpu/rocm/")), ("rocsparseOther.cpp", ("open", None))):
        root = tmp_path / name
        for rel, text in (("gpu/cuda/cuWellContributions.cu", cuda), (f"gpu/rocm/{name}", hip),
                          ("gpu/cuda/solver.cu", "void solve() {}\n"), ("gpu/rocm/solver.hip", "void solve() {}\n")):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        result = run(root, Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
        assert [(f.rule, str(f.status), f.handled_by) for f in result.findings
                if f.path == "gpu/cuda/cuWellContributions.cu" and f.rule == "DEV002"] == [("DEV002", *want)], name


def test_core_stem_names_what_a_file_implements():
    from porter.portaware.scope import core_stem

    assert [core_stem(p) for p in ("a/cuWellContributions.cu", "rocsparseWellContributions.cpp", "scale_hip.cpp",
                                   "scale.cu", "kernels_cuda.cu", "cusparseSolverBackend.cu", "cuda.cu")] == [
        "wellcontributions", "wellcontributions", "scale", "scale", "kernels", "solverbackend", ""]


RAW = 'import cupy\ndef {f}(x):\n    return cupy.RawKernel(r\'extern "C" __global__ void s(float* x) {{ x[threadIdx.x] *= 2; }}\', "s")((1,), (64,), (x,))\n'
TOPK = ("import cupy\nSRC = r'''\nextern \"C\" __global__ void topk(float* x) { float v = x[threadIdx.x]; "
        "v += __shfl_down_sync(0xffffffff, v, 16); x[0] = v; }\n'''\ndef topk(x):\n"
        "    return cupy.RawKernel(SRC, \"topk\")((1,), (32,), (x,))\n")
PAIR_MAIN = {"backend/__init__.py": "", "backend/cuda/__init__.py": "", "backend/rocm/__init__.py": "",
             "backend/cuda/ops.py": RAW.format(f="scale"), "backend/rocm/ops.py": RAW.format(f="scale")}


def test_a_new_module_in_a_cuda_component_without_a_rocm_counterpart_reopens(tmp_path):
    """backend/cuda/ beside backend/rocm/: a change adding backend/cuda/topk.py only read handled by backend/rocm/."""
    repo = pull_request(tmp_path / "r", PAIR_MAIN, {"backend/cuda/topk.py": TOPK})
    code, fs, d = gate(repo)
    assert (code, fs) == (1, [("backend/cuda/topk.py", 3, "PYT008", "open")] * 2)
    assert sorted(f["rule"] for f in d["reopened"]) == ["PYT007", "PYT008", "PYT008"]


def test_a_change_to_a_module_with_its_rocm_counterpart_still_passes(tmp_path):
    """backend/cuda/ops.py has backend/rocm/ops.py, which the change leaves as it is: the pairing stands. (A change
    that adds both sides of a component reopens them, as since session 28: the ROCm side is then its own say-so.)"""
    repo = pull_request(tmp_path / "r", PAIR_MAIN, {"backend/cuda/ops.py": RAW.format(f="scale") + TOPK.replace(
        "import cupy\n", "")})
    code, fs, d = gate(repo)
    assert (code, fs, d.get("reopened")) == (0, [("backend/cuda/ops.py", 5, "PYT008", "handled")] * 2, None)


# ------------------------------------------------------------------------------------------------ finding 5

CUDA_RED = ("__global__ void red(float* x) { float v = x[threadIdx.x]; v += __shfl_down_sync(0xffffffff, v, 16); "
            "x[0] = v; }\n")


def stubbed(rocm_arm: str) -> str:
    return f"#ifdef __HIP_PLATFORM_AMD__\n{rocm_arm}#else\n{CUDA_RED}#endif\nvoid go(float* d) {{ red<<<1, 64>>>(d); }}\n"


def test_a_stub_or_declared_rocm_arm_does_not_handle_a_new_cuda_kernel(tmp_path):
    """An arm that mentions the kernel was taken for its ROCm twin: an empty body, a body that only returns or
    traps, or a bare declaration gives the ROCm build no working kernel. They read handled (exit 0); now open."""
    for i, arm in enumerate(["__global__ void red(float* x) {}\n",
                             "__global__ void red(float* x);   // declared only\n",
                             "__global__ void red(float* x) { return; }\n",
                             "__global__ void red(float* x) { /* later */ __trap(); }\n"]):
        repo = pull_request(tmp_path / f"r{i}", MAIN, {"src/b.cu": stubbed(arm),
                                                       "CMakeLists.txt": CMAKE + "target_sources(demo PRIVATE src/b.cu)\n"})
        code, fs, d = gate(repo)
        assert (code, [f for f in fs if f[1] == 4]) == (1, [("src/b.cu", 4, "DEV002", "open"),
                                                            ("src/b.cu", 4, "DEV011", "open")]), arm
        assert sorted(f["rule"] for f in d["reopened"]) == ["DEV002", "DEV011", "KRN001"], arm


def test_a_rocm_arm_defining_the_kernel_with_a_body_still_handles_it(tmp_path):
    arm = "__global__ void red(float* x) { float v = x[threadIdx.x]; v += __shfl_down(v, 16); x[0] = v; }\n"
    repo = pull_request(tmp_path / "r", MAIN, {"src/b.cu": stubbed(arm),
                                               "CMakeLists.txt": CMAKE + "target_sources(demo PRIVATE src/b.cu)\n"})
    code, fs, d = gate(repo)
    assert (code, fs, d.get("reopened")) == (0, [("src/b.cu", 2, "DEV011", "handled"), ("src/b.cu", 4, "DEV002", "handled"),
                                                 ("src/b.cu", 4, "DEV011", "handled")], None)


def test_defines_reads_a_body_not_a_mention():
    from porter.diff import _defines

    assert _defines("__global__ void red(float* x) const { x[0] = 1; }", "red")
    assert _defines("template <int N> __global__ void red<N>(float* x) { y(); }", "red")
    assert not _defines("__global__ void red(float* x) {}", "red")
    assert not _defines("__global__ void red(float* x) { (void)x; return; }", "red")
    assert not _defines("__global__ void red(float* x);", "red")
    assert not _defines("void go() { if (red(x)) { y(); } }", "red")  # a call in a condition is no definition
    assert not _defines("void go() { red<<<1, 64>>>(d); }", "red")


# ------------------------------------------------------------------------------------------------ finding 6

LDS = """__global__ void big_tile(float* x) {
  __shared__ float tile[60000];
  tile[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = tile[(threadIdx.x + 1) % 60000];
}
void launch(float* d) { big_tile<<<1, 256>>>(d); }
"""


def test_a_kernel_verdict_the_change_makes_fix_fails_the_gate(tmp_path):
    """234 KiB of __shared__ (more LDS than any AMD target has): only kernel analysis says so (`fix`), and verdicts
    never reached the exit code (exit 0 with `1 kernel verdict worse`). A worse `fix` now counts as medium."""
    repo = pull_request(tmp_path / "r", MAIN, {"src/lds.cu": LDS,
                                               "CMakeLists.txt": CMAKE + "target_sources(demo PRIVATE src/lds.cu)\n"})
    code, fs, d = gate(repo, "--target", "mi300x", "--target", "mi355x")
    assert (code, fs) == (1, [])
    assert [(k["kernel"], k["target"], k["after"], k["worse"], k["severity"]) for k in d["kernel_changes"]] == [
        ("big_tile", "mi300x", "fix", True, "medium"), ("big_tile", "mi355x", "fix", True, "medium")]
    assert d["diff"]["kernels_worse"] == 2
    p = porter_here("scan", str(repo), "--isolated", "--new-since", "main", "--fail-on", "medium", "--no-cache",
                    "-f", "json", "--target", "mi300x", "--target", "mi355x")
    assert "2 kernel verdicts worse (2 of them at fix or worse: --fail-on counts them)" in p.stderr
    # the same counts in the PR comment and SARIF
    md = porter_here("scan", str(repo), "--isolated", "--new-since", "main", "--no-cache", "-f", "markdown",
                     "--target", "mi300x", "--target", "mi355x").stdout
    assert md.count("| `big_tile` |") == 2
    sarif = json.loads(porter_here("scan", str(repo), "--isolated", "--new-since", "main", "--no-cache", "-f", "sarif",
                                   "--target", "mi300x", "--target", "mi355x").stdout)
    assert sarif["runs"][0]["properties"]["porter"]["diff"]["kernels_worse"] == 2
    # `fix` counts as medium: a high threshold passes it
    assert porter_here("scan", str(repo), "--isolated", "--new-since", "main", "--fail-on", "high", "--no-cache",
                       "-f", "json").returncode == 0


def test_a_kernel_that_fits_passes_the_gate(tmp_path):
    repo = pull_request(tmp_path / "r", MAIN, {"src/lds.cu": LDS.replace("60000", "600"),
                                               "CMakeLists.txt": CMAKE + "target_sources(demo PRIVATE src/lds.cu)\n"})
    code, fs, d = gate(repo)
    assert (code, fs, d["kernel_changes"], d["diff"]["kernels_worse"]) == (0, [], [], 0)


def test_fail_on_help_says_kernel_verdicts_count():
    p = porter_here("scan", "--help")
    assert "kernel verdict the change makes worse on an open kernel counts too: fix as medium, rewrite as high" \
        in " ".join(p.stdout.split())
