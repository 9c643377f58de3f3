"""Red team, session 10: `port --verify` and `translate --verify` run compilers on the repository's sources, and a
compiler is as exposed to hostile input as a parser: a 3-line macro bomb grows clang past 1 GiB in 30 s, an
`#include` of a FIFO planted in the tree waits forever, and 20 KB of macros preprocess to 70 MB of output. hipcc is a
Perl driver that starts clang as its child: subprocess.run's timeout kills hipcc and leaves clang running, orphaned
(reproduced: the clang -cc1 blocked on the FIFO outlived its caller). porter.budget.run_tool is the one way porter
runs such a tool: these tests run it on real compilers and check each bound holds, and that nothing outlives it."""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from porter import budget

BOMB = "#define A(x) x x x x x x x x x x\n#define B(x) A(A(A(A(x))))\nB(B(B(int a;)))\n"
CLANG = next((c for c in ("clang++-22", "clang++-19", "clang++-15", "clang++") if shutil.which(c)), None)
needs_clang = pytest.mark.skipif(CLANG is None, reason="needs a clang++ (clang++-22/19/15) on PATH")


def _alive(marker: str, within: float = 5.0) -> list[int]:
    """Processes whose command line names `marker` (a path unique to the test) still there after `within` seconds
    (a SIGKILLed process takes a moment to go on a loaded machine; a live orphan never goes)."""
    end = time.monotonic() + within
    while True:
        pids = _named(marker)
        if not pids or time.monotonic() > end:
            return pids
        time.sleep(0.1)


def _named(marker: str) -> list[int]:
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    pids.append(int(pid))
        except OSError:
            continue
    return pids


@needs_clang
def test_a_macro_bomb_stops_at_the_memory_cap(tmp_path):
    src = tmp_path / "bomb.cpp"
    src.write_text(BOMB)
    t = time.monotonic()
    r = budget.run_tool([CLANG, "-fsyntax-only", str(src)], budget.Budget(120, 384 * budget.MIB),
                        env={**os.environ, "TMPDIR": str(tmp_path)})
    assert r.overrun == budget.Overrun("needed more than 384 MiB", "memory")
    assert r.returncode not in (0, None)
    assert time.monotonic() - t < 60
    assert _alive(str(src)) == []


@needs_clang
def test_endless_output_stops_at_the_output_cap(tmp_path):
    src = tmp_path / "loud.cpp"
    # 20 KB that preprocess to 70 MB, line by line
    src.write_text("#define A(x) x x x x x x x x x x\n#define B(x) A(A(A(A(x))))\n" + "B(int a;)\n" * 2000)
    r = budget.run_tool([CLANG, "-E", str(src)], budget.Budget(120, 0), output=budget.MIB)
    assert (r.returncode, r.overrun) == (None, budget.Overrun("printed more than 1 MiB", "output"))
    assert len(r.stdout.encode()) == budget.MIB
    assert r.stdout.count("int a;") > 1000
    assert _alive(str(src)) == []


@pytest.mark.skipif(shutil.which("hipcc") is None, reason="needs hipcc (Debian's hipcc package) on PATH")
def test_hipcc_blocked_on_a_fifo_include_is_killed_with_its_clang(tmp_path):
    os.mkfifo(tmp_path / "pipe.h")
    src = tmp_path / "k.hip"
    src.write_text('#include "pipe.h"\n__global__ void k() {}\n')
    t = time.monotonic()
    r = budget.run_tool(["hipcc", "--offload-arch=gfx90a", "-x", "hip", "-c", str(src), "-o", str(tmp_path / "k.o")],
                        budget.Budget(4, 1024 * budget.MIB),
                        env={**os.environ, "HIP_PLATFORM": "amd", "TMPDIR": str(tmp_path)}, cwd=tmp_path)
    assert (r.returncode, r.overrun) == (None, budget.Overrun("took longer than 4 s", "time"))
    assert time.monotonic() - t < 20  # 4 s and the kill, with room for a loaded machine
    assert _alive(str(src)) == []  # hipcc's clang children too: nothing is left reading the FIFO


def test_the_runs_deadline_ends_a_tool_and_a_later_tool_never_starts(tmp_path, monkeypatch):
    monkeypatch.setenv(budget.DEADLINE_ENV, str(time.monotonic() - budget._STARTED + 1.5))
    marker = str(tmp_path / "never")
    t = time.monotonic()
    r = budget.run_tool(["sh", "-c", f"sleep 30; : {marker}"], budget.Budget(60, 0))
    assert r.returncode is None and r.overrun is not None and r.overrun.kind == budget.DEADLINE_KIND
    assert time.monotonic() - t < 5
    assert _alive(marker) == []
    r = budget.run_tool(["sh", "-c", f"touch {marker}"], budget.Budget(60, 0))
    assert (r.returncode, r.overrun and r.overrun.kind) == (None, budget.DEADLINE_KIND)
    assert not Path(marker).exists()


