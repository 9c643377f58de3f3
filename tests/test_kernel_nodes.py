"""porter.kernels.nodes: a body's nodes of a type, sliced from the whole-file query, are exactly what
porter.source.parse_queries.descendants gives (the same nodes, in pre-order), on whole files, broken files and nodes whose
ancestor of the same type starts where they do."""
from __future__ import annotations

import subprocess
import sys
from itertools import combinations
from pathlib import Path

from porter.kernels.nodes import INDEXED, NodeIndex, walk
from porter.source.parse import parse
from porter.source.parse_queries import descendants

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rules"

SOURCE = b"""
#define N 32
__shared__ float tile[N];
template <int B> __global__ void k(float* p, int n) {
  int lane = threadIdx.x % 32 + threadIdx.y % 32 + 1;
  __shared__ float s[B][B];
  for (int o = 16; o > 0; o >>= 1) p[lane] += __shfl_xor_sync(0xffffffff, p[lane], o);
  s[lane][lane] = a[b[lane]] + f(g(x))(y);
  x = y = z; i++; int* q = &n; auto t = &s[0][0];
  asm volatile("mma.sync.aligned.m16n8k16 {%0}, [%1];" : "=r"(n) : "l"(p));
}
void host(float* d) { dim3 b(16, 16); int c = 4 * 8; k<16><<<c, b>>>(d, 1); cudaDeviceSynchronize(); }
"""
BROKEN = b"__global__ void k(int* p) { int x = ; p[ = 3 % 32; f(a, ; { int y = (1 + ; }\nvoid h() { k<<<1, >>>(0); "


def _same(a, b):
    return len(a) == len(b) and all(x == y for x, y in zip(a, b))


def _check(src: bytes) -> int:
    sf = parse("t.cu", "cuda", src)
    index = NodeIndex(sf.root)
    asked = [(t,) for t in INDEXED] + list(combinations(sorted(INDEXED), 2))
    nodes = [sf.root] + [f.node.child_by_field_name("body") for f in sf.functions]
    # Inner nodes too, each starting where an ancestor of its own type may start (`a + b + c`, `f(g)(y)`).
    nodes += [n for t in ("binary_expression", "call_expression", "subscript_expression") for n in walk(sf.root, (t,))]
    checked = 0
    # Each type alone through descendants' own query for it; each pair through descendants' one-query form (a
    # `vocabulary` of every indexed type, captured once per node): a tree-sitter-cuda Query costs ~15-30 ms to
    # compile whatever it holds, and one per pair was 136 compiles, nearly all of this test's time.
    memo: dict = {}
    for node in nodes:
        for types in asked:
            expected = descendants(node, types) if len(types) == 1 else descendants(node, types, vocabulary=INDEXED,
                                                                                   memo=memo)
            assert _same(index.under(node, types), expected), (node.type, node.start_byte, types)
            checked += 1
    return checked


def test_under_is_descendants_for_every_type_and_pair_of_types():
    assert _check(SOURCE) > 1000


def test_under_is_descendants_on_a_file_with_syntax_errors():
    sf = parse("t.cu", "cuda", BROKEN)
    assert sf.root.has_error
    assert _check(BROKEN) > 100


def test_under_is_descendants_on_the_kernel_fixtures():
    files = sorted(FIXTURES.glob("*.cu"))[:12]
    assert len(files) == 12
    for path in files:
        assert _check(path.read_bytes()) > 0, path.name


def test_an_inner_node_leaves_out_its_ancestor_of_the_same_type_that_starts_with_it():
    sf = parse("t.cu", "cuda", b"void f() { int x = a % 32 + b; }\n")
    index = NodeIndex(sf.root)
    outer, inner = walk(sf.root, ("binary_expression",))
    assert outer.start_byte == inner.start_byte and inner.text == b"a % 32"
    assert [n.text for n in index.under(inner, ("binary_expression",))] == [b"a % 32"]
    assert [n.text for n in index.under(outer, ("binary_expression",))] == [b"a % 32 + b", b"a % 32"]


