"""Findings inside functions no code of the repository reaches (issue 27, session 31, helper dead31:
porter.match.refine_unreferenced). fixtures/unref_s31/app is an application (a `main`, a Makefile) whose helper
header carries code nothing the build reaches beside every case that must stay open; headerlib is a library (no
entry point), whose header templates and plain kernels its users outside the repository call."""
from __future__ import annotations

from pathlib import Path

from porter.match.refine_unreferenced import unreferenced
from porter.model.finding import Severity

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/unref_s31"


def _result(root: Path):
    from porter.pipeline import run
    from porter.settings import Settings

    return run(root, Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result


def _rows(result):
    return [(f.path, f.line, f.rule, str(f.severity), (dict(f.data).get("unused") or "").split(": ")[1:2])
            for f in result.findings if f.severity > Severity.INFO or "unused" in dict(f.data)]


TWIN = "`twin_shuffle` (template) is named nowhere in the repository's code outside its own definition"


def test_unreferenced_functions_read_info_and_the_rest_stays_open():
    got = _rows(_result(FIXTURE / "app"))
    assert got == [
        ("Makefile", 3, "BLD007", "medium", []),
        # a public header under include/: its users call it
        ("include/app/api.cuh", 5, "DEV002", "high", []),
        ("include/app/api.cuh", 5, "DEV011", "medium", []),
        # src/legacy.cuh: no build compiles it (test_a_makefile_naming_sources_by_path_speaks_for_their_directory)
        ("src/legacy.cuh", 3, "DEV003", "high", []),
        ("src/legacy.cuh", 3, "DEV002", "high", []),
        # warp_sum: called by live_kernel, which main launches
        ("src/reduce.cuh", 7, "DEV011", "medium", []),
        ("src/reduce.cuh", 7, "DEV002", "high", []),
        # old_block_sum <- old_kernel <- old_launcher, which nothing names but its own template prototype
        ("src/reduce.cuh", 14, "DEV002", "info", ["`old_block_sum` (template) is named in the repository's code only by `old_kernel`, which "
                                                 "nothing the build reaches uses either"]),
        ("src/reduce.cuh", 19, "KRN001", "info", ["`old_kernel` (template) is named in the repository's code only by `old_launcher`, "
                                                 "`spaced_launch`, which nothing the build reaches uses either"]),
        # an uncalled inline function: hip-clang checks a non-template body whether it is called or not (its 32-bit
        # ballot result, its 32-bit mask)
        ("src/reduce.cuh", 31, "DEV003", "high", []),
        ("src/reduce.cuh", 32, "DEV002", "high", []),
        # an override of a class template, called through its base
        ("src/reduce.cuh", 41, "DEV002", "high", []),
        # extern "C", a function-pointer table, a name pasted by a macro, a name a Python loader spells
        ("src/reduce.cuh", 44, "DEV003", "high", []),
        ("src/reduce.cuh", 44, "DEV002", "high", []),
        ("src/reduce.cuh", 46, "DEV003", "high", []),
        ("src/reduce.cuh", 46, "DEV002", "high", []),
        ("src/reduce.cuh", 52, "DEV003", "high", []),
        ("src/reduce.cuh", 52, "DEV002", "high", []),
        ("src/reduce.cuh", 54, "DEV003", "high", []),
        ("src/reduce.cuh", 54, "DEV002", "high", []),
        # a template nothing instantiates: even its 32-bit mask is never compiled
        ("src/reduce.cuh", 58, "DEV002", "info", ["`uncalled_shuffle` (template) is named nowhere in the repository's code outside its "
                                                 "own definition"]),
        ("src/reduce.cuh", 58, "DEV011", "info", ["`uncalled_shuffle` (template) is named nowhere in the repository's code outside its "
                                                 "own definition"]),
        # a kernel named nowhere at all may be launched by a name the search cannot see (pasted, generated): live;
        # and a plain kernel is compiled whether launched or not, so its 32-bit mask stays open
        ("src/reduce.cuh", 61, "DEV002", "high", []),
        # declared by a plain prototype: announced to other translation units
        ("src/reduce.cuh", 64, "DEV002", "high", []),
        # a template nothing instantiates, but its asm's "l" operand is rejected when clang parses it
        ("src/reduce.cuh", 69, "DEV001", "high", []),
        # "=r" parses: never emitted (refine_helpers' own reading, which reaches it first)
        ("src/reduce.cuh", 76, "DEV001", "info", ["hip-clang never emits its body, so this PTX is never compiled for AMD"]),
        # a definition in an arm hip-clang never takes decides nothing about its name: the twin in `#else` is what
        # the ROCm build compiles, and nothing calls either
        ("src/reduce.cuh", 82, "DEV002", "info", [TWIN]),
        ("src/reduce.cuh", 82, "DEV011", "info", [TWIN]),
        ("src/reduce.cuh", 85, "DEV002", "info", [TWIN]),
        ("src/reduce.cuh", 85, "DEV011", "info", [TWIN]),
        # called by tests/reduce_test.cu, which no build target compiles: a test exercises the API, so it stays open
        ("src/reduce.cuh", 89, "DEV002", "high", []),
        ("src/reduce.cuh", 89, "DEV011", "medium", []),
        # nothing calls spaced_launch, but hip-clang rejects its `<< <` when it parses the template
        ("src/reduce.cuh", 92, "DEV040", "high", []),
        # lane_kernel's only launch is in a template nothing uses: dead, but a plain kernel is emitted unlaunched, so
        # its PTX (even with an "=r" operand AMDGPU parses) reaches the AMDGPU assembler and stays open
        ("src/reduce.cuh", 94, "KRN001", "info", ["`lane_kernel` (kernel) is named in the repository's code only by "
                                                 "`uncalled_lane_launch`, which nothing the build reaches uses either"]),
        ("src/reduce.cuh", 96, "DEV001", "high", []),
    ]


def test_kernel_nothing_reachable_launches_reads_ok():
    kernels = [(k.path, k.line, k.name, str(k.status), [v.verdict for v in k.verdicts or ()])
               for k in _result(FIXTURE / "app").kernels]
    assert kernels == [
        ("src/main.cu", 4, "live_kernel", "open", ["fix"]),
        ("src/reduce.cuh", 18, "old_kernel", "cuda-only", ["ok"]),
        # nothing launches it, but a finding hip-clang rejects stays open in it: its verdict stands
        ("src/reduce.cuh", 61, "orphan_vote", "open", ["fix"]),
        ("src/reduce.cuh", 64, "declared_vote", "open", ["fix"]),
        # launched only from dead code, but its PTX stays open inside it: fix, not ok
        ("src/reduce.cuh", 94, "lane_kernel", "open", ["fix"]),
        ("tests/reduce_test.cu", 3, "check", "open", ["fix"]),
    ]


def test_library_headers_and_external_kernels_stay_open():
    # no main and no binding module: a library, whose headers and plain kernels its users call (its static helper
    # nothing calls is unreachable, but hip-clang still checks a non-template body)
    result = _result(FIXTURE / "headerlib")
    assert _rows(result) == [
        ("mylib/impl.cu", 4, "DEV003", "high", []),
        ("mylib/impl.cu", 4, "DEV002", "high", []),
        ("mylib/impl.cu", 7, "DEV003", "high", []),
        ("mylib/impl.cu", 7, "DEV002", "high", []),
        ("mylib/lanes.cuh", 5, "DEV002", "high", []),
        ("mylib/lanes.cuh", 5, "DEV011", "medium", []),
    ]
    assert [(k.name, str(k.status), [v.verdict for v in k.verdicts or ()]) for k in result.kernels] == [
        ("exported_vote", "open", ["fix"])]


def _app_files() -> dict[str, bytes]:
    root = FIXTURE / "app"
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.suffix in (".cu", ".cuh", ".py")}


