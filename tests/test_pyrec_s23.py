"""Python ROCm-guard sides and Python open findings on dual projects (issue 27 class 8, session 23): an existence
probe before a vendor test, vendor-keyed tables, a test of an NVIDIA-only component's availability, a CUDA-only library chosen by name (LIB016) and a shared object
named for the CUDA build (PYT021). fixtures/pyrec_s23/README.md says which file holds which."""
from __future__ import annotations

from pathlib import Path

from porter.portaware.guards import PY_PREDICATE_HINT, Span, nvidia_only_components, python_spans

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/pyrec_s23"


def test_each_pyrec_s23_finding_has_its_exact_severity_and_status():
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE, Settings(jobs=1, cache_dir=None)).result
    assert [(f.path, f.line, f.rule, str(f.severity), str(f.status), f.handled_by) for f in result.findings] == [
        # extras_require without a ROCm key
        ("cudaonly/setup.py", 4, "LIB011", "medium", "open", None),
        # the else of `hasattr(torch.version, "hip") and torch.version.hip is not None`
        ("pkg/device.py", 9, "PYT002", "medium", "handled", "pkg/device.py:6"),
        # `hasattr(torch, "xpu") and ...`: the else also runs on a ROCm build without XPU
        ("pkg/device.py", 17, "PYT002", "medium", "open", None),
        ("pkg/extlib.py", 8, "PYT021", "low", "handled", "pkg/extlib.py:7"),
        ("pkg/extlib.py", 14, "PYT021", "low", "open", None),
        # `if is_nvrtc_available:` (line 6): NVRTC has no ROCm build
        ("pkg/nvrtc_adapter.py", 7, "LIB007", "low", "handled", "pkg/nvrtc_adapter.py:6"),
        # `torch.backends.cudnn.is_available()` is true on ROCm's PyTorch (MIOpen): not confined
        ("pkg/nvrtc_adapter.py", 13, "PYT003", "info", "open", None),
        ("pkg/sampling.py", 15, "LIB016", "low", "handled", "pkg/sampling.py:12"),
        ("pkg/sampling.py", 19, "LIB016", "low", "open", None),
        # the "cuda" extra beside the "rocm" one (line 7)
        ("setup.py", 6, "LIB011", "medium", "handled", "setup.py:7"),
    ]


def test_a_hasattr_probe_keeps_the_vendor_test_whole():
    src = (b'import torch\nif hasattr(torch.version, "hip") and torch.version.hip is not None:\n    a = 1\n'
           b'else:\n    b = 2\n')
    assert python_spans(src) == [Span((3, 5), (3, 10), "rocm", 2), Span((4, 1), (5, 10), "cuda", 2)]
    # the probed attribute must be the one the test reads
    other = src.replace(b'hasattr(torch.version, "hip")', b'hasattr(torch.version, "cuda")')
    assert python_spans(other) == [Span((3, 5), (3, 10), "rocm", 2)]


def test_vendor_keyed_tables_give_each_entry_its_build():
    src = b'x = dict(cu121=["a"], rocm6_2=["b"], cpu=[])\ny = {"cuda": f, "nvidia": g}\nz = {"hip-x": 1, "amd": 2}\n'
    # `dict(...)` keywords and string keys alike; a table of one vendor only serves nothing on the other
    assert python_spans(src) == [Span((1, 10), (1, 21), "cuda", 1), Span((1, 23), (1, 36), "rocm", 1)]


def test_an_availability_test_of_an_nvidia_only_component_confines_its_true_branch():
    src = b"if HAS_FLASHINFER:\n    a = 1\nelse:\n    b = 2\nif has_nccl():\n    c = 3\n"
    # the else runs on a CUDA machine without FlashInfer too; NCCL is RCCL on ROCm (a drop-in, not asked about)
    assert python_spans(src) == [Span((2, 5), (2, 10), "cuda", 1)]


def test_the_python_pre_test_admits_every_nvidia_only_component():
    # port status reads a Python file's branches only when PY_PREDICATE_HINT matches it
    assert [c for c in sorted(nvidia_only_components()) if not PY_PREDICATE_HINT.search(c)] == []
