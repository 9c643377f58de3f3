"""Kernel verdicts of issue 27 (session 19) on fixtures/kernels_s19: member calls followed by the object's declared
class, texture/surface calls (no image instructions on gfx942, gfx950, gfx1250) and the rounded arithmetic intrinsics
HIP contracts. Exact verdicts, check ids and lines; the two toolchain facts on clang-22 where the machine has it."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from porter.kernels.check_table import load_checks
from porter.kernels.checks import check_verdict
from porter.pipeline import run
from porter.settings import Settings
from porter.source.parse import parse
from porter.targets import resolve_targets

from conftest import FIXTURES

BASE = FIXTURES / "kernels_s19"
TARGETS = ("mi300x", "mi455x")
OK = {t: ("ok", ()) for t in TARGETS}


def verdicts(name: str) -> dict[str, dict[str, tuple]]:
    result = run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result
    return {k.name: {t: (v.verdict, tuple((d.id, d.verdict, d.lines) for d in v.details))
                     for t in TARGETS if (v := k.verdict_on(t)) is not None} for k in result.kernels}


def test_member_calls_reach_the_member_of_the_objects_class():
    """wrappers/frame.cu: finalize reads and writes the file-scope `Surface<float4> accumulator` through its
    members (lines 27, 28: surf2Dread / surf2Dwrite in sampling.h), shade samples `textures[id]` through
    Texture::get_lod (line 32); both are image-instructions fixes on gfx942 and gfx1250. copy_plain's `in.get` is
    Buffer::get, a plain load, and lookalike's local `Buffer accumulator` shadows the file-scope Surface: ok.
    traverse calls `node.box.hits(t)` (Node's member `box` is a Box, whose `hits` calls the inline-PTX vmin_max of
    sampling.h at line 8); reduce calls its `Reduce` parameter, whose operator() shuffles with 0xffffffff (line 20)."""
    image = lambda *lines: {t: ("fix", (("image-instructions", "fix", lines),)) for t in TARGETS}  # noqa: E731
    assert verdicts("wrappers") == {
        "finalize": image(27, 28),
        "shade": image(32),
        "copy_plain": OK,
        "traverse": {t: ("fix", (("inline-ptx", "fix", (8,)),)) for t in TARGETS},
        "reduce": {"mi300x": ("fix", (("wave64-full-mask", "fix", (20,)),)),
                   "mi455x": ("fix", (("mask-32bit-type", "fix", (20,)),))},
        "lookalike": OK,
    }


def test_member_call_keys_name_the_declared_class():
    from porter.kernels.member_calls import member_call_key, operator_call_key

    sf = parse("frame.cu", "cuda", (BASE / "wrappers" / "frame.cu").read_bytes())
    cache: dict = {}
    calls = [n for n in _nodes(sf.root) if n.type == "call_expression"]
    keys = {(n.start_point.row + 1, member_call_key(n.child_by_field_name("function"), cache)
             or operator_call_key(n.child_by_field_name("function"), cache)) for n in calls}
    assert {k for k in keys if k[1]} == {(27, "Surface.get"), (28, "Surface.set"), (32, "Texture.get_lod"),
                                         (36, "Buffer.get"), (41, "Box.hits"), (45, "Reduce::operator()"),
                                         (50, "Buffer.get")}


def _nodes(root):
    todo = [root]
    while todo:
        n = todo.pop()
        yield n
        todo.extend(n.children)


def test_the_image_check_is_a_fix_only_where_clang_has_no_image_instructions():
    spec = load_checks()["image-instructions"]["verdict"]
    assert {t.id: check_verdict(spec, t) for t in resolve_targets(["mi300x", "mi325x", "mi350x", "mi355x", "mi455x"])} \
        == {"mi300x": "fix", "mi325x": "fix", "mi350x": "fix", "mi355x": "fix", "mi455x": "fix"}
    # a profile for an RDNA GPU or MI200 (image instructions present) reads it ok
    assert check_verdict(spec, _profile("gfx1100")) == "ok" and check_verdict(spec, _profile("gfx90a")) == "ok"


def _profile(gfx: str):
    import dataclasses

    (t,) = resolve_targets(["mi300x"])
    return dataclasses.replace(t, id=f"custom-{gfx}", gfx=gfx)


def test_rounded_intrinsics_are_a_fix_where_a_product_can_be_fused():
    """rounded/dsfun.cu: ds_mul keeps __fmul_rn's product in a local (line 3) and subtracts a product with __fsub_rn
    (line 4), reached from scale; product_sum adds a plain product with __fadd_rn (line 33): HIP fuses those.
    kahan's __dadd_rn adds plain values (nothing to contract), weighted_store writes __fmul_rn's product straight to
    memory and fused calls __fmaf_rn, a fused multiply-add by definition: ok."""
    fp = lambda *lines: {t: ("fix", (("fp-contract-rounded", "fix", lines),)) for t in TARGETS}  # noqa: E731
    assert verdicts("rounded") == {"scale": fp(3, 4), "kahan": OK, "fused": OK, "weighted_store": OK,
                                   "product_sum": fp(33)}


CLANG = shutil.which("clang-22") or shutil.which("/usr/bin/clang-22")


@pytest.mark.skipif(CLANG is None, reason="needs clang-22 (Debian's clang-22 package)")
@pytest.mark.parametrize("gfx, unavailable", [("gfx942", True), ("gfx950", True), ("gfx1250", True),
                                              ("gfx1100", False)])
def test_clang_makes_the_texture_api_unavailable_without_image_instructions(gfx, unavailable):
    res = subprocess.run([CLANG, "-x", "hip", f"--offload-arch={gfx}", "-nogpuinc", "-nogpulib", "--cuda-device-only",
                          "-fsyntax-only", str(BASE / "toolchain" / "image_api.hip")],
                         capture_output=True, text=True, timeout=120)
    errors = re.findall(r"image_api\.hip:(\d+):\d+: error: (.*)", res.stderr)
    if unavailable:
        assert errors == [("16", "'tex1Dfetch<float>' is unavailable: The image/texture API not supported on the "
                                 "device")], res.stderr
    else:
        assert res.returncode == 0 and errors == [], res.stderr


@pytest.mark.skipif(CLANG is None, reason="needs clang-22 (Debian's clang-22 package)")
def test_clang_fuses_the_rounded_product_unless_contraction_is_off():
    def instructions(*flags: str) -> list[str]:
        res = subprocess.run([CLANG, "-x", "hip", "--offload-arch=gfx942", "-nogpuinc", "-nogpulib",
                              "--cuda-device-only", "-O2", "-S", "-o", "-", *flags,
                              str(BASE / "toolchain" / "rounded.hip")], capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stderr
        return re.findall(r"^\s+(v_(?:fma|mul|sub|subrev)_f32)", res.stdout, re.M)

    assert instructions() == ["v_fma_f32"]
    assert instructions("-ffp-contract=off") == ["v_mul_f32", "v_subrev_f32"]
