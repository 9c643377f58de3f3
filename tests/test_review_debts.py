"""Exact tests for session 15's review debts: each shared table or mechanism gives the same answer from every
reader (the dynamic-shared-memory opt-in names, the enclosing function of DEV038's mask parameter, GitTree's link
targets, port's symlinked copies, LIB014's project headers)."""
from __future__ import annotations

from pathlib import Path

from porter.pipeline import scan
from porter.settings import Settings


def _scan(tree: Path):
    return scan(tree, Settings(jobs=1, cache_dir=None))


def test_driver_api_opt_in_alone_is_measured(tmp_path):
    # The facts' pre-test looked for the runtime attribute's name only, so a file naming only the driver API's
    # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES was never read for its opt-in (the call loop accepted it).
    (tmp_path / "k.cu").write_text(
        "__global__ void k(float* out) {\n"
        "  extern __shared__ float s[];\n"
        "  s[threadIdx.x] = 1.0f;\n"
        "  out[threadIdx.x] = s[threadIdx.x];\n"
        "}\n"
        "void setup() {\n"
        "  cudaFuncSetAttribute(k, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 96 * 1024);\n"
        "}\n")
    [k] = _scan(tmp_path).kernels
    assert k.facts.shared_memory.max_dynamic_attribute == 96 * 1024


_MASKED = ("__global__ void k(float* v) {\n  float x = v[threadIdx.x];\n"
           "  x += __shfl_xor_sync(0xffffffff, x, 1);\n  v[threadIdx.x] = x;\n}\n")


def _port_summary(repo: Path) -> dict:
    import json

    from tests.helpers import porter_here

    p = porter_here("port", str(repo), "--summary", "-")
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


def test_port_reports_a_symlinked_copy_once_where_the_file_lies(tmp_path):
    # src/b.cu -> a.cu and lib/ -> src/: the scan reads a.cu three times; the port widens its mask once, in a.cu,
    # and lists no open DEV002 (nor a skip) for the copies. A link to a file the scan does not hold stays reported.
    from tests.helpers import git, make_repo

    repo = make_repo(tmp_path / "r", {"src/a.cu": _MASKED, "elsewhere/d.cu": _MASKED}, commit=False)
    (repo / "src" / "b.cu").symlink_to("a.cu")
    (repo / "lib").symlink_to("src")
    (repo / "porter.toml").write_text('[tool.porter]\nexclude = ["elsewhere/**"]\n')
    (repo / "src" / "e.cu").symlink_to("../elsewhere/d.cu")
    git(repo, "add", "-A")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "links")
    s = _port_summary(repo)
    assert [(c["path"], c["line"], c["kind"]) for c in s["changes"]] == [
        ("porter_hip_compat.h", 1, "compat-header"), ("src/a.cu", 1, "compat-include"), ("src/a.cu", 3, "mask")]
    assert [(o["path"], o["line"], o["rule"]) for o in s["open_work"]] == [("src/e.cu", 3, "DEV002")]


def _lib014(tree: Path) -> list[tuple[str, int, str, str | None]]:
    from porter.pipeline import run

    result = run(tree, Settings(jobs=1, cache_dir=None)).result
    return sorted((f.path, f.line, f.status.value, f.handled_by) for f in result.findings if f.rule == "LIB014")


def test_lib014_follows_the_open_work_of_the_project_header(tmp_path):
    # cholla's shape: cuda_utils.h is the project's own and portable (it holds nothing CUDA-only), so including it
    # needs no HIP counterpart; cuda_alloc.h calls cudaMalloc, so its includers do. A quoted include of a header
    # the tree does not hold is the toolkit's (API005's), never LIB014's.
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "cuda_utils.h").write_text("#pragma once\ninline int twice(int x) { return 2 * x; }\n")
    (tmp_path / "src" / "cuda_alloc.h").write_text(
        "#pragma once\n#include <cstddef>\ninline void* grab(size_t n) { void* p; cudaMalloc(&p, n); return p; }\n")
    (tmp_path / "src" / "backend.h").write_text('#pragma once\n#include "cuda_alloc.h"\n')
    (tmp_path / "src" / "main.cpp").write_text(
        '#include "cuda_utils.h"\n#include "cuda_alloc.h"\n#include "cuda_runtime.h"\n#include "backend.h"\n'
        "int main() { return twice(1); }\n")
    assert _lib014(tmp_path) == [
        ("src/backend.h", 2, "open", None),
        ("src/main.cpp", 1, "handled", "src/cuda_utils.h: no open work in it"),
        ("src/main.cpp", 2, "open", None),
    ]


def test_dev038_reads_the_parameter_from_the_parsed_function(tmp_path):
    # The enclosing definition is the parse's (SourceFile.enclosing): a parameter of a function whose body holds the
    # call, unless a block around the call declares the name again. A local in a block already closed (line 4) no
    # longer hides it at line 5: the backwards text search took the last declaration written before the call.
    (tmp_path / "k.cu").write_text(
        "__device__ float f(float v, unsigned mask) {\n"
        "  const char* s = \"}}\"; /* } */\n"
        "  v += __shfl_sync(mask, v, 1);\n"
        "  { unsigned long long mask = ~0ull; v += __shfl_sync(mask, v, 2); }\n"
        "  return __shfl_sync(mask, v, 3);\n"
        "}\n"
        "struct S { __device__ unsigned long long* at(unsigned mask) { return __ballot_sync(mask, 1) ? 0 : 0; } };\n")
    assert sorted(f.line for f in _scan(tmp_path).findings if f.rule == "DEV038") == [3, 5, 7]
