"""End to end on fixtures/repos/llm-serving: the exact (rule, path, line) set the lock-in rules report.

The repository is a TensorRT-LLM / Triton serving stack with an NVFP4 checkpoint, NGC images, prebuilt
binaries and a custom CUDA op; only the lock-in categories (library, tensorrt, quantization, config, binary,
build, python, container) are checked here — kernel and API rules have their own end-to-end tests.
"""
from __future__ import annotations

from pathlib import Path

from porter.settings import Settings
from porter.pipeline import scan

REPO = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "llm-serving"
LOCK_IN = {"library", "tensorrt", "quantization", "config", "binary", "build", "python", "container"}

EXPECTED = {
    (".github/workflows/ci.yml", 19, "CTR007"),  # runs-on: [self-hosted, nvidia-gpu]
    (".github/workflows/ci.yml", 21, "CTR008"),  # container image nvcr.io/...trtllm
    (".github/workflows/ci.yml", 22, "CTR002"),  # options: --gpus all
    (".github/workflows/ci.yml", 25, "PYT006"),  # run: nvidia-smi
    ("CMakeLists.txt", 2, "BLD001"),  # LANGUAGES CXX CUDA
    ("CMakeLists.txt", 8, "BLD002"),  # find_package(CUDAToolkit)
    ("CMakeLists.txt", 11, "LIB004"),  # find_library(... nccl) -> RCCL
    ("CMakeLists.txt", 22, "BLD003"),  # CUDA_ARCHITECTURES "100"
    ("CMakeLists.txt", 25, "BLD004"),  # --use_fast_math
    ("CMakeLists.txt", 26, "LIB004"),  # CUDA::cudart CUDA::cublasLt
    ("Dockerfile", 2, "CTR001"),  # FROM nvcr.io/nvidia/tritonserver:24.08-trtllm-python-py3
    ("Dockerfile", 4, "CTR003"),  # NVIDIA_VISIBLE_DEVICES
    ("Dockerfile", 5, "CTR003"),  # NVIDIA_DRIVER_CAPABILITIES
    ("checkpoints/llama-nvfp4/config.json", 23, "CFG001"),  # quant_algo NVFP4
    ("checkpoints/llama-nvfp4/config.json", 24, "CFG002"),  # kv_cache_quant_algo FP8
    ("checkpoints/llama-nvfp4/hf_quant_config.json", 7, "CFG001"),
    ("checkpoints/llama-nvfp4/hf_quant_config.json", 8, "CFG002"),
    ("checkpoints/llama-nvfp4/model.safetensors.index.json", 9, "CFG003"),  # first weight_scale_2
    ("csrc/fp4_dequant.cu", 5, "QNT001"),  # cuda_fp4.h
    ("csrc/fp4_dequant.cu", 6, "QNT002"),  # cuda_fp8.h
    *(("csrc/fp4_dequant.cu", n, "QNT002") for n in (12, 14, 20, 43, 55, 78, 87, 95)),  # __nv_fp8_e4m3
    *(("csrc/fp4_dequant.cu", n, "QNT001") for n in (19, 37, 38, 77)),  # __nv_fp4*
    ("csrc/fp4_linear.cpp", 5, "LIB001"),  # cublasLt.h -> hipBLASLt
    ("csrc/fp4_linear.cpp", 7, "LIB001"),  # nccl.h -> RCCL
    ("docker-compose.yml", 19, "CTR004"),  # driver: nvidia
    ("docker-compose.yml", 34, "CTR004"),
    ("engines/llama.engine", 1, "TRT005"),
    ("model_repo/tensorrt_llm/config.pbtxt", 3, "TRT006"),  # backend: "tensorrtllm"
    ("prebuilt/libfused_attn.cubin", 1, "BIN001"),
    ("prebuilt/libfused_attn.so", 1, "BIN004"),  # DT_NEEDED libcudart.so.12
    ("quantize.py", 10, "QNT005"),  # import modelopt
    ("quantize.py", 13, "QNT005"),
    ("quantize.py", 19, "QNT003"),  # NVFP4_DEFAULT_CFG
    ("quantize.py", 47, "QNT004"),  # torch.float8_e4m3fn
    ("quantize.py", 49, "QNT003"),  # torch.float4_e2m1fn_x2
    ("quantize.py", 74, "TRT002"),  # export_tensorrt_llm_checkpoint
    ("requirements.txt", 1, "CTR006"),  # --extra-index-url https://pypi.nvidia.com
    ("requirements.txt", 4, "TRT001"),  # tensorrt-llm
    ("requirements.txt", 5, "QNT005"),  # nvidia-modelopt
    ("requirements.txt", 6, "LIB010"),  # nvidia-nccl-cu12 -> RCCL
    ("scripts/build_engine.sh", 10, "PYT006"),  # nvidia-smi
    ("scripts/build_engine.sh", 17, "TRT004"),  # trtllm-build
    ("scripts/build_engine.sh", 27, "TRT004"),  # trtllm-serve
    ("scripts/run_docker.sh", 5, "CTR002"),  # docker run --gpus all
    ("server/serve.py", 11, "TRT001"),  # from tensorrt_llm import LLM
    ("server/serve.py", 12, "TRT001"),
    ("server/serve.py", 28, "QNT003"),  # QuantAlgo.NVFP4
    ("server/serve.py", 28, "QNT004"),  # QuantAlgo.FP8 (KV cache)
    ("server/serve.py", 29, "QNT004"),
    ("server/serve.py", 35, "PYT001"),  # get_device_capability()
    ("server/serve.py", 38, "TRT002"),  # LLM(...)
}


