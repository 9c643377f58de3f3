"""The token prefilter (porter.match.tokens) skips a pattern only when the file lacks a token it needs."""
from __future__ import annotations

from porter.match.tokens import may_hit
from porter.source.parse import parse

SYNC = {"member_call": {"method": "sync", "types": ["grid_group"], "inits": ["this_grid"]}}


def sf(text: str):
    return parse("k.cu", "cuda", text.encode())


def test_member_call_needs_its_method_and_a_type_or_initialiser_token():
    assert may_hit(SYNC, sf("__global__ void k() { auto g = cg::this_grid(); g.sync(); }"))
    assert may_hit(SYNC, sf("__device__ void f(cg::grid_group& g) { g.sync(); }"))
    assert not may_hit(SYNC, sf("__global__ void k() { auto b = cg::this_thread_block(); b.sync(); }"))
    assert not may_hit(SYNC, sf("__global__ void k() { auto g = cg::this_grid(); g.size(); }"))
    # Words in comments and strings are not code tokens: the matcher could not hit there either.
    assert not may_hit(SYNC, sf('// this_grid().sync()\nconst char* s = "grid_group sync";'))


def test_kinds_without_a_stated_requirement_always_run():
    assert may_hit({"regex": "anything"}, sf("int x;"))
    assert may_hit({"launch": {"kinds": ["chevron"]}}, sf("int x;"))


def test_whole_file_queries_run_together_give_what_each_gives_alone():
    """porter.source.parse.captures runs the registered whole-file queries as one; each caller must see exactly
    the captures (nodes and order) its own query gives."""
    import tree_sitter as ts

    import porter.match.kinds.embedded  # noqa: F401 - modules register their whole-file queries on import
    import porter.source.syntax  # noqa: F401
    from porter.source.parse import query, registered_root_queries

    text = ('#include <cuda.h>\nstatic const unsigned char kCubin_sm80[] = {1, 2, 3};\n'
            '__global__ void k(float* p, int n) { int i = f(n); float* q = p; g(q, i); }\n'
            'void h(int); /* c */ const char* s = "x";\n')
    f = sf(text)
    from porter.source.parse import captures

    sources = registered_root_queries("cuda")
    assert len(sources) >= 6
    for source in sources:
        alone = ts.QueryCursor(query("cuda", source)).captures(f.root)
        together = captures("cuda", source, f.root)
        assert {k: [(n.start_byte, n.end_byte) for n in v] for k, v in together.items()} == \
               {k: [(n.start_byte, n.end_byte) for n in v] for k, v in alone.items()}
