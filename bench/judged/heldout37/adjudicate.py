"""Adjudicates every kernel and guard disagreement between heldout37's two judges (heldout30's script, adapted):
- first judge: branch s28-h37 (verdict commit 2a6cb537), kernels.jsonl and guards.jsonl;
- second judge: this directory's kernels_second.jsonl and guards_second.jsonl, blind commit e1ff0056.
Writes adjudication.jsonl, kernels_adjudicated.jsonl (the first judge's 96 rows with the decisions applied),
guards_adjudication.jsonl and guards_adjudicated.jsonl (the first judge's 62 rows with the decisions applied). A
disagreement without a decision below is an error, and so is a decision for a pair that agrees. All four decisions
went to the first judge's side, so the adjudicated files equal the first judge's files. Run from the worktree root:

    python bench/judged/heldout37/adjudicate.py
"""
import json
import subprocess

D = "bench/judged/heldout37/"


def first(name):
    out = subprocess.run(["git", "show", "s28-h37:" + D + name], capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def second(name):
    return [json.loads(l) for l in open(D + name) if l.strip()]


FP8 = (
    "fix (first judge). Re-read conch/kernels/quantization/fp8.py:14-62 and conch/ops/quantization/fp8.py:12-68. The "
    "kernel itself picks the fp8 format by vendor (`fp8_dtype = tl.float8e4b8 if cxpr_is_rocm else tl.float8e4nv`, "
    "cxpr_is_rocm = current_platform.is_amd()), and the op asserts `output_tensor.dtype == torch.float8_e4m3fnuz` on "
    "every AMD GPU (its comment: 'ROCm only supports fp8_e4m3fnuz'). That is MI300X's (gfx942) format. gfx950 and "
    "gfx1250 use OCP e4m3fn natively: AMD's own aiter picks float8_e4m3fn on gfx950, and Triton's AMD backend "
    "converts fp32/fp16 to FNUZ in hardware only on CDNA3 (ElementwiseOpToLLVM.cpp: Fp16_to_Fp8E4M3FNUZ picks _HW "
    "on CDNA3 and a software RTNE downcast otherwise, and the conversion pattern names 'fp32/fp16 -> nanoo fp8/bf8 "
    "on non-CDNA3' as its two-element software case). The second "
    "judge's ok rested on the cast still compiling and the dtype being consistent inside Conch. Both are true, but "
    "on MI355X/MI455X the op then rejects a caller's native e4m3fn tensor and hands out FNUZ values that the "
    "platform's other fp8 consumers do not read. Its scaled GEMM also requires a.dtype == b.dtype, so OCP weights "
    "cannot meet FNUZ activations. The ROCm arm has to test the architecture (FNUZ on gfx942, e4m3fn on "
    "gfx950/gfx1250), in the kernel's constexpr and the op's dtype. This is a small code change, and it is about "
    "correctness of the data format rather than speed: fix. This differs from heldout21's quantize_fp8_kernel_tl "
    "(ok), which casts to whatever dtype the caller's tensor has and does not hard-code the format itself.")
C = "stackav-oss/conch"
DECISIONS = {
    (C, "conch/kernels/quantization/fp8.py", 14, "_static_scaled_fp8_quant_kernel", "mi355x"): ("fix", FP8),
    (C, "conch/kernels/quantization/fp8.py", 14, "_static_scaled_fp8_quant_kernel", "mi455x"): ("fix", FP8),
}
GUARD_DECISIONS = {
    ("RMGDFT/rmgdft", "NEGF/Cuda_funcs/Sgreen_cuda.c", 32, 213): (False,
        "not real (first judge). The second judge assumed the NEGF_Cudafunc library is part of the NEGF build. It is "
        "not: `git grep` of the mirror at 4b97d35 finds no add_subdirectory(NEGF/Cuda_funcs) and no target that "
        "links NEGF_Cudafunc. Sgreen_cuda has no caller outside its own file (the only other hit is its own "
        "dprintf). The top CMakeLists adds NEGF, NEGF/Common, NEGF/SelfEnergy and the other NEGF subdirectories "
        "EXCLUDE_FROM_ALL, but not Cuda_funcs. So no build compiles the cuBLAS/magma code, and the ROCm build needs "
        "no equivalent. This is the same no-build convention both judges applied to genvpsi_kernel in the same "
        "directory (ok for both)."),
    (C, "conch/platforms/platform.py", 76, 76): (False,
        "not real (first judge). The line is `return Platform(PlatformEnum.NVIDIA, \"cuda\")`: a vendor tag, with no "
        "CUDA API, type, library, flag or build definition. On a ROCm torch, torch.version.cuda is None, so the "
        "existing `torch.version.hip` test returns the AMD platform, and nothing at this side needs a ROCm "
        "equivalent. The CUDA-only choices that is_nvidia() drives (the GEMM's eviction hints, the fp8 dtype) live "
        "at their own lines, where is_nvidia()/is_amd() already switch them. The second judge's reading (a "
        "vendor-selection arm is real) would make every `if cuda: tag` real. The sets score such sides by what the "
        "code is: heldout33's retain_cpu_backup policy flag under USE_CUDA (no CUDA API or type: not real), against "
        "heldout33's `return pgkl::metadata_cuda()` (a call into the CUDA backend: real). This line is the former "
        "kind.")
}

k1 = first("kernels.jsonl")
k2 = {(r["project"], r["path"], r["line"], r["kernel"], r["target"]): r for r in second("kernels_second.jsonl")}
g1 = first("guards.jsonl")
g2 = {(r["project"], r["path"], r["first"], r["last"]): r for r in second("guards_second.jsonl")}

adj, out, used = [], [], set()
for r in k1:
    key = (r["project"], r["path"], r["line"], r["kernel"], r["target"])
    s = k2[key]
    if s["expected"] != r["expected"]:
        verdict, reason = DECISIONS[key]  # a disagreement without a decision is an error
        used.add(key)
        adj.append({**dict(zip(("project", "path", "line", "kernel", "target"), key)), "first": r["expected"],
                    "second": s["expected"], "decided": verdict, "reason": reason})
        if verdict != r["expected"]:
            r = dict(r, expected=verdict, reason=r["reason"] + " [adjudicated: " + reason + "]")
    out.append(r)
assert len(k1) == len(k2) == 96 and used == set(DECISIONS), set(DECISIONS) - used

gadj, gout, gused = [], [], set()
keys1 = {(r["project"], r["path"], r["first"], r["last"]) for r in g1}
assert set(g2) == keys1 and len(g1) == 62
for r in g1:
    key = (r["project"], r["path"], r["first"], r["last"])
    if g2[key]["real"] != r["real"]:
        real, reason = GUARD_DECISIONS[key]
        gused.add(key)
        gadj.append({**dict(zip(("project", "path", "first", "last"), key)), "first_judge": r["real"],
                     "second_judge": g2[key]["real"], "decided": real, "reason": reason})
        if real != r["real"]:
            r = dict(r, real=real, reason=r["reason"] + " [adjudicated: " + reason + "]")
    gout.append(r)
assert gused == set(GUARD_DECISIONS)

for name, rows in (("adjudication.jsonl", adj), ("kernels_adjudicated.jsonl", out),
                   ("guards_adjudication.jsonl", gadj), ("guards_adjudicated.jsonl", gout)):
    with open(D + name, "w") as f:
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + "\n")
print(len(adj), "kernel decisions,", len(gadj), "guard decisions")
