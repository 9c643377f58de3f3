"""The refine steps for build files (CMake, Make, shell): text only shown to a person, flags a build removes or only
tests for, arguments of NVIDIA inspection tools, NVTX profiling, Windows-only and Arm-host-only blocks, copies of
CMake's own CUDA modules, architectures set OFF, one architecture choice per if() chain, QUIET find_package
probes, libraries looked up in the Jetson multimedia API's paths, and nvcc spellings in a CUDA-language arm beside
a plain arm. porter.match.refine runs them.

4a. Profiling instrumentation: a finding inside a positive `#if` arm or CMake `if()` block whose condition names an
   NVTX switch (`#if defined(GOMC_NVTX_ENABLED)`, `if(USE_NVTX)`) is in a build the user opts into for Nsight
   profiling; the default build never compiles it: info (data `optional`).
4c. CMake: a finding inside an if() block only a Windows build takes (`if(MSVC)`, `if(WIN32 AND ...)`) is in a build
   ROCm for Instinct GPUs never makes (Linux only): info (data `windows_only`).
4d. CMake: a finding inside an if() block only a 64-bit Arm host takes (`if(CMAKE_SYSTEM_PROCESSOR MATCHES
   "aarch64")`: NVIDIA's Jetson and Grace platforms) is in a build ROCm never makes (x86-64 hosts only): info (data
   `arm_host_only`).
4f. ndk-build: `Android.mk` and `Application.mk` are read only by the Android NDK's ndk-build, which builds for
   Android devices; ROCm has no Android target, so an nvcc line or a CUDA library there belongs to an NVIDIA
   embedded (Tegra) build a ROCm port does not make: info (data `android_only`).
4g. CMake: a finding inside `if(NAME)` where the file declares `option(NAME "..." OFF)` and the block only sets
   variables or compile options is in a build variant the user opts into (extra warnings, device debugging, a static
   library): info (data `opt_in`).
2b. CMake: a repository's copy of a module CMake ships for CUDA (FindCUDA.cmake and its FindCUDA/ helpers,
   FindCUDAToolkit.cmake) is CMake's code: its findings read info (data `cmake_module`); the project's calls of it
   are the port's items.
5. An API name in the text of an `#error` / `#warning` / `#pragma message` is a message, not a use: dropped; so is
   a compiler, flag or architecture list named in a CMake message(), a print/summary helper's arguments or an
   option()/CACHE documentation string.
5g. Make and shell: an architecture flag on a line that runs an NVIDIA inspection tool (`cuobjdump -arch sm_86
   -sass`) picks what a developer looks at, not what the build makes: info (data `tool`).
5f. Make: a flag named in the first argument of `$(filter-out ...)` is one the Makefile removes: dropped. CMake: a
   flag a build only tests for or takes out - the left operand of `IN_LIST`, an item of `list(REMOVE_ITEM ...)` - is
   not one it passes (Kokkos strips a duplicated `-Xcompiler` from option lists): dropped.
5i. CMake: the architectures set in each arm of one if()/elseif()/else() chain are one choice: a BLD003 finding in
   a later arm than another BLD003 finding of the same chain reads info (data `same_choice`).
5j. CMake: `find_package(CUDAToolkit QUIET)` without REQUIRED (BLD002) is a probe the ROCm configure passes: info
   (data `probe`); the arms that use its answer are reported where they use it.
5k. CMake: `set(CMAKE_CUDA_ARCHITECTURES OFF)` (BLD003), and the if() whose block only does that, name no GPU:
   info (data `no_architecture`).
4h. CMake: a library finding inside a find_library()/find_path() whose search paths or suffixes name the Jetson
   multimedia API (`PATH_SUFFIXES tegra`, `/usr/src/tegra_multimedia_api`, `jetson_multimedia_api`) looks for the
   library a Jetson board ships (Jetson Linux's libnvjpeg is a libjpeg-8b hardware codec, not the CUDA toolkit's
   nvJPEG), a build ROCm never makes: info (data `jetson_only`).
5t. CMake: an nvcc spelling (BLD004) in a `$<COMPILE_LANGUAGE:CUDA>` arm whose command gives every other language the
   plain flags (a `$<NOT:$<COMPILE_LANGUAGE:CUDA>>` arm, or a bare `-Xcompiler` prefix before a flag all get), or on
   a function variable read only in such arms, never reaches a HIP-language compile: info (data `language_pair`).
"""
from __future__ import annotations

import re
from typing import Callable, Iterable

