"""Python ROCm-guard sides, session 25 (issue 27 class 8): the CUDA one of a file's CUDA/ROCm twin functions chosen at
a call (PYT022, the `twins` option of the vendor_variant kind), setup.py requirements kept in a variable
(porter.match.kinds.library._package_specs), and link spellings in a Python file whose code outside strings never
says "lib" (porter.match.kinds.library._setup_libraries pre-tested the string-blanked text), Windows DLL names and
`.so*` globs of NVIDIA libraries; a public helper named with an `nv` word and used only in CUDA-side code is
CUDA-side (porter.portaware.guards._cuda_only_helpers). fixtures/pyrec_s25/README.md says which file holds which."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/pyrec_s25"


def test_each_pyrec_s25_finding_has_its_exact_status():
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE, Settings(jobs=1, cache_dir=None)).result
    assert [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings] == [
        # link spellings only inside strings: libnccl.so.2 (not libm.so.6), -lcublas (not -lm)
        ("links/loader.py", 4, "LIB004", "open", None),
        # a Windows DLL named <name>64_<version>.dll (not python312.dll, nor HIP's amdhip64_6.dll), a .so* glob
        ("links/loader.py", 6, "LIB004", "open", None),
        ("links/loader.py", 7, "LIB005", "open", None),
        ("links/setup.py", 5, "BLD008", "open", None),
        ("links/setup.py", 5, "LIB004", "open", None),
        # no ROCm twin in the file: `build_for_cuda()` is no vendor choice; `deps` holds no CUDA package
        ("notwin/setup.py", 7, "BLD008", "open", None),
        # a public Triton helper whose name has an `nv` word, bound only in the `if IS_NVIDIA:` arm: CUDA-side;
        # `softplus_env` (no `nv` word, public: another module may use it) stays open
        ("pkg/softplus.py", 10, "PYT010", "handled", "pkg/softplus.py:23"),
        ("pkg/softplus.py", 15, "PYT010", "open", None),
        # `requires = [...]` that install_requires= names: cupy-cuda12x
        ("setup.py", 8, "LIB011", "open", None),
        # `extras = {...}` that extras_require= names: the value nvidia-cublas-cu12, not the key "cupy-cuda11x"
        ("setup.py", 9, "LIB010", "open", None),
        # `requires.append(...)` in the else of `if torch.version.hip:`
        ("setup.py", 13, "LIB010", "handled", "setup.py:10"),
        ("setup.py", 17, "BLD008", "handled", "setup.py:16"),
        ("setup.py", 17, "BLD006", "handled", "setup.py:16"),
        ("setup.py", 21, "BLD008", "open", None),
        # line 29, the CUDA twin called in the else of `if IS_HIP_EXTENSION:` whose other branch calls the ROCm twin:
        # the choice is made there, nothing to report; line 31, the outer else, calls it with no vendor test
        ("setup.py", 31, "PYT022", "open", None),
    ]


def test_a_twin_is_looked_up_in_the_same_case():
    from porter.match.kinds.python import _twin_names

    names = list(_twin_names(b"CUDA_FLAGS", frozenset({"cuda"}), ("rocm", "hip")))
    assert names == [b"ROCM_FLAGS", b"HIP_FLAGS"]
    assert list(_twin_names(b"_compile_with_cache_cuda", frozenset({"cuda"}), ("hip",))) == [b"_compile_with_cache_hip"]
    assert list(_twin_names(b"Cuda_Backend", frozenset({"cuda"}), ("amd",))) == [b"Amd_Backend"]
    assert list(_twin_names(b"barracuda_x", frozenset({"cuda"}), ("hip",))) == []
