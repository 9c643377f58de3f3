"""Python rows of dual projects read in context (issue 27, session 30, helper dualpy): the OCP return of an FP8 dtype
chooser whose ROCm arm returns the FNUZ dtype (refine step 8p, `fnuz_arm`), torch.version.cuda read where None
cannot reach it (8q: `none_returned`, `hip_twin`), and an entry added later to a vendor-keyed table
(porter.portaware.guards: `extras_require["cuda-nightly"] = ...` beside a `"rocm"` key), and a test's
assertion or environment patch naming a build variable (8r, `test_fixture`). fixtures/dualpy_s30/README.md
says which file holds which shape; each sits beside near misses that stay open."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/dualpy_s30"
NOTES = ("fnuz_arm", "none_returned", "hip_twin", "test_fixture")


def _findings():
    from porter.pipeline import run
    from porter.settings import Settings

    return run(FIXTURE, Settings(jobs=1, cache_dir=None)).result.findings


def test_each_dualpy_s30_finding_has_its_exact_severity_status_and_note():
    got = [(f.path, f.line, f.rule, str(f.severity), str(f.status), sorted(k for k, _ in f.data if k in NOTES))
           for f in _findings()]
    # a test module's assertion, environment patches and pop read info; its JIT build stays, as does the same
    # assertion outside tests (pkg/envcheck.py)
    assert [g for g in got if g[0] in ("tests/test_build_env.py", "pkg/envcheck.py")] == [
        ("pkg/envcheck.py", 5, "BLD006", "low", "open", []),
        ("pkg/envcheck.py", 6, "BLD006", "low", "open", []),
        ("tests/test_build_env.py", 8, "BLD006", "info", "open", ["test_fixture"]),
        ("tests/test_build_env.py", 9, "BLD006", "info", "open", ["test_fixture"]),
        ("tests/test_build_env.py", 10, "BLD006", "info", "open", ["test_fixture"]),
        ("tests/test_build_env.py", 11, "BLD006", "info", "open", ["test_fixture"]),
        ("tests/test_build_env.py", 15, "BLD006", "low", "open", []),
        ("tests/test_build_env.py", 16, "BLD006", "low", "open", []),
    ]
    got = [g for g in got if g[0] not in ("tests/test_build_env.py", "pkg/envcheck.py")]
    assert got == [
        # every OCP return of a chooser whose `detect_vendor() == "amd"` arm returns FNUZ, before it and after it
        ("pkg/fp8.py", 6, "QNT004", "info", "open", ["fnuz_arm"]),
        ("pkg/fp8.py", 8, "QNT004", "info", "open", ["fnuz_arm"]),
        ("pkg/fp8.py", 11, "QNT004", "info", "open", ["fnuz_arm"]),
        # an assignment after a ROCm arm joined by `and` with the dtype's own probe
        ("pkg/fp8.py", 17, "QNT004", "info", "open", ["fnuz_arm"]),
        # the else of a pure ROCm test: port status already reads it as the CUDA side
        ("pkg/fp8.py", 25, "QNT004", "info", "handled", ["fnuz_arm"]),
        # a cast; an FNUZ arm under a user's flag; a ROCm arm that returns no FNUZ dtype
        ("pkg/fp8.py", 29, "QNT004", "medium", "open", []),
        ("pkg/fp8.py", 35, "QNT004", "medium", "open", []),
        ("pkg/fp8.py", 41, "QNT004", "medium", "open", []),
        # a wheel index in a private helper reached only from the "cuda-nightly" entry added to a table with "rocm"
        ("pkg/setup.py", 7, "CTR006", "medium", "handled", []),
        # the same from an entry whose key names no vendor
        ("pkg/setup.py", 19, "CTR006", "medium", "open", []),
        ("pkg/setup.py", 23, "LIB011", "medium", "handled", []),
        # `if torch.version.cuda is None: return (0, 0)` and the read after it
        ("pkg/version.py", 5, "PYT002", "info", "open", ["none_returned"]),
        ("pkg/version.py", 7, "PYT002", "info", "handled", ["none_returned"]),
        # `backend == "cuda" and not torch.version.cuda` beside `... and not torch.version.hip`
        ("pkg/version.py", 14, "PYT002", "info", "open", ["hip_twin"]),
        # a test that raises on None (a ROCm build refused) stays; the read after it is the CUDA side
        ("pkg/version.py", 21, "PYT002", "medium", "open", []),
        ("pkg/version.py", 23, "PYT002", "medium", "handled", []),
        # a read before the early return stays; the early return's own test does not
        ("pkg/version.py", 27, "PYT002", "medium", "open", []),
        ("pkg/version.py", 28, "PYT002", "info", "open", ["none_returned"]),
        # after a return on another value's None; a hip clause spelled another way
        ("pkg/version.py", 36, "PYT002", "medium", "open", []),
        ("pkg/version.py", 40, "PYT002", "medium", "open", []),
    ]


def test_the_notes_name_the_rocm_arm_and_the_early_return():
    notes = {(f.path, f.line): dict(f.data) for f in _findings()}
    assert notes[("pkg/fp8.py", 17)]["fnuz_arm"] == (
        'the arm at line 15 (`torch.version.hip is not None and hasattr(torch, "float8_e4m3fnuz")`) returns the FNUZ '
        "dtype on the ROCm build: this is the other devices' answer")
    assert notes[("pkg/version.py", 7)]["none_returned"] == (
        "line 5 returns when torch.version.cuda is None (the ROCm build) before this read")
    assert notes[("tests/test_build_env.py", 8)]["test_fixture"] == (
        "in the test's environment patch at line 8 (`mock.patch.dict`): the code under test decides the flags")
    assert notes[("pkg/version.py", 14)]["hip_twin"] == (
        "the test at line 12 reads torch.version.hip the same way (`not torch.version.hip`): it tells the two builds "
        "apart")


def test_a_later_cuda_entry_of_a_vendor_keyed_table_is_a_cuda_span():
    from porter.portaware.guards import CUDA, python_spans

    data = (FIXTURE / "pkg/setup.py").read_bytes()
    spans = [(sp.start[0], sp.end[0], sp.side, sp.line) for sp in python_spans(data, "pkg/setup.py")]
    # the entry at line 28 (read on the ROCm key's line 24), and the helpers only it reaches
    assert (28, 28, CUDA, 24) in spans
    assert (6, 7, CUDA, 24) in spans
    assert not any(a <= 19 <= b for a, b, _s, _l in spans)