from porter.match.draft import Draft
# Shared helpers keep the private names the steps called them by when all of refine was one module, so the
# moved code reads as it did.
from porter.match.refine_common import (PROFILING_SWITCH, MACRO as _MACRO, as_info as _as_info, code_line as _code_line,
                                        names_library as _names_library, offset as _offset)
from porter.model import Severity
from porter.source.cmake_conditions import arms, generator_expressions
from porter.source.parse import SourceFile


# 5f. Make: the flags `$(filter-out FLAGS,$(VAR))` names are the ones it takes out (cholla's clang-tidy flag list
# drops nvcc's `--expt-extended-lambda`): removed, not passed, so no hit there.
_FILTER_OUT = re.compile(rb"\$[({]filter-out\s+([^,)}]*),")


# 5g. Make and shell: an architecture flag passed to an NVIDIA inspection tool (`cuobjdump -arch sm_86 -sass ...` in
# SGEMM_CUDA's disassembly target; nvdisasm, the profilers) picks what a developer looks at, not what the build makes:
# info (data `tool`). The same flag on an nvcc line stays.
ARCH_FLAG_RULES = frozenset({"BLD005"})
INSPECTOR_WORD = re.compile(rb"\b(?:cuobjdump|nvdisasm|ncu|nsys|nvprof)\b")
_INSPECTOR = re.compile(r"^\s*[@+-]*\s*(?:\S*/)?(cuobjdump|nvdisasm|ncu|nsys|nvprof)\b")


def inspector_argument(f: Draft, sf: SourceFile) -> Draft:
    """BLD005 at info on a line that runs an NVIDIA inspection tool (step 5g)."""
    if f.rule not in ARCH_FLAG_RULES or f.severity <= Severity.INFO:
        return f
    m = _INSPECTOR.match(sf.line_text(f.line))
    if m is None:
        return f
    return _as_info(f, "tool", f"an argument of {m.group(1)}, which inspects a build; it does not make one")


# CMake: `"-Xcompiler" IN_LIST FLAGS` (a test) and `list(REMOVE_ITEM FLAGS "-Xcompiler" ...)` (a removal).
_IN_LIST = re.compile(rb'("[^"\n]*"|[^\s()"]+)\s+IN_LIST\b')
_REMOVE_ITEM = re.compile(rb"\blist\s*\(\s*REMOVE_ITEM\s+\S+\s+([^)]*)\)", re.IGNORECASE)


def cmake_removed(sf: SourceFile) -> list[tuple[int, int]]:
    """Byte spans of the flags a CMake file only tests for (`X IN_LIST L`) or removes (`list(REMOVE_ITEM L X...)`)."""
    return [m.span(1) for m in _IN_LIST.finditer(sf.code)] + [m.span(1) for m in _REMOVE_ITEM.finditer(sf.code)]


def filtered_out(sf: SourceFile) -> list[tuple[int, int]]:
    """Byte spans of the first argument of each `$(filter-out ...)` in a Makefile."""
    return [m.span(1) for m in _FILTER_OUT.finditer(sf.code)]


def without_prose(findings: list[Draft], sf: SourceFile) -> list[Draft]:
    """A CMake file's findings outside the text it only shows a person (porter.portaware.scope.cmake_prose_spans:
    message(), print and summary helpers, option() and CACHE documentation strings)."""
    from porter.portaware.scope import cmake_prose_spans

    spans = cmake_prose_spans(sf.data.decode("utf-8", "replace"))
    if not spans:
        return findings
    return [f for f in findings if not any(a <= (f.line, f.column) < b for a, b in spans)]


def cmake_profiling_blocks(sf: SourceFile) -> tuple[tuple[int, int, str, int], ...]:
    """(first, last line, switch, if line) of each CMake `if(...)` arm (to its `else`/`elseif`/`endif`) whose
    condition names an NVTX switch without NOT."""
    out = []
    for arm in arms(sf.code):
        switch = next((t for t in _MACRO.findall(arm.condition) if _names_library(t, PROFILING_SWITCH)), None)
        if arm.index == 0 and arm.end <= len(sf.line_starts) and switch is not None and not re.search(
                r"\bNOT\b", arm.condition):
            out.append((arm.line + 1, arm.end - 1, switch, arm.line))
    return tuple(out)


# 4f. ndk-build. The Android NDK's ndk-build reads a module's `Android.mk` and the project's `Application.mk`
# (https://developer.android.com/ndk/guides/android_mk, https://developer.android.com/ndk/guides/application_mk) and
# builds for Android's ABIs; ROCm runs on Linux distributions and Windows only
# (https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html), so an nvcc line
# (`-target-os-variant=Android`, InfiniTAM's Tegra build) or a libcudart_static link in one is an NVIDIA embedded
# build with no ROCm counterpart: the Linux build files beside it are the port's items.
NDK_BUILD_FILES = frozenset({"Android.mk", "Application.mk"})


