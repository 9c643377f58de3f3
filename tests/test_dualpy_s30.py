"""Python rows of dual projects read in context (issue 27, session 30, helper dualpy): the OCP return of an FP8 dtype
chooser whose ROCm arm returns the FNUZ dtype (refine step 8p, `fnuz_arm`), torch.version.cuda read where None
cannot reach it (8q: `none_returned`, `hip_twin`), and an entry added later to a vendor-keyed table
(porter.portaware.guards: `extras_require["cuda-nightly"] = ...` beside a `"rocm"` key), a test's
assertion or environment patch naming a build variable (8r, `test_fixture`), and a guard one module establishes
and another tests, followed through the imports (porter.portaware.pymodules). fixtures/dualpy_s30/README.md
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
    assert got[:8] == [
        ("mods/build.py", 6, "BLD006", "low", "handled", []),
        ("mods/build.py", 11, "BLD006", "low", "open", []),
        ("mods/build.py", 16, "BLD006", "low", "open", []),
        ("mods/dispatch.py", 19, "QNT004", "medium", "open", []),
        ("mods/dispatch.py", 21, "QNT004", "medium", "handled", []),
        ("mods/dispatch.py", 23, "QNT004", "medium", "open", []),
        ("mods/utils/checks.py", 11, "PYT001", "medium", "handled", []),
        ("mods/utils/checks.py", 15, "PYT001", "medium", "open", []),
    ]
    assert got[8:] == [
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


def test_a_guard_from_another_module_is_followed_through_the_imports():
    """checks.cuda_capability_compare returns None unless `is_nvidia_cuda()`: `use_hopper`, bound once to an `and`
    with it, confines `if use_hopper:`, whose `hopper_choice.bind` is the only reader of the wrapper of
    hopper_forward, the only caller of build.load_hopper_module - so that JIT build's nvcc flag is handled by the
    guard in dispatch.py. Kept open: the same build reached through a capability test that does not tell the
    vendors apart (load_ampere_module), one called outside the guard and named by another module too
    (load_shared_module), and the dtype test evaluated before the guard in the same `and`."""
    by = {(f.path, f.line): f for f in _findings()}
    assert by[("mods/build.py", 6)].handled_by == "mods/dispatch.py:24"
    assert by[("mods/dispatch.py", 21)].handled_by == "mods/dispatch.py:18"
    assert by[("mods/build.py", 11)].handled_by is None


def test_module_paths_and_imports_resolve_relative_and_dotted_names():
    from porter.portaware.pymodules import imports, module_paths
    from porter.source.parse import parse

    paths = ["mods/__init__.py", "mods/build.py", "mods/dispatch.py", "mods/utils/checks.py", "a/checks.py"]
    modules = module_paths(paths)
    assert modules["mods.utils.checks"] == "mods/utils/checks.py"
    assert modules["checks"] is None  # two files could be `checks`: not followed
    assert modules["mods"] == "mods/__init__.py"
    data = (FIXTURE / "mods/dispatch.py").read_bytes()
    got = [(i.local, i.path, i.name) for i in imports(parse("mods/dispatch.py", "python", data).root,
                                                      "mods/dispatch.py", modules)]
    assert got == [("checks", "mods/utils/checks.py", None),
                   ("load_ampere_module", "mods/build.py", "load_ampere_module"),
                   ("load_hopper_module", "mods/build.py", "load_hopper_module"),
                   ("load_shared_module", "mods/build.py", "load_shared_module")]


def test_cuda_only_functions_are_the_ones_no_rocm_build_finds_true():
    from porter.portaware.guards import cuda_only_functions
    from porter.source.parse import parse

    data = (FIXTURE / "mods/utils/checks.py").read_bytes()
    assert cuda_only_functions(parse("checks.py", "python", data).root, data) == frozenset(
        {"is_nvidia_cuda", "cuda_capability_compare"})


def test_a_modules_own_part_is_computed_from_its_bytes_alone():
    """module_facts: what the scan keeps of each Python file (FileResult.py_module), so port status joins the
    modules without reading them: dispatch.py's imports as written, the uses of each name it imports by name, and
    one reading per imported call in a test position, with the spans its public names add apart and the names whose
    definitions those spans hold (another module mentioning either keeps them out); checks.py's CUDA-only
    functions. Which call is CUDA-only is read only in the join (capability_compare is not)."""
    from porter.portaware.guards import CUDA
    from porter.portaware.pymodules import module_facts
    from porter.source.parse import parse

    data = (FIXTURE / "mods/dispatch.py").read_bytes()
    got = module_facts("mods/dispatch.py", data, parse("mods/dispatch.py", "python", data), True)
    assert got is not None
    assert got.imports == (("checks", "mods.utils", "checks"), ("load_ampere_module", ".build", "load_ampere_module"),
                           ("load_hopper_module", ".build", "load_hopper_module"),
                           ("load_shared_module", ".build", "load_shared_module"))
    assert got.uses == (("checks", ((20, 13), (23, 30))), ("load_ampere_module", ((27, 16),)),
                        ("load_hopper_module", ((10, 12),)), ("load_shared_module", ((28, 12), (33, 16))))
    # both calls read as CUDA tests at once, the spans they add grouped by the call each span's check tests
    # (line 24's `if use_hopper:` through use_hopper's value), each an `and` chain: that one call suffices
    assert [(r.calls, r.spans, r.public, r.defines, r.any_of) for r in got.readings] == [
        (("checks.capability_compare",), (((23, 72), (23, 102), CUDA, 23), ((27, 9), (27, 47), CUDA, 26)), (), (),
         True),
        (("checks.cuda_capability_compare",), (((21, 13), (21, 43), CUDA, 18), ((25, 9), (25, 37), CUDA, 24)),
         (((9, 1), (10, 43), CUDA, 24), ((13, 1), (13, 60), CUDA, 24)), ("hopper_choice", "hopper_forward"), True)]
    data = (FIXTURE / "mods/utils/checks.py").read_bytes()
    got = module_facts("mods/utils/checks.py", data, parse("mods/utils/checks.py", "python", data), False)
    assert got is not None
    assert (got.cuda_only, got.functions, got.imports, got.readings) == (
        ("cuda_capability_compare", "is_nvidia_cuda"),
        (("is_nvidia_cuda", 4, 5), ("cuda_capability_compare", 8, 11), ("capability_compare", 14, 15)), (), ())


def test_a_public_name_another_module_mentions_keeps_its_spans_out():
    """read_together: the spans dispatch.py's cuda_capability_compare reading adds (not capability_compare's: not
    CUDA-only), hopper_forward's and hopper_choice's only while no other module mentions them; once uses_shared.py
    names hopper_forward, build.load_hopper_module's only caller is no longer CUDA-side code, so no caller is
    recorded for build.py."""
    from porter.portaware.pymodules import module_facts, read_together
    from porter.source.parse import parse

    texts = {str(p.relative_to(FIXTURE)): p.read_bytes() for p in sorted((FIXTURE / "mods").rglob("*.py"))}

    def joined(texts):
        facts = {p: module_facts(p, d, parse(p, "python", d), p != "mods/utils/checks.py") for p, d in texts.items()}
        return read_together({p: f for p, f in facts.items() if f is not None}, sorted(texts))

    got = joined(texts)
    assert got.callers == {"mods/build.py": [(4, 6, "mods/dispatch.py:24")]}
    assert sorted((sp.start, sp.end, sp.line) for sp in got.spans["mods/dispatch.py"]) == [
        ((9, 1), (10, 43), 24), ((13, 1), (13, 60), 24), ((21, 13), (21, 43), 18), ((25, 9), (25, 37), 24)]
    texts["mods/uses_shared.py"] += b"\nALSO = hopper_forward\n"
    got = joined(texts)
    assert got.callers == {}
    assert sorted((sp.start, sp.end, sp.line) for sp in got.spans["mods/dispatch.py"]) == [
        ((21, 13), (21, 43), 18), ((25, 9), (25, 37), 24)]


def test_an_or_with_a_call_that_is_not_cuda_only_keeps_its_branch_open():
    """Every imported call in a test is read as a CUDA test at once; each added span keeps the calls its check
    tests. `helper() and checks.cuda_capability_compare(...)` is true on the CUDA build only when either call is
    CUDA-only; `helper() or checks.cuda_capability_compare(...)` only when both are: with helper() not CUDA-only
    the `and` branch (line 9) reads CUDA-side, the `or` branch (line 7) does not."""
    from porter.portaware.pymodules import module_facts, read_together
    from porter.source.parse import parse

    texts = {
        "mods/utils/checks.py": (FIXTURE / "mods/utils/checks.py").read_bytes(),
        "mods/other.py": b"def helper():\n    return True\n",
        "mods/use.py": (b"from .utils import checks\nfrom .other import helper\n\n\ndef f(x):\n"
                        b"    if helper() or checks.cuda_capability_compare('ge', 9, 0):\n"
                        b"        return x.to(torch.float8_e4m3fn)\n"
                        b"    if helper() and checks.cuda_capability_compare('ge', 9, 0):\n"
                        b"        return x.to(torch.float8_e4m3fn)\n"),
    }
    facts = {p: module_facts(p, d, parse(p, "python", d), p == "mods/use.py") for p, d in texts.items()}
    use = facts["mods/use.py"]
    assert use is not None
    assert [(r.calls, [(s[0], s[3]) for s in r.spans], r.any_of) for r in use.readings] == [
        (("checks.cuda_capability_compare", "helper"), [((7, 9), 6)], False),
        (("checks.cuda_capability_compare", "helper"), [((9, 9), 8)], True),
        # the capability call itself, right of `helper() and`: evaluated only where helper() is true
        (("helper",), [((8, 21), 8)], True)]
    got = read_together({p: f for p, f in facts.items() if f is not None}, ["mods/use.py"])
    assert [(sp.start, sp.line) for sp in got.spans["mods/use.py"]] == [((9, 9), 8)]