def _scan(**kw):
    return scan(REPO, Settings(jobs=1, cache_dir=None, **kw))


def test_lock_in_findings_are_exactly_the_expected_set():
    result = _scan()
    got = {(f.path, f.line, f.rule) for f in result.findings if f.category in LOCK_IN}
    assert sorted(got - EXPECTED) == [], "unexpected findings"
    assert sorted(EXPECTED - got) == [], "missing findings"
    assert not [s for s in result.skipped if s.path != "model_repo/tensorrt_llm/1/.gitkeep"]


def test_the_repository_is_reported_as_blocked():
    result = _scan()
    blockers = {(f.path, f.rule) for f in result.findings if str(f.severity) == "blocker" and f.category in LOCK_IN}
    assert ("requirements.txt", "TRT001") in blockers
    assert ("engines/llama.engine", "TRT005") in blockers
    assert ("model_repo/tensorrt_llm/config.pbtxt", "TRT006") in blockers
    assert ("prebuilt/libfused_attn.cubin", "BIN001") in blockers
    serve = next(f for f in result.findings if f.rule == "TRT001" and f.path == "requirements.txt")
    assert "vLLM or SGLang" in serve.message and "Hugging Face checkpoint" in serve.message


def test_nvfp4_findings_carry_per_target_advice():
    result = _scan(targets=("mi300x", "mi355x"))
    f = next(f for f in result.findings if f.rule == "CFG001" and f.path.endswith("hf_quant_config.json"))
    notes = dict(f.data)["targets"]
    assert "No FP4 hardware" in notes["mi300x"]
    assert "requantize to MXFP4 with AMD Quark" in notes["mi355x"]


def test_library_findings_name_the_rocm_replacement():
    result = _scan()
    libs = {(f.path, f.line, f.snippet.split()[0]): (f.replacement, dict(f.data).get("kind"))
            for f in result.findings if f.category == "library"}
    assert libs[("csrc/fp4_linear.cpp", 5, "#include")] == ("hipBLASLt", "drop-in")
    assert libs[("csrc/fp4_linear.cpp", 7, "#include")] == ("RCCL", "drop-in")
    assert libs[("requirements.txt", 6, "nvidia-nccl-cu12==2.20.5")] == ("RCCL", "drop-in")
    so = next(f for f in result.findings if f.rule == "BIN004")
    assert "libcudart.so.12" in so.message and "HIP runtime" in so.message


def test_low_precision_kernels_get_per_target_verdicts():
    from porter.kernels.verdicts import analyse

    r = analyse(scan(REPO, Settings(jobs=1)), ["mi300x", "mi355x"])
    verdicts = {k.name: {v.target: v.verdict for v in k.verdicts} for k in r.kernels}
    # NVFP4 needs edits everywhere (no AMD target runs it); OCP FP8 is native on MI355X but not on MI300X (FNUZ).
    assert verdicts == {
        "nvfp4_dequant_kernel": {"mi300x": "fix", "mi355x": "fix"},
        "nvfp4_dequant_scalar_kernel": {"mi300x": "fix", "mi355x": "fix"},
        "fp8_kv_dequant_kernel": {"mi300x": "fix", "mi355x": "check"},
    }
