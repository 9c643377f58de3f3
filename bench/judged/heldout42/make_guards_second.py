"""Second judge's blind guard verdicts for heldout42 (session 29, helper j42). The keys come from
sample_guards_second.py: every one of the 15 sides of the first judge's guards.jsonl (8 C/C++, 7 Python). Only the
keys were read; `real`/`reason` were dropped as each row was read. Each side is judged real or not real, as
heldout39's make_guards_second.py:
- real: the ROCm build needs equivalent code at that CUDA side to work, whether its arm supplies it or it is
  missing (CUDA includes/types/APIs, CUDA build definitions, nvcc-only flags that must not reach hipcc, the CUDA
  branch of a backend choice whose ROCm branch picks the HIP side);
- not real: no CUDA code at the lines (an #error, a raise, a CPU/other-backend fallback, a label string), ROCm code
  read as a CUDA side, the non-ROCm arm of a ROCm-only check, a per-vendor tuning choice the ROCm build runs without
  (heldout13/17/19's tuning arms), or a CUDA-only feature the project gates off on ROCm with nothing for the ROCm path
  to replace.
The verdicts were written before the first judge's guard verdicts were opened, from the trees in /tmp/j42.

    python bench/judged/heldout42/sample_guards_second.py bench/judged/heldout42/guards.jsonl > bench/judged/heldout42/guard_keys_second.jsonl
    python bench/judged/heldout42/make_guards_second.py bench/judged/heldout42/guard_keys_second.jsonl > bench/judged/heldout42/guards_second.jsonl
"""
import json
import sys

FB = "flashrt-fp8-ffn/torch-ext/torch_binding.cpp"
NO_BUILD = ("`TORCH_CHECK(false, \"flashrt-fp8-ffn was not built with CUDA/ROCm support\")` in the #else of "
            "`#if defined(CUDA_KERNEL) || defined(ROCM_KERNEL)`: the no-GPU fallback raise, no CUDA code")
V = {
    # ---- icon4py
    ("C2SM/icon4py", "model/common/src/icon4py/model/common/model_options.py", 64): (False,
        "`if not is_rocm_device:` gpu_maxnreg = 80 and gpu_block_size_2d = (64, 6) for graupel_run: NVIDIA-tuned "
        "register cap and block shape kept off ROCm, which runs the program with the backend defaults; a per-vendor "
        "tuning arm, nothing the ROCm path must supply"),
    # ---- Genesis
    ("Genesis-Embodied-AI/Genesis", "genesis/utils/misc.py", 170): (True,
        "`else:  # torch.version.cuda: backend = gs.cuda` in get_device: the CUDA branch of the backend choice, twin "
        "of the `if torch.version.hip: backend = gs.amdgpu` branch (as heldout39's installer.py:997 backend report)"),
    # ---- xkernels
    ("ResearchComputer/xkernels", "scripts/h1h2_count_gemm.py", 99): (True,
        "the non-AMD arm of `if IS_AMD`: registers the native CUDA override (register_dsl_cuda, nvidia_sm121, card "
        "gemm_bf16.cuda) whose HIP twin (register_dsl_hip, amd_cdna3) the AMD arm supplies"),
    ("ResearchComputer/xkernels", "tests/test_vkl_override_hip.py", 27): (False,
        "`if not torch.version.hip: pytest.skip(\"not a ROCm/HIP torch build\")`: the non-ROCm arm of a ROCm-only "
        "test gate, a skip, no CUDA code"),
    # ---- QuantumAttention
    ("WaveSpeedAI/QuantumAttention", "src/quantum_attn/inductor/kernels/mm_common.py", 39): (False,
        "`return \"tl.float16\"` when reduced-precision compute is allowed and torch.version.hip is None: an fp16 "
        "accumulator chosen for NVIDIA, while ROCm keeps fp32; a precision/speed choice the ROCm path runs without, "
        "not port work"),
    # ---- cubnm
    ("amnsbr/cubnm", "include/cubnm/includes.cuh", 29): (True,
        "`#ifndef ENABLE_HIP` includes cuda_runtime.h and cooperative_groups.h; the #else arm includes "
        "hip_runtime.h, hip_cooperative_groups.h and the cuda_to_hip.h name map"),
    ("amnsbr/cubnm", "setup.py", 118): (False,
        "`gpu_includes = []` in the final else after the nvidia and rocm arms: the CPU-only build, no CUDA code"),
    ("amnsbr/cubnm", "setup.py", 253): (False,
        "`include_flags` from shared_includes only in the else of `if gpu_model == 'rocm'`: the nvcc build passes no "
        "GPU include path at all (nvcc finds its own headers); the line holds no CUDA include, flag or API, the ROCm "
        "arm only adds the HIP include directory"),
    ("amnsbr/cubnm", "src/ext/bnm.cu", 642): (False,
        "`#ifndef ENABLE_HIP` cudaDeviceGetLimit(&heapSize, cudaLimitMallocHeapSize): starting the heap size from the "
        "current limit is skipped on HIP on purpose (hipDeviceGetLimit returned a huge value) and the HIP path "
        "starts from 0 and sets the limit itself; a CUDA-only step the ROCm path runs without"),
    # ---- FlashRT
    ("flashrt-project/FlashRT-HF-kernels", FB, 51): (True,
        "the #else of `#if defined(ROCM_KERNEL)` in check_fp8_matrix: requires Float8_e4m3fn, the CUDA build's FP8 "
        "dtype; the ROCm arm supplies the Float8_e4m3fnuz check its hipBLASLt path needs"),
    ("flashrt-project/FlashRT-HF-kernels", FB, 125): (False, NO_BUILD + " (launch_fp8_gemm_bf16)"),
    ("flashrt-project/FlashRT-HF-kernels", FB, 150): (False, NO_BUILD + " (launch_bias_gelu_quant)"),
    ("flashrt-project/FlashRT-HF-kernels", FB, 164): (False, NO_BUILD + " (launch_add_bias_bf16)"),
    ("flashrt-project/FlashRT-HF-kernels", FB, 212): (False, NO_BUILD + " (launch_quantize_mpad)"),
    ("flashrt-project/FlashRT-HF-kernels", FB, 294): (True,
        "the #else of `#if defined(ROCM_KERNEL)` in fp8_linear_bias_gelu_quant_bf16: out_fp8 must be "
        "Float8_e4m3fn, the CUDA build's FP8 dtype; the ROCm arm supplies the Float8_e4m3fnuz check"),
}

keys = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
seen = set()
for k in keys:
    key = (k["project"], k["path"], k["first"])
    real, reason = V[key]  # a key without a verdict is an error
    seen.add(key)
    print(json.dumps({**k, "real": real, "reason": reason}, sort_keys=True))
assert seen == set(V) and len(keys) == 15, set(V) - seen
