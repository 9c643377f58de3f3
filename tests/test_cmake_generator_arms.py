"""CMake generator expressions as vendor arms and as conditions (session 25's new-user trial, on a real port).

`$<$<BOOL:${TM_ROCM}>:roc::rocblas hip::host>` beside `$<$<BOOL:${TM_CUDA}>:CUDA::cublas CUDA::cudart>` in one
target_link_libraries is the if()/else() of that command: the CUDA links are the CUDA build's, handled by the ROCm
arm. And the word CUDA a condition compares a variable with (`$<STREQUAL:${BACKEND},CUDA>`) links nothing."""
from __future__ import annotations

from porter.pipeline import run
from porter.settings import Settings

HEAD = "cmake_minimum_required(VERSION 3.21)\nproject(tm LANGUAGES CXX)\nadd_library(tm src/tm.cpp)\n"


def rows(tmp_path, cmake: str) -> list[tuple]:
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "src" / "tm.cpp").write_text("int f() { return 0; }\n")
    (tmp_path / "CMakeLists.txt").write_text(HEAD + cmake)
    result = run(tmp_path, Settings(cache_dir=None, jobs=1)).result
    return [(f.rule, f.line, f.column, str(f.status), f.handled_by) for f in result.findings
            if f.path == "CMakeLists.txt"]


def test_links_in_a_cuda_switch_arm_beside_a_rocm_arm_are_handled(tmp_path):
    assert rows(tmp_path, "target_link_libraries(tm PUBLIC $<$<BOOL:${TM_ROCM}>:roc::rocblas hip::host>\n"
                          "  $<$<BOOL:${TM_CUDA}>:CUDA::cublas CUDA::cudart>)\n") == [
        ("LIB004", 5, 24, "handled", "CMakeLists.txt:4"), ("LIB004", 5, 37, "handled", "CMakeLists.txt:4")]


def test_a_backend_compared_with_vendor_names_makes_arms_too(tmp_path):
    assert rows(tmp_path, "target_link_libraries(tm PUBLIC\n"
                          "  $<$<STREQUAL:${GPU_BACKEND},ROCM>:roc::rocfft>\n"
                          "  $<$<STREQUAL:${GPU_BACKEND},CUDA>:CUDA::cufft>)\n") == [
        ("LIB004", 6, 37, "handled", "CMakeLists.txt:5")]


def test_a_cuda_arm_with_no_rocm_arm_stays_open(tmp_path):
    assert rows(tmp_path, "target_link_libraries(tm PUBLIC $<$<BOOL:${TM_CUDA}>:CUDA::cublas>)\n") == [
        ("LIB004", 4, 54, "open", None)]


def test_the_word_a_condition_compares_is_not_a_link(tmp_path):
    # COSMA's `$<$<STREQUAL:${COSMA_GPU_BACKEND},CUDA>:Tiled-MM::Tiled-MM>`: LIB004 was open on "CUDA" (as -lCUDA)
    assert rows(tmp_path, "target_link_libraries(tm PRIVATE $<$<STREQUAL:${COSMA_GPU_BACKEND},CUDA>:Tiled-MM::Tiled-MM>)\n"
                ) == []
    # a link item right after a generator expression's own `:` is still read (it was skipped as a `Foo::x` tail)
    assert rows(tmp_path, "target_link_libraries(tm PRIVATE $<LINK_ONLY:CUDA::cudart> $<$<CONFIG:Debug>:cublas>)\n"
                ) == [("LIB004", 4, 46, "open", None), ("LIB004", 4, 78, "open", None)]
