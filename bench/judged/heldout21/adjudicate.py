"""Adjudicates every kernel and guard disagreement between the first judge (branch s21-h21) and the second (this
directory's kernels_second.jsonl / guards_second.jsonl, blind commits 2d64c739 and 2858e5a5) after re-reading the code in
/tmp/h21. Writes adjudication.jsonl, kernels_adjudicated.jsonl (the first judge's kernels.jsonl with the decisions
applied), guards_adjudication.jsonl and guards_adjudicated.jsonl (the first judge's guards.jsonl with the decisions
applied). Run from the worktree root:

    python bench/judged/heldout21/adjudicate.py
"""
import json
import subprocess

D = "bench/judged/heldout21/"


def first(name):
    out = subprocess.run(["git", "show", "s21-h21:" + D + name], capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


TRAP = ("re-read common_kernels.cu:48-63 and winograd_helper.inc:41-79: addVectors_kernel calls activate(cVal, "
        "activation), a non-template __device__ helper whose switch ends with `case ACTIVATION_DEFAULT: case "
        "ACTIVATION_SOFTMAX: __trap();`. HIP has no __trap: it is not declared in ROCm's device headers (ROCm/clr "
        "hipamd/include/hip/amd_detail/amd_device_functions.h and hip_assert.h use __builtin_trap()/abort(); "
        "rocm-systems' projects/clr copy likewise), nor in clang's __clang_hip_runtime_wrapper.h (clang defines __trap "
        "only in __clang_cuda_device_functions.h, CUDA mode), and HIPIFY's CUDA2HIP_Device_functions.cpp marks "
        "`__trap` UNSUPPORTED (hipify-perl leaves it and warns). So the kernel does not compile under hipcc until the "
        "helper spells the trap __builtin_trap() or abort(): a one-line fix in a device helper the kernel calls, "
        "which the convention scores as fix on every target. The body is otherwise elementwise and portable, as the "
        "first judge read it. fix (second judge). Because activate() is a non-template function in the included "
        "helper, the error stops the whole common_kernels.cu translation unit; kernels that do not call it "
        "(expandPlanes_*, globalAvgPool_kernel_NHWC_fp16, input_gating_kernel) stay ok by the per-kernel rule.")

W32 = ("re-read main_wilson_lines_fields_stacked_shared.cpp:19 (#define SHARED 20) and :333-344: blocks of 20 "
       "threads. On mi455x (wave32) a 20-thread block occupies one wave with 12 idle lanes, exactly as the same block "
       "occupies one 32-lane warp on NVIDIA: the port changes nothing there, so there is nothing a wave32 port has to "
       "retune. The session's convention makes sub-wave / non-multiple blocks retune on the wave64 targets (where a "
       "20-thread block wastes 44 of 64 lanes, worse than on NVIDIA) and only names wave32 to exempt 32-thread "
       "blocks; the second judge's blind retune on mi455x applied the wave64 rule to wave32. ok (first judge), which "
       "also matches both judges' mi455x ok for the module copy of this kernel (wilsonLineCorrelatorMultiGPU.cpp:156).")


def kernel_decision(k, f, s):
    if k[3] == "addVectors_kernel":
        return "fix", TRAP
    if k[3] == "DotAlongXYIntervalStackedShared" and k[4] == "mi455x":
        return "ok", W32
    raise KeyError(k)


STATIC_FOR = ("re-read dslash.cpp:{lines}: `#ifdef USE_HIP` (both hip_amd and hip_nvidia backends) spells the "
              "four-direction HISQ stencil sum with static_for<0,4> (and static_for<0,Ntiles> over the stacks), the "
              "#else arm with `#pragma unroll` for-loops. The #else code is plain C++ over __host__ __device__ "
              "accessors that hip-clang compiles and runs (nothing CUDA-specific: no intrinsics, no CUDA types); the "
              "HIP arm only forces compile-time indices (std::integral_constant mu, i) so Stmp[i] stays in "
              "registers. That is a code-generation / performance choice, not code the ROCm build needs to work, as "
              "heldout13-19 judged tuning arms (local_transpose_kernels.cu's AMD access patterns, gpu-cache's "
              "float4, the occupancy spoilers): not real (second judge). The first judge's unsampled row "
              "dslash.cpp:117-122 (same construct, same reason) needs the same decision.")

GUARD = {
    ("src/modules/dslash/dslash.cpp", 6): (True,
        "re-read dslash.cpp:3-7 and its uses (:166-210): BLOCKSIZE is the block size of the Dslash launches "
        "(iterateOverBulk<BLOCKSIZE>, iterateFunctorNoReturn<onDevice,BLOCKSIZE> with blockDim.x = BLOCKSIZE / "
        "NStacks_blockdim), the project's main compute kernels. The CUDA side sets 32; under this session's "
        "convention a 32-thread block of real work is a needed retune on the wave64 targets (half of each wave64 "
        "idle), and the USE_HIP_AMD arm supplies exactly that retune (64). Unlike the vendor-tuned spoiler sizes "
        "or float4 element types judged not real earlier, this constant is the launch width the session scores as "
        "port work, so the ROCm build needs its equivalent there: real (first judge). The static_for arms in the "
        "same file stay not real (see those rows)."),
    ("src/modules/dslash/dslash.cpp", 34): (False, STATIC_FOR.format(lines="18-48 (HisqDslashFunctor)")),
    ("src/modules/dslash/dslash.cpp", 81): (False, STATIC_FOR.format(lines="59-102 (HisqDslashStackedFunctor)")),
}


def main():
    key = lambda r: (r["project"], r["path"], r["line"], r["kernel"], r["target"])
    second = {key(r): r for r in map(json.loads, open(D + "kernels_second.jsonl"))}
    adj, out = [], []
    for r in first("kernels.jsonl"):
        k = key(r)
        s = second[k]
        row = dict(r)
        if s["expected"] != r["expected"]:
            decision, why = kernel_decision(k, r, s)
            adj.append({"key": {"project": k[0], "path": k[1], "line": k[2], "kernel": k[3], "target": k[4]},
                        "first": r["expected"], "second": s["expected"], "decision": decision, "reason": why})
            if decision != r["expected"]:
                row["expected"] = decision
                row["reason"] = r["reason"] + " [adjudicated %s -> %s: %s]" % (r["expected"], decision, why)
        out.append(row)
    with open(D + "adjudication.jsonl", "w") as f:
        for a in adj:
            f.write(json.dumps(a, sort_keys=True, ensure_ascii=False) + "\n")
    with open(D + "kernels_adjudicated.jsonl", "w") as f:
        for r in out:
            f.write(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n")

    gkey = lambda r: (r["project"], r["path"], r["first"], r["last"])
    gsecond = {gkey(r): r for r in map(json.loads, open(D + "guards_second.jsonl"))}
    gadj, gout = [], []
    for r in first("guards.jsonl"):
        k = gkey(r)
        row = dict(r)
        s = gsecond.get(k)
        if s is not None and s["real"] != r["real"]:
            decision, why = GUARD[(k[1], k[2])]
            gadj.append({"key": {"project": k[0], "path": k[1], "first": k[2], "last": k[3], "kind": r["kind"]},
                         "first": r["real"], "second": s["real"], "decision": decision, "reason": why})
            if decision != r["real"]:
                row["real"] = decision
                row["reason"] = r["reason"] + " [adjudicated: %s]" % why
        gout.append(row)
    with open(D + "guards_adjudication.jsonl", "w") as f:
        for a in gadj:
            f.write(json.dumps(a, sort_keys=True, ensure_ascii=False) + "\n")
    with open(D + "guards_adjudicated.jsonl", "w") as f:
        for r in gout:
            f.write(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n")
    print(len(adj), "kernel disagreements,", sum(a["decision"] != a["first"] for a in adj), "changed;",
          len(gadj), "guard disagreements,", sum(a["decision"] != a["first"] for a in gadj), "changed")


if __name__ == "__main__":
    main()
