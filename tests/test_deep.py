"""Deep mode (--deep): libclang resolves what tree-sitter cannot, and says so when it is not set up."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from porter.settings import Settings
from porter.kernels import deep
from porter.kernels.verdicts import analyse
from porter.model.kernel import Unresolved
from porter.pipeline import scan

from conftest import FIXTURES

HEADER_FIXTURE = FIXTURES / "kernels" / "deep_header.cu"


def _scan():
    return scan(HEADER_FIXTURE.parent, Settings(jobs=1, cache_dir=None, include=("deep_header.cu",)))


def _kernel(result, name="header_sized"):
    (k,) = [k for k in result.kernels if k.name == name]
    return k


def test_without_deep_the_header_constant_stays_unknown_with_its_reason():
    k = _kernel(analyse(_scan(), ["mi300x"]))
    assert k.facts.shared_memory.static_bytes is None
    assert k.facts.unknown[0] == Unresolved("__shared__ stage_buf", "`kStageElems` is not a constant defined in this file")
    # unknown, yet bounded by CUDA's 48 KiB limit on static shared memory, which MI300X's 64 KiB LDS holds
    assert k.verdict_on("mi300x").verdict == "ok"
    assert k.verdict_on("mi300x").reasons == ()


@pytest.mark.slow
@pytest.mark.usefixtures("libclang")
def test_deep_mode_resolves_a_size_from_another_header():
    result = analyse(_scan(), ["mi300x", "mi455x"], deep=True)
    k = _kernel(result)
    shared = k.facts.shared_memory
    # the header constant folds in the re-measure, so no libclang size (and no "sized by" reason) was needed
    assert (shared.arrays[0].bytes, shared.arrays[0].reason) == (12 * 1024 * 4, None)
    assert shared.static_bytes == 49152
    assert (k.facts.deep.resolved, k.facts.deep.still_unknown) == (("__shared__ stage_buf",), ())
    assert k.facts.deep.constants_from == ("include/tile_config.h",)
    assert {v.target: v.verdict for v in k.verdicts} == {"mi300x": "ok", "mi455x": "ok"}
    info = result.kernel_analysis.deep
    assert info["setup"]["available"] and info["files"] == 1 and info["kernels"] == 1
    assert info["seconds_per_kernel"] > 0


def test_unavailable_deep_mode_lists_what_stayed_unknown(monkeypatch):
    monkeypatch.setattr(deep, "_CONFIG", deep.DeepConfig(False, "libclang is not installed"))
    result = analyse(_scan(), ["mi300x"], deep=True)
    info = result.kernel_analysis.deep
    assert info["note"] == "deep mode unavailable (libclang is not installed); these values stayed unknown"
    assert {"kernel": "header_sized", "path": "deep_header.cu", "what": "__shared__ stage_buf",
            "reason": "`kStageElems` is not a constant defined in this file"} in info["unresolved"]
    assert _kernel(result).verdict_on("mi300x").verdict == "ok"  # within CUDA's 48 KiB static limit


def test_cli_deep_flag(monkeypatch):
    from porter.cli import app

    monkeypatch.setattr(deep, "_CONFIG", deep.DeepConfig(False, "libclang is not installed"))
    res = CliRunner().invoke(app, ["scan", str(HEADER_FIXTURE), "--deep", "--format", "json", "--no-cache"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["kernel_analysis"]["deep"]["setup"]["available"] is False


def test_deep_setup_removes_its_stub_headers_when_the_process_ends(tmp_path):
    """setup() writes stub headers to a temporary directory for libclang; a process (a scan, a worker) that used
    deep mode must not leave that directory behind."""
    import os
    import subprocess
    import sys

    if not deep.setup().available:
        pytest.skip(f"needs libclang: {deep.setup().reason}")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    code = "from porter.kernels import deep; import os, sys; c = deep.setup(); print(sorted(os.listdir(sys.argv[1])))"
    r = subprocess.run([sys.executable, "-c", code, str(scratch)], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "TMPDIR": str(scratch)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().startswith("['porter-deep-")  # it was there while the process ran
    assert sorted(p.name for p in scratch.iterdir()) == []
