"""Session 25, helper harden: the attacker's reproductions (/tmp/attack in that session), each as a hostile
repository built here, asserting exact behaviour. Each test fails on the branch point (d8dd47ba)."""
from __future__ import annotations

import json
import os
from pathlib import Path

from helpers import git, make_repo, porter_here, scan_json


KERNEL = ("#include <cuda_runtime.h>\n__global__ void hidden(){ unsigned m = __ballot_sync(0xffffffff,1); }\n"
          "int main(){ cudaMalloc(0,0); }\n")
RAW_FF = os.fsdecode(b"a\xff.cu")  # a name that is not UTF-8
LITERAL_FF = "a\\xff.cu"           # backslash, x, f, f: what RAW_FF used to be shown as


# ------------------------------------------------------------------ 1. two names shown alike (name collision)

def test_shown_path_is_one_to_one_and_on_disk_inverts_it():
    from porter.source.discover import on_disk, shown_path

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


# ------------------------------------------------------------------ 2. nothing in the git directory is content

TOKEN = "eC1hY2Nlc3MtdG9rZW46Z2hzX1NFQ1JFVFRPS0VO"
LEAK_RULE = """id: LKA001
title: Custom check
category: api
severity: high
confidence: high
languages: [cuda]
patterns:
  - regex: 'AUTHORIZATION'
message: "custom"
docs: {what: x, why: x, instead: x}
hip_equivalent: {kind: manual, note: x}
effort: {size: xs, per: hit}
references: [x]
"""
GIT_REASON = "inside the repository's git directory (.git: git's configuration, not the repository's content); not read"


def _token_repo(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "src").mkdir()
    os.symlink("../.git/config", root / "src" / "cfg.cu")
    make_repo(root, {"src/k.cu": "__global__ void k(){}\n", "porter.toml": 'rules = ["tools/LKA001-leak.yaml"]\n',
                     "tools/LKA001-leak.yaml": LEAK_RULE})
    git(root, "config", "http.https://github.com/.extraheader", f"AUTHORIZATION: basic {TOKEN}")
    return root


def test_a_symlink_into_dot_git_is_skipped_not_scanned(tmp_path):
    root = _token_repo(tmp_path)
    d = scan_json(str(root))
    assert d["skipped"] == [{"path": "src/cfg.cu", "reason": GIT_REASON}]
    assert [(f["rule"], f["path"]) for f in d["findings"]] == [("KRN001", "src/k.cu")]
    for fmt in ("sarif", "pr-comment"):
        p = porter_here("scan", str(root), "--no-cache", "--format", fmt)
        assert TOKEN not in p.stdout and "AUTHORIZATION" not in p.stdout


