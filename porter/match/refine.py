"""The one step between rule hits and a file's findings that makes them hold on real code: dead preprocessor
branches, private copies of toolkit headers, and one finding per spot.

`refine(findings, sf)` runs once per file after every rule has matched (porter.match.engine.run_rules), on the
sorted drafts of its findings (porter.match.draft):
1. Findings inside a branch the preprocessor never compiles (`#if 0 … #endif`, the `#else` of `#if 1`) are
   dropped: no compiler ever sees that code, on CUDA or on HIP.
2. A file that is a private copy of a CUDA toolkit header (a repository's own `cuda.h`, kept so it builds without
   the toolkit) declares the API rather than using it; its api/device findings are dropped.
3. Code inside the AMD branch of a ROCm guard is kept: port-awareness (porter.portaware) reads it handled, port
   work already done, with the guard as evidence. A capability or toolkit-version test (DEV009, DEV010) whose `#if` has an `#else` fallback without PTX, traps or #error is what HIP compiles, and works;
   so does one that names ROCm or clang itself (`|| defined(__HIPCC__)`, `|| defined(__clang__)`: hip-clang is
   clang), on every line of a continued directive, and one in an `#elif` after an arm the ROCm build takes;
   a deprecated API (API003) in the old-toolkit `#else` of `#if CUDA_VERSION >= N` is a fallback, not a use.
   A toolkit test HIP answers as CUDA 13 does (`defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ < 13`: false
   on both) and a group whose arms hold only #pragma lines (a warning push under `CUDA_VERSION >= 9000`) are no
   porting item either; a finding inside an arm both skip is code for older toolkits: info (data `old_toolkit`).
   (A capability test whose arm ends in a dangling `else` stays: the general block after `#endif` works on HIP, but
   the fast path it skips may be one AMD has - instant-ngp's packed __half2 atomics, judged real.)
3a. A capability or toolkit test whose arm only `#define`s feature macros (`#if __CUDA_ARCH__ >= 1000` / `#define
   KERUTILS_ENABLE_SM100`) chooses nothing itself: the `#ifdef` sites testing the macro do. Info (data
   `defines_only`).
3b. A `defined()`-only test of the compiler's published toolkit macros (`__CUDACC_VER_MAJOR__`, `__CUDA_ARCH_LIST__`,
   `CUDART_VERSION`) with no `#else`, whose arm reads them, and each read inside such an arm, only asks the compiler
   to say something HIP does not: info (data `introspection`); so is a version macro named in an output statement.
   A toolkit test whose arms only print (`fprintf` lines of a device report) is dropped as a pragma-only one is, and
   an arm that only redefines a device function HIP declares under the same name (`#define __umul24(a, b)`) reads
   info with the feature-macro arms of 3a.
4. A drop-in library's include (LIB001) inside an `#if` arm that tests the library's own switch (`#if HAVE_NVTX`,
   `#ifdef APP_USE_CUSOLVER`) is optional: the build sets the switch only where it finds the library. It reads info,
   with the switch under data `optional`.
4a. Profiling instrumentation: a finding inside a positive `#if` arm or CMake `if()` block whose condition names an
   NVTX switch (`#if defined(GOMC_NVTX_ENABLED)`, `if(USE_NVTX)`) is in a build the user opts into for Nsight
   profiling; the default build never compiles it: info (data `optional`).
4c. CMake: a finding inside an if() block only a Windows build takes (`if(MSVC)`, `if(WIN32 AND ...)`) is in a build
   ROCm for Instinct GPUs never makes (Linux only): info (data `windows_only`).
5. An API name in the text of an `#error` / `#warning` / `#pragma message` is a message, not a use: dropped; so is
   a compiler, flag or architecture list named in a CMake message(), a print/summary helper's arguments or an
   option()/CACHE documentation string.
4b. A drop-in library's Python import (LIB007) inside a try whose except catches ImportError (by name, or a bare
   `except:` / `except Exception`) is optional: info,
   with the handler's line under data `optional`. A port-kind or unported library's import there (LIB008, LIB009:
   pytorch3d probes `pycuda.gl` so its OpenGL rasterizer is imported only where PyCUDA is installed) keeps its
   severity, since using the feature on ROCm still needs the rewrite, and carries `optional` too: the project runs
   without it, which the effort estimate reads as feature parity, not the minimal port. When the name it binds is
   used nowhere else in the module, the import is only a probe (data `probe`): info, the work is where it is used.
5a. A URL in setup.py's `dependency_links=[...]` installs nothing (pip ignores the argument since 19.0): dropped.
5c. Python: a finding inside the arguments of print (and rank-0 print helpers) or of warn/info/debug/error on
   logging, a logger or warnings is a message, not a use: dropped.
5g. Make and shell: an architecture flag on a line that runs an NVIDIA inspection tool (`cuobjdump -arch sm_86
   -sass`) picks what a developer looks at, not what the build makes: info (data `tool`).
5f. Make: a flag named in the first argument of `$(filter-out ...)` is one the Makefile removes: dropped. CMake: a
   flag a build only tests for or takes out - the left operand of `IN_LIST`, an item of `list(REMOVE_ITEM ...)` - is
   not one it passes (Kokkos strips a duplicated `-Xcompiler` from option lists): dropped.
5e. Python: a kernel string CuPy compiles (RawKernel, RawModule, ElementwiseKernel, ReductionKernel) reads info in
   PYT007 (data `rocm_compiles`): CuPy's ROCm build compiles it with hipRTC; what in it does not hold on AMD is its
   own finding. PyCUDA's SourceModule stays open.
5d. Python: a finding in the `if __name__ == "__main__":` self-test of a module that defines functions or classes
   reads info (data `self_test`): the self-test runs only by hand, the library code is what ships.
5h. A warp-size constant (DEV011, `constexpr int WARP_SIZE = 32;`) local to a host function that has no device code
   and launches no kernel describes a data layout on the CPU side (a debug printer of packed tiles): info (data
   `host_only`). One in a launcher (`<<<`, a launch call or macro, a dim3) may size the grid for a kernel: open.
5i. CMake: the architectures set in each arm of one if()/elseif()/else() chain are one choice: a BLD003 finding in
   a later arm than another BLD003 finding of the same chain reads info (data `same_choice`).
5j. CMake: `find_package(CUDAToolkit QUIET)` without REQUIRED (BLD002) is a probe the ROCm configure passes: info
   (data `probe`); the arms that use its answer are reported where they use it.
5k. CMake: `set(CMAKE_CUDA_ARCHITECTURES OFF)` (BLD003), and the if() whose block only does that, name no GPU:
   info (data `no_architecture`).
5l. Python: nvidia-smi (PYT006) in a function that also runs rocm-smi or amd-smi is a dual platform probe: info
   (data `probes_rocm`).
5b. warpSize as a constant (DEV004) where the code declared its own `warpSize` variable before it, in the function
   or at file scope, names that variable, not HIP's: dropped.
6. A warp-mask finding (DEV002, DEV003, and API004's same-name note) in the tested arm of `#if __CUDA_ARCH__ >= N`
   whose `#else` has code is dropped: HIP leaves `__CUDA_ARCH__` undefined and compiles the `#else`, never that line.
   An API HIP lacks (API002) in such an arm reads info (data `hip_compiles`): there is no fast path to keep.
6a. Inline PTX (DEV001) in an arm that tests only the device pass (`#ifdef __CUDA_ARCH__`, `#elif
   defined(__CUDA_ARCH__)`) of a group whose `#else` has working code (no PTX, trap or #error) reads info, with that
   `#else` under data `hip_compiles`: HIP leaves `__CUDA_ARCH__` undefined, so it compiles the `#else` and never
   sees the PTX (FBGEMM's CUTLASS-copied cutlass_get_smem_pointer). A generation test (`__CUDA_ARCH__ >= 800`)
   stays open: its PTX is a fast path the port may want.
7. hipify's renames are free work: a same-name device function (API004) whose knowledge-base entry carries no
   caveat (`__bfloat162float`, `__float22bfloat162_rn`: HIP declares it, with the same meaning) and an API CUDA
   deprecated that hipify maps to a HIP call HIP keeps (API003: `cudaFuncSetSharedMemConfig`) read info, as
   API001's renames do, and so does a deprecated name HIP keeps as its own (`__shfl_down`); an entry with a caveat (the `*_sync` warp functions' 64-bit masks, `__syncwarp`) and the
   directed-rounding intrinsics HIP declares only under `OCML_BASIC_ROUNDED_OPERATIONS` stay open.
8. A capability test (PYT001) that Ampere (8, 0) and every AMD GPU porter knows answer alike - `cap < (8, 0)`,
   `cap[0] == 10` - sends ROCm down the path an Ampere GPU takes, which uses nothing HIP lacks: info, with the
   answer under data `amd_answers`. A test AMD answers unlike Ampere (`>= (9, 0)`: Hopper-only code taken on
   MI300X, which reports (9, 4)) and a capability the line does not compare stay open.
8a. A grid-wide barrier (KRN004's `grid.sync()`) is what HIP's grid_group supports as is under
   hipLaunchCooperativeKernel; the port's work is at the cooperative launch (the grid sized for AMD residency), which
   KRN004 reports on its own. The barrier reads info (data `cooperative`) unless this file launches the kernel
   holding it (or a kernel calling the device helper holding it) with `<<<>>>`, where no cooperative launch makes the
   barrier legal (hornet's mergePathKernelFusionWrapper). A cooperative launch in a host function that sizes the grid
   from the occupancy API at run time (`cudaOccupancyMaxActiveBlocksPerMultiprocessor` x multiprocessors) is sized
   for whichever GPU runs it: info (data `occupancy`).
8b. A capability (PYT001) only kept as a record or compared for equality with another recorded capability
   (`"device_capability": torch.cuda.get_device_capability()` in a cache entry; `cached["cap"] != current` to
   invalidate it) asks "is this the same GPU", which every GPU answers for itself: info (data `identity`).
8c. Python: an nvcc variable's name (BLD006) read from the environment with a default (`os.getenv("NVCC_FLAGS",
   "")`, `os.environ.get("TORCH_CUDA_ARCH_LIST", None)`) is a build that works without it: what the user sets is
   theirs, the default passes nothing NVIDIA-only. Info (data `env_default`); a required read
   (`os.environ["TORCH_CUDA_ARCH_LIST"]`, pplx's CMake argument) and a write stay open.
8d. Python: an NVFP4-named enum member defined with a plain number (`NVFP4 = 18` in `class DType(Enum)`, QNT003)
   names a value and runs nothing: info (data `own_name`). Its uses, ModelOpt's `mtq.NVFP4_DEFAULT_CFG`, TensorRT-LLM's
   `QuantAlgo.NVFP4` and `torch.float4_e2m1fn_x2` stay open.
8e. Python: a dtype (QNT003, QNT004) taken only where the installed PyTorch has it - `torch.float4_e2m1fn_x2 if
   hasattr(torch, "float4_e2m1fn_x2") else torch.int8` - is a probe with a fallback: info (data `probed`).
8f. Python: an OCP FP8 dtype (QNT004) inside a dict, list, tuple or set literal that also names an FNUZ dtype
   (`{torch.float8_e4m3fn: 1e-3, ..., torch.float8_e4m3fnuz: 1e-3}`) is a table that serves both encodings: info
   (data `fnuz_too`).
8g. C/C++: a device-property capability test (DEV013: `prop.major < 6`, `prop.major*100 + prop.minor >= 600`) that
   every NVIDIA GPU current CUDA supports (Turing 7.5 on) and every AMD GPU answer alike picks the path all of them
   take (arbor's double-atomic flag, libCEED's pre-Pascal atomicAdd fallback): info (data `amd_answers`).
8h. C/C++: a device-property capability test (DEV013) that only sets a variable the file reads only in printed text
   changes a line of a report: info (data `report_only`). Python: a capability only joined into a label nothing
   compares is an identity (8b), and TORCH_CUDA_ARCH_LIST written from the running GPU's own capability names no
   NVIDIA GPU (data `own_arch`, 8i).
9. Duplicates: where two rules report the same spot, only the most specific one is kept (rules/kb/precedence.yaml: DEV007's
   "wgmma: rewrite with CK" over DEV001's "inline PTX", API006's "no drop-in" over LIB001's "drop-in", DEV002's
   "32-bit mask" over API004's "same name in HIP"), and the dropped findings' facts are merged into its `data` under
   `also` ("RULE: message", sorted), so nothing the dropped rule knew is lost.
"""
from __future__ import annotations

