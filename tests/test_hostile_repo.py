"""A scanned repository may be hostile: its cache entries, git config, porter.toml and symlinks must not make porter
execute anything, read outside the repository, or silence a CI gate unseen (issue 18, cases 1-4 and 8)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from helpers import git, make_repo, porter_here, write_files

KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = __shfl_xor_sync(0xffffffff, 1.0f, 1); }\n"


def porter(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """The CLI in this process, with this process's environment plus `env` (nothing here needs a process)."""
    return porter_here(*args, cwd=cwd, timeout=300, replace_env=True, env={**os.environ, **(env or {})})


def findings(p: subprocess.CompletedProcess) -> list[tuple[str, str, int]]:
    assert p.returncode in (0, 1), p.stderr
    return sorted((f["rule"], f["path"], f["line"]) for f in json.loads(p.stdout)["findings"])


# -- 1. the cache --------------------------------------------------------------------------------------------------

def test_a_planted_pickle_payload_in_the_cache_runs_nothing(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    first = porter("scan", str(repo), "--format", "json", "--cache-dir", str(cache), "-j", "1")
    marker = tmp_path / "pwned"
    import pickle

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    entries = [p for p in cache.rglob("*") if p.is_file()]
    assert entries, "the scan wrote cache entries"
    for entry in entries:  # every entry replaced, and pickle files planted beside them
        entry.write_bytes(pickle.dumps(Payload()))
        entry.with_suffix(".pickle").write_bytes(pickle.dumps(Payload()))
    again = porter("scan", str(repo), "--format", "json", "--cache-dir", str(cache), "-j", "1")
    assert not marker.exists()
    assert again.returncode == first.returncode
    assert findings(again) == findings(first)  # corrupt entries are misses, recomputed


def test_a_cache_directory_writable_by_others_is_not_used(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    cache = tmp_path / "shared-cache"
    cache.mkdir()
    cache.chmod(0o777)
    p = porter("scan", str(repo), "-q", "--cache-dir", str(cache), "-j", "1")
    assert p.returncode == 0
    assert f"cache directory {cache} is writable by group or others; not used" in p.stderr
    assert list(cache.iterdir()) == []


def test_cache_entries_are_owner_only(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    cache = tmp_path / "cache"
    porter("scan", str(repo), "-q", "--cache-dir", str(cache), "-j", "1")
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    packs = sorted(cache.iterdir())
    assert [p.suffix for p in packs] == [".pack", ".pack"]  # the pipeline's entries in one file, the run cache's report in another
    assert {oct(p.stat().st_mode & 0o777) for p in packs} == {"0o600"}


def test_a_cache_pack_is_written_even_where_its_temporary_name_is_taken(tmp_path, monkeypatch):
    """A flush writes its pack under a temporary name made of time, process and count; one left behind under that
    name (a crashed run with a recycled pid, or planted) is never overwritten or followed, and the pack is still
    written, owner-only."""
    from porter import packfile
    from porter.cache import Cache

    monkeypatch.setattr(packfile, "new_stem", lambda count: f"stem-{count}")
    cache = Cache(tmp_path / "cache")
    cache.check()
    taken = tmp_path / "cache" / ".tmp-stem-1"
    taken.symlink_to(tmp_path / "elsewhere")
    cache.put("ab" + "0" * 38, ("first",))
    cache.put("ab" + "1" * 38, ("second", 2))
    cache.flush()
    again = Cache(tmp_path / "cache")
    assert again.get("ab" + "0" * 38) == ("first",) and again.get("ab" + "1" * 38) == ("second", 2)
    assert not (tmp_path / "elsewhere").exists() and taken.is_symlink()
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [taken.name, "stem-1.pack"]
    assert oct((tmp_path / "cache" / "stem-1.pack").stat().st_mode & 0o777) == "0o600"


# -- 2. git runs nothing from the repository's config -------------------------------------------------------------

def test_a_hostile_git_config_runs_nothing(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL, ".gitattributes": "*.cu filter=evil diff=evil\n"})
    marker = tmp_path / "ran"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {marker}\ncat\n")
    script.chmod(0o755)
    for key in ("core.fsmonitor", "filter.evil.clean", "filter.evil.smudge", "diff.evil.textconv", "core.pager",
                "diff.external", "core.sshCommand"):
        git(repo, "config", key, str(script))
    git(repo, "config", "core.hooksPath", str(tmp_path))
    (repo / "k.cu").write_text(KERNEL + "// edited, so git must look at the work tree\n")
    (repo / "new.cu").write_text(KERNEL)
    p = porter("scan", str(repo), "--format", "json", "--no-cache", "-j", "1")
    head = git(repo, "rev-parse", "HEAD").strip()
    q = porter("scan", str(repo), "--format", "json", "--no-cache", "-j", "1", "--rev", head)
    assert not marker.exists(), marker.read_text()
    assert {path for _, path, _ in findings(p)} == {"k.cu", "new.cu"}
    assert {path for _, path, _ in findings(q)} == {"k.cu"}


# -- 3. configuration cannot reach outside the repository ----------------------------------------------------------

@pytest.mark.parametrize("setting, value, message", [
    ("rules", '["/etc"]', "is an absolute path"),
    ("rules", '["../outside"]', "leads outside the repository"),
    ("effort", '"/proc/self/environ"', "is an absolute path"),
    ("effort", '"../outside/secret.yaml"', "leads outside the repository"),
    ("effort", '"."', "is a directory"),
])
def test_config_paths_stay_inside_the_repository(tmp_path, setting, value, message):
    outside = tmp_path / "outside"
    write_files(outside, {"secret.yaml": "api_token: SECRET_abc123\n"})
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL, "porter.toml": f"{setting} = {value}\n"})
    p = porter("scan", str(repo), "-q", "--no-cache")
    assert p.returncode == 2
    assert f"porter.toml: {setting}: " in p.stderr and message in p.stderr
    assert "SECRET" not in p.stderr + p.stdout and "api_token" not in p.stderr


