"""The one pipeline over a pluggable source: a git tree at any commit scans like its checkout, the cache keys git
files by blob id, every command's format comes from one registry, and one resolver picks targets (issue 9)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from helpers import REPO, git, make_repo, porter_here

V1 = "__global__ void k(float* p) { p[threadIdx.x] = __shfl_xor_sync(0xffffffff, 1.0f, 1); }\n"
V2 = V1 + "__global__ void k2(int* p) { asm volatile(\"ld.global.nc.u32 %0, [%1];\" : \"=r\"(p[0]) : \"l\"(p)); }\n"


def porter(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The CLI in this process, in this process's environment (nothing here needs a process of its own)."""
    return porter_here(*args, cwd=cwd, timeout=300, replace_env=True, env=dict(os.environ))


def history(tmp_path: Path) -> tuple[Path, str, str]:
    repo = make_repo(tmp_path / "r", {"src/k.cu": V1, "src/util.py": "import pycuda.autoinit\n"})
    first = git(repo, "rev-parse", "HEAD").strip()
    (repo / "src" / "k.cu").write_text(V2)
    git(repo, "commit", "-qam", "second")
    return repo, first, git(repo, "rev-parse", "HEAD").strip()


def test_a_git_tree_scans_like_its_checkout(tmp_path):
    from porter.pipeline import run
    from porter.settings import Settings
    from porter.source.read import source_for

    repo, first, _ = history(tmp_path)
    at_first = run(source_for(repo, first), Settings(jobs=1)).result
    checkout = tmp_path / "checkout"
    git(repo, "worktree", "add", "-q", str(checkout), first)
    on_disk = run(checkout, Settings(jobs=1)).result
    assert [f.to_dict() for f in at_first.findings] == [f.to_dict() for f in on_disk.findings]
    assert [k.name for k in at_first.kernels] == ["k"]
    assert (repo / "src" / "k.cu").read_text() == V2  # the work tree is not touched
    assert at_first.root == f"{repo}@{first[:12]}"


def test_a_subdirectory_at_a_commit_has_scan_root_relative_paths_and_a_prefix(tmp_path):
    from porter.pipeline import run
    from porter.settings import Settings
    from porter.source.read import source_for

    repo, _, second = history(tmp_path)
    result = run(source_for(repo / "src", second), Settings(jobs=1)).result
    assert sorted({f.path for f in result.findings}) == ["k.cu", "util.py"]
    assert result.to_dict()["repository_prefix"] == "src"
    assert [k.name for k in result.kernels] == ["k", "k2"]


def test_git_files_are_cached_by_blob_id_and_hit_without_reading(tmp_path, monkeypatch):
    from porter.pipeline import run
    from porter.settings import Settings
    from porter.source import read
    from porter.source.read import source_for

    repo, first, second = history(tmp_path)
    settings = Settings(jobs=1, cache_dir=tmp_path / "cache")
    cold = run(source_for(repo, first), settings).result
    assert (cold.stats.cache_hits, cold.stats.cache_misses) == (0, 2)
    log = tmp_path / "reads"  # files are read in budgeted worker processes (porter.budget): counted in a file
    real = read.GitTree.read

    def counting(self, c, limit):
        with log.open("a") as f:
            f.write(c.path + "\n")
        return real(self, c, limit)

    monkeypatch.setattr(read.GitTree, "read", counting)
    warm = run(source_for(repo, second), settings).result
    # util.py has the same blob at both commits: served by its id; only the changed k.cu is read, once: the
    # repository-wide macro harvest and its scan share the read (porter.pipeline.Held).
    assert (warm.stats.cache_hits, warm.stats.cache_misses) == (1, 1)
    assert log.read_text().splitlines() == ["src/k.cu"]


def test_rev_on_the_command_line_and_a_missing_commit(tmp_path):
    repo, first, _ = history(tmp_path)
    p = porter("scan", str(repo), "--rev", first, "--format", "json", "--no-cache")
    assert p.returncode == 0, p.stderr
    assert [k["name"] for k in json.loads(p.stdout)["kernels"]] == ["k"]
    bad = porter("scan", str(repo), "--rev", "0" * 40, "-q", "--no-cache")
    assert bad.returncode == 2
    assert f"error: '{'0' * 40}': no such commit in {repo}" in bad.stderr


