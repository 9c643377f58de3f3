"""Session 27's PR-gate evasions (a report-only attacker's): CUDA-only code a pull request adds where the build
compiles it but porter did not read it. Each test is the gate as CI runs it - `scan REPO --isolated --new-since
main --fail-on low --no-cache` on a branch adding the code - and asserts its exit status and exact findings."""
from __future__ import annotations

import json

import pytest

from helpers import git, porter_here, pull_request

KERNEL = ("__global__ void k(float* x) { unsigned m = __activemask(); x[0] = __shfl_xor_sync(0xffffffff, x[0], 16);"
          " }\n")
# What the gate finds in KERNEL wherever it is read as CUDA.
KERNEL_RULES = ["API004", "DEV002", "DEV003", "DEV011", "KRN001"]


def gate(repo, *extra: str):
    p = porter_here("scan", str(repo), "--isolated", "--new-since", "main", "--fail-on", "low", "--no-cache",
                    "-f", "json", *extra)
    assert p.returncode in (0, 1), p.stderr
    d = json.loads(p.stdout)
    return p.returncode, sorted((f["path"], f["rule"]) for f in d["findings"]), d


def pr(tmp_path, base: dict[str, str], files: dict[str, str]):
    return pull_request(tmp_path / "r", base, files)


@pytest.mark.parametrize("name", ["kernels", "kernels.json", "kernels.cmake", "kernels.sh", "kernels.py",
                                  "kernels.yaml"])
def test_a_file_a_cuda_unit_includes_is_read_as_cuda_whatever_its_suffix(tmp_path, name):
    """`#include "kernels.json"` (or no suffix): the compiler reads it as C++; porter skipped names it gave another
    language or none (0 findings, exit 0). Now read as CUDA beside its own language, one path in the output."""
    repo = pr(tmp_path, {"src/main.cpp": "int main(){return 0;}\n"},
              {f"src/{name}": KERNEL, "src/k.cu": f'#include "{name}"\n'})
    code, found, d = gate(repo)
    assert code == 1
    assert sorted({r for p, r in found if p == f"src/{name}"}) == KERNEL_RULES
    assert {p for p, _ in found} == {f"src/{name}"}
    # k.cu and the included file once, not once per reading (a `.cmake` outside a CMake tree is listed by no
    # discovery: read as an unlisted include, as `kern.txt` is, which the count leaves out)
    assert d["files"]["scanned"] == (1 if name.endswith(".cmake") else 2)


def test_an_extensionless_quoted_name_found_nowhere_is_not_listed_unseen(tmp_path):
    """`#include "Eigen/Core"` through an include path: not in the tree, not a failure of the gate."""
    repo = pr(tmp_path, {"src/main.cpp": "int main(){return 0;}\n"}, {"src/k.cu": '#include "Eigen/Core"\nint k;\n'})
    code, found, d = gate(repo)
    assert (code, found, d["skipped"]) == (0, [], [])


CMAKE_BASE = {"CMakeLists.txt": "cmake_minimum_required(VERSION 3.20)\nproject(x LANGUAGES CXX CUDA)\n"
                                "add_library(x src/a.cu)\n",
              "src/a.cu": "__global__ void a(float* x) { x[threadIdx.x] = 1; }\n"}
CUP_RULES = [("src/k.cup", r) for r in KERNEL_RULES]


