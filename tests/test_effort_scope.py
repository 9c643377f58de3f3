"""Cost the work where a port does it (issue 28): fix sites, templates counted once, retuning apart, scope as two
lines (minimal port and feature parity), floors that scale, and breakdown shares that sum to the headline."""
from __future__ import annotations

import dataclasses

from test_effort_model import UNSCALED, finding, item, result, rule, ts

from porter.estimate.assess import assess
from porter.estimate.breakdowns import apportion
from porter.estimate.dedup import fix_site, normalised_name, template_key
from porter.estimate.effort_model import Hours
from porter.model import Kernel
from porter.model.kernel import (CheckResult, DeviceFunction, HelperCall, InlinePtx, KernelFacts, LaneAssumption,
                                 TargetVerdict)
from porter.rules import RuleSet

NO_RULES = RuleSet((), "x")


def kernel(path="src/a.cu", line=1, end=40, name="k", details=(("wave64-ballot-32bit", "fix", (5,)),), facts=None,
           verdict="fix"):
    facts = facts or KernelFacts(end - line + 1)
    checks = tuple(CheckResult(i, v, "m", tuple(ls)) for i, v, ls in details)
    return Kernel(path=path, line=line, end_line=end, name=name, qualified_name=name, facts=facts,
                  verdicts=(TargetVerdict("mi355x", verdict, checks),))


# ------------------------------------------------------------------------------------------ fix sites


def test_a_warp_size_macro_is_one_fix_site_for_every_kernel_written_with_it():
    lane = KernelFacts(40, lane_assumptions=(LaneAssumption(5, "modulo", "threadIdx.x % WARP_SIZE"),))
    ks = [kernel(path=f"src/k{n}.cu", name=f"k{n}", details=(("wave64-lane-arith", "fix", (5,)),), facts=lane)
          for n in range(3)]
    assert fix_site(ks[0], "wave64-lane-arith", (5,)).key == "macro:WARP_SIZE"
    a = assess(result([], ks, files=tuple(k.path for k in ks)), ts("mi355x"), model=UNSCALED, rules=NO_RULES)
    site = item(a, "site:macro:WARP_SIZE")
    # fix 2–4–10 h once, plus 0.1–0.25–0.5 h of review for each of the 3 kernels
    assert site.hours == Hours(2.3, 4.75, 11.5) and site.count == 3
    assert site.title == "Fix once at macro WARP_SIZE (3 kernel(s) reach it)"
    assert not any(i.id.startswith("kernel:") for i in a.items)
    assert [r.item for r in a.breakdowns.by_kernel] == ["site:macro:WARP_SIZE"] * 3


def test_a_literal_32_in_the_kernel_body_stays_the_kernels_own_fix():
    lane = KernelFacts(40, lane_assumptions=(LaneAssumption(5, "modulo", "threadIdx.x % 32"),))
    k = kernel(details=(("wave64-lane-arith", "fix", (5,)),), facts=lane)
    assert fix_site(k, "wave64-lane-arith", (5,)) is None
    a = assess(result([], [k]), ts("mi355x"), model=UNSCALED, rules=NO_RULES)
    assert item(a, "kernel:src/a.cu:1:k").hours == Hours(2, 4, 10)


def test_a_need_split_between_helper_and_body_keeps_the_body_part_on_the_kernel():
    facts = KernelFacts(40, device_functions=(DeviceFunction("warp_sum", 50, 60),))
    k = kernel(details=(("wave64-ballot-32bit", "fix", (55,)), ("inline-ptx", "fix", (10,))), facts=facts)
    a = assess(result([], [k]), ts("mi355x"), model=UNSCALED, rules=NO_RULES)
    # the kernel keeps its own inline-ptx (1–2–6 h, one need: complexity 1); the mask is at the helper
    assert item(a, "kernel:src/a.cu:1:k").hours == Hours(1, 2, 6)
    assert item(a, "site:helper:src/a.cu:50").hours == Hours(2.1, 4.25, 10.5)


def _member_chain(call_line, member, member_line):
    """A kernel's member call (`sel.add(x)` at `call_line`) whose member, in Select.cuh, calls getLaneId in PtxUtils.cuh:
    the chain kernel analysis reports, every helper at the kernel's one call line; only getLaneId holds PTX."""
    return (HelperCall((member,), "utils/Select.cuh", member_line, call_line, KernelFacts(6)),
            HelperCall((member, "shfl"), "utils/Shuffles.cuh", 25, call_line, KernelFacts(4)),
            HelperCall((member, "getLaneId"), "utils/PtxUtils.cuh", 50, call_line,
                       KernelFacts(4, inline_ptx=InlinePtx(1, ("mov %laneid",), (52,)))))