def ndk_build(f: Draft) -> Draft:
    """The finding at info: it sits in an ndk-build file, an Android build ROCm never makes (step 4f)."""
    if f.severity <= Severity.INFO:
        return f
    return _as_info(f, "android_only", "in an ndk-build file (Android.mk/Application.mk): an Android build, and ROCm "
                                       "has no Android target")


# 4g. CMake: `option(NAME "..." OFF)` (an option without a value is OFF too,
# https://cmake.org/cmake/help/latest/command/option.html) whose `if(NAME)` block only adds flags - popsift's
# PopSift_NVCC_WARNINGS appending `-Xptxas;-warn-spills`, InfiniTAM's ENABLE_CUDA_DEBUGGING adding `-G` - is a build
# variant the user opts into, as is ppl's FindCUDNN.cmake `if(CUDNN_STATIC)` naming libcudnn_static.a where its
# `else()` names the default libcudnn; the default build, the one a port makes work first, never takes the block:
# info (data `opt_in`). Only when the file declares the option OFF itself and never sets NAME, and the block holds
# nothing but set()/list()/string() and compile-option commands: a block that enables the GPU build
# (enable_language, find_package, a target, a subdirectory, include) or loops and branches (ByteTransformer's
# `if(BUILD_THS)` TorchScript build, judged real in heldout10) is never read as an extra.
OPT_IN_WORD = re.compile(rb"\boption\s*\(", re.I)
_OFF_OPTION = re.compile(rb"\boption\s*\(\s*(\w+)\s+(?:\"[^\"]*\"|\S+)\s*(?:OFF|FALSE|NO|0)?\s*\)", re.I)
_FLAG_COMMANDS = frozenset({"list", "set", "string", "add_compile_options", "target_compile_options"})
_BUILD_SETUP = re.compile(rb"\b(?:enable_language|find_package|add_library|add_executable|add_subdirectory|include|"
                          rb"project|CMAKE_CUDA_COMPILER|CMAKE_CUDA_ARCHITECTURES)\b", re.I)


def cmake_opt_in_blocks(sf: SourceFile) -> tuple[tuple[int, int, str, int], ...]:
    """(first, last line, option, if line) of each `if(NAME)` arm of an OFF option this file declares whose block
    only sets variables or compile options (step 4g)."""
    offs = {m.group(1).decode() for m in _OFF_OPTION.finditer(sf.code)}
    if not offs:
        return ()
    out = []
    for arm in arms(sf.code):
        name = arm.condition.strip()
        if arm.index != 0 or name not in offs or arm.end > len(sf.line_starts) + 1:
            continue
        if re.search(rb"\bset\s*\(\s*" + re.escape(name.encode()) + rb"\b", sf.code, re.I):
            continue  # the file sets it itself
        a = sf.line_starts[arm.line] if arm.line < len(sf.line_starts) else len(sf.code)
        b = sf.line_starts[arm.end - 1] if arm.end - 1 < len(sf.line_starts) else len(sf.code)
        body = sf.code[a:b]
        heads = {m.group(1).decode().lower() for m in _COMMAND_HEAD.finditer(body)}
        if heads and heads <= _FLAG_COMMANDS and not _BUILD_SETUP.search(body):
            out.append((arm.line + 1, arm.end - 1, name, arm.line))
    return tuple(out)


# 4c. CMake: a block whose condition holds only on Windows - `if(MSVC)`, `if(WIN32)`, `if(CMAKE_CXX_COMPILER_ID
# STREQUAL "MSVC")`, `if(CMAKE_SYSTEM_NAME STREQUAL "Windows")`, alone or and-ed with other tests - sets up the MSVC
# host compiler (FLAMEGPU's `-Xcompiler /wd4503` warning suppressions). ROCm for Instinct GPUs is Linux-only
# (https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html; the HIP SDK for
# Windows supports Radeon parts only), so the port never takes the block: info (data `windows_only`). A condition with
# NOT or OR is not read.
# The file-level test that the step may apply: any of the variables below, as a whole name (MSVC_IDE, MINGW and
# CMAKE_HOST_WIN32 included: a `\bMSVC\b` test missed InfiniTAM's `IF(MSVC_IDE)` debugging switch).
WINDOWS_WORD = re.compile(rb"\b(?:MSVC\w*|\w*WIN32|Windows|MINGW)\b")
_WINDOWS_VARIABLES = frozenset({"MSVC", "WIN32", "CMAKE_HOST_WIN32", "MSVC_VERSION", "MSVC_IDE", "MINGW"})
_WINDOWS_VALUES = frozenset({"MSVC", "Windows"})