def test_a_symlinked_config_leading_outside_is_not_read(tmp_path):
    (tmp_path / "elsewhere.toml").write_text('api_token = "SECRET_abc123"\n')
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    (repo / "porter.toml").symlink_to(tmp_path / "elsewhere.toml")
    p = porter("scan", str(repo), "-q", "--no-cache")
    assert p.returncode == 2
    assert "leads outside the repository; not read" in p.stderr
    assert "SECRET" not in p.stderr and "api_token" not in p.stderr


def test_a_fifo_named_by_config_does_not_hang(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL, "porter.toml": 'effort = "pipe.yaml"\n'})
    os.mkfifo(repo / "pipe.yaml")
    p = porter("assess", str(repo), "-q", "--no-cache")
    assert p.returncode == 2
    assert "porter.toml: effort: 'pipe.yaml' is not a regular file" in p.stderr


def test_config_in_an_ancestor_outside_git_does_not_apply(tmp_path):
    write_files(tmp_path, {"porter.toml": 'disable = ["DEV002", "KRN001", "API001"]\n',
                           "proj/k.cu": KERNEL})
    p = porter("scan", str(tmp_path / "proj"), "--format", "json", "--no-cache")
    assert {r for r, _, _ in findings(p)} >= {"DEV002", "KRN001"}


def test_deeply_nested_config_is_a_usage_error(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL, "porter.toml": "x = " + "[" * 5000 + "]" * 5000 + "\n"})
    p = porter("scan", str(repo), "-q", "--no-cache")
    assert p.returncode == 2
    assert "nested too deeply" in p.stderr or "not valid TOML" in p.stderr


# -- 4. a directory symlink inside a git tree ----------------------------------------------------------------------

def test_a_tracked_file_behind_a_directory_symlink_leading_outside_is_not_read(tmp_path):
    outside = tmp_path / "outside"
    write_files(outside, {"leak.cu": "__global__ void SECRET_LEAK(int* p) {}\n"})
    repo = make_repo(tmp_path / "r", {"inc/leak.cu": KERNEL, "k.cu": KERNEL})
    import shutil

    shutil.rmtree(repo / "inc")
    (repo / "inc").symlink_to(outside)  # git still tracks inc/leak.cu
    p = porter("scan", str(repo), "--format", "json", "--no-cache", "-j", "1")
    doc = json.loads(p.stdout)
    assert "SECRET_LEAK" not in p.stdout
    assert {"path": "inc/leak.cu",
            "reason": "a directory on its path is a symlink leading outside the scanned root"} in doc["skipped"]


# -- 8. the repository cannot silence the CI gate unseen -----------------------------------------------------------

