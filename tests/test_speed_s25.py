"""Work a cold scan did more than once per file, done once (issue 26, session 25): a file's wave-size arms (asked by
refine and by every kernel's facts), a CMake file's toolkit arms (parsed from its commands by file_facts and again
by port status), a CMake file's opt-in blocks (once per finding), and the `#error` search that tried its MULTILINE
`^` at every byte of every file. Each answer is the one the repeated work gave; the tests count the work too."""
from __future__ import annotations

import re
from pathlib import Path

from porter.portaware import status
from porter.source import preprocessor

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/bldscope_s24"

# Two kernels in a file with a wave-size group (lines 3-9) and a `#define` the arms' test does not name.
WAVE = (b"#define BLOCK 128\n"                                   # 1
        b"__global__ void first(unsigned *out) {\n"              # 2
        b"#if WARP_SIZE == 32\n"                                 # 3
        b"  out[0] = __ballot_sync(0xffffffff, 1);\n"            # 4
        b"#elif WARP_SIZE == 64\n"                               # 5
        b"  out[0] = (unsigned)__ballot(1);\n"                   # 6
        b"#else\n"                                               # 7
        b"  out[0] = 0;\n"                                       # 8
        b"#endif\n"                                              # 9
        b"}\n"                                                   # 10
        b"__global__ void second(unsigned *out) { out[1] = BLOCK; }\n")  # 11


def test_wave_size_arms_are_worked_out_once_per_file(monkeypatch):
    from porter.kernels.facts import measure_file
    from porter.match.refine import refine  # noqa: F401 - the other caller, imported as a scan imports it
    from porter.source.parse import parse

    calls = []
    real = preprocessor._wave_size_arms
    monkeypatch.setattr(preprocessor, "_wave_size_arms", lambda pre: calls.append(pre) or real(pre))
    sf = parse("k.cu", "cuda", WAVE)
    kernels = measure_file(sf)
    assert [(k.name, k.facts.wave_arms) for k in kernels] == [("first", ((4, 4, 32), (6, 6, 64))), ("second", ())]
    pre = preprocessor.preprocessed(sf)
    assert preprocessor.wave_size_arms(pre) == ((4, 4, 32, "WARP_SIZE"), (6, 6, 64, "WARP_SIZE"))
    assert preprocessor.wave_size_arms(pre) is preprocessor.wave_size_arms(pre)
    assert len(calls) == 1  # two kernels and two more questions: one reading of the file's groups and defines
    # another file's directives are their own question
    other = preprocessor.preprocess(WAVE.replace(b"#define BLOCK 128", b"#define WARP_SIZE 32"))
    assert preprocessor.wave_size_arms(other) == ()
    assert len(calls) == 2


def test_a_cmake_files_toolkit_arms_ride_in_its_facts_and_port_status_parses_it_once(monkeypatch):
    from porter.pipeline import run
    from porter.settings import Settings

    data = (FIXTURE / "toolkit/CMakeLists.txt").read_bytes()
    assert status.file_facts("CMakeLists.txt", "cmake", data).toolkit_arms == ((5, 8, 5),)
    assert status.file_facts("x/CMakeLists.txt", "cmake", b"if(USE_CUDA)\nmessage(hi)\nendif()\n").toolkit_arms == ()

    settings = Settings(jobs=1, cache_dir=None)
    result = run(FIXTURE / "toolkit", settings).result
    parsed = []
    real = status.cmake_commands
    monkeypatch.setattr(status, "cmake_commands", lambda text: parsed.append(text) or real(text))
    pm = status.build_map(result.stats.discovery[0], settings, result)
    assert pm.toolkit_arms == {"CMakeLists.txt": [(5, 8, 5)]}
    assert parsed == []  # the scan's facts of CMakeLists.txt hold its arms: its commands are not parsed again


def test_error_lines_skip_to_a_hash_and_read_the_same_lines():
    cases = {
        b"": (),
        b"cudaError_t e = cudaGetLastError(); // error handling\nthrow std::runtime_error(\"error\");\n": (),
        b"#error needs CUDA\n": (1,),
        b"int x;\n  #  error spaced\n#errors are not\n#error\n": (2, 4),
        b"/*\n#error in a comment\n*/\n// #error too\n#if 0\n#error dead but a directive\n#endif\n": (6,),
        b"x = a #error\n#pragma once\n\t# error tab\n": (3,),
    }
    slow = re.compile(rb"^[ \t]*#[ \t]*error\b", re.M)
    for data, lines in cases.items():
        assert status._error_lines(data) == lines, data
        if slow.search(data) is None:  # the old first search: the same files have none
            assert lines == ()


OPT_CMAKE = ("cmake_minimum_required(VERSION 3.18)\n"                    # 1
             "option(USE_FAST_MATH \"fast math\" OFF)\n"                  # 2
             "option(USE_DEBUG \"device debug\" OFF)\n"                   # 3
             "if(USE_FAST_MATH)\n"                                        # 4
             "  list(APPEND CUDA_NVCC_FLAGS -use_fast_math -Xptxas -O3)\n"  # 5
             "endif()\n"                                                  # 6
             "if(USE_DEBUG)\n"                                            # 7
             "  list(APPEND CUDA_NVCC_FLAGS -G -Xptxas -v)\n"             # 8
             "endif()\n"                                                  # 9
             "list(APPEND CUDA_NVCC_FLAGS -Xptxas -O2)\n")                # 10


def test_a_cmake_files_opt_in_blocks_are_read_once_for_all_its_findings(monkeypatch):
    from porter.match import refine
    from porter.pipeline import scan_source

    calls = []
    real = refine.cmake_opt_in_blocks
    monkeypatch.setattr(refine, "cmake_opt_in_blocks", lambda sf: calls.append(sf.path) or real(sf))
    result = scan_source("CMakeLists.txt", "cmake", OPT_CMAKE.encode())
    got = [(f.rule, f.line, str(f.severity), dict(f.data).get("opt_in") is not None) for f in result.findings
           if f.rule == "BLD004"]
    assert got == [("BLD004", 5, "info", True), ("BLD004", 5, "info", True), ("BLD004", 5, "info", True),
                   ("BLD004", 8, "info", True), ("BLD004", 8, "info", True),
                   ("BLD004", 10, "medium", False), ("BLD004", 10, "medium", False)]
    assert calls == ["CMakeLists.txt"]  # seven findings, one reading of the file's blocks
