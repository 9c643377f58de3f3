"""Session 30's PR-gate holes (attacker attack30, bench/attack30.md findings 1, 2, 3, 5, 6, 7): a pull request that
adds NVIDIA build or launch lines, or a Python FP8/version read, and passes `scan --isolated --new-since main
--fail-on medium` because session 30's readings take evidence the change itself wrote in the same build file (1, 2,
6), the repository's ROCm build standing in for a build or launch file the change adds (5, 7), or a Python context
step of the change's own file lowering the finding to info (3). Each test builds the attacker's repository in
tmp_path and runs the gate as CI does (porter.diff._reopen (6), (7), (8)); the controls show what still passes and
that a full scan's reading is unchanged."""
from __future__ import annotations

import json

import jsonschema

from helpers import REPO, porter_here, pull_request


def gate(repo, *extra: str):
    p = porter_here("scan", str(repo), "--isolated", "--new-since", "main", "--fail-on", "medium", "--no-cache",
                    "-f", "json", *extra)
    assert p.returncode in (0, 1), p.stderr
    d = json.loads(p.stdout)
    jsonschema.validate(d, json.loads((REPO / "porter" / "schemas" / "scan.schema.json").read_text()))
    return p.returncode, sorted((f["path"], f["line"], f["rule"], f["severity"], f["status"]) for f in d["findings"]
                                if f["severity"] != "info"), d


def reopened(d) -> list[tuple[str, int, str]]:
    return sorted((f["path"], f["line"], f["rule"]) for f in d.get("reopened", []))


NVCC = "RUN nvcc -O3 -arch=sm_90a -Xptxas -v --use_fast_math -o /bench /src/kernels.cu\n"
BUILD_LINE = [("BLD004", "medium"), ("BLD004", "medium"), ("BLD005", "low"), ("BLD007", "medium")]


def test_a_decoy_rocm_stage_in_the_prs_own_dockerfile_hands_nothing(tmp_path):
    """Finding 1: `FROM rocm/... AS rocm-unused` / `RUN echo make` above the PR's nvcc stage read its build lines
    handled by docker/Dockerfile:1, the finding's own file: exit 0. The change wrote both: reopened, exit 1."""
    repo = pull_request(tmp_path / "r", {"README.md": "# proj\n"}, {"docker/Dockerfile": (
        "FROM rocm/dev-ubuntu-22.04 AS rocm-unused\nRUN echo make\n\nFROM ghcr.io/example/toolchain:2024.06\n"
        "COPY . /src\n" + NVCC)})
    code, fs, d = gate(repo)
    assert code == 1
    assert fs == sorted(("docker/Dockerfile", 6, r, s, "open") for r, s in BUILD_LINE)
    assert reopened(d) == sorted(("docker/Dockerfile", 6, r) for r, _ in BUILD_LINE)


def test_a_never_built_hipcc_genrule_in_the_prs_own_bazel_build_hands_nothing(tmp_path):
    """Finding 2: a genrule running hipcc that no target depends on, in the same BUILD as a new cuda_library."""
    build = ('load("@rules_cuda//cuda:defs.bzl", "cuda_library")\n\ngenrule(\n    name = "amd_unused",\n'
             '    srcs = [],\n    outs = ["amd_unused.o"],\n    cmd = "hipcc --offload-arch=gfx942 -c /dev/null -o $@",\n'
             ')\n\ncuda_library(\n    name = "hopper_ops",\n    srcs = ["wgmma_gemm.cu"],\n'
             '    copts = ["-arch=sm_90a"],\n)\n')
    repo = pull_request(tmp_path / "r", {"README.md": "# proj\n"}, {"ops/BUILD": build})
    code, fs, d = gate(repo)
    assert code == 1
    assert fs == [("ops/BUILD", 1, "BLD009", "medium", "open"), ("ops/BUILD", 1, "BLD009", "medium", "open"),
                  ("ops/BUILD", 10, "BLD009", "medium", "open"), ("ops/BUILD", 13, "BLD005", "low", "open")]
    assert ("ops/BUILD", 10, "BLD009") in reopened(d)


