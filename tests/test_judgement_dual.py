"""Issue 27 (heldout8's dual projects, as mechanisms): a dual project's own ROCm path, read as handled - a Makefile
switch led by a vendor word (`ifdef HIPCONFIG`), a CUDA source with a ROCm twin beside it (`field.cuh` /
`field.hip`), a ROCm-side header whose polyfills and `auto` aliases map CUDA names for every file (a force-included
`cuda2hip.hpp`), and toolkit tests HIP takes on purpose (`|| defined(__clang__)`, an `#elif` after the HIP arm).
fixtures/judgement/README.md says what each line is."""
from __future__ import annotations

from pathlib import Path

from porter.pipeline import run
from porter.portaware.compat import mapped_definitions
from porter.portaware.guards import python_spans
from porter.portaware.scope import _make_test, source_twins
from porter.settings import Settings

DUAL = Path(__file__).resolve().parent.parent / "fixtures" / "judgement" / "dual"


def test_every_finding_of_the_dual_project_reads_as_its_own_rocm_path_decides():
    res = run(DUAL, Settings(jobs=1, cache_dir=None)).result
    got = sorted((f.path, f.line, f.rule, f.status.value, f.handled_by) for f in res.findings)
    assert got == [
        ("Makefile", 5, "BLD007", "handled", "Makefile:1"),
        ("Makefile", 6, "LIB004", "handled", "Makefile:1"),
        # core/CMakeLists.txt adds tests/: part of the build
        ("core/tests/CMakeLists.txt", 1, "BLD002", "open", None),
        # a side build beside a torch-extension setup.py that never runs it: the team's NVIDIA-only extra
        ("ext/CMakeLists.txt", 2, "BLD001", "cuda-only",
         "ext/setup.py: the package is built as torch extensions by setup.py, which never runs this build"),
        ("ext/setup.py", 4, "BLD008", "open", None),
        ("ff/field.cuh", 4, "API004", "handled", "ff/field.hip"),
        ("ff/field.cuh", 4, "DEV003", "handled", "ff/field.hip"),
        ("ff/field.cuh", 5, "DEV002", "handled", "ff/field.hip"),
        ("ff/field.hip", 4, "API004", "handled", "ff/field.hip"),
        ("ff/field.hip", 5, "API003", "handled", "ff/field.hip"),
        # the polyfill in util/compat2hip.hpp's __HIPCC__ arm maps __shfl_xor_sync; __ballot_sync it does not map
        ("ff/shfl.cuh", 4, "DEV002", "handled", "util/compat2hip.hpp:5"),
        ("ff/shfl.cuh", 6, "DEV003", "open", None),
        ("ff/shfl.cuh", 8, "DEV002", "open", None),
        # `#elif __CUDACC_VER_MAJOR__ >= 9` (line 4) follows the arm HIP takes: no DEV010 there
        ("inc/half.cuh", 5, "API005", "handled", "inc/half.cuh:2"),
        # lib/setup.py runs cmake: its CMakeLists.txt is the build
        ("lib/CMakeLists.txt", 2, "BLD001", "open", None),
        ("lib/setup.py", 6, "BLD008", "open", None),
        ("ntt/assume.cu", 1, "KRN001", "open", None),
        # line 3 ORs in defined(__clang__) (hip-clang is clang): no DEV010; line 6 has no HIP path and stays
        ("ntt/assume.cu", 6, "DEV010", "open", None),
        # _compile_with_nvrtc is used only in the else of `if runtime.is_hip:` (line 5); _shared_flags also from the
        # public build_flags
        ("py/compiler.py", 16, "BLD006", "handled", "py/compiler.py:5"),
        # libcudadevrt.a, named only inside a string, in _devrt_path (used only by _compile_with_nvrtc): read since
        # session 25, whose link reading no longer needs "lib" outside a string
        ("py/compiler.py", 21, "LIB004", "handled", "py/compiler.py:5"),
        ("py/compiler.py", 25, "BLD006", "open", None),
        # the __HIP_DEVICE_COMPILE__ arm inside the kernel string is the ROCm side (line 4 decides); the shuffle
        # (line 9) stays open: porter does not follow FULL_MASK into the arms
        ("py/kernels.py", 5, "PYT008", "handled", "py/kernels.py:4"),
        ("py/kernels.py", 9, "PYT007", "open", None),
        ("py/kernels.py", 9, "PYT008", "open", None),
        ("util/compat2hip.hpp", 6, "API003", "handled", "util/compat2hip.hpp:1"),
        # a test build of its own: a CMake project no parent adds, a script that runs nvcc
        ("xlib/test/compile.sh", 1, "BLD005", "cuda-only", "xlib/test/: a test build of its own, not the project's build"),
        ("xlib/test/compile.sh", 1, "BLD007", "cuda-only", "xlib/test/: a test build of its own, not the project's build"),
        ("xlib/test/reduce/CMakeLists.txt", 2, "BLD002", "cuda-only",
         "xlib/test/: a test build of its own, not the project's build"),
    ]