def _windows_condition(cond: str) -> bool:
    """Whether a CMake condition holds only on Windows: a Windows variable or a comparison with "MSVC"/"Windows",
    and no NOT, OR or parenthesis (arms() cuts a condition at its first `)`, which could hide an OR)."""
    if "(" in cond:
        return False
    toks = cond.split()
    if "NOT" in toks or "OR" in toks:
        return False
    for i, t in enumerate(toks):
        word = t.strip('"')
        if word.startswith("${") and word.endswith("}"):
            word = word[2:-1]
        if word in _WINDOWS_VARIABLES and (i == 0 or toks[i - 1] not in ("STREQUAL", "MATCHES")):
            return True
        if t in ("STREQUAL", "MATCHES") and i + 1 < len(toks) and toks[i + 1].strip('"') in _WINDOWS_VALUES:
            return True
    return False


def cmake_condition_blocks(sf: SourceFile, holds: Callable[[str], bool]) -> tuple[tuple[int, int, str, int], ...]:
    """(first, last line, condition, if line) of each CMake if()/elseif() arm whose condition (blanks folded) `holds`
    (steps 4c and 4d)."""
    out = []
    for arm in arms(sf.code):
        cond = " ".join(arm.condition.split())
        if cond and arm.end <= len(sf.line_starts) + 1 and holds(cond):
            out.append((arm.line + 1, arm.end - 1, cond, arm.line))
    return tuple(out)


def cmake_windows_blocks(sf: SourceFile) -> tuple[tuple[int, int, str, int], ...]:
    """The arms whose condition holds only on Windows (step 4c)."""
    return cmake_condition_blocks(sf, _windows_condition)


# 4d. CMake: a block whose condition holds only on a 64-bit Arm host - `if(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64")`,
# `STREQUAL "arm64"`, alone or and-ed with other tests - is the build for NVIDIA's Arm platforms (Jetson/DRIVE SoCs,
# Grace): jetson-utils' `-gencode arch=compute_72` flags for Xavier. ROCm supports x86-64 hosts only
# (https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html, "Supported CPUs";
# every Instinct platform is an x86-64 EPYC host), so the port never takes the block: info (data `arm_host_only`).
# A condition with NOT or OR is not read, nor one that names x86 too (`MATCHES "aarch64|x86_64"`).
ARM_HOST_WORD = re.compile(rb"\b(?:aarch64|arm64|ARM64|AARCH64)\b")
_PROCESSOR_VARIABLES = frozenset({"CMAKE_SYSTEM_PROCESSOR", "CMAKE_HOST_SYSTEM_PROCESSOR"})
_ARM_HOST_VALUE = re.compile(r"^\^?\(?(?:aarch64|arm64|ARM64|AARCH64)"
                             r"(?:\|(?:aarch64|arm64|ARM64|AARCH64|armv8\w*))*\)?\$?$")


def _arm_host_condition(cond: str) -> bool:
    """Whether a CMake condition holds only on a 64-bit Arm host: the processor variable compared (MATCHES,
    STREQUAL) with aarch64/arm64 alone, and no NOT, OR or parenthesis (as _windows_condition)."""
    if "(" in cond:
        return False
    toks = cond.split()
    if "NOT" in toks or "OR" in toks:
        return False
    for i in range(len(toks) - 2):
        word = toks[i].strip('"')
        if word.startswith("${") and word.endswith("}"):
            word = word[2:-1]
        if word in _PROCESSOR_VARIABLES and toks[i + 1] in ("STREQUAL", "MATCHES") \
                and _ARM_HOST_VALUE.match(toks[i + 2].strip('"')):
            return True
    return False


def cmake_arm_host_blocks(sf: SourceFile) -> tuple[tuple[int, int, str, int], ...]:
    """The arms whose condition holds only on a 64-bit Arm host (step 4d)."""
    return cmake_condition_blocks(sf, _arm_host_condition)


