"""The run cache (porter.runcache): a re-scan of an unchanged tree writes the very bytes the first scan wrote without
running the pipeline, and any changed input (one byte of one file, the format, the rule selection) is a miss whose
output is exactly a cache-less scan's."""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from helpers import REPO, porter_here

DUAL = REPO / "fixtures" / "repos" / "dual-app"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the dual-app fixture."""
    root = tmp_path / "tree"
    shutil.copytree(DUAL, root)
    return root


@pytest.fixture
def aged(monkeypatch):
    """Files written by the test count as changed long before they are hashed (their ctime cannot be set back)."""
    import porter.runcache as rc

    real = time.time_ns
    monkeypatch.setattr(rc.time, "time_ns", lambda: real() + 60 * 10**9)


def scan(tree: Path, cache: Path | None, *extra: str, stderr: list[str] | None = None) -> str:
    args = ["scan", str(tree), "--format", "json", "--jobs", "1", *extra]
    args += ["--cache-dir", str(cache)] if cache is not None else ["--no-cache"]
    done = porter_here(*args)
    assert done.returncode == 0, done.stderr
    if stderr is not None:
        stderr.append(done.stderr)
    return done.stdout


def pipeline_runs(monkeypatch) -> list:
    """The runs the CLI's scans made through porter.pipeline.run (none for a scan the run cache answers)."""
    import porter.pipeline

    runs: list = []
    real = porter.pipeline.run

    def counted(*a, **kw):
        runs.append(real(*a, **kw))
        return runs[-1]

    monkeypatch.setattr(porter.pipeline, "run", counted)
    return runs


def test_a_warm_rescan_writes_the_cold_scans_bytes_without_running_the_pipeline(tree, tmp_path, monkeypatch, aged):
    runs = pipeline_runs(monkeypatch)
    said: list[str] = []
    cold = scan(tree, tmp_path / "cache", stderr=said)
    assert len(runs) == 1 and runs[0].result.stats.cache_misses == len(runs[0].result.files) > 3
    warm = scan(tree, tmp_path / "cache", stderr=said)
    assert len(runs) == 1  # answered from the run cache
    assert warm == cold == scan(tree, None)
    assert '"findings"' in warm and "cudaMalloc" in warm
    assert cold[:200].encode() in b"".join(p.read_bytes() for p in (tmp_path / "cache").glob("*.pack"))  # kept as is
    # The repository configuration's notices, said again after the kept report.
    assert said[0] == said[1] == (
        "note: repository porter.toml marks 1 path glob(s) NVIDIA-only (their findings are not open work): src/sm90/**\n"
        "note: repository porter.toml names 1 macro(s) as the ROCm build (code under them reads as handled): DUAL_HIP\n")


def test_one_changed_byte_rescans_exactly_that_file_and_gives_a_cacheless_scans_output(tree, tmp_path, monkeypatch,
                                                                                       aged):
    runs = pipeline_runs(monkeypatch)
    cold = scan(tree, tmp_path / "cache")
    target = tree / "src" / "common.cu"
    data = target.read_bytes()
    assert b"cudaMalloc" in data
    stamp = target.stat().st_mtime_ns
    # The same size and mtime: only the content (and the ctime, which a write always moves) differ.
    target.write_bytes(data.replace(b"cudaMalloc", b"cudaMallox", 1))
    os.utime(target, ns=(stamp, stamp))
    changed = scan(tree, tmp_path / "cache")
    assert len(runs) == 2
    stats = runs[1].result.stats
    assert (stats.cache_misses, stats.cache_hits) == (1, len(runs[1].result.files) - 1)
    assert changed != cold
    assert changed == scan(tree, None)


def test_format_and_rule_selection_name_their_own_entries(tree, tmp_path, monkeypatch, aged):
    runs = pipeline_runs(monkeypatch)
    cache = tmp_path / "cache"
    json_out = scan(tree, cache)
    sarif = scan(tree, cache, "--format", "sarif")
    ignored = scan(tree, cache, "--ignore", "API001")
    assert len(runs) == 3
    assert sarif.startswith("{") and '"$schema"' in sarif and sarif != json_out
    assert '"API001"' in json_out and '"API001"' not in ignored
    assert (scan(tree, cache, "--format", "sarif"), scan(tree, cache, "--ignore", "API001")) == (sarif, ignored)
    assert len(runs) == 3


