"""`porter translate --in-place` never loses an edit or a byte (issue 18, part 9): a file edited during the run is
kept and reported, SIGTERM/SIGHUP mid-write restore every file, any file name survives the backup manifest, and
`--undo` puts the newest backup back. Real git repositories, real `porter` subprocesses; the exact point of
interruption comes from the documented PORTER_TEST_PAUSE_AFTER hook (porter/translate/write.py).
"""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from helpers import PORTER, REPO, make_repo, porter_here
from porter.translate import TranslateOptions, translate
from porter.translate.write import TEST_PAUSE_ENV, TMP_PREFIX

SOURCES = {name: f"#include <cuda_runtime.h>\nvoid {stem}() {{ float* d; cudaMalloc(&d, 4); cudaFree(d); }}\n"
           for name, stem in (("a.cu", "fa"), ("b.cu", "fb"), ("c.cu", "fc"))}


def translated(repo: Path) -> dict[str, bytes]:
    return {ft.path: ft.output for ft in translate(repo, TranslateOptions(engine="builtin")).files}


def contents(repo: Path) -> dict[str, bytes]:
    return {os.fsdecode(n): (repo / os.fsdecode(n)).read_bytes()
            for n in os.listdir(os.fsencode(repo)) if n != b".git"}


def start_in_place(repo: Path, marker: Path, after: int) -> subprocess.Popen:
    env = {**os.environ, TEST_PAUSE_ENV: f"{after}:{marker}", "COLUMNS": "200"}
    return subprocess.Popen([*PORTER, "translate", str(repo), "--in-place", "--engine", "builtin"], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(marker: Path, proc: subprocess.Popen) -> None:
    deadline = time.time() + 60
    while not marker.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    assert marker.exists(), proc.communicate()


def only_backup(repo: Path) -> Path:
    (backup,) = (repo / ".git" / "porter-backup").iterdir()
    return backup


def test_a_file_edited_after_the_check_is_kept_reported_and_the_rest_written(tmp_path):
    repo = make_repo(tmp_path / "repo", SOURCES)
    hip = translated(repo)
    marker = tmp_path / "paused"
    proc = start_in_place(repo, marker, after=1)
    wait_for(marker, proc)
    (repo / "c.cu").write_text("// my edit, made while porter runs\n")
    marker.unlink()
    out, errs = proc.communicate(timeout=60)
    assert proc.returncode == 1, errs
    assert contents(repo) == {"a.cu": hip["a.cu"], "b.cu": hip["b.cu"],
                              "c.cu": b"// my edit, made while porter runs\n"}
    assert "rewrote 2 files in place; originals backed up in" in out
    assert "  c.cu: changed on disk during the run: not rewritten (your edit is kept)\n" in out
    assert (only_backup(repo) / "c.cu").read_text() == SOURCES["c.cu"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_mid_write_restores_every_file(tmp_path, sig):
    repo = make_repo(tmp_path / "repo", SOURCES)
    marker = tmp_path / "paused"
    proc = start_in_place(repo, marker, after=2)
    wait_for(marker, proc)
    assert (repo / "a.cu").read_bytes() != SOURCES["a.cu"].encode()  # really half-written at this point
    proc.send_signal(sig)
    out, errs = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig
    assert errs == f"terminated by {sig.name}; files already rewritten in place were restored\n"
    assert contents(repo) == {k: v.encode() for k, v in SOURCES.items()}
    assert not [n for n in os.listdir(repo) if n.startswith(TMP_PREFIX)]
    assert contents(only_backup(repo)).keys() >= set(SOURCES)


def test_any_file_name_survives_the_manifest_and_undo_puts_it_back(tmp_path):
    odd = {"k\udcff.cu": SOURCES["a.cu"], "new\nline.cu": SOURCES["b.cu"], "back\\slash.cu": SOURCES["c.cu"]}
    repo = make_repo(tmp_path / "repo", odd)
    p = porter_here("translate", str(repo), "--in-place", "--engine", "builtin")
    assert p.returncode == 0, p.stderr
    backup = only_backup(repo)
    lines = (backup / "MANIFEST.sha256").read_bytes().splitlines()
    assert sorted(line[65:] if line[:1] != b"\\" else line[66:] for line in lines) == \
        [b" back\\\\slash.cu", b" k\xff.cu", b" new\\nline.cu"]
    check = subprocess.run(["sha256sum", "-c", "--quiet", "MANIFEST.sha256"], cwd=backup, capture_output=True)
    assert check.returncode == 0, check.stdout + check.stderr  # the manifest is sha256sum's own format
    assert all(contents(repo)[n] != v.encode() for n, v in odd.items())

    u = porter_here("translate", "--undo", str(repo))
    assert u.returncode == 0, u.stderr
    assert u.stdout.splitlines() == [f"restored 3 file(s) from {backup}", "  restored back\\slash.cu",
                                     "  restored k\\xff.cu", "  restored new\\x0aline.cu"]
    assert contents(repo) == {n: v.encode() for n, v in odd.items()}
    assert [d.name for d in backup.parent.iterdir()] == [backup.name + ".undone"]
    again = porter_here("translate", "--undo", str(repo))
    assert again.returncode == 2
    assert again.stderr == f"error: {repo}: no in-place backup to undo (looked in {backup.parent})\n"


def test_undo_refuses_a_file_edited_since_porter_wrote_it_unless_forced(tmp_path):
    repo = make_repo(tmp_path / "repo", SOURCES)
    hip = translated(repo)
    assert porter_here("translate", str(repo), "--in-place", "--engine", "builtin").returncode == 0
    (repo / "b.cu").write_text("// edited after the port\n")
    backup = only_backup(repo)
    refused = porter_here("translate", "--undo", str(repo))
    assert refused.returncode == 2
    assert refused.stderr == (f"error: changed since porter wrote them: b.cu; nothing was restored from {backup} "
                              "(pass --force to put the originals back over those edits)\n")
    assert contents(repo) == {"a.cu": hip["a.cu"], "b.cu": b"// edited after the port\n", "c.cu": hip["c.cu"]}
    forced = porter_here("translate", "--undo", "--force", str(repo))
    assert forced.returncode == 0, forced.stderr
    assert forced.stdout.splitlines() == [f"restored 3 file(s) from {backup}", "  restored a.cu", "  restored c.cu",
                                          "  restored b.cu (over edits made since porter wrote it: --force)"]
    assert contents(repo) == {k: v.encode() for k, v in SOURCES.items()}


def test_undo_takes_no_other_mode(tmp_path):
    repo = make_repo(tmp_path / "repo", SOURCES)
    p = porter_here("translate", "--undo", "--in-place", str(repo))
    assert p.returncode == 2
    assert p.stderr == "error: --undo cannot be combined with --in-place, --diff, -o or --verify\n"


def test_two_in_place_runs_in_one_process_and_second_keep_two_backups(tmp_path, monkeypatch):
    """The in-process CLI (and any script) can run `--in-place` twice within one second under one pid: the second
    backup gets its own folder, sorting after the first, instead of failing on an existing name."""
    from porter.translate import write
    monkeypatch.setattr(write.time, "time_ns", lambda: 1_700_000_000_123_456_789)
    first = write._fresh_run_dir(tmp_path)
    first.mkdir()
    second = write._fresh_run_dir(tmp_path)
    assert first.name.split("-")[2:] == ["123456", str(os.getpid())]
    assert second.name.split("-")[2:] == ["123457", str(os.getpid())]
    assert sorted([second.name, first.name]) == [first.name, second.name]
