"""False positives found on real code that need a repository (not one fixture file) to show: a project's own
headers, a library's internal includes, device code across files; and the HIP-header data API004 relies on."""
from __future__ import annotations

import re
from pathlib import Path

from porter.kb import hip_names
from porter.pipeline import scan
from porter.settings import Settings
from porter.source.includes import project_header

REPO = Path(__file__).resolve().parent.parent


def _rules(tmp_path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    return sorted((f.path, f.line, f.rule) for f in result.findings if f.rule.startswith(("LIB", "API", "DEV")))


def test_project_header_resolution():
    files = frozenset({"src/cuda/utils.cuh", "ext/cutlass/include/cute/config.hpp",
                       "ext/cutlass/include/cute/arch/mma.hpp", "include/cuda/helpers.h"})
    assert project_header("src/k.cu", "cuda/utils.cuh", True, files)  # quoted, relative to the includer
    assert project_header("tests/t.cu", "cuda/helpers.h", True, files)  # quoted, anywhere in the repository
    assert project_header("ext/cutlass/include/cute/arch/mma.hpp", "cute/config.hpp", False, files)  # same tree
    assert not project_header("src/k.cu", "cute/config.hpp", False, files)  # a vendored copy is still a dependency
    assert not project_header("src/k.cu", "cuda/atomic", False, files)  # libcu++
    assert not project_header("src/k.cu", "cuda.h", False, frozenset({"src/cuda.h"}))  # <cuda.h>: the toolkit's


def test_own_cuda_headers_and_cute_internals_are_not_libraries(tmp_path):
    got = _rules(tmp_path, {
        "src/cuda/utils.cuh": "int g();\n",
        "src/k.cu": '#include "cuda/utils.cuh"\n#include <cute/tensor.hpp>\n',
        "ext/cutlass/include/cute/tensor.hpp": "#include <cute/config.hpp>\n",
        "ext/cutlass/include/cute/config.hpp": "int c();\n",
    })
    assert got == [("src/k.cu", 2, "LIB002")]


def test_host_cpu_asm_in_a_cpp_file_is_not_ptx_but_device_asm_in_a_header_is(tmp_path):
    got = _rules(tmp_path, {
        "cpu/simd.cpp": 'static void f() { __asm__ __volatile__("vsetvli t0, a0, e32, m1" ::: "memory"); }\n',
        "gpu/lane.cuh": '#define DEVICE __device__ __forceinline__\n'
                        'DEVICE unsigned lane() { unsigned r; asm("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }\n',
    })
    assert got == [("gpu/lane.cuh", 2, "DEV001")]


def test_hip_names_table_is_generated_from_real_headers():
    names = hip_names()
    # The warp *_sync intrinsics arrived with 64-bit masks in HIP 6.2; __nv_bfloat162 is HIP's __hip_bfloat162;
    # the SIMD-in-word helpers do not exist in HIP.
    assert (names["__shfl_xor_sync"].first_hip, names["__shfl_xor_sync"].state) == ("6.2", "declared")
    assert (names["__nv_bfloat162"].state, names["__nv_bfloat162"].hip_spelling) == ("renamed", "__hip_bfloat162")
    assert [names[n].state for n in ("__vsub4", "__vcmpne4", "__vsubss4")] == ["missing"] * 3
    header = (REPO / "rules" / "kb" / "hip_names.tsv").read_text().splitlines()[0]
    assert header.startswith("# porter KB: first HIP version") and "scripts/build_hip_names.py" in header


def test_names_the_table_dates_to_the_local_hip_are_in_the_local_headers():
    local = Path("/usr/include/hip/hip_version.h")
    if not local.exists():
        import pytest

        pytest.skip("needs Debian's HIP headers (libamdhip64-dev) in /usr/include/hip")
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_hip_names", REPO / "scripts" / "build_hip_names.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    version, toks = mod.local_headers()
    dated = [n for n, h in hip_names().items() if h.first_hip == version]
    assert len(dated) > 40
    assert [n for n in dated if n.encode() not in toks] == []
    assert re.fullmatch(r"\d+\.\d+", version)
