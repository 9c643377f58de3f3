"""Port status of build branches a dual project's ROCm build never takes (issue 27, session 24, helper dp28): a
Python build selector compared with "rocm" whose `== "cuda"` arm is the CUDA build's, a file no build compiles in a
package whose one build is a torch-extension setup.py, and a CMake source named through a folder variable the file
sets. fixtures/dp28_s24 holds one small repository per shape, each with a near miss that stays open."""
from __future__ import annotations

import shutil
from pathlib import Path

from porter.portaware.guards import python_spans
from porter.portaware.scope import setup_source_patterns
from porter.source.parse import parse

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/dp28_s24"
UNBUILT = "no build compiles it: setup.py lists the package's sources and none of them includes it"


def _statuses(root: Path) -> list[tuple[str, int, str, str, str | None]]:
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(root, Settings(jobs=1, cache_dir=None)).result
    return [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings]


def test_a_value_compared_with_rocm_is_a_build_selector():
    data = (FIXTURE / "selector/setup.py").read_bytes()
    spans = [(sp.start[0], sp.end[0], sp.side, sp.line) for sp in python_spans(data, "setup.py")]
    # _select_backend's `return "rocm"` makes `backend` a selector; `mode` is compared with "rocm" itself
    assert (14, 14, "cuda", 13) in spans
    assert (20, 20, "cuda", 19) in spans and (22, 22, "rocm", 21) in spans
    # a torch device's `.type` is "cuda" on ROCm too: no selector
    assert not any(line == 25 for *_r, line in spans)
    assert [s for s in _statuses(FIXTURE / "selector") if s[0] == "setup.py"] == [
        ("setup.py", 14, "BLD006", "handled", "setup.py:13"),
        ("setup.py", 20, "BLD006", "handled", "setup.py:19"),
        ("setup.py", 26, "BLD006", "open", None),
        ("setup.py", 29, "BLD008", "open", None),
    ]


def test_setup_source_patterns_skip_comments_and_read_joins():
    data = (FIXTURE / "setuponly/setup.py").read_bytes()
    assert setup_source_patterns(parse("setup.py", "python", data).root) == ("pkg/ops.cu",)
    text = b'import os\nd = "x"\ns = [os.path.join(here, "a", f"{d}/k.cu"), "*.cpp"]\n'
    assert setup_source_patterns(parse("setup.py", "python", text).root) == ("*.cpp", "*/a/*/k.cu")
    # a name completed at run time matches any file with that ending
    text = b'srcs = [n + ".cu" for n in names] + [stem + "_k.cpp"]\n'
    assert setup_source_patterns(parse("setup.py", "python", text).root) == ("*.cu", "*_k.cpp")


def test_a_file_no_listed_source_includes_is_compiled_by_no_build():
    assert _statuses(FIXTURE / "setuponly") == [
        ("pkg/kernels/old.cu", 2, "KRN002", "cuda-only", UNBUILT),
        ("pkg/kernels/unused.cuh", 1, "KRN001", "cuda-only", UNBUILT),
        ("pkg/kernels/unused.cuh", 2, "DEV002", "cuda-only", UNBUILT),
        ("pkg/kernels/used.cuh", 1, "KRN001", "open", None),
        ("pkg/kernels/used.cuh", 2, "DEV002", "open", None),
        ("pkg/ops.cu", 2, "KRN002", "open", None),
        ("setup.py", 10, "BLD008", "open", None),
    ]


def test_another_build_or_a_runtime_compile_keeps_every_file_open(tmp_path):
    for name, path, text in (("script", "build.sh", "nvcc -c pkg/kernels/old.cu\n"),
                             ("jit", "pkg/jit.py", "from torch.utils.cpp_extension import load\n"),
                             ("cmake", "CMakeLists.txt", "add_library(x pkg/kernels/old.cu)\n")):
        root = tmp_path / name
        shutil.copytree(FIXTURE / "setuponly", root)
        (root / path).write_text(text)
        assert not [s for s in _statuses(root) if s[3] == "cuda-only"], name


def test_a_cmake_source_named_through_a_folder_variable():
    assert _statuses(FIXTURE / "cmakefolder") == [
        ("src/cc/fused/fused.cpp", 4, "KRN001", "open", None),
        ("src/cc/fused/fused.cpp", 5, "DEV002", "open", None),
        ("src/cc/fused/fused_tc.cu", 1, "KRN001", "handled", "src/cc/fused/fused.cmake:2"),
        ("src/cc/fused/fused_tc.cu", 2, "DEV002", "handled", "src/cc/fused/fused.cmake:2"),
    ]


def test_a_source_list_past_the_cap_bounds_nothing(tmp_path):
    """A setup.py naming more source patterns than any package lists (an attacker's 40,000 distinct wildcards made
    the per-pattern match the whole stage's cost) bounds nothing: every file is taken as built, and fast."""
    import time

    from porter.portaware.status import MAX_SOURCE_PATTERNS

    root = tmp_path / "many"
    shutil.copytree(FIXTURE / "setuponly", root)
    setup = root / "setup.py"
    many = ", ".join(f'"d{i}/*/*/*/*/*/*/q{i}.cu"' for i in range(MAX_SOURCE_PATTERNS))
    listed = 'os.path.join("pkg", "ops.cu"),'
    assert listed in setup.read_text()
    setup.write_text(setup.read_text().replace(listed, f"{listed} {many},"))
    start = time.monotonic()
    statuses = _statuses(root)
    assert time.monotonic() - start < 60
    assert ("pkg/kernels/old.cu", 2, "KRN002", "open", None) in statuses
    assert not any(s[3] == "cuda-only" for s in statuses)
