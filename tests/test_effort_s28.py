"""Session 28's effort mechanisms: a second backend written beside the CUDA one.

- A run-time-loaded driver table (`drv->cuInit (0)` through pointers the project fills with dlsym) is a HIP backend to
  write, priced per call site through the table (`write-loaded-driver-backend`).
- A per-backend implementation directory (`Cuda/` beside `OpenMP/` and `Serial/` with the same files) gets a HIP twin,
  priced per file (`twin-backend-directories`).

The fixtures are under fixtures/effort_s28 (written here); the model is the shipped one with its calibration set to 1,
so the hours are the model's own numbers.
"""
from __future__ import annotations

from dataclasses import replace

from helpers import REPO
from porter.estimate.assess import assess
from porter.estimate.cost import backend_twin_files
from porter.estimate.effort_model import EffortModel, Hours, load_effort_model, merge
from porter.estimate.inputs import member_call
from porter.model import FileResult
from porter.pipeline import run
from porter.settings import Settings
from porter.targets import load_targets, select_targets

UNSCALED = EffortModel(merge(load_effort_model().data, {"calibration": {"scale": {"kernel": 1, "finding": 1, "one-off": 1}}}))
FIXTURES = REPO / "fixtures" / "effort_s28"
TWINS = {"names": "(?i)^cuda$", "hours": [0.25, 0.5, 1.5], "min_share": 0.5, "languages": ["c", "cpp", "cuda"]}


def scan(name):
    return run(FIXTURES / name, Settings(jobs=1, targets=("mi355x",))).result


def priced(result):
    return assess(result, select_targets(["mi355x"], load_targets()), model=UNSCALED)


def items(a):
    return {i.id: i for i in a.items}


def test_calls_through_a_loaded_driver_table_are_a_backend_priced_per_call_site():
    result = scan("loader")
    # the scan reports the types and constants of a line (CUDA_SUCCESS), not the member it calls: the line names it
    called = sorted((f.line, member_call(f)) for f in result.findings if member_call(f))
    assert called == [(22, "cuInit"), (23, "cuDeviceGet"), (24, "cuCtxCreate"), (25, "cuMemAlloc"), (26, "cuMemFree"),
                      (27, "cuCtxDestroy"), (28, "cuCtxCreate")]
    assert {f.path for f in result.findings if member_call(f)} == {"src/drv.c"}
    job = items(priced(result))["one-off:write-loaded-driver-backend"]
    # 2–4–12 h + 0.25–0.5–1.5 h × 7 call sites (cuCtxCreate is called twice: two HIP arms), not × 6 distinct names
    assert job.hours == Hours(3.75, 7.5, 22.5)
    assert "× 7 call site(s) of 6 name(s) through the table" in job.basis
    # the names are still mapped once each: the header job stays, beside it
    assert "one-off:map-cuda-names" in items(priced(result))


def test_a_table_needs_five_names_and_a_call_through_an_object():
    result = scan("loader")
    # keep the calls of two names only (cuInit, cuDeviceGet): an object with a cuInit member is not a driver table
    few = replace(result, findings=tuple(f for f in result.findings
                                         if member_call(f) is None or f.line in (22, 23)))
    assert "one-off:write-loaded-driver-backend" not in items(priced(few))
    # the struct's members and the typedefs are declarations, not calls: drv_table.h alone fires nothing
    header = replace(result, findings=tuple(f for f in result.findings if f.path == "include/drv_table.h"))
    assert "one-off:write-loaded-driver-backend" not in items(priced(header))


def test_a_cuda_backend_directory_beside_its_siblings_is_priced_per_file_to_twin():
    result = scan("backends")
    assert backend_twin_files(result.files, TWINS) == ("src/impl/Cuda/Convert.hpp", "src/impl/Cuda/Multiply.hpp")
    job = items(priced(result))["one-off:twin-backend-directories"]
    assert job.hours == Hours(1.5, 3, 9)  # 1–2–6 h + 0.25–0.5–1.5 h × 2 files
    assert "× 2 file(s) to twin in 1 backend directory (src/impl/Cuda/)" in job.basis


def test_twins_need_namesakes_cuda_content_and_no_torch_build():
    def files(*paths, includes=()):
        return tuple(FileResult(p, "python" if p.endswith(".py") else "cuda", 10, includes=includes) for p in paths)

    result = scan("backends")
    # a sibling with fewer than half of the CUDA directory's file names is another component, not an execution space
    apart = files("src/impl/Cuda/Multiply.hpp", "src/impl/Cuda/Convert.hpp", "src/impl/Cuda/Sort.hpp",
                  "src/impl/OpenMP/Multiply.hpp")
    assert backend_twin_files(apart, TWINS) == ()
    # Python backends (bitsandbytes' backends/cuda/ops.py beside backends/cpu/ops.py) are not C/C++/CUDA twins
    assert backend_twin_files(files("pkg/backends/cuda/ops.py", "pkg/backends/cpu/ops.py"), TWINS) == ()
    # without CUDA content in any of its files (no finding, kernel or launch) the directory is not the CUDA backend
    assert backend_twin_files(files("src/impl/Cuda/Multiply.hpp", "src/impl/OpenMP/Multiply.hpp"), TWINS) == ()
    # a PyTorch extension's csrc/cuda/ beside csrc/cpu/ is hipified into a twin by its build: no job
    torch = tuple(replace(f, includes=(("torch/extension.h", False),)) if f.path.endswith("Multiply.hpp") else f
                  for f in result.files)
    assert "one-off:twin-backend-directories" not in items(priced(replace(result, files=torch)))