FP8 = '''import torch


def detect_vendor():
    return "nvidia"


def fp8_dtype():
    if detect_vendor() == "amd":
        return torch.float8_e4m3fnuz
    return torch.float8_e4m3fn


def quantize(x):
    return x.to(fp8_dtype())
'''
ENV = '''import torch


def cuda_major():
    if torch.version.cuda is None:
        return 0
    return int(torch.version.cuda.split(".")[0])


def check():
    if cuda_major() < 12:
        raise RuntimeError("this package needs CUDA 12")
'''


def test_a_python_context_step_of_the_changes_own_file_lowers_nothing_for_the_gate(tmp_path):
    """Finding 3: a dead FNUZ arm (step 8p, data fnuz_arm) and a None early return whose caller refuses ROCm (8q,
    none_returned) read QNT004 / PYT002 at info: exit 0. In files the change adds they count at the rule's severity."""
    repo = pull_request(tmp_path / "r", {"pkg/__init__.py": "\n"}, {"pkg/fp8.py": FP8, "pkg/env.py": ENV})
    code, fs, d = gate(repo)
    assert code == 1
    assert [f for f in fs if f[4] == "open"] == [("pkg/env.py", 5, "PYT002", "medium", "open"),
                                                 ("pkg/fp8.py", 11, "QNT004", "medium", "open")]
    assert ("pkg/fp8.py", 11, "QNT004") in reopened(d) and ("pkg/env.py", 5, "PYT002") in reopened(d)
    qnt = next(f for f in d["findings"] if f["rule"] == "QNT004")
    assert qnt["data"]["gate_severity"] == "info" and "fnuz_arm" in qnt["data"]
    # the full scan's reading is untouched: still info there
    p = porter_here("scan", str(repo), "--isolated", "--no-cache", "-f", "json")
    full = sorted((f["path"], f["line"], f["rule"], f["severity"]) for f in json.loads(p.stdout)["findings"]
                  if f["rule"] in ("QNT004", "PYT002") and f["line"] in (5, 11))
    assert full == [("pkg/env.py", 5, "PYT002", "info"), ("pkg/fp8.py", 11, "QNT004", "info")]


DUAL_BASE = {"Dockerfile.rocm": "FROM rocm/pytorch:latest\nCOPY . /src\nRUN cd /src && pip install .\n",
             "scripts/profile_amd.sh": "#!/bin/sh\nrocprofv3 --kernel-trace -- python bench.py\n"}
H100_DOCKER = "FROM ghcr.io/example/toolchain:2024.06\nCOPY . /src\n" + NVCC.replace("kernels.cu", "csrc/hopper_only.cu")
H100_RUN = ("#!/bin/bash\nnvcc -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o bench ../../csrc/hopper_only.cu\n"
            "nvidia-smi -q -d CLOCK\ndocker run --gpus all -e NVIDIA_VISIBLE_DEVICES=all myimg ./bench\n")


def test_the_bases_rocm_build_stands_in_for_no_build_or_launch_file_the_change_adds(tmp_path):
    """Finding 5: the base's top-level ROCm Dockerfile and rocprof script read a new CUDA-only Dockerfile below it and
    a new launcher handled (the evidence is no file of the change): exit 0. A new build unit: reopened, exit 1."""
    repo = pull_request(tmp_path / "r", DUAL_BASE, {"docker/h100/Dockerfile": H100_DOCKER,
                                                    "scripts/h100/run.sh": H100_RUN})
    code, fs, d = gate(repo)
    assert code == 1
    assert [f for f in fs if f[2] in ("BLD007", "PYT006", "CTR002")] == [
        ("docker/h100/Dockerfile", 3, "BLD007", "medium", "open"), ("scripts/h100/run.sh", 2, "BLD007", "medium", "open"),
        ("scripts/h100/run.sh", 3, "PYT006", "medium", "open"), ("scripts/h100/run.sh", 4, "CTR002", "medium", "open")]
    assert ("docker/h100/Dockerfile", 3, "BLD007") in reopened(d) and ("scripts/h100/run.sh", 4, "CTR002") in reopened(d)