@pytest.mark.parametrize("name, first_bytes", [
    ("report.html", "<!DOCTYPE html>"), ("REPORT.HTML", "<!DOCTYPE html>"), ("r.md", "# "), ("r.sarif", "{"),
    ("r.json", "{"), ("r.csv", "path,line,column,"), ("r.txt", ""),
])
def test_the_format_follows_the_output_suffix(tmp_path, name, first_bytes):
    out = tmp_path / name
    p = porter("scan", str(REPO / "fixtures" / "repos" / "cuda-app"), "-o", str(out), "--no-cache")
    assert p.returncode == 0, p.stderr
    text = out.read_text()
    assert text.startswith(first_bytes)
    if name.endswith((".txt",)):
        assert "findings" in text and "<" not in text[:50]


def test_md_alias_and_any_case_format_names(tmp_path):
    a = porter("scan", str(REPO / "fixtures" / "repos" / "no-cuda"), "--format", "MD", "--no-cache")
    b = porter("scan", str(REPO / "fixtures" / "repos" / "no-cuda"), "--format", "markdown", "--no-cache")
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout and a.stdout.startswith("# ")
    bad = porter("scan", str(REPO / "fixtures" / "repos" / "no-cuda"), "--format", "pdf")
    assert bad.returncode == 2 and "--format must be one of console, json, markdown, html, sarif, csv" in bad.stderr


def test_a_profile_file_as_target_on_scan_and_assess(tmp_path):
    import yaml

    data = yaml.safe_load((REPO / "rules" / "targets" / "mi300x.yaml").read_text())
    data.update(id="mylab-gfx942", name="Lab MI300X")
    profile = tmp_path / "lab.yaml"
    profile.write_text(yaml.safe_dump(data))
    fixture = str(REPO / "fixtures" / "repos" / "cuda-app")
    s = porter("scan", fixture, "--target", str(profile), "--format", "json", "--no-cache")
    a = porter("assess", fixture, "--target", str(profile), "--format", "json", "--no-cache")
    assert s.returncode == 0 and a.returncode == 0, s.stderr + a.stderr
    assert json.loads(s.stdout)["targets"] == ["mylab-gfx942"]
    assert [t["id"] for t in json.loads(a.stdout)["assessment"]["targets"]] == ["mylab-gfx942"]


def test_one_resolver_for_ids_gfx_names_all_and_errors():
    from porter.targets import TargetError, gfx_of, resolve_targets

    assert [t.id for t in resolve_targets(None)] == ["mi355x"]
    assert [t.id for t in resolve_targets(["gfx942"])] == ["mi300x", "mi325x"]
    assert [t.id for t in resolve_targets(["MI300X,mi355x", "mi300x"])] == ["mi300x", "mi355x"]
    assert [t.id for t in resolve_targets(["all"])] == ["mi300x", "mi325x", "mi350x", "mi355x", "mi455x"]
    assert gfx_of("mi355x") == "gfx950" and gfx_of("gfx90a") == "gfx90a"
    with pytest.raises(TargetError, match=r"unknown target 'mi400' \(valid: all, mi300x"):
        resolve_targets(["mi400"])
    with pytest.raises(TargetError, match="no such profile file"):
        resolve_targets(["nowhere/profile.yaml"])


def test_zero_rules_is_an_error_not_an_empty_scan(tmp_path):
    from porter.rules import RuleError, load_rules

    with pytest.raises(RuleError, match="no rule files found"):
        load_rules(tmp_path)


def test_exit_codes_come_from_the_error_tree():
    from porter.errors import DataFileError, InternalError, PorterError, UsageError

    assert UsageError("x").exit_code == 2 and DataFileError("f", "k", "bad").exit_code == 2
    assert InternalError("x").exit_code == 3
    assert issubclass(DataFileError, UsageError) and issubclass(UsageError, PorterError)
    p = porter("scan", "/nonexistent/path", "-q")
    assert p.returncode == 2 and p.stderr == "error: /nonexistent/path: no such file or directory\n"


def test_a_blob_missing_from_the_repository_is_skipped_not_a_crash(tmp_path):
    from porter.pipeline import run
    from porter.settings import Settings
    from porter.source.read import source_for

    repo = make_repo(tmp_path / "r", {"a.cu": "cudaFree(p);\n", "gone.cu": "cudaMalloc(&p, 4);\n"})
    blob = git(repo, "rev-parse", "HEAD:gone.cu").strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # as in a partial clone or a damaged mirror
    result = run(source_for(repo, "HEAD"), Settings(jobs=1, cache_dir=None)).result
    assert [(s.path, s.reason) for s in result.skipped] == [
        ("gone.cu", "blob missing from the repository (partial clone?): not read")]
    assert [(f.path, f.rule) for f in result.findings] == [("a.cu", "API001")]