# 2b. CMake: a repository's copy of a module CMake itself ships for CUDA - FindCUDA.cmake with its FindCUDA/ helpers
# (select_compute_arch.cmake's CUDA_SELECT_NVCC_ARCH_FLAGS, run_nvcc.cmake, make2cmake.cmake, parse_cubin.cmake) or
# FindCUDAToolkit.cmake, kept to pin a CMake version's behaviour (jetson-utils' cuda/FindCUDA) - is CMake's code, as a
# private copy of cuda.h is the toolkit's (step 2): its architecture tables and nvcc command lines are what the
# project's find_package(CUDA) and cuda_add_* calls choose, and those calls are the port's items (BLD002 and the
# flags they pass). Its findings read info (data `cmake_module`). Recognised by name and by the module's own text.
_CMAKE_CUDA_MODULES = {
    "FindCUDA.cmake": re.compile(rb"#\s*FindCUDA\b|\bCUDA_ADD_LIBRARY\b", re.I),
    "FindCUDAToolkit.cmake": re.compile(rb"#\s*FindCUDAToolkit\b"),
    "FindCUDA/select_compute_arch.cmake": re.compile(rb"\bCUDA_SELECT_NVCC_ARCH_FLAGS\b"),
    "FindCUDA/run_nvcc.cmake": re.compile(rb"FindCUDA\.cmake"),
    "FindCUDA/make2cmake.cmake": re.compile(rb"FindCUDA\.cmake"),
    "FindCUDA/parse_cubin.cmake": re.compile(rb"FindCUDA\.cmake"),
}


def cmake_module_copy(sf: SourceFile) -> str | None:
    """The CMake module a CMake file is a copy of (step 2b), or None."""
    for name, text in _CMAKE_CUDA_MODULES.items():
        if (sf.path == name or sf.path.endswith("/" + name)) and text.search(sf.data[:40000]):
            return name
    return None


# 5k. CMake: `set(CMAKE_CUDA_ARCHITECTURES OFF)` (BLD003) asks CMake to pass no architecture flag at all (FLAMEGPU's
# try_compile probe, heffte's default before CMake 3.24): it names no NVIDIA GPU, so there is nothing in it to
# change for HIP; the HIP architectures are set where the build chooses them. Info (data `no_architecture`).
_SET_OFF = re.compile(rb"\bset\s*\(\s*\w+\s+\"?OFF\"?(?:\s+CACHE\b[^)]*)?\s*\)", re.I)


def no_architecture(f: Draft, sf: SourceFile) -> Draft:
    """BLD003 on a `set(VAR OFF)` command: info (step 5k)."""
    if f.rule not in SAME_CHOICE_RULES or f.severity <= Severity.INFO:
        return f
    start = _offset(sf, f.line, 1)
    line_end = sf.code.find(b"\n", start)
    m = _SET_OFF.search(sf.code, start, line_end if line_end >= 0 else len(sf.code))
    if m is not None and m.start() <= _offset(sf, f.line, f.column) < m.end():
        return _as_info(f, "no_architecture", "sets the architectures to OFF: CMake passes no architecture flag, so no "
                                              "NVIDIA GPU is named here")
    # the test of an if() whose block only sets the architectures OFF (`if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)` /
    # `set(CMAKE_CUDA_ARCHITECTURES OFF)` / `endif()`) is that default's condition
    for arm in arms(sf.code):
        if arm.index != 0 or arm.line != f.line:
            continue
        body = [_code_line(sf, n).strip() for n in range(arm.line + 1, arm.end)]
        body = [t for t in body if t]
        if body and all(_SET_OFF.fullmatch(t) for t in body):
            return _as_info(f, "no_architecture", f"tests only whether to set the architectures OFF (line {arm.line + 1}):"
                                                  " CMake then passes no architecture flag")
    return f


# 5i. CMake: one architecture choice written in each arm of an if()/elseif()/else() chain (GOMC's
# `CMAKE_CUDA_ARCHITECTURES all` for CMake >= 3.23, else an nvcc-version ladder of SM lists; heffte's "OFF" before
# CMake 3.24, "native" after) is one decision for the port: set the HIP architectures once. The first arm's finding
# stays; a BLD003 finding in a later arm of a chain whose earlier arm already has one reads info (data `same_choice`).
SAME_CHOICE_RULES = frozenset({"BLD003"})


def cmake_arms(sf: SourceFile, lines: Iterable[int]) -> dict[int, tuple[tuple[int, int], ...]]:
    """Each of `lines` -> the (if line, arm index) of every CMake if() chain around it, outermost first."""
    every = arms(sf.code)
    return {line: tuple(sorted((a.chain, a.index) for a in every if a.line <= line < a.end)) for line in set(lines)}


