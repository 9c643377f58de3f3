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
