"""Deep mode on a hostile repository: libclang reads only contained copies of repository files and the toolkit."""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from helpers import porter_here
from porter.kernels import deep

MARKER = "SECRET_TOKEN_abc123"
KERNEL = "__global__ void k(float* o) { __shared__ float b[N]; b[0] = 1; o[0] = b[0]; }\n"


def _hostile(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose kernel includes, in turn: an absolute path outside it, a `../` escape, a header through a
    symlinked directory leading outside, a FIFO inside it, /dev/zero, and one ordinary repository header."""
    outside, root = tmp_path / "outside", tmp_path / "repo"
    (outside / "hdrs").mkdir(parents=True)
    (root / "include").mkdir(parents=True)
    (outside / "secret.h").write_text(f"{MARKER} a;\n")
    (outside / "hdrs" / "s.h").write_text(f"{MARKER} b;\n")
    os.symlink("../../outside/hdrs", root / "include" / "ext")
    os.mkfifo(root / "pipe.h")
    (root / "include" / "ok.h").write_text("#pragma once\nconstexpr int N = 8 * 8;  // an expression: only deep mode folds it\n")
    (root / "k.cu").write_text(f'#include "{outside / "secret.h"}"\n#include "../outside/secret.h"\n#include "include/ext/s.h"\n'
                               f'#include "pipe.h"\n#include "/dev/zero"\n#include "include/ok.h"\n{KERNEL}')
    return root, outside


REFUSED = [
    {"from": "k.cu", "line": 1, "include": "{outside}/secret.h", "reason": "absolute path outside the repository"},
    {"from": "k.cu", "line": 2, "include": "../outside/secret.h", "reason": "`..` leads outside the repository"},
    {"from": "k.cu", "line": 3, "include": "include/ext/s.h", "reason": "a symlink leads outside the repository"},
    {"from": "k.cu", "line": 4, "include": "pipe.h", "reason": "a FIFO, not a regular file"},
    {"from": "k.cu", "line": 5, "include": "/dev/zero", "reason": "absolute path outside the repository"},
]


def _expected_refused(outside: Path) -> list[dict]:
    return [{**r, "include": r["include"].format(outside=outside)} for r in REFUSED]


def _within(seconds: float, fn):
    """fn() run in a daemon thread, failing the test (instead of hanging it) when it does not return in time."""
    box: dict = {}

    def run():
        try:
            box["value"] = fn()
        except Exception as e:  # re-raised in the test's thread
            box["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"still running after {seconds}s (blocked on a FIFO?)"
    if "error" in box:
        raise box["error"]
    return box["value"]


def _contain(root: Path, main: str = "k.cu", sandbox: Path | None = None) -> deep.Contained:
    sandbox = sandbox or root.parent / "sandbox"
    sandbox.mkdir(exist_ok=True)
    return _within(10, lambda: deep.contain(root / main, root, [str(root), str(root / "include")], sandbox))


def test_contain_refuses_every_escape_and_pins_the_repository_header(tmp_path):
    root, outside = _hostile(tmp_path)
    c = _contain(root)
    assert [r.to_dict() for r in c.refused] == _expected_refused(outside)
    assert sorted(c.files.values()) == ["include/ok.h", "k.cu"]
    (header,) = [copy for copy, rel in c.files.items() if rel == "include/ok.h"]
    assert Path(c.main).read_text().split("\n") == ["", "", "", "", "", f'#include "{header}"', KERNEL.rstrip("\n"), ""]
    assert Path(header).read_text() == "#pragma once\nconstexpr int N = 8 * 8;  // an expression: only deep mode folds it\n"
    assert c.data == (root / "k.cu").read_bytes()
    assert all(MARKER not in p.read_text() for p in (tmp_path / "sandbox").rglob("*") if p.is_file())


@pytest.mark.parametrize("directive, reason", [
    ("#inc\\\nlude \"{secret}\"", "absolute path outside the repository"),  # a line splice inside the name
    ("%:include \"{secret}\"", "absolute path outside the repository"),  # digraph
    ("/* c */ # /* c */ include \"{secret}\"", "absolute path outside the repository"),
    ("/* opened\n*/ #include \"{secret}\"", "absolute path outside the repository"),  # `#` first after a comment's end
    ("#include /* spans\n lines */ \"{secret}\"", "absolute path outside the repository"),
    ("#include_next \"{secret}\"", "absolute path outside the repository"),
    ("#import \"{secret}\"", "absolute path outside the repository"),
    ("#define F \"{secret}\"\n#include F", "not a literal file name (computed include)"),
    ("#embed \"{secret}\"", "#embed is not followed"),
    ("#pragma GCC dependency \"{secret}\"", "#pragma dependency is not followed"),
    ("#if __has_include(\"{secret}\")\n#endif", "absolute path outside the repository"),
])
def test_directive_spellings_do_not_slip_past(tmp_path, directive, reason):
    root, outside = tmp_path / "repo", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.h").write_text(f"{MARKER} a;\n")
    (root / "k.cu").write_text(directive.format(secret=outside / "secret.h") + "\nint tail;\n")
    c = _contain(root)
    assert [r.reason for r in c.refused] == [reason]
    text = Path(c.main).read_text()
    assert str(outside) not in text.replace(f'#define F "{outside}/secret.h"', "")  # only the unused macro body stays
    assert text.split("\n")[-2:] == ["int tail;", ""]  # line numbers kept: the tail is still on its line
    assert len(text.split("\n")) == len((root / "k.cu").read_text().split("\n"))


def test_carriage_return_line_ends_are_lines_too(tmp_path):
    root, outside = tmp_path / "repo", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.h").write_text(f"{MARKER} a;\n")
    (root / "k.cu").write_bytes(f'int a;\r#include "{outside / "secret.h"}"\rint b;\n'.encode())
    c = _contain(root)
    assert [(r.line, r.reason) for r in c.refused] == [(2, "absolute path outside the repository")]
    assert Path(c.main).read_text() == "int a;\n\nint b;\n"


def test_toolkit_includes_are_left_to_clang_and_dotdot_ones_are_not(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "k.cu").write_text("#include <cuda_runtime.h>\n#include <../../etc/hostname>\n#include \"vector\"\n")
    c = _contain(root)
    assert [(r.line, r.include, r.reason) for r in c.refused] == [(2, "../../etc/hostname", "`..` would search outside the repository")]
    assert Path(c.main).read_text() == "#include <cuda_runtime.h>\n\n#include \"vector\"\n"


def test_a_main_file_that_is_a_fifo_or_a_symlink_out_is_not_analysed(tmp_path):
    root, outside = tmp_path / "repo", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    os.mkfifo(root / "pipe.cu")
    (outside / "secret.cu").write_text(f"{MARKER} a;\n")
    os.symlink(outside / "secret.cu", root / "link.cu")
    with pytest.raises(deep.ContainmentError, match="^a FIFO, not a regular file$"):
        _contain(root, "pipe.cu")
    with pytest.raises(deep.ContainmentError, match="^the file resolves outside the repository$"):
        _contain(root, "link.cu")


def test_an_oversized_header_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(deep, "FILE_CAP", 100)
    root = tmp_path / "repo"
    root.mkdir()
    (root / "big.h").write_text("int x;\n" * 20)
    (root / "k.cu").write_text('#include "big.h"\n')
    assert [r.reason for r in _contain(root).refused] == ["140 bytes, over the 100 byte cap"]


def test_compile_database_flags_are_contained(tmp_path):
    root, outside = _hostile(tmp_path)
    (root / "inc").mkdir()
    (root / "pre.h").write_text("#define PRE 1\n")
    argv = ["nvcc", "-I", str(outside), "-Iinc", "-isystem", "/usr/include/eigen3", "-include", str(outside / "secret.h"),
            "-include", "pre.h", "-DX=1", "-std=c++17", "-o", "/etc/passwd", "-c", "k.cu"]
    (root / "compile_commands.json").write_text(json.dumps([{"directory": str(root), "arguments": argv, "file": "k.cu"}]))
    flags = deep.compile_flags(root, root / "k.cu")
    assert flags.clang == ("-D", "X=1", "-std=c++17")
    assert flags.search == (str((root / "inc").resolve()),)
    assert flags.forced == (str((root / "pre.h").resolve()),)
    assert [r.to_dict() for r in flags.refused] == [
        {"from": "compile_commands.json", "line": 0, "include": f"-I {outside}", "reason": "outside the repository"},
        {"from": "compile_commands.json", "line": 0, "include": "-isystem /usr/include/eigen3", "reason": "outside the repository"},
        {"from": "compile_commands.json", "line": 0, "include": f"-include {outside}/secret.h", "reason": "outside the repository"},
    ]


def test_a_compile_database_symlinked_from_outside_is_ignored(tmp_path):
    root, outside = _hostile(tmp_path)
    (outside / "compile_commands.json").write_text(json.dumps([{"directory": str(root), "arguments": ["cc", "-DLEAK=1", "k.cu"],
                                                                "file": "k.cu"}]))
    os.symlink(outside / "compile_commands.json", root / "compile_commands.json")
    assert deep.compile_flags(root, root / "k.cu") == deep.CompileFlags()


@pytest.mark.usefixtures("libclang")
def test_scan_deep_json_never_carries_outside_text(tmp_path):
    root, outside = _hostile(tmp_path)
    (root / "err.cu").write_text(f'#include "../outside/secret.h"\n__global__ void e(float* o) {{ o[0] = undeclared_name; }}\n')
    res = porter_here("scan", str(root), "--deep", "--format", "json", "--no-cache", timeout=120, replace_env=True,
                      env=dict(os.environ))
    assert res.returncode == 0, res.stderr
    assert MARKER not in res.stdout and MARKER not in res.stderr
    doc = json.loads(res.stdout)
    info = doc["kernel_analysis"]["deep"]
    assert info["refused_includes"] == {
        "err.cu": [{"from": "err.cu", "line": 1, "include": "../outside/secret.h", "reason": "`..` leads outside the repository"}],
        "k.cu": _expected_refused(outside)}
    assert info["errors"] == {"err.cu": ["err.cu:2:38: use of undeclared identifier 'undeclared_name'"]}
    (k,) = [k for k in doc["kernels"] if k["name"] == "k"]
    assert k["shared_memory"]["static_bytes"] == 256  # the repository header still resolved N
    assert k["deep"]["constants_from"] == ["include/ok.h"]