import ast
import functools
import re
from pathlib import Path, PurePosixPath
from typing import Any, Iterable

from porter.datafile import DATA_DIR, read_yaml
from porter.errors import DataFileError
from porter.match.draft import Draft
from porter.match.kinds.code_kb import GENERIC_SAME_NAME
from porter.model import Severity
from porter.source.cmake_conditions import arms
from porter.source.parse import SourceFile
from porter.source.preprocessor import CUDA as CUDA_BUILD
from porter.source.preprocessor import (POSITIVE_ARMS, ROCM, Build, Group, condition, may_hold_directives, names_rocm,
                                       preprocessed)

PRECEDENCE_FILE = DATA_DIR / "kb" / "precedence.yaml"
_RULE_ID = re.compile(r"[A-Z]{3}[0-9]{3}")


class PrecedenceError(DataFileError):
    """rules/kb/precedence.yaml cannot be used."""


@functools.lru_cache(maxsize=4)
def specific(path: Path = PRECEDENCE_FILE) -> dict[str, tuple[str, ...]]:
    """General rule -> the rules that, hitting the same spot, say the same thing more specifically (the general
    one yields), in the file's order: the table rules/kb/precedence.yaml holds as data."""
    raw = read_yaml(path, PrecedenceError)
    table = raw.get("specific") if isinstance(raw, dict) else None
    if not isinstance(table, dict) or not table:
        raise PrecedenceError(path, "specific", "must be a non-empty mapping of rule id -> [more specific rule ids]")
    out: dict[str, tuple[str, ...]] = {}
    for general, rules in table.items():
        if not isinstance(general, str) or not _RULE_ID.fullmatch(general):
            raise PrecedenceError(path, f"specific.{general}", "a key is a rule id (three capitals, three digits)")
        if not isinstance(rules, list) or not all(isinstance(r, str) and _RULE_ID.fullmatch(r) for r in rules):
            raise PrecedenceError(path, f"specific.{general}", "must be a list of rule ids")
        if general in rules:
            raise PrecedenceError(path, f"specific.{general}", "a rule cannot be more specific than itself")
        out[general] = tuple(rules)
    return out


# Toolkit headers a repository may carry a private copy of (to build without the CUDA toolkit installed).
TOOLKIT_HEADERS = frozenset({
    "cuda.h", "cuda_runtime.h", "cuda_runtime_api.h", "driver_types.h", "driver_functions.h", "vector_types.h",
    "cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h", "cuda_bf16.hpp", "cuda_fp8.h", "cuda_fp8.hpp", "cudaTypedefs.h",
    "cuda_device_runtime_api.h", "device_types.h", "library_types.h", "cublas_api.h", "cublas_v2.h", "cublasLt.h",
    "nvrtc.h", "cuda_awbarrier.h", "cuda_pipeline.h", "curand_kernel.h", "cuComplex.h", "cudaGL.h", "cudaEGL.h",
})
# A copy declares the API: NVIDIA's notice, or the header's own include guard.
_TOOLKIT_COPY = re.compile(rb"NVIDIA Corporation|NVIDIA CORPORATION|#\s*define\s+__CUDA_(?:API_)?H__|#\s*define\s+CUDA_VERSION\s+\d"
                           rb"|#\s*define\s+__CUDA_RUNTIME_H__|#\s*define\s+__DRIVER_TYPES_H__|#\s*define\s+__CUDA_FP16_H__")
_COPY_DROPS = frozenset({"api", "device", "kernel"})

# Capability and toolkit-version tests: not a porting item when their #else is a fallback HIP compiles.
FALLBACK_RULES = frozenset({"DEV009", "DEV010"})
# Deprecated-API uses: not a use when they sit in the old-toolkit #else of `#if CUDA_VERSION >= N`.
OLD_TOOLKIT_RULES = frozenset({"API003"})
# Warp-mask findings in a `__CUDA_ARCH__ >= N` arm whose `#else` HIP compiles instead: moot on HIP.
# API004's "same name in HIP, check it" is as moot there. Other findings stay: a tensor-core path under
# `>= 800` is work the port may want (an MFMA path), even though HIP falls back to the #else.
ARCH_ARM_MASK_RULES = frozenset({"DEV002", "DEV003", "API004"})
# An API HIP lacks (API002) in such an arm: no fast path the port could keep (HIP has no such call), and the
# `#else` HIP compiles instead is the program's own fallback (GAMER's `atomicExch_block` under `__CUDA_ARCH__ >= 600`,
# plain `atomicExch` in the `#else`). Info (data `hip_compiles`).
ARCH_ARM_MISSING_RULES = frozenset({"API002"})
# Inline PTX in a device-pass-only `__CUDA_ARCH__` arm whose `#else` HIP compiles: info (module doc, step 6a).
DEVICE_PASS_RULES = frozenset({"DEV001"})
_DEVICE_PASS = re.compile(r"^\s*\(?\s*(?:defined\s*\(\s*__CUDA_ARCH__\s*\)|defined\s+__CUDA_ARCH__|__CUDA_ARCH__)\s*\)?\s*$")
_ARCH_TEST = re.compile(r"\b__CUDA_ARCH__\b")
_ARCH_GENERATION = re.compile(r"^\s*\(?\s*(?:defined\s*\(\s*__CUDA_ARCH__\s*\)\s*&&\s*)?__CUDA_ARCH__\s*>=?\s*\d+\s*\)?\s*$")
_DIAGNOSTIC = re.compile(rb"[ \t]*#[ \t]*(?:error|warning|pragma[ \t]+message)\b")
# Capability tests read against Ampere and the AMD GPUs (module doc, step 8).
CAPABILITY_RULES = frozenset({"PYT001"})
# A kernel in a Python string that CuPy compiles (5e).
HIPRTC_RULES = frozenset({"PYT007"})
# Same-name findings whose knowledge-base entry has no caveat: a plain rename, info (module doc, step 7).
PLAIN_RENAME_RULES = frozenset({"API004", "API003"})
# Drop-in library includes: optional (info) when an arm around them tests the library's own switch.
OPTIONAL_DROPIN_RULES = frozenset({"LIB001"})
_MACRO = re.compile(r"\b[A-Za-z_]\w*\b")
_CUDA_VERSION_AT_LEAST = re.compile(r"\b(?:CUDA_VERSION|CUDART_VERSION|__CUDACC_VER_MAJOR__)\s*>=?\s*\d")
# An #else that traps, asserts, errors, uses PTX, is an empty stub (`__global__ void k(...) {}`) or says the arch is
# unsupported does not work on HIP, so the test in front of it is a real porting item.
_BROKEN_FALLBACK = re.compile(rb"\basm\b|\b__asm__\b|\bbrkpt\b|\btrap\b|__trap\s*\(|#\s*error\b|assert\s*\(\s*(?:0|false)\s*\)"
                              rb"|\)\s*(?:const\s*)?\{\s*\}|UNSUPPORTED|[Uu]nsupported|not supported")


def refine(findings: list[Draft], sf: SourceFile, rocm_names: Iterable[str] = (),
           trust_copies: bool = True) -> list[Draft]:
    """The file's findings without dead-branch hits, toolkit-copy declarations and duplicates (see the module doc);
    `rocm_names`: the repository's ROCm-side macros beyond the built-in ones (configuration's and derived)."""
    if not findings:
        return findings
    dead = dead_lines(sf)
    if dead:
        findings = [f for f in findings if f.line not in dead]
    if findings and sf.language == "cuda" and may_hold_directives(sf.code):
        groups = preprocessed(sf).groups
        # Code in a ROCm-only arm is kept: port-awareness (porter.portaware) reads it handled, port work done.
        fallback = fallback_tests(groups, sf, rocm_names)
        old_toolkit = old_toolkit_lines(groups)
        findings = [f for f in findings if not (f.rule in FALLBACK_RULES and f.line in fallback)
                    and not (f.rule in OLD_TOOLKIT_RULES and f.line in old_toolkit)]
        if any(f.rule in FEATURE_DEFINE_RULES for f in findings):
            findings = [feature_defines(f, groups, sf) for f in findings]
        if any(f.rule in INTROSPECTION_RULES for f in findings):
            findings = [introspection(f, groups, sf) for f in findings]
        legacy = old_toolkit_arms(groups) if any(w in sf.code for w in _TOOLKIT_WORDS) else {}
        if legacy:
            findings = [legacy_arm(f, legacy) for f in findings]
        if any(f.rule in ARCH_ARM_MASK_RULES for f in findings):
            pre = preprocessed(sf)
            findings = [f for f in findings if not (f.rule in ARCH_ARM_MASK_RULES and _newer_arch_arm(pre, f.line))]
        if any(f.rule in ARCH_ARM_MISSING_RULES for f in findings):
            pre = preprocessed(sf)
            findings = [_as_info(f, "hip_compiles", "in a `__CUDA_ARCH__ >= N` arm: HIP leaves __CUDA_ARCH__ undefined "
                                                    "and compiles the #else, which has code")
                        if f.rule in ARCH_ARM_MISSING_RULES and f.severity > Severity.INFO
                        and _newer_arch_arm(pre, f.line) else f for f in findings]
        if any(f.rule in DEVICE_PASS_RULES for f in findings):
            pre = preprocessed(sf)
            findings = [device_pass_arm(f, pre, sf) for f in findings]
        if any(f.rule in OPTIONAL_DROPIN_RULES for f in findings):
            findings = [optional_dropin(f, groups) for f in findings]
        if b"NVTX" in sf.code.upper():
            findings = [profiling_switch(f, groups) for f in findings]
    if findings and sf.language == "cuda" and b"warpSize" in sf.code and any(f.rule in OWN_WARPSIZE_RULES for f in findings):
        findings = [f for f in findings if not (f.rule in OWN_WARPSIZE_RULES and own_warpsize(sf, f.line, f.column))]
    if findings and sf.language == "cuda" and any(f.rule in HOST_CONSTANT_RULES for f in findings):
        findings = [host_constant(f, sf) for f in findings]
    if findings and sf.language == "cuda" and any(f.category == "api" for f in findings):
        findings = [f for f in findings if not (f.category == "api" and _diagnostic_line(sf, f.line))]
    if findings and sf.language == "cmake" and (b"message" in sf.data or b"option" in sf.data or b"CACHE" in sf.data
                                                 or b"rint" in sf.data or b"ummary" in sf.data or b"arn" in sf.data):
        findings = without_prose(findings, sf)
    if findings and sf.language == "cmake" and b"NVTX" in sf.code.upper():
        blocks = cmake_profiling_blocks(sf)
        findings = [next((_as_info(f, "optional", f"only built with the profiling switch {switch} (line {at})")
                          for a, b, switch, at in blocks if a <= f.line <= b and f.severity > Severity.INFO), f)
                    for f in findings]
    if findings and sf.language == "cmake" and _WINDOWS_WORD.search(sf.code):
        blocks = cmake_windows_blocks(sf)
        findings = [next((_as_info(f, "windows_only", f"in a block only a Windows build takes ({cond}, line {at}): "
                                                      "ROCm on Instinct GPUs builds on Linux")
                          for a, b, cond, at in blocks if a <= f.line <= b and f.severity > Severity.INFO), f)
                    for f in findings]
    if findings and sf.language == "cmake" and b"OFF" in sf.code and any(f.rule in SAME_CHOICE_RULES for f in findings):
        findings = [no_architecture(f, sf) for f in findings]
    if findings and sf.language == "cmake" and b"QUIET" in sf.code.upper():
        findings = [quiet_probe(f, sf) for f in findings]
    if sum(f.rule in SAME_CHOICE_RULES for f in findings) > 1 and sf.language == "cmake":
        findings = same_choice(findings, sf)
    if findings and sf.language == "cmake" and (b"IN_LIST" in sf.code or b"REMOVE_ITEM" in sf.code):
        removed = cmake_removed(sf)
        findings = [f for f in findings if not any(a <= _offset(sf, f.line, f.column) < b for a, b in removed)]
    if findings and sf.language in ("make", "shell") and _INSPECTOR_WORD.search(sf.code):
        findings = [inspector_argument(f, sf) for f in findings]
    if findings and sf.language == "make" and b"filter-out" in sf.code:
        removed = filtered_out(sf)
        findings = [f for f in findings if not any(a <= _offset(sf, f.line, f.column) < b for a, b in removed)]
    # `trust_copies` False (an --isolated diff: the file is part of the change): a file's own claim to be NVIDIA's
    # header is not taken, as a change's own suppressions and ROCm arms are not (porter.diff._reopen).
    if trust_copies and private_toolkit_copy(sf):
        findings = [f for f in findings if f.category not in _COPY_DROPS]
    findings = [plain_rename(f) for f in findings]
    if sf.language == "python" and (b"ImportError" in sf.code or b"ModuleNotFoundError" in sf.code
                                    or b"Exception" in sf.code or _BARE_EXCEPT.search(sf.code)):
        if any(f.rule in OPTIONAL_IMPORT_RULES or f.rule in PROBED_IMPORT_RULES for f in findings):
            tries = optional_import_blocks(sf)
            findings = [optional_import(f, tries, sf) for f in findings]
    if sf.language == "python" and b"dependency_links" in sf.code:
        ignored = ignored_by_pip(sf)
        findings = [f for f in findings if not any(a <= f.line <= b for a, b in ignored)]
    if findings and sf.language == "cuda" and any(f.rule in COOPERATIVE_RULES for f in findings):
        findings = [cooperative(f, sf) for f in findings]
    if sf.language == "python" and any(f.rule in OWN_NAME_RULES for f in findings):
        findings = [project_name(f, sf) for f in findings]
    if sf.language == "python" and b"hasattr" in sf.code and any(f.rule in PROBED_DTYPE_RULES for f in findings):
        findings = [probed_dtype(f, sf) for f in findings]
    if sf.language == "python" and b"fnuz" in sf.code and any(f.rule in FNUZ_TABLE_RULES for f in findings):
        findings = [fnuz_table(f, sf) for f in findings]
    if sf.language == "python" and any(f.rule in CAPABILITY_RULES for f in findings):
        findings = [ampere_path(f, sf.code) for f in findings]
        findings = [capability_identity(f, sf) for f in findings]
    if sf.language == "cuda" and any(f.rule in PROP_CAPABILITY_RULES for f in findings):
        findings = [legacy_capability(f, sf.code) for f in findings]
        findings = [report_only(f, sf) for f in findings]
    if sf.language == "python" and any(f.rule in ENV_DEFAULT_RULES for f in findings) and (
            b"getenv" in sf.code or b"environ" in sf.code):
        findings = [env_default(f, sf) for f in findings]
        if b"get_device_capability" in sf.code:
            findings = [own_arch(f, sf) for f in findings]
    if sf.language == "python" and any(f.rule in HIPRTC_RULES for f in findings) and _CUPY_KERNEL.search(sf.code):
        findings = cupy_kernels(findings, sf)
    if sf.language == "python" and _ROCM_TOOL.search(sf.data) and any(f.rule in SMI_RULES for f in findings):
        findings = [dual_probe(f, sf) for f in findings]
    if sf.language == "python" and findings and b"__main__" in sf.data:
        block = self_test_block(sf)
        if block is not None:
            findings = [self_test(f, block) for f in findings]
    if sf.language == "python" and findings and _PY_MESSAGE_HINT.search(sf.code):
        spans = message_call_spans(sf)
        if spans:
            findings = [f for f in findings if not any(a <= (f.line, f.column) < b for a, b in spans)]
    return one_per_spot(findings)


