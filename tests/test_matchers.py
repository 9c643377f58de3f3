"""Each pattern kind in porter/matchers on small real sources: exact spans, names and message values.

Sources are parsed with the real tree-sitter grammars (porter.source.parse.parse); nothing is mocked.
"""
from __future__ import annotations

from porter.match.registry import MATCHERS, MatchContext
from porter.source.parse import parse


def run(kind: str, spec, source: str, lang: str = "cuda"):
    """(line, matched text, values) for every hit of one pattern, in order."""
    sf = parse("t.cu" if lang == "cuda" else "t.py", lang, source.encode())
    out = []
    for h in MATCHERS[kind]({kind: spec}, sf, MatchContext()):
        line, _ = sf.position(h.start)
        out.append((line, sf.data[h.start:h.end].decode(), dict(h.values)))
    return sorted(out, key=lambda x: (x[0], x[1]))


def lines_and_text(hits):
    return [(line, text) for line, text, _ in hits]


# ----------------------------------------------------------------------------------------- existing kinds


def test_identifiers_are_whole_tokens_in_code_and_skip_members():
    src = "cudaLaunch(k);\ncudaLaunchCooperativeKernel(k);\n// cudaLaunch\nx.cudaLaunch();\np->cudaLaunch();\n"
    assert lines_and_text(run("identifiers", ["cudaLaunch"], src)) == [(1, "cudaLaunch")]


def test_call_skips_member_calls():
    src = "void f() { cudaFree(p); pool.cudaFree(p); cudaFreeHost(p); }\n"
    assert lines_and_text(run("call", ["cudaFree"], src)) == [(1, "cudaFree")]


# ----------------------------------------------------------------------------------------- kb


def test_kb_skips_identity_renames_only_when_asked():
    src = "__device__ void f(float* s) { atomicAdd(s, 1.f); __syncthreads(); }\nvoid g() { cudaDeviceSynchronize(); }\n"
    assert lines_and_text(run("kb", {"status": ["rename"], "skip_identity": True}, src)) == [(2, "cudaDeviceSynchronize")]
    both = lines_and_text(run("kb", {"status": ["rename"]}, src))
    assert (1, "atomicAdd") in both and (1, "__syncthreads") in both


def test_kb_values_name_the_library_and_the_hip_name():
    [(line, text, values)] = run("kb", {"status": ["rename"]}, "void g() { cublasSgemm(h); }\n")
    assert (line, text) == (1, "cublasSgemm")
    assert values["library_name"] == "cuBLAS"
    assert values["hip"] == "hipblasSgemm"
    assert values["advice"] == "hipify maps it to hipblasSgemm"


def test_kb_prefer_roc_points_cudnn_at_miopen():
    [(_, _, values)] = run("kb", {"status": ["rename"], "library": ["cudnn"], "prefer_roc": ["cudnn"]},
                           "void g() { cudnnCreate(&h); }\n")
    assert values["replacement"] == "miopenCreate"
    assert values["advice"] == "port by hand to MIOpen (miopenCreate)"
    assert "hipdnn" not in values["advice"]


def test_kb_require_next_limits_a_common_word():
    src = "texture<float, 2> tex;\nvoid g() { int texture = 3; }\nfloat f(int texture);\nvoid h(int texture) {}\n"
    hits = run("kb", {"status": ["removed"], "require_next": {"texture": "<"}}, src)
    assert [(line, text, v["since"]) for line, text, v in hits] == [(1, "texture", "removed in CUDA runtime 12.0")]


def test_kb_add_supplies_names_the_tables_lack():
    spec = {"status": ["unsupported"], "add": [{"cuda": "__reduce_add_sync", "status": "unsupported",
                                                 "library": "device", "note": "use shuffles"}]}
    src = "__device__ int f(int v) { return __reduce_add_sync(~0ull, v) + my__reduce_add_sync(v); }\n"
    [(line, text, values)] = run("kb", spec, src)
    assert (line, text, values["advice"], values["status"]) == (1, "__reduce_add_sync", "use shuffles", "unsupported")


def test_kb_skips_a_projects_own_declaration_but_not_its_uses():
    src = "struct Pool { void* cudaMalloc(unsigned long n); };\nvoid f() { cudaMalloc(&p, 4); }\n"
    assert lines_and_text(run("kb", {"status": ["rename"]}, src)) == [(2, "cudaMalloc")]


