"""Python FP8 dtype names and capability/version reads read in context (issue 27, session 29, helper pyq): an OCP
FP8 table whose FNUZ entries the same scope adds (refine step 8f), a version read in the non-ROCm arm of an if-chain
with a ROCm arm (8n), a capability made a label by a same-file text function (8b), a test at NVIDIA's FP8 threshold
(8o). fixtures/pyq_s29/README.md says which file holds which shape; each sits beside near misses that stay open."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/pyq_s29"
NOTES = ("fnuz_too", "rocm_arm", "identity", "fp8_test")


def _findings():
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE, Settings(jobs=1, cache_dir=None)).result
    return result.findings


def test_each_pyq_s29_finding_has_its_exact_severity_status_and_note():
    got = [(f.path, f.line, f.rule, str(f.severity), str(f.status), sorted(k for k, _ in f.data if k in NOTES))
           for f in _findings()]
    assert got == [
        # a table filled in two steps; its FNUZ entries are added at lines 12-13
        ("pkg/dtypes.py", 5, "QNT004", "info", "open", ["fnuz_too"]),
        ("pkg/dtypes.py", 6, "QNT004", "info", "open", ["fnuz_too"]),
        ("pkg/dtypes.py", 9, "QNT004", "info", "open", ["fnuz_too"]),
        # a later non-FNUZ entry, an OCP-only list, FNUZ added to another table or from another scope, a cast
        ("pkg/dtypes.py", 17, "QNT004", "medium", "open", []),
        ("pkg/dtypes.py", 19, "QNT004", "medium", "open", []),
        ("pkg/dtypes.py", 22, "QNT004", "medium", "open", []),
        ("pkg/dtypes.py", 30, "QNT004", "medium", "open", []),
        # the ZLUDA arm beside `elif torch.version.hip and allow_rocm:`; the ROCm arm's own read is that arm's
        ("pkg/installer.py", 17, "PYT002", "info", "open", ["rocm_arm"]),
        ("pkg/installer.py", 20, "PYT002", "medium", "handled", []),
        # a label made by a same-file text function; a number made by another and compared stays
        ("pkg/installer.py", 21, "PYT001", "info", "open", ["identity"]),
        ("pkg/installer.py", 23, "PYT001", "medium", "open", []),
        # a chain with no ROCm arm
        ("pkg/installer.py", 31, "PYT002", "medium", "open", []),
        # an arm whose own test (torch.cuda.is_available()) ROCm's PyTorch answers too, before the ROCm arm
        ("pkg/installer.py", 39, "PYT002", "medium", "open", []),
        # NVIDIA's FP8 threshold in three spellings
        ("pkg/platform.py", 11, "PYT001", "info", "open", ["fp8_test"]),
        ("pkg/platform.py", 18, "PYT001", "info", "open", ["fp8_test"]),
        ("pkg/platform.py", 22, "PYT001", "info", "open", ["fp8_test"]),
        # a Hopper test, a capability also handed on, an sm_86 test
        ("pkg/platform.py", 29, "PYT001", "medium", "open", []),
        ("pkg/platform.py", 33, "PYT001", "medium", "open", []),
        ("pkg/platform.py", 39, "PYT001", "medium", "open", []),
    ]


def test_the_notes_name_the_table_the_rocm_arm_the_label_and_the_threshold():
    notes = {(f.path, f.line): dict(f.data) for f in _findings()}
    assert notes[("pkg/dtypes.py", 9)]["fnuz_too"] == (
        "the dictionary at line 8 is torch_dtype_dict, to which line 13 adds an FNUZ entry: a table that serves both "
        "encodings")
    assert notes[("pkg/installer.py", 17)]["rocm_arm"] == (
        "in an arm of the if-chain at line 16 whose arm at line 18 (`torch.version.hip and allow_rocm`) is the ROCm "
        "build's: the other side of a decision made for ROCm")
    assert notes[("pkg/installer.py", 21)]["identity"] == (
        "the capability only becomes the text gpu, which nothing compares: a label, each GPU answers for itself")
    assert notes[("pkg/platform.py", 11)]["fp8_test"] == (
        "`actual_capability >= min_fp8_capability_triton`: NVIDIA's FP8 threshold (sm_89), which every AMD GPU "
        "((9, 4), (9, 5), (12, 5)) passes and has FP8 for; the FP8 encoding is the dtype's item")


def test_the_fp8_threshold_needs_every_amd_target_to_have_fp8(monkeypatch):
    # a target profile without FP8 (a user's own, say) makes the test's answer on AMD no longer the hardware's
    import porter.targets
    from porter.match import refine_capability

    class Profile:
        def __init__(self, fp8):
            self.fp8 = fp8

        def get(self, name, default=None):
            return self.fp8 if name == "fp8" else default

    amd = refine_capability.amd_capabilities()  # read from the real profiles first (it is cached)
    assert amd == ((9, 4), (9, 5), (12, 5))
    refine_capability.amd_fp8_capabilities.cache_clear()
    monkeypatch.setattr(porter.targets, "load_targets", lambda: {"a": Profile(True), "b": Profile(False)})
    try:
        assert refine_capability.amd_fp8_capabilities() == ()
        refine_capability.amd_fp8_capabilities.cache_clear()
        monkeypatch.setattr(porter.targets, "load_targets", lambda: {"a": Profile(True)})
        assert refine_capability.amd_fp8_capabilities() == amd
    finally:
        refine_capability.amd_fp8_capabilities.cache_clear()


def test_an_and_guard_ending_in_torch_version_cuda_is_none_safe(tmp_path):
    # SimpleTuner's `if torch.cuda.is_available() and torch.version.cuda:` (heldout39, judged false) is not reported;
    # a comparison of the version after `and` is
    (tmp_path / "q.py").write_text(
        "import torch\n"
        "if torch.cuda.is_available() and torch.version.cuda:\n"
        "    pass\n"
        "if torch.cuda.is_available() and torch.version.cuda >= '12.1':\n"
        "    pass\n")
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(tmp_path, Settings(jobs=1, cache_dir=None)).result
    assert [(f.line, f.rule) for f in result.findings if f.rule == "PYT002"] == [(4, "PYT002")]