# 5l. Python: nvidia-smi (PYT006) run by a function that also runs rocm-smi or amd-smi (Liger-Kernel's get_platform():
# nvidia-smi first, rocm-smi when it is missing) is a platform probe that already answers for AMD: info (data
# `probes_rocm`). A function that only runs nvidia-smi stays open, whatever the rest of the file does.
SMI_RULES = frozenset({"PYT006"})
_ROCM_TOOL = re.compile(rb"\b(?:rocm-smi|amd-smi)\b")


def dual_probe(f: Draft, sf: SourceFile) -> Draft:
    """PYT006 at info inside a Python function whose code also names rocm-smi or amd-smi (step 5l)."""
    if f.rule not in SMI_RULES or f.severity <= Severity.INFO or sf.root is None:
        return f
    node = sf.root.named_descendant_for_byte_range(_offset(sf, f.line, f.column), _offset(sf, f.line, f.column) + 1)
    while node is not None and node.type != "function_definition":
        node = node.parent
    if node is None:
        return f
    m = _ROCM_TOOL.search(sf.data, node.start_byte, node.end_byte)
    if m is None:
        return f
    line = sf.data.count(b"\n", 0, m.start()) + 1
    return _as_info(f, "probes_rocm", f"the same function runs {m.group(0).decode()} (line {line}): a platform probe "
                                      "that answers for AMD")


# 5f. Make: the flags `$(filter-out FLAGS,$(VAR))` names are the ones it takes out (cholla's clang-tidy flag list
# drops nvcc's `--expt-extended-lambda`): removed, not passed, so no hit there.
_FILTER_OUT = re.compile(rb"\$[({]filter-out\s+([^,)}]*),")


# 5g. Make and shell: an architecture flag passed to an NVIDIA inspection tool (`cuobjdump -arch sm_86 -sass ...` in
# SGEMM_CUDA's disassembly target; nvdisasm, the profilers) picks what a developer looks at, not what the build makes:
# info (data `tool`). The same flag on an nvcc line stays.
ARCH_FLAG_RULES = frozenset({"BLD005"})
_INSPECTOR_WORD = re.compile(rb"\b(?:cuobjdump|nvdisasm|ncu|nsys|nvprof)\b")
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


def _offset(sf: SourceFile, line: int, column: int) -> int:
    starts = sf.line_starts
    return (starts[line - 1] if 0 < line <= len(starts) else len(sf.code)) + column - 1


def _as_info(f: Draft, key: str, why: str) -> Draft:
    """The finding at info, with the reason under data `key` (how every step here that reads a spot as no porting
    item says so)."""
    return f._replace(severity=Severity.INFO, data=tuple(sorted({**dict(f.data), key: why}.items())))


# 5e. A kernel string CuPy compiles (RawKernel, RawModule, ElementwiseKernel, ReductionKernel): CuPy's ROCm build
# compiles the same string with hipRTC, so the kernel's existence (PYT007's inventory note) is no port item; what
# in it does not hold on AMD (PTX, 32-lane masks) is its own finding (PYT008, the embedded rules), still open.
# Every dev set's judge read plain CuPy kernels so (gpu4pyscf, CuPy's cupyx.scipy). PyCUDA's SourceModule and raw
# NVRTC calls have no ROCm build and stay open.
_CUPY_KERNEL = re.compile(rb"\b(?:RawKernel|RawModule|ElementwiseKernel|ReductionKernel)\s*\(")
_CUPY_CALLEES = frozenset({"RawKernel", "RawModule", "ElementwiseKernel", "ReductionKernel"})


def cupy_kernels(findings: list[Draft], sf: SourceFile) -> list[Draft]:
    """PYT007 findings inside the arguments of a CuPy kernel constructor at info, with data `rocm_compiles`."""
    from porter.source.parse_queries import descendants

    if sf.root is None:
        return findings
    spans = []
    passed: dict[str, str] = {}  # a name passed to a CuPy constructor -> that constructor
    for call in descendants(sf.root, ("call",), lang="python"):
        fn = call.child_by_field_name("function")
        name = fn.text.decode("utf-8", "replace").rsplit(".", 1)[-1] if fn is not None else ""
        args = call.child_by_field_name("arguments")
        if name in _CUPY_CALLEES and args is not None:
            spans.append((args.start_point[0] + 1, args.end_point[0] + 1, name))
            stack = list(args.named_children)
            while stack:
                node = stack.pop()
                if node.type == "identifier":
                    passed.setdefault(node.text.decode("utf-8", "replace"), name)
                elif node.type in ("keyword_argument", "binary_operator", "parenthesized_expression"):
                    stack.extend(node.named_children)
    # the source kept in a variable first (`PPOLY_KERNEL = r"""..."""`, then `cupy.RawModule(code=PPOLY_KERNEL)`)
    if passed:
        for node in descendants(sf.root, ("assignment",), lang="python"):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            target = left.text.decode("utf-8", "replace") if left is not None and left.type == "identifier" else ""
            if target in passed and right is not None:
                spans.append((right.start_point[0] + 1, right.end_point[0] + 1, passed[target]))
    out = []
    for f in findings:
        hit = next((n for a, b, n in spans if a <= f.line <= b), None) if f.rule in HIPRTC_RULES else None
        if hit is None or f.severity <= Severity.INFO:
            out.append(f)
            continue
        out.append(_as_info(f, "rocm_compiles", f"CuPy {hit}: CuPy's ROCm build compiles the string with hipRTC"))
    return out


# 5d. A library module's self-test: the `if __name__ == "__main__":` block of a module that defines functions or
# classes at top level runs only when a developer runs the module by hand (lightllm's Triton kernel files end in one
# that casts a test KV cache to float8_e4m3fn); the library's own code is what ships. Its findings read info, with
# the block's line under data `self_test`. A script (a module that is all top-level code and its main block) keeps
# them: there the main block is the program.
def self_test_block(sf: SourceFile) -> tuple[int, int] | None:
    """(first line, last line) of a top-level `if __name__ == "__main__":` of a module that also defines a
    function or class at top level, else None."""
    root = sf.root
    if root is None:
        return None
    defines = False
    block = None
    for node in root.named_children:
        if node.type in ("function_definition", "class_definition", "decorated_definition"):
            defines = True
        elif node.type == "if_statement" and block is None:
            cond = node.child_by_field_name("condition")
            text = re.sub(rb"\s+", b"", sf.data[cond.start_byte:cond.end_byte]) if cond is not None else b""
            if text in (b'__name__=="__main__"', b"__name__=='__main__'", b'"__main__"==__name__',
                        b"'__main__'==__name__"):
                block = (node.start_point[0] + 1, node.end_point[0] + 1)
    return block if defines else None


def self_test(f: Draft, block: tuple[int, int]) -> Draft:
    if not block[0] <= f.line <= block[1] or f.severity <= Severity.INFO:
        return f
    return _as_info(f, "self_test", f"in the module's `if __name__ == \"__main__\":` self-test (line {block[0]}), "
                                    f"not library code")


# 5c. Python: what a print / logging / warnings call only shows a person (`print(f"CUDA version:
# {torch.version.cuda}")` in a test's banner, `logging.warning("Set TORCH_CUDA_ARCH_LIST ...")` in setup.py) is
# a message, not a use: dropped, as CMake's message() text is (heldout7: uccl's and kaolin's).
_PY_MESSAGE_HINT = re.compile(rb"\b(?:print|warn|warning|info|debug|error|critical|exception|log|log_once)\s*\(")
# bare names that print; methods that log when called on a logger-like receiver (logging, logger, log, self.logger)
_PY_PRINT_NAMES = frozenset({"print", "log_once", "print_once", "print_rank_0", "rank0_print"})
_PY_LOG_METHODS = frozenset({"warn", "warning", "info", "debug", "error", "critical", "exception", "log"})
_PY_LOGGER = re.compile(r"(?:^|\.)(?:logging|logger|log|_logger|LOGGER|LOG|warnings)$")


def message_call_spans(sf: SourceFile) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """((line, column), (end line, end column)) spans, 1-based and end-exclusive, of the arguments of the Python
    calls that only show text: print and its rank-0 wrappers, and warn/info/debug/... on logging, a logger or
    warnings."""
    from porter.source.parse_queries import descendants

    root = sf.root
    if root is None:
        return []
    out = []
    for node in descendants(root, ("call",), lang="python"):
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is None or args is None:
            continue
        if fn.type == "identifier":
            ok = fn.text.decode("utf-8", "replace") in _PY_PRINT_NAMES
        elif fn.type == "attribute":
            obj, attr = fn.child_by_field_name("object"), fn.child_by_field_name("attribute")
            ok = (attr is not None and obj is not None and attr.text.decode("utf-8", "replace") in _PY_LOG_METHODS
                  and bool(_PY_LOGGER.search(obj.text.decode("utf-8", "replace"))))
        else:
            ok = False
        if ok:
            out.append(((args.start_point[0] + 1, args.start_point[1] + 1), (args.end_point[0] + 1, args.end_point[1] + 1)))
    return out


def without_prose(findings: list[Draft], sf: SourceFile) -> list[Draft]:
    """A CMake file's findings outside the text it only shows a person (porter.portaware.scope.cmake_prose_spans:
    message(), print and summary helpers, option() and CACHE documentation strings)."""
    from porter.portaware.scope import cmake_prose_spans

    spans = cmake_prose_spans(sf.data.decode("utf-8", "replace"))
    if not spans:
        return findings
    return [f for f in findings if not any(a <= (f.line, f.column) < b for a, b in spans)]