def test_kb_skips_names_the_file_declares_as_variables_in_their_scope():
    src = ("void f(int texture) { int memoryBarrier = texture; g(memoryBarrier); }\n"
           "void g() { memoryBarrier(); }\nint proto(int memoryBarrier);\nCUtensorMap m;\n")
    hits = run("kb", {"status": ["unsupported", "removed"]}, src)
    assert lines_and_text(hits) == [(2, "memoryBarrier"), (4, "CUtensorMap")]


# ----------------------------------------------------------------------------------------- kb_header


def test_kb_header_statuses_and_advice():
    src = ('#include <cuda_runtime.h>\n#include "device_launch_parameters.h"\n#include <cudnn.h>\n'
           '#include "cuda/helpers.cuh"\n#include <cuda/pipeline>\n#include "mine.h"\n')
    renamed = run("kb_header", {"status": ["rename", "drop"]}, src)
    assert [(line, text, v["advice"]) for line, text, v in renamed] == [
        (1, "<cuda_runtime.h>", "include <hip/hip_runtime.h> instead"),
        (2, '"device_launch_parameters.h"', "delete the include"),
    ]
    missing = run("kb_header", {"status": ["unsupported", "none"], "not_include": ["cuda/*.cuh"]}, src)
    assert [(line, text, v["library"]) for line, text, v in missing] == [
        (3, "<cudnn.h>", "cudnn"), (5, "<cuda/pipeline>", "libcu++")]


# ----------------------------------------------------------------------------------------- feature


def test_feature_wraps_a_kind_and_adds_its_note():
    src = 'void f() { asm("wgmma.fence.sync.aligned;"); }\n// "wgmma.fence" in a comment\n'
    hits = run("feature", {"regex": r"(?P<hit>\bwgmma\.\w+)", "in": "string", "note": "no wgmma"}, src)
    assert [(line, text, v["note"]) for line, text, v in hits] == [(1, "wgmma.fence", "no wgmma")]


# ----------------------------------------------------------------------------------------- member_call

GRID = """\
__global__ void k() {
  cg::grid_group grid = cg::this_grid();
  auto g2 = cooperative_groups::this_grid();
  cg::thread_block block = cg::this_thread_block();
  grid.sync();
  g2.sync();
  block.sync();
  cg::this_grid().sync();
}
__device__ void h(cg::grid_group& g) { g.sync(); }
void host() { Barrier grid; grid.sync(); }
"""


def test_member_call_follows_declared_types_and_initialisers_per_function():
    spec = {"method": "sync", "types": ["grid_group"], "inits": ["this_grid"]}
    assert lines_and_text(run("member_call", spec, GRID)) == [
        (5, "grid.sync()"), (6, "g2.sync()"), (8, "cg::this_grid().sync()"), (10, "g.sync()")]


DECLARED = """\
__global__ void k(cg::grid_group* gp, cg::grid_group& gr, int n) {
  cg::grid_group a = cg::this_grid(), b = cg::this_grid();
  auto& c = cooperative_groups::this_grid();
  for (auto d = cg::this_grid(); n; --n) {}
  auto f = [](cg::grid_group e) { return e; };
  grid_group<int> t = other();
  int this_grid = 0;
}
void proto(grid_group q);
"""


def test_typed_variables_reads_every_declaration_form():
    from porter.match.kinds.code_members import _typed_variables

    sf = parse("t.cu", "cuda", DECLARED.encode())
    # Pointer and reference parameters, several declarators, auto&, a for-init, a lambda's parameter (scoped to
    # the kernel: a lambda is no function definition), a template of the type, a prototype's parameter (file
    # scope); not the int named like the initialiser.
    assert sorted(_typed_variables(sf, {"grid_group"}, {"this_grid"})) == [
        (-1, "q"), (0, "a"), (0, "b"), (0, "c"), (0, "d"), (0, "e"), (0, "gp"), (0, "gr"), (0, "t")]


