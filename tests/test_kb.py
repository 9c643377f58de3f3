"""Tests for porter.kb and scripts/build_kb.py: exact values from HIPIFY's tables and the header map."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from porter.kb import API_COLUMNS, DEFAULT_DIR, ApiEntry, HeaderEntry, load_kb

REPO = Path(__file__).resolve().parent.parent
BUILD_SCRIPT = REPO / "scripts" / "build_kb.py"
_spec = importlib.util.spec_from_file_location("build_kb", BUILD_SCRIPT)
build_kb = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("build_kb", build_kb)  # dataclasses look their module up there
_spec.loader.exec_module(build_kb)

TABLES = build_kb.DEFAULT_TABLES
needs_tables = pytest.mark.skipif(not TABLES.is_dir(), reason=(
    "needs a copy of ROCm/HIPIFY's docs/tables/ (https://github.com/ROCm/HIPIFY/tree/amd-staging/docs/tables) "
    f"at {TABLES}, where scripts/build_kb.py reads it"))


@pytest.fixture(scope="module")
def kb():
    return load_kb()


def test_rename(kb):
    assert kb.get("cudaMalloc") == ApiEntry(
        cuda="cudaMalloc", hip="hipMalloc", status="rename", library="runtime",
        section="Memory Management", hip_added="1.5.0",
    )
    assert "cudaMalloc" in kb and "cudaMalloc" in kb.names
    assert kb.get("cuModuleLaunchKernel") is None
    assert kb.get("cuLaunchKernel").hip == "hipModuleLaunchKernel"
    assert kb.get("cuLaunchKernel").library == "driver"


def test_unsupported(kb):
    entry = kb.get("cudaDeviceFlushGPUDirectRDMAWrites")
    assert (entry.hip, entry.status, entry.cuda_added, entry.section) == (
        None, "unsupported", "11.3", "Device Management")


def test_removed_keeps_hip_name(kb):
    entry = kb.get("cudaBindTexture")
    assert (entry.status, entry.hip, entry.cuda_deprecated, entry.cuda_removed, entry.hip_deprecated) == (
        "removed", "hipBindTexture", "11.0", "12.0", "3.8.0")
    assert entry.section == "Texture Reference Management [REMOVED]"
    surface = kb.get("cudaBindSurfaceToArray")
    assert (surface.status, surface.hip) == ("removed", None)


def test_deprecated(kb):
    entry = kb.get("cudaThreadSynchronize")
    assert (entry.status, entry.hip, entry.cuda_deprecated, entry.cuda_removed) == (
        "deprecated", "hipDeviceSynchronize", "10.0", None)
    # Deprecated only by its section heading: HIPIFY leaves the D column empty.
    attach = kb.get("cuCtxAttach")
    assert (attach.status, attach.hip, attach.cuda_deprecated, attach.section) == (
        "deprecated", None, None, "Context Management [DEPRECATED]")
    shfl = kb.get("__shfl")
    assert (shfl.status, shfl.hip, shfl.cuda_deprecated) == ("deprecated", "__shfl", "9.0")


def test_device_same_name_and_exceptions(kb):
    bf16 = kb.get("__bfloat1622float2")
    assert (bf16.status, bf16.hip, bf16.library, bf16.cuda_added) == ("same_name", None, "device", "11.0")
    assert kb.get("__shfl_sync").status == "same_name"
    # A documented fact overrides same_name: HIP does not support __prof_trigger.
    assert kb.get("__prof_trigger").status == "unsupported"
    atomic = kb.get("atomicAdd")
    assert (atomic.status, atomic.hip, atomic.identity) == ("rename", "atomicAdd", True)
    assert kb.get("cudaMalloc").identity is False


def test_library_with_roc_column(kb):
    sgemm = kb.get("cublasSgemm")
    assert (sgemm.hip, sgemm.roc, sgemm.status, sgemm.library, sgemm.hip_added) == (
        "hipblasSgemm", "rocblas_sgemm", "rename", "cublas", "1.8.2")
    assert sgemm.section == "CUBLAS Level-3 Function Reference"
    experimental = kb.get("cublasCgemmBatched_64")
    assert (experimental.hip, experimental.experimental, experimental.roc) == (
        "hipblasCgemmBatched_v2_64", True, "rocblas_cgemm_batched_64")
    assert sgemm.experimental is False
    dnn = kb.get("cudnnCreate")
    assert (dnn.hip, dnn.roc, dnn.hip_added) == ("hipdnnCreate", "miopenCreate", None)
    relu = kb.get("CUDNN_ACTIVATION_RELU")
    assert (relu.status, relu.roc, relu.cuda_deprecated) == ("deprecated", "miopenActivationRELU", "9.0.0")
    assert kb.get("CUBLAS_COMPUTE_16F").roc is None


def test_cross_library_duplicates_resolve_by_library_order(kb):
    assert kb.get("CUstream_st").library == "runtime"
    assert kb.get("CUstream_st").hip == "ihipStream_t"
    assert kb.get("libraryPropertyType").library == "runtime"


def test_counts(kb):
    assert len(kb) == len(kb.names) == 8922  # 8,932 HIP-table rows, 10 names listed by two libraries
    assert kb.stats() == {
        "rename": 4366, "unsupported": 3214, "deprecated": 666, "removed": 372, "same_name": 304,
    }


@pytest.mark.parametrize(
    ("include", "expected"),
    [
        ("cuda_runtime.h", HeaderEntry("cuda_runtime.h", "hip/hip_runtime.h", "rename", "runtime", "")),
        ("<cuda.h>", ("hip/hip_runtime.h", "rename", "driver")),
        ('"./cublas_v2.h"', ("hipblas/hipblas.h", "rename", "cublas")),
        ("  <cublasLt.h> ", ("hipblaslt/hipblaslt.h", "rename", "cublas")),
        ("cudnn.h", ("miopen/miopen.h", "unsupported", "cudnn")),
        ("cub/cub.cuh", ("hipcub/hipcub.hpp", "rename", "cub")),
        ("cub/device/device_reduce.cuh", ("hipcub/hipcub.hpp", "rename", "cub")),
        ("thrust/device_vector.h", ("thrust/device_vector.h", "rename", "thrust")),
        ("thrust/system/cuda/execution_policy.h", ("thrust/system/hip/execution_policy.h", "rename", "thrust")),
        ("cuda_fp8.h", ("hip/hip_fp8.h", "rename", "device")),
        ("cuda_fp4.h", (None, "unsupported", "device")),
        ("cooperative_groups.h", ("hip/hip_cooperative_groups.h", "rename", "cooperative_groups")),
        ("cooperative_groups/reduce.h", (None, "unsupported", "cooperative_groups")),
        ("cuda/barrier", (None, "unsupported", "libcu++")),
        ("cuda/std/atomic", (None, "unsupported", "libcu++")),
        ("mma.h", ("rocwmma/rocwmma.hpp", "unsupported", "wmma")),
        ("nccl.h", ("rccl/rccl.h", "rename", "nccl")),
        ("nvrtc.h", ("hip/hiprtc.h", "rename", "rtc")),
        ("nvtx3/nvToolsExt.h", ("roctracer/roctx.h", "rename", "nvtx")),
        ("nppi.h", (None, "none", "npp")),
        ("cutlass/gemm/device/gemm.h", (None, "none", "cutlass")),
        ("cute/tensor.hpp", (None, "none", "cutlass")),
        ("device_launch_parameters.h", (None, "drop", "runtime")),
        ("curand_kernel.h", ("hiprand/hiprand_kernel.h", "rename", "curand")),
        ("curand_normal.h", ("hiprand/hiprand_kernel.h", "rename", "curand")),
        ("helper_cuda.h", (None, "unsupported", "cuda-samples")),
    ],
)
def test_header(kb, include, expected):
    entry = kb.header(include)
    if isinstance(expected, HeaderEntry):
        assert entry == expected
    else:
        assert (entry.hip, entry.status, entry.library) == expected


def test_header_unknown_and_glob_reports_the_path(kb):
    assert kb.header("hip/hip_runtime.h") is None
    assert kb.header("my_project.h") is None
    entry = kb.header("<cutlass/cutlass.h>")
    assert entry.cuda == "cutlass/cutlass.h"
    assert "Composable Kernel" in entry.note


def test_columns_agree_between_builder_and_loader():
    assert build_kb.COLUMNS == API_COLUMNS


@needs_tables
def test_build_reproduces_committed_data(tmp_path):
    out = tmp_path / "api"
    result = subprocess.run(
        [sys.executable, str(BUILD_SCRIPT), str(TABLES), "--out", str(out)],
        capture_output=True, text=True, check=True,
    )
    assert result.stdout.splitlines()[-1] == "total\t8932"
    committed = sorted(p.name for p in (DEFAULT_DIR / "api").glob("*.tsv"))
    assert sorted(p.name for p in out.iterdir()) == committed
    assert committed == [f"{lib}.tsv" for lib in sorted(
        ["runtime", "driver", "device", "rtc", "cublas", "cudnn", "cufft", "curand", "cusparse", "cusolver",
         "cub", "cucomplex"])]
    for name in committed:
        assert (out / name).read_bytes() == (DEFAULT_DIR / "api" / name).read_bytes(), name
    # A second run leaves the files byte-identical and drops TSVs it generated for libraries that no longer
    # exist; a TSV it did not write is someone else's and stays.
    (out / "stale.tsv").write_text("# porter KB, library stale: generated by scripts/build_kb.py\n")
    (out / "notes.tsv").write_text("mine\n")
    build_kb.build(TABLES, out)
    assert sorted(p.name for p in out.iterdir()) == sorted(committed + ["notes.tsv"])
    (out / "notes.tsv").unlink()
    for name in committed:
        assert (out / name).read_bytes() == (DEFAULT_DIR / "api" / name).read_bytes(), name


def test_generated_header_line_names_tables_and_licence():
    first = (DEFAULT_DIR / "api" / "cublas.tsv").read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# ")
    assert "CUBLAS_API_supported_by_HIP_and_ROC.md" in first and "NOTICE" in first and "MIT" in first
    notice = (DEFAULT_DIR / "NOTICE").read_text(encoding="utf-8")
    assert "Permission is hereby granted, free of charge" in notice and "014177bc" in notice


TABLE = """# CUDA Runtime API supported by HIP

