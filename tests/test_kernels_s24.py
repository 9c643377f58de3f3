"""Kernel verdicts through member functions defined outside their class and reached through a type alias (issue 27
class 2, session 24) on fixtures/kernels_s24/member_alias, reduced from ParaFROST (heldout26): `elected->insertAggr(v)`
on a `cuVecU *elected` with `typedef cuVec<uint32_t> cuVecU;` runs `template <> __device__ void
cuVec<uint32_t>::insertAggr(...)` in another file, whose callee keeps `__activemask()` in a 32-bit variable and
passes it to `__shfl_sync`. A member defined out of class by its qualified name is that class's member (C++
[class.mfct]); a typedef-name is a synonym for its type ([dcl.typedef]). Exact verdicts, reasons and lines."""
from __future__ import annotations

import pytest

from porter.kernels.callgraph import HelperIndex
from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES, KERNEL_TARGETS as TARGETS, kernel_verdicts as verdicts

BASE = FIXTURES / "kernels_s24" / "member_alias"
MASK = "1 *_sync call(s) pass a 32-bit mask type; HIP needs unsigned long long; via {via} (vector.cu:11)"
BALLOT = "__activemask stored in `uint32_t` drops lanes 32-63; via {via} (vector.cu:11)"


@pytest.fixture(scope="module")
def kernels():
    return {k.name: k for k in run(BASE, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result.kernels}


def expected(via: str, line: int) -> dict:
    mask = ("mask-32bit-type", MASK.format(via=via), (line,))
    ballot = ("wave64-ballot-32bit", BALLOT.format(via=via), (line,))
    return {"mi300x": ("fix", (mask, ballot)), "mi355x": ("fix", (mask, ballot)), "mi455x": ("fix", (mask,))}


def test_a_member_call_through_a_typedef_reaches_the_out_of_class_definition(kernels):
    """elect_k (line 3) calls `elected->insertAggr(i)` (line 5) on a `cuVecU*`; direct_k (line 18) the same on a
    `cuVec<uint32_t>*` (line 20): both run vector.cu:11, and through it atomicAggInc's 32-bit mask."""
    assert verdicts(kernels["elect_k"]) == expected("cuVecU.insertAggr", 5)
    assert verdicts(kernels["direct_k"]) == expected("cuVec.insertAggr", 20)


def test_other_members_and_other_classes_stay_apart(kernels):
    """plain_k's `out->plain(i)` runs cuVec's other member (vector.cu:17, an atomicAdd only); other_k's
    `other->insertAggr(i)` runs Other's member of the same name (vector.cu:21): neither reaches atomicAggInc."""
    ok = {t: ("ok", ()) for t in TARGETS}
    assert verdicts(kernels["plain_k"]) == ok
    assert verdicts(kernels["other_k"]) == ok


def test_an_alias_names_its_class_only_when_it_names_one():
    index = HelperIndex({}, {}, {}, {"cuVecU": frozenset({"cuVec"}), "V": frozenset({"A", "B"})})
    assert index.member_through_alias("cuVecU.insertAggr") == "cuVec.insertAggr"
    assert index.member_through_alias("V.f") is None  # two files alias V to two classes
    assert index.member_through_alias("insertAggr") is None  # no member key
    assert index.member_through_alias("Unknown.f") is None