def test_source_twins_pair_a_cuda_file_with_the_rocm_file_beside_it_of_the_same_kind():
    paths = ["ff/mont_t.cuh", "ff/mont_t.hip", "ff/shfl.cuh", "a/k_cuda.cu", "a/k_hip.cpp", "a/CUDAWrapper.cu",
             "a/HIPWrapper.hip", "b/utils.h", "b/utils_hip.h", "c/x.cu", "c/x.hip.cpp", "e/y.cu", "e/y_hip.h",
             "f/z.cu", "g/z.hip"]
    assert source_twins(paths) == {
        "ff/mont_t.cuh": "ff/mont_t.hip", "a/k_cuda.cu": "a/k_hip.cpp", "a/CUDAWrapper.cu": "a/HIPWrapper.hip",
        "c/x.cu": "c/x.hip.cpp"}


def test_a_make_switch_led_by_a_vendor_word_is_that_vendor_s():
    assert [_make_test("ifdef", w) for w in ("HIPCONFIG", "ROCMPATH", "CUDAROOT", "SHIPPING", "AMD64")] == [
        "rocm", "rocm", "cuda", None, None]
    assert _make_test("ifndef", "HIPCONFIG") == "cuda"


def test_mapped_definitions_are_cuda_shaped_functions_and_auto_aliases_not_calls():
    text = "\n".join([
        "static const auto cudaGetDevice = hipGetDevice;",
        "template<typename T> __device__ __forceinline__",
        "static T __shfl_sync(unsigned mask, const T& v, unsigned i)",
        "{   return __shfl(v, i, 32);   }",
        "static inline hipError_t",
        "cudaLaunchCooperativeKernel(const void* f, dim3 g, dim3 b, void** a)",
        "    return cudaFree(p);",
        "else cudaFree(p);",
        "err = cudaMalloc(&p, n);",
        "static int helper(int x) { return x; }",
        "    cudaMemcpy(a, b, n, k);",
        "else",
        "    cudaFree(p);",
    ])
    assert mapped_definitions(text) == [(1, "cudaGetDevice"), (3, "__shfl_sync"), (6, "cudaLaunchCooperativeKernel")]


def test_a_private_python_helper_used_only_on_the_cuda_side_is_cuda_side_itself():
    spans = python_spans((DUAL / "py" / "compiler.py").read_bytes(), "py/compiler.py")
    assert sorted((sp.start, sp.end, sp.side, sp.line) for sp in spans) == [
        ((6, 9), (6, 50), "rocm", 5),
        ((7, 5), (8, 49), "cuda", 5),
        ((11, 1), (12, 40), "rocm", 5),  # _compile_with_hiprtc, used only in the ROCm arm (session 27)
        ((15, 1), (17, 54), "cuda", 5),  # _compile_with_nvrtc
        ((20, 1), (21, 57), "cuda", 5),  # _devrt_path, used only by it
    ]