def _marked(files: dict[str, bytes], **kw) -> list[tuple[str, int, str]]:
    findings = [f for f in _result(FIXTURE / "app").findings]
    import dataclasses

    opened = [dataclasses.replace(f, severity=Severity.HIGH, data=()) if "unused" in dict(f.data) else f
              for f in findings]
    sources = {p: "python" if p.endswith(".py") else "cuda" for p in files}
    out = unreferenced(opened, sources, files.get, **kw)
    return [(f.path, f.line, f.rule) for f in out if "unused" in dict(f.data)]


def test_a_call_from_live_code_keeps_the_whole_chain():
    files = _app_files()
    assert _marked(files) == [("src/reduce.cuh", 14, "DEV002"), ("src/reduce.cuh", 19, "KRN001"),
                              ("src/reduce.cuh", 58, "DEV002"),
                              ("src/reduce.cuh", 58, "DEV011"),
                              ("src/reduce.cuh", 76, "DEV001"), ("src/reduce.cuh", 82, "DEV002"), ("src/reduce.cuh", 82, "DEV011"),
                              ("src/reduce.cuh", 85, "DEV002"), ("src/reduce.cuh", 85, "DEV011"),
                              ("src/reduce.cuh", 94, "KRN001")]
    # main calls old_launcher: old_kernel and old_block_sum are reached through it
    files["src/main.cu"] = files["src/main.cu"].replace(b"return 0;", b"old_launcher(d);\n    return 0;")
    assert _marked(files) == [("src/reduce.cuh", 58, "DEV002"),
                              ("src/reduce.cuh", 58, "DEV011"),
                              ("src/reduce.cuh", 76, "DEV001"), ("src/reduce.cuh", 82, "DEV002"), ("src/reduce.cuh", 82, "DEV011"),
                              ("src/reduce.cuh", 85, "DEV002"), ("src/reduce.cuh", 85, "DEV011"),
                              ("src/reduce.cuh", 94, "KRN001")]
    # the same call only in a comment, or in an arm hip-clang never takes, is no use
    base = _app_files()
    for text in (b"// old_launcher(d);\n    return 0;",
                 b"\n#ifdef __CUDA_ARCH__\n    old_launcher(d);\n#endif\n    return 0;"):
        files = dict(base, **{"src/main.cu": base["src/main.cu"].replace(b"return 0;", text)})
        assert ("src/reduce.cuh", 19, "KRN001") in _marked(files), text