def same_choice(findings: list[Draft], sf: SourceFile) -> list[Draft]:
    """BLD003 findings in a later arm of an if() chain whose earlier arm has one: info (step 5i)."""
    around = cmake_arms(sf, (f.line for f in findings if f.rule in SAME_CHOICE_RULES))
    choices = [(f.line, around[f.line]) for f in findings if f.rule in SAME_CHOICE_RULES]
    out = []
    for f in findings:
        if f.rule in SAME_CHOICE_RULES and f.severity > Severity.INFO:
            mine = around[f.line]
            earlier = next((line for line, theirs in choices for a, b in zip(mine, theirs)
                            if a[0] == b[0] and b[1] < a[1]), None)
            if earlier is not None:
                f = _as_info(f, "same_choice", f"line {earlier}, an earlier arm of the same if() chain, sets the "
                                               "architectures too: the port chooses them once")
        out.append(f)
    return out


# 5u. CMake: nvcc options chosen per build type (GSWITCH's `if (CMAKE_BUILD_TYPE STREQUAL "Debug")` / `set(CUDA_NVCC_FLAGS
# ...;-lineinfo;-Xcompiler;-ggdb;--expt-extended-lambda)` / `else ()` / `set(CUDA_NVCC_FLAGS ...;-maxrregcount=64;
# --expt-extended-lambda)`) are one port item: give HIP its options for each build type. CMAKE_BUILD_TYPE is empty
# unless set (https://cmake.org/cmake/help/latest/variable/CMAKE_BUILD_TYPE.html), so the default build takes the
# else() arm, and its nvcc options are where the port item is reported; a BLD004 finding in an arm that tests
# CMAKE_BUILD_TYPE for a named type reads info (data `build_type`) when the chain's else() arm has one of its own.
# Not when the file sets CMAKE_BUILD_TYPE itself (its default may be that type), nor for a test with AND, OR or NOT.
BUILD_TYPE_RULES = frozenset({"BLD004"})
BUILD_TYPE_WORD = re.compile(rb"\bCMAKE_BUILD_TYPE\b")
_BUILD_TYPE_TEST = re.compile(r'^\s*"?\$?\{?CMAKE_BUILD_TYPE\}?"?\s+(?:STREQUAL|MATCHES|STRLESS|STRGREATER)\s+"?\w+"?\s*$')
_SETS_BUILD_TYPE = re.compile(rb"(?i)\bset\s*\(\s*CMAKE_BUILD_TYPE\b")


def build_type_arms(findings: list[Draft], sf: SourceFile) -> list[Draft]:
    """BLD004 findings in an arm that tests CMAKE_BUILD_TYPE for a named type, when the same chain's else() arm
    (the default build's) has a BLD004 finding too: info (step 5u)."""
    if _SETS_BUILD_TYPE.search(sf.code):
        return findings
    every = arms(sf.code)
    typed = [a for a in every if _BUILD_TYPE_TEST.match(a.condition)]
    if not typed:
        return findings
    elses = {a.chain: a for a in every if a.index > 0 and not a.condition.strip()}
    severe = [f.line for f in findings if f.rule in BUILD_TYPE_RULES and f.severity > Severity.INFO]
    out = []
    for f in findings:
        if f.rule in BUILD_TYPE_RULES and f.severity > Severity.INFO:
            arm = next((a for a in typed if a.line <= f.line < a.end), None)
            other = elses.get(arm.chain) if arm is not None else None
            default = next((n for n in severe if other is not None and other.line <= n < other.end), None)
            if arm is not None and default is not None and arm.line != f.line:
                f = _as_info(f, "build_type", f"only the {arm.condition.split()[-1].strip(chr(34))} build type takes "
                                              f"this arm (line {arm.line}); the default build's else() arm sets the "
                                              f"options too (line {default}), where the port item is reported")
        out.append(f)
    return out


# 5j. CMake: `find_package(CUDAToolkit QUIET)` without REQUIRED is a probe: on ROCm it finds nothing and the
# configure goes on (Triton-distributed falls back to a bundled cuda.h, deepmd records nvcc when present, OpenMM
# switches its optional CUDA platform on). What the build does with the answer (enable_language(CUDA), CUDA::
# targets, nvcc flags) is reported where it is done. Info (data `probe`); a REQUIRED or plain find_package stays.
PROBE_RULES = frozenset({"BLD002"})
_FIND_PACKAGE = re.compile(rb"\bfind_package\s*\(([^()]*)\)", re.I)


def quiet_probe(f: Draft, sf: SourceFile) -> Draft:
    """BLD002 on a `find_package(... QUIET)` call without REQUIRED: info (step 5j)."""
    if f.rule not in PROBE_RULES or f.severity <= Severity.INFO or f.line > len(sf.line_starts):
        return f
    at = sf.line_starts[f.line - 1] + f.column - 1
    for m in _FIND_PACKAGE.finditer(sf.code, max(0, sf.code.rfind(b"\n", 0, at) - 400), at + 400):
        if m.start() <= at < m.end():
            words = m.group(1).upper().split()
            if b"QUIET" in words and b"REQUIRED" not in words:
                return _as_info(f, "probe", "a QUIET find_package without REQUIRED: on ROCm it finds nothing and the "
                                            "configure goes on; what uses the answer is reported where it is used")
            return f
    return f


