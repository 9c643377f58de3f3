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