def test_file_scope_mentions_and_budgets_keep_findings_open():
    base = _app_files()
    # an explicit instantiation at file scope is a use
    files = dict(base, **{"src/main.cu": base["src/main.cu"] + b"\ntemplate void old_launcher<float>(float *);\n"})
    assert ("src/reduce.cuh", 19, "KRN001") not in _marked(files)
    # a call from another function nothing calls is no use ...
    files = dict(base, **{"src/extra.cu": b'#include "reduce.cuh"\n'
                          b"template <typename T> void older(T *p) { old_launcher(p); }\n"})
    assert ("src/reduce.cuh", 19, "KRN001") in _marked(files)
    # ... but past the parse budget (the three files with findings parsed, then none: not extra.cu) a mention counts as a use
    import porter.match.refine_unreferenced as ru

    saved = ru.PARSE_BUDGET
    try:
        ru.PARSE_BUDGET = 3
        assert _marked(files) == [("src/reduce.cuh", 58, "DEV002"),
                                  ("src/reduce.cuh", 58, "DEV011"),
                              ("src/reduce.cuh", 76, "DEV001"), ("src/reduce.cuh", 82, "DEV002"), ("src/reduce.cuh", 82, "DEV011"),
                              ("src/reduce.cuh", 85, "DEV002"), ("src/reduce.cuh", 85, "DEV011"),
                              ("src/reduce.cuh", 94, "KRN001")]
    finally:
        ru.PARSE_BUDGET = saved
    # past the read budget nothing is decided
    saved = ru.READ_BUDGET
    try:
        ru.READ_BUDGET = 10
        assert _marked(base) == []
    finally:
        ru.READ_BUDGET = saved


def test_a_makefile_naming_sources_by_path_speaks_for_their_directory():
    # The app's Makefile names src/main.cu: it lists what it compiles in src/, so src/legacy.cuh, which no listed
    # source includes, is compiled by no build (porter.portaware.status.unbuilt_sources); a directory it names no
    # source of (include/app) stays unknown, counted built.
    from porter.portaware.status import _make_reading

    text = (FIXTURE / "app/Makefile").read_text()
    assert _make_reading("Makefile", text, {"", "src", "include", "include/app"})[1] == {"\0", "src\0"}
    assert _make_reading("build/Makefile", "OBJ = ../src/a.cu $(D)/b.cu\n", {"", "src", "build"})[1] == {
        "build\0", "src\0"}
    got = [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in _result(FIXTURE / "app").findings
           if f.status.name != "OPEN"]
    why = "no build compiles it: Makefile lists the sources it compiles and none of them includes it"
    assert got == [("src/legacy.cuh", 3, "DEV003", "cuda-only", why), ("src/legacy.cuh", 3, "DEV002", "cuda-only", why)]