def test_isolated_ignores_a_config_that_silences_fail_on(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL,
                                      "porter.toml": 'disable = ["DEV002", "DEV011", "API003"]\nexclude = ["**"]\n'})
    quiet = porter("scan", str(repo), "-q", "--no-cache", "--fail-on", "medium")
    gated = porter("scan", str(repo), "-q", "--no-cache", "--fail-on", "medium", "--isolated")
    assert quiet.returncode == 0
    assert "note: repository porter.toml disables 3 rule(s): API003, DEV002, DEV011" in quiet.stderr
    assert "note: repository configuration include/exclude leaves 0 of 2 files to scan" in quiet.stderr
    assert gated.returncode == 1
    assert "note:" not in gated.stderr


def test_repository_config_cannot_raise_limits(tmp_path):
    from porter.settings import DEFAULT_MAX_FILE_BYTES, CommandLine, resolve_settings

    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL, "porter.toml": "jobs = 1024\nmax_file_size_mb = 4096\n"})
    s = resolve_settings(repo)
    assert s.jobs == (os.cpu_count() or 1)
    assert s.max_file_bytes == DEFAULT_MAX_FILE_BYTES
    given = resolve_settings(repo, CommandLine(jobs=3, max_file_size_mb=20))
    assert (given.jobs, given.max_file_bytes) == (3, 20 * 1048576)


def test_translate_in_place_with_a_hostile_git_config_runs_nothing(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": "#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n",
                                      ".gitattributes": "*.cu filter=evil\n"})
    marker = tmp_path / "ran"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {marker}\ncat\n")
    script.chmod(0o755)
    for key in ("core.fsmonitor", "filter.evil.clean", "filter.evil.smudge", "filter.evil.process"):
        git(repo, "config", key, str(script))
    os.utime(repo / "k.cu")  # racy: git status would re-hash it through the clean filter
    p = porter("translate", str(repo), "--in-place", "--engine", "builtin")
    assert not marker.exists(), marker.read_text()
    assert p.returncode == 0, p.stderr
    assert "hipDeviceSynchronize()" in (repo / "k.cu").read_text()


def test_translate_does_not_copy_a_file_behind_a_directory_symlink_leading_outside(tmp_path):
    import shutil

    outside = tmp_path / "outside"
    write_files(outside, {"leak.cu": "// SECRET_LEAK\n"})
    repo = make_repo(tmp_path / "r", {"inc/leak.cu": KERNEL, "k.cu": KERNEL})
    shutil.rmtree(repo / "inc")
    (repo / "inc").symlink_to(outside)
    out = tmp_path / "out"
    p = porter("translate", str(repo), "-o", str(out), "--engine", "builtin")
    copied = [q for q in out.rglob("*") if q.is_file() and "SECRET_LEAK" in q.read_text(errors="replace")]
    assert copied == [], p.stdout + p.stderr
    assert (outside / "leak.cu").read_text() == "// SECRET_LEAK\n"


def test_read_file_opens_plain_names_directly_and_symlinks_by_what_they_lead_to(tmp_path):
    """porter.source.read.read_file resolves a path only when its last part is a symlink; either way it reads
    regular files only, so a symlink to a FIFO or directory is refused, never followed into a hang."""
    from porter.source.read import SourceReadError, read_file

    (tmp_path / "src").mkdir()
    real = tmp_path / "src" / "a.cu"
    real.write_bytes(b"__global__ void k() {}\n")
    (tmp_path / "link.cu").symlink_to(real)
    (tmp_path / "dirlink").symlink_to(tmp_path / "src")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "pipe.cu").symlink_to(tmp_path / "pipe")
    (tmp_path / "dir.cu").symlink_to(tmp_path / "src")
    assert read_file(real, 100) == b"__global__ void k() {}\n"
    assert read_file(tmp_path / "link.cu", 100) == b"__global__ void k() {}\n"
    assert read_file(tmp_path / "dirlink" / "a.cu", 100) == b"__global__ void k() {}\n"
    assert read_file(tmp_path / "link.cu", 4, truncate=True) == b"__gl"
    for name, why in (("pipe.cu", "not a regular file"), ("pipe", "not a regular file"),
                      ("dir.cu", "not a regular file"), ("missing.cu", "unreadable: No such file or directory")):
        with pytest.raises(SourceReadError) as e:
            read_file(tmp_path / name, 100)
        assert str(e.value) == why
