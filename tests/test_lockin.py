"""Lock-in beyond kernels: malformed inputs become skipped-with-reason entries, per-target notes, library findings.

Every malformed JSON/YAML/TOML/Dockerfile/CMake/ELF/safetensors/wheel input must give a FileResult with no
findings and a `skipped` reason naming the problem — never an exception out of the scan.
"""
from __future__ import annotations

import json
import struct
import subprocess
from pathlib import Path

import pytest

from porter.settings import Settings
from porter.model import Finding
from porter.rules import load_rules
from porter.pipeline import scan
from porter.targets import load_targets, validate_predicate

from helpers import NEEDS

OPTS = Settings(jobs=1, cache_dir=None)

MALFORMED = {
    "checkpoint/config.json": (b'{"quantization_config": {"quant_algo": "NVFP4",}', "malformed JSON"),
    "checkpoint/hf_quant_config.json": (b'{"quantization": {"quant_algo": "NVFP4"', "malformed JSON"),
    "model.safetensors.index.json": (b'{"weight_map": {"a.weight_scale_2": }', "malformed JSON"),
    ".github/workflows/ci.yml": (b"jobs:\n  gpu:\n    runs-on: [self-hosted, nvidia\n  x: : :\n", "malformed YAML"),
    "pyproject.toml": (b'[project]\ndependencies = ["tensorrt-llm"\n', "malformed TOML"),
    "Dockerfile": (b"FROM nvcr.io/nvidia/pytorch:24.08-py3\nRUNN pip install tensorrt-llm\n", "malformed Dockerfile"),
    "heredoc/Dockerfile": (b"FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nRUN <<EOF\nnvidia-smi\n", "malformed Dockerfile"),
    "CMakeLists.txt": (b"project(x LANGUAGES CXX CUDA\nfind_package(CUDAToolkit)\n", "malformed CMake"),
    "quoted/CMakeLists.txt": (b'project(x LANGUAGES CUDA)\nset(FLAGS "--use_fast_math)\n', "malformed CMake"),
    "prebuilt/libbroken.so": (b"\x7fELF\x02\x01\x01" + b"\0" * 9 + b"\xff" * 40, "malformed"),
    "weights/model.safetensors": (struct.pack("<Q", 20) + b'{"a": {"dtype": "F8', "malformed safetensors"),
    "wheels/pkg-1.0-cp311-cp311-linux_x86_64.whl": (b"PK\x03\x04 not really a zip", "malformed wheel"),
}


@pytest.fixture
def malformed_repo(tmp_path: Path) -> Path:
    for rel, (data, _) in MALFORMED.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    (tmp_path / "ok.py").write_text("import tensorrt_llm\n")
    return tmp_path


def test_malformed_inputs_are_skipped_with_a_reason_never_a_crash(malformed_repo):
    result = scan(malformed_repo, OPTS)
    skipped = {s.path: s.reason for s in result.skipped}
    for rel, (_, reason) in MALFORMED.items():
        assert rel in skipped, f"{rel} was not reported as skipped"
        assert reason in skipped[rel], (rel, skipped[rel])
    assert not [f for f in result.findings if f.path in MALFORMED], "a skipped file must carry no findings"
    # the well-formed file next to them is still scanned
    assert [(f.rule, f.path, f.line) for f in result.findings] == [("TRT001", "ok.py", 1)]


def test_malformed_reasons_name_the_line(malformed_repo):
    reasons = {s.path: s.reason for s in scan(malformed_repo, OPTS).skipped}
    assert "line 2" in reasons["Dockerfile"] and "RUNN" in reasons["Dockerfile"]
    assert "line 1" in reasons["CMakeLists.txt"]
    assert "line 1" in reasons["checkpoint/config.json"]


def test_huge_index_is_read_without_weights_and_reports_once(tmp_path):
    weight_map = {f"model.layers.{i}.mlp.up_proj.{s}": "model-00001.safetensors"
                  for i in range(20000) for s in ("weight", "weight_scale", "weight_scale_2", "input_scale")}
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}, indent=1))
    hits = [f for f in scan(tmp_path, OPTS).findings if f.rule == "CFG003"]
    assert [(f.line, f.snippet) for f in hits] == [(5, '"model.layers.0.mlp.up_proj.weight_scale_2": "model-00001.safetensors",')]


def test_safetensors_header_is_read_without_loading_weights(tmp_path):
    header = json.dumps({"w": {"dtype": "F8_E4M3", "shape": [4], "data_offsets": [0, 4]},
                         "w_scale_2": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}).encode()
    # A declared 1 GiB of weights that is not there: only the header may be read.
    (tmp_path / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header)
    result = scan(tmp_path, OPTS)
    assert [(f.rule, f.path) for f in result.findings] == [("CFG006", "model.safetensors")]
    assert dict(result.findings[0].data)["tensors"] == 1


