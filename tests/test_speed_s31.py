"""Issue 26, session 31: four repeated computations of a cold scan done once. A name node's nearest declaration is
found once per file however often the kernel walks ask; a call's template arguments are bound once per distinct
argument list; a build file's line loses its `#` comment without a generator step per character where no quote can
matter; a Python module's words are hashed once each. Every answer is the one the old code gave (the old
computations are written out here and compared), and each test counts the repeated work it removed."""
from __future__ import annotations

import base64
import zlib
from array import array

import tree_sitter as ts

from porter.kernels import facts as kfacts
from porter.kernels import member_calls
from porter.portaware import pymodules, rocmbuild
from porter.source.parse import parse


def _identifiers(node: ts.Node, text: bytes) -> list[ts.Node]:
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        if n.type == "identifier" and n.text == text:
            out.append(n)
        todo.extend(reversed(n.children))
    return sorted(out, key=lambda n: n.start_byte)


FFP = b"""struct FFP { unsigned v; };
__device__ FFP operator*(FFP a, FFP b);
__global__ void k(FFP *sh, FFP x, int n) {
  FFP acc;
  acc = x * x;
  acc = sh[0] * x;
  for (int i = 0; i < n; ++i) { FFP y; acc = y * acc; }
}
"""


def test_a_name_nodes_nearest_declaration_is_found_once_per_file(monkeypatch):
    sf = parse("k.cu", "cuda", FFP)
    scopes: list[int] = []
    real_scope = member_calls._scope

    def counted(scope, cache):
        scopes.append(scope.start_byte)
        return real_scope(scope, cache)

    monkeypatch.setattr(member_calls, "_scope", counted)
    cache: dict = {}
    x = _identifiers(sf.root, b"x")[1]  # `x` in `acc = x * x` (the parameter's own declarator is the first)
    sh = _identifiers(sf.root, b"sh")[1]
    y = _identifiers(sf.root, b"y")[1]
    assert (member_calls.declared_type(x, cache), member_calls.declared_indirect(x, cache)) == ("FFP", False)
    assert (member_calls.declared_type(sh, cache), member_calls.declared_indirect(sh, cache)) == ("FFP", True)
    assert (member_calls.declared_type(y, cache), member_calls.declared_indirect(y, cache)) == ("FFP", False)
    asked = len(scopes)
    assert asked > 0  # the first asks walked out through the scopes
    for node in (x, sh, y):  # asked again: answered from the file's cache, no scope read again
        member_calls.declared_type(node, cache)
        member_calls.declared_indirect(node, cache)
    assert len(scopes) == asked
    # a name nothing declares is remembered as undeclared too
    n = _identifiers(sf.root, b"n")[1]
    assert member_calls.declared_type(n, cache) is None  # declared `int`: no class
    missing = parse("m.cu", "cuda", b"__global__ void k() { q = q * 2; }\n")
    q = _identifiers(missing.root, b"q")[1]
    other: dict = {}
    assert member_calls.declared_type(q, other) is None and not member_calls.declared_indirect(q, other)
    assert other[("nearest", q.start_byte, q.end_byte)] is None
    # the operator keys the kernel walk records are the old ones
    binaries = []
    todo = [sf.root]
    while todo:
        node = todo.pop()
        if node.type in ("binary_expression", "assignment_expression"):
            binaries.append(node)
        todo.extend(node.children)
    keys = sorted(k for b in binaries if (k := member_calls.operator_expression_key(b, {})) is not None)
    assert keys == ["FFP.operator*", "FFP.operator*", "FFP.operator*"]


TEMPLATES = b"""template <typename T, int V = 1> __device__ void dev_sort(T *buf) { }
template <> __device__ void dev_sort<unsigned, 4>(unsigned *buf) { __brev(buf[0]); }
template <typename T, int V> __device__ void median(T *buf) {
  dev_sort<T, V>(buf); dev_sort<T, V>(buf + 1); dev_sort<T, V>(buf + 2); dev_sort<T, V>(buf + 3);
}
__global__ void k4(unsigned *b) { median<unsigned, 4>(b); median<unsigned, 4>(b + 4); median<unsigned, 4>(b + 8); }
__global__ void k1(unsigned *b) { median<unsigned, 1>(b); dev_sort(b); dev_sort(b + 1); }
"""