# A variable of the code's own named warpSize (`constexpr int warpSize = 64;`, OpenMM's HIP kernels do so since ROCm 7
# made HIP's non-constexpr): it shadows HIP's, so a constant use of it is not the warpSize DEV004 warns about.
_OWN_WARPSIZE = re.compile(rb"\b(?:int|unsigned|auto|size_t|u?int(?:32|64)_t|long)\s+warpSize\s*[=({]")
OWN_WARPSIZE_RULES = frozenset({"DEV004"})


def own_warpsize(sf: SourceFile, line: int, column: int) -> bool:
    """Whether `warpSize` at line:column names the code's own variable: one declared earlier in the enclosing
    function, or at file scope above it (not a member: `p.warpSize` is another name)."""
    if line > len(sf.line_starts):
        return False
    offset = sf.line_starts[line - 1] + column - 1
    fn = sf.enclosing(offset)
    start = fn.start_byte if fn is not None else 0
    end = sf.line_starts[line] if line < len(sf.line_starts) else len(sf.code)  # the declaration itself, too
    if _OWN_WARPSIZE.search(sf.code, start, end):
        return True
    # a file-scope declaration before the function
    return fn is not None and any(sf.enclosing(m.start()) is None for m in _OWN_WARPSIZE.finditer(sf.code, 0, start))


# 5h. A warp-size constant declared as a local of a host function (DEV011: `constexpr int WARP_SIZE = 32;` in
# nunchaku's dumpTensorINT4, a host printer of a packed tile layout) describes data on the CPU side when that function
# is not compiled for the GPU (no __device__/__global__, no __CUDA_ARCH__ arm, no device lambda in it) and launches no
# kernel (no `<<<`, no launch call or launch macro that could take it as a block size): info (data `host_only`).
HOST_CONSTANT_RULES = frozenset({"DEV011"})
_WARP_CONSTANT = re.compile(rb"\b\w*(?:[Ww]arp_?[Ss]ize|WARP_SIZE|[Ww]arp_?[Ww]idth|WARP_WIDTH"
                            rb"|[Tt]hreads_?[Pp]er_?[Ww]arp|THREADS_PER_WARP|[Ll]anes_?[Pp]er_?[Ww]arp|LANES_PER_WARP)"
                            rb"\w*\s*(?:=|\{)\s*32\b")
# What may hand the constant to a kernel or the GPU: a chevron launch, a launch API or a project launch macro
# (dgl's CUDA_KERNEL_CALL), device code in the body, a __CUDA_ARCH__ test.
_LAUNCHES = re.compile(rb"<<<|\b\w*[Ll]aunch\w*\s*\(|\b\w*KERNEL\w*\s*\(|__device__|__global__|__CUDA_ARCH__"
                       rb"|\bdim3\b")


def host_constant(f: Draft, sf: SourceFile) -> Draft:
    """DEV011 on a warp-size constant local to a host function that runs nothing on the GPU: info (step 5h)."""
    if f.rule not in HOST_CONSTANT_RULES or f.severity <= Severity.INFO or f.line > len(sf.line_starts):
        return f
    start = sf.line_starts[f.line - 1]
    end = sf.line_starts[f.line] if f.line < len(sf.line_starts) else len(sf.code)
    m = _WARP_CONSTANT.search(sf.code, start, end)
    fn = sf.enclosing(start + f.column - 1)
    if m is None or fn is None or fn.is_kernel or fn.is_device or not m.start() <= start + f.column - 1 < m.end():
        return f
    if _LAUNCHES.search(sf.code, fn.start_byte, fn.end_byte):
        return f
    return _as_info(f, "host_only", f"a constant of the host function {fn.name}, which launches no kernel: it "
                                    "describes data on the CPU side, not the wave the GPU runs")


# A drop-in library's Python import (LIB007): optional when a try/except ImportError holds it.
OPTIONAL_IMPORT_RULES = frozenset({"LIB007"})
# A port-kind or unported library's Python import (LIB008, LIB009): marked optional there, severity kept.
PROBED_IMPORT_RULES = frozenset({"LIB008", "LIB009"})


# An except clause that catches an ImportError: by name, or a bare `except:` / `except Exception` (gpt-neox's
# `try: from apex.contrib... import FastLayerNormFN` / `except: HAVE_PERSIST_LAYER_NORM = False`).
_CATCHES_IMPORT = re.compile(rb"^except\s*(?::|\(?\s*(?:\w+\s*,\s*)*(?:ImportError|ModuleNotFoundError|(?:Base)?Exception)\b)")


_BARE_EXCEPT = re.compile(rb"\bexcept\s*:")


def _catches_import(text: bytes) -> bool:
    return _CATCHES_IMPORT.match(text) is not None


def optional_import_blocks(sf: SourceFile) -> list[tuple[int, int, int]]:
    """(first line, last line, except line) of each `try:` body whose handlers catch ImportError or
    ModuleNotFoundError (or everything: a bare `except:`, `except Exception`): what it imports is optional, the
    code has a path without it."""
    from porter.source.parse_queries import descendants

    root = sf.root
    if root is None:
        return []
    out = []
    for node in descendants(root, ("try_statement",), lang="python"):
        body = node.child_by_field_name("body")
        handler = next((c for c in node.named_children if c.type == "except_clause" and _catches_import(c.text)), None)
        if body is not None and handler is not None:
            out.append((body.start_point[0] + 1, body.end_point[0] + 1, handler.start_point[0] + 1))
    return out


def optional_import(f: Draft, tries: list[tuple[int, int, int]], sf: SourceFile | None = None) -> Draft:
    """A drop-in library's import inside a try/except ImportError at info, the handler's line under data
    `optional`: the project runs without the library (gsplat's nvtx profiling ranges), and where ROCm has the
    drop-in it is a rename anyway. A port-kind or unported library's import there (PROBED_IMPORT_RULES) keeps its
    severity and gets the same `optional`: the feature is the project's option, still work where it is wanted."""
    if f.rule not in OPTIONAL_IMPORT_RULES and f.rule not in PROBED_IMPORT_RULES:
        return f
    for a, b, handler in tries:
        if a <= f.line <= b:
            data = dict(f.data)
            data["optional"] = f"imported in a try whose except catches ImportError (line {handler})"
            severity = Severity.INFO if f.rule in OPTIONAL_IMPORT_RULES else f.severity
            if severity > Severity.INFO and sf is not None:
                bound = _probe_only(sf, f.line)
                if bound:
                    # a probe: the name it binds is used nowhere else in the module (sigpy's config.py tries
                    # `from cupy import cudnn` only to set cudnn_enabled); the work is where the feature is used
                    data["probe"] = f"`{bound}` is only imported to test that it exists"
                    severity = Severity.INFO
            return f._replace(severity=severity, data=tuple(sorted(data.items())))
    return f


_IMPORT_BINDS = re.compile(rb"^\s*(?:from\s+[\w.]+\s+import\s+(\w+)(?:\s+as\s+(\w+))?\s*$|import\s+(\w+)[\w.]*(?:\s+as\s+(\w+))?\s*$)")


def _probe_only(sf: SourceFile, line: int) -> str | None:
    """The name a one-name import on `line` binds when no other line of the module uses it, else None."""
    lines = sf.code.split(b"\n")
    if not 0 < line <= len(lines):
        return None
    m = _IMPORT_BINDS.match(lines[line - 1])
    if m is None:
        return None
    bound = (m.group(2) or m.group(1) or m.group(4) or m.group(3)).decode()
    word = re.compile(rb"\b" + re.escape(bound.encode()) + rb"\b")
    if any(word.search(row) for i, row in enumerate(lines, 1) if i != line):
        return None
    return bound


def ignored_by_pip(sf: SourceFile) -> list[tuple[int, int]]:
    """(first line, last line) of each `dependency_links=[...]` keyword argument: pip ignores it since 19.0
    (https://pip.pypa.io/en/stable/news/#v19-0: "Remove the deprecated --process-dependency-links option"), so a
    CUDA wheel index named there installs nothing."""
    from porter.source.parse_queries import descendants

    root = sf.root
    if root is None:
        return []
    out = []
    for node in descendants(root, ("keyword_argument",), lang="python"):
        name = node.child_by_field_name("name")
        if name is not None and name.text == b"dependency_links":
            out.append((node.start_point[0] + 1, node.end_point[0] + 1))
    return out


def private_toolkit_copy(sf: SourceFile) -> bool:
    """Whether the file is the repository's own copy of a CUDA toolkit header (named like one, and declaring it)."""
    return PurePosixPath(sf.path).name in TOOLKIT_HEADERS and bool(_TOOLKIT_COPY.search(sf.data[:20000]))


def dead_lines(sf: SourceFile) -> frozenset[int]:
    """Lines in preprocessor branches that can never compile: `#if 0` (or `false`) bodies, and every branch after a
    taken `#if 1`/`#elif 1` (porter.source.preprocessor: whatever any macro is)."""
    # Only C/C++ has a preprocessor: a `#if 0` in a Python, shell or CMake comment is a comment.
    return preprocessed(sf).dead if sf.language == "cuda" and may_hold_directives(sf.data) else frozenset()


def fallback_tests(groups: Iterable[Group], sf: SourceFile, rocm_names: Iterable[str] = ()) -> frozenset[int]:
    """`#if`/`#elif` lines whose group ends in an `#else` that HIP can compile as it is (no PTX, trap or #error)."""
    out: set[int] = set()
    for g in groups:
        last = g.arms[-1]
        if last.kind != "else" or not last.body:
            continue
        start = sf.line_starts[last.end_line] if last.end_line < len(sf.line_starts) else len(sf.code)
        end = sf.line_starts[last.last] if last.last < len(sf.line_starts) else len(sf.code)
        if _BROKEN_FALLBACK.search(sf.code[start:end]):
            continue
        out.update(a.line for a in g.arms[:-1])
    rocm = Build(ROCM, rocm_names)
    for g in groups:
        # a test that names ROCm itself (`>= 350 || defined(USE_AMD_ROCM)`) already covers HIP, and so does one
        # that names clang (`(__CUDACC_VER_MAJOR__-0) >= 11 || defined(__clang__)`: hip-clang is clang), on every
        # line of a continued directive
        for a in g.arms:
            if a.kind in ("if", "elif") and (names_rocm(a.text, rocm_names) or _CLANG.search(a.text)):
                out.update(range(a.line, a.end_line + 1))
        # an arm after one the ROCm build takes (`#elif __HIPCC__` then `#elif __CUDACC_VER_MAJOR__ >= 9`) is a
        # test HIP never reaches
        for i, a in enumerate(g.arms):
            if a.kind != "else" and condition(a.kind, a.text, rocm)[0] is True:
                out.update(n for b in g.arms[i + 1:] if b.kind != "else" for n in range(b.line, b.end_line + 1))
                break
        # a toolkit test every arm of which HIP answers as the newest toolkit does (`defined(__CUDACC_VER_MAJOR__) &&
        # __CUDACC_VER_MAJOR__ < 13` around cuFFT enums CUDA 13 removed: false on both), or a group whose arms hold
        # only #pragma lines (gloo's strict-aliasing warning push under `CUDA_VERSION >= 9000`): what HIP compiles is
        # what a current CUDA build compiles, or no code at all
        if toolkit_agnostic(g) or _pragmas_only(g, sf) or _output_only(g, sf):
            out.update(n for a in g.arms if a.kind != "else" for n in range(a.line, a.end_line + 1))
    return frozenset(out)


# Toolkit-version macros and their values in the newest CUDA toolkit porter reads code against (CUDA 13.0).
_NEWEST_TOOLKIT = {"CUDA_VERSION": 13000, "CUDART_VERSION": 13000, "__CUDACC_VER_MAJOR__": 13,
                   "__CUDACC_VER_MINOR__": 0, "__CUDACC_VER_BUILD__": 0, "__NVCC_VER_MAJOR__": 13}


class _ToolkitBuild(Build):
    """One build as a toolkit-version test reads it: on ROCm the version macros are undefined, on CUDA they have the
    newest toolkit's values; every other name reads as in Build."""

    def value(self, name: str | None):
        if name in _NEWEST_TOOLKIT:
            return False if self.build == ROCM else _NEWEST_TOOLKIT[name]
        return super().value(name)


