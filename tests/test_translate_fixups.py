"""What makes a translation compile on real projects: the fixups post-pass, definition scopes, build information,
build-file migration (exact output, and a real `cmake` configure where the machine allows) and verify's causes."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from conftest import FIXTURES
from porter.translate import TranslateError, TranslateOptions, translate
from porter.translate import verify as verify_mod
from porter.translate.buildinfo import build_info, cmake_include_dirs
from porter.translate.fixups import fix_file, load_fixups
from porter.translate.model import FileTranslation
from porter.translate.write import write_tree

BUILTIN = TranslateOptions(engine="builtin")


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "src"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return root


def _rules(ft, *rules):
    hits = sorted((f for f in (*ft.unconverted, *ft.warnings) if f.rule in rules), key=lambda f: (f.line, f.rule, f.column))
    return [(f.rule, f.line, dict(f.data)["name"]) for f in hits]


def test_guards_versions_headers_and_shims_are_fixed_and_reported(tmp_path):
    root = _tree(tmp_path, {
        "common/helper.h": """\
            #pragma once
            #include <builtin_types.h>
            #ifdef __DRIVER_TYPES_H__
            inline int helperReady() { return 1; }
            #endif
            #if defined(__CUDA_RUNTIME_H__) && CUDART_VERSION >= 4000
            inline int findDevice() { return 0; }
            #endif
            """,
        "app/k.cu": """\
            #include <cuda_runtime.h>
            #include "../common/helper.h"
            __global__ void k(unsigned* c, const int* in, int* out) {
              out[0] = __any_sync(0xffffffff, in[threadIdx.x]);
              atomicInc_system(c, 10u);
              out[1] = umin(1u, 2u);
            }
            void f(cudaDeviceProp p, int* h) { cudaHostAlloc(&h, 4, cudaHostAllocDefault); (void)p.unifiedAddressing; }
            """,
    })
    result = translate(root, BUILTIN)
    helper = result.file("common/helper.h")
    assert helper.output.decode().splitlines() == [
        '#include "../porter_hip_compat.h"  /* porter: shims for CUDA names HIP lacks */',
        "#pragma once",
        "#include <hip/hip_runtime_api.h>",
        "#ifdef HIP_INCLUDE_HIP_DRIVER_TYPES_H",
        "inline int helperReady() { return 1; }",
        "#endif",
        "#if defined(HIP_INCLUDE_HIP_HIP_RUNTIME_H) && PORTER_CUDART_VERSION >= 4000",
        "inline int findDevice() { return 0; }",
        "#endif",
    ]
    # (builtin_types.h is in the knowledge base's header map since the port needed it: the engine renames it, so
    # the fix-up pass has nothing left to report there)
    assert _rules(helper, "TRN016", "TRN012") == [
        ("TRN016", 3, "__DRIVER_TYPES_H__"), ("TRN016", 6, "__CUDA_RUNTIME_H__"), ("TRN016", 6, "CUDART_VERSION")]
    assert helper.line_shift == 1
    k = result.file("app/k.cu")
    body = k.output.decode().splitlines()
    assert body[:2] == ['#include "../porter_hip_compat.h"  /* porter: shims for CUDA names HIP lacks */',
                        "#include <hip/hip_runtime.h>"]
    assert body[4:7] == ["  out[0] = porter_any_sync(0xffffffff, in[threadIdx.x]);",
                         "  porter_atomicInc_system(c, 10u);", "  out[1] = porter_umin(1u, 2u);"]
    assert body[8] == ("void f(hipDeviceProp_t p, int* h) { hipHostAlloc(reinterpret_cast<void**>(&h), 4, "
                       "hipHostMallocDefault); (void)p.unifiedAddressing; }")
    assert _rules(k, "TRN016", "TRN017", "TRN019") == [
        ("TRN017", 4, "__any_sync"), ("TRN017", 5, "atomicInc_system"), ("TRN017", 6, "umin"),
        ("TRN016", 8, "hipHostAlloc"), ("TRN019", 8, "unifiedAddressing")]
    compat = result.file("porter_hip_compat.h").output.decode()
    assert "porter_any_sync(unsigned long long mask, int pred)" in compat
    assert "porter_atomicInc_system(unsigned int* address, unsigned int val)" in compat
    assert "porter_all_sync" not in compat  # only the shims used
    # --no-fixups: the engine's output as it was
    raw = translate(root, TranslateOptions(engine="builtin", fixups=False))
    assert b"#ifdef __DRIVER_TYPES_H__" in raw.file("common/helper.h").output and raw.file("porter_hip_compat.h") is None


def test_a_macro_the_project_defines_where_the_file_sees_it_is_left_alone(tmp_path):
    root = _tree(tmp_path, {
        "dyn/own_cuda.h": "#define CUDA_VERSION 3020\ntypedef int CUdevice;\n",
        "dyn/main.cpp": '#include "own_cuda.h"\nint v = CUDA_VERSION; CUdevice d;\n',
        "drv/main.cpp": "#include <cuda.h>\nint v = CUDA_VERSION; CUdevice d;\n",
    })
    result = translate(root, BUILTIN)
    # the dynamic-loading sample's own CUDA_VERSION and CUdevice are its own...
    assert result.file("dyn/main.cpp").output == b'#include "own_cuda.h"\nint v = CUDA_VERSION; CUdevice d;\n'
    # ...and the other sample's are CUDA's: renamed (definitions are scoped by the include graph, not global)
    assert result.file("drv/main.cpp").output == (
        b'#include "../porter_hip_compat.h"  /* porter: shims for CUDA names HIP lacks */\n'
        b"#include <hip/hip_runtime.h>\nint v = PORTER_CUDA_VERSION; hipDevice_t d;\n")


def test_hipify_output_gets_the_knowledge_base_renames_it_missed():
    fix = load_fixups()
    from porter.kb import load_kb
    from porter.translate.engines.builtin import Classifier

    ft = FileTranslation(path="a.cpp", status="translated", original=b"CUdevice d; CUresult r;\n",
                         output=b"#include <builtin_types.h>\nCUdevice d; hipError_t r;\n")
    new, shims = fix_file(ft, fix, set(), lambda *a: False, Classifier(load_kb(), set(), None))
    assert new.output == b"#include <hip/hip_runtime_api.h>\nhipDevice_t d; hipError_t r;\n" and shims == set()
    assert [(f.rule, f.line, dict(f.data)["name"]) for f in new.warnings] == [
        ("TRN016", 1, "builtin_types.h"), ("TRN016", 2, "CUdevice")]


def test_compile_commands_give_each_unit_its_flags(tmp_path):
    root = _tree(tmp_path, {"src/a.cu": "int a;\n", "inc/x.h": "\n"})
    db = tmp_path / "build" / "compile_commands.json"
    db.parent.mkdir()
    db.write_text(json.dumps([
        {"directory": str(tmp_path / "build"), "file": str(root / "src/a.cu"),
         "arguments": ["nvcc", "-I../src/inc", "-I", "/opt/x/include", "-DN=4", "-D", "FAST", "-std=c++20", "-c", "a.cu"]},
        {"directory": str(tmp_path / "build"), "command": f"g++ -I{root}/inc -c {tmp_path}/elsewhere.cpp",
         "file": str(tmp_path / "elsewhere.cpp")},
    ]))
    info = build_info(root, ["src/a.cu", "inc/x.h"], includes=[str(root / "inc")], defines=["EXTRA=1"],
                      database=db.parent)
    flags = info.flags_for("src/a.cu")
    assert flags.includes == ("inc", "/opt/x/include")
    assert flags.defines == ("N=4", "FAST", "EXTRA=1") and flags.std == "c++20"
    assert list(info.units) == ["src/a.cu"]  # the entry for a file outside the tree is not the project's
    assert info.resolve("src/a.cu", "x.h", quoted=False) == "inc/x.h"


def test_cmake_include_directories_are_found_without_a_database(tmp_path):
    root = _tree(tmp_path, {
        "Common/helper.h": "\n",
        "Samples/a/CMakeLists.txt": "include_directories(../../Common)  # shared\n"
                                    "target_include_directories(a PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/inc $<BUILD_INTERFACE:x>)\n",
        "Samples/a/inc/h.h": "\n",
        "Samples/a/a.cu": "#include <helper.h>\n",
    })
    files = ["Common/helper.h", "Samples/a/CMakeLists.txt", "Samples/a/inc/h.h", "Samples/a/a.cu"]
    assert cmake_include_dirs(root, files) == {"Samples/a": ("Common", "Samples/a/inc")}
    info = build_info(root, files)
    assert info.include_dirs("Samples/a/a.cu") == ["Common", "Samples/a/inc"]
    assert info.resolve("Samples/a/a.cu", "helper.h", quoted=False) == "Common/helper.h"


@pytest.mark.parametrize("kwargs, message", [
    ({"defines": ["1BAD"]}, "-D '1BAD': want NAME or NAME=VALUE"),
    ({"std": "c++99"}, "--std 'c++99': want a C++ standard such as c++17 or gnu++20"),
    ({"includes": ["/no/such/dir"]}, "-I /no/such/dir: not a directory"),
])
def test_bad_build_information_is_a_usage_error(tmp_path, kwargs, message):
    with pytest.raises(TranslateError) as e:
        build_info(tmp_path, [], **kwargs)
    assert str(e.value) == message


def test_a_compilation_database_that_is_not_a_list_is_refused(tmp_path):
    db = tmp_path / "compile_commands.json"
    db.write_text('{"file": "a.cu"}')
    with pytest.raises(TranslateError) as e:
        build_info(tmp_path, [], database=db)
    assert str(e.value) == f"{db}: a compilation database is a JSON list of entries"


def test_build_files_are_migrated_with_a_finding_per_change():
    result = translate(FIXTURES / "translate" / "buildsys", TranslateOptions(engine="builtin", targets=("mi300x",)))
    cm = result.file("CMakeLists.txt")
    text = cm.output.decode()
    assert "set(CMAKE_HIP_ARCHITECTURES gfx942)" in text and "project(saxpy LANGUAGES CXX HIP)" in text
    assert [(f.line, dict(f.data)["name"][:24]) for f in cm.warnings] == [
        (2, "CMAKE_HIP_ARCHITECTURES"), (2, "project(saxpy LANGUAGES "), (4, "find_package(CUDAToolkit"),
        (6, "set(CMAKE_CUDA_ARCHITECT"), (7, "CMAKE_CUDA_FLAGS"), (7, "CMAKE_CUDA_FLAGS"), (7, 'set(CMAKE_CUDA_FLAGS "${'),
        (8, "CMAKE_CUDA_STANDARD"), (13, "$<$<COMPILE_LANGUAGE:CUD"), (14, "CUDA::cudart"),
        (15, "CUDA_SEPARABLE_COMPILATI"), (18, "LANGUAGE HIP")]
    assert text.splitlines()[1] == 'set(CMAKE_HIP_ARCHITECTURES "gfx942" CACHE STRING "AMD GPU targets")'
    assert {f.rule for f in cm.warnings} == {"TRN018"}
    mk = result.file("Makefile").output.decode().splitlines()
    assert mk[4] == "\thipcc -O3 --offload-arch=gfx942 -gline-tables-only -fopenmp -Wall -Iinclude -o $@ $^ -lamdhip64 -lhipblas"
    setup = result.file("setup.py")
    assert setup.output == setup.original and [(f.line, dict(f.data)["name"]) for f in setup.warnings] == [
        (2, "CUDAExtension"), (2, "BuildExtension")]


def _hip_cmake() -> tuple[str, str] | None:
    lang = Path("/usr/lib/x86_64-linux-gnu/cmake/hip-lang/hip-lang-config.cmake")
    clang = shutil.which("clang++-15")
    if shutil.which("cmake") and clang and lang.is_file():
        return clang, str(lang.parent.parent)
    return None


@pytest.mark.slow
@pytest.mark.skipif(_hip_cmake() is None, reason="needs cmake, clang++-15 and Debian's hip-lang CMake package")
def test_the_migrated_cmake_project_configures_with_the_hip_language(tmp_path):
    clang, cmake_dir = _hip_cmake()
    out = tmp_path / "hip"
    write_tree(translate(FIXTURES / "translate" / "buildsys", TranslateOptions(engine="builtin", targets=("gfx90a",))), out)
    # CMake 3.25 looks for hip-lang under <ROCm root>/lib/cmake; Debian installs it under the multiarch directory,
    # so a ROCm root of links stands in (the configure, not the links, is under test).
    rocm = tmp_path / "rocm" / "lib" / "cmake"
    rocm.mkdir(parents=True)
    for pkg in ("hip-lang", "hip", "amd_comgr"):
        if (Path(cmake_dir) / pkg).exists():
            (rocm / pkg).symlink_to(Path(cmake_dir) / pkg)
    r = subprocess.run(["cmake", "-S", str(out), "-B", str(tmp_path / "build"), f"-DCMAKE_HIP_COMPILER={clang}",
                        f"-DCMAKE_HIP_COMPILER_ROCM_ROOT={tmp_path / 'rocm'}", "-DCMAKE_HIP_FLAGS=--rocm-path=/usr"],
                       capture_output=True, text=True, timeout=600,
                       env={**os.environ, "CMAKE_PREFIX_PATH": str(tmp_path / "rocm"), "TMPDIR": str(tmp_path)})
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    cache = (tmp_path / "build" / "CMakeCache.txt").read_text()
    assert "CMAKE_HIP_ARCHITECTURES:STRING=gfx90a" in cache.splitlines()
    assert "-- Generating done" in r.stdout


def test_each_failure_has_one_cause(tmp_path):
    comp = verify_mod.Compiler("hipcc", "/usr/bin/hipcc", "gfx950", hip_version="5.2")
    assert verify_mod.environment_of("a.cu:3:10: fatal error: 'omp.h' file not found", None, comp) == \
        "omp.h (OpenMP) is not installed on this machine"
    assert verify_mod.environment_of("a.cu:3:10: fatal error: 'GL/freeglut.h' file not found", None, comp) == \
        "GL/freeglut.h (OpenGL) is not installed on this machine"
    assert verify_mod.environment_of("a.cpp:5:10: fatal error: 'hip/hip_gl_interop.h' file not found", None, comp) == \
        "hip/hip_gl_interop.h is a HIP header this HIP installation lacks"
    rocm = Path(verify_mod._rocm_path()) / "include" / "hip" / "amd_detail" / "amd_hip_runtime.h"
    newer = verify_mod.Compiler("clang-device-only", "/usr/bin/clang++-22", "gfx1250", hip_version="5.2")
    assert verify_mod.toolchain_limit(str(rocm), newer) == (
        "toolchain limit: the error is inside HIP 5.2's own header hip/amd_detail/amd_hip_runtime.h compiling for gfx1250")
    assert verify_mod.toolchain_limit(str(rocm), comp) is None  # hipcc's own clang: the headers are not the limit
    assert verify_mod.environment_of("a.cu:1:1: error: use of undeclared identifier 'x'", str(tmp_path / "a.cu"), comp) is None
    files = (verify_mod.VerifiedFile("a.cu", "compiled"),
             verify_mod.VerifiedFile("b.cu", "failed", "e", predicted=True, predicted_by=("TRN001 b.cu:3 x",)),
             verify_mod.VerifiedFile("c.cu", "failed", "e", predicted=False, environment="omp.h (OpenMP) ..."),
             verify_mod.VerifiedFile("d.cu", "failed", "e", predicted=False))
    assert [f.cause for f in files] == [None, "predicted", "environment", "defect"]
    s = verify_mod.Verification(comp, files).summary()
    assert (s["compiled"], s["predicted"], s["environment"], s["defect"], s["compile_rate"]) == (1, 1, 1, 1, 0.333)


def test_in_place_creates_the_compat_header_and_never_overwrites_a_project_file(tmp_path):
    from porter.translate.write import write_in_place

    root = _tree(tmp_path, {"k.cu": "__global__ void k(unsigned* o) { o[0] = umin(o[1], o[2]); }\n"})
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "cuda"]):
        subprocess.run(["git", *cmd], cwd=root, check=True, env=env, capture_output=True)
    report = write_in_place(translate(root, BUILTIN))
    assert report.written == ["k.cu", "porter_hip_compat.h"] and report.skipped == []
    assert (root / "porter_hip_compat.h").read_bytes().startswith(b"/* porter_hip_compat.h: generated by porter")
    # translated again (nothing left to rename), porter's own file is regenerated, with the helpers still used
    again = translate(root, BUILTIN)
    assert again.file("k.cu").status == "unchanged" and "porter_hip_compat.h" not in again.copies
    compat = again.file("porter_hip_compat.h")
    assert compat.status == "generated" and b"porter_umin(unsigned int a" in compat.output
    # a project file of that name is the project's: translated like any header, never replaced
    (root / "porter_hip_compat.h").write_text("int mine;\n")
    mine = translate(root, BUILTIN)
    assert mine.file("porter_hip_compat.h").status == "unchanged"


def test_a_later_rocms_header_stays_in_the_regenerated_compat_header(tmp_path):
    """`<cuda_gl_interop.h>` translated: its line becomes a note and the compat header includes hip/hip_gl_interop.h
    with HIP 5's fallback. Translated again in place, the note is all that names it, and the regenerated header keeps
    the include (else the GL interop API would vanish from the file)."""
    from porter.translate.write import write_in_place

    root = _tree(tmp_path, {"gl.cpp": "#include <cuda_gl_interop.h>\nint f(cudaGraphicsResource_t r);\n"})
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "cuda"]):
        subprocess.run(["git", *cmd], cwd=root, check=True, env=env, capture_output=True)
    write_in_place(translate(root, BUILTIN))
    assert (root / "gl.cpp").read_text().splitlines()[1] == (
        "/* porter: <hip/hip_gl_interop.h> from porter_hip_compat.h, <hip/hip_runtime_api.h> before ROCm 6.0 */")
    fallback = (b"#if __has_include(<hip/hip_gl_interop.h>)\n#include <hip/hip_gl_interop.h>\n#else\n"
                b"#include <hip/hip_runtime_api.h>\n#endif\n")
    assert fallback in (root / "porter_hip_compat.h").read_bytes()
    again = translate(root, BUILTIN)
    assert again.file("gl.cpp").status == "unchanged"
    assert fallback in again.file("porter_hip_compat.h").output
