"""Assess ops libraries that already build for ROCm and print each one's verdict and days (issue 28's bar: such a
library reads ready or mechanical, unless a real wave64 bug or missing ROCm piece is left).

Fetches nothing: point it at the bare mirrors (or clones) that hold the commits below.

    python bench/ops_libraries.py --mirrors /work/.mirror        # <dir>/<owner>+<name>/repo, <owner>+<name>, <owner>/<name>

The trees are read from git objects at the pinned commits (porter.source.read.GitTree), so a run always reads the
same bytes. Each library names why it is on the list and what its verdict should be; the exit status is 0 when every
verdict is the expected one, 1 otherwise, 2 when a mirror is missing.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from porter.pipeline import run  # noqa: E402
from porter.settings import Settings, default_cache_dir  # noqa: E402
from porter.source.read import GitTree  # noqa: E402


@dataclass(frozen=True)
class Library:
    id: str
    repository: str  # owner/name on GitHub
    commit: str
    expect: tuple[str, ...]  # the verdicts a careful reading accepts
    why: str


LIBRARIES = (
    Library("pytorch_scatter", "rusty1s/pytorch_scatter", "9a651d912dabbca391fb56902e3871757ceb408e",
            ("ready", "mechanical"), "the ROCm port's own commit (#325, bench/calibration/ports.yaml)"),
    Library("pytorch_cluster", "rusty1s/pytorch_cluster", "7c5a6b70ee5d2f76d3c230d86b80aa371b8c4146",
            ("ready", "mechanical"), "the ROCm port's own commit (bench/calibration/ports.yaml)"),
    Library("causal-conv1d", "Dao-AILab/causal-conv1d", "822c47c6faf57c00ebb31f7cea90f627eb7d413c",
            ("ready", "mechanical"), "the ROCm port's own commit (bench/calibration/ports.yaml)"),
    Library("mmcv", "open-mmlab/mmcv", "a8073c74bf83d62ec36a103f835faa4837fb6585",
            ("ready", "mechanical"), "builds with MMCV_WITH_OPS and ROCm (setup.py's IS_HIP_EXTENSION arms)"),
    # #282 defined SHFL_*_SYNC for ROCm in csrc/cuda/utils.cuh, but spmm_kernel (csrc/cuda/spmm_cuda.cu:66) gives
    # each row 32 threads (`row = thread_idx >> 5`) and broadcasts with `__shfl_sync(FULL_MASK, mat_row, i)` at the
    # default width: on a 64-lane wavefront the second row's threads read the first row's values. A real wave64 fix
    # is left, so "port" is right.
    Library("pytorch_sparse", "rusty1s/pytorch_sparse", "3138857327b9fadea4f8576f2f5716c2fb5d9f16",
            ("ready", "mechanical", "port"), "the ROCm port's own commit (#282); spmm_kernel's wave64 broadcast is left"),
    Library("ginkgo", "ginkgo-project/ginkgo", "591cd136b603d47669e53ec5264ff9ed59231682",
            ("ready", "mechanical"), "CudaExecutor beside HipExecutor, forward-declared handles, AMD CI runners"),
    # cuSZ's HIP build (cmake/hip.cmake, last changed 2025-01) names sources that moved since and leaves the fzg
    # codec out; its kernels pass 32-bit masks to *_sync intrinsics, which HIP rejects, because no translation unit
    # compiling them includes the mask-dropping macros (portable/include/macro/c_cu2hip_1_fix_primitives.h, only
    # from psz/include/detail/port.hh); and its HIP-path kernels keep real wave64 bugs (histsp.cuhip.inl:86 adds
    # lane 31 and lane 63 after the HIP arm's 64-lane scan; lrz_c.cuhip.inl's COUNT_LOCAL_STAT keeps a 64-lane ballot
    # in an unsigned int and counts at threadIdx.x % 32 == 0): "port" is right.
    Library("cuSZ", "szcompressor/cuSZ", "d3cde38aec71a3ae2a7f80eef7707a27b3bc3d1d",
            ("port",), "a stale HIP build, 32-bit masks HIP rejects, real wave64 bugs"),
)


def locate(lib: Library, mirrors: list[Path]) -> Path | None:
    owner, _, name = lib.repository.partition("/")
    for m in mirrors:
        for c in (m / f"{owner}+{name}" / "repo", m / f"{owner}+{name}", m / owner / name):
            if c.is_dir():
                return c
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", type=Path, action="append", default=[])
    ap.add_argument("--only", action="append", default=[], help="library id (repeatable)")
    ap.add_argument("--jobs", type=int, default=0)
    args = ap.parse_args(argv)
    settings = Settings(jobs=args.jobs, cache_dir=default_cache_dir())
    ok = True
    print(f"{'library':16} {'commit':12} {'verdict':10} {'P10':>5} {'likely':>6} {'P90':>5}  expected")
    for lib in LIBRARIES:
        if args.only and lib.id not in args.only:
            continue
        repo = locate(lib, args.mirrors or [Path("mirrors")])
        if repo is None:
            print(f"error: no mirror of {lib.repository}", file=sys.stderr)
            return 2
        a = run(GitTree(repo, lib.commit), settings, assess=True).assessment
        assert a is not None
        good = a.verdict in lib.expect
        ok &= good
        print(f"{lib.id:16} {lib.commit[:12]} {a.verdict:10} {a.days.low:5g} {a.days.likely:6g} {a.days.high:5g}  "
              f"{'/'.join(lib.expect)}{'' if good else '  <- NOT EXPECTED'}")
        if a.verdict not in ("ready", "mechanical"):
            # what decides it: the reasons at the verdict's level
            for r in a.deciding:
                print(f"{'':16} - {r.title} ({', '.join(r.examples[:2])})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
