"""PYT034 (session 31, issue 27 Python recall): a CuPy routine that NVIDIA's cuFFT/cuSOLVER/cuSPARSE/cuBLAS/cuRAND
computes, called through the file's imports or through a project module re-exporting CuPy under its own name
(`from pkg.gpu import cupy as cp`, as GPAW's `gpaw.gpu`). fixtures/py31/README.md says which file holds which."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/py31"


def test_each_py31_finding_has_its_exact_line_severity_and_status():
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE, Settings(jobs=1, cache_dir=None)).result
    found = [(f.path, f.line, f.rule, str(f.severity), str(f.status), f.handled_by) for f in result.findings]
    assert found == [
        # the ROCm arm's complex fftn is a ROCm-side call: handled by its own arm
        ("pkg/fft.py", 6, "PYT034", "info", "handled", "pkg/fft.py:5"),
        # the CUDA side of `if is_hip:` (GPAW's rfftn), read through `from pkg.gpu import cupyx`
        ("pkg/fft.py", 8, "PYT034", "info", "handled", "pkg/fft.py:5"),
        ("pkg/fft.py", 12, "PYT034", "info", "open", None),
        # `cp` is pkg.gpu's re-exported cupy; cp.linalg.norm and the project's own cupy_helpers.eigh are not read
        ("pkg/solver.py", 6, "PYT034", "info", "open", None),
    ]
    by_line = {(f.path, f.line): f for f in result.findings}
    assert by_line[("pkg/fft.py", 12)].message.startswith(
        "cupyx.scipy.fft.irfftn is computed by NVIDIA's cuFFT (hipFFT over rocFFT on ROCm)")
    assert by_line[("pkg/solver.py", 6)].message.startswith(
        "cupy.linalg.eigh is computed by NVIDIA's cuSOLVER (hipSOLVER over rocSOLVER on ROCm)")


def test_a_reexport_is_read_only_for_a_name_imported_as_the_library_itself():
    """`from x import cupyx` and `from x import cupy as cp` re-root to the library; `from x.cupy_utils import f`, an
    unbound `self.cupy.fft.fft` and NumPy's fft stay as written (so module_call sees no CuPy call)."""
    from porter.match.kinds.library import _reexported_calls, _resolved_calls
    from porter.source.parse import parse

    text = (b"from pkg.gpu import cupy as cp\nfrom pkg.gpu import cupyx\nfrom pkg.cupy_utils import rfftn\n"
            b"import numpy as np\n"
            b"cp.linalg.eigh(m)\ncupyx.scipy.fft.rfftn(a)\nrfftn(a)\nnp.fft.rfftn(a)\nself.cupy.fft.fft(a)\n")
    sf = parse("m.py", "python", text)
    calls, prefixes = _resolved_calls(sf)
    got, got_prefixes = _reexported_calls(sf, calls, prefixes, ["cupy.linalg", "cupyx.scipy.fft"])
    assert [full for _, full in got] == ["cupy.linalg.eigh", "cupyx.scipy.fft.rfftn", "pkg.cupy_utils.rfftn",
                                         "numpy.fft.rfftn", "self.cupy.fft.fft"]
    assert "cupy.linalg." in got_prefixes and "cupyx.scipy.fft." in got_prefixes


def test_pyt034_notes_inform_the_estimate_and_cost_nothing_as_engineering():
    """A check of the library under a CuPy call is no engineering item of its own (effort size none): gpu4pyscf's
    ~150 notes moved its estimate's "needs an engineer" count from 107 to 253 when they were costed per file."""
    from porter.pipeline import run
    from porter.settings import Settings

    counts = run(FIXTURE, Settings(jobs=1, cache_dir=None), assess=True).assessment.counts
    assert (counts.open, counts.informational, counts.needs_engineer, counts.free_with_hipify) == (2, 2, 0, 0)
