"""The matching stage's fast paths give exactly what the plain code they stand in for gave.

Each cut in porter/match (issue 16's speed work) replaced a general step with a cheaper one that must answer the
same: a look-behind checked by hand, a regex moved to RE2, several globs as one regex, node kinds compared by id,
a memo kept for the scan. These tests hold each one to the plain form on inputs chosen to tell them apart.
"""
from __future__ import annotations

import fnmatch
import random
import re

from porter.match import engine
from porter.match.base import MatchContext, per_object
from porter.match.kinds import code, code_device, code_lanes, code_regex, embedded
from porter.rules import load_rules
from porter.source.parse import parse
from porter.source.syntax import index


def _lane_pattern() -> dict:
    return next(p for r in load_rules().rules for p in r.patterns if "lane_mask" in p)


def _lane_reference(pattern: dict, sf) -> list[tuple[int, int, str, tuple]]:
    """match_lane_mask as it was: finditer of the whole regex, look-behind included, on `re`."""
    out = []
    names = code_lanes.full_mask_names(sf)
    for m in re.compile(code_regex.lane_mask_regex(pattern["lane_mask"]).encode()).finditer(sf.code):
        text = m.group("hit").strip()
        if code_lanes.FULL_MASK.match(text) or text in names:
            trail = len(m.group("hit")) - len(m.group("hit").rstrip())
            out.append((m.start("fn"), m.end("hit") - trail, m.group("fn").decode(),
                        (("mask", text.decode("utf-8", "replace")),)))
    return out


def test_lane_mask_checks_its_guard_as_the_look_behind_did():
    pattern = _lane_pattern()
    source = (b"#define FULL 0xffffffff\n"
              b"__device__ int f(int v) {\n"
              b"  v += __shfl_sync(0xffffffff, v, 1);\n"        # a hit
              b"  v += my__shfl_sync(0xffffffff, v, 1);\n"      # a longer name: no hit
              b"  v += w.__shfl_sync(0xffffffff, v, 1);\n"      # a member: no hit
              b"  v += p->__shfl_sync(0xffffffff, v, 1);\n"     # a member through a pointer: no hit
              b"  v += x__shfl_xor_sync(FULL, __shfl_down_sync(FULL, v, 2), 4);\n"  # only the inner call
              b"  return __ballot_sync(-1, v) + __shfl_up_sync(0xfffffffe, v, 1);\n"  # -1 hits, the other not
              b"}\n")
    sf = parse("t.cu", "cuda", source)
    found = [(h.start, h.end, h.name, h.values) for h in code_lanes.match_lane_mask(pattern, sf, MatchContext())]
    assert found == _lane_reference(pattern, sf)
    assert [name for _, _, name, _ in found] == ["__shfl_sync", "__shfl_down_sync", "__ballot_sync"]


def test_lane_mask_agrees_with_the_look_behind_on_random_text():
    pattern = _lane_pattern()
    pieces = [b" ", b"(", b")", b",", b"x", b".", b">", b"_", b"0xffffffff", b"-1", b"\n", b"\xff", b"FULL",
              b"#define FULL 0xffffffff\n", b"__shfl_sync", b"__ballot_sync", b"__shfl_xor_sync"]
    rng = random.Random(16)
    for _ in range(3000):
        sf = parse("t.cu", "cuda", b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 14))))
        found = [(h.start, h.end, h.name, h.values) for h in code_lanes.match_lane_mask(pattern, sf, MatchContext())]
        assert found == _lane_reference(pattern, sf), sf.data


def test_warp_level_work_on_re2_is_found_where_re_found_it():
    plain = re.compile(code_device._WARP_LEVEL.pattern.encode())  # the same regex on `re`, as it ran before
    pieces = [b"warp", b"Warp", b"WARP", b" ", b"\x0b", b"\t", b"<", b">", b"(", b";", b"\xff", b"\xc3\xa9", b"x",
              b"_", b"mma", b".sync", b"__shfl", b"__any", b"__all", b"\n", b"{", b"WarpReduce", b"1", b"ldmatrix"]
    rng = random.Random(32)
    for _ in range(20000):
        text = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        a, b = plain.search(text), code_device._WARP_LEVEL.search(text)
        assert (a is None) == (b is None) and (a is None or a.span() == b.span()), text


