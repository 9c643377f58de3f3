"""A Hugging Face kernel-builder build.toml names each backend's sources; a ROCm table is the CUDA table's twin, built
for its `rocm-archs` only (session 29, l42: heldout42's FlashRT-HF-kernels). See fixtures/kernel_builder_s29/README.md."""

from __future__ import annotations

from pathlib import Path

from porter.portaware.kernel_builder import KernelTable, kernel_builder_references, kernel_tables, twin_archs
from porter.portaware.scope import Reference

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/kernel_builder_s29"
TARGETS = ("mi300x", "mi355x", "mi455x")


def _run(name: str):
    from porter.pipeline import run
    from porter.settings import Settings

    return run(FIXTURE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result


def _kernels(result):
    return [(k.path, k.name, str(k.status), [(v.target, v.verdict, [d.id for d in v.details]) for v in k.verdicts])
            for k in result.kernels if k.path == "csrc/ops.cu"]


def _severe(result):
    return [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings if str(f.severity) != "info"]


def test_a_twin_built_for_gfx942_only_leaves_the_fp8_kernel_to_fix_on_the_ocp_targets():
    result = _run("limited")
    assert _severe(result) == [
        ("csrc/ops.cu", 2, "QNT002", "handled", "build.toml:18"),
        ("csrc/ops.cu", 4, "QNT002", "handled", "build.toml:18"),
        ("csrc/ops.cu", 7, "QNT002", "handled", "build.toml:18"),
    ]
    assert _kernels(result) == [
        ("csrc/ops.cu", "quant_kernel", "open",
         [("mi300x", "ok", []), ("mi355x", "fix", ["twin-arch-unbuilt"]), ("mi455x", "fix", ["twin-arch-unbuilt"])]),
        # bf16 only: widening the arch list is a build setting
        ("csrc/ops.cu", "bias_kernel", "handled", [("mi300x", "ok", []), ("mi355x", "ok", []), ("mi455x", "ok", [])]),
    ]
    quant = next(k for k in result.kernels if k.name == "quant_kernel" and k.path == "csrc/ops.cu")
    assert quant.verdict_on("mi355x").details[0].message == (
        "the ROCm twin (build.toml:18) is built for gfx942 only, not gfx950: no ROCm code for this kernel there")


def test_a_twin_without_an_arch_list_is_the_port_on_every_target():
    result = _run("open_archs")
    assert [f[3] for f in _severe(result)] == ["handled", "handled", "handled"]
    assert _kernels(result) == [
        ("csrc/ops.cu", "quant_kernel", "handled", [("mi300x", "ok", []), ("mi355x", "ok", []), ("mi455x", "ok", [])]),
        ("csrc/ops.cu", "bias_kernel", "handled", [("mi300x", "ok", []), ("mi355x", "ok", []), ("mi455x", "ok", [])]),
    ]


def test_a_cuda_only_package_is_the_port_not_a_cuda_arm():
    result = _run("cuda_only")
    assert _severe(result) == [
        ("csrc/ops.cu", 2, "QNT002", "open", None),
        ("csrc/ops.cu", 4, "QNT002", "open", None),
        ("csrc/ops.cu", 7, "QNT002", "open", None),
    ]
    assert _kernels(result)[0] == (
        "csrc/ops.cu", "quant_kernel", "open",
        [("mi300x", "fix", ["QNT002"]), ("mi355x", "check", ["QNT002"]), ("mi455x", "check", ["QNT002"])])


def test_kernel_tables_read_backend_sources_and_archs_relative_to_the_file():
    text = (FIXTURE / "limited/build.toml").read_text()
    assert kernel_tables("pkg/build.toml", text) == (
        KernelTable("ops", "cuda", 8, ("pkg/csrc/ops.cu",)),
        KernelTable("ops_rocm", "rocm", 18, ("pkg/csrc/rocm/ops_rocm.hip",), ("gfx942",)),
    )
    assert kernel_builder_references("pkg/build.toml", text) == [
        Reference("pkg/csrc/ops.cu", "cuda", "pkg/build.toml:8", "pkg/build.toml:18"),
        Reference("pkg/csrc/rocm/ops_rocm.hip", "rocm", "pkg/build.toml:18", None),
    ]
    assert twin_archs("pkg/build.toml", text) == {"pkg/csrc/ops.cu": ("gfx942",)}
    assert twin_archs("build.toml", (FIXTURE / "open_archs/build.toml").read_text()) == {}
    assert kernel_builder_references("build.toml", (FIXTURE / "cuda_only/build.toml").read_text()) == []
    # other backends and malformed files name nothing
    assert kernel_tables("build.toml", '[kernel.m]\nbackend = "metal"\nsrc = ["a.metal"]\n') == ()
    assert kernel_tables("build.toml", "[kernel.x\n") == ()
