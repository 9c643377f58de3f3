"""Session 27 (nub): a vendored copy of a drop-in CUDA library is one finding, not its internals' hand work.

xmrig-cuda keeps CUB in src/3rdparty/cub: its 705 findings (252 API002 on CubVector) were costed as 16 engineer-days
where the port builds against hipCUB. The copy is recognised by CUB's own version header defining CUB_VERSION below
a vendor folder (porter.libraries.vendored_copy); the scan folds the copy's findings, kernels and launches into the
LIB019 finding (porter.pipeline.fold_vendored_copies)."""
from __future__ import annotations

from pathlib import Path

from porter.libraries import vendored_copy
from porter.pipeline import run
from porter.settings import Settings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "LIB019-vendored-library-copy"


def test_copy_recognised_by_its_own_header_below_a_vendor_folder() -> None:
    code = b"#pragma once\n#define CUB_VERSION 101000\n"
    copy = vendored_copy("src/3rdparty/cub/version.cuh", code)
    assert copy is not None and (copy.root, copy.library.id) == ("src/3rdparty/cub", "cub")
    assert vendored_copy("deps/x/thrust/version.h", b"#define THRUST_VERSION 100910\n").root == "deps/x/thrust"
    # the library's own repository, a project file of the same path without the macro, and an unrelated folder
    assert vendored_copy("cub/version.cuh", code) is None
    assert vendored_copy("third_party/cub/version.cuh", b"#define MY_VERSION 1\n") is None
    assert vendored_copy("src/mylibs/cub/version.cuh", code) is None


def test_scan_folds_the_copy_into_one_finding_and_keeps_the_projects_uses() -> None:
    result = run(FIXTURE, Settings(jobs=1)).result
    got = sorted((f.rule, f.path, f.line) for f in result.findings)
    assert got == [
        ("API001", "src/app/sort.cu", 4),
        ("KRN002", "src/app/sort.cu", 4),
        ("LIB013", "src/app/sort.cu", 4),
        ("LIB019", "src/3rdparty/cub/version.cuh", 4),
    ]
    lib019 = next(f for f in result.findings if f.rule == "LIB019")
    assert dict(lib019.data)["folded"] == 3  # API002 CubVector, KRN001 and DEV002 of the copy's kernel
    assert "(3 findings inside it are not counted)" in lib019.message
    assert "{folded}" not in lib019.message
    assert [k.path for k in result.kernels] == []
    assert [(l.path, l.line) for l in result.launches] == [("src/app/sort.cu", 4)]


def test_without_the_rule_nothing_is_folded() -> None:
    result = run(FIXTURE, Settings(jobs=1, disabled_rules=("LIB019",))).result
    assert "LIB019" not in {f.rule for f in result.findings}
    assert ("API002", "src/3rdparty/cub/block/block_load.cuh", 5) in {(f.rule, f.path, f.line) for f in result.findings}
