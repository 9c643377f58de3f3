"""The repository's ROCm build read as a whole (issue 27, session 29, dual): porter.portaware.rocmbuild's RocmBuild,
the hollow-arm gate on NVIDIA-build lines, and the vendor environment switches of a setup.py's tests. See
fixtures/rocmbuild_s29/README.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from porter.portaware.guards import python_spans
from porter.portaware.rocmbuild import (BuildEvidence, RocmBuild, arm_works, inert_runs, rocm_build, rocm_lines,
                                        runs_hipcc)

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/rocmbuild_s29"


def _scan(name: str):
    from porter.pipeline import run
    from porter.settings import Settings

    return run(FIXTURE / name, Settings(jobs=1, cache_dir=None)).result


@pytest.mark.parametrize("name, expected, rocm", [
    ("make_configs", [
        ("config/lunix-nvcc.mk", 2, "BLD007", "handled", "config/lunix-hipcc.mk"),
        ("config/lunix-nvcc.mk", 3, "BLD005", "handled", "config/lunix-hipcc.mk"),
        ("src/k.cu", 1, "KRN001", "open", None),
        ("target/Makefile", 3, "BLD007", "handled", "target/Makefile:3"),  # the test that opens the CUDA arm
        ("tools/Makefile", 1, "BLD007", "open", None),  # no ROCm test in this Makefile: no fork
    ], RocmBuild((BuildEvidence("target/Makefile:7", "make-arm"),
                  BuildEvidence("config/lunix-hipcc.mk:1", "make-configuration")),
                 ("config/lunix-hipcc.mk", "config/lunix-nvcc.mk", "target/Makefile"))),
    ("setup_branches", [
        ("ext/ext.cu", 1, "KRN001", "open", None),
        ("ext/setup.py", 10, "BLD006", "open", None),  # the Windows nvcc list no vendor test splits
        ("ext/setup.py", 12, "PYT030", "handled", "ext/setup.py:11"),
        ("ext/setup.py", 13, "BLD006", "handled", "ext/setup.py:11"),
        ("ext/setup.py", 14, "BLD006", "handled", "ext/setup.py:11"),
        ("ext/setup.py", 21, "BLD008", "open", None),
    ], RocmBuild((BuildEvidence("ext/setup.py:16", "python-branch"),), ("ext/setup.py",))),
    ("hollow_cmake", [
        ("CMakeLists.txt", 4, "BLD001", "open", None),
        ("CMakeLists.txt", 5, "BLD003", "open", None),
        ("CMakeLists.txt", 6, "BLD002", "open", None),
        ("src/k.cu", 1, "KRN001", "cuda-only", "CMakeLists.txt:3"),
    ], RocmBuild(hollow=("CMakeLists.txt:10",))),
    ("cmake_hip", [
        ("CMakeLists.txt", 4, "BLD001", "handled", "CMakeLists.txt:3"),
        ("CMakeLists.txt", 5, "BLD003", "handled", "CMakeLists.txt:3"),
        ("CMakeLists.txt", 6, "BLD002", "handled", "CMakeLists.txt:3"),
        ("src/k.cu", 1, "KRN001", "cuda-only", "CMakeLists.txt:3"),
        ("src/k.hip", 1, "KRN001", "handled", "src/k.hip"),
    ], RocmBuild((BuildEvidence("CMakeLists.txt:10", "cmake-arm"),), ("CMakeLists.txt",))),
    ("script_twins", [
        ("scripts/bench_cuda.sh", 2, "BLD007", "open", None),
        ("scripts/bench_cuda.sh", 2, "BLD005", "open", None),
        ("scripts/build_cuda.sh", 3, "BLD007", "handled", "scripts/build_hip.sh:3"),
        ("scripts/build_cuda.sh", 3, "BLD005", "handled", "scripts/build_hip.sh:3"),
        ("src/k.cu", 1, "KRN001", "open", None),
        ("tools/build_cuda.sh", 2, "BLD007", "open", None),
        ("tools/build_cuda.sh", 2, "BLD005", "open", None),
    ], RocmBuild((BuildEvidence("scripts/build_hip.sh:3", "build-twin"),),
                 ("scripts/build_cuda.sh", "scripts/build_hip.sh"))),
    ("mixed", [
        ("cpp/CMakeLists.txt", 5, "BLD001", "open", None),
        ("cpp/CMakeLists.txt", 6, "BLD003", "open", None),
        ("cpp/bench.cu", 1, "KRN001", "cuda-only", "cpp/CMakeLists.txt:4"),
        ("cpp/k.cu", 1, "KRN001", "open", None),
        ("setup.py", 8, "BLD006", "handled", "setup.py:5"),
        ("setup.py", 12, "BLD008", "open", None),
    ], RocmBuild((BuildEvidence("setup.py:5", "python-branch"),), ("setup.py",), ("cpp/CMakeLists.txt:10",))),
    ("bazel_incompatible", [
        # a Starlark repository rule's `if backend == "cuda":` beside its ROCm `else:` (the value a selector returns)
        ("bazel/ffmpeg_repo.bzl", 12, "BLD005", "handled", "bazel/ffmpeg_repo.bzl:11"),
        ("bazel/ffmpeg_repo.bzl", 16, "BLD005", "open", None),  # under a debug switch: no vendor test
        ("src/gpu/BUILD.bazel", 2, "BLD009", "handled", "src/gpu/BUILD.bazel:12"),  # loads only what line 4 calls
        ("src/gpu/BUILD.bazel", 2, "BLD009", "handled", "src/gpu/BUILD.bazel:12"),
        ("src/gpu/BUILD.bazel", 4, "BLD009", "handled", "src/gpu/BUILD.bazel:12"),
        ("src/gpu/BUILD.bazel", 8, "BLD004", "handled", "src/gpu/BUILD.bazel:12"),
        ("src/gpu/BUILD.bazel", 9, "BLD004", "handled", "src/gpu/BUILD.bazel:12"),
        ("src/gpu/blend.cu", 1, "KRN001", "open", None),
        ("tools/BUILD", 1, "BLD009", "open", None),  # no hipcc rule in tools/BUILD: nothing stands in for it
        ("tools/BUILD", 1, "BLD009", "open", None),
        ("tools/BUILD", 4, "BLD009", "open", None),
        ("tools/BUILD", 7, "BLD004", "open", None),
        ("tools/bench.cu", 1, "KRN001", "open", None),
    ], RocmBuild((BuildEvidence("src/gpu/BUILD.bazel:21", "hipcc-command"),), ("src/gpu/BUILD.bazel",))),
])
def test_each_rocmbuild_s29_finding_has_its_exact_status(name, expected, rocm):
    result = _scan(name)
    assert [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings] == expected
    assert result.port_status is not None and result.port_status.rocm_build == rocm


def test_the_json_port_status_shows_the_rocm_build_and_only_where_there_is_one():
    hollow = json.loads(json.dumps(_scan("hollow_cmake").to_dict()))["port_status"]
    assert hollow["rocm_build"] == {"present": False, "evidence": [], "covers": [], "hollow": ["CMakeLists.txt:10"]}
    ported = _scan("cmake_hip").to_dict()["port_status"]
    assert ported["rocm_build"] == {"present": True, "evidence": [{"where": "CMakeLists.txt:10", "kind": "cmake-arm"}],
                                    "covers": ["CMakeLists.txt"], "hollow": []}
    from porter.pipeline import run
    from porter.settings import Settings

    cuda_only = run(REPO / "fixtures/repos/cuda-app", Settings(jobs=1, cache_dir=None)).result.to_dict()
    assert "rocm_build" not in cuda_only["port_status"]


def test_an_arm_works_when_it_configures_anything():
    assert not arm_works("cmake", ["  # TODO", '  message(STATUS "no HIP yet")', "", "  if(X)", "  endif()"])
    assert arm_works("cmake", ["  enable_language(HIP)"])
    assert arm_works("cmake", ['  message(STATUS "HIP")', "  set(GPU_TARGETS gfx942)"])
    assert not arm_works("make", ["# the AMD build", "$(error HIP is not supported)", "ifeq ($(X),1)", "endif"])
    assert arm_works("make", ["CXX = hipcc"])
    assert not arm_works("python", ['    raise RuntimeError(', '        "ROCm is not supported"', "    )", "    # no"])
    assert not arm_works("python", ["    pass", '    print("cpu only")', "    sys.exit(1)"])
    assert arm_works("python", ['    args["hipcc"] = ["-O3"]'])


def test_rocm_build_reads_hip_language_and_hipcc_outside_cuda_arms_never_hip_on_nvidia():
    texts = {
        "CMakeLists.txt": "project(app LANGUAGES CXX HIP)\n",
        "cuda/CMakeLists.txt": "if(USE_CUDA)\n  enable_language(HIP)\nendif()\n",
        "build_hip.sh": "# hipcc is the compiler\nhipcc -O3 --offload-arch=gfx942 -c k.hip\n",
        "nv/Makefile": "CXX = hipcc\nCXXFLAGS = -D__HIP_PLATFORM_NVIDIA__\n",
    }
    languages = {"CMakeLists.txt": "cmake", "cuda/CMakeLists.txt": "cmake", "build_hip.sh": "shell",
                 "nv/Makefile": "make"}
    got = rocm_build(languages, {}, {"cuda/CMakeLists.txt": [(1, 3)]}, (), {},
                     {p: inert_runs(languages[p], t) for p, t in texts.items()},
                     {p: rocm_lines(languages[p], t) for p, t in texts.items()})
    assert got == RocmBuild((BuildEvidence("CMakeLists.txt:1", "hip-language"),
                             BuildEvidence("build_hip.sh:2", "hipcc-command")), ("CMakeLists.txt", "build_hip.sh"))
    assert got.present and not got.hollow_only


def test_inert_runs_and_rocm_lines_are_what_a_build_files_facts_keep():
    text = "# hip\nif(USE_HIP)\n  message(STATUS hip)\n  enable_language(HIP)\nendif()\n"
    assert inert_runs("cmake", text) == ((1, 3), (5, 6))
    assert rocm_lines("cmake", text) == (4,)
    assert rocm_lines("make", "HIPCC = hipcc\n# hipcc\nall:\n\thipcc -c k.hip\n") == (1, 4)
    assert rocm_lines("shell", "export HIP_PLATFORM=nvidia\nhipcc -c k.cpp\n") == ()


def test_runs_hipcc_reads_commands_and_assignments_never_comments_or_hip_on_nvidia():
    assert runs_hipcc("#!/bin/sh\nhipcc -O3 -c k.hip\n")
    assert runs_hipcc("CXX := amdclang++\n")
    assert not runs_hipcc("# hipcc is not supported yet\nexit 1\n")
    assert not runs_hipcc("HIPCC_FLAGS = -O3\n")  # a variable named for it runs nothing
    assert not runs_hipcc("export HIP_PLATFORM=nvidia\nhipcc -c k.cpp\n")


def test_a_vendor_environment_switch_is_cuda_only_beside_its_rocm_twin():
    paired = (b"import os\n"
              b"if torch.version.cuda is not None or os.getenv('FORCE_CUDA', '0') == '1':\n"  # 2
              b"    a = 1\n"
              b"elif torch.version.hip is not None or os.environ.get('FORCE_ROCM') == '1':\n"  # 4
              b"    a = 2\n")
    # the elif's own ROCm test (4); the if's CUDA branch (2), and its false side, the elif, ROCm's: the `or` is
    # false only where torch.version.cuda is None
    assert [(s.line, s.start, s.side) for s in python_spans(paired)] == [
        (4, (5, 5), "rocm"), (2, (3, 5), "cuda"), (2, (4, 1), "rocm")]
    # alone, FORCE_CUDA=1 means "build the GPU extension" on a ROCm torch too: no vendor test
    alone = (b"import os\n"
             b"if torch.cuda.is_available() or os.getenv('FORCE_CUDA', '0') == '1':\n"
             b"    a = 1\n")
    assert python_spans(alone) == []
    # a switch set to a false value asks for nothing
    off = (b"if os.getenv('FORCE_ROCM') == '0':\n"
           b"    a = 1\n")
    assert python_spans(off) == []


def test_an_arm_split_by_a_nested_test_is_one_arm_that_works_if_any_part_does():
    text = ("if(USE_HIP)\n"                          # 1
            '  message(STATUS "HIP")\n'              # 2
            "  if(NOT HIP_FOUND)\n"                  # 3
            '    message(FATAL_ERROR "no hip")\n'    # 4
            "  endif()\n"                            # 5
            "  enable_language(HIP)\n"               # 6
            "endif()\n"
            "if(WITH_ROCM_MESSAGES)\n"               # 8
            '  message(STATUS "ROCm")\n'             # 9
            "endif()\n")
    arms = {"CMakeLists.txt": [(2, 2, 1), (4, 4, 1), (6, 6, 1), (9, 9, 8)]}
    got = rocm_build({"CMakeLists.txt": "cmake"}, arms, {}, (), {}, {"CMakeLists.txt": inert_runs("cmake", text)}, {})
    assert got == RocmBuild((BuildEvidence("CMakeLists.txt:1", "cmake-arm"),), ("CMakeLists.txt",),
                            ("CMakeLists.txt:8",))


def test_hollowness_is_read_per_build():
    rb = RocmBuild((BuildEvidence("setup.py:5", "python-branch"), BuildEvidence("make/Makefile:3", "make-arm")),
                   ("make/Makefile", "setup.py"), ("cpp/CMakeLists.txt:10", "make/Makefile:9", "tools/Makefile:2"))
    assert rb.hollow_for("cpp/CMakeLists.txt")        # the CMake project: a hollow arm, no CMake evidence
    assert rb.hollow_for("cmake/cuda.cmake")          # ... which every CMake file of it shares
    assert not rb.hollow_for("make/Makefile")         # a hollow arm beside a working one in the same Makefile
    assert rb.hollow_for("tools/Makefile")            # a Makefile of its own with a hollow arm only
    assert not rb.hollow_for("setup.py")
    assert not rb.hollow_for("other/Makefile")        # no ROCm arm at all: nothing hollow to read
    with_cmake = RocmBuild((BuildEvidence("src/CMakeLists.txt:4", "cmake-arm"),), ("src/CMakeLists.txt",),
                           ("cpp/CMakeLists.txt:10",))
    assert not with_cmake.hollow_for("cpp/CMakeLists.txt")  # another CMake file of the project builds for ROCm


def test_a_bazel_target_the_rocm_build_leaves_out_is_a_cuda_region_only_beside_a_hipcc_rule():
    from porter.portaware.bazel import incompatible_regions

    target = ('load("@rules_cuda//cuda:defs.bzl", "cuda_library")\n'
              'cuda_library(\n    name = "k",\n    copts = ["-Xcompiler=-fPIC"],  # (nvcc)\n'
              '    target_compatible_with = select({\n        "@//:use_rocm": ["@platforms//:incompatible"],\n'
              '        "//conditions:default": [],\n    }),\n)\n')
    rule = 'genrule(\n    name = "k_hip",\n    cmd = "hipcc -c $(SRCS) -o $@",\n)\n'
    assert incompatible_regions(target + rule) == ((1, 1, "cuda", 6), (2, 9, "cuda", 6))
    assert incompatible_regions(target) == ()  # no ROCm rule here
    assert incompatible_regions(target + "# hipcc later\n") == ()  # a comment runs nothing
    # incompatible on the CUDA configuration, or not by target_compatible_with: no ROCm fork
    assert incompatible_regions(target.replace("use_rocm", "use_cuda") + rule) == ()
    assert incompatible_regions(target.replace("target_compatible_with", "exec_compatible_with") + rule) == ()
    # a load whose rule another target calls too stays the file's own
    other = 'cuda_library(\n    name = "both",\n)\n'
    assert incompatible_regions(target + other + rule) == ((2, 9, "cuda", 6),)
