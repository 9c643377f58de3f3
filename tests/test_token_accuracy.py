"""CUDA names are matched as whole tokens in code: never in comments or strings, never inside longer names,
never as a project's own helper or member; a `#define` body that calls the runtime is real usage.

One realistic file, scanned end to end; the exact set of (rule, line, matched text) is asserted, so both a
missed use and a noisy hit fail the test.
"""
from __future__ import annotations

from porter.settings import Settings
from porter.pipeline import scan

SOURCE = r"""// Token accuracy: CUDA names that are, and are not, CUDA usage.
#include <cuda_runtime.h>
#include <cstdio>

// CHECK is the project's macro, and its body really calls the runtime: cudaGetErrorString(e).
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) std::printf("%s\n", cudaGetErrorString(e)); } while (0)

// The project's helper, named like a runtime call; it is not a CUDA API and not an unknown one.
static void cudaCheckError(const char* what) { std::printf("cudaGetLastError after %s\n", what); }

struct Launcher {
  int cudaLaunch(int n) { return n; }
};

__global__ void step(float* x) { x[threadIdx.x] += 1.f; }

void run(float* x, cudaStream_t s, Launcher& l) {
  void* args[] = {&x};
  // cudaMalloc(&x, 4) and cudaLaunch(step) appear only in this comment.
  const char* msg = "cudaMemcpy failed; see cudaThreadSynchronize";
  CHECK(cudaLaunchCooperativeKernel((void*)step, dim3(1), dim3(64), args, 0, s));
  l.cudaLaunch(3);
  cudaCheckError(msg);
  int cudaMallocCount = 0;
  CHECK(cudaStreamSynchronize(s));
  /* cudaThreadSynchronize(); */
  cudaThreadSynchronize();
}
"""

EXPECTED = {
    ("API005", 2, "<cuda_runtime.h>"),
    ("API001", 6, "cudaError_t"),
    ("API001", 6, "cudaSuccess"),
    ("API001", 6, "cudaGetErrorString"),
    ("KRN001", 15, "step"),
    ("API001", 17, "cudaStream_t"),
    ("API001", 21, "cudaLaunchCooperativeKernel"),
    ("KRN004", 21, "cudaLaunchCooperativeKernel"),
    ("API001", 25, "cudaStreamSynchronize"),
    ("API003", 27, "cudaThreadSynchronize"),
}


def test_exact_findings_on_a_file_full_of_near_misses(tmp_path):
    path = tmp_path / "app.cu"
    path.write_text(SOURCE)
    result = scan(path, Settings(jobs=1, cache_dir=None))
    lines = SOURCE.splitlines()
    got = set()
    for f in result.findings:
        assert f.end_line == f.line, f"{f.rule} spans lines {f.line}-{f.end_line}"
        got.add((f.rule, f.line, lines[f.line - 1][f.column - 1:f.end_column - 1]))
    assert got == EXPECTED


def test_messages_name_the_hip_replacement(tmp_path):
    path = tmp_path / "app.cu"
    path.write_text(SOURCE)
    result = scan(path, Settings(jobs=1, cache_dir=None))
    by_key = {(f.rule, f.line, f.column): f for f in result.findings}
    sync = next(f for f in by_key.values() if f.rule == "API001" and f.line == 25)
    assert sync.replacement == "hipStreamSynchronize"
    assert sync.message == "cudaStreamSynchronize (CUDA runtime): hipify maps it to hipStreamSynchronize."
    old = next(f for f in by_key.values() if f.rule == "API003")
    assert old.message == "cudaThreadSynchronize is deprecated since CUDA runtime 10.0; hipify maps it to hipDeviceSynchronize."


def test_a_pointer_variable_named_like_a_driver_api_is_the_projects_own(tmp_path):
    # cuda-samples' dynlink pattern: the project loads the driver itself and keeps pointers named like the API.
    (tmp_path / "dynlink.cpp").write_text(
        "typedef int tcuDeviceGetName(char*, int, int);\n"
        "tcuDeviceGetName *cuDeviceGetName;\n"
        "void f(char* n) { cuDeviceGetName(n, 10, 0); }\n")
    r = scan(tmp_path, Settings(jobs=1))
    assert [(f.rule, f.line) for f in r.findings if f.rule.startswith("API")] == []


def test_the_token_index_takes_whole_identifiers_only():
    """SourceFile.tokens: maximal identifier runs (bytes >= 0x80 count as identifier characters) that start with
    a letter or `_` and follow no identifier character or `$`; a run cut by `$` ends there."""
    from porter.source.parse import parse

    code = "a1 9b _c\n$d e$f x\x80y 0x1fu ab.cd->ef\nz"
    sf = parse("t.txt", "text", code.encode("latin-1"))
    assert {t: offs for t, offs in sf.tokens().items()} == {
        b"a1": [0], b"_c": [6], b"e": [12], b"x\x80y": [16], b"ab": [26], b"cd": [29], b"ef": [33], b"z": [36]}
