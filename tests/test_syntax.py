"""The per-file syntax index: each part exact, in file order, built once per file."""
from __future__ import annotations

from porter.source.parse import parse
from porter.source.syntax import index, is_member_access

CUDA = b"""#include <cuda_runtime.h>
#include "kernels.h"
#define BLOCK 256
int cudaMalloc = 0;
__global__ void scale(float* x, int n) { x[threadIdx.x] *= 2; }
void host_api(int count);
void run(float* d, int n) {
    scale<<<n / BLOCK, BLOCK>>>(d, n);
    cudaLaunchKernel((void*)&scale, 1, 1, nullptr, 0, 0);
    obj.sync();
}
"""
PYTHON = b"""import torch.cuda as tc
from cupy import RawKernel
torch . cuda . synchronize()
RawKernel("code", "k")
"""


def test_cuda_index():
    sf = parse("k.cu", "cuda", CUDA)
    ix = index(sf)
    assert [i.header for i in ix.includes] == ["cuda_runtime.h", "kernels.h"]
    assert [c.text for c in ix.calls] == ["scale", "cudaLaunchKernel", "obj.sync"]
    assert [(k.name, k.line, k.end_line) for k, _ in ix.kernels] == [("scale", 5, 5)]
    assert [(s.launch.kind, s.launch.kernel, s.launch.line, s.launch.function) for s in ix.launches] == [
        ("chevron", "scale", 8, "run"), ("cudaLaunchKernel", "scale", 9, "run")]
    assert ix.launches[0].launch.config == ("n / BLOCK", "BLOCK")
    run_start = next(f.start_byte for f in ix.functions if f.name == "run")
    assert ix.variables["cudaMalloc"] == frozenset({-1})  # file scope
    assert ix.variables["d"] == frozenset({run_start})
    assert ix.variables["count"] == frozenset({-2 - CUDA.index(b"count")})  # a prototype's parameter
    assert ix.function_declarations["host_api"] == frozenset({CUDA.index(b"host_api")})
    assert ix.defines == {b"BLOCK": frozenset({CUDA.index(b"BLOCK")})}
    assert ix.imports == () and ix.python_calls == ()
    assert index(sf) is ix


def test_python_index():
    sf = parse("m.py", "python", PYTHON)
    ix = index(sf)
    assert [i.module for i in ix.imports] == ["torch.cuda", "cupy"]
    assert [c.text for c in ix.python_calls] == ["torch.cuda.synchronize", "RawKernel"]
    assert ix.includes == () and ix.calls == () and ix.launches == () and ix.kernels == ()


def test_member_access():
    code = b"a.cudaFree(p); b -> cudaFree(p); cudaFree(p);"
    starts = [i for i in range(len(code)) if code.startswith(b"cudaFree", i)]
    assert [is_member_access(code, i) for i in starts] == [True, True, False]


def test_variables_of_declarations_with_several_pointer_and_initialised_declarators():
    code = b"""int a, *b;
static float *c = 0, e = 1;
int (*fp)(int);
int arr[4];
void f(int p, float *q) { int *d, g; h(); }
"""
    sf = parse("v.cu", "cuda", code)
    f_start = code.index(b"void f")
    assert index(sf).variables == {
        "a": frozenset({-1}), "b": frozenset({-1}), "c": frozenset({-1}), "e": frozenset({-1}), "arr": frozenset({-1}),
        "p": frozenset({f_start}), "q": frozenset({f_start}), "d": frozenset({f_start}), "g": frozenset({f_start}),
    }


def test_variable_scopes_of_one_name_are_what_variables_say_of_it():
    """SyntaxIndex.variable_scopes works out one name's scopes when asked (the kb matcher's question): the same
    as variables.get(name), for names declared at file scope, as parameters of a definition and of a prototype
    (-2 - offset), in several scopes, non-ASCII, and not declared at all."""
    code = ("int a, *b;\nvoid proto(int a, float t);\nvoid f(int p, float *q) { int *d, a; }\n"
            "__global__ void k(int p) { float \u00e9t\u00e9 = p; }\n").encode()
    sf = parse("v.cu", "cuda", code)
    ix = index(sf)
    f_start, k_start = code.index(b"void f"), code.index(b"__global__")
    assert ix.variable_scopes("a") == frozenset({-1, -2 - code.index(b"a, float"), f_start})
    assert ix.variable_scopes("p") == frozenset({f_start, k_start})
    assert ix.variable_scopes("t") == frozenset({-2 - code.index(b"t)")})
    assert ix.variable_scopes("\u00e9t\u00e9") == frozenset({k_start})
    assert ix.variable_scopes("missing") == frozenset()
    for name in [*ix.variables, "missing", "proto"]:
        assert index(parse("v.cu", "cuda", code)).variable_scopes(name) == ix.variables.get(name, frozenset())


def test_declarators_are_every_declarations_declarators_in_file_order():
    code = b"int a, *b = 0;\nunsigned char blob[3] = {1, 2, 3};\nvoid f() { float c; }\nstruct S { int field; };\n"
    sf = parse("d.cu", "cuda", code)
    assert [d.text.decode() for d in index(sf).declarators] == ["a", "*b = 0", "blob[3] = {1, 2, 3}", "c"]
    assert index(parse("d.py", "python", b"a = 1\n")).declarators == ()


def test_scopes_of_many_offsets_are_scope_of_each():
    """SyntaxIndex.variables scopes its names in one pass (porter.source.syntax._Scopes): at every byte of a file
    with a definition nested in another (a local struct's method), then left, it says what scope_of says."""
    from porter.source.syntax import _Scopes, scope_of

    src = (b"int g;\nvoid outer(int p) {\n  struct L { void m() { int a; } };\n  int b = p;\n}\n"
           b"__global__ void k(int* q) { int c = *q; }\nint h;\n")
    sf = parse("s.cu", "cuda", src)
    scopes = _Scopes(sf)
    got = [scopes.of(i) for i in range(len(src))]
    assert got == [scope_of(sf, i) for i in range(len(src))]
    assert len(set(got)) == 4  # file scope, outer, m and k
