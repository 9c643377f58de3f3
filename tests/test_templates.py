"""Issue 27 class 8: a member template called on a dependent object without `template` (DEV019). The fixture is
compiled with the real compilers: hip-clang (clang-19 as HIP) rejects exactly the lines DEV019 reports, nvcc accepts
the whole file."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import porter_here

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "rules" / "DEV019-dependent-template-call.cu"


def dev019_lines() -> list[int]:
    res = porter_here("scan", str(FIXTURE), "--format", "json", "--no-cache", "--isolated", "-j", "1")
    assert res.returncode == 0, res.stderr
    return [f["line"] for f in json.loads(res.stdout)["findings"] if f["rule"] == "DEV019"]


def test_dev019_reports_the_four_dependent_calls_and_names_the_fix():
    assert dev019_lines() == [14, 20, 27, 52]
    res = porter_here("scan", str(FIXTURE), "--format", "json", "--no-cache", "--isolated", "-j", "1")
    messages = {f["line"]: f["message"] for f in json.loads(res.stdout)["findings"] if f["rule"] == "DEV019"}
    assert messages[20] == ("l->load<...> calls a member template on an object whose type depends on template "
                            "parameter L: hip-clang rejects it (\"missing 'template' keyword prior to dependent "
                            "template name\"); write l->template load<...>.")


def test_hip_clang_rejects_exactly_the_reported_lines(tmp_path):
    clang = shutil.which("clang++-19")
    if clang is None or not Path("/usr/include/hip/hip_runtime.h").exists():
        pytest.skip("needs clang++-19 (Debian clang-19) and HIP's headers in /usr/include/hip (libamdhip64-dev)")
    res = subprocess.run([clang, "-x", "hip", "--offload-arch=gfx942", "--cuda-device-only", "-nogpulib",
                          "-fsyntax-only", "-include", "hip/hip_runtime.h", str(FIXTURE)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    errors = sorted(int(m.group(1)) for m in re.finditer(
        r":(\d+):\d+: error: missing 'template' keyword prior to dependent template name", res.stderr))
    assert res.returncode != 0 and errors == dev019_lines() == [14, 20, 27, 52], res.stderr


def test_nvcc_accepts_the_file(tmp_path):
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("needs nvcc (the CUDA toolkit; docs/toolchains.md)")
    res = subprocess.run([nvcc, "-c", str(FIXTURE), "-o", str(tmp_path / "k.o")], capture_output=True, text=True,
                         timeout=600, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
