"""Precision of open findings on dual projects (issue 27, session 26, helper prec): spots the ROCm build never
compiles or already handles, and names that only look like CUDA's. fixtures/prec_s26 holds one small repository per
mechanism, each beside a near miss that stays open."""
from __future__ import annotations

from pathlib import Path

from porter.portaware.scope import _cm_condition, CUDA, ROCM

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/prec_s26"


def _findings(root: Path):
    from porter.pipeline import run
    from porter.settings import Settings

    return run(root, Settings(jobs=1, cache_dir=None)).result.findings


def _statuses(root: Path) -> list[tuple[str, int, str, str, str | None, str]]:
    return [(f.path, f.line, f.rule, str(f.status), f.handled_by, str(f.severity)) for f in _findings(root)]


def test_a_cuda_variables_value_compared_with_a_literal_is_no_vendor_fork():
    # `"all" STREQUAL "${CMAKE_CUDA_ARCHITECTURES}"`: the literal is on the left; both arms are the CUDA build's, so
    # the else() arm inside `if(DEMO_USE_CUDA) ... elseif(DEMO_USE_HIP)` stays the CUDA build's (MFEM's export of
    # its -gencode list). The -gencode outside every arm stays open.
    assert _statuses(FIXTURE / "cudavalue") == [
        ("CMakeLists.txt", 4, "BLD003", "handled", "CMakeLists.txt:3", "low"),
        ("CMakeLists.txt", 5, "BLD003", "handled", "CMakeLists.txt:3", "low"),
        ("CMakeLists.txt", 7, "BLD003", "handled", "CMakeLists.txt:3", "info"),
        ("CMakeLists.txt", 8, "BLD005", "handled", "CMakeLists.txt:3", "low"),
        ("CMakeLists.txt", 14, "BLD005", "open", None, "low"),
    ]


def test_compared_literal_side_is_read_from_the_literal_operand():
    cond = ("all", "STREQUAL", "${CMAKE_CUDA_ARCHITECTURES}")
    assert _cm_condition(cond, CUDA, True) == (None, False)
    assert _cm_condition(cond, ROCM, True) == (None, False)
    # a vendor literal on the left of a dereference still decides (`"HIP" STREQUAL "${GPU_BACKEND}"`)
    assert _cm_condition(("HIP", "STREQUAL", "${GPU_BACKEND}"), ROCM, True) == (True, True)
    assert _cm_condition(("HIP", "STREQUAL", "${GPU_BACKEND}"), CUDA, True) == (False, True)
    # the usual order is unchanged
    assert _cm_condition(("GPU_BACKEND", "STREQUAL", "CUDA"), CUDA, True) == (True, False)
    assert _cm_condition(("GPU_BACKEND", "STREQUAL", "CUDA"), ROCM, True) == (False, False)


def test_a_function_like_macros_parameter_is_no_cuda_name():
    # src/ops.cpp: `#define pick_dtype(bool_as_float, int_as_float)` names a flag int_as_float, in the parameter list
    # (line 4) and the body (line 6): not CUDA's device function (dsc, heldout31). src/bits.cu calls it: open; in a
    # macro body that uses it as a call (line 5, a macro no translation unit expands) it is still the function.
    assert _statuses(FIXTURE / "macroparam") == [
        ("src/bits.cu", 2, "KRN001", "open", None, "info"),
        ("src/bits.cu", 3, "API002", "open", None, "high"),
        ("src/bits.cu", 5, "API002", "open", None, "info"),
    ]


def test_macro_parameter_spans_cover_continued_lines():
    from porter.match.kinds.code_kb import _macro_parameters
    from porter.source.parse import parse

    code = b"#define A(x, int_as_float) \\\n  (int_as_float + x)\nint int_as_float_y;\n#define B int_as_float(1)\n"
    sf = parse("a.cpp", "cpp", code)
    spans = _macro_parameters(sf)
    assert [(code[a:b].count(b"\n"), sorted(n)) for a, b, n in spans] == [(1, [b"int_as_float", b"x"])]
    assert spans[0][0] == 0 and code[spans[0][1]:].startswith(b"\nint int_as_float_y")