def test_unchanged_files_are_not_read_again_and_a_changed_one_is(tree, tmp_path, monkeypatch, aged):
    import porter.contain
    from porter.cache import Cache
    from porter.runcache import StatIndex, content_ids
    from porter.source.read import WorkTree

    source = WorkTree(tree)
    files = source.discover().files
    cache = Cache(tmp_path / "cache")
    cache.check()
    index = StatIndex(cache, "stat-test")
    first = content_ids(source, files, 1 << 20, index)
    index.save()
    cache.flush()
    reads: list[str] = []
    real = porter.contain.read_bytes

    def counted(path, *a, **kw):
        reads.append(os.path.relpath(path, tree))
        return real(path, *a, **kw)

    monkeypatch.setattr(porter.contain, "read_bytes", counted)
    again = StatIndex(Cache(tmp_path / "cache"), "stat-test")
    assert content_ids(source, files, 1 << 20, again) == first and reads == []
    (tree / "src" / "common.cu").write_bytes((tree / "src" / "common.cu").read_bytes() + b"\n")
    changed = content_ids(source, files, 1 << 20, again)
    assert reads == [os.path.join("src", "common.cu")]
    assert [i for i, (a, b) in enumerate(zip(first, changed)) if a != b] == \
        [next(i for i, c in enumerate(files) if c.path == "src/common.cu")]


def test_a_file_changed_just_before_it_is_hashed_is_not_recorded(tree, tmp_path):
    from porter.cache import Cache
    from porter.runcache import StatIndex, content_ids
    from porter.source.read import WorkTree

    source = WorkTree(tree)  # every file was written by this test just now: within RACY_NS of being hashed
    cache = Cache(tmp_path / "cache")
    cache.check()
    index = StatIndex(cache, "stat-test")
    content_ids(source, source.discover().files, 1 << 20, index)
    assert index.known == {} and not index.changed


def test_a_changed_tree_replaces_its_slots_report_instead_of_adding_one(tree, tmp_path, monkeypatch, aged):
    runs = pipeline_runs(monkeypatch)
    cache = tmp_path / "cache"
    first = scan(tree, cache)
    target = tree / "src" / "common.cu"
    original = target.read_bytes()
    target.write_bytes(original + b"// one more line\n")
    second = scan(tree, cache)
    target.write_bytes(original)
    # Back to the first state: its report was replaced by the second's, so the pipeline runs (from per-file hits).
    assert scan(tree, cache) == first != second
    assert len(runs) == 3 and runs[2].result.stats.cache_misses == 0


def test_a_raw_entry_is_read_back_only_with_the_secret_it_was_sealed_with(tmp_path):
    from porter.cache import Cache

    mine = Cache(tmp_path / "cache", secret=b"a" * 32)
    mine.put_raw("run-x", b"\x00report\n")
    mine.flush()
    assert bytes(Cache(tmp_path / "cache", secret=b"a" * 32).get_raw("run-x")) == b"\x00report\n"
    assert Cache(tmp_path / "cache", secret=b"b" * 32).get_raw("run-x") is None  # planted or another installation's
    assert Cache(tmp_path / "cache", secret=b"a" * 32).get_raw("run-y") is None


@pytest.mark.parametrize("fmt", ["console", "markdown", "html"])
def test_console_markdown_and_html_are_kept_with_the_width_and_subject_they_were_rendered_for(fmt, tree, tmp_path,
                                                                                            monkeypatch, aged):
    from helpers import git

    git(tree, "init", "-q", "-b", "topic")
    git(tree, "add", "-A")
    git(tree, "commit", "-q", "-m", "fixture")
    runs = pipeline_runs(monkeypatch)
    cache = tmp_path / "cache"
    cold = scan(tree, cache, "--format", fmt)
    warm = scan(tree, cache, "--format", fmt)
    assert len(runs) == 1
    assert warm == cold == scan(tree, None, "--format", fmt)
    if fmt == "console":  # another width is another report
        narrow = porter_here("scan", str(tree), "--format", fmt, "--jobs", "1", "--cache-dir", str(cache),
                             env={"COLUMNS": "90"}).stdout
        assert len(runs) == 3 and narrow != cold and max(map(len, narrow.splitlines())) <= 90
    else:  # another branch is another subject
        assert "topic" in cold
        git(tree, "checkout", "-q", "-b", "other")
        moved = scan(tree, cache, "--format", fmt)
        assert len(runs) == 3 and "other" in moved and moved == scan(tree, None, "--format", fmt)


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_assess_keeps_its_own_report_apart_from_scans(fmt, tree, tmp_path, monkeypatch, aged):
    runs = pipeline_runs(monkeypatch)
    cache = tmp_path / "cache"

    def assess(*where: str) -> str:
        done = porter_here("assess", str(tree), "--format", fmt, "--jobs", "1", *where)
        assert done.returncode == 0, done.stderr
        return done.stdout

    scanned = scan(tree, cache, "--format", fmt)
    cold = assess("--cache-dir", str(cache))
    warm = assess("--cache-dir", str(cache))
    assert len(runs) == 2 and runs[1].assessment is not None
    assert warm == cold == assess("--no-cache")
    # A scan's markdown is the assessment report too; its JSON is not (no assessment in it).
    assert (cold == scanned) is (fmt == "markdown")
    assert scan(tree, cache, "--format", fmt) == scanned and len(runs) == 3


