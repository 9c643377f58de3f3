"""Kernel verdicts of issue 27 (session 18) on fixtures/kverdict_s18: a header kernel's helper resolved through the
translation unit that includes it, and `__restrict__` on a value type, which clang (hipcc) rejects. Exact verdicts,
check ids and lines."""
from __future__ import annotations

from porter.kernels.callgraph import helper_index
from porter.pipeline import run
from porter.settings import Settings

from conftest import FIXTURES

BASE = FIXTURES / "kverdict_s18"
TARGETS = ("mi300x", "mi455x")


def analysed(name: str):
    return run(BASE / name, Settings(jobs=1, cache_dir=None, targets=TARGETS)).result


def verdicts(name: str) -> dict[str, dict[str, tuple]]:
    return {k.name: {t: (v.verdict, tuple((d.id, d.verdict, d.lines) for d in v.details))
                     for t in TARGETS if (v := k.verdict_on(t)) is not None} for k in analysed(name).kernels}


def test_a_header_kernel_reaches_the_helper_its_translation_unit_includes():
    """includer/cuda/row_sum.hpp includes nothing; cuda/sums.cu includes cuda/warp_ext.hpp, then row_sum.hpp.
    `gpu::warp_sum` is defined in cuda/warp_ext.hpp and hip/warp_ext.hpp: the call (row_sum.hpp:4) resolves to the
    one the including unit brought in, whose `0xffffffff` shuffle mask makes the kernel a fix."""
    assert verdicts("includer") == {
        "row_sum": {"mi300x": ("fix", (("wave64-full-mask", "fix", (4,)),)),
                    "mi455x": ("fix", (("mask-32bit-type", "fix", (4,)),))},
        "col_sum": {t: ("ok", ()) for t in TARGETS},
    }


def test_the_includer_rule_resolves_only_what_the_includers_bring_in():
    result = analysed("includer")
    index = helper_index(result.files)
    assert index.includers("cuda/row_sum.hpp") == ("cuda/sums.cu",)
    assert index.resolve("cuda/row_sum.hpp", "warp_sum", "gpu::warp_sum") == "cuda/warp_ext.hpp"
    # the HIP unit includes its own twin, directly
    assert index.resolve("hip/sums.hip", "warp_sum", "gpu::warp_sum") == "hip/warp_ext.hpp"
    # a file that includes neither home and that nobody includes: the two homes leave the call ambiguous
    assert index.includers("cuda/sums.cu") == ()
    assert index.resolve("other.cu", "warp_sum", "gpu::warp_sum") is None


def test_restrict_before_a_value_type_is_a_fix_through_the_helper_that_declares_it():
    """restrict/copy.cu: `__restrict__ T *dst` in copy_rows (line 3) is a fix for both kernels that call it (the
    macro-made `copy_##name`, found as `name`, and copy_f32); fill_rows' `T *__restrict__ dst` (line 11) and the
    pointer typedef `__restrict__ row_ptr *rows` (line 25) are valid, so fill_f32 is ok. The kernel `scale` declares
    the parameter `__restrict__ T *out` (line 38): the parameter list counts as the body does."""
    fix = ("fix", (("restrict-value-type", "fix", (3,)),))
    assert verdicts("restrict") == {"name": {t: fix for t in TARGETS}, "fill_f32": {t: ("ok", ()) for t in TARGETS},
                                    "copy_f32": {t: fix for t in TARGETS},
                                    "scale": {t: ("fix", (("restrict-value-type", "fix", (38,)),)) for t in TARGETS}}


def test_clang_as_hip_rejects_exactly_the_restrict_the_check_reports(tmp_path):
    """The fact behind restrict-value-type, on the real compiler: hip-clang (clang-19 as HIP, device side) rejects
    copy.cu's line 3 where copy_rows<float> is instantiated, and the launch of scale<float> (line 44), whose
    parameter `__restrict__ T *out` fails substitution; nothing else in the file."""
    import re
    import shutil
    import subprocess
    from pathlib import Path

    import pytest

    clang = shutil.which("clang++-19")
    if clang is None or not Path("/usr/include/hip/hip_runtime.h").exists():
        pytest.skip("needs clang++-19 (Debian clang-19) and HIP's headers in /usr/include/hip (libamdhip64-dev)")
    res = subprocess.run([clang, "-x", "hip", "--offload-arch=gfx942", "--cuda-device-only", "-nogpulib",
                          "-fsyntax-only", "-include", "hip/hip_runtime.h", str(BASE / "restrict" / "copy.cu")],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    errors = sorted({int(m.group(1)) for m in re.finditer(r"copy\.cu:(\d+):\d+: error: (.*)", res.stderr)})
    assert res.returncode != 0 and errors == [3, 44], res.stderr
    assert "copy.cu:3:16: error: restrict requires a pointer or reference ('float' is invalid)" in res.stderr
    assert "copy.cu:44:3: error: no matching function for call to 'scale'" in res.stderr


def test_a_product_of_two_cuda_complex_values_is_a_fix_and_a_real_scale_is_not():
    """complex/: amp_types.cuh typedefs `amp_t` as cuDoubleComplex and defines its operators for nvcc only.
    phase_gate's `amps[i] * phase` (gates.cu:5) multiplies two complex values: on HIP HIP_vector_type's
    component-wise product (or an ambiguity), fix. rotate multiplies an array element by a sum holding
    make_cuDoubleComplex (line 17), fix. damp's `amps[i] * keep` (a double) and `i * n` (idx_t, a long long typedef)
    and rotate_portable's cuCmul are right on HIP: ok."""
    fix = lambda line: ("fix", (("complex-product", "fix", (line,)),))  # noqa: E731
    assert verdicts("complex") == {"phase_gate": {t: fix(5) for t in TARGETS}, "damp": {t: ("ok", ()) for t in TARGETS},
                                   "rotate": {t: fix(17) for t in TARGETS},
                                   "rotate_portable": {t: ("ok", ()) for t in TARGETS}}


def test_complex_aliases_are_read_per_file_and_chained():
    from porter.kernels.complex_types import aliases_of

    assert aliases_of(b"typedef cuDoubleComplex amp_t;\ntypedef long long idx_t;\n") == ("amp_t",)
    assert aliases_of(b"typedef cplx amp_t;\nusing cplx = cuFloatComplex;\ntypedef double2 d2;\n") == ("amp_t", "cplx")
    assert aliases_of(b"typedef double2 vec2;\n") == ()
    # one name per build: a CUDA arm's alias and a HIP arm's own struct (MAGMA's magmaDoubleComplex) is no alias
    per_build = b"#ifdef HAVE_CUDA\ntypedef cuDoubleComplex z_t;\n#else\ntypedef struct { double x, y; } z_t;\n#endif\n"
    assert aliases_of(per_build) == ()
    # two precisions of one complex type stay one; a comment's `typedef` is no definition
    assert aliases_of(b"/* typedef one day */\n#if P == 1\ntypedef cuFloatComplex q;\n#else\ntypedef cuDoubleComplex q;\n"
                      b"#endif\n") == ("q",)
    files = analysed("complex").files
    assert {r.path: r.complex_aliases for r in files} == {"amp_types.cuh": ("amp_t",), "gates.cu": ()}