# Looked for with `in` (a substring search in C each): the alternation as one `re` pattern was tried at every byte
# (0.08 CPU-s of a FasterTransformer scan).
_TOOLKIT_WORDS = (b"CUDA_VERSION", b"CUDART_VERSION", b"__CUDACC_VER_", b"__NVCC_VER_")
_TOOLKIT_NAMES = re.compile(r"\b(?:" + "|".join(_NEWEST_TOOLKIT) + r")\b")


def toolkit_agnostic(g: Group) -> bool:
    """Whether a group tests a toolkit version and HIP answers each of its tests as the newest CUDA toolkit does, so
    both compile the same arm."""
    tests = [a for a in g.arms if a.kind != "else"]
    if not any(_TOOLKIT_NAMES.search(a.text) for a in tests):
        return False
    rocm, cuda = _ToolkitBuild(ROCM), _ToolkitBuild(CUDA_BUILD)
    for a in tests:
        hip = condition(a.kind, a.text, rocm)[0]
        if hip is None or hip != condition(a.kind, a.text, cuda)[0]:
            return False
    return True


def old_toolkit_arms(groups: Iterable[Group]) -> dict[int, int]:
    """Body line -> its arm's directive line, for the arms HIP and the newest toolkit both skip in a toolkit-agnostic
    group (legacy code kept for older toolkits, which neither compiles)."""
    out: dict[int, int] = {}
    rocm = _ToolkitBuild(ROCM)
    for g in groups:
        if toolkit_agnostic(g):
            for a in g.arms:
                if a.kind != "else" and condition(a.kind, a.text, rocm)[0] is False:
                    out.update((n, a.line) for n in a.body)
    return out


def legacy_arm(f: Draft, legacy: dict[int, int]) -> Draft:
    """A finding in an arm only older toolkits compile (old_toolkit_arms) at info, with data `old_toolkit`."""
    if f.line not in legacy or f.severity <= Severity.INFO:
        return f
    newest = _NEWEST_TOOLKIT["CUDA_VERSION"] // 1000
    return _as_info(f, "old_toolkit", f"in the arm at line {legacy[f.line]}, which HIP skips as CUDA {newest} does: "
                                      f"code for older toolkits")


# A #pragma line, or a #warning (torchao's "MXFP8 needs SM90+" under `__CUDA_ARCH__ < 1000`): a message or a
# compiler setting, no code, so an arm of nothing else compiles the same program whichever way HIP answers it.
_PRAGMA = re.compile(rb"[ \t]*#[ \t]*(?:pragma|warning)\b")


def _pragmas_only(g: Group, sf: SourceFile) -> bool:
    """Whether every line of the group's arms is blank, a #pragma, or a conditional directive the preprocessor read
    (a nested `#ifdef __GNUC__` around the pragma): no code."""
    lines = [n for a in g.arms for n in a.body]
    if not lines:
        return False
    directive_lines = sf.cache.get("refine.conditional_lines")
    if directive_lines is None:
        directive_lines = sf.cache["refine.conditional_lines"] = frozenset(
            n for d in preprocessed(sf).directives if d.kind not in ("define", "include")
            for n in range(d.line, d.end_line + 1))
    for n in lines:
        start = sf.line_starts[n - 1] if n - 1 < len(sf.line_starts) else len(sf.code)
        end = sf.code.find(b"\n", start)
        text = sf.code[start:end if end >= 0 else len(sf.code)]
        if text.strip() and n not in directive_lines and not _PRAGMA.match(text):
            return False
    return True


# A statement that only writes text for a person: the printf family, a stream insertion into std::cout/cerr/clog, or
# a call of a function named for printing (`print_info(...)`, `Aux_Message(stderr, ...)` is not one: only "print").
_OUTPUT_CALL = re.compile(r"^(?:std\s*::\s*)?(?:(?:f|v|vf)?printf|f?puts|fputc|putchar|(?:\w+\s*::\s*)*\w*[Pp]rint\w*)"
                          r"\s*\(|^(?:std\s*::\s*)?(?:cout|cerr|clog)\s*<<")


def _code_line(sf: SourceFile, n: int) -> bytes:
    """Line `n` of the file's code (comments blanked), without its newline."""
    start = sf.line_starts[n - 1] if 0 < n <= len(sf.line_starts) else len(sf.code)
    end = sf.code.find(b"\n", start)
    return sf.code[start:end if end >= 0 else len(sf.code)]


def _statements(text: bytes) -> list[bytes] | None:
    """The `;`-ended statements of a run of code (string and character literals skipped), or None when it holds
    anything else: a brace, or text after the last `;`."""
    out, start, i, n = [], 0, 0, len(text)
    depth = 0
    while i < n:
        c = text[i:i + 1]
        if c in (b'"', b"'"):
            j = i + 1
            while j < n and text[j:j + 1] != c:
                j += 2 if text[j:j + 1] == b"\\" else 1
            i = j + 1
            continue
        if c in (b"{", b"}"):
            return None
        if c == b"(":
            depth += 1
        elif c == b")":
            depth -= 1
        elif c == b";" and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
        i += 1
    return out if not text[start:].strip() else None


def _output_only(g: Group, sf: SourceFile) -> bool:
    """Whether the group's arms hold code and every statement of it only prints (a device report's `#if
    CUDART_VERSION >= 3000` around `fprintf(note, "Concurrent Kernel Execution ...")`): whichever arm HIP takes, the
    program computes the same; a line of a report is left out or kept. Nested directives and #pragma lines may sit
    between the statements."""
    lines = [n for a in g.arms for n in a.body]
    if not lines or b"rint" not in sf.code and b"puts" not in sf.code and b"<<" not in sf.code:
        return False
    directive_lines = frozenset(n for d in preprocessed(sf).directives for n in range(d.line, d.end_line + 1))
    text = b"\n".join(_code_line(sf, n) for n in lines if n not in directive_lines)
    statements = _statements(text)
    return bool(statements) and all(_OUTPUT_CALL.match(st.decode("utf-8", "replace")) for st in statements)


_CLANG = re.compile(r"\b__clang__\b")

# 3a. A capability or toolkit test (DEV009, DEV010, DEV016) whose arm only defines feature macros (FlashMLA's
# `#if __CUDA_ARCH__ >= 1000` / `#define KERUTILS_ENABLE_SM100` / `#endif`, tilelang's CTA-reconfig switch) chooses
# nothing itself: HIP leaves the macro undefined, and the `#ifdef KERUTILS_ENABLE_SM100` sites that test it are where
# code comes or goes. Info (data `defines_only`, the macros named).
FEATURE_DEFINE_RULES = frozenset({"DEV009", "DEV010", "DEV016"})
_OBJECT_DEFINE = re.compile(rb"^\s*#\s*(?:define\s+([A-Za-z_]\w*)(?:[ \t]+[^\n(]*)?|undef\s+[A-Za-z_]\w*)\s*$")
# A function-like definition: `#define __umul24(a, b) ((a)*(b))` (GAMER's Fermi-and-later override under
# `__CUDA_ARCH__ >= 200`). When the name is a CUDA device function HIP declares under the same name, HIP leaving the
# macro undefined means its own function serves every use: the arm chooses nothing HIP lacks.
_FUNCTION_DEFINE = re.compile(rb"^\s*#\s*define\s+([A-Za-z_]\w*)\(")


def _hip_builtin(name: str) -> bool:
    """Whether `name` is a CUDA device function HIP declares with the same spelling (the knowledge base's rename to
    itself)."""
    from porter.kb import load_kb

    entry = load_kb().get(name)
    return entry is not None and entry.library == "device" and entry.status == "rename" and entry.hip == name


def feature_defines(f: Draft, groups: Iterable[Group], sf: SourceFile) -> Draft:
    """A test in an `#if`/`#elif` whose arm holds only object-like `#define`/`#undef` lines: info (step 3a)."""
    if f.rule not in FEATURE_DEFINE_RULES or f.severity <= Severity.INFO:
        return f
    for g in groups:
        for a in g.arms:
            if a.kind == "else" or not a.line <= f.line <= a.end_line:
                continue
            names, builtins = [], []
            for n in a.body:
                text = _code_line(sf, n)
                if not text.strip():
                    continue
                m = _OBJECT_DEFINE.match(text)
                if m is None:
                    m = _FUNCTION_DEFINE.match(text)
                    if m is None or not _hip_builtin(m.group(1).decode()):
                        return f
                    builtins.append(m.group(1).decode())
                elif m.group(1):
                    names.append(m.group(1).decode())
            if not names and not builtins:
                return f
            # an #else that stops the build (`#error needs CUDA 11`) is what HIP compiles: that is work
            start = sf.line_starts[g.arms[0].line - 1]
            end = sf.line_starts[g.endif - 1] if g.endif - 1 < len(sf.line_starts) else len(sf.code)
            if _BROKEN_FALLBACK.search(sf.code[start:end]):
                return f
            if not names:
                return _as_info(f, "defines_only", f"the arm only redefines {', '.join(builtins)} as macros; HIP "
                                                   f"declares the same device function{'s' if len(builtins) > 1 else ''}"
                                                   " itself, so its own serve every use")
            them = "it" if len(names) == 1 else "them"
            return _as_info(f, "defines_only", f"the arm only defines {', '.join(names + builtins)}: HIP leaves {them} "
                                               f"undefined, so the code testing {them} is where HIP's path is chosen")
    return f


# 3b. A test that only asks whether the compiler publishes a toolkit fact, to read it: `#if
# defined(__CUDACC_VER_MAJOR__) && defined(__CUDACC_VER_MINOR__)` around a telemetry field built from those macros,
# `#if defined(__CUDA_ARCH_LIST__)` around code reading the compiled architecture list, with no `#else`. HIP does not
# publish them, the arm vanishes, and the code after `#endif` is the program's own answer for a compiler that does
# not say: nothing to port (reporting HIP's version there would be a feature). Info (data `introspection`).
INTROSPECTION_RULES = frozenset({"DEV009", "DEV010"})
_PUBLISHED = ("__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__", "__CUDA_ARCH_LIST__",
              "CUDART_VERSION", "CUDA_VERSION", "__NVCC_VER_MAJOR__", "__NVCC_VER_MINOR__", "__CUDA_API_VERSION")
_DEFINED_ONLY = re.compile(r"^\s*(?:\(?\s*!?\s*defined\s*\(?\s*\w+\s*\)?\s*\)?\s*(?:&&|$)\s*)+$")


def _published_tests(arm) -> list[str]:
    """The macros an `#if`/`#ifdef` arm tests for definedness when its test is only that, of published toolkit
    macros; else []."""
    if arm.kind == "ifdef":
        tested = arm.text.split()[:1]
    elif arm.kind in ("if", "elif") and _DEFINED_ONLY.match(arm.text) and "!" not in arm.text:
        tested = re.findall(r"defined\s*\(?\s*(\w+)", arm.text)
    else:
        return []
    return tested if tested and all(t in _PUBLISHED for t in tested) else []


def introspection(f: Draft, groups: Iterable[Group], sf: SourceFile) -> Draft:
    """Info (step 3b) for a toolkit test that is only `defined(...)` of published toolkit macros, with no `#else`,
    whose arm's code reads one of them; and for a read of a tested macro inside such an arm (any group: HIP never
    compiles the arm)."""
    if f.rule not in INTROSPECTION_RULES or f.severity <= Severity.INFO:
        return f
    # a version macro printed (`printf("nvcc %s", STRINGIZE(__CUDACC_VER_MAJOR__))`) is reported, not tested
    if not _code_line(sf, f.line).lstrip().startswith(b"#") and _OUTPUT_CALL.match(
            _statement_around(sf.code, _offset(sf, f.line, f.column)).decode("utf-8", "replace")):
        return _as_info(f, "introspection", "printed, not tested: the line reports the toolkit, it chooses no code")
    # a `#define` in the arm reads the macro as much as a statement does (FLAMEGPU's wrapper of __CUDA_ARCH_LIST__)
    directive_lines = frozenset(n for d in preprocessed(sf).directives if d.kind not in ("define", "undef")
                                for n in range(d.line, d.end_line + 1))
    for g in groups:
        for i, arm in enumerate(g.arms):
            if arm.kind == "else" or not arm.line <= f.line <= arm.last:
                continue
            tested = _published_tests(arm)
            if not tested:
                continue
            if f.line > arm.end_line:
                if f.line in directive_lines:
                    continue
                read = next((t for t in tested if re.search(rb"\b" + t.encode() + rb"\b", _code_line(sf, f.line))), None)
                if read is not None:
                    return _as_info(f, "introspection", f"reads {read} inside the arm that tests it is defined (line "
                                                        f"{arm.line}); HIP does not define it and never compiles this")
                continue
            if len(g.arms) != 1:
                return f
            code = b"\n".join(_code_line(sf, n) for n in arm.body if n not in directive_lines)
            read = next((t for t in tested if re.search(rb"\b" + t.encode() + rb"\b", code)), None)
            if read is None or _BROKEN_FALLBACK.search(code):
                return f
            return _as_info(f, "introspection", f"the arm only exists to read {read}, which HIP does not define; the "
                                                "code after it is the program's answer for a compiler that does not say")
    return f