def test_ptx_reached_through_member_calls_is_fixed_once_in_the_helper_that_holds_it():
    # faiss's select kernels call WarpSelect.add / BlockSelect.add, whose chain reaches getLaneId's `mov %laneid`:
    # the port fixes getLaneId once, not each kernel that calls a member on the way to it
    ks = [kernel(path="impl/a.cu", name="a", details=(("inline-ptx", "fix", (30,)),),
                 facts=KernelFacts(40, helpers=_member_chain(30, "WarpSelect.add", 536))),
          kernel(path="impl/b.cu", name="b", details=(("inline-ptx", "fix", (12,)),),
                 facts=KernelFacts(40, helpers=_member_chain(12, "BlockSelect.add", 285)))]
    assert fix_site(ks[0], "inline-ptx", (30,)).key == "helper:utils/PtxUtils.cuh:50"
    a = assess(result([], ks, files=("impl/a.cu", "impl/b.cu")), ts("mi355x"), model=UNSCALED, rules=NO_RULES)
    site = item(a, "site:helper:utils/PtxUtils.cuh:50")
    # inline-ptx 1–2–6 h once + 0.1–0.25–0.5 h review for each of the 2 kernels; no kernel item of its own
    assert site.hours == Hours(1.2, 2.5, 7) and site.count == 2
    assert site.title == "Fix once at helper getLaneId (utils/PtxUtils.cuh:50) (2 kernel(s) reach it)"
    assert not any(i.id.startswith("kernel:") for i in a.items)


def test_a_need_no_helper_of_the_chain_holds_stays_the_kernels_own():
    # the same chain, but the need is a full mask none of the helpers' own facts hold: three helpers, no one site
    k = kernel(details=(("wave64-ballot-32bit", "fix", (30,)),), facts=KernelFacts(40, helpers=_member_chain(30, "WarpSelect.add", 536)))
    assert fix_site(k, "wave64-ballot-32bit", (30,)) is None


# ------------------------------------------------------------------------------------------ templates


def test_generated_copies_of_one_kernel_cost_once_plus_a_term_per_variant():
    names = ["gemm_fp16_128x128", "gemm_bf16_128x128", "gemm_fp16_64x64", "gemm_fp32_64x128"]
    ks = [kernel(path=f"gen/{n}.cu", name=n, details=(("inline-ptx", "rewrite", (3,)),)) for n in names]
    other = kernel(path="src/other.cu", name="softmax", end=20)
    assert normalised_name("gemm_fp16_128x128") == normalised_name("gemm_bf16_64x64") == "gemm_T_NxN"
    assert template_key(ks[0], ["x"]) == template_key(ks[3], ["x"]) != template_key(other, ["x"])
    a = assess(result([], ks + [other], files=tuple(k.path for k in ks) + ("src/other.cu",)), ts("mi355x"),
               model=UNSCALED, rules=NO_RULES)
    t = item(a, "template:gen/gemm_bf16_128x128.cu:1:gemm_bf16_128x128")
    # inline-ptx 1–2–6 h for the first copy, at most 0.1–0.25–0.75 h for each of the 3 others
    assert t.hours.rounded() == Hours(1.3, 2.75, 8.25) and t.count == 4
    assert t.title == "Kernel 4 instantiations of gemm_bf16_128x128"
    assert [g.text for g in a.templates] == ["4 instantiations of gemm_bf16_128x128"]
    assert a.to_dict()["templates"][0]["files"] == 4
    # a kernel of another name and length is not a copy
    assert item(a, "kernel:src/other.cu:1:softmax").hours.likely > 0


def test_the_cutlass_job_counts_copies_of_one_kernel_once():
    rs = RuleSet((rule("LIB020", "library"),), "x")
    f = finding("LIB020", path="attn/fmha.cu", line=1, category="library", data=(("library", "cutlass"),))
    ks = [kernel(path="attn/fmha.cu", line=10 + 100 * n, end=49 + 100 * n, name=f"fwd_hdim{h}")
          for n, h in enumerate((64, 128, 256))]
    a = assess(result([f], ks, files=("attn/fmha.cu",)), ts("mi355x"), model=UNSCALED, rules=rs)
    job = item(a, "one-off:reimplement-cutlass")
    # 8–16–40 + 8–20–50 for one distinct kernel of 40 lines (not three) + 0.5–1–3 for one API name
    assert job.hours == Hours(16.5, 37, 93)
    assert "the 1 distinct of 3 kernel(s) it re-implements" in job.basis


def test_kernels_the_cutlass_job_re_implements_add_no_use_to_a_fix_site():
    # xformers: 216 CUTLASS kernels re-implemented by the job also counted as reviews of the repository's mask
    # header; the backend that replaces them has no CUDA mask to review. Only the kernel outside the job uses it.
    rs = RuleSet((rule("LIB020", "library"),), "x")
    f = finding("LIB020", path="attn/fmha.cu", line=1, category="library", data=(("library", "cutlass"),))
    ks = [kernel(path="attn/fmha.cu", line=10 + 100 * n, end=49 + 100 * n, name=f"fwd_hdim{h}",
                 details=(("wave64-full-mask", "fix", (20 + 100 * n,)),)) for n, h in enumerate((64, 128))]
    ks.append(kernel(path="src/sddmm.cu", name="sddmm", details=(("wave64-full-mask", "fix", (5,)),)))
    a = assess(result([f], ks, files=("attn/fmha.cu", "src/sddmm.cu")), ts("mi355x"), model=UNSCALED, rules=rs)
    site = item(a, "site:repository:compat")
    # repository_fix 0.5–1–3 h once + 0.1–0.25–0.5 h review for the one kernel outside the job
    assert site.hours == Hours(0.6, 1.25, 3.5) and site.count == 1
    assert [s.kernels for s in a.fix_sites] == [1]


# ------------------------------------------------------------------------------------------ retuning


