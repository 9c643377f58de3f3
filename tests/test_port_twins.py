"""Port status of a project that already builds for ROCm (issue 28): a CUDA-named class with a HIP-named twin, a
forward-declared CUDA library type, and a CI that already has an AMD GPU runner are no porting items. The shapes are
ginkgo's (CudaExecutor / HipExecutor and include/ginkgo/core/base/fwd_decls.hpp; CusparseBase / HipsparseBase in its
benchmark linops; .gitlab-ci.yml's NVIDIA coverage job beside `amd-gpus` runners)."""
from __future__ import annotations

from porter.portaware.runners import amd_runner_line
from porter.portaware.twins import class_spans, class_twins, forward_declarations, hip_spellings

FWD = """\
#pragma once

struct cublasContext;

struct cusparseContext;

struct cudaDeviceProp;
"""

EXECUTOR = """\
#pragma once
#include <memory>
#include "fwd.hpp"

template <typename T>
using handle_manager = std::unique_ptr<T, void (*)(T*)>;

class CudaExecutor {
public:
    cublasContext* get_blas_handle() const { return blas_.get(); }

private:
    handle_manager<cusparseContext> sparse_;
    handle_manager<cublasContext> blas_;
};

class HipExecutor {
public:
    hipblasContext* get_blas_handle() const { return blas_.get(); }

private:
    handle_manager<hipblasContext> blas_;
};

class CudaTimer {
    cublasContext* handle_;
};

int major_of(const cudaDeviceProp& p);
int prop_size() { return sizeof(cudaDeviceProp); }
"""

CUDA_LINOPS = """\
#include <cusparse.h>

class CusparseBase {
    cusparseMatDescr* descr_;
};

cusparseMatDescr* orphan_descr;
"""

HIP_LINOPS = """\
#include <hipsparse/hipsparse.h>

class HipsparseBase {
    hipsparseMatDescr* descr_;
};
"""

WORKFLOW = """\
name: gpu
on: [push]
jobs:
  nvidia:
    runs-on: [self-hosted, gpu-a100]
    steps:
      - run: ctest
  amd:
    runs-on:
      - self-hosted
      - mi300x
    steps:
      - run: ctest
"""