## **1. Device Management**

|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**E**|
|:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|
|`cudaChooseDevice`| | | | |`hipChooseDevice`|1.6.0| | | | |
{extra}
"""


def test_build_rejects_a_malformed_table_row(tmp_path):
    tables = tmp_path / "tables"
    tables.mkdir()
    (tables / "CUDA_Runtime_API_functions_supported_by_HIP.md").write_text(
        TABLE.format(extra="|`cudaGetDevice`| | | | |`hipGetDevice`|1.6.0| | | |"))
    with pytest.raises(ValueError, match=r"CUDA_Runtime_API_functions_supported_by_HIP\.md:8: expected 11 cells"):
        build_kb.build(tables, tmp_path / "out")
    (tables / "CUDA_Runtime_API_functions_supported_by_HIP.md").write_text(
        TABLE.format(extra="|`cudaGetDevice`|one| | | |`hipGetDevice`|1.6.0| | | | |"))
    with pytest.raises(ValueError, match=r"supported_by_HIP\.md:8: CUDA A column holds 'one'"):
        build_kb.build(tables, tmp_path / "out")


def test_build_rejects_tables_that_disagree(tmp_path):
    tables = tmp_path / "tables"
    tables.mkdir()
    (tables / "CUBLAS_API_supported_by_HIP.md").write_text(TABLE.format(extra=""))
    joint = TABLE.replace("|**E**|", "|**E**|**ROC**|**A**|**D**|**C**|**R**|**E**|").replace(
        "|:-:|\n|`", "|:-:|:--|:-:|:-:|:-:|:-:|:-:|\n|`")
    joint = joint.replace("`hipChooseDevice`|1.6.0| | | | |", "`hipChooseDevice2`|1.6.0| | | | |`roc`| | | | | |")
    (tables / "CUBLAS_API_supported_by_HIP_and_ROC.md").write_text(joint.format(extra=""))
    with pytest.raises(ValueError, match=r"CUBLAS_API_supported_by_HIP_and_ROC\.md:7: cudaChooseDevice hip is "
                                         r"'hipChooseDevice2' here but 'hipChooseDevice' in "
                                         r"CUBLAS_API_supported_by_HIP\.md:7"):
        build_kb.build(tables, tmp_path / "out")


def _kb_copy(tmp_path: Path) -> Path:
    directory = tmp_path / "kb"
    shutil.copytree(DEFAULT_DIR, directory)
    return directory


def test_load_rejects_a_malformed_api_row(tmp_path):
    directory = _kb_copy(tmp_path)
    path = directory / "api" / "rtc.tsv"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[4] = lines[4].rsplit("\t", 1)[0]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"rtc\.tsv:5: expected 12 tab-separated fields, got 11"):
        load_kb(directory)


def test_load_rejects_an_unknown_status(tmp_path):
    directory = _kb_copy(tmp_path)
    path = directory / "api" / "cufft.tsv"
    text = path.read_text(encoding="utf-8").replace("\trename\t", "\trenamed\t", 1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=r"cufft\.tsv:\d+: unknown status 'renamed'"):
        load_kb(directory)


def test_load_rejects_a_repeated_or_empty_name_with_its_line(tmp_path):
    directory = _kb_copy(tmp_path)
    path = directory / "api" / "rtc.tsv"
    lines = path.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if not line.startswith("#")) + 1  # the first data line
    path.write_text("\n".join(lines + [lines[first]]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"rtc\.tsv:{len(lines) + 1}: {lines[first].split(chr(9))[0]} listed twice"):
        load_kb(directory)
    lines[first] = "\t" + lines[first].split("\t", 1)[1]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"rtc\.tsv:{first + 1}: empty CUDA name"):
        load_kb(directory)


def test_load_rejects_an_api_table_without_its_comment_or_column_line(tmp_path):
    directory = _kb_copy(tmp_path)
    path = directory / "api" / "cub.tsv"
    lines = path.read_text(encoding="utf-8").splitlines()
    body = [line for line in lines if not line.startswith("#")]
    path.write_text("\n".join(body) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"cub\.tsv:1: missing '#' comment line"):
        load_kb(directory)
    path.write_text("\n".join(lines[:len(lines) - len(body)] + body[1:]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"cub\.tsv:\d+: expected the column header line"):
        load_kb(directory)


def test_load_reads_each_table_whole_as_the_line_walk_would():
    """The whole-file check (kb._api_fields) and the line-by-line walk that names a bad line agree on good data."""
    import porter.kb as kb_module

    for path in sorted((DEFAULT_DIR / "api").glob("*.tsv")):
        walked = [fields for _, fields in kb_module._data_lines(path, API_COLUMNS, require_comment=True)]
        assert walked and kb_module._api_fields(path) == walked


def test_load_rejects_a_bad_header_map(tmp_path):
    directory = _kb_copy(tmp_path)
    path = directory / "headers.tsv"
    path.write_text(path.read_text(encoding="utf-8") + "foo.h\t\trename\tx\t\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"headers\.tsv:\d+: status rename needs a HIP header"):
        load_kb(directory)
