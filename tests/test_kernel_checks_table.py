"""The kernel checks table is data (rules/kb/kernel_checks.yaml, issue 26), validated like the rules, and kernel
verdicts follow the ROCm release a run judges (`--rocm`, issue 27 class 7)."""
from __future__ import annotations

from pathlib import Path

import pytest

from porter.kernels.check_table import KernelChecksError, load_checks
from porter.kernels.checks import check_verdict
from porter.pipeline import run
from porter.settings import Settings
from porter.targets import resolve_targets

ROOT = Path(__file__).resolve().parent.parent


def test_the_table_holds_every_check_with_its_verdicts_title_and_source():
    table = load_checks()
    assert len(table) == 56  # + nvshmem-device, device-networking (session 15); lds-dynamic-runtime, nvshmem-transport,
    # tensor-arm-vanishes (session 16); optix-program (session 16b); restrict-value-type, complex-product,
    # triton-legacy-libdevice (session 18); image-instructions, fp-contract-rounded (session 19);
    # cooperative-fixed-grid (session 20); triton-autotune-positional, triton-math-libdevice (session 21);
    # dropped-on-hip, wmma-b1 (session 24); warp-sync-shared (session 28); twin-arch-unbuilt (session 29)
    assert dict(table["twin-arch-unbuilt"]["verdict"]) == {"default": "fix"}
    assert dict(table["warp-sync-shared"]["verdict"]) == {"default": "fix"}
    assert dict(table["wmma-b1"]["verdict"]) == {"default": "rewrite"}
    assert dict(table["dropped-on-hip"]["verdict"]) == {"default": "fix"}
    assert dict(table["triton-autotune-positional"]["verdict"]) == {"default": "fix"}
    assert dict(table["triton-math-libdevice"]["verdict"]) == {"default": "fix"}
    assert dict(table["cooperative-fixed-grid"]["verdict"]) == {"default": "retune"}
    assert tuple(table["block-not-wave-multiple"]["tags"]) == ("rocm-code",)
    assert dict(table["image-instructions"]["verdict"]) == {"default": "ok", "by_target": {
        "gfx942": "fix", "gfx950": "fix", "gfx1250": "fix"}}
    assert dict(table["fp-contract-rounded"]["verdict"]) == {"default": "fix"}
    assert dict(table["triton-legacy-libdevice"]["verdict"]) == {"default": "fix"}
    assert dict(table["restrict-value-type"]["verdict"]) == {"default": "fix"}
    assert dict(table["lds-dynamic-runtime"]["verdict"]) == {"default": "ok"}
    assert list(table)[:3] == ["wave64-full-mask", "mask-32bit-type", "wave64-lane-count"]
    assert dict(table["mask-32bit-type"]["verdict"]) == {"default": "fix"}
    assert dict(table["warpsize-constant"]["verdict"]) == {"default": "fix", "by_release": {"has warpsize_constexpr": "ok"}}
    assert table["lds-over-limit"]["title"] == "shared memory per block exceeds this target's LDS per workgroup"
    assert all(c["source"].startswith("https://") for c in table.values())


def test_a_check_reads_its_release_before_its_target():
    mi300x, mi455x = resolve_targets(["mi300x", "mi455x"])
    spec = load_checks()["warpsize-constant"]["verdict"]
    assert [check_verdict(spec, mi300x, r) for r in ("6.4", "7.0", "7.2", None)] == ["ok", "fix", "fix", "fix"]
    mask = load_checks()["mask-32bit-type"]["verdict"]
    # a 32-bit mask type fails HIP's static_assert on every target (on wave64 a full mask reports as wave64-full-mask)
    assert (check_verdict(mask, mi300x, "6.4"), check_verdict(mask, mi455x, "6.4")) == ("fix", "fix")


@pytest.mark.parametrize("text, field, message", [
    ("checks:\n  x-1:\n    verdict: {default: broken}\n    title: a title here\n    source: https://e.org\n",
     "checks.x-1.verdict.default", "'broken' is not one of"),
    ("checks:\n  x-1:\n    verdict: {default: ok}\n    title: a title here\n    source: /work/private\n",
     "checks.x-1.source", "does not match"),
    ("checks:\n  x-1:\n    verdict: {default: ok, by_release: {\"has no_such_fact\": fix}}\n    title: a title here\n"
     "    source: https://e.org\n", "checks.x-1.verdict.by_release", "'no_such_fact' is not a fact"),
])
def test_a_wrong_table_names_its_field(tmp_path, text, field, message):
    p = tmp_path / "kernel_checks.yaml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(KernelChecksError) as e:
        load_checks(p)
    assert field in str(e.value) and message in str(e.value)


def _verdicts(path: Path, release: str) -> dict[str, list[tuple[str, str, list[str]]]]:
    res = run(path, Settings(jobs=1, cache_dir=None, rocm=release, targets=("mi300x", "mi455x"))).result
    return {k.name: [(v.target, v.verdict, [d.id for d in v.details]) for v in k.verdicts] for k in res.kernels}


def test_a_kernel_whose_only_blocker_is_a_later_hip_api_reads_by_release():
    """fixtures/rocm/warp.cu: `__reduce_add_sync` and `__syncwarp` arrived in ROCm 7.0 - fix on 6.4 (API002 sets
    the floor), ok from 7.0; fixtures/rocm/versions.cu: `__shared__ int buf[warpSize]` compiles while warpSize was
    constexpr (6.4) and is a fix from 7.0, while cg::reduce (ROCm 7.13) is missing on every release offered."""
    old, new = _verdicts(ROOT / "fixtures" / "rocm", "6.4"), _verdicts(ROOT / "fixtures" / "rocm", "7.2")
    assert old["warp_sum"] == [("mi300x", "fix", ["API002"]), ("mi455x", "fix", ["API002"])]
    assert new["warp_sum"] == [("mi300x", "ok", []), ("mi455x", "ok", [])]
    assert old["collectives"] == [("mi300x", "fix", ["DEV008", "lds-unknown"]), ("mi455x", "fix", ["DEV008", "lds-unknown"])]
    assert new["collectives"] == [("mi300x", "fix", ["warpsize-constant", "lds-unknown"]),
                                  ("mi455x", "fix", ["warpsize-constant", "lds-unknown"])]
