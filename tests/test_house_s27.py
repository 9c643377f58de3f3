"""Session 27 house (issue 26): one function for each job - the vendor key of names porter pairs (a source's stem,
a directory, a CI job: porter.portaware.scope.vendor_key), one bare-repository check (porter.source.git.is_bare)."""
from __future__ import annotations

from porter.portaware.runners import _job_key, ci_job_twins
from porter.portaware.scope import _dir_key, _source_key, vendor_key


def test_sources_directories_and_ci_jobs_are_keyed_by_one_function():
    assert _source_key("kernels_cuda") == vendor_key("kernels_cuda") == ("kernels\0", True, False)
    assert _source_key("kernels-hip") == ("kernels\0", False, True)
    assert _source_key("CUDAWrapper") == ("\0wrapper", True, False)
    # a directory reads a vendor's or library's name as its platform word
    assert _dir_key("nccl") == ("\0", True, False) and _dir_key("rccl") == ("\0", False, True)
    assert _dir_key("backend_nvidia") == _dir_key("backend-amd")[:1] + (True, False)
    # a CI job: nvidia / nvcc / amd too, and separators go with the word (build-cuda pairs with build_rocm)
    assert _job_key("build-cuda") == ("build\0", "cuda")
    assert _job_key("build_rocm") == ("build\0", "rocm")
    assert _job_key("test_nvidia") == _job_key("test-nvcc") == ("test\0", "cuda")
    assert _job_key("test-amd") == ("test\0", "rocm")
    assert _job_key('"build cuda 12"') == ("build\x0012", "cuda")
    assert _job_key("cuda-to-hip") == ("\0to\0", None)  # names both sides: neither
    assert _job_key("amd64-build") == ("amd64-build", None)  # a CPU architecture, no vendor word
    assert ci_job_twins("stages: [b]\nbuild-cuda:\n  script: [make]\nbuild_rocm:\n  script: [make]\n") == [(2, 3, 4)]


def test_a_fleet_asks_the_one_bare_repository_check(tmp_path, monkeypatch):
    """fleet's _check_local takes a bare repository by git.is_bare (a mirror without a config file too), checks a
    work tree by git.repository_top, and refuses anything else with a reason."""
    import pytest

    from porter.fleet.checkout import CheckoutError, _check_local
    from porter.source import git as git_module

    from helpers import git, make_repo

    work = make_repo(tmp_path / "w", {"k.cu": "__global__ void k() {}\n"})
    bare = tmp_path / "m.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    (bare / "config").unlink()
    asked = []
    real = git_module.is_bare
    monkeypatch.setattr(git_module, "is_bare", lambda p: asked.append(p) or real(p))
    assert _check_local(bare) is None and _check_local(work) is None
    assert asked == [bare, work]
    with pytest.raises(CheckoutError, match="not a git repository"):
        _check_local(tmp_path)
    with pytest.raises(CheckoutError, match="git cannot read it as a repository"):
        _check_local(work / ".git")


def test_the_isolated_diff_reads_its_guards_from_what_the_scan_read(tmp_path, monkeypatch):
    """porter.diff._reopen lexes the guards of findings a change handles in its own file: it takes those files from
    the head scan's Held, not from git again (before: one `git cat-file` per guarded file). Same verdicts."""
    from porter import diff as changes
    from porter.pipeline import run_diff
    from porter.settings import Settings

    from helpers import git, make_repo

    ptx = 'asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));'
    repo = make_repo(tmp_path / "r", {"k.cu": "__global__ void k(int *a) { a[threadIdx.x] = 0; }\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    # (a guard with no ROCm arm: session 27's nua made an empty ROCm arm no evidence even without --isolated)
    for name, body in (("no_arm.cu", f"#ifndef USE_ROCM\n  {ptx}\n#endif"),
                       ("real_arm.cu", f"#ifdef USE_ROCM\n  l = __lane_id();\n#else\n  {ptx}\n#endif")):
        (repo / name).write_text(f"__device__ int lane() {{\n  int l;\n{body}\n  return l;\n}}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    log = tmp_path / "git_reads.log"
    real = changes.read_at

    def counted_read_at(top, commit, subdir):
        inner = real(top, commit, subdir)

        def read(path):
            with open(log, "a") as f:
                f.write(path + "\n")
            return inner(path)
        return read
    monkeypatch.setattr(changes, "read_at", counted_read_at)
    done = run_diff(repo, Settings(jobs=1, cache_dir=None, targets=("mi300x",)), new_since=base, isolated=True)
    assert sorted((f.path, f.status.value) for f in done.result.findings if f.rule == "DEV001") == [
        ("no_arm.cu", "open"), ("real_arm.cu", "handled")]
    assert done.diff is not None and [f.path for f in done.diff.reopened if f.rule == "DEV001"] == ["no_arm.cu"]
    assert not log.exists()  # both guarded files came from the scan's Held


def test_file_switches_read_each_define_by_its_first_token():
    """preprocessor.file_switches names each #define by its text's first token, read alone (_first_token): the same
    switches as tokenising every define's whole body, also for a name only a line comment defines."""
    from porter.source.preprocessor import _first_token, file_switches, preprocess

    data = (b"#define USE_ASM 0\n//#define FULLCHECK\n#define BIG(x) do { x += 1; } while (0)\n#define BARE\n"
            b"//#define BIG\n#if USE_ASM\nint a;\n#endif\n")
    pre = preprocess(data)
    assert file_switches(pre, data) == {"USE_ASM": (0, 1), "FULLCHECK": (False, 2)}
    assert file_switches(pre, data, bare=True) == {"USE_ASM": (0, 1), "BARE": ("defined", 4), "FULLCHECK": (False, 2)}
    assert [_first_token(t) for t in ("", " BIG(x) x", "BARE ", "and", " @")] == [
        ("", False), ("BIG", False), ("BARE", True), ("&&", True), ("?", False)]
