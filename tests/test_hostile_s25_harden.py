"""Session 25, helper harden: the attacker's reproductions (/tmp/attack in that session), each as a hostile
repository built here, asserting exact behaviour. Each test fails on the branch point (d8dd47ba)."""
from __future__ import annotations

import json
import os
from pathlib import Path

from helpers import git, make_repo, porter_here, scan_json

from porter.source.discover import on_disk, shown_path

KERNEL = ("#include <cuda_runtime.h>\n__global__ void hidden(){ unsigned m = __ballot_sync(0xffffffff,1); }\n"
          "int main(){ cudaMalloc(0,0); }\n")
RAW_FF = os.fsdecode(b"a\xff.cu")  # a name that is not UTF-8
LITERAL_FF = "a\\xff.cu"           # backslash, x, f, f: what RAW_FF used to be shown as


# ------------------------------------------------------------------ 1. two names shown alike (name collision)

def test_shown_path_is_one_to_one_and_on_disk_inverts_it():
    assert shown_path(RAW_FF) == "a\\xff.cu"
    assert shown_path(LITERAL_FF) == "a\\\\xff.cu"
    assert shown_path("src/k.cu") == "src/k.cu"
    assert shown_path("d\u00e9j\u00e0.cu") == "d\u00e9j\u00e0.cu"
    for raw in (RAW_FF, LITERAL_FF, "src/k.cu", os.fsdecode(b"\\\xfe\\x41\\"), "a\\\\b"):
        assert on_disk(shown_path(raw)) == raw


def test_a_raw_byte_name_and_its_escape_spelled_out_are_two_files(tmp_path):
    root = make_repo(tmp_path / "r", {RAW_FF: KERNEL, LITERAL_FF: "int benign(){ return 0; }\n"})
    d = scan_json(str(root))
    assert d["files"]["lines"] == 4  # 3 + 1: each file read once (before: the benign one twice, 2 lines)
    assert sorted({(f["rule"], f["path"], f["line"]) for f in d["findings"]}) == [
        ("API001", "a\\xff.cu", 3), ("API005", "a\\xff.cu", 1), ("DEV002", "a\\xff.cu", 2),
        ("DEV003", "a\\xff.cu", 2), ("KRN001", "a\\xff.cu", 2)]
    assert porter_here("scan", str(root), "--no-cache", "--fail-on", "high", "-q").returncode == 1


def test_port_patches_the_file_of_the_name_on_disk(tmp_path):
    root = make_repo(tmp_path / "r", {RAW_FF: KERNEL, LITERAL_FF: "int benign(){ return 0; }\n"})
    p = porter_here("port", str(root))
    assert p.returncode == 0, p.stderr
    assert 'diff --git "a/a\\377.cu" "b/a\\377.cu"' in p.stdout  # git's quoting of the byte 0xff: that file
    assert "a/a\\\\xff.cu" not in p.stdout
    (tmp_path / "p.diff").write_text(p.stdout)
    git(root, "apply", "--check", str(tmp_path / "p.diff"))


def test_translate_writes_a_name_that_is_not_utf8(tmp_path):
    root = make_repo(tmp_path / "r", {RAW_FF: KERNEL, "ok.cu": "#include <cuda_runtime.h>\nint f(){ cudaFree(0); }\n"})
    out = tmp_path / "out"
    p = porter_here("translate", str(root), "-o", str(out))
    assert p.returncode == 0, p.stderr  # before: internal error: UnicodeEncodeError (exit 3)
    assert "hipMalloc(0,0)" in (out / RAW_FF).read_text(errors="replace")
    d = porter_here("translate", str(root), "--diff")
    assert d.returncode == 0, d.stderr