def _newer_arch_arm(pre, line: int) -> bool:
    """Whether the innermost `#if` around `line` that tests `__CUDA_ARCH__` is a generation test (`#if __CUDA_ARCH__
    >= 700`) with an `#else` that has code, and `line` is in one of its tested arms: HIP leaves `__CUDA_ARCH__`
    undefined, so it compiles the `#else`, never this line (the vanishing arm is reported at the guard)."""
    for g, i in reversed(pre.enclosing(line)):
        if not any(_ARCH_TEST.search(a.text) for a in g.arms if a.kind != "else"):
            continue
        return (g.has_else and i < len(g.arms) - 1 and bool(g.arms[-1].body) and g.arms[-1].last >= g.arms[-1].end_line + 1
                and _ARCH_GENERATION.search(g.arms[0].text) is not None)
    return False


def device_pass_arm(f: Draft, pre, sf: SourceFile) -> Draft:
    """The finding at info when the innermost `#if` around it that tests `__CUDA_ARCH__` holds it in an arm that
    tests only the device pass (`#ifdef __CUDA_ARCH__`, `#elif defined(__CUDA_ARCH__)`) and ends in an `#else` with
    working code: HIP compiles that `#else` instead (module doc, step 6a)."""
    if f.rule not in DEVICE_PASS_RULES:
        return f
    for g, i in reversed(pre.enclosing(f.line)):
        if not any(_ARCH_TEST.search(a.text) for a in g.arms if a.kind != "else"):
            continue
        arm, last = g.arms[i], g.arms[-1]
        if not g.has_else or i == len(g.arms) - 1 or last.last < last.end_line + 1:
            return f
        if arm.kind not in ("ifdef", "elifdef") and not (arm.kind in ("if", "elif") and _DEVICE_PASS.match(arm.text)):
            return f
        if arm.kind in ("ifdef", "elifdef") and arm.text.strip() != "__CUDA_ARCH__":
            return f
        start = sf.line_starts[last.end_line] if last.end_line < len(sf.line_starts) else len(sf.code)
        end = sf.line_starts[last.last] if last.last < len(sf.line_starts) else len(sf.code)
        if _BROKEN_FALLBACK.search(sf.code[start:end]):
            return f
        return _as_info(f, "hip_compiles", f"the #else at line {last.line} (HIP leaves __CUDA_ARCH__ undefined)")
    return f


def _diagnostic_line(sf: SourceFile, line: int) -> bool:
    """Whether the line is an `#error` / `#warning` / `#pragma message` directive: an API name in its text is a
    message to a person (`#error thrust::cuda::par_nosync needs CUDA 12`), not a use."""
    start = sf.line_starts[line - 1] if line - 1 < len(sf.line_starts) else len(sf.data)
    return _DIAGNOSTIC.match(sf.data, start) is not None


# API003's advice when HIP declares the deprecated name itself (rules/kb: the HIP name equals the CUDA one).
SAME_NAME_KEPT = "HIP keeps the same name"
# Libraries whose HIP-side deprecations are about their CUDA backend only: hipSPARSE marks `hipsparseScsrgemm2`,
# `hipsparseXcsrgemm2Nnz`, `csric02Info_t` ... deprecated because cuSPARSE 11/12 dropped them, and documents that "this
# deprecation does not apply to the ROCm backend", which still ships them
# (https://rocm.docs.amd.com/projects/hipfort/en/develop/doxygen/html/deprecated.html mirrors hipSPARSE's notes).
# A runtime name HIP itself deprecated (texture references) is not one of these.
CUDA_BACKEND_DEPRECATIONS = frozenset({"cusparse"})


def plain_rename(f: Draft) -> Draft:
    """An API004 same-name finding at info when its only advice is the generic one (no caveat in the knowledge
    base): nothing changes at that spot on HIP, so it is no open port work (bench/judged/README.md, "real")."""
    if f.rule not in PLAIN_RENAME_RULES or f.severity <= Severity.INFO:
        return f
    data = dict(f.data)
    advice = str(data.get("advice", ""))
    if f.rule == "API004" and advice == GENERIC_SAME_NAME:
        data["rename"] = "plain: HIP declares it under the same name with the same meaning"
    elif (f.rule == "API003" and str(data.get("hip", "none")) not in ("", "none")
          and (advice.startswith("hipify maps") or advice == SAME_NAME_KEPT and data.get("library") == "device")
          and ("deprecated" not in advice or data.get("library") in CUDA_BACKEND_DEPRECATIONS)):
        # (a device intrinsic, `__shfl_down`, `__shfl_xor`: HIP keeps CUDA's pre-9.0 name as its own shuffle; whether
        # the code assumes 32 lanes is the wave-size rules' and kernel checks' question, not a deprecation's. A
        # runtime type HIP deprecated too, texture references, stays open)
        # CUDA deprecated it, HIP keeps it (hipFuncSetSharedMemConfig, hipsparseScsrgemm2): the port is hipify's rename;
        # moving off the deprecated API is CUDA-side upkeep.
        data["rename"] = f"plain: hipify maps it to {data['hip']}, which HIP keeps"
    else:
        return f
    return f._replace(severity=Severity.INFO, data=tuple(sorted(data.items())))


# `get_device_capability(...)` [`[0]`|`[1]`] `<op>` `(a, b)` | `n`, on the call's statement (joined lines).
_CAPABILITY_TEST = re.compile(r"get_device_capability\s*\((?:[^()]|\([^()]*\))*\)\s*(?:\[\s*([01])\s*\])?\s*"
                              r"(<=|>=|==|!=|<|>)\s*(\(\s*\d+\s*,\s*\d+\s*\)|\d+)")
_COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
            "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
# The capability an NVIDIA GPU without Hopper/Blackwell-only features reports (Ampere A100).
_AMPERE = (8, 0)


@functools.lru_cache(maxsize=1)
def amd_capabilities() -> tuple[tuple[int, int], ...]:
    """(major, minor) PyTorch on ROCm reports for each AMD target porter knows: gfx942 -> (9, 4), gfx950 -> (9, 5),
    gfx1250 -> (12, 5) (hipDeviceProp major/minor, https://pytorch.org/docs/stable/notes/hip.html)."""
    from porter.targets import load_targets

    out = set()
    for t in load_targets().values():
        m = re.fullmatch(r"gfx(\d{1,2}?)([0-9a-f])[0-9a-f]", t.gfx or "")
        if m:
            out.add((int(m.group(1)), int(m.group(2), 16)))
    return tuple(sorted(out))


def ampere_path(f: Draft, code: bytes) -> Draft:
    """PYT001 at info when the capability test on its statement answers on every AMD GPU as on Ampere (step 8)."""
    if f.rule not in CAPABILITY_RULES or f.severity <= Severity.INFO:
        return f
    lines = code.split(b"\n")
    # The statement from the finding's own call on (a later call's test on the same lines is not this one's).
    first = lines[f.line - 1][max(f.column - 1, 0):] if f.line <= len(lines) else b""
    text = " ".join(x.decode("utf-8", "replace").strip() for x in [first] + lines[f.line:f.line + 3])
    at = text.find("get_device_capability")
    m = _CAPABILITY_TEST.match(text, at) if at >= 0 else None
    amd = amd_capabilities()
    if m is None and amd:
        return _unpacked_tests(f, lines, amd)
    if m is None or not amd:
        return f
    index, op, rhs = m.group(1), m.group(2), m.group(3)
    bound = tuple(int(x) for x in re.findall(r"\d+", rhs))
    if index is None and len(bound) != 2 or index is not None and len(bound) != 1:
        return f  # a tuple against an int (or the reverse) is no test porter reads

    def answer(cap: tuple[int, int]) -> bool:
        left: Any = cap if index is None else cap[int(index)]
        return _COMPARE[op](left, bound if index is None else bound[0])

    want = answer(_AMPERE)
    if any(answer(c) != want for c in amd):
        return f
    test = f"get_device_capability(){'[' + index + ']' if index is not None else ''} {op} {rhs}"
    return _as_info(f, "amd_answers", f"`{test}` is {want} on Ampere (8, 0) and on every AMD GPU "
                                      f"({', '.join(map(str, amd))}): ROCm takes Ampere's path")


# 8g. C/C++: `prop.major < 6`, `prop.major * 100 + prop.minor >= 600` (DEV013) compared with a bound below every GPU
# current CUDA builds for: CUDA 13 supports Turing (7.5) and newer only
# (https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html, "Deprecated and dropped features"), so the test
# separates GPUs of past toolkits (a software double atomicAdd before sm_60, no half arithmetic before sm_53). When
# every AMD GPU answers it as every supported NVIDIA GPU does, ROCm takes the path all of them take: info (data
# `amd_answers`). A bound inside the supported range (`major >= 8`, `major == 9`) stays open.
PROP_CAPABILITY_RULES = frozenset({"DEV013"})
_NVIDIA_SUPPORTED = ((7, 5), (8, 0), (8, 6), (8, 9), (9, 0), (10, 0), (12, 0))
_PROP_TEST = re.compile(r"(\w+)\s*(?:\.|->)\s*major\s*(?:\*\s*(10|100)\s*\+\s*\1\s*(?:\.|->)\s*minor\s*)?"
                        r"(<=|>=|==|!=|<|>)\s*(\d+)\b")


def legacy_capability(f: Draft, code: bytes) -> Draft:
    """DEV013 at info when the device-property test holding it is answered alike by every NVIDIA GPU current CUDA
    supports and by every AMD GPU porter knows (step 8g)."""
    if f.rule not in PROP_CAPABILITY_RULES or f.severity <= Severity.INFO:
        return f
    lines = code.split(b"\n")
    line = lines[f.line - 1].decode("utf-8", "replace") if 0 < f.line <= len(lines) else ""
    amd = amd_capabilities()
    for m in _PROP_TEST.finditer(line):
        if not m.start() <= f.column - 1 < m.end():
            continue
        scale, op, bound = int(m.group(2) or 0), m.group(3), int(m.group(4))

        def answer(cap: tuple[int, int]) -> bool:
            return _COMPARE[op](cap[0] * scale + cap[1] if scale else cap[0], bound)

        want = answer(_NVIDIA_SUPPORTED[0])
        if not amd or any(answer(c) != want for c in _NVIDIA_SUPPORTED + amd):
            return f
        return _as_info(f, "amd_answers", f"`{m.group(0)}` is {want} on every NVIDIA GPU CUDA 13 supports (Turing "
                                          f"7.5 on) and on every AMD GPU ({', '.join(map(str, amd))}): ROCm takes "
                                          "their path")
    return f


# 8h. C/C++: a device-property capability test (DEV013) that only sets a variable the file uses nowhere but in
# printed text (GAMER's cores-per-multiprocessor ladder, `else if (prop.major == 9) NCorePerMP = 128;`, read only by
# the `fprintf(Note, "Number of FP32 Cores per Multiprocessor : %d\n", NCorePerMP)` lines of its device report)
# decides a line of a report, not what the program computes: info (data `report_only`).
_ASSIGNED = re.compile(rb"^\s*(?:else\s+)?(?:if\s*\(.*\)\s*)?(?:\{\s*)?([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?=(?!=)")
_DECLARED_BEFORE = re.compile(rb"(?:\b(?:int|unsigned|long|short|size_t|float|double|char|auto|bool)\s*\**|,)\s*$")


def _statement_around(code: bytes, offset: int) -> bytes:
    """The C statement holding `offset`: from after the previous `;`, `{` or `}` to the next `;`."""
    start = max(code.rfind(b";", 0, offset), code.rfind(b"{", 0, offset), code.rfind(b"}", 0, offset)) + 1
    end = code.find(b";", offset)
    return code[start:end if end >= 0 else len(code)].strip()