def _write(root, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def _statuses(root):
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(root, Settings(jobs=1, cache_dir=None)).result
    return [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings]


def test_twin_classes_forward_declarations_and_an_amd_runner_are_handled(tmp_path):
    _write(tmp_path, {"include/fwd.hpp": FWD, "include/executor.hpp": EXECUTOR, "bench/cuda_linops.cpp": CUDA_LINOPS,
                      # in a folder of its own: beside cuda_linops.cpp it would be that file's twin (source_twins),
                      # handling every line, and the class twin would not be what decides
                      "bench/hip/hip_linops.hip.cpp": HIP_LINOPS, ".github/workflows/gpu.yml": WORKFLOW})
    assert _statuses(tmp_path) == [
        # the NVIDIA job's CI already runs a job on an MI300X runner (line 11): its twin job `amd` (line 8, session 26
        # nu: a CUDA-named job beside its ROCm-named twin, runners.ci_job_twins)
        (".github/workflows/gpu.yml", 5, "CTR007", "handled", ".github/workflows/gpu.yml:8"),
        # the include is outside the class: open
        ("bench/cuda_linops.cpp", 1, "API005", "open", None),
        ("bench/cuda_linops.cpp", 1, "LIB001", "open", None),
        # inside CusparseBase, whose twin HipsparseBase is in the other file
        ("bench/cuda_linops.cpp", 4, "API002", "handled", "bench/hip/hip_linops.hip.cpp:3"),
        # outside any class, and cusparseMatDescr is not forward-declared: open
        ("bench/cuda_linops.cpp", 7, "API002", "open", None),
        # inside CudaExecutor: API002 is breaks-build (session 27), and a twin class in the same file is compiled by
        # the ROCm build too, so HipExecutor (line 17) is no evidence; the forward declarations the ROCm build
        # compiles against are (a pointer or a unique_ptr member to a declared type needs no cuBLAS header)
        ("include/executor.hpp", 10, "API002", "handled", "include/fwd.hpp:3"),
        ("include/executor.hpp", 13, "API002", "handled", "include/fwd.hpp:5"),
        ("include/executor.hpp", 14, "API002", "handled", "include/fwd.hpp:3"),
        # CudaTimer has no HipTimer; the pointer to a forward-declared type compiles without cuBLAS
        ("include/executor.hpp", 26, "API002", "handled", "include/fwd.hpp:3"),
        # a reference to a declared type: handled; sizeof needs the whole type, so line 30 stays open
        ("include/executor.hpp", 29, "API001", "handled", "include/fwd.hpp:7"),
        ("include/executor.hpp", 30, "API001", "open", None),
        # the forward declarations themselves
        ("include/fwd.hpp", 3, "API002", "handled", "include/fwd.hpp:3"),
        ("include/fwd.hpp", 5, "API002", "handled", "include/fwd.hpp:5"),
        ("include/fwd.hpp", 7, "API001", "handled", "include/fwd.hpp:7"),
    ]


def test_without_the_twins_and_the_amd_runner_the_same_lines_stay_open(tmp_path):
    # The same CUDA files with no HIP class, no forward declaration and only the NVIDIA job.
    _write(tmp_path, {"include/executor.hpp": EXECUTOR.replace("class HipExecutor", "class OmpExecutor"),
                      "bench/cuda_linops.cpp": CUDA_LINOPS,
                      ".github/workflows/gpu.yml": WORKFLOW.split("  amd:")[0]})
    got = _statuses(tmp_path)
    assert [(p, n, r) for p, n, r, s, _ in got if s != "open"] == []
    assert [(p, n, r) for p, n, r, _, _ in got if r in ("API002", "CTR007")] == [
        (".github/workflows/gpu.yml", 5, "CTR007"),
        ("bench/cuda_linops.cpp", 4, "API002"), ("bench/cuda_linops.cpp", 7, "API002"),
        ("include/executor.hpp", 10, "API002"), ("include/executor.hpp", 13, "API002"),
        ("include/executor.hpp", 14, "API002"), ("include/executor.hpp", 26, "API002")]


def test_class_spans_forward_declarations_and_hip_spellings():
    assert class_spans(EXECUTOR.encode()) == (("CudaExecutor", 8, 15), ("HipExecutor", 17, 23), ("CudaTimer", 25, 27))
    # braces in comments and strings do not end a class; an export macro before the name is read past
    text = b'class GKO_API CudaThing : public Base<int> {\n  // }\n  const char* s = "}";\n};\nstruct Plain { };\n'
    assert class_spans(text) == (("CudaThing", 1, 4),)
    assert forward_declarations(FWD.encode()) == ((3, "cublasContext"), (5, "cusparseContext"), (7, "cudaDeviceProp"))
    assert hip_spellings("CudaExecutor") == ["HipExecutor"]
    assert hip_spellings("CusparseBase") == ["HipsparseBase"]
    assert hip_spellings("gpuCudaTimer") == ["gpuHipTimer"]
    assert hip_spellings("Accumulator") == []  # `cu` inside a word is no CUDA word
    # the twin in the same file wins over a test fixture of the same name elsewhere
    got = class_twins([("a/executor.hpp", "CudaExecutor", 8, 15), ("a/executor.hpp", "HipExecutor", 17, 23),
                       ("a/test/hip_executor.hip.cpp", "HipExecutor", 5, 9), ("a/x.hpp", "CudaTimer", 1, 3)])
    assert got == {"a/executor.hpp": [(8, 15, "a/executor.hpp:17")]}


def test_amd_runner_labels():
    gitlab = ".use_rocm:\n  image: rocm/dev\n  tags:\n    - private_ci\n    - amd-gpus-mi210\n"
    assert amd_runner_line(gitlab) == 5
    assert amd_runner_line("jobs:\n  t:\n    runs-on: [self-hosted, MI300X]\n") == 3
    assert amd_runner_line("jobs:\n  t:\n    runs-on: [self-hosted, linux-amd64, gpu]\n") is None  # a CPU arch
    assert amd_runner_line("jobs:\n  t:\n    runs-on: ubuntu-latest\n    env:\n      - amd\n") is None  # not a label
    assert amd_runner_line("build:\n  tags:\n  - cuda\nother:\n  - rocm\n") is None  # the list ended
