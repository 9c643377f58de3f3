"""Shared test helpers: the repository's paths, and the whole rule set loaded once.

How a test runs the CLI is chosen in one place, tests/helpers.py: `porter_here` (in this process, through
porter.cli.main) unless the test needs a process of its own, then `run_porter`."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"

# The three targets the kernel-verdict tests score: two wave64 CDNA parts and the wave32 MI455X.
KERNEL_TARGETS = ("mi300x", "mi355x", "mi455x")


def kernel_verdicts(k, targets=KERNEL_TARGETS) -> dict[str, tuple]:
    """A kernel's verdict on each target with every detail's check id, message and lines: what the kernel tests
    compare exactly."""
    return {t: (v.verdict, tuple((d.id, d.message, d.lines) for d in v.details)) for t in targets
            if (v := k.verdict_on(t))}


def _bytecode_kept() -> None:
    """Where the environment says not to write bytecode (PYTHONDONTWRITEBYTECODE), every Python process a test
    starts (porter's CLI run as a user runs it, `python -c`, pytest in pytest) compiled porter from source again:
    ~0.7 CPU-s of a porter subprocess's ~1 s start-up. The test session writes it instead, as Python does by default:
    beside the checkout's sources (`__pycache__/` in .gitignore), for this process, the xdist workers and every
    process they start; later sessions reuse it (each file's bytecode is checked against its source, as always).
    Not to a PYTHONPYCACHEPREFIX: that hides the interpreter's and the venv's own bytecode, and every worker compiled
    the standard library and the dependencies again, a larger heap that each budgeted worker it forks inherits
    (tests/test_budget.py's near-the-memory-cap verdicts). What runs is the same code: no assertion changes."""
    if not (sys.flags.dont_write_bytecode or os.environ.get("PYTHONDONTWRITEBYTECODE")):
        return  # bytecode is written beside the sources, as usual
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False


_bytecode_kept()


@pytest.fixture(scope="session")
def ruleset():
    from porter.rules import load_rules

    return load_rules()


def _rule_queries(value, languages, out: set) -> None:
    if isinstance(value, dict):
        if isinstance(value.get("query"), str):
            out.update((lang, value["query"]) for lang in languages)
        for v in value.values():
            _rule_queries(v, languages, out)
    elif isinstance(value, list):
        for v in value:
            _rule_queries(v, languages, out)


@pytest.fixture
def libclang():
    """Skips a test unless deep mode can run. Asked when the test runs, not at collection: deep.setup() loads libclang
    (about 59 MiB), and loaded at collection it sat in every xdist worker and every process forked from one."""
    from porter.kernels import deep

    state = deep.setup()
    if not state.available:
        pytest.skip("needs libclang with clang resource headers (a system LLVM, e.g. Debian clang-19, or "
                    f"PORTER_LIBCLANG and PORTER_CLANG_RESOURCE_DIR): {state.reason}")


@pytest.fixture(scope="session", autouse=True)
def _rule_queries_compiled():
    """The built-in rules' tree-sitter queries compiled once in each test process. porter compiles a rule's query
    in the forked parser worker that first needs it (porter.source.parse_queries.query caches it per process), and
    a worker ends with its scan: every in-process scan of the session compiled the same queries again (~50 ms of
    CPU per scan, over a fifth of a small scan's). Compiled here, before any scan forks, every worker inherits them.
    What a scan finds does not change: the cache holds the same compiled query either way."""
    from porter.rules import load_rules
    from porter.source.parse_queries import query

    # Loaded here rather than through the `ruleset` fixture: a test module may define its own `ruleset` of
    # another scope (test_fuzz's), which a session fixture cannot request.
    wanted: set = set()
    for rule in load_rules().rules:
        _rule_queries(list(rule.patterns), rule.languages, wanted)
    for lang, source in sorted(wanted):
        try:
            query(lang, source)
        except Exception:  # noqa: BLE001 - a query that does not compile for a language fails where porter runs it
            pass


# Source of each kind a scan reads (CUDA with kernels, launches, warp intrinsics and runtime calls; Python using a
# CUDA library; CMake), written only here: no test scans these bytes, so nothing a test looks at is served by it.
_WARM_TREE = {
    "src/k.cu": "#include <cuda_runtime.h>\n#include <cub/cub.cuh>\n#define TPB 256\n"
                "__global__ void warm_k(float* x, int n) {\n  __shared__ float s[TPB];\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  float v = i < n ? x[i] : 0.f;\n"
                "  v += __shfl_down_sync(0xffffffff, v, 16);\n  unsigned m = __ballot_sync(0xffffffff, v > 0);\n"
                "  s[threadIdx.x] = v;\n  __syncthreads();\n  if (m) x[i] = s[threadIdx.x ^ 1];\n}\n"
                "void warm_run(float* h, int n) {\n  float* d; cudaMalloc(&d, n * 4);\n"
                "  cudaMemcpy(d, h, n * 4, cudaMemcpyHostToDevice);\n  warm_k<<<(n + TPB - 1) / TPB, TPB>>>(d, n);\n"
                "  cudaDeviceSynchronize();\n  cudaFree(d);\n}\n",
    "src/k.cuh": "#pragma once\n__device__ inline float warm_sq(float x) { return x * x; }\n",
    "warm/ops.py": "import torch\nfrom torch.utils.cpp_extension import load\n"
                   "def warm_f(x):\n    return torch.cuda.synchronize() or x.cuda()\n",
    "CMakeLists.txt": "cmake_minimum_required(VERSION 3.18)\nproject(warm LANGUAGES CXX CUDA)\n"
                      "find_package(CUDAToolkit REQUIRED)\nadd_library(warm src/k.cu)\n"
                      "set_target_properties(warm PROPERTIES CUDA_ARCHITECTURES 80)\n",
}


@pytest.fixture(scope="session", autouse=True)
def _scan_state_warm(tmp_path_factory, _rule_queries_compiled):
    """One scan of a small tree of every kind, run in each test process itself (its per-file work not handed to a
    forked worker) before any test: what porter builds lazily on a worker's first file and keeps per process (the
    knowledge base's maps, regex sets and prefilters, parsers) is then inherited by every worker a test's scan
    forks, instead of being built again in each (~18 ms of CPU per scan). Only porter's process-wide caches change:
    each test's scan still parses, reads and matches its own files in its own budgeted workers."""
    from porter import budget
    from porter.pipeline import scan
    from porter.settings import Settings

    from helpers import write_files

    root = tmp_path_factory.mktemp("warm-scan")
    write_files(root, _WARM_TREE)
    real = budget.Pool.map

    def here(self, fn, tasks, chunk=1):
        for i, args in enumerate(tasks):
            yield i, fn(*args)

    budget.Pool.map = here
    try:
        scan(root, Settings(jobs=1, cache_dir=None))
    finally:
        budget.Pool.map = real


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """The test modules that hold a test marked slow (a compiler, a wheel, a browser: 5-25 s each on an idle machine,
    where most tests take well under one) run first, each module's tests kept together and in the order collected.
    pytest-xdist hands tests out in collection order: alphabetically, the compiler tests of test_verify.py or
    test_translate_fixups.py came near the end, and one worker was still compiling after the other had run out of
    tests. First, they are spread over both workers while the short tests fill in around them. Only the order
    changes: the same tests run, against the same fixtures (a module's own fixtures still see its tests together)."""
    slow = {item.module.__name__ for item in items if item.get_closest_marker("slow") and item.module is not None}
    items.sort(key=lambda item: item.module is None or item.module.__name__ not in slow)
