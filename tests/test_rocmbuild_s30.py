"""The repository's ROCm build read per build system (issue 27, session 30, dualb): RocmBuild's wider evidence
(ROCm's HIP package, amdclang and --offload-arch, ROCm Dockerfiles and CI jobs that build), RocmBuild.stands_in, and
status.by_rocm_build on NVIDIA-build and NVIDIA launch lines. See fixtures/rocmbuild_s30/README.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.portaware.rocmbuild import (BuildEvidence, RocmBuild, build_system, cmake_project, launches, rocm_build,
                                        rocm_lines, rocm_tool_lines)

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/rocmbuild_s30"


def _scan(name: str):
    from porter.pipeline import run
    from porter.settings import Settings

    return run(FIXTURE / name, Settings(jobs=1, cache_dir=None)).result


@pytest.mark.parametrize("name, expected, rocm", [
    ("cmake_projects", [
        ("CMakeLists.txt", 4, "BLD002", "open", None),  # toolkit-requirement outside an arm
        ("cmake/flags.cmake", 2, "BLD004", "handled", "CMakeLists.txt:6"),
        ("cmake/flags.cmake", 2, "BLD004", "handled", "CMakeLists.txt:6"),
        ("cmake/flags.cmake", 3, "BLD003", "handled", "CMakeLists.txt:6"),
        ("codec/CMakeLists.txt", 2, "BLD001", "open", None),  # a CMake project of its own, no ROCm evidence
        ("codec/CMakeLists.txt", 3, "BLD003", "open", None),
        ("codec/codec.cu", 1, "KRN001", "open", None),
        ("src/k.cu", 1, "KRN001", "open", None),
    ], RocmBuild((BuildEvidence("CMakeLists.txt:6", "cmake-arm"),), ("CMakeLists.txt",))),
    ("kinds", [
        ("CMakeLists.txt", 4, "BLD003", "handled", "CMakeLists.txt:3"),
        ("docker/cuda/Dockerfile", 1, "CTR001", "open", None),  # the container rules' own
        ("docker/cuda/Dockerfile", 2, "BLD005", "handled", "docker/Dockerfile.rocm:1"),
        ("docker/cuda/Dockerfile", 4, "BLD007", "handled", "docker/Dockerfile.rocm:1"),
        ("src/k.cpp", 2, "KRN001", "open", None),
        ("tools/Dockerfile", 1, "CTR001", "open", None),
        ("tools/Dockerfile", 2, "BLD005", "open", None),  # no ROCm Dockerfile in tools/ or above it
    ], RocmBuild((BuildEvidence(".github/workflows/rocm.yml:5", "ci-job"),
                  BuildEvidence("CMakeLists.txt:3", "hip-language"),
                  BuildEvidence("amd/build.sh:3", "hipcc-command"),
                  BuildEvidence("docker/Dockerfile.rocm:1", "docker-image")),
                 (".github/workflows/rocm.yml", "CMakeLists.txt", "amd/build.sh", "docker/Dockerfile.rocm"))),
    ("launch", [
        ("scripts/archive/nvbox/build_nvbox.sh", 3, "PYT006", "handled", "scripts/profile_rocprof.sh:3"),
        ("scripts/archive/nvbox/build_nvbox.sh", 4, "BLD007", "open", None),  # builds, launches nothing
        ("scripts/archive/nvbox/build_nvbox.sh", 4, "BLD005", "open", None),
        ("scripts/archive/nvbox/run_nvbox.sh", 3, "CTR002", "handled", "scripts/profile_rocprof.sh:3"),
        ("scripts/archive/nvbox/run_nvbox.sh", 4, "CTR003", "handled", "scripts/profile_rocprof.sh:3"),
        ("scripts/archive/nvbox/run_nvbox.sh", 5, "BLD005", "handled", "scripts/profile_rocprof.sh:3"),
        ("scripts/archive/nvbox/run_nvbox.sh", 6, "PYT006", "handled", "scripts/profile_rocprof.sh:3"),
        ("scripts/archive/nvbox/run_nvbox.sh", 6, "PYT006", "handled", "scripts/profile_rocprof.sh:3"),
        ("src/k.cu", 1, "KRN001", "open", None),
        ("tools/run_nv.sh", 2, "CTR002", "open", None),  # no ROCm script in tools/ or above it
        ("tools/run_nv.sh", 2, "CTR003", "open", None),
    ], None),
])
def test_each_rocmbuild_s30_finding_has_its_exact_status(name, expected, rocm):
    result = _scan(name)
    assert [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in result.findings] == expected
    assert result.port_status is not None and result.port_status.rocm_build == rocm


def test_rocm_lines_read_the_new_evidence_kinds():
    assert rocm_lines("cmake", "find_package(hip REQUIRED)\n# hipcc\nset(CMAKE_CXX_COMPILER hipcc)\n"
                               "set(CMAKE_HIP_ARCHITECTURES gfx942)\nset(F --offload-arch=gfx950)\nmessage(\"HIP: ${CMAKE_HIP_ARCHITECTURES} hipcc\")\n"
                               "find_program(HIPCC hipcc)\n") == (1, 3, 4, 5)  # a message or a probe builds nothing
    assert rocm_lines("shell", "CC=amdclang\namdclang++ -x hip k.cpp\nclang++ --offload-arch=gfx942 k.cpp\n"
                               "hipconfig --platform\n# hipcc\n") == (1, 2, 3)
    assert rocm_lines("make", "CXX = amdclang++\nCXXFLAGS = -D__HIP_PLATFORM_NVIDIA__\n") == ()  # HIP on NVIDIA
    # a Dockerfile: the FROM line of each ROCm stage that builds, not one that only runs
    assert rocm_lines("dockerfile", "FROM nvidia/cuda:12.4.0-devel AS nv\nRUN make\n"
                                    "FROM rocm/dev-ubuntu-22.04 AS amd\n# cmake\nRUN pip install -e .\nRUN make\n"
                                    "FROM rocm/pytorch:latest\nCMD python app.py\n") == (3,)
    assert rocm_lines("dockerfile", "FROM ghcr.io/x/base:rocm6.2\nRUN python setup.py install\n") == (1,)
    # a CI file: its ROCm image and AMD runner lines, only when it builds
    assert rocm_lines("ci", "jobs:\n  b:\n    runs-on: [self-hosted, mi300]\n    container:\n"
                            "      image: rocm/dev-ubuntu-22.04\n    steps:\n      - run: cmake --build build\n") == (3, 5)
    assert rocm_lines("ci", "jobs:\n  d:\n    container:\n      image: rocm/dev-ubuntu-22.04\n"
                            "    steps:\n      - run: mkdocs build\n") == ()
    assert rocm_lines("ci", "jobs:\n  b:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n") == ()


def test_rocm_tool_lines_and_launchers():
    text = "#!/bin/bash\n# rocprof in a comment\nexport ROCR_VISIBLE_DEVICES=0\nrocprof-compute profile -- ./app\n" \
           "rocm-smi --showuse\nls /opt/rocm/lib\nnvidia-smi\n"
    assert rocm_tool_lines(text) == (3, 4, 5, 6)
    assert rocm_tool_lines("export HIP_PLATFORM=nvidia\nrocm-smi\n") == ()
    assert launches("exec docker run --rm --gpus all img\n") and launches("srun -n 4 ./app\n")
    assert launches("podman container run img\n")
    assert not launches("# docker run img\n") and not launches("./docker_run_helper.sh\n")


def test_build_system_and_cmake_project_of_a_path():
    assert [build_system(p) for p in ("CMakeLists.txt", "cmake/x.cmake", "meson.build", "lib/BUILD", "x/BUILD.bazel",
                                      "defs.bzl", "docker/Dockerfile.rocm", "rocm.dockerfile",
                                      ".github/workflows/ci.yml", ".gitlab-ci.yml", "Makefile", "build.sh",
                                      "setup.py")] == [
        "cmake", "cmake", "meson", "bazel", "bazel", "bazel", "dockerfile", "dockerfile", "ci", "ci", "", "", ""]
    projects = frozenset({"", "codec", "codec/inner"})
    assert cmake_project("cmake/flags.cmake", projects) == ""
    assert cmake_project("codec/sub/CMakeLists.txt", projects) == "codec"
    assert cmake_project("codec/inner/CMakeLists.txt", projects) == "codec/inner"
    assert cmake_project("other/CMakeLists.txt", frozenset({"codec"})) == ""


def test_stands_in_reads_each_build_system_on_its_own():
    build = RocmBuild((BuildEvidence("CMakeLists.txt:6", "cmake-arm"), BuildEvidence("gpu/BUILD:9", "hipcc-command"),
                       BuildEvidence("docker/Dockerfile.rocm:1", "docker-image"),
                       BuildEvidence("meson.build:12", "meson-arm")))
    projects = frozenset({"", "codec"})
    assert build.stands_in("cmake/flags.cmake", projects) == "CMakeLists.txt:6"
    assert build.stands_in("codec/CMakeLists.txt", projects) is None  # a project of its own
    assert build.stands_in("src/meson.build") is None  # a Meson file is read on its own
    assert build.stands_in("gpu/BUILD") == "gpu/BUILD:9"
    assert build.stands_in("tools/BUILD") is None  # another Bazel package
    assert build.stands_in("gpu/defs.bzl") is None  # a macro file defines rules
    assert build.stands_in("docker/cuda/Dockerfile") == "docker/Dockerfile.rocm:1"
    assert build.stands_in("Dockerfile") is None  # above the ROCm Dockerfile, not below it
    assert build.stands_in(".github/workflows/ci.yml") is None  # no CI evidence
    assert build.stands_in("Makefile") is None and build.stands_in("build.sh") is None
    assert build.stands_in("setup.py") is None
    # a CMake build with no CMake evidence (qsim's Bazel beside a CMake ROCm build, read the other way round)
    assert RocmBuild((BuildEvidence("setup.py:5", "python-branch"),)).stands_in("CMakeLists.txt") is None


def test_rocm_build_takes_dockerfile_and_ci_evidence_from_their_facts():
    languages = {"docker/Dockerfile.rocm": "dockerfile", ".gitlab-ci.yml": "ci", "Dockerfile": "dockerfile"}
    lines = {"docker/Dockerfile.rocm": (1,), ".gitlab-ci.yml": (7,)}
    got = rocm_build(languages, {}, {}, (), {}, {}, lines)
    assert got == RocmBuild((BuildEvidence(".gitlab-ci.yml:7", "ci-job"),
                             BuildEvidence("docker/Dockerfile.rocm:1", "docker-image")),
                            (".gitlab-ci.yml", "docker/Dockerfile.rocm"))
