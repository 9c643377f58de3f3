"""Rule precision on Python text and formats (session 22): an exception's message, an option's help text (5p), a
torch.version.cuda value whose expression already yields None (PYT002), and FP8 E4M3 as NVFP4's block scale (8l).
Each shape sits beside a near miss that stays open."""
from __future__ import annotations

from porter.pipeline import scan
from porter.settings import Settings

SETUP = """\
import argparse
import torch
from setuptools.command.build_ext import build_ext


class CMakeBuildExt(build_ext):
    user_options = [
        ('lineinfo', None, 'Enable NVCC line information for profiling (adds -lineinfo flag)'),
    ]
    nvcc_flags = ["-lineinfo"]


def main(arch):
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", help="compile with --use_fast_math")
    if arch is None:
        raise SystemExit(
            "Build the dependency with:\\n"
            f"  TORCH_CUDA_ARCH_LIST={arch} uv sync --group benchmark"
        )
    raise RuntimeError(f"bad cuda {torch.version.cuda}")
    os_env = {"TORCH_CUDA_ARCH_LIST": arch}
    return {"cuda_version": torch.version.cuda if torch.cuda.is_available() else None,
            "major": torch.version.cuda.split(".")[0] if torch.cuda.is_available() else None}
"""


def test_help_text_and_exception_messages_are_text_but_their_code_and_flag_lists_are_not(tmp_path):
    # comfy-kitchen's --lineinfo option help (8) and piper-kernels' SystemExit advice (19) configure nothing; the flag
    # list (10), the f-string's interpolated torch.version.cuda (21), the environment dict (22) and a version split
    # (24) stay. The debug-info entry with a None arm (23) already takes ROCm's None.
    (tmp_path / "setup.py").write_text(SETUP)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, f.rule) for f in result.findings if f.rule in ("PYT002", "BLD006"))
    assert got == [(10, "BLD006"), (21, "PYT002"), (22, "BLD006"), (24, "PYT002")]


FORMATS = """\
import torch

CONSTRAINTS = {
    "scaled_mm_nvfp4": {"block_scale": frozenset({torch.float8_e4m3fn})},
    "scaled_mm_fp8": {"a": frozenset({torch.float8_e4m3fn})},
}


def quantize_nvfp4(x, scale):
    return (x / scale).to(torch.float8_e4m3fn)


def quantize_fp8(x):
    return x.to(torch.float8_e4m3fn)
"""


def test_e4m3_under_an_nvfp4_name_is_the_formats_block_scale(tmp_path):
    (tmp_path / "kernels.py").write_text(FORMATS)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    got = sorted((f.line, str(f.severity), dict(f.data).get("mx_format", "")[:11])
                 for f in result.findings if f.rule == "QNT004")
    assert got == [(4, "info", "NVFP4 code "), (5, "medium", ""), (10, "info", "NVFP4 code "), (14, "medium", "")]
