"""The kernel table says which kernels the scan found and does not list: the counts line says "7 kernels" and a
table of 6 must say where the seventh went (warp-ctc's reduce_rows, handled for ROCm)."""
from __future__ import annotations

from types import SimpleNamespace

from helpers import REPO
from porter.model import Status
from porter.pipeline import run
from porter.render.figures import unlisted_kernels
from porter.render.markdown import render as markdown
from porter.settings import Settings

DUAL_SENTENCE = ("6 more kernels not in this table — handled for ROCm: reduce_rows (src/common.cu:34), fill_hip "
                 "(src/common.cu:42), vote (src/common.cu:48) and 2 more; kept CUDA-only: tma_copy "
                 "(src/sm90/tma_copy.cu:4).")


def k(name: str, line: int, status: Status, path: str = "a.cu"):
    return SimpleNamespace(qualified_name=name, path=path, line=line, status=status)


def test_groups_by_status_in_a_fixed_order_and_names_the_first_three():
    found = [k("a", 1, Status.OPEN), k("b", 2, Status.HANDLED), k("c", 3, Status.OPEN, "opt/x.cu"),
             k("d", 4, Status.CUDA_ONLY)]
    assert unlisted_kernels(found, [found[0]]) == (
        "3 more kernels not in this table — handled for ROCm: b (a.cu:2); kept CUDA-only: d (a.cu:4); "
        "under optional paths, costed apart: c (opt/x.cu:3).")
    assert unlisted_kernels(found, found) == ""
    assert unlisted_kernels(found[1:2], []) == "1 more kernel not in this table — handled for ROCm: b (a.cu:2)."


def test_the_dual_app_report_names_its_handled_and_cuda_only_kernels():
    done = run(REPO / "fixtures" / "repos" / "dual-app", Settings(jobs=1, cache_dir=None), assess=True)
    a = done.assessment
    assert a is not None
    assert len(done.result.kernels) - len(a.breakdowns.by_kernel) == 6
    assert unlisted_kernels(done.result.kernels, a.breakdowns.by_kernel) == DUAL_SENTENCE
    md = markdown(done.result, a)
    assert f"\n\n{DUAL_SENTENCE}\n\n## Libraries" in md
