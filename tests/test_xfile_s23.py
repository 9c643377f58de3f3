"""Kernel verdicts through helpers in other files reached by qualified and templated calls (issue 27 class 2,
session 23) on fixtures/kernels_s23/xfile, reduced from era-bellman-cuda (heldout24): a kernel is at least as severe
as the open findings in every helper it reaches - the helper's same-file callees included, an overload set by the
callees all its definitions share, `Q::f` by qualified lookup (through launches' template arguments and type
aliases) - and a `__host__` call in the `__CUDA_ARCH__` arm
hip-clang's device pass compiles is a finding of its own (DEV042). Exact verdicts, reasons and lines per target."""
from __future__ import annotations

import pytest

from porter.kernels.callgraph import helper_index, helper_spans, type_aliases_of
from porter.pipeline import run
from porter.settings import Settings
from porter.source.parse import unqualified

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s23" / "xfile"
LDCG = ("__ldcg on a non-half pointer: HIP declares __ldcg only for __half and __half2, so this does not compile "
        "after hipify; use a plain load (or __builtin_nontemporal_load for the streaming hint)")
LDCA = LDCG.replace("__ldcg", "__ldca")
DEV042 = ("mul_host is declared __host__ only (line 12) and called in the arm of `#ifdef __CUDA_ARCH__` that "
          "hip-clang's device pass compiles (it never defines __CUDA_ARCH__): mul does not compile for the GPU once a "
          "kernel uses it (\"reference to __host__ function 'mul_host' in __host__ __device__ function\")")


@pytest.fixture(scope="module")
def result():
    return run(BASE, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result


@pytest.fixture(scope="module")
def kernels(result):
    return {k.name: k for k in result.kernels}


def test_a_finding_in_a_same_file_callee_of_every_overload_is_the_kernels(kernels):
    """copy_kernel (line 9) calls `memory::load<T, memory::ld_modifier::cg>` (line 13): memory.cuh defines two
    overloads (lines 31, 36), each calling `ld` (line 20), which calls `ld_single` (line 7), whose `__ldcg` and
    `__ldcs` (lines 12, 14) HIP lacks for uint4. Which overload runs is not known, but both run ld_single: fix at
    the kernel's call line, both findings named."""
    detail = ("DEV027", LDCG + "; in helper memory::load (memory.cuh:31), line 12, memory::load (memory.cuh:31), "
              "line 14", (13,))
    assert verdicts(kernels["copy_kernel"]) == {t: ("fix", (detail,)) for t in TARGETS}


def test_a_host_call_in_the_arm_hip_compiles_makes_the_kernel_a_fix(kernels, result):
    """mul_kernel (line 17) calls `FD::template mul<1>` (line 21): `template` is no part of the name, the launch
    `mul_kernel<fd>` binds FD to fd, and `typedef field<config> fd;` makes that field's static `mul`
    (field.cuh:18), whose `#else` of `#ifdef __CUDA_ARCH__` - what hip-clang's device pass compiles - calls the
    HOST_INLINE `mul_host` (line 22: DEV042)."""
    assert [(f.path, f.line) for f in result.findings if f.rule == "DEV042"] == [("field.cuh", 22)]
    detail = ("DEV042", DEV042 + "; in helper fd::mul (field.cuh:18), line 22", (21,))
    assert verdicts(kernels["mul_kernel"]) == {t: ("fix", (detail,)) for t in TARGETS}


def test_a_call_through_a_template_parameter_follows_the_launch_and_the_alias(kernels):
    """add_kernel (line 26) calls `FD::add` (line 30): field.cuh, and chain.cuh (carry_chain's non-static member,
    other_field's static member, namespace limbs' function) define `add`, and the kernel's file includes both. The
    launch binds FD to fd, fd aliases field: field's `add` (field.cuh:27, its `__ldca`). unbound_add_kernel (line
    48) is launched only with its launcher's own parameter: field's and other_field's static `add` both fit, so
    neither is followed (ok, not a guess)."""
    detail = ("DEV027", LDCA + "; in helper fd::add (field.cuh:27), line 27", (30,))
    assert verdicts(kernels["add_kernel"]) == {t: ("fix", (detail,)) for t in TARGETS}
    assert verdicts(kernels["unbound_add_kernel"]) == {t: ("ok", ()) for t in TARGETS}


def test_a_namespace_qualified_call_reaches_that_namespace_only(kernels):
    """wide_kernel (line 34) calls `wide::add_cc` (line 37), plain 64-bit addition; ptx.cuh's namespace ptx has an
    `add_cc` of inline PTX too, which the kernel does not run: ok. limbs_kernel (line 41) calls `limbs::add`
    (line 44): namespace limbs' (chain.cuh:20, its `__ldcg`), not field's, other_field's or carry_chain's."""
    assert verdicts(kernels["wide_kernel"]) == {t: ("ok", ()) for t in TARGETS}
    detail = ("DEV027", LDCG + "; in helper limbs::add (chain.cuh:20), line 20", (44,))
    assert verdicts(kernels["limbs_kernel"]) == {t: ("fix", (detail,)) for t in TARGETS}


def test_type_aliases_are_read_per_file():
    assert type_aliases_of(b"typedef ec<fd_p, 3> curve;\ntypedef curve::storage storage;\n"
                           b"using X = typename ns::Traits<T>;\ntypedef unsigned int uint;\nusing namespace std;") == (
        ("X", "Traits"), ("curve", "ec"))


def test_helper_spans_name_the_bodies_each_reached_helper_runs(kernels, result):
    """The spans of copy_kernel: the load overloads share ld (20-27) and ld_single (7-17), not their own bodies;
    the store-free kernel reaches nothing else."""
    index = helper_index(result.files)
    spans = [(s.path, s.line, s.chain, s.ranges) for s in helper_spans(kernels["copy_kernel"], index)]
    assert spans == [("memory.cuh", 31, ("memory::load",), ((7, 17), (20, 27)))]


def test_unqualified_drops_the_template_keyword():
    assert unqualified("FD::template mul<N>") == "mul"
    assert unqualified("ns::templated<N>") == "templated"
    assert unqualified("a::template\tf") == "f"
