"""porter translate: the built-in engine on fixtures (exact outputs), byte safety, the output tree, in-place mode
in real git repositories (including failed and killed runs), the hipify wrappers, and the CLI.

Golden outputs live in fixtures/translate/expected/; regenerate them only on purpose with
PORTER_REGEN_GOLDEN=1 pytest tests/test_translate.py, then review the diff.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import FIXTURES, REPO
from porter.cli import app
from porter.translate import TranslateError, TranslateOptions, translate
from porter.translate import write as write_mod
from porter.translate.engines import hipify as hipify_mod
from porter.translate.write import write_in_place, write_tree

TR = FIXTURES / "translate"
BUILTIN = TranslateOptions(engine="builtin")
runner = CliRunner()


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


def git_repo(tmp_path: Path, src: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(src, repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "cuda")
    return repo


# --- built-in engine: exact outputs ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["basic", "unsupported", "buildsys"])
def test_builtin_output_tree_equals_golden(tmp_path, name):
    result = translate(TR / name, BUILTIN)
    assert result.engine.name == "builtin"
    out = tmp_path / "out"
    write_tree(result, out)
    expected_dir = TR / "expected" / name
    if os.environ.get("PORTER_REGEN_GOLDEN") == "1":
        shutil.rmtree(expected_dir, ignore_errors=True)
        shutil.copytree(out, expected_dir)
    assert tree_bytes(out) == tree_bytes(expected_dir)


def test_builtin_statistics_and_findings_on_basic():
    result = translate(TR / "basic", BUILTIN)
    tot = result.totals()
    assert tot["files"] == 3 and tot["files_by_status"] == {"translated": 3}
    assert tot["converted_by_kind"] == {"constant": 2, "function": 21, "header": 4, "launch_bounds": 2, "macro": 3,
                                        "type": 3}
    assert tot["copied_unchanged"] == 1  # README.txt
    saxpy = result.file("src/saxpy.cu")
    assert [(f.rule, f.line, dict(f.data)["name"]) for f in saxpy.unconverted] == [("TRN012", 34, "__CUDA_ARCH__")]
    assert [(f.rule, f.line) for f in saxpy.warnings] == [("TRN007", 20), ("TRN007", 25)]
    names = {(c, h): n for c, h, n in saxpy.converted_names}
    assert names[("cudaMalloc", "hipMalloc")] == 2
    assert names[("cuda_runtime.h", "hip/hip_runtime.h")] == 1
    assert names[("device_launch_parameters.h", "(dropped)")] == 1
    # the .cuh relied on nvcc's implicit runtime include: it gets one, and its lines shift by one
    helpers = result.file("src/helpers.cuh")
    assert helpers.line_shift == 1 and helpers.output.startswith(b"#include <hip/hip_runtime.h>\n")
    # a project function named like the runtime (cudaCheckError in cuda-app) is not reported: see below
    assert result.engine.to_dict()["name"] == "builtin"


def test_unsupported_api_is_reported_with_line_and_reason():
    result = translate(TR / "unsupported", BUILTIN)
    ft = result.file("flush.cu")
    got = [(f.rule, f.line, dict(f.data)["name"]) for f in ft.unconverted]
    assert got == [
        ("TRN001", 8, "cudaDeviceFlushGPUDirectRDMAWrites"),
        ("TRN001", 8, "cudaFlushGPUDirectRDMAWritesTargetCurrentDevice"),
        ("TRN001", 9, "cudaFlushGPUDirectRDMAWritesToOwner"),
    ]
    assert "no HIP equivalent" in ft.unconverted[0].message


def _one(tmp_path: Path, name: str, text: bytes, **opts) -> tuple:
    d = tmp_path / "src"
    d.mkdir(exist_ok=True)
    (d / name).write_bytes(text)
    result = translate(d / name, TranslateOptions(engine="builtin", **opts))
    return result.file(name), result


def test_comments_and_strings_are_left_alone_unless_asked(tmp_path):
    src = b'#include <cuda_runtime.h>\n// cudaMalloc here\nconst char* s = "cudaMalloc failed";\nvoid f(void** p) { cudaMalloc(p, 4); }\n'
    ft, _ = _one(tmp_path, "a.cpp", src)
    assert ft.output == (b'#include <hip/hip_runtime.h>\n// cudaMalloc here\nconst char* s = "cudaMalloc failed";\n'
                         b"void f(void** p) { hipMalloc(p, 4); }\n")
    ft, _ = _one(tmp_path, "a.cpp", src, translate_strings=True)
    assert ft.output == (b'#include <hip/hip_runtime.h>\n// hipMalloc here\nconst char* s = "hipMalloc failed";\n'
                         b"void f(void** p) { hipMalloc(p, 4); }\n")
    assert dict(ft.converted) == {"function": 1, "header": 1, "text": 2}


def test_latin1_and_invalid_utf8_bytes_survive_exactly(tmp_path):
    src = (b"// Gr\xfc\xdfe \xff\xfe cudaMalloc\n#include <cuda_runtime.h>\n"
           b"const char* m = \"K\xf6ln \xe4\";  /* \xa9 */ cudaStream_t s; // \xe9\n"
           b"void g() { cudaStreamCreate(&s); }\xc3\n")
    ft, _ = _one(tmp_path, "l1.cpp", src)
    assert ft.output == (b"// Gr\xfc\xdfe \xff\xfe cudaMalloc\n#include <hip/hip_runtime.h>\n"
                         b"const char* m = \"K\xf6ln \xe4\";  /* \xa9 */ hipStream_t s; // \xe9\n"
                         b"void g() { hipStreamCreate(&s); }\xc3\n")
    # and the fixture's Latin-1 comment line is byte-identical in the translated host.cpp
    host = translate(TR / "basic", BUILTIN).file("src/host.cpp")
    assert host.output.splitlines()[1] == host.original.splitlines()[1]
    assert b"\xfc\xdf" in host.output.splitlines()[1]


def test_launch_bounds_second_argument_becomes_waves_per_eu(tmp_path):
    src = textwrap.dedent("""\
        #define LB(t) __launch_bounds__(t, 3)
        __global__ void __launch_bounds__(128, 4) a() {}
        __global__ void __launch_bounds__(N, BLOCKS) b() {}
        __global__ void __launch_bounds__(1024) c() {}
        __global__ void __launch_bounds__(64, 2, 4) d() {}
        """).encode()
    ft, _ = _one(tmp_path, "lb.cu", src)
    out = ft.output.decode()
    assert "__launch_bounds__(128, 16 /* porter: CUDA min blocks per multiprocessor 4 -> min waves per EU (4*128/32) */)" in out
    assert "__launch_bounds__(N, ((BLOCKS) * (N)) / 32 /* porter:" in out
    assert "__launch_bounds__(t, ((3) * (t)) / 32 /* porter:" in out
    assert "__launch_bounds__(1024) c()" in out
    assert "__launch_bounds__(64, 4 /* porter:" in out  # 2*64/32
    assert dict(ft.converted)["launch_bounds"] == 4
    three = [f for f in ft.warnings if "third argument" in f.message]
    assert [f.line for f in three] == [5]  # findings carry source lines; output lines are + line_shift
    assert ft.line_shift == 1
    # running again over the output converts nothing twice
    again, _ = _one(tmp_path, "lb2.cu", ft.output)
    assert again.output == ft.output


def test_unknown_cuda_names_reported_but_project_definitions_are_not(tmp_path):
    src = textwrap.dedent("""\
        #include <cuda_runtime.h>
        #define cudaCheck(x) (x)
        inline void cudaCheckError(const char*) {}
        void f() {
            cudaCheck(cudaDeviceSynchronize());
            cudaCheckError("x");
            cudaMysteryCall(3);
        #if CUDART_VERSION >= 12000
            umin(1u, 2u);
        #endif
        }
        """).encode()
    ft, _ = _one(tmp_path, "u.cpp", src, fixups=False)
    assert [(f.rule, f.line, dict(f.data)["name"]) for f in ft.unconverted] == [
        ("TRN003", 7, "cudaMysteryCall"), ("TRN003", 8, "CUDART_VERSION")]
    assert [(f.rule, dict(f.data)["name"]) for f in ft.warnings] == [("TRN006", "umin")]
    assert b"cudaCheck(hipDeviceSynchronize());" in ft.output and b'cudaCheckError("x")' in ft.output
    # The post-pass answers both: the version test reads porter's macro, umin is the compat header's
    fixed, result = _one(tmp_path, "u.cpp", src)
    assert [(f.rule, f.line, dict(f.data)["name"]) for f in fixed.unconverted] == [("TRN003", 7, "cudaMysteryCall")]
    assert [(f.rule, f.line, dict(f.data)["name"]) for f in fixed.warnings] == [
        ("TRN016", 8, "CUDART_VERSION"), ("TRN006", 9, "umin"), ("TRN017", 9, "umin")]
    lines = fixed.output.decode().splitlines()
    assert lines[0] == '#include "porter_hip_compat.h"  /* porter: shims for CUDA names HIP lacks */'
    assert lines[8:10] == ["#if PORTER_CUDART_VERSION >= 12000", "    porter_umin(1u, 2u);"]
    assert fixed.line_shift == 1
    compat = result.file("porter_hip_compat.h")
    assert compat.status == "generated" and b"#define PORTER_CUDART_VERSION 11000\n" in compat.output
    assert b"porter_umin(unsigned int a, unsigned int b)" in compat.output and b"porter_any_sync" not in compat.output


def test_hip_names_newer_than_the_hip_in_use_are_flagged(tmp_path):
    src = b"#include <cuda_runtime.h>\nvoid f(cudaGraph_t g, cudaGraphNode_t* n) { cudaGraphAddNode(n, g, 0, 0, 0); }\n"
    ft, _ = _one(tmp_path, "g.cpp", src, hip_version="5.2")
    newer = [(f.rule, dict(f.data)["name"], dict(f.data)["hip_added"]) for f in ft.warnings if f.rule == "TRN008"]
    assert newer == [("TRN008", "cudaGraphAddNode", "6.2.0")]
    ft, _ = _one(tmp_path, "g.cpp", src)  # no HIP version known: no such warning
    assert not [f for f in ft.warnings if f.rule == "TRN008"]


def test_headers_included_by_a_cu_are_translated_as_a_set(tmp_path):
    root = tmp_path / "proj"
    (root / "inc").mkdir(parents=True)
    (root / "main.cu").write_bytes(b'#include "inc/ops.cuinc"\n#include "curand_helpers.h"\n__global__ void k() {}\n')
    (root / "inc" / "ops.cuinc").write_bytes(b"inline void sync() { cudaDeviceSynchronize(); }\n")
    (root / "curand_helpers.h").write_bytes(b"// ours, despite the name\n")
    (root / "notes.md").write_bytes(b"cudaMalloc\n")
    result = translate(root, BUILTIN)
    assert [f.path for f in result.files] == ["curand_helpers.h", "inc/ops.cuinc", "main.cu"]
    assert result.file("inc/ops.cuinc").output == b"inline void sync() { hipDeviceSynchronize(); }\n"
    # a project header whose name matches a CUDA header glob (curand_*.h) is the project's: kept
    assert b'#include "curand_helpers.h"' in result.file("main.cu").output
    assert result.copies == ("notes.md",)


# --- output tree -------------------------------------------------------------------------------------------------

def test_output_tree_refusals(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(TR / "basic", src)
    result = translate(src, BUILTIN)
    with pytest.raises(TranslateError, match="inside the source tree"):
        write_tree(result, src / "hip")
    with pytest.raises(TranslateError, match="contains the source tree"):
        write_tree(result, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    with pytest.raises(TranslateError, match="not empty"):
        write_tree(result, out)
    report = write_tree(result, out, overwrite=True)
    assert report.written == ["src/helpers.cuh", "src/host.cpp", "src/saxpy.cu"] and report.copied == ["README.txt"]


def test_output_tree_never_writes_through_symlinks(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(TR / "basic", src)
    os.symlink("saxpy.cu", src / "src" / "alias.cu")
    result = translate(src, BUILTIN)
    assert result.symlinks == (("src/alias.cu", "saxpy.cu"),)
    out = tmp_path / "out"
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"untouched")
    (out / "src").mkdir(parents=True)
    os.symlink(victim, out / "README.txt")  # a symlink already in the output tree
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, out / "linkdir")
    write_tree(result, out, overwrite=True)
    assert victim.read_bytes() == b"untouched"
    assert not (out / "README.txt").is_symlink() and (out / "README.txt").read_bytes() == (src / "README.txt").read_bytes()
    assert (out / "src" / "alias.cu").is_symlink() and os.readlink(out / "src" / "alias.cu") == "saxpy.cu"
    assert list(outside.iterdir()) == []


def test_mirror_drops_a_symlink_whose_target_climbs_out_of_the_tree_and_back(tmp_path):
    # The tree is tmp/w/r. Each dropped link resolves inside it on disk, but only by stepping above r: recreated
    # under out/, the same text would step above out/ and land beside the mirror (here: tmp/r/x, a planted file).
    r = tmp_path / "w" / "r"
    shutil.copytree(TR / "basic", r)
    (r / "x").write_text("inside\n")
    (r / "a" / "b").mkdir(parents=True)
    os.symlink("../../../r/x", r / "a" / "b" / "out_and_back")
    os.symlink(".", r / "here")
    os.symlink("../here/../r/x", r / "a" / "via_link")  # lexically here/../r/x = r/x: only the walk sees the climb
    os.symlink("../../x", r / "a" / "b" / "up_inside")
    result = translate(r, BUILTIN)
    assert sorted(result.symlinks) == [("a/b/up_inside", "../../x")]
    climbs = "symlink not recreated: its target climbs out of the tree (it would lead out of the mirror)"
    assert sorted((s.path, s.reason) for s in result.skipped) == [("a/b/out_and_back", climbs), ("a/via_link", climbs),
                                                                  ("here", "directory symlink not followed")]
    planted = tmp_path / "r"
    planted.mkdir()
    (planted / "x").write_text("outside the mirror\n")
    out = tmp_path / "out"
    write_tree(result, out)
    assert not os.path.lexists(out / "a" / "b" / "out_and_back") and not os.path.lexists(out / "a" / "via_link")
    assert (out / "a" / "b" / "up_inside").read_text() == "inside\n"


# --- in place ----------------------------------------------------------------------------------------------------

def test_in_place_refuses_uncommitted_changes_unless_forced(tmp_path):
    repo = git_repo(tmp_path, TR / "basic")
    saxpy = repo / "src" / "saxpy.cu"
    saxpy.write_bytes(saxpy.read_bytes() + b"// local edit\n")
    edited = saxpy.read_bytes()
    with pytest.raises(TranslateError, match="uncommitted changes.*src/saxpy.cu"):
        write_in_place(translate(repo, BUILTIN))
    assert saxpy.read_bytes() == edited
    report = write_in_place(translate(repo, BUILTIN), force=True)
    assert "src/saxpy.cu" in report.written and b"hipMalloc" in saxpy.read_bytes()
    backup = Path(report.backup)
    assert backup.is_relative_to(repo / ".git") and (backup / "src" / "saxpy.cu").read_bytes() == edited


def test_in_place_in_a_clean_repo_is_atomic_and_backed_up(tmp_path):
    repo = git_repo(tmp_path, TR / "basic")
    before = tree_bytes(repo / "src")
    os.chmod(repo / "src" / "host.cpp", 0o444)  # read-only: never rewritten
    result = translate(repo, BUILTIN)
    # Without --force, a file that cannot be rewritten stops the run before any byte changes.
    with pytest.raises(TranslateError, match=r"would leave files untranslated: src/host.cpp \(read-only"):
        write_in_place(result)
    assert tree_bytes(repo / "src") == before
    report = write_in_place(result, force=True)
    assert report.written == ["src/helpers.cuh", "src/saxpy.cu"]
    assert report.skipped == [("src/host.cpp", "read-only: not rewritten")]
    assert (repo / "src" / "saxpy.cu").read_bytes() == (TR / "expected/basic/src/saxpy.cu").read_bytes()
    assert (repo / "src" / "host.cpp").read_bytes() == before["host.cpp"]
    backup = Path(report.backup)
    assert {p: (backup / "src" / p).read_bytes() for p in ("helpers.cuh", "saxpy.cu")} == \
        {p: before[p] for p in ("helpers.cuh", "saxpy.cu")}
    assert not list(repo.rglob(write_mod.TMP_PREFIX + "*"))
    assert git(repo, "status", "--porcelain", "--", "src/host.cpp") == ""


def test_in_place_outside_git_needs_force(tmp_path):
    plain = tmp_path / "plain"
    shutil.copytree(TR / "unsupported", plain)
    with pytest.raises(TranslateError, match="not a git work tree"):
        write_in_place(translate(plain, BUILTIN))
    report = write_in_place(translate(plain, BUILTIN), force=True)
    assert Path(report.backup).is_relative_to(plain / ".porter-backup")
    # the backup directory is never translated or copied by a later run
    assert [f.path for f in translate(plain, BUILTIN).files] == ["flush.cu"]


def test_in_place_write_failure_restores_every_file(tmp_path, monkeypatch):
    repo = git_repo(tmp_path, TR / "basic")
    before = tree_bytes(repo)
    result = translate(repo, BUILTIN)
    real = write_mod._atomic_write
    calls = []

    def failing(dest, data, mode, sync, root):
        calls.append(dest.name)
        if dest.name == "saxpy.cu":  # the third of three files, after two were replaced
            raise OSError(28, "No space left on device")
        return real(dest, data, mode, sync, root)

    monkeypatch.setattr(write_mod, "_atomic_write", failing)
    with pytest.raises(TranslateError, match="in-place write failed on src/saxpy.cu.*2 file\\(s\\) already rewritten were restored"):
        write_in_place(result)
    assert calls[:3] == ["helpers.cuh", "host.cpp", "saxpy.cu"]
    after = tree_bytes(repo)
    assert {k: v for k, v in after.items() if not k.startswith(".git/")} == \
        {k: v for k, v in before.items() if not k.startswith(".git/")}


KILL_SCRIPT = textwrap.dedent("""\
    import os, sys, time
    from pathlib import Path
    from porter.translate import TranslateOptions, translate
    from porter.translate import write
    real = os.replace
    n = [0]
    def slow_replace(a, b, **dir_fds):
        real(a, b, **dir_fds)
        n[0] += 1
        if n[0] == 2:
            Path(sys.argv[2]).write_text("two files replaced")
            time.sleep(60)
    write.os.replace = slow_replace
    write.write_in_place(translate(sys.argv[1], TranslateOptions(engine="builtin")))
    """)


def test_in_place_killed_mid_run_loses_no_byte(tmp_path):
    repo = git_repo(tmp_path, TR / "basic")
    before = tree_bytes(repo / "src")
    expected = tree_bytes(TR / "expected/basic/src")
    marker = tmp_path / "marker"
    proc = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, str(repo), str(marker)], cwd=REPO)
    try:
        deadline = time.time() + 60
        while not marker.exists() and proc.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        assert marker.exists(), "the in-place run never got to its second file"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    after = tree_bytes(repo / "src")
    states = {p: ("original" if after[p] == before[p] else "translated" if after[p] == expected[p] else "CORRUPT")
              for p in before}
    assert states == {"helpers.cuh": "translated", "host.cpp": "translated", "saxpy.cu": "original"}
    backups = list((repo / ".git" / "porter-backup").iterdir())
    assert len(backups) == 1
    assert tree_bytes(backups[0] / "src") == before
    assert not list((repo / "src").glob(write_mod.TMP_PREFIX + "*"))


# --- hipify wrappers ----------------------------------------------------------------------------------------------

def _real_hipify_perl() -> Path | None:
    env = os.environ.get("PORTER_TEST_HIPIFY_PERL")
    if env and Path(env).is_file():
        return Path(env)
    path, _ = hipify_mod.find_hipify("hipify-perl")
    return path


def test_hipify_perl_wrapper_against_the_real_tool(tmp_path):
    exe = _real_hipify_perl()
    if exe is None:
        pytest.skip("hipify-perl is not installed (not on PATH, not in $ROCM_PATH/bin; set PORTER_TEST_HIPIFY_PERL "
                    "to a HIPIFY checkout's bin/hipify-perl); Debian does not package it")
    src = tmp_path / "src"
    shutil.copytree(TR / "basic", src)
    shutil.copy(TR / "unsupported" / "flush.cu", src / "src" / "flush.cu")
    result = translate(src, TranslateOptions(engine="hipify-perl", hipify=exe, timeout=600))
    assert result.engine.name == "hipify-perl" and result.engine.version
    saxpy = result.file("src/saxpy.cu")
    assert saxpy.status == "translated" and b"hipMalloc(&x" in saxpy.output
    assert dict((c, n) for c, _h, n in saxpy.converted_names)["cudaMalloc"] == 4  # hipify counts comments/strings too
    assert saxpy.converted_total == sum(n for _c, _h, n in saxpy.converted_names) > 25
    # the latin-1 comment bytes survive hipify-perl too (it rewrites the word inside the comment, as documented)
    assert b"Gr\xfc\xdfe aus K\xf6ln" in result.file("src/host.cpp").output
    flush = result.file("src/flush.cu")
    assert {dict(f.data)["name"] for f in flush.unconverted if f.rule == "TRN001"} >= {
        "cudaDeviceFlushGPUDirectRDMAWrites", "cudaFlushGPUDirectRDMAWritesToOwner"}
    assert any(f.rule == "TRN010" for f in flush.warnings)  # hipify-perl's own warnings, parsed


def _fake_hipify(tmp_path: Path, name: str, body: str) -> Path:
    exe = tmp_path / name
    exe.write_text("#!/bin/sh\n" + body + "\n")
    exe.chmod(0o755)
    return exe


def test_hipify_timeout_and_crash_are_reported_and_the_run_goes_on(tmp_path):
    # FAKE hipify executables, used only to test timeout and crash handling; never a stand-in for the real tool.
    hang = _fake_hipify(tmp_path, "fake-hipify-perl-that-hangs-for-timeout-test",
                        'case "$*" in *--version*) echo "HIP version 0.0.0 (fake)"; exit 0;; esac\n'
                        'case "$*" in *saxpy*) exec sleep 60;; esac\ncat "$3"; echo "  CONVERTED refs count: 0" >&2')
    start = time.time()
    result = translate(TR / "basic", TranslateOptions(engine="hipify-perl", hipify=hang, timeout=1.5, fixups=False))
    assert time.time() - start < 30
    saxpy = result.file("src/saxpy.cu")
    assert saxpy.status == "failed" and saxpy.error == "timed out after 1.5 s"
    assert saxpy.output == saxpy.original
    assert [f.rule for f in saxpy.warnings if f.rule == "TRN011"] == ["TRN011"]
    assert result.file("src/host.cpp").status == "unchanged"  # the fake copies; the run went on
    # porter's leftover analysis still reports what the engine left
    assert any(f.rule == "TRN013" and dict(f.data)["name"] == "cudaGetDeviceCount" for f in result.file("src/host.cpp").unconverted)

    crash = _fake_hipify(tmp_path, "fake-hipify-perl-that-crashes-for-test",
                         'echo "Segmentation fault" >&2; exit 139')
    result = translate(TR / "unsupported", TranslateOptions(engine="hipify-perl", hipify=crash, timeout=10))
    ft = result.file("flush.cu")
    assert ft.status == "failed" and ft.error.startswith("exit status 139") and "Segmentation fault" in ft.error


HIPIFY_PERL_STDERR = """\
  ./Samples/a/simpleAttributes.cu:107: warning: unsupported ROCm HIP identifier: cudaStreamAttrValue
  ./Samples/a/mergeSort.cu:76: warning: unsupported device function "umin":         uint newPos = umin(pos + stride, L);