def test_launch_bounds_and_triton_num_warps_are_retuning_not_port_work():
    k = kernel(details=(("launch-bounds-min-blocks", "retune", ()),), verdict="retune")
    a = assess(result([], [k]), ts("mi355x"), model=UNSCALED, rules=NO_RULES)
    # the kernel is compiled and checked (ok 0–0.1–0.25 h); the 0.25–0.5–2 h of retuning is its own line
    assert item(a, "kernel:src/a.cu:1:k").hours == Hours(0, 0.1, 0.25)
    assert a.tuning is not None and a.tuning.mean_hours == (0.25 + 2 + 2) / 6
    assert a.to_dict()["tuning"]["name"] == "tuning"


# ------------------------------------------------------------------------------------------ scope


def test_a_sibling_quantization_method_that_needs_a_rewrite_is_parity_not_minimal():
    awq = kernel(path="csrc/quantization/awq/gemm.cu", name="awq_gemm", details=(("inline-ptx-matrix", "rewrite", (3,)),),
                 verdict="rewrite")
    gptq = kernel(path="csrc/quantization/gptq/q_gemm.cu", name="gptq_gemm", details=(("wave64-ballot-32bit", "fix", (3,)),))
    fs = [finding("API001", path="csrc/quantization/awq/gemm.cu", line=2)]
    rs = RuleSet((rule("API001", size="xs"),), "x")
    a = assess(result(fs, [awq, gptq], files=(awq.path, gptq.path)), ts("mi355x"), model=UNSCALED, rules=rs)
    # the minimal port: gptq's kernel, not AWQ's
    assert [r.name for r in a.breakdowns.by_kernel] == ["gptq_gemm"]
    assert not any("awq" in (i.path or "") for i in a.items)
    p = a.parity
    assert (p.kernels, p.findings) == (1, 1)
    assert p.reasons == (("csrc/quantization/awq/", "one of several sibling quantization methods, and it needs a rewrite on the target"),)
    assert p.mean_hours > a.mean_hours + 40  # AWQ's 16–40–100 h rewrite is in parity
    assert a.to_dict()["scope"]["parity"]["reasons"][0]["what"] == "csrc/quantization/awq/"


def test_a_single_quantization_method_is_the_minimal_port():
    awq = kernel(path="csrc/quantization/awq/gemm.cu", name="awq_gemm", details=(("inline-ptx-matrix", "rewrite", (3,)),),
                 verdict="rewrite")
    a = assess(result([], [awq], files=(awq.path,)), ts("mi355x"), model=UNSCALED, rules=NO_RULES)
    assert a.parity is None and [r.name for r in a.breakdowns.by_kernel] == ["awq_gemm"]


def test_findings_the_project_declares_cuda_only_are_parity():
    rs = RuleSet((rule("PY001", category="python", size="m"),), "x")
    f = finding("PY001", path="setup.py", category="python", data=(("name", "rocm_not_supported_ops"),))
    a = assess(result([f], files=("setup.py",)), ts("mi355x"), model=UNSCALED, rules=rs)
    assert a.parity.findings == 1 and a.parity.reasons == (("PY001", "the project declares it CUDA-only"),)
    assert not any(i.rule == "PY001" for i in a.items)


# ------------------------------------------------------------------------------------------ breakdowns


def test_apportion_sums_exactly_to_the_total():
    assert apportion([1, 1, 1], 1.0) == [0.4, 0.3, 0.3]
    assert apportion([2, 1], 0.5) == [0.3, 0.2]
    assert apportion([0, 0], 3.0) == [0.0, 0.0]
    assert sum(apportion([0.7, 0.2, 0.1], 66.5)) == 66.5


def test_category_shares_sum_to_the_headline_and_standalone_ranges_are_named_apart():
    ks = [kernel(path=f"src/k{n}.cu", name=f"k{n}", end=40 + 30 * n, details=(("inline-ptx", "fix", (3,)),))
          for n in range(4)]
    rs = RuleSet((rule("BLD001", category="build", size="s"),), "x")
    fs = [finding("BLD001", path="CMakeLists.txt", category="build")]
    a = assess(result(fs, ks, files=tuple(k.path for k in ks) + ("CMakeLists.txt",)), ts("mi355x"), rules=rs)
    rows = a.to_dict()["breakdowns"]["by_category"]
    for p in ("low", "likely", "high"):
        assert round(sum(r["share_days"][p] for r in rows), 1) == getattr(a.days, p)
    kernel_row = next(r for r in rows if r["category"] == "kernel")
    assert kernel_row["standalone_days"]["likely"] <= a.days.likely
    # the build job grows with the build files that have findings: 0.5–1–4 + 0.25–0.5–2 for CMakeLists.txt, × 0.53
    assert item(a, "one-off:rocm-build-and-ci").hours.rounded() == Hours(0.4, 0.8, 3.18)


def test_sibling_backends_are_found_by_directory_name_deepest_first():
    from porter.estimate.inputs import _matched_dir

    pats = ["**/quantization/*/", "**/quantization/", "**/exllama*/", "**/awq*/"]
    assert _matched_dir("csrc/quantization/awq/gemm.cu", pats) == "csrc/quantization/awq/"
    assert _matched_dir("awq_ext/quantization/gemm.cu", pats) == "awq_ext/quantization/"
    assert _matched_dir("awq_ext/exllamav2/cuda/q_gemm.cu", pats) == "awq_ext/exllamav2/"
    assert _matched_dir("awq_ext/attention/decoder.hpp", pats) == "awq_ext/"
    assert _matched_dir("src/kernels/reduce.cu", pats) is None