def report_only(f: Draft, sf: SourceFile) -> Draft:
    """DEV013 at info when the test only assigns a variable the file reads only in output statements (step 8h)."""
    if f.rule not in PROP_CAPABILITY_RULES or f.severity <= Severity.INFO:
        return f
    m = _ASSIGNED.match(_code_line(sf, f.line))
    if m is None:
        return f
    name = m.group(1)
    if name in (b"if", b"else", b"return", b"while", b"for"):
        return f
    printed = False
    for use in re.finditer(rb"\b" + re.escape(name) + rb"\b", sf.code):
        after = sf.code[use.end():use.end() + 3]
        if re.match(rb"\s*=(?!=)", after):
            continue  # an assignment
        if re.match(rb"\s*[;,]", after) and _DECLARED_BEFORE.search(sf.code[max(0, use.start() - 40):use.start()]):
            continue  # a declaration
        if not _OUTPUT_CALL.match(_statement_around(sf.code, use.start()).decode("utf-8", "replace")):
            return f
        printed = True
    if not printed:
        return f
    return _as_info(f, "report_only", f"the test only sets {name.decode()}, which the file reads only in printed text:"
                                      " it changes a line of a report, not what the program computes")


# `major, minor = torch.cuda.get_device_capability()` and the tests of those names on the next lines
# (`has_sm_8_0 = major >= 8`, `is_sm75 = major == 7 and minor == 5`, `if major >= 9:`): read like a direct test.
_UNPACK = re.compile(r"^\s*(?:\w+\s*=\s*)?\(?\s*(\w+)\s*,\s*(\w+)\s*\)?\s*=\s*(?:[\w.]*\.)?get_device_capability\s*\(")
_USE_EXPR = re.compile(r"^\s*(?:\w+\s*=(?!=)|(?:el)?if\b|return\b)\s*(.+?)\s*:?\s*$")
_UNPACK_WINDOW = 8  # lines after the call where its names' tests are read


def _unpacked_tests(f: Draft, lines: list[bytes], amd: tuple[tuple[int, int], ...]) -> Draft:
    """PYT001 at info when the capability is unpacked into two names and every line of the next few that reads
    them is a test Ampere (8, 0) and each AMD GPU answer alike (step 8)."""
    first = lines[f.line - 1].decode("utf-8", "replace") if f.line <= len(lines) else ""
    m = _UNPACK.match(first)
    if m is None:
        return f
    names = {m.group(1): 0, m.group(2): 1}
    indent = len(first) - len(first.lstrip())
    tests = []
    for raw in lines[f.line:f.line + _UNPACK_WINDOW]:
        line = raw.decode("utf-8", "replace")
        if line.strip() and (len(line) - len(line.lstrip()) < indent or "get_device_capability" in line):
            break  # the block ends (an `except:`, a dedent) or the names are bound again
        if not any(re.search(rf"\b{re.escape(n)}\b", line) for n in names):
            continue
        u = _USE_EXPR.match(line)
        try:
            tree = ast.parse(u.group(1), mode="eval") if u else None
        except SyntaxError:
            tree = None
        if tree is None or not _capability_expr(tree.body, names):
            return f  # a use porter cannot evaluate (passed on, printed, indexed): stays open
        tests.append((u.group(1), tree.body))
    if not tests:
        return f

    def answer(node, cap: tuple[int, int]) -> bool:
        return bool(_eval_capability(node, names, cap))

    for _text, node in tests:
        want = answer(node, _AMPERE)
        if any(answer(node, c) != want for c in amd):
            return f
    return _as_info(f, "amd_answers", f"{'; '.join(f'`{t}`' for t, _ in tests)}: the same on Ampere (8, 0) and on "
                                      f"every AMD GPU ({', '.join(map(str, amd))}): ROCm takes Ampere's path")