def test_several_globs_as_one_regex_match_as_fnmatchcase_does():
    globs = ("cuda/*.h", "cuda/*.cuh", "cudnn_*.h", "cutlass/*", "npp*.h", "NvInfer*.h", "[ab]?x", "a[!c]b", "q")
    matches = code_regex.any_glob(globs)
    pieces = ["cuda/", "x", ".h", ".cuh", "cudnn", "_", "cutlass/", "npp", "\n", "NvInfer", "a", "b", "c", "/", "q"]
    rng = random.Random(64)
    for _ in range(20000):
        name = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 5)))
        assert bool(matches(name)) == any(fnmatch.fnmatchcase(name, g) for g in globs), name
    assert not code_regex.any_glob(())("anything")


def test_prefix_identifiers_skip_a_file_without_the_prefix_but_keep_its_exact_names():
    pattern = {"identifiers": ["__nv_fp8*", "__NV_E4M3"]}
    ctx = MatchContext()
    with_prefix = parse("a.cu", "cuda", b"__NV_E4M3 a; __nv_fp8_e4m3 b; __nv_fp8x2_e5m2 c; __NV_E4M3 d;\n")
    assert [h.name for h in code.match_identifiers(pattern, with_prefix, ctx)] == [
        "__NV_E4M3", "__NV_E4M3", "__nv_fp8_e4m3", "__nv_fp8x2_e5m2"]  # tokens in order of first occurrence
    exact_only = parse("b.cu", "cuda", b"int x = __NV_E4M3; // __nv_fp8 in a comment\n")
    assert [(h.start, h.name) for h in code.match_identifiers(pattern, exact_only, ctx)] == [(8, "__NV_E4M3")]
    neither = parse("c.cu", "cuda", b"int x = 1; /* __nv_fp8 */\n")
    assert code.match_identifiers(pattern, neither, ctx) == ()


def _arrays_by_type_names(sf):
    """embedded._arrays as it was: node kinds and fields by name."""
    for d in index(sf).declarators:
        if d.type != "init_declarator":
            continue
        array, init = d.child_by_field_name("declarator"), d.child_by_field_name("value")
        if array is None or init is None or array.type != "array_declarator" or init.type != "initializer_list":
            continue
        name = array.child_by_field_name("declarator")
        if name is not None and name.type == "identifier":
            yield name, init


def test_arrays_by_grammar_ids_are_the_arrays_by_type_names():
    source = (b"static const unsigned char kernel_sm80_cubin[] = {1, 2, 3};\n"
              b"unsigned char grid[2][2] = {{1, 2}, {3, 4}};\n"
              b"int *ptrs[2] = {0, 0}, plain = 3, sized[3] = {1};\n"
              b"char text[] = \"abc\";\n"
              b"struct S { int m[2]; } s = {{1, 2}};\n"
              b"void f() { float local[4] = {0}; }\n")
    sf = parse("t.cu", "cuda", source)
    got = [(n.start_byte, n.end_byte, i.start_byte) for n, i in embedded._arrays(sf)]
    assert got == [(n.start_byte, n.end_byte, i.start_byte) for n, i in _arrays_by_type_names(sf)]
    assert [source[a:b] for a, b, _ in got] == [b"kernel_sm80_cubin", b"sized", b"local"]


def test_a_regex_the_file_cannot_match_returns_no_generator():
    pattern = {"regex": r"\bthrust\s*::\s*cuda\b"}
    sf = parse("t.cu", "cuda", b"int main() { return 0; }\n")
    assert code.match_regex(pattern, sf, MatchContext()) == ()


def test_per_object_answers_per_object_not_per_equal_value():
    calls = []
    read = per_object(lambda obj: calls.append(dict(obj)) or len(calls), limit=2)
    a, b = {"k": 1}, {"k": 1}
    assert (read(a), read(a), read(b)) == (1, 1, 2)  # equal objects are asked about separately
    assert read({"k": 2}) == 3 and read(a) == 4  # at the limit the memo started again
    assert calls == [{"k": 1}, {"k": 1}, {"k": 2}, {"k": 1}]