def test_the_same_fix_in_several_kernels_of_a_file_is_a_repeated_fix():
    # three kernels of 50, 45 and 40 lines (not copies: their lengths differ), each needing the 0xffffffff fix
    ks = [kernel(line=1 + 100 * n, end=100 * n + 50 - 5 * n, name=f"dequant_{c}") for n, c in enumerate("abc")]
    a = assess(result([], ks), ts("mi355x"), model=UNSCALED, rules=NO_RULES)
    hours = [round(item(a, f"kernel:src/a.cu:{1 + 100 * n}:dequant_{c}").hours.likely, 2) for n, c in enumerate("abc")]
    # 4 h × (lines/40)^0.5 = 4.47, 4.24, 4; dearest first, on per.hit's curve 1 + 3(1 − e^(−(n − 1) × 0.5 / 3)):
    # the 2nd × 0.46, the 3rd × 0.39
    assert hours == [4.47, 1.95, 1.56]
    assert "× 0.46 (kernel 2 of the file needing wave64-ballot-32bit: a repeated fix)" in item(a, "kernel:src/a.cu:101:dequant_b").basis


def test_kernels_of_one_file_that_need_nothing_are_not_a_repeated_fix():
    # the same three kernels, read ok: each is compiled and compared on its own (0–0.1–0.25 h × (lines/40)^0.5),
    # whether they share a file (kaldi's cu-kernels.cu, ~150 kernels) or each has its own (pytorch3d): no fix to repeat
    ks = [kernel(line=1 + 100 * n, end=100 * n + 50 - 5 * n, name=f"copy_{c}", details=(), verdict="ok")
          for n, c in enumerate("abc")]
    a = assess(result([], ks), ts("mi355x"), model=UNSCALED, rules=NO_RULES)
    hours = [round(item(a, f"kernel:src/a.cu:{1 + 100 * n}:copy_{c}").hours.likely, 3) for n, c in enumerate("abc")]
    assert hours == [0.112, 0.106, 0.1]
    assert not any("repeated fix" in i.basis for i in a.items)


# ------------------------------------------------------------------------------------------ session 8 structure


def test_full_masks_and_lane_counts_are_one_compatibility_header_for_the_repository():
    # three kernels in three files: two write 0xffffffff masks, one a 32-lane count beside shuffles; real ports
    # (pytorch_sparse, llama.cpp, LightGBM) define the *_sync shuffles once in a compatibility header
    ks = [kernel(path="src/a.cu", name="a", details=(("wave64-full-mask", "fix", (5,)),)),
          kernel(path="src/b.cu", name="b", details=(("wave64-full-mask", "fix", (7,)), ("wave64-lane-count", "fix", (8,)))),
          kernel(path="lib/c.cu", name="c", details=(("wave64-lane-count", "fix", (3,)),))]
    a = assess(result([], ks, files=("src/a.cu", "src/b.cu", "lib/c.cu")), ts("mi355x"), model=UNSCALED, rules=NO_RULES)
    site = item(a, "site:repository:compat")
    # the header once (repository_fix 0.5–1–3 h) + 0.1–0.25–0.5 h review for each of the 3 kernels that reach it;
    # no kernel item of its own
    assert site.hours == Hours(0.8, 1.75, 4.5) and site.count == 3
    assert site.title == "Fix once at one compatibility header for the repository (3 kernel(s) reach it)"
    assert site.path is None
    assert not any(i.id.startswith("kernel:") for i in a.items)
    assert [(s.need, s.kernels) for s in a.fix_sites] == [("wave64-full-mask", 3)]


def test_a_vanishing_cuda_arch_arm_is_a_guard_edit_not_a_code_fix():
    k = kernel(details=(("DEV016", "fix", (12,)),))
    a = assess(result([], [k]), ts("mi355x"), model=UNSCALED, rules=NO_RULES)
    # DEV016's need is 0.5–1–3 h (give HIP the arm and check it), not the fix verdict's 2–4–10 h
    assert item(a, "kernel:src/a.cu:1:k").hours == Hours(0.5, 1, 3)


def test_a_cuda_arch_arm_with_a_stub_else_is_the_same_guard_edit():
    k = kernel(details=(("DEV031", "fix", (12,)),))
    a = assess(result([], [k]), ts("mi355x"), model=UNSCALED, rules=NO_RULES)
    # DEV031 (the #else HIP compiles returns a constant) is DEV016's hole: 0.5–1–3 h, not the fix verdict's 2–4–10 h
    assert item(a, "kernel:src/a.cu:1:k").hours == Hours(0.5, 1, 3)


def test_rounded_intrinsics_relied_on_not_to_contract_are_one_build_decision():
    # __fmul_rn/__fadd_rn in two kernels of two files: -ffp-contract=off (or the pragma) once, a comparison per kernel
    ks = [kernel(path=f"src/k{n}.cu", name=f"k{n}", details=(("fp-contract-rounded", "fix", (9,)),)) for n in range(2)]
    a = assess(result([], ks, files=tuple(k.path for k in ks)), ts("mi355x"), model=UNSCALED, rules=NO_RULES)
    assert item(a, "site:repository:compat").basis == \
        "fp-contract-rounded fixed once (0.5–1–3 h) + 0.1–0.25–0.5 h review × 2 kernel(s)"
    assert not any(i.id.startswith("kernel:") for i in a.items)


