"""What a person reads from the command line itself: help without type tags, listed choices, empty trees."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from porter import __version__
from porter.cli import app
from porter.render import FORMATS
from tests.helpers import porter_here

COMMANDS = [["scan"], ["assess"], ["targets"], ["translate"], ["rules", "list"], ["rules", "explain"]]


@pytest.mark.parametrize("cmd", COMMANDS, ids=" ".join)
def test_help_has_no_type_tags(cmd):
    out = CliRunner().invoke(app, [*cmd, "--help"], env={"COLUMNS": "100"}).output
    assert re.findall(r"<\w+(?:\[\w+\])?>|\{\w+\}", out) == []
    assert "Usage: porter " + " ".join(cmd) + " [OPTIONS]" in out


def test_help_lists_format_and_fail_on_values():
    out = " ".join(CliRunner().invoke(app, ["scan", "--help"], env={"COLUMNS": "100"}).output.split())
    assert "--fail-on SEVERITY Exit 1 when a finding has this severity or worse: info, low, medium, high, blocker." in out
    assert "-f, --format FORMAT One of: " + ", ".join(
        f.name + (f" ({', '.join(f.aliases)})" if f.aliases else "") for f in FORMATS.values()) in out
    assert "markdown (md)" in out and "Usage: porter scan [OPTIONS] PATH" in out


def test_assess_takes_deep():
    out = CliRunner().invoke(app, ["assess", "--help"], env={"COLUMNS": "100"}).output
    assert re.search(r"^  --deep +Refine kernel facts with libclang", out, re.M)


@pytest.mark.parametrize("files", [{}, {"README.md": "# docs only\n"}], ids=["empty", "no-source"])
def test_empty_tree_assess_exits_2_scan_warns(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    a = porter_here("assess", str(tmp_path), "--no-cache")
    assert (a.returncode, a.stdout) == (2, "")
    assert a.stderr.strip() == f"error: no source files found under {tmp_path}"
    s = porter_here("scan", str(tmp_path), "--no-cache", "-q")
    assert s.returncode == 0
    assert s.stdout == "0 findings (none); 0 files scanned, 0 files with findings; 0 kernels, 0 launch sites; 0 suppressed; 0 files skipped\n"
    assert s.stderr.strip() == f"warning: no source files found under {tmp_path}"


def test_assess_deep_runs(tmp_path):
    pytest.importorskip("clang.cindex", reason="the optional extra 'deep' (libclang) is not installed")
    (tmp_path / "k.cu").write_text("__global__ void k(float* x) { x[threadIdx.x] = 1.f; }\n"
                                   "void run(float* x) { k<<<1, 64>>>(x); }\n")
    p = porter_here("assess", str(tmp_path), "--deep", "--no-cache", "-q", "-t", "mi300x")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("Mechanical (") or p.stdout.startswith("Ready (") or p.stdout.startswith("Port (")


def _entry(prelude: str, *argv: str):
    """porter.cli.entry (the `porter` script) in a fresh interpreter, after `prelude`."""
    import subprocess
    import sys

    code = f"{prelude}\nimport sys\nsys.argv = {['porter', *argv]!r}\nfrom porter.cli import entry\nentry()\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_entry_keeps_exit_status_output_and_exit_handlers():
    p = _entry("import atexit\natexit.register(lambda: print('exit handler ran'))", "--version")
    assert (p.returncode, p.stdout, p.stderr) == (0, f"porter {__version__}\nexit handler ran\n", "")
    p = _entry("", "scan", "/nonexistent-porter-path")
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == "error: /nonexistent-porter-path: no such file or directory\n"


def test_entry_runs_the_command_with_porters_collector_thresholds():
    p = _entry("import atexit, gc\natexit.register(lambda: print(gc.get_threshold()))", "--version")
    assert (p.returncode, p.stdout) == (0, f"porter {__version__}\n(50000, 10, 10)\n")


def test_modules_load_uncollected_then_the_collector_is_back_on():
    # Loading the CLI, and then the scan path's modules, leaves the collector enabled (no command runs without it)
    # and what they loaded exempt from it (frozen): the scan freezes the pipeline's modules on top of the CLI's.
    report = "import atexit, gc\natexit.register(lambda: print(gc.isenabled(), gc.get_freeze_count()))"
    p = _entry(report, "--version")
    version_line, state = p.stdout.splitlines()
    assert (p.returncode, version_line, state.split()[0]) == (0, f"porter {__version__}", "True")
    cli_frozen = int(state.split()[1])
    fixture = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "cuda-app"
    p = _entry(report, "scan", str(fixture), "--no-cache", "--jobs", "1", "-q", "-f", "json", "-o", os.devnull)
    enabled, frozen = p.stdout.split()
    assert (p.returncode, enabled) == (0, "True"), p.stderr
    assert cli_frozen > 10_000 and int(frozen) > cli_frozen


def test_entry_builds_only_the_command_it_runs_and_says_what_the_whole_app_says():
    from porter.cli import app_for

    assert [c.callback.__name__ for c in app_for(["assess"]).registered_commands] == ["assess_cmd"]
    assert app_for(["rules"]).registered_groups[0].name == "rules"
    assert app_for(["rules"]).registered_commands == []
    for argv in ([], ["--help"], ["scann"], ["--version", "scan"]):
        assert app_for(argv) is app
    import json
    import subprocess
    import sys

    argvs = (["scan", "--help"], ["scan"], ["scan", "--bogus", "x"], ["assess", "--help"], ["rules", "--help"],
             ["rules", "list", "--help"], ["translate", "--help"], ["history", "--help"], ["scann"])
    # What the whole app says: one fresh interpreter builds it and runs each command line in turn, its stdout and
    # stderr written to files of their own per command line (the entry under test runs in a process of its own
    # for each, below). A state one run left for the next would make the two sides differ: the test would fail,
    # never pass wrongly.
    full_code = (
        "import json, os, sys, tempfile\nfrom porter.cli import app\nsaid = []\n"
        f"for argv in {[list(a) for a in argvs]!r}:\n"
        "    out, err = (tempfile.TemporaryFile('w+', encoding='utf-8') for _ in range(2))\n"
        "    sys.argv, sys.stdout, sys.stderr = ['porter', *argv], out, err\n"
        "    try:\n        app(prog_name='porter')\n        code = 0\n"
        "    except SystemExit as e:\n        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)\n"
        "    for f in (out, err):\n        f.flush()\n        f.seek(0)\n"
        "    said.append([code, out.read(), err.read()])\n"
        "sys.__stdout__.write(json.dumps(said))\n")
    done = subprocess.run([sys.executable, "-c", full_code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    for argv, (code, out, err) in zip(argvs, json.loads(done.stdout), strict=True):
        assert "Usage: porter" in out + err, (argv, out, err)  # each was run and said something
        lazy = _entry("", *argv)
        assert (lazy.returncode, lazy.stdout, lazy.stderr) == (code, out, err), argv


def test_entry_leaves_the_rendered_run_to_the_end_of_the_process_and_the_app_frees_it():
    from porter.cli import base

    fixture = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "cuda-app"
    report = ("import atexit, porter.cli.base as c\n"
              "atexit.register(lambda: print([type(o).__name__ for o in c.LEFT_TO_EXIT]))")
    p = _entry(report, "scan", str(fixture), "--no-cache", "--jobs", "1", "-q", "-f", "json", "-o", os.devnull)
    assert (p.returncode, p.stdout) == (0, "['Run']\n"), p.stderr
    result = CliRunner().invoke(app, ["scan", str(fixture), "--no-cache", "--jobs", "1", "-q", "-f", "json", "-o",
                                      os.devnull])
    assert (result.exit_code, base.LEFT_TO_EXIT) == (0, [])


def test_entry_with_a_thread_alive_ends_as_the_interpreter_would():
    # The thread prints once the main thread has ended (not after a fixed sleep, which a loaded machine outruns):
    # the line shows only if the process waits for the thread, as the interpreter does.
    prelude = ("import threading\n"
               "main = threading.main_thread()\n"
               "threading.Thread(target=lambda: (main.join(), print('thread finished', flush=True))).start()")
    p = _entry(prelude, "--version")
    assert (p.returncode, p.stdout) == (0, f"porter {__version__}\nthread finished\n")


def test_bare_pytest_finds_the_test_helpers(tmp_path):
    # `pytest` (not `python -m pytest`) from another directory: only pyproject's pythonpath puts the checkout on
    # sys.path for `from tests.helpers import ...`.
    import subprocess
    import sys

    test = Path(__file__).resolve().parent / "test_cli_conventions.py"
    code = "import sys, pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', sys.argv[1], '-k', 'dash_h']))"
    p = subprocess.run([sys.executable, "-c", code, str(test)], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300, env={**os.environ, "PYTHONPATH": ""})
    assert p.returncode == 0, p.stdout[-2000:]
    assert "1 passed" in p.stdout
