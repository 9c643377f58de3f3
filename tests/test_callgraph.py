"""Facts of device helpers in other files belong to the kernels that call them (porter.kernels.callgraph), on
fixtures/callgraph: exact verdicts and reasons, the cache, `porter history` on a real git repository."""
from __future__ import annotations

import pytest

from porter.history.points import history
from porter.history.walk import walk
from porter.pipeline import run
from porter.settings import Settings
from porter.source.includes import file_includes, resolve_include
from porter.source.parse import parse

from conftest import FIXTURES
from helpers import git, make_repo

CALLGRAPH = FIXTURES / "callgraph"
TARGETS = ("mi300x", "mi455x")


def verdicts(result) -> dict[str, dict[str, tuple]]:
    """{kernel: {target: (verdict, ((check, verdict, message, lines), ...))}}"""
    return {k.name: {t: (v.verdict, tuple((d.id, d.verdict, d.message, d.lines) for d in v.details))
                     for t in TARGETS if (v := k.verdict_on(t)) is not None} for k in result.kernels}


# What the PTX table (rules/kb/ptx.yaml) says replaces mma.sync.
MMA = ("1 inline PTX statement (mma.sync): MFMA (CDNA) / WMMA (gfx12) through rocWMMA, Composable Kernel or"
       " __builtin_amdgcn_mfma_*, with AMD's fragment layouts")

LABELED = ("labeled_partition: not provided by HIP's cooperative groups; rewrite with tiled_partition /"
           " coalesced_threads and explicit shuffles")

EXPECTED = {
    "mma_kernel": {t: ("rewrite", (("inline-ptx-matrix", "rewrite",
                                    MMA + "; via tile_mma (include/mma_helpers.cuh:3)",
                                    (8,)),)) for t in TARGETS},
    "chain_kernel": {
        # the xor reduction from 16 is a logical 32-lane warp (issue 27 class 6): its 32-bit mask is the fault
        "mi300x": ("fix", (
            ("wave64-full-mask", "fix", "0xffffffff mask in 1 warp operation(s) covers 32 of 64 lanes; "
                                        "via outer_step → inner_sum (include/inner.cuh:3)", (13,)),)),
        "mi455x": ("fix", (
            ("mask-32bit-type", "fix", "1 *_sync call(s) pass a 32-bit mask type; HIP needs unsigned long long; "
                                       "via outer_step → inner_sum (include/inner.cuh:3)", (13,)),)),
    },
    # ping and pong call each other across two headers that include each other: the walk ends, pong counts once.
    "cycle_kernel": {
        "mi300x": ("fix", (
            ("wave64-ballot-32bit", "fix", "__ballot_sync stored in `unsigned` drops lanes 32-63; "
                                           "via ping → pong (include/pong.cuh:6)", (17,)),
            ("wave64-full-mask", "fix", "0xffffffff mask in 1 warp operation(s) covers 32 of 64 lanes; "
                                        "via ping → pong (include/pong.cuh:6)", (17,)))),
        "mi455x": ("fix", (
            ("mask-32bit-type", "fix", "1 *_sync call(s) pass a 32-bit mask type; HIP needs unsigned long long; "
                                       "via ping → pong (include/pong.cuh:6)", (17,)),)),
    },
    # tile_mma_twice's own text holds no fact (walked for its calls only); its same-file callee's mma.sync counts.
    "twice_kernel": {t: ("rewrite", (("inline-ptx-matrix", "rewrite", MMA + "; via tile_mma_twice "
                                      "(include/mma_helpers.cuh:10)", (30,)),)) for t in TARGETS},
    # twice_defined is in dup/x.cuh (a 32-bit shuffle) and dup/y.cuh (none), neither included: not followed.
    "ambiguous_kernel": {t: ("ok", ()) for t in TARGETS},
    # guarded_load's PTX is in the arm only the CUDA build compiles; the ROCm arm is plain HIP.
    "guarded_kernel": {t: ("ok", ()) for t in TARGETS},
    # floor.cu (issue 27 class 2): no named check measures cg::labeled_partition; the open DEV008 finding (high)
    # inside the kernel, or inside a templated helper of another file, makes the kernel a fix all the same; a helper's
    # finding counts at the kernel's call into it (line 12), so port status reads that line (session 16).
    "labeled_kernel": {t: ("fix", (("DEV008", "fix", LABELED + ".", (7,)),)) for t in TARGETS},
    "labeled_via_helper_kernel": {t: ("fix", (("DEV008", "fix", LABELED + "; in helper label_sum "
                                                "(include/floor_helpers.cuh:7), line 8", (12,)),)) for t in TARGETS},
    # the helper's labeled_partition is in the arm only the CUDA build compiles (#ifdef USE_ROCM ... #else)
    "labeled_guarded_kernel": {t: ("ok", ()) for t in TARGETS},
}