def test_a_rewrite_among_kernels_that_port_goes_to_parity_with_its_files_findings():
    rs = RuleSet((rule("DEV003", "device", "l", "kernel"),), "x")
    mma = kernel(path="src/awq/gemm.cu", name="gemm_4bit", details=(("inline-ptx-matrix", "rewrite", (20,)),),
                 verdict="rewrite")
    others = [kernel(path=f"src/ops/op{n}.cu", name=f"op{n}", details=(("wave64-ballot-32bit", "fix", (5,)),))
              for n in range(4)]
    f = finding("DEV003", path="src/awq/gemm.cu", line=20, category="device", kernel="gemm_4bit")
    files = ("src/awq/gemm.cu",) + tuple(k.path for k in others)
    a = assess(result([f], [mma, *others], files=files), ts("mi355x"), model=UNSCALED, rules=rs)
    assert not any(i.path == "src/awq/gemm.cu" for i in a.items)  # neither the kernel nor its file's finding
    assert a.parity is not None and a.parity.days.likely > a.days.likely
    # with fewer than 4 other kernels the rewrite is the port itself: it stays in the minimal port
    a3 = assess(result([f], [mma, *others[:3]], files=files[:4]), ts("mi355x"), model=UNSCALED, rules=rs)
    assert any(i.id == "kernel:src/awq/gemm.cu:1:gemm_4bit" for i in a3.items)


# ------------------------------------------------------------------------------------------ session 10: scope and sites


def _with_includes(res, includes):
    """The scan with FileResults that carry `#include "..."` lines: {path: (header, ...)}, quoted."""
    from porter.model import FileResult

    files = tuple(FileResult(fr.path, "cuda", 100, includes=tuple((h, True) for h in includes.get(fr.path, ())))
                  for fr in res.files)
    return dataclasses.replace(res, files=files)


def test_headers_only_a_parity_kernel_uses_go_to_parity_with_it():
    # AutoAWQ_kernels' fused attention: the kernel's template header, its launcher (.cu, no kernel of its own) and
    # the PTX helpers only they include go to parity; a header a ported kernel also includes stays
    rs = RuleSet((rule("DEV001", "device", "m", "hit"),), "x")
    mma = kernel(path="attn/template.hpp", name="mmha", details=(("inline-ptx-matrix", "rewrite", (20,)),),
                 verdict="rewrite")
    others = [kernel(path=f"ops/op{n}.cu", name=f"op{n}", details=(("wave64-ballot-32bit", "fix", (5,)),))
              for n in range(4)]
    fs = [finding("DEV001", path="attn/utils.h", line=3, category="device"),
          finding("DEV001", path="attn/launch.cu", line=3, category="device"),
          finding("DEV001", path="common/shared.h", line=3, category="device")]
    files = ("attn/template.hpp", "attn/launch.cu", "attn/utils.h", "common/shared.h") + tuple(k.path for k in others)
    res = _with_includes(result(fs, [mma, *others], files=files), {
        "attn/launch.cu": ("template.hpp", "utils.h"), "attn/template.hpp": ("utils.h", "../common/shared.h"),
        "ops/op0.cu": ("../common/shared.h",)})
    a = assess(res, ts("mi355x"), model=UNSCALED, rules=rs)
    assert sorted(w for w, _ in a.parity.reasons) == ["attn/launch.cu", "attn/template.hpp", "attn/utils.h"]
    assert [i.path for i in a.items if i.rule == "DEV001"] == ["common/shared.h"]


def test_a_cutlass_backend_that_is_a_minority_fast_path_goes_to_parity_as_a_whole():
    # CTranslate2's vendored FlashAttention: 1 CUTLASS kernel beside 4 of its own that port (at most a quarter of
    # the project's kernels): the backend job and its findings are parity, not the minimal port
    rs = RuleSet((rule("LIB020", "library"),), "x")
    cute = KernelFacts(40, cuda_libraries=("cutlass",))
    fa = kernel(path="fa/flash_fwd.h", name="flash_fwd", facts=cute, details=(("inline-ptx-matrix", "rewrite", (3,)),),
                verdict="rewrite")
    others = [kernel(path=f"ops/op{n}.cu", name=f"op{n}", details=(("wave64-ballot-32bit", "fix", (5,)),))
              for n in range(4)]
    f = finding("LIB020", path="fa/kernel_traits.h", line=1, category="library", data=(("library", "cutlass"),))
    files = ("fa/flash_fwd.h", "fa/kernel_traits.h") + tuple(k.path for k in others)
    a = assess(result([f], [fa, *others], files=files), ts("mi355x"), model=UNSCALED, rules=rs)
    assert not any(i.id == "one-off:reimplement-cutlass" for i in a.items)
    assert ("cute, cutlass", a.parity.reasons[0][1]) in a.parity.reasons and a.parity.days.likely > a.days.likely
    # where the backend is the project (flash-attention, xformers: two of four kernels here) the port re-implements it
    a2 = assess(result([f], [fa, kernel(path="fa/bwd.h", name="bwd", facts=cute), *others[:2]],
                       files=files[:4] + ("fa/bwd.h",)), ts("mi355x"), model=UNSCALED, rules=rs)
    assert any(i.id == "one-off:reimplement-cutlass" for i in a2.items)