def test_a_message_is_worded_once_per_scan_and_the_memo_stays_bounded(monkeypatch):
    rules = [r for r in load_rules().rules if "cuda" in r.languages]
    ctx = MatchContext()
    first = engine.run_rules(parse("a.cu", "cuda", b"void f(float* p) { cudaMalloc(&p, 4); }\n"), rules, ctx)[0]
    memo = ctx.memo["engine.worded"]
    worded = len(memo)
    second = engine.run_rules(parse("b.cu", "cuda", b"void g(float* q) { cudaMalloc(&q, 8); }\n"), rules, ctx)[0]
    assert [f.message for f in first if f.rule == "API001"] == [f.message for f in second if f.rule == "API001"]
    assert ctx.memo["engine.worded"] is memo and len(memo) == worded  # the second file's kb message was known
    monkeypatch.setattr(engine, "_WORDED_LIMIT", 0)
    engine.run_rules(parse("c.cu", "cuda", b"void h() { cudaFree(0); }\n"), rules, ctx)
    assert ctx.memo["engine.worded"] is not memo and len(ctx.memo["engine.worded"]) <= len(memo)


def test_a_regex_rule_none_of_whose_patterns_can_match_is_skipped_whole(monkeypatch):
    """A rule of regex patterns only is not run on a file whose one set search says none of them can match there
    (code_regex.may_fire); where one can, every pattern runs as before and the findings are the same."""
    import dataclasses
    from pathlib import Path

    rule = next(r for r in load_rules().rules if r.id == "DEV011")  # twelve regex patterns
    engine.prepare_rules([rule])
    gate = code_regex.regex_gate(rule.patterns)
    assert gate is not None and sum(len(known) for _, known in gate) == len(rule.patterns)
    fixture = next(Path("fixtures/rules").glob(f"{rule.id}-*/k.cu"))  # the fixture directory's main sample
    with_hits = parse(fixture.name, "cuda", fixture.read_bytes())
    without = parse("t.cu", "cuda", b"int main() { int x = 1; return x; }\n")
    assert code_regex.may_fire(gate, with_hits) and not code_regex.may_fire(gate, without)
    asked = []
    spy = lambda pattern, sf, ctx: asked.append(sf.path) or code.match_regex(pattern, sf, ctx)  # noqa: E731
    monkeypatch.setitem(engine.MATCHERS, "regex", spy)
    fresh = dataclasses.replace(rule)  # planned again, with the spy as its matcher
    found = engine.run_rules(with_hits, [fresh], MatchContext())[0]
    assert found and all(f.rule == rule.id for f in found) and asked.count(fixture.name) == len(rule.patterns)
    assert engine.run_rules(without, [fresh], MatchContext()) == ([], []) and "t.cu" not in asked


def test_a_feature_rule_is_skipped_only_where_neither_its_names_nor_its_regexes_can_hit():
    """DEV012's features wrap exact identifiers and regexes: the rule runs on a file holding one of the names as a
    code token or text one of its regexes may match, and is skipped (no finding lost) on every other file."""
    rule = next(r for r in load_rules().rules if r.id == "DEV012")
    engine.prepare_rules([rule])
    gate = engine._gate(rule)
    assert gate is not None and b"__pipeline_commit" in gate[1] and gate[0]
    ctx = MatchContext()
    name = parse("a.cu", "cuda", b"__global__ void k() { __pipeline_commit(); }\n")
    regex = parse("b.cu", "cuda", b"__global__ void k() { cuda::memcpy_async(a, b, 4, bar); }\n")
    comment = parse("c.cu", "cuda", b"__global__ void k() { /* __pipeline_commit(); */ }\n")
    assert engine._may_fire(gate, name) and engine._may_fire(gate, regex) and not engine._may_fire(gate, comment)
    assert [f.line for f in engine.run_rules(name, [rule], ctx)[0]] == [1]
    assert [f.line for f in engine.run_rules(regex, [rule], ctx)[0]] == [1]
    assert engine.run_rules(comment, [rule], ctx) == ([], [])
    assert engine._gate(next(r for r in load_rules().rules if r.id == "DEV001")) is None  # a query pattern: no gate
