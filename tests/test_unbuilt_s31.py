"""Files no build compiles, read from Makefile object lists behind static pattern rules and from torch JIT `load()`
source lists (issue 27, session 31, helper prec47: porter.portaware.status.unbuilt_sources). fixtures/unbuilt_s31
holds one project per build kind (its README says what each line is)."""
from __future__ import annotations

from pathlib import Path

from porter.portaware.status import _MAKE_OPEN, _lists_no_sources, _make_reading, jit_load_sources

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/unbuilt_s31"


def _result(root: Path):
    from porter.pipeline import run
    from porter.settings import Settings

    return run(root, Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result


def _rows(root: Path):
    r = _result(root)
    return ([(f.path, f.line, f.rule, str(f.status)) for f in r.findings],
            [(k.path, k.name, str(k.verdicts[0].verdict)) for k in r.kernels])


def test_a_makefile_pattern_rule_source_tree_is_its_scope_and_unlisted_objects_are_unbuilt():
    findings, kernels = _rows(FIXTURE / "make")
    assert findings == [("config.mk", 1, "BLD007", "open"),
                        ("src/kernels/spare.cu", 1, "KRN001", "cuda-only"),
                        ("src/kernels/spare.cu", 3, "DEV011", "cuda-only"),
                        ("src/kernels/spare.cu", 4, "DEV002", "cuda-only"),
                        ("src/kernels/used.cu", 1, "KRN001", "open"),
                        ("src/kernels/used.cu", 3, "DEV011", "open"),
                        ("src/kernels/used.cu", 4, "DEV002", "open")]
    assert kernels == [("src/kernels/spare.cu", "reduce_kernel", "ok"), ("src/kernels/used.cu", "reduce_kernel", "fix")]
    text = (FIXTURE / "make/Makefile").read_text()
    stems, scope, open_ended = _make_reading("Makefile", text, {"", "src", "src/kernels"},
                                             frozenset({"Makefile", "config.mk"}))
    assert (scope, open_ended) == ({"\0", "src"}, False)
    assert "spare" not in stems and "used" in stems


def test_listing_commands_that_name_folders_or_libraries_leave_a_make_list_closed():
    def opens(text: str) -> list[bool]:
        return [not _lists_no_sources(m) for m in _MAKE_OPEN().finditer(text)]

    assert opens("\t@mkdir -p $(foreach d,$(shell find src -mindepth 1 | grep -v \"\\.\"),$@/$(d))\n") == [False]
    assert opens("DIRS := $(shell find src -type d)\n") == [False]
    assert opens("LIBS = $(shell ls $(VTK_DIR)/lib/libvtk*-$(VTK_VERSION).so | sed s/x/y/)\n") == [False]
    # a listing that may name sources keeps the list open
    assert opens("SRCS := $(shell find src -name '*.cu')\n") == [True, True]  # the listing and its glob
    assert opens("SRCS := $(shell ls src)\n") == [True]


def test_jit_load_sources_reads_literal_lists_and_refuses_anything_else():
    assert jit_load_sources((FIXTURE / "jit/src/model.py").read_text()) == ["cuda/used.cu"]
    assert jit_load_sources('load("m", ["./a.cu", "b.cpp"])\n') == ["a.cu", "b.cpp"]
    for text in ('load(name="m", sources=srcs)\n',                            # computed list
                 'load(name="m", sources=["a.cu"])\nextra = "b.cu"\n',         # another source named
                 'load_inline(name="m", cpp_sources=[src])\n',
                 'import cupy\ncupy.RawModule(code=src)\n',
                 'import subprocess\nload(name="m", sources=["a.cu"])\n',
                 'from torch.utils.cpp_extension import CUDA_HOME\n',          # builds nothing it lists
                 'load(name="m", sources=["a.cu"]\n'):                         # not Python
        assert jit_load_sources(text) is None, text


def test_jit_loaded_sources_bound_the_build_and_an_unnamed_file_is_unbuilt():
    findings, kernels = _rows(FIXTURE / "jit")
    assert findings == [("cuda/spare.cu", 1, "KRN001", "cuda-only"),
                        ("cuda/spare.cu", 3, "DEV011", "cuda-only"),
                        ("cuda/spare.cu", 4, "DEV002", "cuda-only"),
                        ("cuda/used.cu", 1, "KRN001", "open"),
                        ("cuda/used.cu", 3, "DEV011", "open"),
                        ("cuda/used.cu", 4, "DEV002", "open"),
                        ("src/model.py", 6, "BLD006", "open")]
    assert kernels == [("cuda/spare.cu", "reduce_kernel", "ok"), ("cuda/used.cu", "reduce_kernel", "fix")]
    r = _result(FIXTURE / "jit")
    assert {f.handled_by for f in r.findings if f.path == "cuda/spare.cu"} == {
        "no build compiles it: src/model.py lists the sources it compiles and none of them includes it"}
