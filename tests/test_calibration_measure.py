"""bench/calibration/measure.py on a real git repository: what counts as a port's authored lines (the reference of
the effort calibration) — renames hipify would make are not authored, nor are instantiations of one family."""
from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _measure():
    spec = importlib.util.spec_from_file_location("measure", REPO / "bench" / "calibration" / "measure.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                          capture_output=True, text=True).stdout.strip()


def _commit(root: Path, files: dict[str, str], message: str) -> str:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", message)
    return _git(root, "rev-parse", "HEAD")


def test_a_vendor_neutral_rename_and_a_family_of_instances_are_not_authored_lines(tmp_path):
    m = _measure()
    _git(tmp_path, "init", "-q")
    body = "".join(f"  x[{i}] += {i};\n" for i in range(8))
    pre = _commit(tmp_path, {"src/force.cu": "#include <cuda_runtime.h>\nvoid f(float* x) {\n" + body
                             + "  CUDA_CHECK_KERNEL\n  cudaMalloc(&x, 4);\n  cublasSgemm(h);\n}\n"}, "pre-port")
    instance = ("/*\n * Copyright (c) the authors.\n * Licensed under the BSD license.\n */\n#include <ck/ck.hpp>\n"
                "#include \"fmha.h\"\n\ntemplate void run<ck::{t}, {m}, {k}>(Params& p, hipStream_t s);\n")
    files = {"src/force.cu": "#include \"gpu_macro.cuh\"\nvoid f(float* x) {\n" + body
             + "  GPU_CHECK_KERNEL\n  gpuMalloc(&x, 4);\n  hipblasSgemm(h);\n}\n",
             "src/gpu_macro.cuh": "#define gpuMalloc hipMalloc\n#define GPU_CHECK_KERNEL check();\n"}
    for n, (t, mask, k) in enumerate([("half_t", "true", 64), ("bf16_t", "true", 64), ("half_t", "false", 128)]):
        files[f"src/instances/inst_{n}.cpp"] = instance.format(t=t, m=mask, k=k)
    port = _commit(tmp_path, files, "port")
    gd = str(tmp_path / ".git")
    # force.cu: only its include line differs once gpu*/cuda*/hip* and cuBLAS/hipBLAS are one spelling (1 added,
    # 1 deleted); gpu_macro.cuh is written (2); the first instance counts in full (8 lines), each further one the
    # line that differs from its closest sibling (1 + 1)
    assert m.lines(gd, pre, port) == (1 + 2 + 8 + 1 + 1, 1, 5)
    assert m._normal("GPU_CHECK_KERNEL") == m._normal("CUDA_CHECK_KERNEL")
    assert m._normal("rocblas_sgemm(h)") == m._normal("cublas_sgemm(h)") == m._normal("hipblas_sgemm(h)")
    assert m._normal("cudaMalloc(&x, 4);") != m._normal("cudaFree(x);")
