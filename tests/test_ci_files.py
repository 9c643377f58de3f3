"""action.yml and .pre-commit-hooks.yaml, checked by the tools their users run: check-jsonschema's vendored GitHub
Actions schema, `pre-commit validate-manifest`, and the hook itself run by `pre-commit try-repo` on a temp repository."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers import NEEDS, REPO, git, make_repo, porter_here

BIN = Path(sys.executable).parent
ACTION = REPO / "action.yml"


def tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        pytest.skip(f"needs {name} from the test extras (pip install -e '.[test]')")
    return str(path)


def test_action_matches_the_github_actions_schema():
    p = subprocess.run([tool("check-jsonschema"), "--builtin-schema", "vendor.github-actions", str(ACTION)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "ok -- validation done" in p.stdout


def test_action_schema_check_can_fail():
    broken = yaml.safe_load(ACTION.read_text())
    broken["runs"]["using"] = "composite-ish"
    path = REPO / ".pytest-broken-action.yml"
    try:
        path.write_text(yaml.safe_dump(broken))
        p = subprocess.run([tool("check-jsonschema"), "--builtin-schema", "vendor.github-actions", str(path)],
                           capture_output=True, text=True, timeout=120)
    finally:
        path.unlink(missing_ok=True)
    assert p.returncode == 1


def test_action_inputs_reach_scripts_only_through_env():
    action = yaml.safe_load(ACTION.read_text())
    steps = action["runs"]["steps"]
    assert action["runs"]["using"] == "composite"
    scripts = [s["run"] for s in steps if "run" in s]
    assert len(scripts) == 4
    for script in scripts:
        assert "${{" not in script, script  # an expression in a script is shell injection from a PR's text
    scan = next(s for s in steps if s.get("id") == "scan")
    assert "--isolated --new-since" in scan["run"]
    assert scan["env"]["INPUT_BASE"] == "${{ inputs.base }}"
    assert action["inputs"]["base"]["default"] == "${{ github.event.pull_request.base.sha }}"
    assert not any("actions/checkout" in s.get("uses", "") for s in steps)  # never checks out PR code itself


def test_pre_commit_manifest_is_valid():
    p = subprocess.run([tool("pre-commit"), "validate-manifest", str(REPO / ".pre-commit-hooks.yaml")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert [(h["id"], h["entry"], h["language"]) for h in hooks] == [("porter", "porter check", "python")]


def test_pre_commit_manifest_check_can_fail(tmp_path):
    bad = tmp_path / "hooks.yaml"
    bad.write_text("- id: porter\n  entry: porter check\n")  # no name, no language
    p = subprocess.run([tool("pre-commit"), "validate-manifest", str(bad)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1


@pytest.mark.slow
def test_hook_runs_on_the_staged_files(tmp_path):
    pre_commit = tool("pre-commit")
    if shutil.which("git") is None:
        pytest.skip(NEEDS["git"])
    # pre-commit installs the hook repository (a clone of this checkout, uncommitted changes included) into its
    # own virtualenv with pip, as a user's machine does.
    repo = make_repo(tmp_path / "user", {
        "clean.cu": "__global__ void k(float *x) { x[threadIdx.x] = 0; }\n",
        "README.md": "asm volatile is fine in prose\n",
    })
    (repo / "bad.cu").write_text("__global__ void v(unsigned *o) {\n"
                                 "    o[0] = __ballot_sync(0xffffffff, 1);\n}\n")
    (repo / "unstaged.cu").write_text('__device__ void f() { asm("trap;"); }\n')
    git(repo, "add", "bad.cu")
    # PIP_COMPILE=0 (pip's --no-compile; PIP_NO_COMPILE=1 would turn compiling *on*, pip reads a "no-" option's
    # variable as the option's value): pip does not byte-compile porter and its ~30 dependencies into the hook's
    # virtualenv (6-7 of the install's ~19 CPU-s, measured); the hook's one run compiles only the modules it imports
    # (+0.3 CPU-s). What is installed, from where, and what the hook prints are the same.
    # PIP_NO_BUILD_ISOLATION=0 (pip's --no-build-isolation, read the same inverted way): porter's wheel is built with
    # the setuptools virtualenv seeds into the hook's environment instead of one pip first downloads into a fresh
    # build environment (10.2 → 7.6 CPU-s and 19 → 11 s for this test, measured); the wheel and the hook are the same.
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PRE_COMMIT_COLOR": "never",
           "PIP_COMPILE": "0", "PIP_NO_BUILD_ISOLATION": "0"}
    staged = git(repo, "diff", "--cached", "--name-only").split()
    assert staged == ["bad.cu"]
    p = subprocess.run([pre_commit, "try-repo", str(REPO), "porter", "--files", *staged], cwd=repo, env=env,
                       capture_output=True, text=True, timeout=900)
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    reported = re.findall(r"^(\S+:\d+:\d+): (\w+) \[(\w+)\]", out, re.M)
    # one finding per spot: the 32-bit mask (DEV002) says more than "same name in HIP" (API004) on that shuffle
    assert reported == [("bad.cu:1:17", "KRN001", "info"), ("bad.cu:2:12", "DEV002", "high")]
    # The entry itself: a file with only informational findings passes, the threshold is an argument (in this
    # process: pre-commit above already ran it as the hook's own process).
    p = porter_here("check", "clean.cu", cwd=repo)
    assert (p.returncode, p.stdout.split(": ", 1)[0]) == (0, "clean.cu:1:17"), p.stderr
    p = porter_here("check", "clean.cu", "--fail-on", "info", cwd=repo)
    assert p.returncode == 1, p.stderr