def test_a_change_to_a_build_file_the_base_had_keeps_the_rocm_build_standing_in(tmp_path):
    """The control: the same Dockerfile in the base, the PR adds one nvcc line to it (a file it modifies, not adds):
    the ROCm Dockerfile of the base still stands in for it, as the full scan reads it: exit 0, nothing reopened."""
    repo = pull_request(tmp_path / "r", {**DUAL_BASE, "docker/h100/Dockerfile": H100_DOCKER},
                        {"docker/h100/Dockerfile": H100_DOCKER + "RUN nvcc -O2 -arch=sm_90a -o /b2 /src/b2.cu\n"})
    code, fs, d = gate(repo)
    assert (code, reopened(d)) == (0, [])
    assert fs == [("docker/h100/Dockerfile", 4, "BLD005", "low", "handled"),
                  ("docker/h100/Dockerfile", 4, "BLD007", "medium", "handled")]


def test_an_empty_rocm_key_in_the_prs_own_setup_py_hands_nothing(tmp_path):
    """Finding 6: `"rocm": []` in the PR's setup.py made a later `extras_require["cuda-nightly"]` (cu128 wheel URL)
    CUDA-side, handled by its own file: exit 0. Reopened: exit 1."""
    setup = ('from setuptools import setup\n\n\ndef _nightly_wheels():\n    return ["torch @ https://download.pytorch.org'
             '/whl/nightly/cu128/torch-2.9.0.dev20250801-cp312-cp312-linux_x86_64.whl"]\n\n\n'
             'extras_require = {"cuda": ["torch"], "rocm": []}\nextras_require["cuda-nightly"] = _nightly_wheels()\n'
             'setup(name="fastops", extras_require=extras_require)\n')
    repo = pull_request(tmp_path / "r", {"setup.py": 'from setuptools import setup\nsetup(name="fastops")\n'},
                        {"setup.py": setup})
    code, fs, d = gate(repo)
    assert (code, fs) == (1, [("setup.py", 5, "CTR006", "medium", "open")])
    assert reopened(d) == [("setup.py", 5, "CTR006")]


def test_a_decoy_rocm_ci_job_hands_no_cmake_project_the_change_adds(tmp_path):
    """Finding 7: an `if: false` ROCm workflow made a new `if(USE_CUDA)` arm's enable_language(CUDA) and
    find_package(CUDAToolkit) handled (`handled_by` not the workflow): exit 0. A new toolkit requirement: exit 1."""
    cmake = ('cmake_minimum_required(VERSION 3.24)\nproject(fastops LANGUAGES CXX)\noption(USE_CUDA "CUDA kernels" ON)\n'
             'if(USE_CUDA)\n  enable_language(CUDA)\n  find_package(CUDAToolkit REQUIRED)\n'
             '  add_library(fastops kernels.cu)\n  target_link_libraries(fastops CUDA::cublasLt)\nendif()\n')
    wf = ("name: rocm\non: workflow_dispatch\njobs:\n  rocm:\n    if: false\n    runs-on: ubuntu-latest\n"
          "    container: rocm/dev-ubuntu-22.04\n    steps:\n      - run: echo cmake\n")
    repo = pull_request(tmp_path / "r", {"README.md": "# proj\n"},
                        {"CMakeLists.txt": cmake, ".github/workflows/rocm.yml": wf})
    code, fs, d = gate(repo)
    assert code == 1
    assert [f for f in fs if f[2] in ("BLD001", "BLD002")] == [("CMakeLists.txt", 5, "BLD001", "medium", "open"),
                                                               ("CMakeLists.txt", 6, "BLD002", "medium", "open")]
    assert ("CMakeLists.txt", 5, "BLD001") in reopened(d)