NVFP4_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "CFG001-nvfp4-checkpoint-config"


def test_target_notes_depend_on_the_target():
    result = scan(NVFP4_DIR, Settings(jobs=1, cache_dir=None, targets=("all",)))
    f = next(f for f in result.findings if f.rule == "CFG001" and f.path == "hf_quant_config.json")
    notes = dict(f.data)["targets"]
    assert set(notes) == set(load_targets())
    assert "No FP4 hardware" in notes["mi300x"] and "No FP4 hardware" in notes["mi325x"]
    assert "MXFP4" in notes["mi355x"] and "AMD Quark" in notes["mi355x"] and "BF16 original" in notes["mi355x"]
    assert notes["mi350x"] == notes["mi355x"]
    assert "pre-release" in notes["mi455x"]
    json.dumps(result.to_dict())  # the notes serialise
    hash(f)  # and a finding holding them stays hashable


def test_scan_without_targets_notes_the_default_target():
    # Kernel analysis defaults to mi355x; the findings' target notes must be about the same target (they were absent).
    result = scan(NVFP4_DIR, OPTS)
    noted = [dict(f.data)["targets"] for f in result.findings if "targets" in dict(f.data)]
    assert noted and all(set(n) == {"mi355x"} for n in noted)
    assert result.targets == ("mi355x",)


def test_fp8_notes_say_fnuz_on_cdna3_and_native_on_cdna4():
    d = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "QNT002-fp8-cuda.cu"
    result = scan(d, Settings(jobs=1, cache_dir=None, targets=("mi300x", "mi355x")))
    notes = dict(next(f for f in result.findings if f.rule == "QNT002").data)["targets"]
    assert "FNUZ only" in notes["mi300x"] and "native" in notes["mi355x"]


def test_every_target_note_predicate_is_valid():
    targets = load_targets()
    for rule in load_rules().rules:
        for when, note in rule.target_notes:
            validate_predicate(when, targets)
            assert note


def test_library_findings_name_library_replacement_and_kind(tmp_path):
    (tmp_path / "a.cu").write_text("#include <cudnn.h>\n#include <nppi.h>\n#include <cublas_v2.h>\n")
    by_line = {f.line: f for f in scan(tmp_path, OPTS).findings if f.rule.startswith("LIB")}
    assert (by_line[1].rule, by_line[2].rule, by_line[3].rule) == ("LIB002", "LIB003", "LIB001")
    assert "cuDNN" in by_line[1].message and "MIOpen" in by_line[1].message and "[port]" in by_line[1].message
    assert "NPP" in by_line[2].message and "none" in by_line[2].message
    assert by_line[3].replacement == "hipBLAS" and dict(by_line[3].data)["kind"] == "drop-in"


def test_every_lock_in_finding_names_a_replacement_or_none():
    root = Path(__file__).resolve().parent.parent / "fixtures" / "repos" / "llm-serving"
    for f in scan(root, OPTS).findings:
        if f.rule[:3] in {"LIB", "TRT", "QNT", "CFG", "BIN", "BLD", "PYT", "CTR"}:
            assert f.replacement or "rocm: none" in f.message.lower(), f


def test_embedded_cuda_is_reported_at_its_python_line(tmp_path):
    (tmp_path / "k.py").write_text(
        'import cupy as cp\nSRC = """\nextern "C"\n__global__ void k(float* x) {\n'
        '  x[0] = __shfl_down_sync(0xffffffff, x[0], 1);\n}\n"""\nker = cp.RawKernel(SRC, "k")\n')
    got = sorted((f.rule, f.line, f.kernel) for f in scan(tmp_path, OPTS).findings if f.rule.startswith("PYT"))
    assert got == [("PYT007", 4, None), ("PYT008", 5, None), ("PYT008", 5, None)]


def test_static_archive_undefined_symbols_name_the_library(tmp_path):
    src = tmp_path / "a.c"
    src.write_text("int cudnnCreate(void**); int f(void){void*h; return cudnnCreate(&h);}\n")
    try:
        subprocess.run(["gcc", "-c", "-fPIC", str(src), "-o", str(tmp_path / "a.o")], check=True, capture_output=True)
        subprocess.run(["ar", "rcs", str(tmp_path / "libx.a"), str(tmp_path / "a.o")], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip(NEEDS["gcc"])
    src.unlink()
    (tmp_path / "a.o").unlink()
    f = next(f for f in scan(tmp_path, OPTS).findings if f.rule == "BIN004")
    assert "cuDNN" in f.message and "MIOpen" in f.message
