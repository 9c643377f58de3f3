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
    calls plain."""
    path = BASE / "macro_calls" / "sort.cu"
    sf = parse("sort.cu", "cuda", path.read_bytes())  # kept: the context holds the file weakly
    assert FileContext(sf).macro_calls == {"PAIR": ("cswap",), "NET3": ("PAIR", "cswap"), "BUMP": ("plain",)}


def test_a_kernel_reaches_device_functions_called_only_in_a_macro_body(macro_calls):
    """net_packed (line 11) calls net<unsigned, 4> (8-10), whose body is NET3() -> PAIR(...) -> cswap<T, V>: both
    cswap specialisations (lines 3, 4) are its device functions, and the open __vcmpgtu4 (API002, high) on line 3
    makes it fix on every target. bump (14) reaches plain (12) through BUMP: ok, plain has nothing to port."""
    k = macro_calls["net_packed"]
    assert [(d.name, d.line, d.end_line) for d in k.facts.device_functions] == [
        ("cswap", 3, 3), ("cswap", 4, 4), ("net", 8, 10)]
    assert verdicts(k) == {t: ("fix", (("API002", API002, (3,)),)) for t in TARGETS}
    k = macro_calls["bump"]
    assert [(d.name, d.line) for d in k.facts.device_functions] == [("plain", 12)]
    assert verdicts(k) == {t: ("ok", ()) for t in TARGETS}
