"""Wording from data: each library's kind decides its advice sentence, and counts count what they say."""
from __future__ import annotations

from porter.estimate.advice import kind_advice
from porter.pipeline import run
from porter.settings import Settings


def assess_dir(path, *ids):
    r = run(path, Settings(jobs=1, cache_dir=None, targets=tuple(ids)), assess=True)
    return r.result, r.assessment


def library_recs(a):
    return {r.id: r.text.split(". ", 1)[0] + "." for r in a.recommendations if r.kind == "library"}


def test_advice_follows_the_library_kind():
    assert kind_advice("cuda-library", "drop-in") == "Drop-in: hipify renames the calls; link the ROCm library instead"
    assert kind_advice("python-library", "drop-in") == (
        "Drop-in: install the package's ROCm build; the imports stay as they are")
    assert kind_advice("serving", "none") == "No ROCm build: serve the model with a ROCm serving stack instead"
    assert kind_advice("binary-format", "none").startswith("NVIDIA-only file: rebuild it")


def test_python_packages_are_not_told_to_hipify(tmp_path):
    (tmp_path / "train.py").write_text("import triton\nimport apex\nimport deepspeed\nimport torch\n")
    (tmp_path / "k.cu").write_text('#include <cublas_v2.h>\nvoid f(cublasHandle_t h) { cublasCreate(&h); }\n')
    _, a = assess_dir(tmp_path, "mi300x")
    recs = library_recs(a)
    assert recs["library:apex"] == "Drop-in: install the package's ROCm build; the imports stay as they are."
    assert "library:triton" not in recs  # Triton's AMD backend runs the same imports: no library item (LIB007)
    assert "library:deepspeed" not in recs  # DeepSpeed hipifies its own ops on ROCm PyTorch: no item either
    assert recs["library:cublas"] == "Drop-in: hipify renames the calls; link the ROCm library instead."


def test_the_scanned_project_is_not_its_own_dependency(tmp_path):
    (tmp_path / "bitsandbytes").mkdir()
    (tmp_path / "bitsandbytes" / "__init__.py").write_text("from bitsandbytes.functional import f\nimport apex\n")
    (tmp_path / "bitsandbytes" / "functional.py").write_text("import bitsandbytes\nimport torch\n")
    _, a = assess_dir(tmp_path, "mi300x")
    assert [lib.id for lib in a.breakdowns.by_library] == ["apex"]
    assert "library:bitsandbytes" not in library_recs(a)
