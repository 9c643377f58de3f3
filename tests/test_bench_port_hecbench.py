"""bench/port's HeCBench harness helpers on a tiny written tree: which sibling folders a benchmark's scratch copy
needs, and when a cached compile timeout is compiled again (a timeout is no verdict on the code)."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "bench" / "port" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


H = _load("hecbench")
C = sys.modules["compiling"]


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_sibling_dirs_follow_flags_and_relative_includes(tmp_path):
    src = tmp_path / "src"
    _write(src, {
        "app-cuda/Makefile": "CFLAGS = -I../shared-cuda -I../gone-cuda\n",
        "app-cuda/main.cu": '#include "../app-sycl/src/basic/mask.h"\n#include "sub/k.cuh"\n',
        # ../k.h from sub/ stays inside app-cuda: no sibling
        "app-cuda/sub/k.cuh": '#include "../k.h"\n#include "../../util-cuda/u.h"\n',
        "app-cuda/k.h": "int k;\n",
        "app-sycl/src/basic/mask.h": "int m;\n",
        "shared-cuda/s.h": "int s;\n",
        "util-cuda/u.h": "int u;\n",
        "include/common.h": "int c;\n",
        "other-cuda/o.h": "int o;\n",
    })
    flags = H.make_flags(src / "app-cuda")
    assert flags == ["-I../shared-cuda", "-I../gone-cuda"]
    # gone-cuda does not exist; other-cuda is read by nothing
    assert H.sibling_dirs(src, "app", flags) == ["include", "shared-cuda", "app-sycl", "util-cuda"]


def _cache_entry(monkeypatch, tmp_path, limit: int | None) -> tuple[Path, Path]:
    """A cached timeout for `hipcc a.cu` in tmp_path/w, written where compile_unit looks for it."""
    monkeypatch.setattr(C, "CACHE", tmp_path / "cache")
    work = tmp_path / "w"
    _write(work, {"a.cu": "__global__ void k() {}\n"})
    cmd = [C.HIPCC, f"--offload-arch={C.HIP_ARCH}", "--cuda-device-only", "-O0", "-w", "-c", "a.cu"]
    key = hashlib.sha256(json.dumps(["t", cmd, str(work), C.tree_digest([work])]).encode()).hexdigest()
    entry = tmp_path / "cache" / key[:2] / f"{key}.json"
    entry.parent.mkdir(parents=True)
    doc = {"status": "timeout", "first_error": "timeout after 120s", "missing_header": None, "seconds": 121.0}
    if limit is not None:
        doc["timeout_s"] = limit
    entry.write_text(json.dumps(doc))
    return work, entry


def test_a_cached_timeout_stands_when_the_caller_allows_no_more_time(monkeypatch, tmp_path):
    work, _ = _cache_entry(monkeypatch, tmp_path, 600)
    monkeypatch.setenv("BENCH_CACHED_ONLY", "1")
    res = C.compile_unit("hipcc", Path("a.cu"), work, [], [work], "t", timeout=600)
    assert (res.status, res.first_error) == ("timeout", "timeout after 120s")


def test_a_cached_timeout_with_less_time_is_compiled_again(monkeypatch, tmp_path):
    # an entry without timeout_s had the old 120 s limit; asked for 600 s it is not a verdict, so it is re-run
    # (BENCH_CACHED_ONLY turns that re-run into "not-run" instead of compiling)
    work, _ = _cache_entry(monkeypatch, tmp_path, None)
    monkeypatch.setenv("BENCH_CACHED_ONLY", "1")
    assert C.compile_unit("hipcc", Path("a.cu"), work, [], [work], "t", timeout=600).status == "not-run"
    assert C.compile_unit("hipcc", Path("a.cu"), work, [], [work], "t", timeout=120).status == "timeout"


def _failed(err: str, header: str | None = None) -> dict:
    return {"status": "failed", "first_error": err, "missing_header": header, "seconds": 1.0}


def test_attribution_names_the_hip_gap_the_prediction_and_the_defect(tmp_path):
    row = {"port": {"open": ["API002 src/nobench-cuda/main.cu:156"]}, "port_hipcc": {"units": {
        "a.cu": _failed("a.cu:10:10: fatal error: 'hip/hip_bf16.h' file not found", "hip/hip_bf16.h"),
        "main.cu": _failed("main.cu:158:21: error: use of undeclared identifier '__vmaxs4'"),
        "z.cu": _failed("z.cu:7:3: error: use of undeclared identifier '__syncwarp'"),
        "ok.cu": {"status": "compiled", "first_error": None, "missing_header": None, "seconds": 1.0}}}}
    got = {j["unit"]: (j["cause"], j.get("predicted_by")) for j in H.attribute(tmp_path, "nobench", row, "port_hipcc")}
    assert got == {"a.cu": ("hip-5.2-gap", None),
                   "main.cu": ("predicted", ["API002 src/nobench-cuda/main.cu:156"]),
                   "z.cu": ("defect", None)}
