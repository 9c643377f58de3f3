"""Kernel verdicts of session 27 (issue 27 class 2) on fixtures/kernels_s27: device functions a kernel reaches only
through a function-like macro's body (porter.kernels.facts.FileContext.macro_calls). Cause read on the development
set heldout26 (a median filter whose sorting network calls its SIMD-in-a-word compare through `#define SWAP_OP`).
Exact verdicts, reasons and lines per target."""
from __future__ import annotations

import pytest

from porter.kernels.facts import FileContext
from porter.pipeline import run
from porter.settings import Settings
from porter.source.parse import parse

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s27"

API002 = ("__vcmpgtu4 (CUDA device) has no HIP equivalent: HIP's headers (checked up to HIP 6.2) do not declare it: "
          "write a helper or rewrite the call.")


@pytest.fixture(scope="module")
def macro_calls():
    result = run(BASE / "macro_calls", Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    return {k.name: k for k in result.kernels}


def test_a_macro_calls_what_its_body_calls_through_the_files_other_macros():
    """sort.cu: PAIR calls cswap (its parameters i, j are no calls), NET3 calls PAIR and through it cswap, BUMP
    calls plain; a macro's bodies include those of the macros it calls."""
    path = BASE / "macro_calls" / "sort.cu"
    sf = parse("sort.cu", "cuda", path.read_bytes())  # kept: the context holds the file weakly
    ctx = FileContext(sf)
    assert ctx.macro_calls == {"PAIR": ("cswap",), "NET3": ("PAIR", "cswap"), "BUMP": ("plain",)}
    assert ctx.macro_bodies == {"PAIR": ("cswap<T, V>(b[i], b[j])",),
                                "NET3": ("PAIR(0, 1); PAIR(1, 2)", "cswap<T, V>(b[i], b[j])"), "BUMP": ("plain(x)",)}


def test_a_kernel_reaches_device_functions_called_only_in_a_macro_body(macro_calls):
    """net_packed (line 11) calls net<unsigned, 4> (8-10), whose body is NET3() -> PAIR(...) -> cswap<T, V>, which
    with T = unsigned and V = 4 is the primary cswap (3) or the specialization cswap<unsigned, 4> (4): the open
    __vcmpgtu4 (API002, high) on line 4 makes it fix on every target. net_scalar (12) calls net(b): V keeps its
    default 1, which selects no `<unsigned, 4>`, so only the primary cswap is reached: ok. bump (15) reaches plain
    (13) through BUMP: ok, plain has nothing to port."""
    k = macro_calls["net_packed"]
    assert [(d.name, d.line, d.end_line) for d in k.facts.device_functions] == [
        ("cswap", 3, 3), ("cswap", 4, 4), ("net", 8, 10)]
    assert verdicts(k) == {t: ("fix", (("API002", API002, (4,)),)) for t in TARGETS}
    k = macro_calls["net_scalar"]
    assert [(d.name, d.line) for d in k.facts.device_functions] == [("cswap", 3), ("net", 8)]
    assert verdicts(k) == {t: ("ok", ()) for t in TARGETS}
    k = macro_calls["bump"]
    assert [(d.name, d.line) for d in k.facts.device_functions] == [("plain", 13)]
    assert verdicts(k) == {t: ("ok", ()) for t in TARGETS}

DEV002 = ("__ballot_sync gets the 32-bit mask 0xffffffff: HIP's *_sync intrinsics require a 64-bit mask type (on every "
          "AMD GPU), and on a 64-lane wavefront (CDNA: MI300X-MI355X) it names lanes 0-31 only.")
DEV003 = ("The 64-bit result of __ballot_sync is truncated to 32 bits here (unsigned): lanes 32-63 of a wave64 "
          "wavefront are lost.")


@pytest.fixture(scope="module")
def alt_bodies():
    result = run(BASE / "alt_bodies", Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    return {k.name: k for k in result.kernels}


def test_alternative_bodies_are_found_as_spans_of_the_kept_arm_and_the_group():
    """bodies.cu: the group of lines 3-15 follows count_positive's head; the kept arm is the first (SERIAL_DEBUG is
    not known false), body lines 4-6, and the group's last line before `#endif` is 14."""
    from porter.source.preprocessor import alternative_body_spans

    data = (BASE / "alt_bodies" / "bodies.cu").read_bytes()
    assert alternative_body_spans(data) == ((4, 6, 14),)


def test_a_kernel_with_alternative_bodies_runs_to_the_endif_and_counts_the_other_arm(alt_bodies):
    """count_positive's extent is lines 2-14 (the parser saw the body of lines 4-6 only): the open __ballot_sync
    with a 32-bit mask stored in `unsigned` on line 11 (DEV002, DEV003, high) is in it, so it is fix on wave64 (ok on
    wave32, where the findings say nothing). fill (17) starts after the group: ok."""
    k = alt_bodies["count_positive"]
    assert (k.line, k.end_line) == (2, 14)
    fix = ("fix", (("DEV002", DEV002, (11,)), ("DEV003", DEV003, (11,))))
    assert verdicts(k) == {"mi300x": fix, "mi355x": fix, "mi455x": ("ok", ())}
    k = alt_bodies["fill"]
    assert (k.line, k.end_line) == (17, 17)
    assert verdicts(k) == {t: ("ok", ()) for t in TARGETS}


def test_the_scan_deduces_a_functor_kernels_class_from_a_launch_passing_this():
    """layer.cuh:10 `layer<<<n, BLOCK>>>((*this))` in LayerKernel::launch gives the launch the template argument
    list `<LayerKernel>` (the kernel template's parameter is deduced from `*this`); a launch passing anything else
    gets none."""
    from porter.source import syntax

    sf = parse("layer.cuh", "cuda", (BASE / "functor" / "layer.cuh").read_bytes())
    assert [(l.kernel, l.line, l.template_arguments) for l in syntax.launches(sf)] == [("layer", 10, "<LayerKernel>")]
    sf = parse("k.cu", "cuda", b"struct S { void go(S* p) { k<<<1, 64>>>(*p); } };\n")
    assert [(l.kernel, l.template_arguments) for l in syntax.launches(sf)] == [("k", None)]


def test_a_functor_kernel_runs_the_operator_of_the_class_that_launches_it():
    """layer.cu: `kernel()` on the parameter `const T kernel` (line 8) is T::operator(), bound by the launch to
    LayerKernel::operator() (defined outside its class, lines 12-17), whose `C cache(keys)` is a Cache (a local
    alias; a parser reads the line as a function declaration) and whose cache.fetch (cache.cuh:6) stores a 32-bit
    __ballot_sync with a 32-bit mask: fix on every target, via that chain. trampoline (plain.cu), which no launch
    binds, calls nothing porter can follow: ok."""
    result = run(BASE / "functor", Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    k = {x.name: x for x in result.kernels}
    via = "; via LayerKernel::operator() → Cache.fetch (cache.cuh:6)"
    wave64 = ("fix", (("wave64-ballot-32bit", "__ballot_sync stored in `unsigned` drops lanes 32-63" + via, (8,)),
                      ("wave64-full-mask", "0xffffffff mask in 1 warp operation(s) covers 32 of 64 lanes" + via,
                       (8,))))
    wave32 = ("fix", (("mask-32bit-type", "1 *_sync call(s) pass a 32-bit mask type; HIP needs unsigned long long"
                       + via, (8,)),))
    assert verdicts(k["layer"]) == {"mi300x": wave64, "mi355x": wave64, "mi455x": wave32}
    assert [h.chain for h in k["layer"].facts.helpers] == [("LayerKernel::operator()", "Cache.fetch")]
    assert verdicts(k["trampoline"]) == {t: ("ok", ()) for t in TARGETS}
    # local.cu: the launch `run_local<<<4, 256>>>(*this)` in the out-of-class Flag::launch (line 12) of the kernel's
    # own file binds K to Flag, whose operator() (line 4) stores a 32-bit ballot
    via = "; via Flag::operator() (local.cu:4)"
    wave64 = ("fix", (("wave64-ballot-32bit", "__ballot_sync stored in `unsigned` drops lanes 32-63" + via, (11,)),
                      ("wave64-full-mask", "0xffffffff mask in 1 warp operation(s) covers 32 of 64 lanes" + via,
                       (11,))))
    wave32 = ("fix", (("mask-32bit-type", "1 *_sync call(s) pass a 32-bit mask type; HIP needs unsigned long long"
                       + via, (11,)),))
    assert verdicts(k["run_local"]) == {"mi300x": wave64, "mi355x": wave64, "mi455x": wave32}
