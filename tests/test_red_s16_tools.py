"""Red team, session 16: `porter translate --engine hipify-clang` ran hipify outside porter.budget.run_tool, the one
way porter runs a tool on repository content: no memory cap, no output bound, no run deadline and no confinement.

hipify-clang is a clang front end: it preprocesses and parses the file as a compiler does, so a hostile source's
`#include "../../home/ci/.netrc"` was opened and its first token quoted back in the error porter reports
(`error: unknown type name 'machine'`; with `#embed` the whole file), and a 3-line macro bomb grew it without bound.
hipify is not installed here, so the tool below is a stand-in that does what hipify-clang's front end does with
its arguments: it runs a real clang++ on the file with the options after `--`, then writes the file to `-o`.
"""
from __future__ import annotations

import ast
import json
import shutil
import time
from pathlib import Path

import pytest

from helpers import NEEDS, porter_here
from porter import contain
from porter.translate.engines import hipify
from test_architecture import MODULES, parsed, porter_trees  # noqa: F401 - pytest's own module (one cache); a fixture

CLANG = next((c for c in ("clang++-19", "clang++-22", "clang++-15", "clang++") if shutil.which(c)), None)
needs_clang = pytest.mark.skipif(CLANG is None, reason=NEEDS["clang++"])
needs_landlock = pytest.mark.skipif(not contain.confinement(("/tmp",), ()).available,
                                    reason="needs Landlock (Linux 5.13+)")
BOMB = "#define A(x) x x x x x x x x x x\n#define B(x) A(A(A(A(x))))\nB(B(B(int a;)))\n"


def _stand_in(tmp_path: Path) -> Path:
    """A hipify-clang installed in its own prefix (tool/bin), outside the tree and the secret's directory."""
    exe = tmp_path / "tool" / "bin" / "hipify-clang"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n"
                   'case "$*" in *--version*) echo "HIPIFY version 0.0.0 (clang front-end stand-in)"; exit 0;; esac\n'
                   'src="$1"; out="$3"\n'
                   'while [ "$1" != "--" ]; do shift; done; shift\n'
                   f'{CLANG} -fsyntax-only -x c++ -D__global__= "$@" "$src" || exit 1\n'
                   'cp "$src" "$out"\n')
    exe.chmod(0o755)
    return exe


def _translate(tmp_path: Path, files: dict[str, str], *env: str) -> dict:
    repo = tmp_path / "repo"
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    p = porter_here("translate", str(repo), "-o", str(tmp_path / "out"), "--engine", "hipify-clang",
                    "--hipify", str(_stand_in(tmp_path)), "--no-fixups", "-f", "json", env=dict(e.split("=", 1) for e in env))
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


@needs_clang
@needs_landlock
def test_hipify_clang_cannot_open_a_file_outside_the_tree_so_no_report_quotes_it(tmp_path):
    # Before: "error": "exit status 1: ./../secret/token.h:1:1: error: unknown type name 'TOPSECRET_CI_TOKEN_123'"
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "token.h").write_text("TOPSECRET_CI_TOKEN_123 x;\n")
    out = _translate(tmp_path, {"a.cu": '#include "../secret/token.h"\n__global__ void k(float* x) { x[0] = 1.0f; }\n'})
    assert "TOPSECRET" not in json.dumps(out)
    (a,) = [f for f in out["files"] if f["path"] == "a.cu"]
    assert a["status"] == "failed"
    assert a["error"] == "exit status 1: ./a.cu:1:10: fatal error: cannot open file './../secret/token.h': " \
                         "Permission denied"


@needs_clang
def test_hipify_clang_on_a_macro_bomb_stops_at_the_tool_memory_cap(tmp_path):
    # Before: no cap at all (the stand-in's clang grew past 1 GiB within seconds; the real machine's memory was the
    # only bound).
    t = time.monotonic()
    out = _translate(tmp_path, {"bomb.cu": BOMB, "ok.cu": "__global__ void k(float* x) { x[0] = 1.0f; }\n"},
                     "PORTER_TOOL_MEMORY_MIB=384")
    assert time.monotonic() - t < 120
    by_path = {f["path"]: f for f in out["files"]}
    assert by_path["bomb.cu"]["status"] == "failed"
    assert by_path["bomb.cu"]["error"] == "needed more than 384 MiB"
    assert by_path["ok.cu"]["status"] == "unchanged" and by_path["ok.cu"]["error"] is None