@pytest.mark.parametrize("how", [
    "set(K src/k.cup)\nset_source_files_properties(${K} PROPERTIES LANGUAGE CUDA)\n",
    "file(GLOB K src/*.cup)\nset_source_files_properties(${K} PROPERTIES LANGUAGE CUDA)\n",
    "file(GLOB_RECURSE K CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cup)\n"
    "set_property(SOURCE ${K} PROPERTY LANGUAGE CUDA)\n",
    "set_source_files_properties(src/k.cup PROPERTIES COMPILE_OPTIONS \"-xcu\")\n",
    "configure_file(src/k.cup ${CMAKE_CURRENT_BINARY_DIR}/k.cu COPYONLY)\n",
])
def test_sources_cmake_compiles_as_cuda_through_a_variable_glob_option_or_template_are_read(tmp_path, how):
    """A `.cup` CMake compiles as CUDA through set()/file(GLOB) variables, a `-xcu` compile option or a
    configure_file whose output is a .cu: porter read literal LANGUAGE CUDA names only (0 findings, exit 0)."""
    repo = pr(tmp_path, CMAKE_BASE, {"src/k.cup": KERNEL,
                                     "CMakeLists.txt": CMAKE_BASE["CMakeLists.txt"] + how + "target_sources(x PRIVATE ${K})\n"})
    code, found, _ = gate(repo)
    assert (code, [f for f in found if f[0] != "CMakeLists.txt"]) == (1, CUP_RULES)


def test_a_cuda_source_cmake_names_through_a_variable_porter_cannot_resolve_fails_closed(tmp_path):
    repo = pr(tmp_path, CMAKE_BASE, {"src/k.cup": KERNEL, "CMakeLists.txt": CMAKE_BASE["CMakeLists.txt"]
                                     + "set_source_files_properties(${FROM_OUTSIDE} PROPERTIES LANGUAGE CUDA)\n"})
    code, found, d = gate(repo)
    assert code == 1
    assert [f for f in found if f[0] != "CMakeLists.txt"] == []
    assert d["skipped"] == [{"path": "CMakeLists.txt", "reason": "the build compiles as CUDA LANGUAGE CUDA source "
                                                                  "${FROM_OUTSIDE}, which porter cannot resolve"}]


@pytest.mark.parametrize("rule", ["k.o: src/k.cup\n\tnvcc -x cu -c $< -o $@\n",
                                  "obj/%.o: src/%.cup\n\tnvcc -x cu -c $< -o $@\n"])
def test_make_automatic_variables_of_an_nvcc_x_cu_recipe_name_its_prerequisites(tmp_path, rule):
    repo = pr(tmp_path, {"src/main.cpp": "int main(){return 0;}\n"}, {"src/k.cup": KERNEL, "Makefile": rule})
    code, found, _ = gate(repo)
    assert (code, [f for f in found if f[0] != "Makefile"]) == (1, CUP_RULES)


def test_cuda_sources_of_cmake_variables_globs_templates_and_make_rules():
    from porter.source.buildsources import GLOB_MARK, UNSEEN_MARK, cuda_sources

    cmake = ("set(K src/k.cup ${CMAKE_CURRENT_SOURCE_DIR}/b.cup)\nfile(GLOB G src/*.cup)\n"
             "set_source_files_properties(${K} ${G} ${U} PROPERTIES LANGUAGE CUDA)\n"
             "configure_file(k.cu.in ${CMAKE_CURRENT_BINARY_DIR}/k.cu)\nconfigure_file(c.h.in c.txt)\n")
    assert cuda_sources("sub/CMakeLists.txt", cmake) == [
        "sub/src/k.cup", "sub/b.cup", GLOB_MARK + "sub/src\0*.cup\0",
        UNSEEN_MARK + "sub/CMakeLists.txt\0LANGUAGE CUDA source ${U}", "sub/k.cu.in"]
    assert cuda_sources("Makefile", "k.o: src/k.cup\n\tnvcc -x cu -c $< -o $@\n") == ["src/k.cup"]
    assert cuda_sources("Makefile", "%.o: src/%.cup\n\tnvcc -x cu -c $< -o $@\n") == [GLOB_MARK + "src\0*.cup\0r"]
    assert cuda_sources("b.sh", "nvcc -x cu -c $< -o x\n") == [
        UNSEEN_MARK + "b.sh\0the input $< of an nvcc -x cu line", "x"]