warning: ./Samples/a/simpleAttributes.cu:#107 :     cudaStreamAttrValue    streamAttrValue;

[HIPIFY] info: file './Samples/a/asyncAPI.cu' statistics:
  CONVERTED refs count: 26
  TOTAL lines of code: 144
  WARNINGS: 3
[HIPIFY] info: CONVERTED refs by names:
  cudaDeviceProp => hipDeviceProp_t: 1
  cuda_profiler_api.h => hip/hip_runtime_api.h: 1
  device_launch_parameters.h => : 1
"""


def test_parse_hipify_perl_statistics_and_warnings():
    s = hipify_mod.parse_perl_stats(HIPIFY_PERL_STDERR)
    assert s["counts"] == {"CONVERTED refs count": 26, "TOTAL lines of code": 144, "WARNINGS": 3}
    assert s["names"] == [("cudaDeviceProp", "hipDeviceProp_t", 1), ("cuda_profiler_api.h", "hip/hip_runtime_api.h", 1),
                          ("device_launch_parameters.h", "", 1)]
    assert [(w[0], w[1], w[2]) for w in s["warnings"]] == [
        (107, "unsupported ROCm HIP identifier", "cudaStreamAttrValue"),
        (76, "unsupported device function", "umin"),
        (107, "leftover CUDA identifier", "cudaStreamAttrValue"),
    ]


def test_parse_hipify_clang_statistics_and_warnings():
    text = textwrap.dedent("""\
        a.cu:12:5: warning: 'cudaDeviceFlushGPUDirectRDMAWrites' is unsupported in 'HIP'.
        a.cu:3:1: warning: 'cudaThreadSynchronize' is deprecated in CUDA.
        [HIPIFY] info: file 'a.cu' statistics:
          CONVERTED refs count: 7
          UNCONVERTED refs count: 1
          TOTAL lines of code: 40
        [HIPIFY] info: CONVERTED refs by names:
          cudaMalloc: 2
          cudaFree: 2
        """)
    s = hipify_mod.parse_clang_stats(text)
    assert s["counts"] == {"CONVERTED refs count": 7, "UNCONVERTED refs count": 1, "TOTAL lines of code": 40}
    assert s["names"] == [("cudaMalloc", "", 2), ("cudaFree", "", 2)]
    assert [(w[0], w[1], w[2]) for w in s["warnings"]] == [
        (12, "unsupported", "cudaDeviceFlushGPUDirectRDMAWrites"), (3, "deprecated", "cudaThreadSynchronize")]


def test_engine_selection(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on PATH
    monkeypatch.delenv("ROCM_PATH", raising=False)
    if Path("/opt/rocm/bin/hipify-perl").exists():
        pytest.skip("/opt/rocm/bin/hipify-perl exists; auto would pick it")
    result = translate(TR / "unsupported", TranslateOptions(engine="auto"))
    assert result.engine.name == "builtin" and "no hipify-perl" in result.engine.note
    with pytest.raises(TranslateError, match="hipify-clang not found"):
        translate(TR / "unsupported", TranslateOptions(engine="hipify-clang"))
    with pytest.raises(TranslateError, match="--engine must be"):
        translate(TR / "unsupported", TranslateOptions(engine="sed"))


# --- CLI ----------------------------------------------------------------------------------------------------------

def test_cli_outdir_inside_source_exits_2(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(TR / "basic", src)
    r = runner.invoke(app, ["translate", str(src), "-o", str(src / "out"), "--engine", "builtin"])
    assert r.exit_code == 2 and "inside the source tree" in r.output
    assert not (src / "out").exists()
    r = runner.invoke(app, ["translate", str(src), "--engine", "builtin"])
    assert r.exit_code == 2 and "choose exactly one" in r.output


def test_cli_json_report_names_the_engine(tmp_path):
    out = tmp_path / "out"
    r = runner.invoke(app, ["translate", str(TR / "unsupported"), "-o", str(out), "--engine", "builtin", "--format", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["engine"]["name"] == "builtin" and doc["command"] == "translate"
    assert doc["totals"]["unconverted"] == 3 and doc["totals"]["unconverted_by_rule"] == {"TRN001": 3}
    assert [u["name"] for u in doc["files"][0]["unconverted"]][0] == "cudaDeviceFlushGPUDirectRDMAWrites"
    assert doc["write"]["written"] == ["flush.cu"]
    assert (out / "flush.cu").read_bytes() == (TR / "expected/unsupported/flush.cu").read_bytes()


def test_cli_diff_writes_nothing(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(TR / "basic", src)
    before = tree_bytes(tmp_path)
    r = runner.invoke(app, ["translate", str(src), "--diff", "--engine", "builtin"])
    assert r.exit_code == 0, r.output
    assert "--- a/src/saxpy.cu\n+++ b/src/saxpy.cu\n" in r.stdout
    assert "\n-    CUDA_CHECK(cudaMalloc(&x, n * sizeof(float)));\n" in r.stdout
    assert "\n+    CUDA_CHECK(hipMalloc(&x, n * sizeof(float)));\n" in r.stdout
    assert tree_bytes(tmp_path) == before


def test_cli_in_place_in_git_repo(tmp_path):
    repo = git_repo(tmp_path, TR / "unsupported")
    (repo / "flush.cu").write_bytes((repo / "flush.cu").read_bytes() + b"\n")
    r = runner.invoke(app, ["translate", str(repo), "--in-place", "--engine", "builtin"])
    assert r.exit_code == 2 and "uncommitted changes" in r.output
    git(repo, "commit", "-qam", "edit")
    r = runner.invoke(app, ["translate", str(repo), "--in-place", "--engine", "builtin"])
    assert r.exit_code == 0, r.output
    assert "rewrote 1 files in place" in r.output
    assert b"hipDeviceSynchronize" in (repo / "flush.cu").read_bytes()


def test_kernel_arguments_of_const_void_pointer_apis_are_cast(tmp_path):
    src = (b"#include <cuda_runtime.h>\n__global__ void k(int* p) { *p = 1; }\n"
           b"void f() {\n  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 98304);\n"
           b"  cudaFuncAttributes a; cudaFuncGetAttributes(&a, k);\n"
           b"  cudaLaunchKernel((void*)k, dim3(1), dim3(1), nullptr, 0, 0);\n}\n")
    ft, _ = _one(tmp_path, "c.cu", src)
    assert ft.output == (b"#include <hip/hip_runtime.h>\n__global__ void k(int* p) { *p = 1; }\n"
                         b"void f() {\n  hipFuncSetAttribute(reinterpret_cast<const void*>(k), "
                         b"hipFuncAttributeMaxDynamicSharedMemorySize, 98304);\n"
                         b"  hipFuncAttributes a; hipFuncGetAttributes(&a, reinterpret_cast<const void*>(k));\n"
                         b"  hipLaunchKernel((void*)k, dim3(1), dim3(1), nullptr, 0, 0);\n}\n")
    assert dict(ft.converted)["cast"] == 2


def test_project_definitions_and_headers_named_like_cuda_are_kept(tmp_path):
    src = tmp_path / "proj"
    (src / "include").mkdir(parents=True)
    (src / "src").mkdir()
    (src / "include" / "curand_helpers.h").write_text("#pragma once\ninline int helper() { return 1; }\n")
    (src / "src" / "k.cu").write_text(
        '#include "curand_helpers.h"\n#include <cuda_runtime.h>\n'
        "struct Q { void memoryBarrier() {} };\nstruct Wrapper { int cudaMalloc; };\n"
        "namespace mylib { void cudaDeviceSynchronize() {} }\n"
        "void f(Q q, Wrapper w) { q.memoryBarrier(); w.cudaMalloc = 1; float* p; cudaMalloc(&p, 4); }\n")
    result = translate(src, BUILTIN)
    ft = result.file("src/k.cu")
    assert ft.output.decode() == (
        '#include "curand_helpers.h"\n#include <hip/hip_runtime.h>\n'
        "struct Q { void memoryBarrier() {} };\nstruct Wrapper { int cudaMalloc; };\n"
        "namespace mylib { void cudaDeviceSynchronize() {} }\n"
        "void f(Q q, Wrapper w) { q.memoryBarrier(); w.cudaMalloc = 1; float* p; hipMalloc(&p, 4); }\n")
    assert [(f.rule, f.line) for f in result.findings if f.path == "src/k.cu"] == [("TRN014", 5)]


def test_tracked_files_under_build_dirs_are_mirrored(tmp_path):
    repo = git_repo(tmp_path, TR / "basic")
    (repo / "src" / "build").mkdir()
    (repo / "src" / "build" / "config.h").write_text("#pragma once\n#include <cuda_runtime.h>\ncudaError_t e;\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "build dir")
    result = translate(repo, BUILTIN)
    assert result.file("src/build/config.h").output == b"#pragma once\n#include <hip/hip_runtime.h>\nhipError_t e;\n"


def test_pytorch_cuda_cpp_api_is_kept_and_said(tmp_path):
    src = (b"#include <torch/extension.h>\nvoid f(at::Tensor t) {\n  const c10::cuda::CUDAGuard g(t.device());\n"
           b"  cudaStream_t s = at::cuda::getCurrentCUDAStream();\n  C10_CUDA_CHECK(cudaGetLastError());\n}\n")
    ft, result = _one(tmp_path, "b.cpp", src)
    assert ft.output == src.replace(b"cudaStream_t", b"hipStream_t").replace(b"cudaGetLastError", b"hipGetLastError")
    assert [(f.rule, f.line, f.snippet.split("(")[0]) for f in result.findings if f.rule == "TRN015"] == [
        ("TRN015", 3, "const c10::cuda::CUDAGuard g"), ("TRN015", 4, "cudaStream_t s = at::cuda::getCurrentCUDAStream"),
        ("TRN015", 5, "C10_CUDA_CHECK")]


def test_a_non_source_file_is_refused(tmp_path):
    (tmp_path / "README.md").write_text("cudaMalloc is mentioned here\n")
    with pytest.raises(TranslateError, match=r"README.md: not a C, C\+\+ or CUDA source file"):
        translate(tmp_path / "README.md", BUILTIN)


def test_a_file_name_that_is_not_utf8_keeps_its_bytes_in_the_mirror(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    raw_name = os.path.join(os.fsencode(src), b"bad\xff.cu")
    with open(raw_name, "wb") as fh:
        fh.write(b"#include <cuda_runtime.h>\nvoid f() { cudaFree(0); }\n")
    write_tree(translate(src, BUILTIN), tmp_path / "out")
    assert sorted(os.listdir(os.fsencode(tmp_path / "out"))) == [b"bad\xff.cu"]
    with open(os.path.join(os.fsencode(tmp_path / "out"), b"bad\xff.cu"), "rb") as fh:
        assert fh.read() == b"#include <hip/hip_runtime.h>\nvoid f() { hipFree(0); }\n"


def test_translate_reads_the_repository_configuration_like_scan(tmp_path):
    """translate goes through the same settings as scan: porter.toml's exclude applies, --isolated ignores it,
    --include on the command line wins over the file."""
    from porter.cli import app

    src = tmp_path / "repo"
    (src / "vendor").mkdir(parents=True)
    (src / "a.cu").write_text("void f(void *p) { cudaFree(p); }\n")
    (src / "vendor" / "v.cu").write_text("void g(void *p) { cudaFree(p); }\n")
    (src / "porter.toml").write_text('exclude = ["vendor/"]\n')

    def translated(*extra):
        out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
        r = CliRunner().invoke(app, ["translate", str(src), "-o", str(out), "--engine", "builtin", "-f", "json", *extra])
        assert r.exit_code == 0, r.output
        return [f["path"] for f in json.loads(r.output)["files"]]

    assert translated() == ["a.cu"]
    assert translated("--isolated") == ["a.cu", "vendor/v.cu"]
    assert translated("--include", "vendor/**", "--isolated") == ["vendor/v.cu"]