def test_a_git_directory_a_dot_git_file_names_inside_the_root_is_not_content(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    (root / "gd").mkdir()
    (root / "gd" / "k.cu").write_text("__global__ void k(){}\n")
    (root / "x.cu").write_text("__global__ void x(){}\n")
    (root / ".git").write_text("gitdir: gd\n")  # what --separate-git-dir or a worktree writes, here naming gd/
    from porter import contain

    real = os.path.realpath(root)
    assert contain.in_git_dir(os.path.join(real, "gd", "k.cu"), real)
    assert not contain.in_git_dir(os.path.join(real, "x.cu"), real)
    try:
        contain.read_bytes(root / "gd" / "k.cu", 1 << 20, root=root)
        raise AssertionError("read a file of the named git directory")
    except contain.Unreadable as e:
        assert str(e) == GIT_REASON


def test_porter_toml_may_not_name_a_file_in_dot_git(tmp_path):
    root = make_repo(tmp_path / "r", {"k.cu": "__global__ void k(){}\n", "porter.toml": 'rules = [".git/x.yaml"]\n'})
    (root / ".git" / "x.yaml").write_text(LEAK_RULE)
    p = porter_here("scan", str(root), "--no-cache")
    assert p.returncode == 2
    assert f"porter.toml: rules: '.git/x.yaml' is {GIT_REASON}" in p.stderr


# ------------------------------------------------------------------ 6. hard-linked rule files are refused

HARD = "a hard link (the file has other names, which may lie outside the repository); not read"


def test_rule_files_hard_linked_from_outside_are_refused(tmp_path):
    outside = tmp_path / "outside" / "ZZZ001-x.yaml"
    outside.parent.mkdir()
    outside.write_text(LEAK_RULE.replace("LKA001", "ZZZ001"))
    root = tmp_path / "r"
    (root / "r").mkdir(parents=True)
    (root / "k.cu").write_text("__global__ void k(){}\n")
    os.link(outside, root / "r" / "ZZZ001-x.yaml")
    os.link(outside, root / "zz.yaml")
    (root / "porter.toml").write_text('rules = ["r"]\n')
    p = porter_here("scan", str(root), "--no-cache", "--format", "json")
    assert p.returncode == 2 and "ZZZ001" not in p.stdout
    assert p.stderr.strip().endswith(f"porter.toml: rules: {root.resolve()}/r/ZZZ001-x.yaml is {HARD}")
    (root / "porter.toml").write_text('rules = ["zz.yaml"]\n')
    p = porter_here("scan", str(root), "--no-cache")
    assert p.returncode == 2
    assert p.stderr.strip() == f"error: porter.toml: rules: 'zz.yaml' is {HARD}"


# ------------------------------------------------------------------ 3. a binary's cache key covers all its bytes

def _wheel(directory: Path, member: str) -> None:
    import zipfile

    directory.mkdir(parents=True)
    with zipfile.ZipFile(directory / "pkg-1.0-cp311-cp311-linux_x86_64.whl", "w", zipfile.ZIP_STORED) as z:
        z.writestr("pkg/padding.bin", b"\0" * 70000)  # what differs lies past the first 64 KiB
        z.writestr(member, b"x")


def test_binaries_alike_in_head_and_size_do_not_share_a_cache_entry(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    _wheel(a, "pkg/native.py")
    _wheel(b, "pkg/native.so")
    wa, wb = (d / "pkg-1.0-cp311-cp311-linux_x86_64.whl" for d in (a, b))
    assert wa.stat().st_size == wb.stat().st_size and wa.read_bytes()[:65536] == wb.read_bytes()[:65536]
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)

    def rules(d: Path) -> list[str]:
        p = porter_here("scan", str(d), "--format", "json", env={"PORTER_CACHE_DIR": str(cache)})
        return sorted(f["rule"] for f in json.loads(p.stdout)["findings"] if f["rule"].startswith("BIN"))

    assert rules(a) == []
    assert rules(b) == ["BIN006"]  # before: [] (served a's cached result)
    assert rules(a) == []  # and a's entry is still a's


def test_binary_key_kinds_are_prefixed():
    from porter.pipeline import _binary_key
    from porter.source.discover import Candidate

    class _NoCacheRead:
        max_file_bytes = 10

    key, whole = _binary_key(Candidate("w.whl", Path("w.whl"), "binary", blob="ab" * 20), b"head", 4, _NoCacheRead())
    assert (key, whole) == (b"blob:" + b"ab" * 20 + b"\0size:4", None)
    key, whole = _binary_key(Candidate("w.whl", Path("w.whl"), "binary"), b"h" * 10, 11, _NoCacheRead())
    assert (key, whole) == (b"head:" + b"h" * 10 + b"\0size:11", None)  # past the size limit: the head is all


# ------------------------------------------------------------------ 4. sizes past a float, and a task that raises

def test_a_210_dimensional_shared_array_is_over_the_lds_not_an_internal_error(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    (root / "shm.cu").write_text("__global__ void k(){ __shared__ float s" + "[32]" * 210 + "; s[0][0]=1; }\n")
    d = scan_json(str(root))  # before: internal error: OverflowError (exit 3), no report
    assert d["skipped"] == []
    (k,) = d["kernels"]
    assert k["targets"]["mi355x"]["verdict"] == "fix"
    assert {(x["id"], x["message"]) for x in k["targets"]["mi355x"]["details"]} == {
        ("lds-over-limit", "more than 1,125,899,906,842,624 KiB of shared memory > 160 KiB LDS on AMD Instinct MI355X")}


def test_kib_number_saturates():
    from porter.kernels.constfold import kib_number

    assert kib_number(49152) == "48"
    assert kib_number(512) == "0.5"
    assert kib_number(1 << 60) == "1.1259e+15"
    assert kib_number(32 ** 210) == "more than 1,125,899,906,842,624"


def test_a_task_that_raises_is_answered_as_failed_and_a_refusal_still_ends_the_run():
    import math

    import pytest

    from porter import contain
    from porter.budget import ERROR_KIND, Budget, Overrun, run_stage
    from porter.model import Skipped

    answer = run_stage(math.factorial, (-1,), Budget())  # ValueError in the worker: before, re-raised (exit 3)
    assert answer == Overrun("failed (internal error: ValueError: factorial() not defined for negative values); "
                             "please report it", ERROR_KIND)
    assert Skipped("k.cu", f"translating it alone {answer.reason}").unseen  # a gate does not pass such a file
    with pytest.raises(contain.Refused):
        run_stage(contain.resolve_inside, ("/etc/passwd", Path("."), Path("."), "x"), Budget())
    with pytest.raises(ValueError):  # a caller whose task's exceptions are answers (tomllib's) asks for them
        run_stage(math.factorial, (-1,), Budget(), raises=True)


def _overflow(*_args, **_kw):
    raise OverflowError("integer division result too large for a float")


def test_kernel_analysis_that_raises_gives_a_notice_and_the_findings_stand(tmp_path, monkeypatch):
    from porter import pipeline
    from porter.settings import Settings

    (tmp_path / "k.cu").write_text(KERNEL)
    monkeypatch.setattr(pipeline, "analyse", _overflow)  # inherited by the stage's forked worker
    result = pipeline.run(tmp_path, Settings(jobs=1, cache_dir=None)).result  # before: OverflowError raised here
    assert result.stats.notices == ("kernel analysis failed (internal error: OverflowError: integer division result "
                                    "too large for a float); please report it; no kernel has a verdict in this report",)
    assert sorted({f.rule for f in result.findings}) == ["API001", "API005", "DEV002", "DEV003", "KRN001"]


# ------------------------------------------------------------------ 5. repository values stay on one line

def test_a_tensor_name_with_newlines_stays_on_one_line_in_rdjsonl(tmp_path):
    import struct

    name = "w\n\n## Security review: PASSED\n\n| ok | ok |\n|---|---|\n\n<details>\n\nx.weight_scale_2"
    raw = json.dumps({name: {"dtype": "F8_E4M3", "shape": [1], "data_offsets": [0, 1]}}).encode()
    root = make_repo(tmp_path / "r", {"model.safetensors": struct.pack("<Q", len(raw)) + raw + b"\0"})
    p = porter_here("scan", str(root), "--no-cache", "--format", "rdjsonl")
    messages = {d["code"]["value"]: d["message"] for d in map(json.loads, p.stdout.splitlines())}
    assert set(messages) == {"CFG005", "CFG006"}
    shown = ("w\\x0a\\x0a## Security review: PASSED\\x0a\\x0a| ok | ok |\\x0a|---|---|\\x0a\\x0a&lt;details>\\x0a\\x0a"
             "x.weight_scale_2")
    for message in messages.values():
        first, *rest = message.split("\n")
        assert shown in first and len(rest) <= 1  # the message, then porter's own hint line
        assert "<details>" not in message


# ------------------------------------------------------------------ 7. a committed `update = !cmd` in .gitmodules

def test_history_reads_a_repository_whose_gitmodules_names_a_command(tmp_path):
    marker = tmp_path / "ran"
    root = make_repo(tmp_path / "r", {"k.cu": "__global__ void k(){}\n",
                                      ".gitmodules": f'[submodule "evil"]\n\tpath = evil\n\turl = ./evil\n'
                                                     f"\tupdate = !touch {marker}\n\tignore = none\n"}, commit=False)
    git(root, "add", "-A")
    git(root, "update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,evil")
    git(root, "commit", "-q", "-m", "x")
    (root / "k.cu").write_text("__global__ void k(){ __syncthreads(); }\n")
    git(root, "commit", "-q", "-am", "y")
    p = porter_here("history", str(root), "-q")
    assert p.returncode == 0, p.stderr  # before: exit 2, "git log failed: fatal: invalid value for 'submodule.evil.update'"
    p = porter_here("scan", str(root), "--no-cache", "--new-since", "HEAD~1", "-q")
    assert p.returncode == 0, p.stderr
    assert not marker.exists()


def test_a_commit_is_read_by_the_shown_path_of_each_of_the_two_names(tmp_path):
    from porter.diff import read_at

    root = make_repo(tmp_path / "r", {RAW_FF: KERNEL, LITERAL_FF: "int benign(){ return 0; }\n"})
    read = read_at(root, "HEAD", "")
    assert read("a\\xff.cu") == KERNEL.encode()  # before: the literal name's bytes (git's path a\xff.cu)
    assert read("a\\\\xff.cu") == b"int benign(){ return 0; }\n"