def test_walk_gives_descendants_in_pre_order():
    sf = parse("t.cu", "cuda", SOURCE)
    for types in [("identifier",), ("call_expression", "identifier"), ("string_literal",)]:
        assert _same(walk(sf.root, types), descendants(sf.root, types))
    assert walk(None, ("identifier",)) == []


def test_the_index_joins_the_whole_file_query_before_the_first_file_and_shares_the_calls_query():
    """Registered by a module the pipeline imports (a query registered after the first file makes the combined
    one compile again), and the file's calls come from porter.source.syntax's own query, captured once."""
    code = ("import sys, porter.pipeline\n"
            "from porter.source.parse_queries import registered_root_queries as r\n"
            "assert 'porter.kernels.facts' not in sys.modules\n"
            "qs = r('cuda')\n"
            "print(sum(q == '(call_expression) @c' for q in qs), sum('(declaration) @declaration' in q for q in qs))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "1 1\n"


def test_name_detectors_see_names_found_by_text_also_inside_longer_names():
    """The walk hands name detectors only the name nodes starting where one of their names starts in the body's
    text (porter.kernels.facts): `__pipeline_commit` holds `pipeline` at its third byte, `cutest` starts with
    `cute`; each detector still compares the whole name."""
    from porter.kernels.verdicts import measure

    src = (b"using namespace cute;\n__global__ void k(float* p) {\n"
           b"  int cutest = 1; auto t = make_tensor(p); __pipeline_commit(); int cute_x = warpSize;\n"
           b"  int a[warpSize]; auto g = cooperative_groups::this_grid(); nvcuda::wmma::fragment<int> f;\n}\n"
           b"__global__ void plain(float* p) { p[0] = 1; }\n")
    k, plain = measure(parse("k.cu", "cuda", src))
    f = k.facts
    assert (f.cute_tensor, f.async_copies, f.grid_sync, f.tensor_cores) == (
        ("make_tensor",), ("pipeline",), (4,), ("wmma",))
    assert [(x.line, x.text) for x in f.warpsize_constant] == [(4, "int a[warpSize];")]
    p = plain.facts
    assert (p.cute_tensor, p.async_copies, p.grid_sync, p.tensor_cores, p.warpsize_constant) == ((), (), (), (), ())


def test_name_nodes_come_from_the_token_index_as_from_the_text_search():
    """The walk finds the name nodes detectors act on at the offsets of the file's code tokens; where the code has
    a byte the token index and the parser may split differently (non-ASCII, `$`) it searches the body's text, as
    before. Both give the same nodes of the wanted texts, and file-scope `__shared__` names count too."""
    import porter.kernels.facts as facts
    import porter.kernels.facts_detectors as detectors
    from porter.kernels.constfold import build_constants

    src = (b"__shared__ float tile[32];\n__global__ void k(float* p) {\n  // warpSize in a comment\n"
           b"  int cutest = warpSize; auto g = cooperative_groups::this_grid(); tile[0] = p[0];\n"
           b"  const char* s = \"this_grid\"; nvcuda::wmma::fragment<int> f; int a[warpSize];\n}\n")
    for data, token_path in ((src, True), (src.replace(b"int cutest", "int cut\u00e9st".encode()), False),
                             (src.replace(b"int cutest", b"int $cutest"), False)):
        sf = parse("k.cu", "cuda", data)
        ctx = facts.FileContext(sf, build_constants(sf.root, sf.data))
        assert (ctx._name_offsets is not None) == token_path
        body = sf.functions[0].node.child_by_field_name("body")
        wanted = set().union(*detectors._WANTED.values()) | {b"tile"}
        found = [(n.text, n.start_point.row) for n in ctx._names(body) if n.text in wanted]
        ctx._name_offsets = None
        assert found == [(n.text, n.start_point.row) for n in ctx._names(body) if n.text in wanted] == [
            (b"warpSize", 3), (b"this_grid", 3), (b"tile", 3), (b"nvcuda", 4), (b"wmma", 4), (b"warpSize", 4)]
