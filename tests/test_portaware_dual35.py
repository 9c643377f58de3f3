"""Session 27 (l35): dual CMake builds whose CUDA-only parts are spelled through a variable, CMake's CUDA-language
variables, an enabled-languages test, and an optional find_package of the CUDA toolkit. Fixtures written here."""
from porter.portaware.scope import (cmake_commands, cuda_language_spans, cuda_variable_spans,
                                    optional_toolkit_finds)


def test_cuda_language_test_held_in_a_variable():
    text = ('set(cxx_lang "$<COMPILE_LANGUAGE:C,CXX>")\n'                    # 1
            'set(cuda_lang "$<COMPILE_LANGUAGE:CUDA>")\n'                    # 2
            "target_compile_options(t PRIVATE\n"                             # 3
            "  $<${cxx_lang}:-Wall>\n"                                        # 4
            "  $<${cuda_lang}:$<BUILD_INTERFACE:-Xcompiler=-Wall>>)\n")       # 5
    assert cuda_language_spans(text) == [(5, 3, 5, 54)]
    # a variable set twice may hold anything when the expression is evaluated: not read
    twice = text + 'set(cuda_lang "$<COMPILE_LANGUAGE:CXX>")\n'
    assert cuda_language_spans(twice) == []
    # a variable holding a negated test is no CUDA-only condition
    assert cuda_language_spans('set(v "$<NOT:$<COMPILE_LANGUAGE:CUDA>>")\nadd_compile_options($<${v}:-O2>)\n') == []


def test_cuda_variable_spans_writes_and_enabled_language_arms():
    text = ("get_property(langs GLOBAL PROPERTY ENABLED_LANGUAGES)\n"        # 1
            'if("CUDA" IN_LIST langs)\n'                                       # 2
            "  list(APPEND opts -Xcompiler=-fopenmp)\n"                        # 3
            "else()\n"                                                         # 4
            "  list(APPEND opts -fopenmp)\n"                                   # 5
            "endif()\n"                                                        # 6
            "if(ARCH)\n"                                                       # 7
            "  arch_to_version(${ARCH} CMAKE_CUDA_ARCHITECTURES)\n"            # 8
            "else()\n"                                                         # 9
            "  set(CMAKE_CUDA_ARCHITECTURES OFF)\n"                            # 10
            "endif()\n"                                                        # 11
            'message(STATUS "${CMAKE_CUDA_ARCHITECTURES}")\n'                  # 12
            "if(CMAKE_CUDA_COMPILER)\n"                                        # 13
            "endif()\n")                                                       # 14
    assert cuda_variable_spans(cmake_commands(text)) == [(2, 1, 4, 1), (8, 1, 9, 1), (10, 1, 11, 1)]
    # an IN_LIST test of a list that is not the enabled languages: nothing
    assert cuda_variable_spans(cmake_commands('if("CUDA" IN_LIST BACKENDS)\n  set(X 1)\nendif()\n')) == []


def test_optional_toolkit_finds():
    text = ("find_package(CUDAToolkit)\n"                                      # 1
            "find_package(CUDAToolkit REQUIRED)\n"                             # 2
            "find_package(CUDA 11 QUIET)\n"                                    # 3
            "find_package(hip)\n")                                             # 4
    assert optional_toolkit_finds(cmake_commands(text)) == [(1, 1, 1), (3, 3, 3)]


def test_python_enum_member_vendor_tests():
    from porter.portaware.guards import Span, python_spans
    src = (b"def f(libraries, kind, dev):\n"                                        # 1
           b"    if core_defs.CUPY_DEVICE_TYPE == core_defs.DeviceType.ROCM:\n"     # 2
           b"        libraries = [*libraries, 'hiprtc']\n"                          # 3
           b"    else:\n"                                                           # 4
           b"        libraries = [*libraries, 'cudart']\n"                          # 5
           b"    if kind == DeviceType.CUDA:\n"                                     # 6: kind is a selector (line 10)
           b"        x = 1\n"                                                       # 7
           b"    if dev == DeviceType.CUDA:\n"                                      # 8: dev never meets ROCm: no test
           b"        y = 2\n"                                                       # 9
           b"    if kind != DeviceType.ROCM:\n"                                     # 10
           b"        z = 3\n"                                                       # 11
           b"    if torch.version.CUDA:\n"                                          # 12: a value, not a class member
           b"        w = 4\n"                                                       # 13
           b"    return libraries\n")
    assert python_spans(src) == [Span((3, 9), (3, 43), "rocm", 2), Span((4, 5), (5, 43), "cuda", 2),
                                 Span((7, 9), (7, 14), "cuda", 6), Span((11, 9), (11, 14), "cuda", 10)]


def test_python_twin_setting_calls_and_fstring_reads():
    from porter.portaware.guards import Span, python_spans
    src = (b"def configure(debug):\n"                                              # 1
           b"    if debug:\n"                                                      # 2
           b"        dbg = '--device-debug'\n"                                     # 3
           b"    else:\n"                                                          # 4
           b"        dbg = ''\n"                                                   # 5
           b"    cfg.set('compiler.cuda.args', value=f'{dbg} -O3')\n"              # 6: twin of line 7
           b"    cfg.set('compiler.cuda.hip_args', value='-O3')\n"                 # 7
           b"    cfg.set('compiler.cuda.cuda_arch', value=arch)\n"                 # 8: twin of line 9
           b"    cfg.set('compiler.cuda.hip_arch', value=arch)\n"                  # 9
           b"    cfg.set('compiler.cuda.flags', value=arch)\n"                     # 10: no ROCm twin
           b"    other.set('compiler.cuda.hip_flags', value=arch)\n")              # 11: another function's setting
    assert python_spans(src) == [Span((6, 5), (6, 54), "cuda", 7), Span((8, 5), (8, 51), "cuda", 9),
                                 Span((3, 9), (3, 31), "cuda", 7), Span((5, 9), (5, 17), "cuda", 7)]
    # a read of the variable in an f-string outside the CUDA call keeps its assignments shared
    shared = src + b"    print(f'{dbg}')\n"
    assert python_spans(shared) == [Span((6, 5), (6, 54), "cuda", 7), Span((8, 5), (8, 51), "cuda", 9)]