def _capability_expr(node, names: dict[str, int]) -> bool:
    """Whether `node` is a boolean/comparison expression over the capability names and integer literals only."""
    if isinstance(node, ast.BoolOp):
        return all(_capability_expr(v, names) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _capability_expr(node.operand, names)
    if isinstance(node, ast.Compare):
        return (all(type(op) in _AST_COMPARE for op in node.ops)
                and all(isinstance(x, ast.Name) and x.id in names or isinstance(x, ast.Constant) and type(x.value) is int
                        for x in [node.left, *node.comparators])
                and any(isinstance(x, ast.Name) for x in [node.left, *node.comparators]))
    return False


def _eval_capability(node, names: dict[str, int], cap: tuple[int, int]):
    if isinstance(node, ast.BoolOp):
        vals = [_eval_capability(v, names, cap) for v in node.values]
        return all(vals) if isinstance(node.op, ast.And) else any(vals)
    if isinstance(node, ast.UnaryOp):
        return not _eval_capability(node.operand, names, cap)
    if isinstance(node, ast.Compare):
        vals = [cap[names[x.id]] if isinstance(x, ast.Name) else x.value for x in [node.left, *node.comparators]]
        return all(_AST_COMPARE[type(op)](a, b) for op, a, b in zip(node.ops, vals, vals[1:]))
    if isinstance(node, ast.Name):
        return cap[names[node.id]]
    return node.value


# the comparison operators a capability test may use, by their syntax-tree class
_AST_COMPARE = {ast.Lt: _COMPARE["<"], ast.LtE: _COMPARE["<="], ast.Gt: _COMPARE[">"], ast.GtE: _COMPARE[">="],
                ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}


# 8d. NVFP4-named enum members the project defines (QNT003).
OWN_NAME_RULES = frozenset({"QNT003"})
# 8f. OCP FP8 dtypes in a table that names the FNUZ ones too (QNT004).
FNUZ_TABLE_RULES = frozenset({"QNT004"})
_COLLECTIONS = frozenset({"dictionary", "list", "tuple", "set"})


def project_name(f: Draft, sf: SourceFile) -> Draft:
    """QNT003 at info on an enum member's definition (module doc, step 8d)."""
    from porter.match.kinds.python import enum_member_definition

    if f.rule not in OWN_NAME_RULES or f.severity <= Severity.INFO:
        return f
    owner = enum_member_definition(sf, _offset(sf, f.line, f.column))
    if owner is None:
        return f
    return _as_info(f, "own_name", f"defines a member of the project's {owner} with a number: a name, not NVIDIA's "
                                   f"NVFP4 API")


# 8e. A dtype taken only where PyTorch has it (QNT003, QNT004).
PROBED_DTYPE_RULES = frozenset({"QNT003", "QNT004"})


def probed_dtype(f: Draft, sf: SourceFile) -> Draft:
    """The finding at info when its `mod.name` is the value of `mod.name if hasattr(mod, "name") else other`."""
    if f.rule not in PROBED_DTYPE_RULES or f.severity <= Severity.INFO or sf.root is None:
        return f
    at = _offset(sf, f.line, f.column)
    node = sf.root.named_descendant_for_byte_range(at, at + 1)
    attr = node.parent if node is not None else None
    cond = attr.parent if attr is not None and attr.type == "attribute" else None
    if cond is None or cond.type != "conditional_expression" or not cond.named_children \
            or cond.named_children[0] != attr or len(cond.named_children) < 3:
        return f
    obj, name = attr.child_by_field_name("object"), attr.child_by_field_name("attribute")
    test = cond.named_children[1]
    args = test.child_by_field_name("arguments") if test.type == "call" else None
    fn = test.child_by_field_name("function") if test.type == "call" else None
    if fn is None or fn.text != b"hasattr" or args is None or len(args.named_children) != 2 or obj is None \
            or name is None or args.named_children[0].text != obj.text \
            or args.named_children[1].text.strip(b"\"'") != name.text:
        return f
    return _as_info(f, "probed", f"taken only where {obj.text.decode()} has it, else "
                                 f"{cond.named_children[2].text.decode('utf-8', 'replace')}")


def fnuz_table(f: Draft, sf: SourceFile) -> Draft:
    """QNT004 at info inside a collection literal that also names an FNUZ dtype (module doc, step 8f)."""
    if f.rule not in FNUZ_TABLE_RULES or f.severity <= Severity.INFO or sf.root is None:
        return f
    at = _offset(sf, f.line, f.column)
    node = sf.root.named_descendant_for_byte_range(at, at + 1)
    while node is not None and node.type not in _COLLECTIONS:
        if node.type in ("call", "block", "module", "lambda", "function_definition"):
            return f  # the dtype is an argument or a statement's, not a table element
        node = node.parent
    # a row of a table of rows (`[(torch.float8_e5m2, 1), (torch.float8_e5m2fnuz, 1)]`): the whole table
    while node is not None and node.parent is not None and (node.parent.type in _COLLECTIONS
                                                             or node.parent.type == "pair"):
        node = node.parent
    if node is None or b"fnuz" not in sf.code[node.start_byte:node.end_byte]:
        return f
    return _as_info(f, "fnuz_too", f"the {node.type} at line {node.start_point[0] + 1} lists the FNUZ dtypes too: "
                                   f"a table that serves both encodings")


# 8b. A capability kept as a record or compared with another recorded one (PYT001).
_LITERALS = frozenset({"integer", "float", "tuple", "list", "unary_operator"})


def capability_identity(f: Draft, sf: SourceFile) -> Draft:
    """PYT001 at info when the capability its call returns is only stored as a dict value or compared with == / !=
    against something other than a literal (module doc, step 8b)."""
    from porter.source.parse_queries import walk_descendants

    if f.rule not in CAPABILITY_RULES or f.severity <= Severity.INFO or sf.root is None:
        return f
    at = _offset(sf, f.line, f.column)
    node = sf.root.named_descendant_for_byte_range(at, at + 1)
    while node is not None and node.type != "call":
        node = node.parent
    if node is None or b"get_device_capability" not in node.text:
        return f
    label = _as_label(node, sf)
    if label is not None:
        return _as_info(f, "identity", f"the capability only becomes the text {label}, which nothing compares: a "
                                       "label, each GPU answers for itself")
    uses = [node]
    parent = node.parent
    if parent is not None and parent.type == "assignment" and parent.child_by_field_name("right") == node:
        target = parent.child_by_field_name("left")
        scope = parent
        while scope is not None and scope.type not in ("function_definition", "module"):
            scope = scope.parent
        if target is None or target.type != "identifier" or scope is None:
            return f
        uses = [n for n in walk_descendants(scope, frozenset({"identifier"})) if n.text == target.text
                and n.start_byte > parent.end_byte]
        if not uses:
            return f
    for use in uses:
        up = use.parent
        if up is not None and up.type == "pair" and up.child_by_field_name("value") == use:
            continue
        if up is not None and up.type == "comparison_operator":
            ops = [c.type for c in up.children if not c.is_named]
            others = [c for c in up.named_children if c != use]
            if ops and all(o in ("==", "!=") for o in ops) and others and all(o.type not in _LITERALS for o in others):
                continue
        return f
    return _as_info(f, "identity", "the capability is only recorded or compared with a recorded one: each GPU "
                                   "answers for itself")


_TEXT_CALLS = re.compile(rb"^(?:str|repr|format|[\"'][^\"']*[\"']\.join|[\"'][^\"']*[\"']\.format)$")


def _as_label(call, sf: SourceFile) -> str | None:
    """The variable a capability call's value is only turned into text for (`cap = ".".join(str(x) for x in
    torch.cuda.get_device_capability(k))`, detectron2's collect_env), when no comparison or condition in its
    function reads that variable; else None."""
    from porter.source.parse_queries import walk_descendants

    node, text = call.parent, False
    while node is not None and node.type not in ("assignment", "expression_statement", "block", "module"):
        if node.type == "interpolation" or node.type == "call" and _TEXT_CALLS.match(
                (node.child_by_field_name("function") or node).text):
            text = True
        node = node.parent
    if not text or node is None or node.type != "assignment":
        return None
    target = node.child_by_field_name("left")
    scope = node
    while scope is not None and scope.type not in ("function_definition", "module"):
        scope = scope.parent
    if target is None or target.type != "identifier" or scope is None:
        return None
    for use in walk_descendants(scope, frozenset({"identifier"})):
        if use.text != target.text or use.start_byte <= node.end_byte:
            continue
        up = use.parent
        while up is not None and up.type not in ("expression_statement", "block", "module"):
            if up.type in ("comparison_operator", "if_statement", "elif_clause", "while_statement",
                           "conditional_expression", "boolean_operator", "subscript"):
                return None
            up = up.parent
    return target.text.decode("utf-8", "replace")


# 8c. nvcc variables read from the environment with a default (BLD006).
ENV_DEFAULT_RULES = frozenset({"BLD006"})
_ENV_READ = re.compile(rb"(?:\bos\.getenv|\bgetenv|\benviron\.get)$")


def env_default(f: Draft, sf: SourceFile) -> Draft:
    """BLD006 at info on the name argument of an environment read that has a default (module doc, step 8c)."""
    if f.rule not in ENV_DEFAULT_RULES or f.severity <= Severity.INFO or sf.root is None:
        return f
    at = _offset(sf, f.line, f.column)
    node = sf.root.named_descendant_for_byte_range(at, at + 1)
    while node is not None and node.type != "string":
        node = node.parent
    if node is None or node.parent is None:
        return f
    args = node.parent
    if args.type == "subscript" and args.parent is not None and args.parent.type == "assignment" \
            and args.parent.child_by_field_name("left") == args:
        # `meta["TORCH_CUDA_ARCH_LIST"] = os.environ.get("TORCH_CUDA_ARCH_LIST", None)`: the record's key
        right = args.parent.child_by_field_name("right")
        inner = right.child_by_field_name("arguments") if right is not None and right.type == "call" else None
        if inner is None or not inner.named_children or inner.named_children[0].text != node.text:
            return f
        args = inner
        node = inner.named_children[0]
    call = args.parent if args.type == "argument_list" else None
    fn = call.child_by_field_name("function") if call is not None and call.type == "call" else None
    if fn is None or not _ENV_READ.search(fn.text) or len(args.named_children) < 2 or args.named_children[0] != node:
        return f
    default = args.named_children[1].text.decode("utf-8", "replace")
    return _as_info(f, "env_default", f"read from the environment with the default {default}: the build runs "
                                      f"without it")


# 8i. Python: TORCH_CUDA_ARCH_LIST written (BLD006) with a value the same function computes from the running GPU's
# own capability (lightllm's `arch = f"{capability[0]}.{capability[1]}"; os.environ["TORCH_CUDA_ARCH_LIST"] = arch`)
# names no NVIDIA GPU: it builds for whatever GPU runs it, and ROCm's PyTorch extension builder reads
# PYTORCH_ROCM_ARCH instead (https://pytorch.org/docs/stable/cpp_extension.html). Info (data `own_arch`). A value
# with an architecture number in it (`"8.0;9.0"`, `f"{arch}+PTX"` beside a literal) stays open.
_ARCH_NUMBER = re.compile(rb"\d+\.\d+|sm_?\d+|compute_\d+")


def own_arch(f: Draft, sf: SourceFile) -> Draft:
    """BLD006 at info on an environment write of a value its function derives from get_device_capability (8i)."""
    if f.rule not in ENV_DEFAULT_RULES or f.severity <= Severity.INFO or sf.root is None:
        return f
    at = _offset(sf, f.line, f.column)
    node = sf.root.named_descendant_for_byte_range(at, at + 1)
    while node is not None and node.type not in ("assignment", "function_definition", "module"):
        node = node.parent
    if node is None or node.type != "assignment":
        return f
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or left.type != "subscript" or b"environ" not in left.text:
        return f
    fn = node
    while fn is not None and fn.type != "function_definition":
        fn = fn.parent
    if fn is None or b"get_device_capability" not in fn.text:
        return f
    # the value: names bound in the function from the capability, no architecture number of its own
    value = re.sub(rb"\{[^{}]*\}", b"", right.text)
    if _ARCH_NUMBER.search(value):
        return f
    names = set(re.findall(rb"[A-Za-z_]\w*", right.text))
    bound = {m.group(1) for m in re.finditer(rb"(?m)^\s*([A-Za-z_]\w*)\s*=[^=].*$", fn.text)
             if b"capability" in m.group(0)}
    if not names & bound:
        return f
    return _as_info(f, "own_arch", "set from the running GPU's own capability: it names no NVIDIA GPU, and ROCm's "
                                   "extension builder reads PYTORCH_ROCM_ARCH")


# 8a. Grid-wide barriers and cooperative launches (KRN004).
COOPERATIVE_RULES = frozenset({"KRN004"})
_COOPERATIVE_LAUNCH = re.compile(r"LaunchCooperativeKernel")
# the occupancy API, asked at run time for the GPU the code runs on
_OCCUPANCY = re.compile(rb"\b(?:cuda|cu)OccupancyMaxActiveBlocksPerMultiprocessor\w*\s*\(")


def cooperative(f: Draft, sf: SourceFile) -> Draft:
    """KRN004 at info where the barrier or launch needs nothing for AMD (module doc, step 8a)."""
    if f.rule not in COOPERATIVE_RULES or f.severity <= Severity.INFO:
        return f
    at = _offset(sf, f.line, f.column)
    fn = sf.enclosing(at)
    if _COOPERATIVE_LAUNCH.search(f.snippet):
        if fn is None or fn.is_kernel or not _OCCUPANCY.search(sf.code, fn.start_byte, fn.end_byte):
            return f
        return _as_info(f, "occupancy", f"{fn.name} sizes the grid from the occupancy API at run time: right for the "
                                        f"AMD GPU that runs it")
    if fn is None:
        return f
    kernels = _kernels_reaching(sf, fn)
    if not kernels or any(_chevron_launched(sf, k) for k in kernels):
        return f  # a helper no kernel here calls, or a kernel launched with <<<>>>: the barrier stays open
    return _as_info(f, "cooperative", f"HIP's grid_group::sync works under hipLaunchCooperativeKernel, and this file "
                                      f"launches {', '.join(kernels)} with no <<<>>>: the work is at the cooperative "
                                      f"launch")


def _kernels_reaching(sf: SourceFile, fn) -> list[str]:
    """The file's kernels that are `fn` or call it, directly or through the file's other functions, sorted (each
    function's callees read once per file)."""
    callees = sf.cache.get("refine.callees")
    if callees is None:
        callees = sf.cache["refine.callees"] = [
            (g, {m.group(1) for m in _CALLEE.finditer(sf.code, g.start_byte, g.end_byte)}) for g in sf.functions]
    names, frontier = {fn.name.encode()}, [fn.name.encode()]
    while frontier:
        name = frontier.pop()
        for g, called in callees:
            own = g.name.encode()
            if own not in names and name in called:
                names.add(own)
                frontier.append(own)
    return sorted({g.name for g, _ in callees if g.is_kernel and g.name.encode() in names})


# A call by name: `helper(`, `helper<T, 4>(`.
_CALLEE = re.compile(rb"\b([A-Za-z_]\w*)\s*(?:<[^;{}()]*>)?\s*\(")


def _chevron_launched(sf: SourceFile, kernel: str) -> bool:
    """Whether the file launches `kernel` with `<<<...>>>` (template arguments between allowed)."""
    return re.search(rb"\b" + re.escape(kernel.encode()) + rb"\s*(?:<(?!<<)[^;{}]*?>)?\s*<<<", sf.code) is not None


def optional_dropin(f: Draft, groups: Iterable[Group]) -> Draft:
    """A drop-in library's include at info when an `#if` arm around it tests the library's own switch (`#if
    HAVE_NVTX`, `#ifdef K2_ENABLE_NVTX`, `#ifdef APP_USE_CUSOLVER`): the build sets it only where it finds the
    library, so the feature is optional, and where ROCm has the drop-in it is a rename the switch already gates."""
    if f.rule not in OPTIONAL_DROPIN_RULES:
        return f  # LIB001 reads info anyway (a rename); the switch that gates it is still worth saying
    lib = str(dict(f.data).get("library_id", "")).lower()
    if not lib:
        return f
    found = _switch_around(f, groups, lib)
    return f if found is None else _as_info(f, "optional", f"only built with {found[0]} (line {found[1]})")


def _switch_around(f: Draft, groups: Iterable[Group], name: str) -> tuple[str, int] | None:
    """The macro named for `name` (a library or the profiling switch) that a positive `#if` arm around the finding
    tests without `!`, and the arm's line; None when no arm does."""
    for g in groups:
        for a in g.arms:
            if a.kind in POSITIVE_ARMS and f.line in a.body and "!" not in a.text:
                switch = next((t for t in _MACRO.findall(a.text) if _names_library(t, name)), None)
                if switch is not None:
                    return switch, a.line
    return None


# 4a. Profiling instrumentation behind its own switch: a finding inside a positive `#if` arm (C/C++) or a CMake
# `if()` block whose condition names an NVTX switch (`GOMC_NVTX_ENABLED`, `USE_NVTX`, `HAVE_NVTX3`) is in a build
# the user opts into to profile with Nsight; the default build, which the port is about, never compiles it. Info
# (data `optional`); the switch's own port (roctx, rocprofiler) is the NVTX include's finding.
PROFILING_SWITCH = "nvtx"


def profiling_switch(f: Draft, groups: Iterable[Group]) -> Draft:
    """A C/C++ finding at info when a positive `#if` arm around it tests an NVTX switch (step 4a)."""
    found = None if f.severity <= Severity.INFO else _switch_around(f, groups, PROFILING_SWITCH)
    return f if found is None else _as_info(f, "optional",
                                            f"only built with the profiling switch {found[0]} (line {found[1]})")


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


# 4c. CMake: a block whose condition holds only on Windows - `if(MSVC)`, `if(WIN32)`, `if(CMAKE_CXX_COMPILER_ID
# STREQUAL "MSVC")`, `if(CMAKE_SYSTEM_NAME STREQUAL "Windows")`, alone or and-ed with other tests - sets up the MSVC
# host compiler (FLAMEGPU's `-Xcompiler /wd4503` warning suppressions). ROCm for Instinct GPUs is Linux-only
# (https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html; the HIP SDK for
# Windows supports Radeon parts only), so the port never takes the block: info (data `windows_only`). A condition with
# NOT or OR is not read.
_WINDOWS_WORD = re.compile(rb"\b(?:MSVC|WIN32|Windows)\b")
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


def cmake_windows_blocks(sf: SourceFile) -> tuple[tuple[int, int, str, int], ...]:
    """(first, last line, condition, if line) of each CMake if()/elseif() arm whose condition holds only on
    Windows (step 4c)."""
    out = []
    for arm in arms(sf.code):
        cond = " ".join(arm.condition.split())
        if cond and arm.end <= len(sf.line_starts) + 1 and _windows_condition(cond):
            out.append((arm.line + 1, arm.end - 1, cond, arm.line))
    return tuple(out)


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


def _names_library(macro: str, lib: str) -> bool:
    """Whether a macro has the library's id as a component (`HAVE_NVTX`, `K2_USE_NVTX3`, `USE_CUSOLVER`)."""
    return any(re.fullmatch(re.escape(lib) + r"\d*", part.lower()) for part in macro.split("_"))


def old_toolkit_lines(groups: Iterable[Group]) -> frozenset[int]:
    """Body lines of the `#else` of `#if CUDA_VERSION >= N` (or __CUDACC_VER_MAJOR__): code for older toolkits."""
    out: set[int] = set()
    for g in groups:
        if len(g.arms) > 1 and g.has_else and _CUDA_VERSION_AT_LEAST.search(g.arms[0].text):
            out.update(g.arms[-1].body)
    return frozenset(out)


def one_per_spot(findings: list[Draft]) -> list[Draft]:
    """Drop a general rule's finding where a more specific rule (`specific()`) hit an overlapping span on the same
    lines; the kept finding records the dropped ones under data `also`. Input and output sorted."""
    by_rule: dict[str, list[Draft]] = {}
    for f in findings:
        by_rule.setdefault(f.rule, []).append(f)
    table = specific()
    if not any(r in by_rule and any(s in by_rule for s in table[r]) for r in table):
        return findings
    drop: set[int] = set()
    merged: dict[int, list[str]] = {}
    index = {id(f): i for i, f in enumerate(findings)}
    for general, specifics in table.items():
        for g in by_rule.get(general, ()):
            for rule in specifics:
                keeper = next((s for s in by_rule.get(rule, ()) if _overlap(g, s)), None)
                if keeper is not None:
                    drop.add(index[id(g)])
                    merged.setdefault(index[id(keeper)], []).append(f"{g.rule}: {g.message}")
                    break
    out = []
    for i, f in enumerate(findings):
        if i in drop:
            continue
        if i in merged:
            data = dict(f.data)
            also = sorted(set(merged[i]) | set(filter(None, str(data.get("also", "")).split("\n"))))
            data["also"] = "\n".join(also)
            f = f._replace(data=tuple(sorted(data.items())))
        out.append(f)
    return out


def _overlap(a: Draft, b: Draft) -> bool:
    """Same spot: the line ranges meet, and on a shared single line the column spans meet too."""
    if a.path != b.path or a.end_line < b.line or b.end_line < a.line:
        return False
    if a.line == a.end_line == b.line == b.end_line:
        return a.column < b.end_column and b.column < a.end_column
    return True