# 4h. Jetson Linux installs its multimedia API's libraries under the tegra library directory and the API under
# /usr/src/jetson_multimedia_api (formerly tegra_multimedia_api; https://docs.nvidia.com/jetson/l4t-multimedia/);
# its libnvjpeg is the libjpeg-8b-compatible hardware JPEG codec of the board (libfreenect2's FindTegraJPEG.cmake:
# `FIND_LIBRARY(TegraJPEG_LIBRARIES NAMES nvjpeg PATH_SUFFIXES tegra)`). No x86-64 host, so no ROCm host, has it.
JETSON_SEARCH_RULES = frozenset({"LIB001", "LIB002", "LIB003", "LIB004", "LIB005", "LIB006", "LIB007", "LIB008"})
JETSON_WORD = re.compile(rb"(?i)\b(?:tegra|tegra_multimedia_api|jetson_multimedia_api)\b")
_FIND_COMMAND = re.compile(rb"(?i)[ \t]*find_(?:library|path|file)[ \t]*\(")
_JETSON_PATHS = re.compile(rb"(?i)\b(?:PATHS|HINTS|PATH_SUFFIXES)\b[^)]*?(?:\btegra\b|tegra_multimedia_api|"
                           rb"jetson_multimedia_api)")


def jetson_search(f: Draft, sf: SourceFile) -> Draft:
    """A library finding inside a find_library()/find_path()/find_file() call that searches the Jetson multimedia
    API's paths: info (step 4h)."""
    if f.rule not in JETSON_SEARCH_RULES or f.severity <= Severity.INFO or f.line > len(sf.line_starts):
        return f
    at = sf.line_starts[f.line - 1] + f.column - 1
    start, end = _command_span(sf.code, at)
    if not start <= at < end or not _FIND_COMMAND.match(sf.code, start) or not _JETSON_PATHS.search(sf.code, start, end):
        return f
    return _as_info(f, "jetson_only", "looked up in the Jetson multimedia API's paths: the library a Jetson board "
                                      "ships, a build ROCm (x86-64 hosts) never makes")


# 5t. CMake: an nvcc spelling that HIP-language sources never get. A flag inside a `$<$<COMPILE_LANGUAGE:CUDA>:...>`
# generator expression reaches only sources CMake compiles as CUDA; a HIP port compiles them as the HIP language
# (https://cmake.org/cmake/help/latest/manual/cmake-generator-expressions.7.html#genex:COMPILE_LANGUAGE). Usually the
# port must still give HIP its own spelling (TEMPI's Debug `-G -Xcompiler=...`, next to a CXX-only arm, is real
# work). Not when the same command gives every other language the plain flags: CMake's own FindThreads writes
# `$<$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>:SHELL:-Xcompiler -pthread>` beside `$<$<NOT:$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>>:
# -pthread>` (https://github.com/Kitware/CMake/blob/master/Modules/FindThreads.cmake), projects copy the idiom
# (RamsesGPU's protect_pthread_flag.cmake, arbor's FindThreadsCudaFix.cmake), and `$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler
# >-pthread` prefixes nvcc's wrapper to a flag every language gets. A HIP-language source takes the plain arm: the
# nvcc spelling never reaches it, and the flags it needs are already there. BLD004 in such a CUDA arm reads info (data
# `language_pair`), and so does one on a `string(REPLACE ...)` / `set()` inside a function() whose result the function
# reads only in such arms (function variables are local to the call, https://cmake.org/cmake/help/latest/command/
# function.html).
PAIRED_LANGUAGE_RULES = frozenset({"BLD004"})
LANGUAGE_WORD = re.compile(rb"COMPILE_LANG(?:UAGE|_AND_ID)\s*:\s*CUDA\b")
_NVCC_PREFIX_ONLY = re.compile(rb"\s*(?:SHELL:)?\s*-Xcompiler(?:=|\s*)")
_COMMAND_HEAD = re.compile(rb"^[ \t]*([A-Za-z_]\w*)[ \t]*\(", re.M)
_FUNCTION = re.compile(rb"^[ \t]*function[ \t]*\(", re.I | re.M)
_ENDFUNCTION = re.compile(rb"^[ \t]*endfunction[ \t]*\(", re.I | re.M)
_WRITES = re.compile(rb"^[ \t]*(?:string[ \t]*\([ \t]*(?:REPLACE|REGEX[ \t]+REPLACE)[ \t]+(?:\"[^\"]*\"|\S+)[ \t]+"
                     rb"(?:\"[^\"]*\"|\S+)[ \t]+|set[ \t]*\([ \t]*)([A-Za-z_]\w*)\b", re.I | re.M)


