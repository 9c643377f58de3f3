"""The PR comment's kernel table says why a kernel's verdict is what it is (the deciding reason of the head scan),
so a reviewer seeing `fix` knows what to fix without running porter."""
from __future__ import annotations

from helpers import git, make_repo
from porter.diff import KernelChange
from porter.pipeline import run, run_diff
from porter.render.pr_comment import render, why
from porter.settings import Settings

KERNEL = """__global__ void warp_top1(const float* in, int* out, int n) {
    float v = threadIdx.x < n ? in[threadIdx.x] : -1e30f;
    unsigned laneid;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(laneid));
    unsigned mask = __ballot_sync(0xffffffff, v > 0.f);
    if (laneid == 0) out[blockIdx.x] = __popc(mask);
}
"""


def test_a_new_kernel_that_needs_a_fix_says_why(tmp_path):
    repo = make_repo(tmp_path / "r", {"a.cu": "__global__ void k(int *a) { a[0] = 1; }\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "topk.cu").write_text(KERNEL)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    done = run_diff(repo, Settings(jobs=1, cache_dir=None, targets=("mi355x",)), new_since=base)
    assert done.diff is not None
    assert [(k.name, k.before, k.after) for k in done.diff.kernels] == [("warp_top1", None, "fix")]
    change = done.diff.kernels[0]
    kernel = next(k for k in done.result.kernels if k.name == "warp_top1")
    details = kernel.verdict_on("mi355x").details
    assert details[0].message.startswith("1 inline PTX statement (mov %laneid): mov %laneid → __lane_id()")
    assert why(done.result, change) == f"{details[0].message} (+{len(details) - 1} more)"
    table = render(done.result, done.diff).split("### Kernel verdicts\n", 1)[1].splitlines()
    assert table[:2] == ["| kernel | file | target | before | after | why |", "|---|---|---|---|---|---|"]
    assert table[2] == ("| `warp_top1` | `topk.cu`:1 | mi355x | new | **fix** | 1 inline PTX statement (mov %laneid): "
                        f"mov %laneid → \\_\\_lane_id() (+{len(details) - 1} more) |")


def test_a_kernel_the_head_does_not_hold_has_no_reason(tmp_path):
    repo = make_repo(tmp_path / "r", {"a.cu": "__global__ void k(int *a) { a[0] = 1; }\n"})
    result = run(repo, Settings(jobs=1, cache_dir=None)).result
    assert why(result, KernelChange("gone", "a.cu", 1, "mi355x", "ok", "fix")) == ""


def test_the_command_summary_counts_one_kernel_verdict_in_the_singular(tmp_path):
    from helpers import porter_here

    repo = make_repo(tmp_path / "r", {"a.cu": "__global__ void k(int *a) { a[0] = 1; }\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "topk.cu").write_text(KERNEL)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    p = porter_here("scan", str(repo), "--new-since", base, "-f", "pr-comment", "--no-cache", "-j", "1")
    assert p.returncode == 0, p.stderr
    summary = [line for line in p.stderr.splitlines() if line.startswith("compared ")]
    assert len(summary) == 1 and summary[0].endswith(" in the files that differ; 1 kernel verdict worse")