def test_an_nvfp4_named_count_of_elements_per_byte_reads_info():
    # NVFP4_ELES_PER_BYTE (lines 5, 7) is E2M1's two-per-byte packing, which MXFP4 shares (ac4k, heldout31);
    # NVFP4_SF_VEC_SIZE (lines 6, 8), the 16-element scale block, is NVFP4's own: open, high.
    found = [(f.path, f.line, f.rule, str(f.severity), dict(f.data).get("element_packing") is not None)
             for f in _findings(FIXTURE / "fp4pack")]
    assert found == [
        ("quant.py", 5, "QNT003", "info", True),
        ("quant.py", 6, "QNT003", "high", False),
        ("quant.py", 7, "QNT003", "info", True),
        ("quant.py", 8, "QNT003", "high", False),
    ]


OFF_AMGX = "CMakeLists.txt:3 (a CMake option, OFF by default; find_package(AMGX) runs only under it)"


def test_a_package_looked_for_only_under_an_off_option_is_never_found():
    # find_package(AMGX) runs only inside `if(USE_AMGX)`, USE_AMGX OFF: `if(AMGX_FOUND)` blocks (lines 7-9, 11-13)
    # are off, and so is the header of that library in a source (OPM, heldout31). cuDNN, looked for unconditionally,
    # stays open in CMake and in src/solver.cpp.
    assert _statuses(FIXTURE / "offpackage") == [
        ("CMakeLists.txt", 8, "LIB005", "cuda-only", OFF_AMGX, "medium"),
        ("CMakeLists.txt", 12, "LIB005", "cuda-only", OFF_AMGX, "medium"),
        ("CMakeLists.txt", 16, "LIB005", "open", None, "medium"),
        ("src/amgx_iface.hpp", 2, "LIB002", "cuda-only", OFF_AMGX, "medium"),
        ("src/solver.cpp", 1, "LIB002", "open", None, "medium"),
    ]


def test_a_package_also_looked_for_outside_the_option_is_not_off(tmp_path):
    import shutil

    root = tmp_path / "offpackage"
    shutil.copytree(FIXTURE / "offpackage", root)
    cm = root / "CMakeLists.txt"
    cm.write_text(cm.read_text() + "find_package(AMGX QUIET)\n")
    assert [s[:4] for s in _statuses(root) if "amgx" in s[0] or s[1] in (8, 12)] == [
        # line 8 is still in the block of the off option USE_AMGX itself
        ("CMakeLists.txt", 8, "LIB005", "cuda-only"),
        ("CMakeLists.txt", 12, "LIB005", "open"),
        ("src/amgx_iface.hpp", 2, "LIB002", "open"),
    ]


def test_off_packages_reads_every_find_package():
    from porter.portaware.options import cmake_option_blocks, cmake_packages, off_packages

    a = b'option(USE_X "x" OFF)\nif(USE_X)\n  find_package(Xlib)\nendif()\nfind_package(Y)\n'
    facts = [(cmake_packages(a), cmake_option_blocks(a))]
    assert cmake_packages(a) == ((3, "Xlib"), (5, "Y"))
    assert off_packages(facts, {"USE_X": "CMakeLists.txt:1"}) == {"Xlib": "CMakeLists.txt:1"}
    assert off_packages(facts, {}) == {}
    second = b"# find_package(Xlib)\nif(ON_X)\n  find_package(Xlib)\nendif()\n"
    assert off_packages([*facts, (cmake_packages(second), cmake_option_blocks(second))],
                        {"USE_X": "CMakeLists.txt:1"}) == {}