def _command_span(code: bytes, at: int) -> tuple[int, int]:
    """The byte span of the CMake command invocation holding offset `at` (its name to its closing parenthesis)."""
    start = 0
    for m in _COMMAND_HEAD.finditer(code, 0, at + 1):
        start = m.start()
    depth, i = 0, code.find(b"(", start)
    while 0 <= i < len(code):
        depth += {0x28: 1, 0x29: -1}.get(code[i], 0)
        if depth == 0:
            return start, i + 1
        i += 1
    return start, len(code)


def paired_language_arms(sf: SourceFile) -> list[tuple[int, int, int]]:
    """(body start, body end, line of the plain arm or 0 for a prefix) of each CUDA-language arm whose flags other
    languages get plainly (step 5t)."""
    code = sf.code
    found = generator_expressions(code)
    arms_: list[tuple[int, int, int]] = []
    for start, colon, end in found:
        cond = code[start + 2:colon] if colon > 0 else b""
        if not cond.startswith(b"$<") or not LANGUAGE_WORD.search(cond) or b"NOT:" in cond or b"OR:" in cond:
            continue
        body = code[colon + 1:end - 1]
        if _NVCC_PREFIX_ONLY.fullmatch(body):
            arms_.append((colon + 1, end - 1, 0))
            continue
        a, b = _command_span(code, start)
        plain = next((s for s, c, e in found if a <= s < b and c > 0 and b"NOT:" in code[s + 2:c]
                      and LANGUAGE_WORD.search(code[s + 2:c]) and b"OR:" not in code[s + 2:c]), None)
        if plain is not None:
            arms_.append((colon + 1, end - 1, code.count(b"\n", 0, plain) + 1))
    return arms_


def _functions(code: bytes) -> list[tuple[int, int]]:
    """Byte spans of the function() ... endfunction() bodies of a CMake file."""
    out = []
    for m in _FUNCTION.finditer(code):
        e = _ENDFUNCTION.search(code, m.end())
        out.append((m.end(), e.start() if e else len(code)))
    return out


def paired_language(findings: list[Draft], sf: SourceFile) -> list[Draft]:
    """BLD004 in a CUDA-language arm whose command gives other languages the plain flags, or on a function's
    variable the function reads only in such arms: info (step 5t)."""
    covered = paired_language_arms(sf)
    if not covered:
        return findings

    def why(a: int, b: int, plain: int) -> str:
        if plain:
            return (f"in a $<COMPILE_LANGUAGE:CUDA> arm whose command gives every other language the plain flags "
                    f"(the $<NOT:...> arm, line {plain}): a HIP-language source takes that arm and never sees the "
                    "nvcc spelling")
        return ("nvcc's -Xcompiler prefix in a $<COMPILE_LANGUAGE:CUDA> arm: every other language, HIP included, "
                "gets the flag after it plainly")

    out = []
    for f in findings:
        if f.rule in PAIRED_LANGUAGE_RULES and f.severity > Severity.INFO:
            at = _offset(sf, f.line, f.column)
            arm = next(((a, b, p) for a, b, p in covered if a <= at < b), None)
            if arm is not None:
                f = _as_info(f, "language_pair", why(*arm))
            else:
                f = _read_only_in_pairs(f, sf, at, covered, why)
        out.append(f)
    return out


def _read_only_in_pairs(f: Draft, sf: SourceFile, at: int, covered: list[tuple[int, int, int]],
                        why: Callable[[int, int, int], str]) -> Draft:
    """The finding at info when it is on a write of a function variable read only in covered arms (step 5t)."""
    code = sf.code
    body = next(((a, b) for a, b in _functions(code) if a <= at < b), None)
    if body is None:
        return f
    line_start = code.rfind(b"\n", 0, at) + 1
    m = _WRITES.match(code, line_start)
    if m is None:
        return f
    name = m.group(1)
    reads = [r.start() for r in re.finditer(rb"\$\{" + re.escape(name) + rb"\}", code[body[0]:body[1]])]
    arms_ = [next(((a, b, p) for a, b, p in covered if a <= body[0] + r < b), None) for r in reads]
    if not arms_ or any(x is None for x in arms_):
        return f
    first = arms_[0]
    assert first is not None
    return _as_info(f, "language_pair", f"sets {name.decode()}, which this function reads only {why(*first)}")