def test_console_text_for_a_terminal_is_not_kept(tree, tmp_path, monkeypatch, aged):
    import porter.cli.output
    from porter.runcache import Request

    assert not Request("console", (), "all", "", terminal=True).reusable
    assert Request("console", (), "all", "").reusable and not Request("pr-comment", (), "all", "").reusable
    runs = pipeline_runs(monkeypatch)
    monkeypatch.setattr(porter.cli.output, "colour_on_stdout", lambda output: True)  # stdout as a terminal
    shown = [scan(tree, tmp_path / "cache", "--format", "console") for _ in range(2)]
    assert len(runs) == 2 and "\x1b[" in shown[0]  # coloured for the terminal, and rendered for it both times


def test_a_file_past_the_size_limit_is_recorded_by_what_the_scan_reads_of_it(tree, tmp_path, aged):
    from porter.cache import Cache
    from porter.runcache import StatIndex, content_ids
    from porter.source.read import WorkTree

    (tree / "big.so").write_bytes(b"\x7fELF" + b"\0" * 5000)
    source = WorkTree(tree)
    files = [c for c in source.discover().files if c.path == "big.so"]
    cache = Cache(tmp_path / "cache")
    cache.check()
    index = StatIndex(cache, "stat-test")
    first = content_ids(source, files, 1024, index)
    assert list(index.known) == ["big.so"] and first == [index.known["big.so"][1].encode()]
    assert first[0].endswith(b" 5004")  # the digest of the first 1,024 bytes, and the whole size


def test_a_cache_directory_inside_the_scanned_tree_keeps_no_report(tree, monkeypatch, aged):
    runs = pipeline_runs(monkeypatch)
    inside = tree / ".porter-cache"
    said: list[str] = []
    first = scan(tree, inside, stderr=said)
    assert scan(tree, inside, stderr=said) == first and len(runs) == 2  # a change could have planted the entry
    assert "is inside the scanned tree" in said[1] and not list(inside.glob("*.pack"))


def test_a_report_too_large_to_be_read_back_is_not_kept(tree, tmp_path, monkeypatch, aged):
    import porter.cache

    runs = pipeline_runs(monkeypatch)
    monkeypatch.setattr(porter.cache, "MAX_ENTRY_BYTES", 4096)  # the fixture's JSON report is larger
    first = scan(tree, tmp_path / "cache")
    assert len(first) > 4096 and scan(tree, tmp_path / "cache") == first and len(runs) == 2
    packs = b"".join(p.read_bytes() for p in (tmp_path / "cache").glob("*.pack"))
    assert packs and first[:200].encode() not in packs  # never written


def test_each_commit_scanned_with_rev_replaces_the_last_ones_report(tmp_path, monkeypatch, aged):
    from helpers import git, make_repo

    repo = make_repo(tmp_path / "repo", {"k.cu": "__global__ void k() { __syncthreads(); }\n"})
    first = git(repo, "rev-parse", "HEAD").strip()
    (repo / "k.cu").write_text("__global__ void k() { __syncthreads(); }\nvoid h() { cudaMalloc(0, 0); }\n")
    git(repo, "commit", "-qam", "more")
    runs = pipeline_runs(monkeypatch)
    cache = tmp_path / "cache"
    a = scan(repo, cache, "--rev", first)
    b = scan(repo, cache, "--rev", "HEAD")
    assert scan(repo, cache, "--rev", "HEAD") == b and len(runs) == 2
    assert scan(repo, cache, "--rev", first) == a == scan(repo, None, "--rev", first) and len(runs) == 4
    assert "cudaMalloc" in b and "cudaMalloc" not in a