def test_a_64_bit_mask_note_in_a_wave_size_arm_reads_info():
    # pack(): `#if WARP_SIZE == 32` ... `#elif WARP_SIZE == 64` (ccglib's packing kernel, heldout25): the ballots and
    # active masks of both arms (lines 5 and 8) are written per wave size. pack_any() (line 17) keeps the note.
    found = [(f.line, f.rule, str(f.severity), "wave_arm" in dict(f.data))
             for f in _findings(FIXTURE / "wavearm") if f.rule in ("API004", "DEV003")]
    assert found == [
        (5, "DEV003", "info", True),
        (5, "API004", "info", True),
        (5, "API004", "info", True),
        (8, "API004", "info", True),
        (8, "API004", "info", True),
        (17, "DEV003", "high", False),
        (17, "API004", "low", False),
        (17, "API004", "low", False),
    ]


def test_32_thread_groups_that_stay_in_their_function_or_count_a_tile_of_32():
    # load_rows (lines 9-10): no warp-level work, warp_id/lane_id only bound loops (fused-ssim, heldout25): gone.
    # load_rows_helper (line 25): warp_id passed to a helper another file defines: stays.
    # tile_sum (lines 35-36): the only warp-level work is on cg::tiled_partition<32> (mHC.cu, heldout23): gone.
    # shfl_sum (lines 47-48): a raw shuffle over warpSize lanes: stays.
    found = [(f.line, f.rule) for f in _findings(FIXTURE / "groups32") if f.rule in ("DEV011", "DEV002")]
    assert found == [(25, "DEV011"), (46, "DEV002"), (47, "DEV011"), (48, "DEV011")]


def test_kept_local_reads_calls_returns_and_loop_headers():
    from porter.match.kinds.code_device import _kept_local
    from porter.source.parse import parse

    def kept(body: str) -> bool:
        code = ("__global__ void k(float *o) {\n  int tid = threadIdx.x;\n  int warp_id = tid / 32;\n" + body
                + "\n}\n").encode()
        sf = parse("k.cu", "cuda", code)
        fn = sf.functions[0]
        start = code.index(b"  int warp_id")
        return _kept_local(sf, fn, start, code.index(b"\n", start))

    assert kept("  for (int r = warp_id; r < 4; r += 2) o[r] = 0;")
    assert kept("  o[warp_id] = (warp_id + 1) * 2.f;")
    assert not kept("  if (warp_id == 0) o[0] = 1.f;")
    assert not kept("  while (warp_id > 2) { o[0] = 1.f; }")
    assert not kept("  f(o, warp_id);")
    assert not kept("  o[0] = g<int>(warp_id + 1);")
    assert not kept("  return;\n  int w = h(1);\n  o[w] = warp_id, q(warp_id);")


def test_a_list_naming_both_vendors_libraries_is_a_menu():
    # DEMO_TPLS (lines 6-7) lists HIP and HIPBLAS beside CUDA::cudart and CUDA::cublas, each used only when its
    # target exists (MFEM's MFEM_TPLS, heldout28): handled by the list itself. DEMO_CUDA_LIBS (line 8) names CUDA's
    # alone: open.
    assert _statuses(FIXTURE / "vendorlist") == [
        ("CMakeLists.txt", 7, "LIB004", "handled", "CMakeLists.txt:6", "low"),
        ("CMakeLists.txt", 7, "LIB004", "handled", "CMakeLists.txt:6", "low"),
        ("CMakeLists.txt", 8, "LIB004", "open", None, "low"),
    ]


def test_both_vendor_libraries():
    from porter.portaware.scope import _both_vendor_libraries

    assert _both_vendor_libraries(["HIP", "CUDA::cudart"])
    assert _both_vendor_libraries(["roc::rocblas", "CUDA::cublas"])
    assert not _both_vendor_libraries(["CUDA::cudart", "OpenMP"])
    assert not _both_vendor_libraries(["${HIP_LIBS}", "CUDA::cudart"])
    assert not _both_vendor_libraries(["HIP", "cudart"])