def test_a_plain_trees_gitignore_does_not_hide_cuda_code(tmp_path):
    """A tree that is no git checkout: its own .gitignore (`*.cu`, or `src/` ignoring a directory) dropped the
    kernel from the walk even under --isolated (0 findings, exit 0). Such a C/C++/CUDA file is listed unseen."""
    from helpers import write_files as w

    w(tmp_path, {"a/.gitignore": "*.cu\n", "a/src/k.cu": KERNEL, "a/src/notes.txt": "x\n",
                 "b/.gitignore": "src/\n", "b/src/deep/k.cuh": KERNEL, "b/m.cpp": "int m;\n"})
    for tree, path in (("a", "src/k.cu"), ("b", "src/deep/k.cuh")):
        p = porter_here("scan", str(tmp_path / tree), "--isolated", "--fail-on", "high", "--no-cache", "-f", "json")
        d = json.loads(p.stdout)
        assert (p.returncode, d["findings"], d["skipped"]) == (1, [], [{
            "path": path, "reason": "C/C++/CUDA file a .gitignore of the tree (not a git checkout) ignores: not read"}])


def test_discovery_keeps_at_most_max_files_and_the_gate_counts_the_rest(tmp_path, monkeypatch):
    """A few KB of git objects can list a million `.cu` paths sharing one blob (1 GiB, 5 minutes in the parent):
    discovery keeps MAX_FILES, in path order, and one unseen skip names the rest - in a git tree (--new-since) and
    in a work tree alike."""
    import porter.source.discover as disc

    monkeypatch.setattr(disc, "MAX_FILES", 3)
    repo = pr(tmp_path, {"m.cpp": "int m;\n"}, {f"gen/k{i}.cu": "int k;\n" for i in range(5)})
    reason = ("not kept: past 3 files to scan (porter keeps at most 3 a discovery): the 3 entries after this one, "
              "in path order, are not read")
    code, found, d = gate(repo)
    assert (code, found, d["skipped"]) == (1, [], [{"path": "gen/k2.cu", "reason": reason}])
    p = porter_here("scan", str(repo), "--no-cache", "-f", "json", "--fail-on", "high")
    assert (p.returncode, json.loads(p.stdout)["skipped"]) == (1, [{"path": "gen/k2.cu", "reason": reason}])


PASTED = ("#define CAT(a,b) a##b\n#define W(x) CAT(__,x)\n#define ASM CAT(a,sm)\n"
          "__device__ float f(float x){ unsigned m = W(activemask)(); ASM volatile(\"bar.sync 0;\");"
          " return W(shfl_xor_sync)(0xffffffffu, x, 16) + CAT(war,pSize) + CAT(my,Name); }\n")


def test_a_paste_of_plain_identifiers_into_a_cuda_name_reads_as_that_name():
    """`W(activemask)` with `W(x) CAT(__,x)` and `CAT(a,b) a##b` is `__activemask` to the compiler; it is read so,
    written over the use at the same length. A paste into another name (`CAT(my,Name)`) and the definitions stay."""
    from porter.source.preprocessor import as_compiled

    out = as_compiled(PASTED.encode()).decode()
    assert len(out) == len(PASTED)
    # the definitions stay, but for an object-like macro whose body is itself such a paste (read as `asm` too)
    assert out.splitlines()[:3] == ["#define CAT(a,b) a##b", "#define W(x) CAT(__,x)", "#define ASM asm      "]
    assert out.splitlines()[3] == (
        "__device__ float f(float x){ unsigned m = __activemask (); asm volatile(\"bar.sync 0;\");"
        " return __shfl_xor_sync (0xffffffffu, x, 16) + warpSize       + CAT(my,Name); }")


def test_token_pasting_no_longer_hides_cuda_calls_from_the_gate(tmp_path):
    repo = pr(tmp_path, {"src/main.cpp": "int main(){return 0;}\n"}, {"src/k.cpp": PASTED})
    code, found, _ = gate(repo)
    assert (code, found) == (1, [("src/k.cpp", r) for r in ("API004", "DEV001", "DEV002", "DEV003", "DEV011")])
