"""Second judge's blind kernel verdicts for heldout42 (session 29, helper j42, branch s29-j42).

    python3 bench/judged/heldout42/make_second.py /tmp/j42   (run from the worktree root)

writes kernels_second.jsonl: the 20 kernels `select_kernels.py /tmp/j42` draws (xkernels 8, cubnm 6, FlashRT 6;
QuantumAttention, icon4py and Genesis have no definitions) x MI300X (gfx942), MI355X (gfx950) and MI455X (gfx1250,
wave32) = 60 rows. The trees were built by the second judge with `make_trees.py heldout42 /tmp/j42` from the mirrors.
Each kernel was judged from the code: the kernel, its device helpers and macros, its launch sites, the build files
(setup.py, build.toml) and the project's ROCm arms or twins. The skeleton (main(), the refusal on missing or extra
verdicts) is h42's; the second judge filled V and this docstring. Read from s29-h42 before the blind commit:
select_kernels.py, projects.json, this skeleton, sample_guards_second.py and guard_keys_second.jsonl (keys only);
see README_second.md for one disclosed exposure to three first-judge kernel rows.

Conventions (heldout30, as heldout39): judge hipify's output compiled by hip-clang; blocks below the wave size (or
stepping by 32) on real work are retune on wave64; textures are fix; a kernel no build compiles is ok; a project-wide
macro problem is decided per kernel; a CUDA kernel the ROCm build replaces by a hand-kept twin is judged by the twin.

Facts used:
- xkernels: every drawn Triton kernel is vendor-neutral Triton (no inline PTX/asm, no warp-size constants, no
  NVIDIA-only dtype); several were written for gfx942 (MI300A) and say so. ffn.cu's swiglu_act_kernel is a
  256-thread elementwise kernel that torch's hipify builds for ROCm.
- cubnm: setup.py builds the same .cu files with hipcc -D ENABLE_HIP when hipcc is found; includes.cuh then includes
  hip_runtime.h / hip_cooperative_groups.h and cuda_to_hip.h's name map (hipLaunchCooperativeKernel, managed memory,
  hipLimitMallocHeapSize). No drawn kernel uses warp intrinsics, shuffles, textures or a warp-size constant
  (cuda_to_hip.h's WARPSIZE is unused). Blocks are sized by the data (nodes, windows) or by maxThreadsPerBlock, or
  fixed at 256 in co_launch mode; grid.sync / block.sync via cooperative groups, device malloc/free and atomicAdd on
  managed memory are all supported by HIP.
- FlashRT: build.toml builds csrc/fp8_ffn.cu only for the CUDA backend; the ROCm backend builds the hand-kept twin
  csrc/rocm/fp8_ffn_rocm.hip (rocm-archs = gfx942 only), which has scalar versions of bias_gelu_quantize, add_bias
  and quantize_mpad over __hip_fp8_e4m3_fnuz with max 240, while the torch binding demands Float8_e4m3fnuz under
  ROCM_KERNEL and the GEMM is hipBLASLt fnuz. FNUZ is gfx942's FP8; gfx950 and gfx1250 use OCP e4m3 (fn, max 448), so
  the twin's quantizers must choose the FP8 format per architecture there (and the arch list must grow).
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from select_kernels import draw  # noqa: E402

T = ("mi300x", "mi355x", "mi455x")
# (project, path, line) -> ((verdict mi300x, verdict mi355x, verdict mi455x), reason); filled by the second judge j42.
V: dict[tuple[str, str, int], tuple[tuple[str, str, str], str]] = {
    # ---------------------------------------------------------------- xkernels (Triton, one CUDA)
    ("ResearchComputer/xkernels", "src/xkernels/ops/mhc/triton/pre_post_kernel.py", 196): (("ok", "ok", "ok"),
        "mhc_post: per-(token, hidden-tile) fp32 combine of the hc_mult residual streams with comb/post gates; plain "
        "masked Triton loads, broadcasts and tl.sum, written for gfx942; nothing vendor- or wave-specific"),
    ("ResearchComputer/xkernels", "src/xkernels/ops/ffn/cuda/ffn.cu", 6): (("ok", "ok", "ok"),
        "elementwise SwiGLU (silu(g)*u in fp32, __expf) with 256-thread blocks; torch's hipify builds it for ROCm "
        "unchanged, no warp code"),
    ("ResearchComputer/xkernels", "src/xkernels/ops/sampling/triton/sampling_kernel.py", 97): (("ok", "ok", "ok"),
        "top-k sampling: iterative tl.argmax selection, renormalise, int64 fixed-point tl.cumsum inverse CDF; "
        "num_warps=4 is a Triton hint the AMD backend maps to its wave size; no vendor-specific code"),
    ("ResearchComputer/xkernels", "src/xkernels/ops/gemm/triton/mm_fp8_blockscale_kernel.py", 42): (("ok", "ok", "ok"),
        "fp8 block-scale GEMM written as the portable gfx942 replacement: loads the fp8 tiles and upcasts to fp32 "
        "before scaling (either e4m3 encoding works), tl.dot in fp32 ieee or bf16, 64-wide tiles sized for 64 KB LDS"),
    ("ResearchComputer/xkernels", "src/xkernels/ops/attention/triton/dsa_indexer_kernel.py", 170): (("ok", "ok", "ok"),
        "fused DSA indexer: fp32 tl.dot weighted-ReLU logits to a scratch row, then unrolled argmax top-k; the Triton "
        "replacement for NVIDIA-only deep_gemm, written for gfx942; fp32 dot is full fp32 on AMD (no TF32 question)"),
    ("ResearchComputer/xkernels", "src/xkernels/ops/comm/triton/add_rmsnorm_kernel.py", 23): (("ok", "ok", "ok"),
        "fused residual add + RMSNorm, one program per row, fp32 reduction, num_warps from the row width; plain "
        "Triton, written for gfx942"),
    ("ResearchComputer/xkernels", "src/xkernels/ops/moe/triton/align_kernel.py", 55): (("ok", "ok", "ok"),
        "MoE align stage 1: per-program scalar histogram with sequential loads/stores into its own row; no atomics, "
        "no vendor-specific code"),
    ("ResearchComputer/xkernels", "src/xkernels/ops/moe/triton/align_kernel.py", 106): (("ok", "ok", "ok"),
        "MoE align expert ids: one program per block counts cumsum entries <= offset with a vectorised tl.sum; "
        "no vendor-specific code"),
    # ---------------------------------------------------------------- cubnm (hipcc build under ENABLE_HIP)
    ("amnsbr/cubnm", "src/ext/fc.cu", 77): (("ok", "ok", "ok"),
        "per-(sim, node-pair, window) Pearson correlation in double over the BOLD series; blocks of "
        "prop.maxThreadsPerBlock (1024 on AMD too, and maxThreadsDim[0] equals it), no warp code; the ENABLE_HIP "
        "hipcc build compiles it through cuda_to_hip.h"),
    ("amnsbr/cubnm", "src/ext/fc.cu", 47): (("ok", "ok", "ok"),
        "per-(sim, window, node) mean and SSD of BOLD in double; block = nodes (data-sized, not a warp assumption), "
        "no warp code; built by the ENABLE_HIP hipcc arm"),
    ("amnsbr/cubnm", "src/ext/fc.cu", 184): (("ok", "ok", "ok"),
        "per-(sim, window-pair, hemisphere) FCD correlation in double; blocks of maxThreadsPerBlock, no warp code; "
        "built by the ENABLE_HIP hipcc arm"),
    ("amnsbr/cubnm", "src/ext/fc.cu", 127): (("ok", "ok", "ok"),
        "per-(sim, window) mean/SSD of the window FC; block = n_windows (data-sized; a tiny serial reduction, not a "
        "warp-sized design), no warp code; built by the ENABLE_HIP hipcc arm"),
    ("amnsbr/cubnm", "src/ext/fc.cu", 4): (("ok", "ok", "ok"),
        "per-(sim, node) BOLD mean/SSD in double, launched with the simulation kernel's geometry (nodes per block, "
        "or 256 in co_launch mode); no warp code; built by the ENABLE_HIP hipcc arm"),
    ("amnsbr/cubnm", "src/ext/bnm.cu", 118): (("ok", "ok", "ok"),
        "the neural-mass simulation kernel: one thread per node, one block per simulation (or a cooperative grid of "
        "256-thread blocks with grid.sync for many nodes), shared-memory state exchange, device malloc/free, "
        "atomicAdd progress on managed memory; all of it has HIP equivalents (hip_cooperative_groups, "
        "hipLaunchCooperativeKernel, hipLimitMallocHeapSize) mapped by cuda_to_hip.h and built by hipcc; no warp-size "
        "or PTX dependence"),
    # ---------------------------------------------------------------- FlashRT (ROCm twin csrc/rocm/fp8_ffn_rocm.hip)
    ("flashrt-project/FlashRT-HF-kernels", "flashrt-fp8-ffn/csrc/fp8_ffn.cu", 243): (("ok", "fix", "fix"),
        "static-scale bf16 -> OCP e4m3 quantisation into an M-padded buffer; CUDA-backend only, replaced on ROCm by "
        "the twin's quantize_fp8_static_bf16_mpad_kernel, which writes __hip_fp8_e4m3_fnuz clamped to 240: right "
        "for gfx942 (the only rocm-arch), the wrong FP8 format for gfx950/gfx1250 (OCP e4m3, max 448)"),
    ("flashrt-project/FlashRT-HF-kernels", "flashrt-fp8-ffn/csrc/fp8_ffn.cu", 158): (("ok", "fix", "fix"),
        "vectorised bias + tanh-GELU + OCP e4m3 quantisation epilogue; CUDA-backend only, replaced on ROCm by the "
        "twin's scalar bias_gelu_quantize kernel in FNUZ (max 240): right for gfx942, wrong FP8 format on "
        "gfx950/gfx1250"),
    ("flashrt-project/FlashRT-HF-kernels", "flashrt-fp8-ffn/csrc/fp8_ffn.cu", 132): (("ok", "fix", "fix"),
        "bias + tanh-GELU + OCP e4m3 quantisation epilogue (2-D tile indexing); replaced on ROCm by the twin's flat "
        "FNUZ kernel (max 240): right for gfx942, wrong FP8 format on gfx950/gfx1250"),
    ("flashrt-project/FlashRT-HF-kernels", "flashrt-fp8-ffn/csrc/fp8_ffn.cu", 260): (("ok", "fix", "fix"),
        "vectorised static-scale bf16 -> OCP e4m3 M-padded quantisation; replaced on ROCm by the twin's scalar FNUZ "
        "quantize_mpad kernel (max 240): right for gfx942, wrong FP8 format on gfx950/gfx1250"),
    ("flashrt-project/FlashRT-HF-kernels", "flashrt-fp8-ffn/csrc/fp8_ffn.cu", 216): (("ok", "ok", "ok"),
        "vectorised bf16 bias add after the GEMM; replaced on ROCm by the twin's scalar hip_bfloat16 add_bias kernel "
        "(256 threads), which has no FP8 and no arch dependence (only build.toml's arch list names gfx942)"),
    ("flashrt-project/FlashRT-HF-kernels", "flashrt-fp8-ffn/csrc/fp8_ffn.cu", 201): (("ok", "ok", "ok"),
        "scalar bf16 bias add; the twin's add_bias_bf16_kernel is the same kernel over hip_bfloat16 with 256-thread "
        "blocks; no FP8, no arch dependence"),
}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    commits = {p["project"]: p["commit"] for p in json.loads((HERE / "projects.json").read_text())}
    drawn = draw(Path(argv[0]), 3421)
    keys = {(project, k["path"], k["line"]): k["kernel"] for project, ks in drawn.items() for k in ks}
    missing = sorted(set(keys) - set(V))
    extra = sorted(set(V) - set(keys))
    if missing or extra:
        print(f"{len(missing)} drawn kernels without a verdict, {len(extra)} verdicts for kernels not drawn; "
              "nothing written", file=sys.stderr)
        return 1
    rows = []
    for (project, path, line), kernel in sorted(keys.items()):
        verdicts, reason = V[(project, path, line)]
        for target, verdict in zip(T, verdicts):
            rows.append({"commit": commits[project], "expected": verdict, "kernel": kernel, "line": line,
                         "path": path, "project": project, "reason": reason, "target": target})
    (HERE / "kernels_second.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    print(f"{len(rows)} rows written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