@pytest.fixture(scope="module")
def scanned():
    return run(CALLGRAPH, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result


def test_helper_facts_reach_the_calling_kernels(scanned):
    assert verdicts(scanned) == EXPECTED


def test_helpers_say_where_they_are(scanned):
    by_name = {k.name: k for k in scanned.kernels}
    assert [(h.chain, h.path, h.line, h.call_line) for h in by_name["chain_kernel"].facts.helpers] == [
        (("outer_step", "inner_sum"), "include/inner.cuh", 3, 13)]
    assert [(h.chain, h.path, h.line, h.call_line) for h in by_name["cycle_kernel"].facts.helpers] == [
        (("ping", "pong"), "include/pong.cuh", 6, 17)]
    assert by_name["ambiguous_kernel"].facts.calls == (("twice_defined", 21),)
    assert by_name["ambiguous_kernel"].facts.helpers == ()
    d = by_name["mma_kernel"].to_dict()
    assert d["helpers"] == [{"chain": ["tile_mma"], "path": "include/mma_helpers.cuh", "line": 3, "call_line": 8,
                             "facts": {"inline_ptx": {"statements": 1, "families": ["mma.sync"], "lines": [4]},
                                       "tensor_cores": ["mma.sync"]}}]
    # the kernel's own facts stay its own; the merge is what the checks judge
    assert d["tensor_cores"] == [] and by_name["mma_kernel"].facts.merged().tensor_cores == ("mma.sync",)


def test_analysing_again_gives_the_same_helpers(scanned):
    from porter.kernels.verdicts import analyse

    again = analyse(scanned, list(TARGETS))
    assert verdicts(again) == EXPECTED
    assert [k.facts.helpers for k in again.kernels] == [k.facts.helpers for k in scanned.kernels]


def test_the_merge_works_from_the_cache(tmp_path):
    settings = Settings(jobs=1, cache_dir=tmp_path / "cache", targets=TARGETS)
    first = run(CALLGRAPH, settings).result
    second = run(CALLGRAPH, settings).result
    assert second.stats.cache_misses == 0 and second.stats.cache_hits == first.stats.cache_misses > 0
    assert verdicts(first) == verdicts(second) == EXPECTED


def test_a_changed_helper_changes_the_kernel_in_history(tmp_path):
    """The kernel's file never changes; the helper it calls gains an mma.sync at the second commit."""
    kernel = '#include "helpers.cuh"\n__global__ void k(float *x) { x[threadIdx.x] = step(x[threadIdx.x]); }\n'
    plain = "#pragma once\n__device__ float step(float v) { return v * 2.0f; }\n"
    root = make_repo(tmp_path / "repo", {"src/k.cu": kernel, "include/helpers.cuh": plain})
    (root / "include/helpers.cuh").write_text(
        "#pragma once\n__device__ float step(float v) {\n"
        '    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0}, {%0}, {%0}, {%0};" : "+f"(v));\n'
        "    return v;\n}\n")
    git(root, "commit", "-qam", "mma in the helper")
    points = history(walk(root), Settings(cache_dir=tmp_path / "cache", jobs=1, targets=("mi300x",))).points
    assert [p.open_kernels for p in points] == [{"mi300x": 0}, {"mi300x": 1}]


def test_include_resolution():
    files = frozenset({"src/a.cu", "src/util.cuh", "include/lib/util.cuh", "third/include/lib/util.cuh", "b.h"})
    assert resolve_include("src/a.cu", "util.cuh", True, files) == "src/util.cuh"  # next to the includer
    assert resolve_include("src/a.cu", "lib/util.cuh", False, files) == "include/lib/util.cuh"  # -I, shortest
    assert resolve_include("third/x.cu", "lib/util.cuh", True, files) == "third/include/lib/util.cuh"  # nearest
    assert resolve_include("src/a.cu", "../b.h", True, files) == "b.h"
    assert resolve_include("src/a.cu", "cuda_runtime.h", False, files) is None
    assert file_includes(parse("x.cu", "cuda", b'#include "a.h"\n  #  include <b/c.h>\n// #include "no.h"\n#include "a.h"\n'
                                                b'/*\n#include "in_comment.h"\n*/\n#include CONFIG_HEADER\n')) == (
        ("a.h", True), ("b/c.h", False))


def test_a_kernel_calling_a_member_of_its_own_name_follows_it(tmp_path):
    """xformers' `sparse24_apply_kernel(p) { KT::sparse24_apply_kernel(p); }`: the qualified call is a static member
    of the traits type (in another header), not the kernel calling itself, so it is followed."""
    (tmp_path / "traits.h").write_text(
        "struct KT {\n"
        "  static __device__ void apply(float* x) {\n"
        "    x[threadIdx.x] += __shfl_xor_sync(0xffffffff, x[threadIdx.x], 1);\n"
        "  }\n"
        "};\n")
    (tmp_path / "apply.cu").write_text(
        '#include "traits.h"\n'
        "template <typename T>\n"
        "__global__ void apply(float* x) {\n"
        "  T::apply(x);\n"
        "}\n"
        "template __global__ void apply<KT>(float*);\n")
    result = run(tmp_path, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    (k,) = [k for k in result.kernels if k.name == "apply"]
    assert [(h.chain, h.path, h.line, h.call_line) for h in k.facts.helpers] == [(("T::apply",), "traits.h", 2, 4)]
    v = k.verdict_on("mi300x")
    assert (v.verdict, [d.id for d in v.details]) == ("fix", ["wave64-full-mask"])
    assert v.details[0].message.endswith("; via T::apply (traits.h:2)")


def test_the_kernel_stage_honours_configured_rocm_macros(tmp_path):
    # guarded.cuh's ROCm arm behind a project switch no heuristic knows: only configuration's rocm_macros says the
    # `#else` (PTX) is the CUDA build's arm, for the kernel stage as for port status.
    import shutil

    shutil.copytree(CALLGRAPH, tmp_path / "cg")
    guarded = tmp_path / "cg" / "include" / "guarded.cuh"
    guarded.write_text(guarded.read_text().replace("#ifdef USE_ROCM", "#ifdef PROJ_ALT_BUILD"))

    def guarded_kernel(**how):
        result = run(tmp_path / "cg", Settings(jobs=1, cache_dir=None, targets=TARGETS, **how)).result
        return verdicts(result)["guarded_kernel"]["mi300x"][0]

    assert guarded_kernel() == "fix"
    assert guarded_kernel(rocm_macros=("PROJ_ALT_BUILD",)) == "ok"