def test_a_calls_template_arguments_are_bound_once_per_distinct_list(monkeypatch):
    bound: list[tuple] = []
    real_bind = kfacts._bind

    def counted(f, resolved):
        bound.append((f.name, tuple(str(r) for r in resolved)))
        return real_bind(f, resolved)

    monkeypatch.setattr(kfacts, "_bind", counted)
    sf = parse("t.cu", "cuda", TEMPLATES)
    ctx = kfacts.FileContext(sf)
    fns = {f.name: f for f in sf.functions if f.is_kernel}
    reached = {name: [(f.name, f.start_line) for f in ctx._callees(fns[name])] for name in ("k4", "k1")}
    # k4's median<unsigned, 4> selects the <unsigned, 4> specialization; k1's calls leave V at 1 or bind it to 1
    assert reached == {"k4": [("dev_sort", 1), ("dev_sort", 2), ("median", 3)],
                       "k1": [("dev_sort", 1), ("median", 3)]}
    # k4's three `median<unsigned, 4>` calls, median's four `dev_sort<T, V>` calls as each binding resolves them,
    # k1's two `dev_sort(b)`: one binding per distinct argument list and candidate (14 before, one per call)
    assert sorted(bound) == [("dev_sort", ("None", "1")), ("dev_sort", ("unsigned", "1")),
                             ("dev_sort", ("unsigned", "4")), ("median", ("unsigned", "1")),
                             ("median", ("unsigned", "4"))]


def test_a_build_lines_code_is_code_chars_answer():
    lines = ["hipcc -o app main.cpp", "hipcc -o app main.cpp  # the ROCm build", "# hipcc", "",
             'echo "a # b" # c', "echo 'x#y' z", "set(X \"#\")  # note", "a \"unclosed # b", "#", "x#", "'#'",
             "CC=hipcc#comment", "don't # stop"]
    for line in lines:
        assert rocmbuild._code(line) == "".join(ch for ch, _quoted in rocmbuild.code_chars(line)), line
    assert [rocmbuild._code(line) for line in lines] == [
        "hipcc -o app main.cpp", "hipcc -o app main.cpp  ", "", "", 'echo "a # b" ', "echo 'x#y' z", 'set(X "#")  ',
        'a "unclosed # b', "", "x", "'#'", "CC=hipcc", "don't # stop"]
    plain = "hipcc -o app main.cpp"
    assert rocmbuild._code(plain) is plain  # no `#`: the line itself, not a copy built per character


def test_a_modules_words_are_hashed_once_each(monkeypatch):
    data = b"import torch\nx = torch.cuda.is_available()\ny = torch.cuda.is_available() and x\n"
    old = base64.b64encode(array("I", sorted({zlib.crc32(w) & 0xFFFFFFFF for w in pymodules._WORD.findall(data)}))
                           .tobytes()).decode("ascii")
    hashed: list[bytes] = []
    real = pymodules._crc
    monkeypatch.setattr(pymodules, "_crc", lambda w: hashed.append(w) or real(w))
    assert pymodules._words(data) == old
    assert len(pymodules._WORD.findall(data)) > len(hashed) == len(set(hashed)) == len(set(
        pymodules._WORD.findall(data)))


def test_port_status_makes_each_repository_path_once():
    from pathlib import PurePosixPath

    from porter.portaware import scope

    scope.posix_path.cache_clear()
    paths = ["src/k_cuda.cu", "src/k_hip.cpp", "src/x.cu", "src/x_hip.cpp", "src/y.cuh", "hip/z.cu", "README.md"]
    first = scope.source_twins(paths)
    assert first == {"src/k_cuda.cu": "src/k_hip.cpp", "src/x.cu": "src/x_hip.cpp"}
    made = scope.posix_path.cache_info().misses
    assert made == len(paths)  # each path made once, however many passes ask it (source_twins asks up to three)
    assert scope.source_twins(paths) == first
    assert [scope.rocm_path_evidence(p) for p in paths] == [None, "src/k_hip.cpp", None, "src/x_hip.cpp", None,
                                                            "hip/", None]
    assert scope.posix_path.cache_info().misses == made  # the other passes took the same objects
    assert scope.posix_path("src/x.cu") is scope.posix_path("src/x.cu") == PurePosixPath("src/x.cu")