def test_a_cutlass_call_with_no_kernel_of_its_own_is_a_library_call_swapped():
    # pyg-lib's grouped matmul calls a CUTLASS device-level GEMM: no backend to build (#552 swapped it in a day)
    rs = RuleSet((rule("LIB020", "library"),), "x")
    f = finding("LIB020", path="ops/matmul.cu", line=1, category="library", data=(("library", "cutlass"),))
    a = assess(result([f], [], files=("ops/matmul.cu",)), ts("mi355x"), model=UNSCALED, rules=rs)
    job = item(a, "one-off:reimplement-cutlass")
    # hours_without_kernels 1–2–6 h instead of the backend's 8–16–40 h, + 0.5–1–3 h for the one API name
    assert job.hours == Hours(1.5, 3, 9)
    assert job.basis.startswith("repository-wide job, 1–2–6 h (no kernel of its own: a library call swapped)")


def test_the_repository_compatibility_header_costs_its_own_hours_not_a_kernels_fix():
    ks = [kernel(path=f"src/k{n}.cu", name=f"k{n}", details=(("wave64-full-mask", "fix", (5,)),)) for n in range(2)]
    a = assess(result([], ks, files=tuple(k.path for k in ks)), ts("mi355x"), model=UNSCALED, rules=NO_RULES)
    site = item(a, "site:repository:compat")
    # repository_fix 0.5–1–3 h once + 0.1–0.25–0.5 h review for each of the 2 kernels
    assert site.hours == Hours(0.7, 1.5, 4)
    assert site.basis == "wave64-full-mask fixed once (0.5–1–3 h) + 0.1–0.25–0.5 h review × 2 kernel(s)"


def test_build_findings_in_ci_recipes_are_the_build_and_ci_job():
    # pytorch_cluster's cu101-Linux.sh ... cu116-Linux.sh call nvcc: one ROCm CI job, not a port of each recipe
    rs = RuleSet((rule("BLD007", "build", "s", "file", "replace"),), "x")
    fs = [finding("BLD007", f".github/workflows/cuda/cu1{n}-Linux.sh", 2, "build") for n in range(3)]
    fs.append(finding("BLD007", "tools/build_all.sh", 2, "build"))
    a = assess(result(fs), ts("mi355x"), model=UNSCALED, rules=rs)
    job = item(a, "one-off:rocm-build-and-ci")
    assert set(job.findings) == {f.fingerprint for f in fs[:3]}
    assert job.hours == Hours(0.5, 1, 4)  # no build file: the job's own hours
    assert [i.path for i in a.items if i.rule == "BLD007"] == ["tools/build_all.sh"]


# ------------------------------------------------------------------------------------------ session 11: kernel extents

REWRITE_REASON = ("it needs a new implementation on the target while the project's other kernels port; first ports "
                  "leave such a fast path NVIDIA-only")


def _shared_file_scan():
    """bitsandbytes' csrc/kernels.cu in small: a wmma GEMM (lines 100–160, its own helper at 80–95, a helper it shares
    with a quantizer at 10–20) beside a quantizer (200–240) the port ships, three more ported kernels elsewhere, host
    code at line 5 and a header only this file includes."""
    own, both = DeviceFunction("mma_tile", 80, 95), DeviceFunction("warp_sum", 10, 20)
    gemm = kernel(path="csrc/kernels.cu", line=100, end=160, name="gemm_mma", verdict="rewrite",
                  facts=KernelFacts(61, device_functions=(both, own)),
                  details=(("inline-ptx-matrix", "rewrite", (120,)),))
    quant = kernel(path="csrc/kernels.cu", line=200, end=240, name="quantize",
                   facts=KernelFacts(41, device_functions=(both,)))
    others = [kernel(path=f"csrc/op{n}.cu", name=f"op{n}") for n in range(3)]
    fs = [finding("DEV003", "csrc/kernels.cu", line, "device") for line in (5, 15, 85, 120, 160, 210)]
    fs.append(finding("DEV003", "csrc/common.cuh", 3, "device"))
    fs = [dataclasses.replace(f, fingerprint=f"{f.path}:{f.line}") for f in fs]  # the helper's cut at 20 characters
    files = ("csrc/kernels.cu", "csrc/common.cuh") + tuple(k.path for k in others)
    res = _with_includes(result(fs, [gemm, quant, *others], files=files), {"csrc/kernels.cu": ("common.cuh",)})
    return res, gemm, quant, fs


def test_feature_extents_are_the_left_kernels_body_and_the_helpers_only_it_calls():
    from porter.estimate.inputs import feature_extents

    _, gemm, quant, _ = _shared_file_scan()
    assert feature_extents([gemm], [quant]) == {"csrc/kernels.cu": ((gemm, 80, 95), (gemm, 100, 160))}
    # with no kept kernel in the file every helper it calls goes with it
    assert feature_extents([gemm], []) == {"csrc/kernels.cu": ((gemm, 10, 20), (gemm, 80, 95), (gemm, 100, 160))}