def test_hipify_clang_diagnostics_are_shown_by_place_only_when_they_could_quote_an_outside_file(tmp_path):
    text = ("./a.cu:3:1: warning: 'cudaX' is unsupported in 'HIP'.\n"
            "    3 | cudaX();\n"
            "./../secret/token.h:1:1: error: unknown type name 'TOPSECRET'\n"
            "    1 | TOPSECRET x;\n"
            "      | ^\n"
            "/home/ci/.netrc:2:7: note: password is here\n"
            "[HIPIFY] info: file './a.cu' statistics:\n"
            "  CONVERTED refs count: 1\n")
    root = tmp_path / "repo"
    root.mkdir()
    assert hipify._inside_only(text, root, confined=True).splitlines() == [
        "./a.cu:3:1: warning: 'cudaX' is unsupported in 'HIP'.",
        "    3 | cudaX();",
        "./../secret/token.h:1: error in a file outside the tree (not shown: it could quote it)",
        "/home/ci/.netrc:2: note in a file outside the tree (not shown: it could quote it)",
        "[HIPIFY] info: file './a.cu' statistics:",
        "  CONVERTED refs count: 1"]
    # Unconfined (no Landlock): an `#embed` of any file is quoted in a diagnostic located in the tree.
    assert hipify._inside_only(text, root, confined=False).splitlines()[:2] == [
        "./a.cu:3: warning (not shown: hipify-clang ran unconfined and could quote any file)",
        "./../secret/token.h:1: error in a file outside the tree (not shown: it could quote it)"]


def test_a_hipify_install_prefix_is_never_the_home_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "bin").mkdir()
    (tmp_path / "opt" / "rocm" / "bin").mkdir(parents=True)
    assert hipify._install_dirs([str(tmp_path / "bin" / "hipify-perl")]) == (str(tmp_path / "bin"),)
    assert hipify._install_dirs(["perl", str(tmp_path / "opt/rocm/bin/hipify-perl")]) == (
        str(tmp_path / "opt/rocm/bin"), str(tmp_path / "opt/rocm"))


# Every place porter starts a process by other means than porter.budget.run_tool (tools on repository content) and
# porter.source.git (git, hardened and capped), with why no repository content reaches it. A new one fails the test.
DIRECT_PROCESSES: dict[tuple[str, str, str], str] = {
    ("porter.budget", "Pool._start", "os.fork"): "the budgeted workers themselves",
    ("porter.budget", "run_tool", "subprocess.Popen"): "the choke point for tools",
    ("porter.source.git", "popen", "subprocess.Popen"): "the choke point for git (hardened options, RLIMIT_DATA)",
    ("porter.translate.engines.hipify", "_HipifyEngine._version", "subprocess.run"): "`hipify --version`: no "
                                                                                      "repository file",
    ("porter.translate.verify", "_version_text", "subprocess.run"): "`compiler --version`: no repository file",
    ("porter.translate.verify", "supports", "subprocess.run"): "an empty probe file in porter's temporary directory",
}
_STARTS = {("subprocess", a) for a in ("run", "Popen", "call", "check_call", "check_output", "getoutput",
                                       "getstatusoutput")} | \
          {("os", a) for a in ("system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp", "execv", "execve",
                               "execvp", "execvpe", "execl", "execle", "execlp", "execlpe", "spawnv", "spawnve",
                               "spawnvp", "spawnvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe")}


def process_starts(name: str) -> set[tuple[str, str, str]]:
    found: set[tuple[str, str, str]] = set()

    def visit(node: ast.AST, scope: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope + (child.name,) if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                ast.ClassDef)) else scope
            f = child.func if isinstance(child, ast.Call) else None
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and (f.value.id, f.attr) in _STARTS:
                found.add((name, ".".join(scope) or "<module>", f"{f.value.id}.{f.attr}"))
            visit(child, inner)

    visit(parsed(MODULES[name]), ())
    return found


@pytest.mark.usefixtures("porter_trees")  # the trees are dropped after this test
def test_every_process_porter_starts_goes_through_a_choke_point():
    # Before: hipify ran through its own subprocess.Popen (HipifyEngine _run) and translate's git directory through
    # subprocess.run with no timeout (porter.translate.write._git).
    found = set().union(*(process_starts(n) for n in MODULES))
    assert found - set(DIRECT_PROCESSES) == set(), sorted(found - set(DIRECT_PROCESSES))
    assert set(DIRECT_PROCESSES) - found == set(), "an allowed process start is gone: delete it from the list"
