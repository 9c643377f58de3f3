"""Bad input: every problem gets a clear message and the right exit code, and nothing readable is lost."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest
import typer

from porter.cli import base as cli_base
from tests.helpers import porter_here, scan_json, write_files

KERNEL = "__global__ void k(float* x) { x[threadIdx.x] = 0.f; }\n"


def skipped(doc):
    return {s["path"]: s["reason"] for s in doc["skipped"]}


def test_missing_path_is_a_usage_error(tmp_path):
    p = porter_here("scan", str(tmp_path / "nope"))
    assert p.returncode == 2
    assert f"{tmp_path / 'nope'}: no such file or directory" in " ".join(p.stderr.split())
    assert "Traceback" not in p.stderr


def test_empty_directory_scans_to_nothing(tmp_path):
    doc = scan_json(str(tmp_path))
    assert doc["files"] == {"scanned": 0, "lines": 0, "by_language": {}}
    assert doc["findings"] == [] and doc["skipped"] == []


def test_binary_huge_and_non_utf8_files(tmp_path):
    write_files(tmp_path, {
        "ok.cu": KERNEL,
        "blob.cu": b"\x7fELF\x00\x00\x01" + bytes(range(256)) * 4,
        # Latin-1 bytes in a comment and a string: invalid UTF-8, still scanned, bytes untouched on disk.
        "latin1.cu": b"// Gr\xfc\xdfe aus M\xfcnchen\nconst char* s = \"\xe9t\xe9\";\n" + KERNEL.encode(),
    })
    big = tmp_path / "generated.cu"
    with open(big, "wb") as fh:
        line = b"float table_entry_0000 = 0.0f; // generated\n"
        fh.write(line * (50 * 1024 * 1024 // len(line) + 1))
    doc = scan_json(str(tmp_path))
    reasons = skipped(doc)
    # A .cu file is compiled as text whatever bytes it holds (NULs ignored by nvcc/gcc/clang): read with its NULs as
    # spaces, not skipped as binary (a NUL in a comment hid a kernel from the PR gate, tests/test_red_s11_gate_unseen.py).
    assert "blob.cu" not in reasons
    assert reasons["generated.cu"] == "file is 50.0 MiB, over the 8 MiB limit (generated?)"
    kernels = sorted((k["path"], k["line"]) for k in doc["kernels"])
    assert kernels == [("latin1.cu", 3), ("ok.cu", 1)]
    assert doc["files"]["scanned"] == 3
    assert (tmp_path / "latin1.cu").read_bytes().startswith(b"// Gr\xfc\xdfe")


def test_max_file_size_is_configurable(tmp_path):
    write_files(tmp_path, {"porter.toml": "max_file_size_mb = 1\n", "big.cu": "int x;\n" * 250_000, "small.cu": KERNEL})
    doc = scan_json(str(tmp_path))
    assert skipped(doc) == {"big.cu": "file is 1.7 MiB, over the 1 MiB limit (generated?)"}
    assert [k["path"] for k in doc["kernels"]] == ["small.cu"]


def test_symlink_loop_and_escape_are_listed_not_followed(tmp_path):
    root = tmp_path / "root"
    write_files(root, {"ok.cu": KERNEL})
    os.symlink(root / "b.cu", root / "a.cu")
    os.symlink(root / "a.cu", root / "b.cu")
    os.symlink("/etc/passwd", root / "passwd.cu")
    doc = scan_json(str(root))
    assert skipped(doc) == {"a.cu": "symlink loop", "b.cu": "symlink loop",
                            "passwd.cu": "symlink points outside the scanned root"}
    assert doc["files"]["scanned"] == 1


@pytest.mark.skipif(shutil.which("setpriv") is None or os.geteuid() != 0,
                    reason="needs root and setpriv (util-linux) to drop the capability that lets root read mode-000 files")
def test_unreadable_file_is_skipped_with_reason(tmp_path):
    root = tmp_path / "root"
    write_files(root, {"ok.cu": KERNEL, "secret.cu": KERNEL})
    (root / "secret.cu").chmod(0)
    drop = "-dac_override,-dac_read_search"
    doc = scan_json(str(root), prefix=["setpriv", f"--inh-caps={drop}", f"--bounding-set={drop}", "--"])
    assert skipped(doc) == {"secret.cu": "unreadable: Permission denied"}
    assert [k["path"] for k in doc["kernels"]] == ["ok.cu"]


def test_not_a_git_repo_and_shallow_clone_both_scan(tmp_path):
    from tests.helpers import make_repo

    origin = make_repo(tmp_path / "origin", {"a.cu": KERNEL})
    (origin / "b.cu").write_text(KERNEL)
    subprocess.run(["git", "add", "b.cu"], cwd=origin, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "b"], cwd=origin, check=True)
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(shallow)], check=True)
    doc = scan_json(str(shallow))
    assert sorted(k["path"] for k in doc["kernels"]) == ["a.cu", "b.cu"]
    shutil.rmtree(shallow / ".git")
    doc = scan_json(str(shallow))
    assert sorted(k["path"] for k in doc["kernels"]) == ["a.cu", "b.cu"]


def test_unwritable_output_is_a_usage_error(tmp_path):
    (tmp_path / "k.cu").write_text(KERNEL)
    p = porter_here("scan", str(tmp_path), "--no-cache", "--format", "json", "-o", "/proc/porter-cannot-write/x.json")
    assert p.returncode == 2 and "cannot write" in p.stderr


def test_unknown_format_is_a_usage_error(tmp_path):
    p = porter_here("scan", str(tmp_path), "--format", "yaml")
    assert p.returncode == 2 and "--format must be" in p.stderr


def test_internal_error_exits_3_without_traceback(capsys):
    def boom() -> int:
        raise RuntimeError("invariant broken")

    with pytest.raises(typer.Exit) as e:
        cli_base.run_command(boom)
    assert e.value.exit_code == 3
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: invariant broken" in " ".join(err.split())
    assert "Traceback" not in err