def test_a_rewrite_in_a_file_shared_with_ported_kernels_leaves_only_its_extents_to_parity():
    from porter.estimate.inputs import Inputs

    rs = RuleSet((rule("DEV003", "device", "l", "kernel"),), "x")
    res, gemm, quant, fs = _shared_file_scan()
    scope = Inputs.of(res, UNSCALED, rs, {}).scope(ts("mi355x"))
    assert scope.parity_kernels == (gemm,)
    # the kernel's body (120, its last line 160) and its own helper (85); host code (5), the shared helper (15), the
    # quantizer (210) and the header only this file includes stay in the minimal port
    assert [(f.path, f.line) for f in scope.parity_findings] == [("csrc/kernels.cu", 85), ("csrc/kernels.cu", 120),
                                                                  ("csrc/kernels.cu", 160)]
    assert [(f.path, f.line) for f in scope.findings] == [("csrc/common.cuh", 3), ("csrc/kernels.cu", 5),
                                                           ("csrc/kernels.cu", 15), ("csrc/kernels.cu", 210)]
    assert scope.parity_reasons == (("csrc/kernels.cu:100 gemm_mma", REWRITE_REASON),)
    assert quant in scope.kernels
    a = assess(res, ts("mi355x"), model=UNSCALED, rules=rs)
    assert (a.parity.kernels, a.parity.findings) == (1, 3)
    assert a.parity.text.endswith("leaves out (csrc/kernels.cu:100 gemm_mma).")


def test_the_else_arm_of_a_left_out_kernel_goes_with_it_and_takes_no_file_from_it():
    # CTranslate2's flash_fwd_launch_template.h: `#if __CUDA_ARCH__ >= 800` the kernel, `#else` an empty stub of the
    # same name. The stub is the same kernel, not a kernel of the minimal port: the file and the header only it
    # includes go to parity whole
    from porter.estimate.inputs import Inputs

    rs = RuleSet((rule("DEV003", "device", "l", "kernel"),), "x")
    fwd = kernel(path="fa/launch.h", line=15, end=18, name="flash_fwd", verdict="rewrite",
                 details=(("inline-ptx-matrix", "rewrite", (16,)),))
    stub = kernel(path="fa/launch.h", line=20, end=21, name="flash_fwd", details=(), verdict="ok")
    others = [kernel(path=f"ops/op{n}.cu", name=f"op{n}") for n in range(4)]
    fs = [dataclasses.replace(finding("DEV003", p, line, "device"), fingerprint=f"{p}:{line}")
          for p, line in (("fa/launch.h", 5), ("fa/utils.h", 3), ("ops/op0.cu", 9))]
    files = ("fa/launch.h", "fa/utils.h") + tuple(k.path for k in others)
    res = _with_includes(result(fs, [fwd, stub, *others], files=files), {"fa/launch.h": ("utils.h",)})
    scope = Inputs.of(res, UNSCALED, rs, {}).scope(ts("mi355x"))
    assert scope.parity_kernels == (fwd, stub)
    assert [(f.path, f.line) for f in scope.parity_findings] == [("fa/launch.h", 5), ("fa/utils.h", 3)]
    assert scope.parity_reasons == (("fa/launch.h", REWRITE_REASON), ("fa/utils.h", REWRITE_REASON))


def test_a_rewrite_in_a_quantization_method_directory_leaves_the_whole_method():
    # CTranslate2 #1989 took all of src/ops/awq/ out of its HIP build: the GEMM that needs a rewrite, and the GEMV and
    # dequantize kernels and header that needed only a fix
    from porter.estimate.inputs import Inputs

    rs = RuleSet((rule("DEV001", "device", "m", "hit"),), "x")
    gemm = kernel(path="src/ops/awq/gemm.cu", name="awq_gemm", verdict="rewrite",
                  details=(("inline-ptx-matrix", "rewrite", (20,)),))
    gemv = kernel(path="src/ops/awq/gemv.cu", name="awq_gemv")
    others = [kernel(path=f"src/ops/op{n}.cu", name=f"op{n}") for n in range(4)]
    fs = [dataclasses.replace(finding("DEV001", p, 3, "device"), fingerprint=p)
          for p in ("src/ops/awq/dequantize.cuh", "src/ops/op0.cu")]
    files = ("src/ops/awq/gemm.cu", "src/ops/awq/gemv.cu", "src/ops/awq/dequantize.cuh") + tuple(k.path for k in others)
    res = result(fs, [gemm, gemv, *others], files=files)
    scope = Inputs.of(res, UNSCALED, rs, {}).scope(ts("mi355x"))
    assert scope.parity_kernels == (gemm, gemv)
    assert [f.path for f in scope.parity_findings] == ["src/ops/awq/dequantize.cuh"]
    assert scope.parity_reasons == (("src/ops/awq/", REWRITE_REASON),)
    # a directory that is the project (AutoAWQ_kernels' awq_ext/) is no feature of it: with three kernels left
    # outside it, only the rewrite and its own file go
    res3 = result(fs, [gemm, gemv, *others[:3]], files=files[:6])
    scope3 = Inputs.of(res3, UNSCALED, rs, {}).scope(ts("mi355x"))
    assert scope3.parity_kernels == (gemm,) and scope3.parity_findings == ()
    assert scope3.parity_reasons == (("src/ops/awq/gemm.cu", REWRITE_REASON),)