def test_a_memory_setting_that_is_not_a_number_is_a_usage_error(monkeypatch):
    monkeypatch.setenv(budget.TOOL_MEMORY_ENV, "lots")
    with pytest.raises(budget.UsageError, match=r"^PORTER_TOOL_MEMORY_MIB='lots': give a whole number of MiB$"):
        budget.tool_budget()
    monkeypatch.setenv(budget.TOOL_MEMORY_ENV, "256")
    assert budget.tool_budget(30) == budget.Budget(30, 256 * budget.MIB)


# -- confinement: the compiler opens only the tree, the toolchain and its temporary directory ------------------------

LEAK = """constexpr unsigned char s[] = {
#embed "%s"
};
template <unsigned char... C> struct Leak;
template <unsigned long... I> struct Idx {};
template <unsigned long N, unsigned long... I> struct Make : Make<N - 1, N - 1, I...> {};
template <unsigned long... I> struct Make<0, I...> { using type = Idx<I...>; };
template <unsigned long... I> Leak<s[I]...> leak(Idx<I...>);
auto x = leak(Make<sizeof(s)>::type{});
"""
CLANG22 = shutil.which("clang++-22") or shutil.which("clang++-19")


def _landlock() -> bool:
    from porter import contain

    c = contain.confinement((), ())
    try:
        return c.available
    finally:
        c.close()


needs_landlock = pytest.mark.skipif(not _landlock(), reason="needs Linux Landlock (5.13+) in this kernel")


@needs_landlock
@pytest.mark.skipif(CLANG22 is None, reason="needs clang++-22 or clang++-19 (#embed) on PATH")
def test_embed_of_a_file_outside_the_tree_is_not_quoted_by_a_confined_compiler(tmp_path):
    secret = tmp_path / "home" / ".netrc"
    secret.parent.mkdir()
    secret.write_text("tok\n")
    tree, scratch = tmp_path / "tree", tmp_path / "scratch"
    tree.mkdir()
    scratch.mkdir()
    src = tree / "k.hip"
    src.write_text(LEAK % secret)
    cmd = [CLANG22, "-x", "hip", "--offload-arch=gfx942", "-nogpulib", "--cuda-device-only", "-fsyntax-only", str(src)]
    env = {**os.environ, "TMPDIR": str(scratch)}
    # The attack, unconfined: an error located in the tree quotes the outside file's bytes.
    open_run = budget.run_tool(cmd, budget.Budget(120, 0), env=env, cwd=tree)
    assert "undefined template 'Leak<'t', 'o', 'k', '\\n'>'" in open_run.stderr
    assert open_run.confined is False
    r = budget.run_tool(cmd, budget.Budget(120, 0), env=env, cwd=tree, reads=(tree,), writes=(scratch,))
    assert r.confined is True and r.returncode == 1 and r.overrun is None
    assert f"{src}:2:8: fatal error: '{secret}' file not found" in r.stderr
    assert "Leak<'t'" not in r.stderr


@needs_landlock
@pytest.mark.skipif(shutil.which("hipcc") is None, reason="needs hipcc (Debian's hipcc package) on PATH")
def test_a_confined_hipcc_still_compiles_a_kernel_of_the_tree(tmp_path):
    tree, scratch = tmp_path / "tree", tmp_path / "scratch"
    tree.mkdir()
    scratch.mkdir()
    (tree / "inc").mkdir()
    (tree / "inc" / "scale.h").write_text("#define SCALE 2.0f\n")
    (tree / "k.hip").write_text('#include <hip/hip_runtime.h>\n#include "inc/scale.h"\n'
                                "__global__ void k(float* p) { p[threadIdx.x] *= SCALE; }\n")
    r = budget.run_tool(["hipcc", "--offload-arch=gfx90a", "-std=c++17", "-x", "hip", "-c", str(tree / "k.hip"),
                         "-o", str(scratch / "k.o")], budget.Budget(240, 0),
                        env={**os.environ, "HIP_PLATFORM": "amd", "TMPDIR": str(scratch)}, cwd=tree,
                        reads=(tree,), writes=(scratch,))
    assert (r.returncode, r.overrun, r.confined) == (0, None, True), r.stderr
    assert (scratch / "k.o").stat().st_size > 0
    assert sorted(p.name for p in tree.rglob("*")) == ["inc", "k.hip", "scale.h"]


@needs_landlock
def test_a_confined_tool_writes_only_its_scratch_directory(tmp_path):
    tree, scratch = tmp_path / "tree", tmp_path / "scratch"
    tree.mkdir()
    scratch.mkdir()
    (tree / "a.cu").write_text("x\n")
    r = budget.run_tool(["sh", "-c", f"cat {tree}/a.cu > {scratch}/copy; echo y > {tree}/b.cu; "
                                     f"cat {tmp_path}/../../etc/hostname /etc/hostname"],
                        budget.Budget(30, 0), reads=(tree,), writes=(scratch,))
    assert r.confined is True
    assert (scratch / "copy").read_text() == "x\n"
    assert not (tree / "b.cu").exists()
    assert "Permission denied" in r.stderr and r.stdout == ""
