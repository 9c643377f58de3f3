"""Session 27, helper nua: port-status evidence a new user found too weak (twins read per directory or build switch,
an empty ROCm arm) or missed. fixtures/nua_s27 holds the repositories (written here); near misses are built from
them in tmp_path."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/nua_s27"


def _run(root: Path):
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(root, Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
    findings = [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings]
    kernels = [(k.path, k.name, str(k.status), k.handled_by) for k in result.kernels]
    return findings, kernels


def _of(findings, path):
    return [(f[1], f[2], f[3], f[4]) for f in findings if f[0] == path]


def test_twin_directories_are_read_per_file_and_per_kernel():
    findings, kernels = _run(FIXTURE / "twindirs")
    # fill.cu has its twin src/hip/fill.hip, which defines fill_kernel but not count_kernel
    assert _of(findings, "src/cuda/fill.cu") == [
        (1, "API005", "handled", "CMakeLists.txt:4"), (3, "KRN001", "handled", "CMakeLists.txt:4"),
        (9, "KRN001", "open", None), (12, "DEV002", "open", None), (12, "DEV011", "open", None)]
    # scale.cu has no twin in src/hip/, which twins src/cuda/ file for file: no port of it
    assert _of(findings, "src/cuda/scale.cu") == [
        (1, "API005", "open", None), (3, "KRN001", "open", None), (7, "DEV002", "open", None),
        (11, "API001", "open", None), (13, "KRN002", "open", None), (14, "API001", "open", None)]
    # the control: the same file where no directory twins it
    assert _of(findings, "src/extra/scale.cu") == _of(findings, "src/cuda/scale.cu")
    assert [k for k in kernels if k[0].startswith("src/cuda/")] == [
        ("src/cuda/copy.cu", "copy_kernel", "handled", "CMakeLists.txt:4"),
        ("src/cuda/fill.cu", "fill_kernel", "handled", "CMakeLists.txt:4"),
        ("src/cuda/fill.cu", "count_kernel", "open", None),
        ("src/cuda/scale.cu", "scale_kernel", "open", None)]


def test_a_twin_that_defines_the_kernel_or_a_twin_file_handles_it(tmp_path):
    root = tmp_path / "twindirs"
    shutil.copytree(FIXTURE / "twindirs", root)
    hip = root / "src/hip/fill.hip"
    hip.write_text(hip.read_text() + "\n__global__ void count_kernel(const float* x, unsigned* sum, int n) {}\n")
    (root / "src/hip/scale.hip").write_text("#include <hip/hip_runtime.h>\n__global__ void scale_kernel() {}\n")
    findings, kernels = _run(root)
    assert {f[3:] for f in findings if f[0] == "src/cuda/fill.cu"} == {("handled", "CMakeLists.txt:4")}
    assert {f[3:] for f in findings if f[0] == "src/cuda/scale.cu"} == {("handled", "src/hip/")}
    assert ("src/cuda/fill.cu", "count_kernel", "handled", "CMakeLists.txt:4") in kernels


def test_directory_counterparts_pair_only_file_for_file_twins():
    from porter.portaware.scope import directory_counterparts

    paths = ["a/cuda/x.cu", "a/cuda/y.cu", "a/cuda/z.cu", "a/hip/x.hip", "a/hip/y_hip.cpp", "b/cuda/p.cu",
             "b/cuda/q.cu", "b/hip/p.hip", "b/hip/r.hip", "b/hip/s.hip"]
    assert directory_counterparts(paths) == {"a/cuda/x.cu": "a/hip/x.hip", "a/cuda/y.cu": "a/hip/y_hip.cpp",
                                             "a/cuda/z.cu": None}


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"})


def test_a_pr_adding_an_untwinned_cuda_file_to_a_twinned_directory_is_new_work(tmp_path):
    from porter.pipeline import run_diff
    from porter.render.pr_comment import verdict_line
    from porter.settings import Settings

    root = tmp_path / "twindirs"
    shutil.copytree(FIXTURE / "twindirs", root)
    new = root / "src/cuda/scale.cu"
    text = new.read_text()
    new.unlink()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    new.write_text(text)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "cuda scale")
    r = run_diff(root, Settings(jobs=1, cache_dir=None, targets=("mi355x",)), new_since="main~1")
    line = verdict_line(list(r.diff.new), len(r.diff.fixed), list(r.diff.worse_kernels), r.result)
    assert sorted((f.line, f.rule, str(f.status)) for f in r.diff.new) == [
        (1, "API005", "open"), (3, "KRN001", "open"), (7, "DEV002", "open"), (11, "API001", "open"),
        (13, "KRN002", "open"), (14, "API001", "open")]
    assert line.startswith("⚠️ **porter: this change adds 1 open finding for ROCm** (1 high)")


def test_a_rocm_arm_holding_no_code_is_no_port():
    findings, _kernels = _run(FIXTURE / "hollowarm")
    # a `// TODO` arm and a "not implemented" throw give the ROCm build nothing: the cuBLAS arms stay open
    assert [f[1:4] for f in findings if 5 <= f[1] <= 15 and f[1] != 12] == [
        (5, "LIB015", "open"), (6, "API001", "open"), (6, "API001", "open"), (6, "API001", "open"),
        (14, "LIB015", "open"), (15, "API001", "open"), (15, "API001", "open"), (15, "API001", "open")]
    # the control: an arm with the rocBLAS call is the port
    assert [f[1:] for f in findings if f[1] >= 23] == [
        (23, "LIB015", "handled", "gemm.cc:23"), (24, "API001", "handled", "gemm.cc:23"),
        (24, "API001", "handled", "gemm.cc:23"), (24, "API001", "handled", "gemm.cc:23")]


def test_hollow_rows():
    from porter.portaware.status import _HOLLOW_ROW

    hollow = ["", "   ", "#  error no HIP yet", '    throw std::runtime_error("not implemented");',
              "    abort();", '    assert(false && "todo");']
    code = ["    rocblas_sgemm(h);", "#include <hip/hip_runtime.h>", "#define GEMM rocblas_sgemm",
            '    throw std::runtime_error("bad size");', "    return;"]
    assert [bool(_HOLLOW_ROW().match(t)) for t in hollow + code] == [True] * 6 + [False] * 5


def test_library_twins_shell_vendor_branches_and_twin_switches():
    findings, _kernels = _run(FIXTURE / "libpairs")
    got = {(f[0], f[1], f[2]): f[3:] for f in findings}
    # config/rocblas.cc calls rocBLAS: the cuBLAS configure test's twin
    assert {v for k, v in got.items() if k[0] == "config/cublas.cc"} == {("handled", "config/rocblas.cc")}
    # config/rocfft.cc only names rocFFT in a comment: no twin
    assert {v for k, v in got.items() if k[0] == "config/cufft.cc"} == {("open", None)}
    # nvcc in the NVIDIA arm of a shell vendor branch whose AMD arm runs hipcc; not when the AMD arm is a comment
    assert got[("ci/setup_env.sh", 4, "BLD007")] == ("handled", "ci/setup_env.sh:2")
    assert got[("ci/setup_nvidia.sh", 4, "BLD007")] == ("open", None)
    # a test naming cuBLAS's switch with rocBLAS's is no CUDA-only code; the cuBLAS switch alone still is
    assert got[("include/device.hh", 3, "LIB015")] == ("handled", "include/device.hh:3")
    assert got[("include/device.hh", 7, "LIB015")] == ("open", None)


def test_shell_vendor_arms_and_rocm_spellings():
    from porter.portaware.scope import shell_vendor_arms
    from porter.portaware.scope import rocm_spellings

    text = ('if [[ $backend == cuda ]]; then\n  nvcc -c x.cu\n  if [ -n "$DEBUG" ]; then\n    echo hi\n  fi\n'
            'elif [[ $backend == hip ]]; then\n  hipcc -c x.hip\nelse\n  echo cpu\nfi\n')
    assert shell_vendor_arms(text) == [(1, 5, "cuda", 1), (6, 7, "rocm", 6)]
    assert shell_vendor_arms(text.replace("  hipcc -c x.hip\n", "  # later\n")) == []
    assert rocm_spellings("BLAS_HAVE_CUBLAS") == {"blas_have_rocblas", "blas_have_hipblas"}
    assert rocm_spellings("use_nccl") == {"use_rccl"} and rocm_spellings("cubic") == set()