def test_positive_arms_and_the_guard_macro_named_for_a_library():
    from porter.estimate.inputs import library_guard
    from porter.source.preprocessor import Directive, positive_arms

    dirs = ((3, 3, "ifdef", "CT2_WITH_CUDNN"), (5, 5, "if", "CUDART_VERSION >= 11000"), (7, 7, "else", ""),
            (9, 9, "endif", ""), (20, 20, "elif", "defined(USE_NCCL)"), (30, 30, "endif", ""),
            (40, 40, "ifndef", "WITH_CUDNN"), (44, 44, "endif", ""))
    assert positive_arms((Directive(*d) for d in dirs), 50) == [(3, 20, "CT2_WITH_CUDNN"), (5, 7, "CUDART_VERSION >= 11000"),
                                    (20, 30, "defined(USE_NCCL)")]
    assert library_guard("CT2_WITH_CUDNN", "cudnn") == "CT2_WITH_CUDNN"
    assert library_guard("defined(USE_NCCL) && X", "nccl") == "USE_NCCL"
    assert library_guard("!defined(WITH_CUDNN)", "cudnn") is None  # the build without it
    assert library_guard("CUDNN_VERSION_MAJOR >= 8", "cublas") is None
    assert library_guard("HAVE_CUDNNX", "cudnn") is None  # a word of the macro, not a part of a word


def test_library_calls_behind_a_macro_named_for_the_library_are_opt_in_parity():
    # CTranslate2's src/cuda/utils.cc: cuDNN calls inside `#ifdef CT2_WITH_CUDNN` (the WITH_CUDNN option, off by
    # default); the cuBLAS call outside it and a cuDNN call under `#ifndef` stay in the minimal port
    from porter.estimate.inputs import Inputs
    from porter.libraries import load_libraries
    from porter.model import FileResult
    from porter.model.report import PortFacts

    rs = RuleSet((rule("API002", "api", "m", "hit"),), "x")
    calls = [(12, "cudnn"), (14, "cudnn"), (30, "cublas"), (52, "cudnn")]
    fs = [dataclasses.replace(finding("API002", "src/cuda/utils.cc", line, "api", data=(("library", lib),)),
                              fingerprint=f"utils.cc:{line}") for line, lib in calls]
    facts = PortFacts(directives=((10, 10, "ifdef", "CT2_WITH_CUDNN"), (20, 20, "endif", ""),
                                  (50, 50, "ifndef", "CT2_WITH_CUDNN"), (60, 60, "endif", "")), total=80)
    res = dataclasses.replace(result(fs), files=(FileResult("src/cuda/utils.cc", "cuda", 80, port_facts=facts),))
    scope = Inputs.of(res, UNSCALED, rs, load_libraries()).scope(ts("mi355x"))
    assert [f.line for f in scope.parity_findings] == [12, 14]
    assert [f.line for f in scope.findings] == [30, 52]
    assert scope.parity_reasons == (("CT2_WITH_CUDNN", "the project compiles it only when it opts into the library; "
                                                       "a first port builds without it"),)


def test_python_uses_of_a_library_the_project_imports_only_where_installed_are_parity():
    # pytorch3d before its ROCm port (#1851): renderer/opengl/__init__.py probes `import pycuda.gl` in a try/except
    # ImportError (the scan marks that import `optional`) and imports opengl_utils.py, which imports pycuda.driver
    # unconditionally, only when it succeeds: both go to parity. A PyCUDA import in a project that never probes it,
    # and a C++ use of a probed library, stay in the minimal port.
    from porter.estimate.inputs import Inputs
    from porter.libraries import load_libraries

    rs = RuleSet((rule("LIB008", "library", "m", "file"), rule("LIB002", "library", "m", "file")), "x")
    probe = (("library", "PyCUDA"), ("optional", "imported in a try whose except catches ImportError (line 29)"))
    fs = [dataclasses.replace(finding("LIB008", "renderer/opengl/__init__.py", 28, "library", data=probe),
                              fingerprint="probe"),
          dataclasses.replace(finding("LIB008", "renderer/opengl/opengl_utils.py", 28, "library",
                                      data=(("library", "PyCUDA"),)), fingerprint="behind"),
          dataclasses.replace(finding("LIB002", "csrc/gl.cpp", 3, "library", data=(("library", "PyCUDA"),)),
                              fingerprint="cxx"),
          dataclasses.replace(finding("LIB008", "tools/trace.py", 1, "library", data=(("library", "cupy"),)),
                              fingerprint="other")]
    scope = Inputs.of(result(fs), UNSCALED, rs, load_libraries()).scope(ts("mi355x"))
    assert [f.fingerprint for f in scope.parity_findings] == ["probe", "behind"]
    assert [f.fingerprint for f in scope.findings] == ["cxx", "other"]
    assert scope.parity_reasons == (("PyCUDA (imported only where installed)",
                                     "the project imports the library only where it is installed (try/except "
                                     "ImportError); a first port runs without it"),)
    # a drop-in library's probe (flash_attn: ROCm builds exist) leaves no feature out
    dropin = [dataclasses.replace(finding("LIB007", "ops/fmha/flash.py", 46, "library", data=(
        ("library", "FlashAttention"), ("optional", "imported in a try whose except catches ImportError (line 50)"))),
        fingerprint="flash")]
    inputs = Inputs.of(result(dropin), UNSCALED, rs, load_libraries())
    assert inputs.library(dropin[0]).kind == "drop-in" and inputs.scope(ts("mi355x")).parity_findings == ()
    # without the probe nothing moves
    plain = [dataclasses.replace(f, data=(("library", "PyCUDA"),)) if f.fingerprint == "probe" else f for f in fs]
    assert Inputs.of(result(plain), UNSCALED, rs, load_libraries()).scope(ts("mi355x")).parity_findings == ()