def test_typed_variables_finds_what_a_query_over_every_declaration_finds():
    """The token-led reading of declarations against the whole-tree query it replaced, on the rule fixtures."""
    from pathlib import Path

    import tree_sitter as ts

    from porter.match.kinds.code_members import _callee_name, _typed_variables
    from porter.source.parse import unqualified
    from porter.source.parse_queries import query
    from porter.source.syntax import scope_of

    decls = """
    (declaration type: (_) @type declarator: (init_declarator declarator: (_) @var value: (_) @value))
    (declaration type: (_) @type declarator: (identifier) @var)
    (parameter_declaration type: (_) @type declarator: (_) @var)
    """

    def by_query(sf, types, inits):
        out = set()
        for _, m in ts.QueryCursor(query("cuda", decls)).matches(sf.root):
            var = m["var"][0]
            while var.type in ("reference_declarator", "pointer_declarator") and var.named_child_count:
                var = var.named_children[-1]
            value = m.get("value", [None])[0]
            if var.type == "identifier" and (
                    unqualified(m["type"][0].text.decode()) in types
                    or value is not None and value.type == "call_expression" and _callee_name(value) in inits):
                out.add((scope_of(sf, var.start_byte), var.text.decode()))
        return out

    questions = [({"grid_group", "multi_grid_group"}, {"this_grid", "this_multi_grid"}),
                 ({"dim3", "float", "int", "size_t", "T", "half"}, {"min", "max", "this_thread_block"})]
    files = sorted(Path(__file__).parent.parent.joinpath("fixtures").rglob("*.cu*")) + [None]
    compared = 0
    for path in files:
        sf = parse("t.cu", "cuda", path.read_bytes() if path else (DECLARED + GRID).encode())
        for types, inits in questions:
            expected = by_query(sf, types, inits)
            assert _typed_variables(sf, types, inits) == expected, path
            compared += len(expected)
    assert compared > 100


# ----------------------------------------------------------------------------------------- constant_context

WARP = """\
constexpr int a = warpSize;
static const int b = 2 * warpSize;
#define C (256 / warpSize)
#define LANE() (threadIdx.x % warpSize)
template <int W = warpSize> struct T {};
__global__ void k(int n) {
  __shared__ float s[warpSize];
  auto t = cg::tiled_partition<warpSize>(blk);
  static_assert(warpSize >= 32, "x");
  switch (n) { case warpSize: break; }
  int lane = threadIdx.x % warpSize;
  const int w = warpSize;
  s[warpSize - 1] = 0;
  f(prop.warpSize);
}
"""


def test_constant_context_reports_only_compile_time_uses_with_their_context():
    hits = run("constant_context", ["warpSize"], WARP)
    assert [(line, v["context"]) for line, _, v in hits] == [
        (1, "a constexpr or static const initialiser"),
        (2, "a constexpr or static const initialiser"),
        (3, "an object-like #define body"),
        (5, "a template parameter default"),
        (7, "an array extent"),
        (8, "a template argument"),
        (9, "a static_assert"),
        (10, "a case label"),
    ]


# ----------------------------------------------------------------------------------------- lane_mask

MASKS = """\
#define FULL 0xffffffff
#define WIDE 0xffffffffffffffffull
const unsigned kAll = 0xFFFFFFFFu;
__device__ void f(float v, unsigned long long m) {
  __shfl_sync(0xffffffff, v, 0);
  __shfl_sync(0XFFFFFFFFUL, v, 0);
  __shfl_sync(~0u, v, 0);
  __shfl_sync(-1, v, 0);
  __shfl_sync(FULL, v, 0);
  __shfl_sync(kAll, v, 0);
  __shfl_sync((0xffffffff), v, 0);
  __shfl_sync(WIDE, v, 0);
  __shfl_sync(~0ull, v, 0);
  __shfl_sync(m, v, 0);
  __shfl_sync(__activemask(), v, 0);
  obj.__shfl_sync(0xffffffff, v, 0);
  __shfl_sync(0x0000ffff, v, 0);
}
"""


def test_lane_mask_finds_32_bit_full_masks_by_value_and_by_name():
    hits = run("lane_mask", ["__shfl_sync"], MASKS)
    assert [(line, v["mask"]) for line, _, v in hits] == [
        (5, "0xffffffff"), (6, "0XFFFFFFFFUL"), (7, "~0u"), (8, "-1"), (9, "FULL"), (10, "kAll"), (11, "(0xffffffff)")]
    assert hits[0][1] == "__shfl_sync(0xffffffff"
