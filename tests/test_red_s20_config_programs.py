"""Red team, session 20: a repository config naming 100,000 filter drivers.

porter.source.git.disarmed overrides every program a scanned repository's .git/config names (`filter.<d>.clean`
and the like) with one `-c` pair each, and kept them in a list it searched before each append: 100,000
`[filter "xN"] clean = c` sections (2.9 MB of config) cost `porter scan --rev HEAD` 221 s of that quadratic search in
porter's own process, outside every budget and the run's deadline, and then ended in "internal error" (exit 3): the
200,000 arguments were past the kernel's limit (OSError E2BIG). A repository has a few such drivers (Git LFS names
four keys); past MAX_PROGRAM_KEYS the repository is not read, as for any config porter cannot disarm.
"""
from __future__ import annotations

import time

import pytest

from helpers import git, make_repo, porter_here
from porter.source import git as pgit

KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n"


def _drivers(repo, n: int) -> None:
    with open(repo / ".git" / "config", "a") as f:
        f.write("".join(f'[filter "x{i}"]\n\tclean = c\n' for i in range(n)))


def test_a_config_of_too_many_programs_is_refused_in_linear_time(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    _drivers(repo, 100_000)
    t = time.monotonic()
    with pytest.raises(pgit.ForeignRepository) as e:
        pgit.run(repo, "rev-parse", "HEAD")
    assert time.monotonic() - t < 30
    assert str(e.value) == (f"{repo}/.git/config: repository config names 100000 programs (filter, diff, merge "
                            f"drivers...), more than the {pgit.MAX_PROGRAM_KEYS} porter overrides")
    p = porter_here("scan", str(repo), "--rev", "HEAD", "--no-cache", "--isolated", "-q", timeout=120)
    assert (p.returncode, p.stderr) == (2, f"error: {repo}: {e.value}; not read\n")


def test_a_few_drivers_are_still_overridden_each_once(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    git(repo, "config", "filter.lfs.clean", "git-lfs clean -- %f")
    git(repo, "config", "filter.lfs.smudge", "git-lfs smudge -- %f")
    git(repo, "config", "filter.lfs.process", "git-lfs filter-process")
    git(repo, "config", "filter.lfs.required", "true")
    git(repo, "config", "--add", "filter.lfs.clean", "again")
    assert pgit.disarmed(repo) == ("-c", "filter.lfs.clean=", "-c", "filter.lfs.smudge=", "-c", "filter.lfs.process=",
                                   "-c", "filter.lfs.required=false")
    assert pgit.run(repo, "rev-parse", "HEAD").decode().strip() == git(repo, "rev-parse", "HEAD").strip()
