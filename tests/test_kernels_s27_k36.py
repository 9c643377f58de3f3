"""Kernel verdicts of session 27 (helper k36, issue 27 class 2) on fixtures/kernels_s27_k36: a kernel reaches a
class's member functions through the class's overloaded operators (`a * b`, `t *= b` on objects of a declared class
type: porter.kernels.member_calls.operator_expression_key), through `this->f(...)`/`*this` inside a member, and
through a member function template called with explicit arguments (`h.Run<int>(...)`). Cause read on the development
set heldout36 (cuFHE: its prime-field class's Add/Mul are inline PTX, reached only through operators). Exact
verdicts, reasons and lines per target."""
from __future__ import annotations

import pytest

from porter.kernels.member_calls import operator_expression_key
from porter.pipeline import run
from porter.settings import Settings
from porter.source.parse import parse

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s27_k36" / "operators"


@pytest.fixture(scope="module")
def kernels():
    result = run(BASE, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    return {k.name: k for k in result.kernels}


def _keys(source: bytes) -> list[tuple[str, str | None]]:
    sf = parse("t.cu", "cuda", source)
    out: list[tuple[str, str | None]] = []

    def go(n):
        if n.type in ("binary_expression", "assignment_expression"):
            out.append((n.text.decode(), operator_expression_key(n, {})))
        for c in n.children:
            go(c)
    go(sf.tree.root_node)
    return out


def test_an_operator_on_an_object_of_a_class_type_is_that_class_s_operator():
    """The left operand's declared class gives the key (through a subscript, `*p` and `*this`); plain assignment,
    relational operators, built-in operands, a template type parameter and pointer or array arithmetic (`a + 1` on
    an `Fp *a`, `u + 1` on an `Fp u[2]`) give none."""
    src = (b"struct Fp { __device__ Fp& operator*=(const Fp& a) { *this *= a; return *this; } };\n"
           b"template <typename T> __device__ T twice(T x) { return x + x; }\n"
           b"__global__ void k(Fp* a, float* f) { Fp t; t -= a[0]; a[1] = a[2] * t; f[0] = f[1] * 2.0f;"
           b" bool b = a[0] < t; Fp u[2]; const Fp* q = a + 1; q = u + 1; t = (*a) + u[1]; }\n")
    assert _keys(src) == [
        ("*this *= a", "Fp.operator*="), ("x + x", None), ("t -= a[0]", "Fp.operator-="), ("a[1] = a[2] * t", None),
        ("a[2] * t", "Fp.operator*"), ("f[0] = f[1] * 2.0f", None), ("f[1] * 2.0f", None), ("a[0] < t", None),
        ("a + 1", None), ("q = u + 1", None), ("u + 1", None), ("t = (*a) + u[1]", None), ("(*a) + u[1]", "Fp.operator+")]


def test_kernels_reach_a_class_s_inline_ptx_through_its_operators_and_member_templates(kernels):
    """Each of the four kernels reaches Fp::Reduce's `add.u64` (field.cuh:7) through a member in field.cuh: the
    inline-ptx check fires via that member, at the kernel's line that calls into it. Before this mechanism all four
    were ok (the operators, `this->Mul` and `h.Run<int>` were not followed), and so was `difference`."""
    ptx = "1 inline PTX statement (add): add → +; via "
    expected = {"scale": ("Fp.operator* (inc/field.cuh:16)", 4), "accumulate": ("Fp.operator*= (inc/field.cuh:15)", 8),
                "power": ("Fp::Power (inc/field.cuh:19)", 11), "transform": ("Handler.Run (inc/field.cuh:25)", 12)}
    for name, (via, line) in expected.items():
        assert verdicts(kernels[name]) == {t: ("fix", (("inline-ptx", ptx + via, (line,)),)) for t in TARGETS}, name
    assert kernels["scale"].facts.calls == (("Fp.operator*", 4),)
    # a non-member operator is keyed by its first parameter's class (argument-dependent lookup): Gp's `operator-`
    # (field.cuh:29) holds `sub.u64`
    assert kernels["difference"].facts.calls == (("Gp.operator-", 15),)
    assert verdicts(kernels["difference"]) == {
        t: ("fix", (("inline-ptx", "1 inline PTX statement (sub): sub → -; via Gp.operator- (inc/field.cuh:29)",
                     (15,)),)) for t in TARGETS}
    assert kernels["transform"].facts.calls == (("Handler.Run", 12),)


def test_a_relational_operator_and_built_in_arithmetic_reach_nothing(kernels):
    for name in ("compare", "plain"):
        assert kernels[name].facts.calls == ()
        assert verdicts(kernels[name]) == {t: ("ok", ()) for t in TARGETS}
