"""The port-status stage: give every finding and kernel its status (open, handled, cuda-only) and what decided it.

`attach_status(result, settings, source)` runs once after kernel analysis. It reads the repository's C/C++/CUDA,
CMake and setup.py files again (cheap next to the scan: a directive lexer and, only for files that can hold a
runtime vendor check, the tree-sitter parse), builds a `PortMap` and decides each spot, first rule that holds:

1. a `cuda_only` glob from configuration → cuda-only (the team's choice);
2. ROCm-only by name or place (`.hip`, `*_hip.*`, `rocm/`, `hip/`, `ck/`) → handled (it is the port);
3. a file only the ROCm build compiles (CMake arm, setup.py branch, included only from ROCm-side lines) → handled;
4. a file only the CUDA build compiles → handled when the same build branch names a ROCm twin, else cuda-only (so is a
   side build: a CMakeLists.txt or Makefile beside a torch-extension setup.py that never runs it, or a standalone
   test build in a test directory); a
   Makefile, CMake file or setup.py with a ROCm twin beside it (`makefile` / `makefile.hip`, `CMakeLists.txt` /
   `CMakeLists_hip.txt`, `setup.py` / `setup_hip.py`), a make configuration fragment beside the project's ROCm
   one in its directory or the parent (`config/unix-nvcc.mk` / `config/unix-hipcc.mk`: configuration_twins), or a
   CUDA source with one
   (`mont_t.cuh` / `mont_t.hip`, `k_cuda.cu` / `k_hip.cpp`, or in a parallel folder named for the vendor's library:
   `seqcusparse/aijcusparse.cu` / `seqhipsparse/aijhipsparse.hip.cxx`, porter.portaware.scope.source_twins), or a
   plain header whose ROCm-named neighbour defines the same things (`types.h` / `types_hip.h`,
   scope.same_definitions) → handled, and the twin is the ROCm build's;
   a file of a component directory only the CUDA build compiles whose sibling the ROCm build compiles instead
   (Automake `if COMM_CUDA_ENABLED` beside `if COMM_RCCL_ENABLED`, `templates/cuda` beside `templates/hip`,
   porter.portaware.scope.component_twins; or the same backend in another programming model that the project
   builds for AMD, lc0's `backends/cuda` beside `backends/sycl` with hipBLAS, scope.backend_twins) → handled by
   that sibling, its kernels' verdicts kept (a component
   without such a sibling stays open: a missing feature is work); twins are read per file and per kernel where they
   pair so (_unported: a source in a CUDA directory whose ROCm sibling twins it file for file but has no twin of its
   own, and a kernel its twin file does not name, stay open - nor is a CUDA arm with no ROCm arm evidence there; a
   kernel of a component or a build arm's CUDA source whose ROCm counterpart holds no file of its core stem and
   names it nowhere stays open too, _unported_kernels;
   except a component file that implements CUDA's own API, compat.implements_cuda_api: the ROCm sibling calls HIP's
   runtime instead);
   a file named for a CUDA library beside one named for its ROCm counterpart that uses it (`cublas.cc` /
   `rocblas.cc`, scope.library_twin_candidates) is a twin too; a CMake Find module or include() loaded only
   from CUDA arms → handled, by the arm's guard; but a finding (above info) whose counterpart - the sibling
   directory or twin file, with the ROCm-side files it includes - has the same rule on the same words, on a line
   the ROCm build compiles, stays open: the ROCm side shares the gap (shared_by_counterpart: Cycles' optix/compat.h
   tex2D, whose hiprt/ counterpart includes hip/compat.h with the same tex2D);
4b. a file no build compiles (unbuilt_sources: every build is a torch-extension setup.py or a Makefile with closed
   source/object lists, and neither they nor the files they compile include it) → cuda-only, its kernels ok; so is
   a line inside a template kernel nothing instantiates (in_uninstantiated_kernels);
5. a line in a preprocessor arm only one build compiles (porter.source.preprocessor; a macro the CMake build defines
   only in CUDA arms, or named as a CUDA-build switch for an NVIDIA-only library, counts as the CUDA build's:
   _cmake_cuda_definitions) → handled, by that `#if` - unless the fork's ROCm-named arms hold no code (only
   comments, an `#error`, a "not implemented" throw: _without_hollow_forks), which ports nothing;
6. a line in a CMake arm only one build takes, or a Makefile's CUDA-named variable or rule with a ROCm twin
   (PYBINDFLAGS_CUDA beside PYBINDFLAGS_HIP), or a CMake set() of a CUDA-named variable whose ROCm twin the file names
   (CUDA_NVCC_FLAGS beside HIP_HIPCC_FLAGS, porter.portaware.scope.cmake_twin_variables), or a CMake function named
   for NVIDIA whose AMD twin the file defines (cmake_twin_functions) → handled; so is an assignment to an nvcc-only
   flag variable (`NVCCFLAGS +=`, `list(APPEND NVCC_FLAGS`, a make template's `$(2)NVCC_FLAGS`) in a repository with
   ROCm-side files or build arms (nvcc_flag_assignments), and in a Makefile that also builds with the ROCm toolchain
   an assignment only its nvcc side reads (`NVCC := nvcc`, an `LDFLAGS` read only by the nvcc recipe:
   make_toolchain_regions), and in a shell environment script a CUDA-named build variable beside its ROCm twin
   (`APP_CUDA_LIB` / `APP_HIP_LIB`, script_twin; a port-kind library on it stays open); so is a
   `$<COMPILE_LANGUAGE:CUDA>` generator expression
   when every command enabling CMake's CUDA language sits in a CUDA arm of a build with a ROCm arm (the ROCm build
   never compiles CUDA-language sources) → handled, by that arm's guard;
7. code in a runtime vendor branch (porter.portaware.guards; `is_cuda()` counts when the file also asks `is_hip()`;
   a shell script's `if [ "$device" = "gpu_nvidia" ] ... elif [ ... "gpu_amd" ]` whose AMD arm runs a command)
   → handled, by that `if` - unless the finding's rule is tagged `breaks-build` (inline PTX, a 32-bit lane mask):
   hip-clang compiles both branches of an `if`, so only rules 1-6 and 8 can handle such a finding;
8. a file included only from CUDA-side lines, or only from files the CUDA build alone compiles → handled (the
   other arm includes the ROCm one, or the ROCm build never compiles its includers); one included only from a CUDA
   component's files is part of that component (handled, its kernels' verdicts kept);
9. a line inside a CUDA-named class whose HIP-named twin the repository defines (`CudaExecutor` / `HipExecutor`,
   porter.portaware.twins) → handled, by the twin - unless the rule is tagged `breaks-build` and the twin is in the
   same file (the ROCm build compiles both classes);
9b. CUDA text that a ROCm-side branch of the project's Python rewrites in kernel source before compiling it
   (`kernel.replace("__shfl_down_sync(FULL_MASK,", "__shfl_down(")` under `if torch.version.hip:`,
   porter.portaware.rewrites), where the finding's columns cover it → handled, by the `replace` line;
10. a CUDA name the finding matched that a compat layer maps for ROCm (porter.portaware.compat: a ROCm-side
   `#define`, alias, `auto` alias or polyfill function, in a header for the files whose translation units include
   it, in a source for that file) → handled - unless the rule is tagged `rocm-code` or `beyond-rename` (KRN004: a
   renamed cooperative launch still needs every block resident on the AMD device; the rename is no port of that);
11. a CUDA library type the finding matched that the repository forward-declares (`struct cublasContext;`): an
   incomplete type compiles without the library, so the name is no porting item → handled, by the declaration;
11b. where rules 1-11 decide nothing, a line of a CUDA-side file whose functions, kernels and classes a ROCm-side
   file defines again, whatever the two are called (ludwig's target_cuda.c / target_hip.c behind one header of
   wrappers; porter.portaware.twins.definition_twin, _definition_twins) → handled, by that file - unless the line is
   in a definition the twin lacks;
12. an API or library spot in a `.cu`/`.cuh` whose same-stem sibling (`pool.cu` / `pool.cpp`) spells the spot's HIP
   name and none of its CUDA names (PortMap.by_twin) → handled, by that line of the twin;
otherwise open. The repository's ROCm build is read once as a whole (porter.portaware.rocmbuild.RocmBuild, in
`port_status.rocm_build`: its evidence - a CMake/make/Meson arm, make configuration, build twin, `torch.version.hip`
branch of a setup.py, HIP language or hipcc command that configures something - the build files it covers, and the
ROCm arms that are hollow); where a build's every ROCm arm is hollow and it has no other evidence (QGEMM's empty
`if(USE_HIP)`; per build: a CMake project, or a make file, Meson file or setup.py of its own), a finding of a rule
tagged `nvidia-build` that an arm of that build read handled is open again: no ROCm build stands in for the NVIDIA
build it configures (without_rocm_build). Where no rule above decides an `nvidia-build` line, the ROCm build
stands in for it per build system (by_rocm_build, RocmBuild.stands_in: the CMake project, the Meson build, the Bazel
package, the Dockerfiles above it; never a make file, build script or setup.py, which run on their own, nor a
`toolkit-requirement` line), and a shell script's NVIDIA launch lines are handled by a ROCm script above it.
A finding of a rule tagged `gpu-runner` (CTR007: a CI job on an NVIDIA runner) is handled when a CI
file of the repository already runs a job on an AMD GPU runner (porter.portaware.runners). HIP code itself (a ROCm
arm's `__shfl_xor`, AMD assembly in a `.hip` file) reads handled, never open and never dropped: it is port work
already done, and shown so.

A kernel is cuda-only or handled when its definition line is; else handled when it has issues (findings above
info in its body and the device functions it calls, non-ok checks) and none is open. Its per-target verdicts keep only the checks with an open line, so a kernel
whose wave64 mask sits in a guard is not "fix" (cuda-only checks stay, as the optional work). `result.port_status` sums it up for effort and reports.
"""
from __future__ import annotations

import bisect
import dataclasses
import fnmatch
import re
import posixpath
from dataclasses import dataclass, field
from typing import Any, Iterable

from porter.lazyre import lazy_regex
from porter.match import refine_unreferenced
from porter.model import Finding, Kernel, PortFacts, PortStatusSummary, ScanResult, Severity, Status, StatusCounts
from porter.model.finding import PROJECT_HEADER
from porter.model.kernel import CheckResult, TargetVerdict
from porter.model.report import KernelAnalysisSummary
from porter.portaware.compat import (CompatLayer, aliases, implements_cuda_api, include_reach,
                                     mapped_definitions)
from porter.source.discover import HEADER_SUFFIXES
from porter.portaware.guards import CPP_PREDICATE_HINT, PY_PREDICATE_HINT, ROCM_WORD, Span, cpp_spans, python_spans
from porter.portaware.pymodules import read_together
from porter.portaware.scope import (AUTOMAKE_NAME, Reference, automake_components, backend_twins, build_sides,
                                    build_twin,
                                    cmake_compile_definitions,
                                    build_twin_names, cmake_commands, cmake_twin_functions, cmake_twin_variables,
                                    cmake_module_uses, cmake_references, component_twins, cuda_dependent_options,
                                    cuda_language_enables, cuda_language_spans, cuda_property_spans, cuda_variable_spans,
                                    cmake_units, rocm_reach, cmake_variable_facts, cuda_only_variables,
                                    optional_toolkit_finds,
                                    cuda_only_match, directory_counterparts, library_twin_candidates, rocm_spellings, shell_vendor_arms, other_model_dirs, same_definitions, sibling_twin, source_twins, unused_arm, used_names,
                                    cmake_tested, cuda_extras, cuda_twins_tested, make_conditional_regions, make_rocm_configuration,
                                    make_toolchain_regions,
                                    meson_conditional_regions,
                                    make_twin_regions,
                                    meson_rocm_line, nvcc_flag_assignments, nvidia_only_switches, rocm_header, rocm_path_evidence,
                                    posix_path, toolkit_arms,
                                    setup_references, setup_source_patterns)
from porter.source import preprocessor
from porter.source.preprocessor import CUDA, ROCM
from porter.portaware.options import (build_names, cmake_option_blocks, cmake_option_facts, cmake_packages,
                                      combine_off_options, commented_defines, found_names, make_off_switches,
                                      off_arms, off_packages)
from porter.portaware.kernel_builder import BUILD_TOML, kernel_builder_references, twin_archs
from porter.portaware.rewrites import rewritten_at, rocm_rewrites
from porter.portaware.bazel import incompatible_regions
from porter.portaware.rocmbuild import (CI, DOCKER, RocmBuild, cmake_project, inert_runs, launches, rocm_build,
                                        rocm_lines, rocm_tool_lines)
from porter.portaware.runners import amd_runner_line, ci_job_twins, is_ci_file
from porter.portaware.twins import (class_spans, class_twins, definition_twin, forward_declarations,
                                    visible_definitions)


# How many C/C++ files the search for an unused arm's names reads at most (PortMap.unused_arms).
_UNUSED_FILES = 5000

# PortMap.file_side's kind for a file of a CUDA component whose ROCm counterpart is another component (a sibling
# directory): its findings are handled, but its kernels have no HIP twin of their own, so their verdicts still say
# what the kernel needs on AMD (ucc's NVLS kernels in tl/cuda are rewrite; the ROCm build's tl/rccl has none).
COMPONENT = "component"

# The side of a build-file region that a team's opt-in NVIDIA variant holds (a pyproject extra named for CUDA):
# cuda-only, not handled - nothing in the repository ports it.
CUDA_ONLY_EXTRA = "cuda-only"

# PortMap.file_side's kind for a file no build compiles (unbuilt_sources): cuda-only for findings (not
# open: nothing compiles it), and its kernels' verdicts ok (no target compiles them, so none needs work).
UNBUILT = "unbuilt"

# Compiled when first used (porter.lazyre): only a repository with a compat layer needs it.
_ident = lazy_regex(r"[A-Za-z_]\w*")
# a CUDA compiler macro (`__CUDACC__`, `__NVCC__`, `__CUDA_ARCH__`); a HIP one (`__HIPCC__`, `__HIP__`,
# `__HIP_PLATFORM_AMD__`, `__HIP_DEVICE_COMPILE__`): PortMap.hip_tests
_CUDA_MACRO = lazy_regex(r"__(?:CUDACC|NVCC|CUDA_ARCH|CUDACC_RTC)__")
_HIP_MACRO = lazy_regex(r"\b__HIP(?:CC|_PLATFORM_\w+|_DEVICE_COMPILE)?__\b")
# A replacement that is one HIP/ROCm name (`miopenGetPoolingForwardOutputDim`, `hipblasSgemm`, `thrust::hip::par`),
# not a header path or advice ("hipcc / clang flags").
_HIP_NAME = lazy_regex(r"(?:[A-Za-z_]\w*::)*(?:hip|miopen|roc|rccl|HIP|MIOPEN|ROC|RCCL)\w*")
# The suffixes a CUDA source's hipified sibling of the same stem may have.
_STEM_TWIN_SUFFIXES = {".cu": (".cpp", ".cc", ".cxx"), ".cuh": (".h", ".hpp", ".hh")}

# What may follow a type name that only needs the type declared: `*`, `&`, `>`, `,`, `;` (not `)`: `sizeof(T)`).
_incomplete_use = lazy_regex(r"\s*(?:const\s*)?[*&>,;]")


@dataclass(frozen=True)
class StemTwin:
    """A CUDA source's same-stem sibling in another C/C++ suffix (`pool.cpp` beside `pool.cu`, see PortMap.by_twin):
    its path, its text and its words, each maximal `\\w+` run, read once: a name is among them exactly where
    `(?<!\\w)name(?!\\w)` would find it in the text."""

    path: str
    text: str
    words: frozenset[str]


@dataclass
class PortMap:
    """What the repository's guards, build files, compat layers and configuration say about each file and line."""

    cuda_only: tuple[str, ...] = ()
    cuda_only_from: tuple[str, ...] = ()
    file_side: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # path -> (status kind, side, evidence)
    # a CUDA source whose ROCm twin a kernel-builder build.toml builds for some gfx archs only -> those archs
    # (porter.portaware.kernel_builder.twin_archs): its kernels have no ROCm code on the other targets
    twin_archs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    regions: dict[str, list[preprocessor.Region]] = field(default_factory=dict)
    # per file with regions: each conditional directive's first line -> its last (a continued `#if ... \`)
    directive_ends: dict[str, dict[int, int]] = field(default_factory=dict)
    cmake_regions: dict[str, list[tuple[int, int, str, int]]] = field(default_factory=dict)
    spans: dict[str, list[Span]] = field(default_factory=dict)
    compat: CompatLayer = field(default_factory=CompatLayer)
    lines: dict[str, dict[int, str]] = field(default_factory=dict)  # line -> text where findings are
    twins: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)  # CUDA class lines -> its HIP twin
    forward: dict[str, str] = field(default_factory=dict)  # forward-declared type name -> "path:line"
    amd_runner: str | None = None  # "path:line" of a CI job already on an AMD GPU runner
    # CMake generator expressions and property settings for CUDA-language sources only (line, first column, end line,
    # end column: cuda_language_spans, cuda_property_spans), and the arm that alone enables the CUDA language when
    # the ROCm build never does ("path:guard"; None: it may)
    language_spans: dict[str, list[tuple[int, int, int, int]]] = field(default_factory=dict)
    cuda_language: str | None = None
    # arms only an off-by-default compile option enables (first line, last line, "path:line" of its commented
    # definition): porter.portaware.options
    optional: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)
    # packages the repository's CMake looks for only under an option left OFF, by their letters and digits in lower
    # case ("amgx") -> that option's evidence (porter.portaware.options.off_packages; see optional_libraries)
    off_packages: dict[str, str] = field(default_factory=dict)
    # a CUDA source's same-stem siblings in another C/C++ suffix (`pool.cu` beside `pool.cpp`), with their text:
    # a hipified twin when it spells the finding's HIP name and never its CUDA one (see by_twin)
    stem_twins: dict[str, list[StemTwin]] = field(default_factory=dict)
    # (twin path, HIP name) -> the twin's first line spelling the name, or None: many findings ask for the same one
    twin_lines: dict[tuple[str, str], int | None] = field(default_factory=dict, repr=False)
    # assignments to nvcc-only flag variables (porter.portaware.scope.nvcc_flag_assignments), per build file with
    # evidence that the repository already builds for ROCm (without it they stay open)
    nvcc_flags: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    # per such file, that evidence: a ROCm arm of a build file of its own build system (make, cmake) first, else the
    # first ROCm-side file
    nvcc_evidence: dict[str, str] = field(default_factory=dict)
    # in a repository with a ROCm build: the arms of CUDA switches that require the CUDA toolkit (first line, last
    # line, guard line; porter.portaware.scope.toolkit_arms), per CMake file
    toolkit_arms: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)
    # CUDA text the project's ROCm-side Python rewrites in kernel source before compiling it -> "path:line" of the
    # `replace` (porter.portaware.rewrites)
    rewrites: dict[str, str] = field(default_factory=dict)
    # C/C++ files that `#error` in an arm only the ROCm build compiles -> "path:line" of the #error: the ROCm build
    # refuses the file, so a compat layer handles nothing in it
    refused: dict[str, str] = field(default_factory=dict)
    # each counterpart a component or twin pairing names (a ROCm sibling directory "dir/" or a twin file) -> the
    # files that counterpart is made of: its own files and the ROCm-side files they include (Cycles' hiprt/kernel.cpp
    # includes hip/compat.h). A finding its pairing handles stays open when the counterpart has the same construct
    # (shared_by_counterpart): the pairing did not answer what both sides share.
    counterparts: dict[str, frozenset[str]] = field(default_factory=dict)
    # per shell script with findings: its CUDA-named variable assignments whose ROCm twin the same script assigns
    # (first line, last line, the twin's line; scope.make_twin_regions): an environment script that configures
    # both builds (`export APP_CUDA_LIB=...` beside `export APP_HIP_LIB=...`), see script_twin
    script_twins: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)
    # per C/C++ file: `#if` lines whose one arm only defines names the repository uses nowhere else (the line, the
    # arm's first line as "path:line"): a test the ROCm build reads false loses nothing there
    unused_arms: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    # per C/C++ file with findings: the `#if`/`#elif` directives (first line, last line) that test a CUDA compiler
    # macro and a HIP one together
    hip_tests: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    # per CI file with findings: its jobs named for CUDA whose ROCm twin job the file defines (first line, last line,
    # the twin's line; runners.ci_job_twins): spla's build-cuda beside build-rocm
    ci_twins: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)
    # per CUDA file: lines (first, last, why) whose twin pairing ports nothing - the whole of a source in a directory
    # twinned file for file that has no twin of its own, or a kernel its twin file does not define (_unported): there
    # neither the file's twin or component nor a CUDA arm of the file's own with no ROCm arm beside it is evidence
    unported: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)
    # per Python file: its functions only CUDA-side code of another module calls (first line, last line, "path:line"
    # of the guard confining the calls; porter.portaware.pymodules): they run on the CUDA build only
    callers: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)
    # per CUDA file whose definitions a ROCm-side file defines again (_definition_twins): (the twin's path, the
    # (first, last, name) of each of its own definitions the twin lacks); consulted only where nothing else decides
    definition_twins: dict[str, tuple[str, tuple[tuple[int, int, str], ...]]] = field(default_factory=dict)
    # what the reader is told beside the output (a directory named for AMD that is OpenCL code), in order
    notes: list[str] = field(default_factory=list)
    # the repository's ROCm build read as a whole (porter.portaware.rocmbuild): its evidence, or only hollow arms
    rocm_build: RocmBuild = field(default_factory=RocmBuild)
    # shell build scripts whose name twin is a ROCm build script -> "path:line" of the twin's hipcc command
    script_builds: dict[str, str] = field(default_factory=dict)
    # the directories whose CMakeLists.txt declares a project() (RocmBuild.stands_in: a CMake file's project)
    cmake_projects: frozenset[str] = frozenset()
    # per CMake file, its build units narrower than the project (scope.cmake_units), and the units the ROCm build
    # reaches in the repository (scope.rocm_reach): by_rocm_build stands the project's ROCm build in for a unit's
    # CUDA lines only where it reaches the unit
    cmake_units: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)
    rocm_reach: frozenset[str] = frozenset()
    # shell scripts that run ROCm's tools or compiler -> "path:line" of the first such line; shell scripts that
    # launch the project in a container or cluster job (by_rocm_build)
    rocm_scripts: dict[str, str] = field(default_factory=dict)
    launchers: frozenset[str] = frozenset()

    def decide(self, path: str, line: int, column: int = 1, end_column: int | None = None,
               rocm_code: bool = False, gap: bool = False, breaks: bool = False,
               beyond: bool = False) -> tuple[Status, str | None]:
        """The status of the code at path:line:column and what decides it (_decide); where nothing does, a line of
        a file whose definitions a ROCm-side file defines again (definition_twins) is handled by that file - unless
        it is a definition the twin lacks, or, for a `rocm-code` rule, a line the ROCm build compiles."""
        status, ev = self._decide(path, line, column, end_column, rocm_code, gap, breaks, beyond)
        if status == Status.OPEN and path in self.definition_twins:
            twin, missing = self.definition_twins[path]
            # (nor where a file or folder pairing found the file ports nothing: PortMap.unported)
            if not any(a <= line <= b for a, b, _n in missing) and not (
                    rocm_code and self._rocm_side(path, line, self.file_side.get(path))) and not any(
                    a <= line <= b for a, b, _why in self.unported.get(path, ())):
                return Status.HANDLED, twin
        return status, ev

    def _decide(self, path: str, line: int, column: int = 1, end_column: int | None = None,
                rocm_code: bool = False, gap: bool = False, breaks: bool = False,
                beyond: bool = False) -> tuple[Status, str | None]:
        """The status of the code at path:line:column, and the "path:line" (or path) that decides it. With
        `rocm_code` (a rule tagged `rocm-code`: its finding is about code the ROCm build compiles, such as a
        hard-coded wave size), ROCm-side code is no evidence of a port: such a spot stays open. With `gap` (a rule
        tagged `rocm-gap`: its finding is a vendor fork that gives the ROCm build nothing), the fork's own guard
        and arms are no evidence either: they are what the finding is about. With `breaks` (a rule tagged
        `breaks-build`: hip-clang rejects the code, inline PTX or a 32-bit mask HIP static-asserts against), only
        what keeps the ROCm build from compiling the line counts: a runtime vendor branch (rule 7: hip-clang
        compiles both branches of an `if`) and a class twin in the same file (rule 9: both structs are compiled)
        are no evidence. With `beyond` (a rule tagged `beyond-rename`), or `rocm_code`, a compat layer's rename of
        the name is no evidence (rule 10)."""
        g = cuda_only_match(path, self.cuda_only) if self.cuda_only else None
        if g is not None:
            i = self.cuda_only.index(g)
            return Status.CUDA_ONLY, self.cuda_only_from[i] if i < len(self.cuda_only_from) else f"cuda_only: {g}"
        fs = self.file_side.get(path)
        if rocm_code and self._rocm_side(path, line, fs):
            return Status.OPEN, None
        if fs is not None and fs[1] == ROCM:
            return Status.HANDLED, fs[2]
        if fs is not None and fs[0] in ("build", UNBUILT) and fs[1] == CUDA:
            return Status.CUDA_ONLY, fs[2]
        unported = any(a <= line <= b for a, b, _why in self.unported.get(path, ()))
        if fs is not None and fs[0] in ("twin", COMPONENT) and not unported:
            return Status.HANDLED, fs[2]
        regs = self.regions.get(path) if not gap else None
        # where the twin pairing ports nothing, a CUDA arm with no ROCm arm in its chain (blaspp's file-wide
        # `#if defined(BLAS_HAVE_CUBLAS)`) only says the ROCm build skips the code: no port of it
        forked = {r.guard for r in regs if r.side == ROCM} if regs and unported else None
        if regs:
            s, guard = preprocessor.side_at(regs, line)
            # "none" with a vendor guard: the ROCm build never compiles it either (SPECFEM3D's `#else` of
            # `#ifdef USE_OLDER_CUDA4_GPU` inside `#ifdef USE_CUDA`, a switch only CUDA arms define, read defined)
            if s in (CUDA, ROCM, "none") and guard and (forked is None or s == ROCM or guard in forked):
                return Status.HANDLED, f"{path}:{guard}"
            # the vendor test itself (`#ifdef __NVCC__` before `#elif __HIP__`): the port's fork, not work left -
            # every line of it when it is continued (`#if defined(__CUDACC_VER_MAJOR__) \` and its next line),
            # i.e. from the guard up to the first region that guard decides
            ends = self.directive_ends.get(path)
            for r in regs:
                if r.guard and r.guard <= line < r.start and (forked is None or r.guard in forked):
                    if ends is not None and r.guard in ends:
                        # the directive's own lines only: an arm before a dead one the guard decided (`#ifndef
                        # __HIP_PLATFORM_HCC__ ... #else`, the `#else` dead in both builds) is no test line
                        if line <= ends[r.guard]:
                            return Status.HANDLED, f"{path}:{r.guard}"
                        continue
                    first = min(x.start for x in regs if x.guard == r.guard and x.start > r.guard)
                    if line < first:
                        return Status.HANDLED, f"{path}:{r.guard}"
        for start, end, ev in self.optional.get(path, ()):
            if start <= line <= end:
                return Status.CUDA_ONLY, ev
        for start, end, twin in self.ci_twins.get(path, ()):
            if start <= line <= end:
                return Status.HANDLED, f"{path}:{twin}"
        for start, end, s, guard in self.cmake_regions.get(path, ()):
            if start <= line <= end and guard:
                return (Status.CUDA_ONLY if s == CUDA_ONLY_EXTRA else Status.HANDLED), f"{path}:{guard}"
        for start, end in self.nvcc_flags.get(path, ()):
            if start <= line <= end:
                return Status.HANDLED, self.nvcc_evidence[path]
        for start, end, guard in self.toolkit_arms.get(path, ()):
            if start <= line <= end:
                return Status.HANDLED, f"{path}:{guard}"
        if self.cuda_language is not None:
            # `$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=...>` or CUDA_SEPARABLE_COMPILATION in a repository whose ROCm
            # build never enables CUDA: only the CUDA build's CUDA-language compiles see it
            for n, a, m, b in self.language_spans.get(path, ()):
                if (n, a) <= (line, column) < (m, b):
                    return Status.HANDLED, self.cuda_language
        for start, end, guard in self.callers.get(path, ()) if not breaks else ():
            if start <= line <= end:
                return Status.HANDLED, guard
        best = None
        for sp in self.spans.get(path, ()) if not breaks else ():
            if sp.holds((line, column)) and (best is None or sp.start >= best.start):
                best = sp
        if best is not None:
            return Status.HANDLED, f"{path}:{best.line}"
        if fs is not None and fs[0] == "include" and fs[1] == CUDA:
            return Status.HANDLED, fs[2]
        for start, end, twin in self.twins.get(path, ()):
            if start <= line <= end and not (breaks and twin.rsplit(":", 1)[0] == path):
                return Status.HANDLED, twin
        if not gap:
            # a CUDA compiler macro tested together with a HIP one (spla's `#if defined(__CUDACC__) ||
            # defined(__HIPCC__)`), or a CUDA library's switch with its ROCm twin (`BLAS_HAVE_CUBLAS ||
            # BLAS_HAVE_ROCBLAS`): the project wrote the ROCm build's side of that test, so renaming the CUDA macro
            # is no work left (the arms it opens are decided by their own code)
            for first, last in self.hip_tests.get(path, ()):
                if first <= line <= last:
                    return Status.HANDLED, f"{path}:{first}"
            for at, ev in self.unused_arms.get(path, ()):
                if at == line:
                    return Status.HANDLED, ev
        if not (self.rewrites or self.compat or self.forward):
            return Status.OPEN, None
        # the three decisions below read the finding's own line, which the scan kept (port facts' finding_lines)
        text = self.lines.get(path)
        row = text.get(line) if text else None
        if row is None:
            return Status.OPEN, None
        if self.rewrites:
            hit = rewritten_at(row, column, end_column, self.rewrites)
            if hit is not None:
                return Status.HANDLED, hit
        if self.compat or self.forward:
            seg = row[column - 1:end_column - 1] if end_column and end_column > column else row[column - 1:]
            names = _ident().findall(seg)
            # a rocm-code rule's finding is about what the ROCm build compiles (a wave size, a grid every block of
            # which must be resident): the layer's rename is that code, no port of it
            hit = self.compat.lookup(path, names) if self.compat and path not in self.refused \
                and not (rocm_code or beyond) else None
            if hit:
                return Status.HANDLED, hit
            # the name the finding matched is a type the repository declares incomplete, used as one (a
            # pointer, a reference, a template argument, the declaration itself): `cublasContext* h`,
            # `handle_manager<cublasContext>`; a use that needs the whole type (`prop.major`) stays open
            if (len(names) == 1 and names[0] in self.forward and end_column
                    and _incomplete_use().match(row, end_column - 1)):
                return Status.HANDLED, self.forward[names[0]]
        return Status.OPEN, None


    def by_twin(self, path: str, line: int, column: int, end_column: int | None, replacement: str | None) -> str | None:
        """"path:line" of the HIP name `replacement` in a same-stem sibling of `path` (FlexFlow's
        src/ops/kernels/pool_2d_kernels.cpp beside pool_2d_kernels.cu: the ROCm build globs `*.cpp`, the CUDA build
        `*.cu`) that spells the HIP name and none of the CUDA names the finding matched, or None. A sibling is the
        spot's hipified twin only by what it holds: a host-side `.cpp` of the same stem calls the CUDA name too (or
        neither), and a stub twin (`handle_unimplemented_hip_kernel`) lacks the HIP call, so the spot stays open."""
        twins = self.stem_twins.get(path)
        text = self.lines.get(path)
        row = text.get(line) if text else None
        if not twins or not replacement or row is None or not _HIP_NAME().fullmatch(replacement):
            return None
        seg = row[column - 1:end_column - 1] if end_column and end_column > column else row[column - 1:]
        names = [n for n in _ident().findall(seg) if len(n) > 3 and n != replacement]
        if not names:
            return None
        for twin in twins:
            key = (twin.path, replacement)
            if key not in self.twin_lines:
                m = re.search(r"(?<![\w:])" + re.escape(replacement) + r"(?!\w)", twin.text)
                self.twin_lines[key] = twin.text.count("\n", 0, m.start()) + 1 if m else None
            at = self.twin_lines[key]
            if at is not None and not any(n in twin.words for n in names):
                return f"{twin.path}:{at}"
        return None

    def decide_verdict(self, path: str, line: int) -> tuple[Status, str | None]:
        """decide() for a kernel check's line: a component counterpart handles findings, not the kernel's needs."""
        fs = self.file_side.get(path)
        if fs is not None and fs[0] == COMPONENT:
            return Status.OPEN, None
        return self.decide(path, line)

    def _rocm_side(self, path: str, line: int, fs) -> bool:
        """Whether the ROCm build compiles the line and the CUDA build does not (a ROCm file, arm or branch)."""
        if fs is not None and fs[1] == ROCM:
            return True
        regs = self.regions.get(path)
        if regs and preprocessor.side_at(regs, line)[0] == ROCM:
            return True
        # a build file's ROCm branch (CMake `if(USE_HIP)`, make `ifeq ($(BACKEND),hip)`): `-DWARP_SIZE=64` there
        if any(a <= line <= b and s == ROCM and guard for a, b, s, guard in self.cmake_regions.get(path, ())):
            return True
        return any(sp.side == ROCM and sp.holds((line, 1)) for sp in self.spans.get(path, ()))


# Finding categories a hipified twin answers by spelling the HIP name: library and runtime API calls and types.
# A device-code finding (a 32-bit shuffle mask, an `__CUDA_ARCH__` test) is about how the code behaves, which the
# twin's spelling of a name does not settle (FlexFlow's twins carry the same `__CUDA_ARCH__ >= 700` test).
_TWIN_CATEGORIES = frozenset({"api", "library"})
# A rule with this tag reports code the ROCm build compiles: a ROCm guard around it does not make it handled.
ROCM_CODE_TAG = "rocm-code"
# A rule with this tag reports a vendor fork that leaves the ROCm build without code (DEV043: `#elif LIB_USES_CUDA`
# with no HIP arm): the fork's guard lines, which otherwise show the port's fork, do not make it handled.
ROCM_GAP_TAG = "rocm-gap"
# A rule whose finding a compat layer's rename of the matched name does not port (PortMap.decide, rule 10).
BEYOND_RENAME_TAG = "beyond-rename"
# A rule with this tag reports code hip-clang refuses to compile (inline PTX, a 32-bit lane mask HIP static-asserts
# against, a header or API HIP lacks): only a preprocessor guard, build selection or a twin file handles it, never a
# runtime vendor branch or a class twin in the same file, which the ROCm build compiles as well (PortMap.decide).
BREAKS_BUILD_TAG = "breaks-build"
# A rule with this tag asks for an AMD GPU runner in CI: a CI job already on one handles it.
RUNNER_TAG = "gpu-runner"
# A rule with this tag reports a line of the NVIDIA build's configuration (nvcc as compiler, -arch/-gencode, nvcc
# flags, the CUDA language, FindCUDA): handled only where the repository has a ROCm build (PortMap.rocm_build); an
# arm whose ROCm side is hollow and a repository with no other ROCm build leave it open (attach_status).
NVIDIA_BUILD_TAG = "nvidia-build"
# A rule with this tag (also `nvidia-build`) reports what makes the CUDA toolkit a requirement of the configure
# (`enable_language(CUDA)`, `find_package(CUDAToolkit)`, Meson's 'cuda'): only an arm the ROCm build does not take
# handles it, never the repository's ROCm build elsewhere in the project (by_rocm_build).
TOOLKIT_REQUIREMENT_TAG = "toolkit-requirement"
# A rule with this tag reports an NVIDIA launch setting in a script (NVIDIA_VISIBLE_DEVICES, `--gpus`, nvidia-smi):
# a ROCm script in its directory or above it handles it (by_rocm_build).
NVIDIA_LAUNCH_TAG = "nvidia-launch"


def _read(source, c, limit: int, held=None) -> bytes | None:
    """The file's bytes: those the scan holds (porter.pipeline.Held), else read from `source`."""
    from porter.source.read import SourceReadError

    try:
        data = held.read(source, c, limit) if held is not None else source.read(c, limit)
    except SourceReadError:
        return None
    return None if b"\0" in data[:8192] else data


# 32: session 30 merged two version-31 changes (dualb: RocmBuild evidence, rocm_tools and launcher facts; dualpy:
# vendor-keyed table entries), so a cache written by either branch alone is not read as the merged facts.
# 36: session 31 (prec47) tags Python modules that build at run time (RUNTIME_BUILD); 37: their PortFacts.sources
# are their JIT loads' sources (jit_load_sources), not setup.py's patterns.
# 33: session 30 (xmod) reads Python guards across modules (porter.portaware.pymodules; guards' CUDA-only functions).
FACTS_VERSION = b"portaware-facts-37"
# How a skip reason starts when a budgeted worker gave up on the file (porter.pipeline.overrun_reason).
BUDGET_REASONS = ("took longer than", "needed more than", "parser process died")


# Files that may define a macro for the whole build: build files, build scripts, configuration.
_DEFINING_LANGUAGES = frozenset({"cmake", "make", "python", "shell", "bazel", "toml", "yaml", "dockerfile", "text"})


def _retired_here(dirs, files, source, limit: int, held, rocm_names) -> frozenset[str]:
    """The retired ROCm platform macros (preprocessor.retired_rocm_macros: `__HIP_PLATFORM_HCC__`, gone since ROCm
    6.0) the repository's conditionals test and the project never defines itself: no `#define` of it in any C/C++
    file, no build file or script that names it (`-D__HIP_PLATFORM_HCC__=1`, `add_compile_definitions(...)`, a
    list of macros to define), not a configured ROCm macro. The ROCm build then leaves it undefined: the arm it
    guards is dead and its `#else` is what ROCm compiles."""
    retired = preprocessor.retired_rocm_macros()
    tested = {n for n in retired for ds, _total in dirs.values() for d in ds
              if d.kind not in ("define", "undef", "include") and n in d.text} - set(rocm_names)
    if not tested:
        return frozenset()
    for ds, _total in dirs.values():
        for d in ds:
            words = d.text.split("(", 1)[0].split() if d.kind == "define" else []
            if words:
                tested.discard(words[0])
    for _path, c in sorted(files.items()):
        if not tested:
            break
        if c.language not in _DEFINING_LANGUAGES:
            continue
        data = _read(source, c, limit, held)
        if data is not None:
            tested = {n for n in tested if n.encode() not in data}
    return frozenset(tested)


def file_facts(path: str, language: str, data: bytes, sf=None, pre: preprocessor.Preprocessed | None = None) -> PortFacts:
    """What one file contributes, as plain values (cached by content): directives, alias declarations, runtime
    vendor checks, and for build files the sources they name. `sf` is the file's parse when the caller has it
    (porter.source.parse.SourceFile of `data`, parsed without repository macros or alike), else it is parsed here
    when a runtime check may be in it. `pre`: the file's directives when the caller has lexed them already
    (porter.source.preprocessor.preprocessed of the scan's parse)."""
    if language == "cuda":
        pre = pre if pre is not None else preprocessor.preprocess(data)
        return PortFacts(
            directives=tuple((d.line, d.end_line, d.kind, d.text) for d in pre.directives),
            # toolkit version tests whose #else is the HIP path (porter.source.preprocessor)
            toolkit=tuple(sorted(pre.toolkit_lines)),
            total=data.count(b"\n") + 1,
            # aliases, and in a header that names ROCm the CUDA-shaped names it defines (a polyfill function,
            # `auto cudaX = hipX`): on its ROCm side they map the name for every file, as a `#define` does
            aliases=tuple(sorted(set(_aliases(data) if any(w in data for w in _ALIAS_WORDS) else [])
                                 | set(_definitions(path, data)))),
            errors=_error_lines(data), hollow=hollow_arms(data, pre.directives),
            classes=class_spans(data), forward=forward_declarations(data), options=commented_defines(data),
            spans=tuple((sp.start, sp.end, sp.side, sp.line) for sp in cpp_spans(data, path, sf))
            if CPP_PREDICATE_HINT.search(data) else ())
    if language == "make":
        text = data.decode("utf-8", "replace")
        return PortFacts(regions=tuple(make_twin_regions(text)) + tuple(make_conditional_regions(text))
                         + tuple(make_toolchain_regions(text)),
                         inert=inert_runs("make", text), rocm_lines=rocm_lines("make", text),
                         components=tuple(automake_components(path, text))
                         if posix_path(path).name == AUTOMAKE_NAME else (),
                         tested=(MAKE_ROCM_CONFIGURATION,)
                         if _fragment(path) and make_rocm_configuration(text) else ())
    if language == "meson":
        text = data.decode("utf-8", "replace")
        return PortFacts(regions=tuple(meson_conditional_regions(text)), inert=inert_runs("meson", text))
    if language == "bazel":
        # a Bazel BUILD file: the targets the ROCm build leaves out beside its own hipcc rule
        # (porter.portaware.bazel), and its hipcc lines (RocmBuild); a .bzl macro file or WORKSPACE defines
        # rules and repositories (a `which("hipcc")` probe), no build of its own
        if path.endswith(".bzl") and PY_PREDICATE_HINT.search(data):
            # a Starlark macro or repository rule is Python syntax: its vendor branches (`if selected_backend ==
            # "cuda": ... else:` the ROCm configure flags) are read as a Python file's are
            if sf is None or sf.language != "python":
                from porter.source.parse import parse

                sf = parse(path, "python", data)
            return PortFacts(spans=tuple((sp.start, sp.end, sp.side, sp.line) for sp in python_spans(data, path, sf)))
        if not posix_path(path).name.startswith("BUILD"):
            return PortFacts()
        text = data.decode("utf-8", "replace")
        return PortFacts(regions=incompatible_regions(text), rocm_lines=rocm_lines("shell", text))
    if language == "shell":
        # a shell script only says whether it runs hipcc (a ROCm build script: RocmBuild, script twins), whether it
        # runs ROCm's tools (the AMD side of the project's runs) and whether it launches a container or cluster job
        # (by_rocm_build)
        text = data.decode("utf-8", "replace")
        return PortFacts(rocm_lines=rocm_lines("shell", text), rocm_tools=rocm_tool_lines(text),
                         launcher=launches(text))
    if language == "dockerfile" or (language == "yaml" and is_ci_file(path)):
        # a Dockerfile stage on a ROCm image that builds the project, a CI file with a ROCm job that builds it (RocmBuild)
        return PortFacts(rocm_lines=rocm_lines(DOCKER if language == "dockerfile" else CI,
                                               data.decode("utf-8", "replace")))
    if language == "toml" and posix_path(path).name == BUILD_TOML:
        # a kernel-builder package: the sources each backend's [kernel.*] tables compile (porter.portaware.kernel_builder)
        text = data.decode("utf-8", "replace")
        return PortFacts(refs=tuple((r.target, r.side, r.where, r.twin) for r in kernel_builder_references(path, text)),
                         twin_archs=tuple(sorted(twin_archs(path, text).items())))
    if language == "toml" and posix_path(path).name == "pyproject.toml":
        return PortFacts(regions=tuple((a, b, CUDA_ONLY_EXTRA, key) for a, b, key in cuda_extras(
            data.decode("utf-8", "replace"))))
    if language == "cmake":
        text = data.decode("utf-8", "replace")
        refs, regions = cmake_references(path, text)
        cmds = cmake_commands(text)
        regions = [*regions, *cmake_twin_variables(text, cmds), *cmake_twin_functions(cmds)]
        own_project = (CMAKE_PROJECT,) if _PROJECT_CALL().search(text) else ()
        units, names = cmake_units(cmds)
        spans = tuple(cuda_language_spans(text)) + tuple(cuda_property_spans(cmds)) + tuple(cuda_variable_spans(cmds))
        writes, reads = cmake_variable_facts(text, cmds, spans)
        return PortFacts(cmake_units=tuple(units), cmake_names=tuple(names), cmake_writes=tuple(writes),
                         cmake_reads=tuple(reads), refs=tuple((r.target, r.side, r.where, r.twin) for r in refs), regions=tuple(regions),
                         inert=inert_runs("cmake", text), rocm_lines=rocm_lines("cmake", text),
                         tested=tuple(cmake_tested(text)) + own_project,
                         language_spans=spans,
                         language_enables=tuple(cuda_language_enables(cmds, regions)),
                         modules=tuple(cmake_module_uses(cmds)), dependent=tuple(cuda_dependent_options(cmds)),
                         definitions=tuple(cmake_compile_definitions(cmds)),
                         nvidia_only=tuple(nvidia_only_switches(cmds, regions)),
                         cmake_blocks=cmake_option_blocks(data), toolkit_arms=tuple(toolkit_arms(cmds)),
                         cmake_packages=cmake_packages(data),
                         **dict(zip(("cmake_options", "cmake_free_names"), cmake_option_facts(data))))
    setup = language == "python" and posix_path(path).name == "setup.py"
    # a setup.py that builds torch extensions itself and never runs CMake or make (see side_builds)
    own = (TORCH_EXTENSION_ONLY,) if setup and _torch_extension_only(data.decode("utf-8", "replace")) else ()
    if language == "python" and not setup and _RUNTIME_BUILD().search(data):
        own = (RUNTIME_BUILD,)  # a module unbuilt_sources reads for its JIT loads (the rest it never reads)
    sources: tuple[str, ...] = ()
    if own == (RUNTIME_BUILD,):
        # the sources its torch JIT loads compile, read here from the scan's own bytes so unbuilt_sources reads no
        # module for them: () when it may build anything else (jit_load_sources answers None)
        sources = tuple(jit_load_sources(data.decode("utf-8", "replace")) or ())
    elif own:
        if sf is None:
            from porter.source.parse import parse

            sf = parse(path, "python", data)
        sources = setup_source_patterns(sf.root)
    if language == "python" and PY_PREDICATE_HINT.search(data):
        if sf is None:
            from porter.source.parse import parse

            sf = parse(path, "python", data)
        spans = python_spans(data, path, sf)
        own_spans = tuple((sp.start, sp.end, sp.side, sp.line) for sp in spans)
        return PortFacts(spans=own_spans,
                         refs=tuple((r.target, r.side, r.where, r.twin)
                                    for r in setup_references(path, data.decode("utf-8", "replace"), spans))
                         if setup else (), tested=own, sources=sources,
                         # a build script's inert lines, for the hollowness of its ROCm branches (RocmBuild)
                         inert=inert_runs("python", data.decode("utf-8", "replace"))
                         if _python_build_script(path, language) and own_spans else (),
                         # ROCm-side str.replace on kernel source (porter.portaware.rewrites)
                         rewrites=tuple(rocm_rewrites(sf.root, own_spans)) if b".replace(" in data else ())
    return PortFacts(tested=own, sources=sources)


def may_rewrite(data: bytes) -> bool:
    """Whether a Python file may hold a ROCm-side `str.replace` on kernel source (porter.portaware.rewrites): a
    cheap pre-test, so a module without findings is read for it only when it might."""
    return b".replace(" in data and PY_PREDICATE_HINT.search(data) is not None


def _definitions(path: str, data: bytes) -> list[tuple[int, str]]:
    """mapped_definitions of a header that names ROCm (the others cannot hold a ROCm side of their own)."""
    if posix_path(path).suffix.lower() not in HEADER_SUFFIXES or not ROCM_WORD.search(data):
        return []
    return mapped_definitions(data.decode("utf-8", "replace"))


_ALIAS_WORDS = (b"using", b"typedef", b"namespace")
_ERROR_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*error\b", re.M)
# What every match of _ERROR_DIRECTIVE holds, opening with a literal byte: `re` skips ahead to each `#` at C speed,
# where the MULTILINE `^` had it try the pattern at every byte of every file (~1% of a cold scan).
_ERROR_WORD = re.compile(rb"#[ \t]*error\b")


def _error_lines(data: bytes) -> tuple[int, ...]:
    """Lines of the file's `#error` directives (one in a comment is none: read again with comments blanked when the
    raw text has any)."""
    if _ERROR_WORD.search(data) is None or _ERROR_DIRECTIVE.search(data) is None:
        return ()
    code = preprocessor.blank_comments(data)
    return tuple(code.count(b"\n", 0, m.start()) + 1 for m in _ERROR_DIRECTIVE.finditer(code))


def _aliases(data: bytes) -> list[tuple[int, str]]:
    """(line, name) of each alias declared on a line holding `using`, `typedef` or `namespace`: only those lines are found
    (bytes.find for each word: a regex for either one stopped at every `t` and `u` of the file) and decoded, not
    the whole file split into lines."""
    hits = []
    for word in _ALIAS_WORDS:  # neither word can overlap itself or the other, so these are a regex's matches
        at = data.find(word)
        while at >= 0:
            hits.append(at)
            at = data.find(word, at + len(word))
    out: list[tuple[int, str]] = []
    line, counted, line_end = 1, 0, -1
    for at in sorted(hits):
        if at < line_end:
            continue  # another hit on a line already read
        start = data.rfind(b"\n", 0, at) + 1
        line_end = data.find(b"\n", at)
        if line_end < 0:
            line_end = len(data)
        line += data.count(b"\n", counted, start)
        counted = start
        out.extend((line, n) for n in aliases(data[start:line_end].decode("utf-8", "replace")))
    return out


def _facts(source, c, limit: int, cache, digest: bytes, held=None) -> PortFacts | None:
    """A file's facts, from the cache by git blob id (no read at all) or content hash when one is in use; `digest`
    names porter's own code, so an entry never outlives what computed it."""
    import hashlib

    key = None
    if cache is not None and c.blob is not None:
        key = "pa-" + hashlib.sha256(b"\0".join((FACTS_VERSION, digest, c.path.encode("utf-8", "surrogateescape"),
                                                  c.language.encode(), c.blob.encode()))).hexdigest()
        hit = cache.get(key)
        if isinstance(hit, PortFacts):
            return hit
    data = _read(source, c, limit, held)
    if data is None:
        return None
    if cache is not None and key is None:  # a work tree: no blob id, so the content names the entry
        key = "pa-" + hashlib.sha256(b"\0".join((FACTS_VERSION, digest, c.path.encode("utf-8", "surrogateescape"),
                                                  c.language.encode(), hashlib.sha256(data).digest()))).hexdigest()
        hit = cache.get(key)
        if isinstance(hit, PortFacts):
            return hit
    facts = file_facts(c.path, c.language, data)
    if cache is not None:
        cache.put(key, facts)
    return facts


# Build files that may switch a compile option on (`-DUSE_X`, `add_compile_definitions(USE_X)`, setup.py's
# define_macros): an option one of them names is not off by default.
_OPTION_SETTERS = frozenset({"cmake", "make", "bazel", "shell", "toml"})


def _optional_arms(pm: PortMap, source, files, facts: dict[str, PortFacts],
                   dirs: dict[str, tuple[list[preprocessor.Directive], int]], limit: int, held) -> None:
    """pm.optional: the arms of each C/C++ file that only an off-by-default compile option enables, and the lines
    of each CMake or make file that only such an option or make switch reads (porter.portaware.options)."""
    commented: dict[str, str] = {}
    for path, f in sorted(facts.items()):
        for line, name in f.options:
            commented.setdefault(name, f"{path}:{line}")
    # CMake options that default OFF and pass their macro only while on (porter.portaware.options), from each CMake
    # file's cached facts (no read): the C/C++ arms only need the names a C/C++ test names, the CMake blocks all.
    tested = {n for ds, _total in dirs.values() for d in ds if d.kind in ("if", "ifdef", "elif", "elifdef")
              for n in re.findall(r"[A-Za-z_]\w*", d.text)}
    cmake_files = [path for path, f in sorted(facts.items()) if files[path].language == "cmake"]
    cmake_all = combine_off_options((path, facts[path].cmake_options, facts[path].cmake_free_names)
                                    for path in cmake_files)
    make_files = [path for path, c in sorted(files.items()) if c.language == "make"]
    if not commented and not cmake_all and not make_files:
        return
    for ds, _total in dirs.values():
        for _line, name, _body in preprocessor.defines(ds):
            commented.pop(name, None)
            cmake_all.pop(name, None)
    make_texts: dict[str, str] = {}
    setters: list[str] = []  # the text of each build file other than a make file that may set a macro
    for path, c in sorted(files.items()):
        if c.language in _OPTION_SETTERS or posix_path(path).name == "setup.py":
            data = _read(source, c, limit, held)
            if data is not None:
                text = data.decode("utf-8", "replace")
                for name in build_names(text, list(commented)):
                    commented.pop(name)
                if c.language != "cmake":  # a Makefile, script or setup.py may set the option (`-DNAME=ON`)
                    for name in [n for n in cmake_all if re.search(rf"(?<![\w])(?:-D)?{re.escape(n)}(?![\w])", text)]:
                        cmake_all.pop(name)
                if c.language == "make":
                    make_texts[path] = text
                else:
                    setters.append(text)
    for name, ev in cmake_all.items():
        if name in tested:
            commented.setdefault(name, f"{ev} (a CMake option, OFF by default)")
    # A make switch left off (`CUDNN?=0` ... `ifeq ($(CUDNN),1)`): its arms' lines, and the macros only those arms
    # pass, unless a directive or another build file may define them.
    make_lines, make_macros = make_off_switches(make_texts) if make_texts else ({}, {})
    defined = {name for ds, _total in dirs.values() for _line, name, _body in preprocessor.defines(ds)}
    for name, ev in make_macros.items():
        if name in tested and name not in defined and not any(build_names(t, [name]) for t in setters):
            commented.setdefault(name, ev)
    for path, spans in make_lines.items():
        pm.optional.setdefault(path, []).extend(spans)
    # A package looked for only under an off option is never found by the default build: the blocks of its
    # `if(<name>_FOUND)` are off too (OPM's `if(AMGX_FOUND)` test links after `if(USE_AMGX) find_package(AMGX)`),
    # unless the build sets or uses that variable elsewhere.
    packages = off_packages(((facts[path].cmake_packages, facts[path].cmake_blocks) for path in cmake_files),
                            cmake_all) if cmake_all else {}
    free = {n for path in cmake_files for n in facts[path].cmake_free_names}
    off_blocks = {n: f"{ev} (a CMake option, OFF by default)" for n, ev in cmake_all.items()}
    for package, ev in packages.items():
        pm.off_packages[_letters(package)] = (f"{ev} (a CMake option, OFF by default; find_package({package}) runs "
                                              f"only under it)")
        for n in found_names(package):
            if n not in free and n not in off_blocks:
                off_blocks[n] = pm.off_packages[_letters(package)]
    for path in cmake_files:
        spans = [(a, b, off_blocks[n]) for n, a, b in facts[path].cmake_blocks if n in off_blocks]
        if spans:
            pm.optional.setdefault(path, []).extend(spans)
    for path, (ds, _total) in dirs.items():
        if any(n in d.text for d in ds if d.kind in ("if", "ifdef", "elif", "elifdef") for n in commented):
            arms = off_arms(ds, commented)
            if arms:
                pm.optional.setdefault(path, []).extend(arms)


def _letters(name: str) -> str:
    """A library's or package's name by its letters and digits, lower case: `AMGX` and the id `amgx` match."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


def _cmake_path(path: str) -> bool:
    name = posix_path(path).name
    return name == "CMakeLists.txt" or name.endswith(".cmake")


def optional_libraries(findings: tuple[Finding, ...], off: dict[str, str]) -> tuple[Finding, ...]:
    """A library finding (a header, a link, a call) of a library whose CMake package the build looks for only under
    an option left OFF (PortMap.off_packages), when none of that library's findings in the CMake files is open: the
    default build never finds the library, so a source that includes its header cannot be part of that build - the
    option's NVIDIA-side extra (cuda-only, by the option), as the option's own arms are (OPM's AmgxInterface.hpp
    `#include <amgx_c.h>`, AmgX found only under `if(USE_AMGX)`, USE_AMGX OFF)."""
    def library(f: Finding) -> str:
        return _letters(str(dict(f.data).get("library_id", ""))) if f.category == "library" else ""

    linked: dict[str, bool] = {}
    for f in findings:
        lib = library(f)
        if lib in off and _cmake_path(f.path):
            linked[lib] = linked.get(lib, False) or f.status is Status.OPEN
    return tuple(dataclasses.replace(f, status=Status.CUDA_ONLY, handled_by=off[lib])
                 if f.status is Status.OPEN and (lib := library(f)) in off and linked.get(lib) is False else f
                 for f in findings)


def _build_script(path: str, language: str) -> bool:
    """Whether a file is a build script a ROCm twin beside it may replace: a Makefile, a CMake file, or a Python
    package's setup.py."""
    return language in ("make", "cmake") or (language == "python" and posix_path(path).name == "setup.py")


def build_map(source, settings, result: ScanResult, cache=None, digest: bytes = b"") -> PortMap:
    """The PortMap of a repository: its C/C++/CUDA and build files (and Python files with findings) read once
    more, bounded as the scan was, or their facts taken from the cache."""
    # The scan's own listing of this very source with the same include/exclude, else the source listed again.
    seen = result.stats.discovery  # (source, include, exclude, Discovery)
    same = seen is not None and seen[0] is source and seen[1:3] == (tuple(settings.include), tuple(settings.exclude))
    found = seen[3] if same else source.discover(settings.include, settings.exclude)
    held = result.stats.held if same else None  # the bytes the scan read (porter.pipeline.Held)
    files = {c.path: c for c in found.files}
    limit = settings.max_file_bytes
    pm = PortMap(cuda_only=tuple(getattr(settings, "cuda_only", ()) or ()),
                 cuda_only_from=tuple(getattr(settings, "cuda_only_from", ()) or ()))
    with_findings = {f.path for f in result.findings} | {k.path for k in result.kernels}

    # Name and place first: they decide what counts as ROCm-side in everything below.
    for path in files:
        ev = rocm_path_evidence(path)
        if ev:
            pm.file_side[path] = ("name", ROCM, ev)
    # A Makefile or CMake module with a ROCm twin beside it (makefile / makefile.hip) is the CUDA build's.
    # Each build file looks for its twin among its own folder's files only (listing every file per build file was
    # the top entry of a warm FasterTransformer scan's profile: 103 build files x 1,222 files).
    folders: dict[str, list[str]] = {}
    for path in files:
        folders.setdefault(posixpath.dirname(path), []).append(path)
    # A Python package's build script pairs the same way (mHC.cu's setup.py for nvcc beside setup_hip.py for hipcc:
    # `pip install` runs one of them, and the ROCm one carries the hipcc flags and hipBLAS links).
    for path, c in files.items():
        if _build_script(path, c.language) and path not in pm.file_side:
            twin = build_twin(path, folders[posixpath.dirname(path)])
            if twin is not None:
                pm.file_side[path] = ("twin", CUDA, twin)
    # A build file's twin whose name gives porter no language is not listed (uccl's collective/rdma/Makefile beside
    # Makefile.rocm, mHC.cu's CMakeLists.txt beside CMakeLists_hip.txt): asked of the source by name, every
    # candidate at once.
    # (history's per-commit tree knows only the files porter scans and has no such lookup: there none is found)
    unpaired = [p for p, c in sorted(files.items()) if c.language in ("make", "cmake") and p not in pm.file_side]
    if unpaired and hasattr(source, "included"):
        wanted = {n: p for p in unpaired for n in build_twin_names(p) if n not in files}
        present = {c.path for c in source.included(list(wanted))} if wanted else set()
        for path in unpaired:
            twin = next((n for n in build_twin_names(path) if n in present), None)
            if twin is not None:
                pm.file_side[path] = ("twin", CUDA, twin)

    facts: dict[str, PortFacts] = {}
    dirs: dict[str, tuple[list[preprocessor.Directive], int]] = {}
    # The scan took most files' facts from its own read and parse (FileResult.port_facts); the rest are read here.
    scanned = {r.path: r for r in result.files if r.port_facts is not None}
    # A file the scan gave up on for time or memory (porter.budget) would take as long again here: not read.
    over = {s.path for s in result.skipped if s.reason.startswith(BUDGET_REASONS)}
    for path, c in sorted(files.items()):
        if path in over:
            continue
        r = scanned.get(path)
        if c.language not in ("cuda", "cmake", "make", "meson", "shell", "bazel", "dockerfile") \
                and not (c.language == "yaml" and is_ci_file(path)) and not (c.language == "python" and (
                path in with_findings or posix_path(path).name == "setup.py"
                or (r is not None and r.port_facts is not None
                    and (r.port_facts.rewrites or RUNTIME_BUILD in r.port_facts.tested)))) \
                and not (c.language == "toml" and path in with_findings and posix_path(path).name == "pyproject.toml") \
                and not (c.language == "toml" and posix_path(path).name == BUILD_TOML):
            continue
        f = r.port_facts if r is not None and r.language == c.language else _facts(source, c, limit, cache, digest, held)
        if f is None:
            continue
        facts[path] = f
        if c.language == "cuda":
            dirs[path] = ([preprocessor.Directive(*d) for d in f.directives], f.total)
        if f.spans:
            pm.spans[path] = [Span(a, b, side, line) for a, b, side, line in f.spans]
        if f.regions:
            pm.cmake_regions[path] = list(f.regions) + (_make_test_lines(f.regions) if c.language == "make" else [])
        if f.language_spans:
            pm.language_spans[path] = list(f.language_spans)
    # A CMake variable read only inside CUDA-language spans (MRay's MRAY_CUDA_OPTIONS, read only in
    # `$<$<COMPILE_LANGUAGE:CUDA>:${MRAY_CUDA_OPTIONS}>`): its writes carry options for CUDA-language compiles only,
    # as if written in that expression (a read anywhere else, in any CMake file, and they may reach hipcc)
    cuda_variables = cuda_only_variables(r for f in facts.values() for r in f.cmake_reads)
    for path, f in sorted(facts.items()):
        written = [(a, 1, b + 1, 1) for name, a, b in f.cmake_writes if name in cuda_variables]
        if written:
            pm.language_spans[path] = sorted([*pm.language_spans.get(path, ()), *written])

    # A make configuration fragment beside the project's ROCm one (ludwig's config/unix-nvcc-default.mk beside
    # config/unix-hipcc.mk): an alternative the ROCm build does not use, so its nvcc settings are the CUDA build's.
    rocm_configurations = [p for p, f in facts.items() if MAKE_ROCM_CONFIGURATION in f.tested]
    if rocm_configurations:
        candidates = [p for p in with_findings if p not in pm.file_side and p in files
                      and files[p].language == "make" and p not in rocm_configurations]
        for path, twin in configuration_twins(candidates, rocm_configurations).items():
            pm.file_side[path] = ("twin", CUDA, twin)

    # A shell build script with findings whose name twin is a ROCm build script (`build_cuda.sh` running nvcc beside
    # `build_hip.sh` running hipcc: the user runs one of them): its NVIDIA-build lines are that twin's to replace
    # (attach_status); a twin that runs no hipcc (`run_hip.sh`, a `build_hip.sh` that only says HIP is not
    # supported) stands in for no build, so the script stays open. Only the build lines: a library the script links
    # (NVML) may still need its callers ported.
    for path in sorted(with_findings):
        c = files.get(path)
        if c is None or c.language != "shell" or path in pm.file_side:
            continue
        twin = build_twin(path, [p for p in folders[posixpath.dirname(path)] if files[p].language == "shell"])
        found = facts.get(twin).rocm_lines if twin is not None and twin in facts else ()
        if twin is not None and found:
            pm.script_builds[path] = f"{twin}:{found[0]}"

    # A directory named for AMD whose code is OpenCL (xmr-stak's backend/amd/ includes <OpenCL/cl.h>): the AMD GPUs
    # run it, but no HIP build compiles it, so its name is no evidence of a ROCm port (scope.other_model_dirs). Its
    # files lose their ROCm side here, and component_twins pairs no CUDA directory with it.
    by_dir: dict[str, list[str]] = {}
    for path, fs in pm.file_side.items():
        if fs[0] == "name" and fs[1] == ROCM and fs[2].endswith("/"):
            by_dir.setdefault(fs[2][:-1], []).append(path)
    other = other_model_dirs(by_dir, {p: [(d.line, d.text) for d in ds if d.kind == "include"]
                                      for p, (ds, _t) in dirs.items()}) if by_dir else {}
    for d, ev in other.items():
        for path in by_dir[d]:
            del pm.file_side[path]
        pm.notes.append(f"{d}/ is named for AMD but is OpenCL code ({ev}), not a HIP/ROCm port: its CUDA "
                        "counterpart's findings stay open")

    # A CMake file testing a CUDA switch whose ROCm twin only another CMake file tests (deepmd-kit: op/pt/ tests
    # USE_CUDA_TOOLKIT, source/ USE_ROCM_TOOLKIT) is read again knowing the pair: its CUDA arms are guards too.
    cm_tested = {p: f.tested for p, f in facts.items() if f.tested}
    everywhere = {n for names in cm_tested.values() for n in names}
    # An option cmake_dependent_option makes require a CUDA switch whose ROCm twin the repository tests (GauXC's
    # GAUXC_ENABLE_NCCL on GAUXC_ENABLE_CUDA, beside GAUXC_ENABLE_HIP) is off in every ROCm build: a CUDA-build
    # switch like its own, in every CMake file that tests it.
    implied = sorted({o for f in facts.values() for o, sw in f.dependent if cuda_twins_tested((sw,), everywhere)})
    # A switch named for an NVIDIA-only library that the CMake tests only on the CUDA side (GROMACS's GMX_NVSHMEM,
    # inside `if (GMX_GPU_CUDA)` and as `GMX_NVSHMEM AND GMX_GPU_CUDA`, beside GMX_GPU_HIP arms) is off in the ROCm
    # build: a CUDA-build switch too, and so is the macro of its name.
    tested_on = {(n, s_) for f in facts.values() for n, s_ in f.nvidia_only}
    nvidia_only = {n for n, s_ in tested_on if s_ == CUDA} - {n for n, s_ in tested_on if s_ == ROCM}
    implied = sorted(set(implied) | nvidia_only)
    for path in sorted(set(cm_tested) | {p for p in facts if files[p].language == "cmake"}):
        names = cm_tested.get(path, ())
        extra = cuda_twins_tested(names, everywhere) - cuda_twins_tested(names, names)
        if not extra and not implied:
            continue
        data = _read(source, files[path], limit, held)
        if data is None:
            continue
        text = data.decode("utf-8", "replace")
        mine = build_names(text, implied) if implied else set()
        if not extra and not mine:
            continue
        refs, regions = cmake_references(path, text, extra, mine)
        cmds = cmake_commands(text)
        regions = [*regions, *cmake_twin_variables(text, cmds), *cmake_twin_functions(cmds)]  # as file_facts
        # the CUDA language enabled in such an arm is the CUDA build's too (comm_scope's enable_language(CUDA) in
        # `if(SCOPE_USE_CUDA)`, whose SCOPE_USE_HIP twin only src/*/CMakeLists.txt test)
        facts[path] = dataclasses.replace(facts[path], refs=tuple((r.target, r.side, r.where, r.twin) for r in refs),
                                          regions=tuple(regions),
                                          language_enables=tuple(cuda_language_enables(cmds, regions)))
        pm.cmake_regions[path] = list(regions)

    # The scan's build names (porter.pipeline.repository_facts: every C/C++ file's directives and the configured
    # rocm_macros), so the kernel stage and this one read each `#if` alike; a result from elsewhere derives them.
    names = result.stats.build_names if same else None
    rocm_names, cuda_names = names if names is not None else preprocessor.derived_names(
        {p: d for p, d in dirs.items() if p not in pm.file_side}, tuple(getattr(settings, "rocm_macros", ()) or ()))
    cuda_names = cuda_names | _cmake_cuda_definitions(pm, facts, dirs, rocm_names, nvidia_only)
    retired = _retired_here(dirs, files, source, limit, held, rocm_names)
    undone = preprocessor.undone_names(dirs)
    for path, (ds, total) in dirs.items():
        toolkit = facts[path].toolkit
        if not toolkit and not preprocessor.builds_differ(preprocessor.condition_names(ds), rocm_names, cuda_names):
            continue  # no line only one build compiles (see builds_differ)
        regs = preprocessor.evaluate(ds, total, rocm_names, cuda_names, toolkit, retired, undone)
        if any(r.guard and r.cuda is False and r.rocm is not False for r in regs):
            regs = _without_hollow_forks(regs, ds, facts[path].hollow, rocm_names)
        if any(r.side in (CUDA, ROCM) or (r.side == "none" and r.guard) for r in regs):
            pm.regions[path] = regs
            pm.directive_ends[path] = {d.line: d.end_line for d in ds if d.kind not in ("define", "undef", "include")}
            # `#error` where the ROCm build alone goes (ccglib's `#if defined(__HIP_PLATFORM_AMD__) && (NBIT_IN ==
            # 1)` / `#error "1-bit GEMM is only available for NVIDIA GPUs"`): that build stops there ([cpp.error]:
            # the program is ill-formed), so no compat name maps anything in this file for it
            refused = next((n for n in facts[path].errors if preprocessor.side_at(regs, n)[0] == ROCM), None)
            if refused is not None:
                pm.refused[path] = f"{path}:{refused}"

    _optional_arms(pm, source, files, facts, dirs, limit, held)

    # Build files: which sources each build compiles.
    refs = [Reference(*r) for f in facts.values() for r in f.refs]
    sides = build_sides(refs, files)
    rocm_built = [p for p, (s, _ev, _t) in sides.items() if s == ROCM] + [
        p for p, fs in pm.file_side.items() if fs[1] == ROCM]
    for path, (s, ev, twin) in sorted(sides.items()):
        if path in pm.file_side:
            continue
        if s == ROCM:
            pm.file_side[path] = ("build", ROCM, ev)
        elif twin:
            pm.file_side[path] = ("twin", CUDA, twin)
        else:
            # a CUDA arm's source whose same-stem file in the ROCm-named sibling directory the ROCm build compiles
            # (kernels/cuda/x.cu beside kernels/rocm/x.hip, each under its own arm): scope.sibling_twin
            pair = sibling_twin(path, rocm_built)
            pm.file_side[path] = ("twin", CUDA, pair) if pair else ("build", CUDA, ev)
    for path in sorted(facts):
        for cuda_src, archs in facts[path].twin_archs:
            if pm.file_side.get(cuda_src, ("",))[0] == "twin":
                pm.twin_archs[cuda_src] = archs

    # A side build beside a torch-extension setup.py that never runs it (DeepEP's "this CMake is only for debugging",
    # punica's nvbench CMake project): the package is what setup.py builds, so the side build is the team's
    # NVIDIA-only extra (cuda-only), not the port.
    # (a build file that names ROCm itself is a dual build, not a side one: its arms decide)
    for path, why in sorted(side_builds(files, facts).items()):
        if not _names_rocm_build(facts.get(path)):
            pm.file_side.setdefault(path, ("build", CUDA, why))

    nvcc_scripts = {f.path for f in result.findings if f.rule in NVCC_RULES}
    for path, why in sorted(test_builds(files, facts, nvcc_scripts).items()):
        if not _names_rocm_build(facts.get(path)):
            pm.file_side.setdefault(path, ("build", CUDA, why))

    # A CUDA source with a ROCm twin beside it (`mont_t.cuh` / `mont_t.hip`): the HIP build compiles the twin.
    # The twin is the ROCm build's file even when its name carries the vendor only inside a word (PETSc's
    # `seqhipsparse/hipsparsematimpl.h` beside `seqcusparse/cusparsematimpl.h`): its hipSPARSE code is the port.
    for path, twin in sorted(source_twins(files).items()):
        if path not in pm.file_side:
            pm.file_side[path] = ("twin", CUDA, twin)
            pm.file_side.setdefault(twin, ("name", ROCM, path))
    # ... and a plain header or source whose ROCm-named neighbour defines the same things (scope.same_definitions)
    for path, twin in sorted(source_twins(files, plain=True).items()):
        if path in pm.file_side or path not in with_findings:
            continue
        own, twin_data = _read(source, files[path], limit, held), _read(source, files[twin], limit, held)
        if own is not None and twin_data is not None and same_definitions(
                path, own.decode("utf-8", "replace"), twin, twin_data.decode("utf-8", "replace")):
            pm.file_side[path] = ("twin", CUDA, twin)
            pm.file_side.setdefault(twin, ("name", ROCM, path))

    # ... and a file named for a CUDA library beside one named for its ROCm counterpart that uses that library
    # (blaspp's config/cublas.cc beside config/rocblas.cc, each the configure test of its vendor's BLAS)
    for path, cands in sorted(library_twin_candidates(files).items()):
        if path in pm.file_side or path not in with_findings:
            continue
        for twin, lib in cands:
            data = _read(source, files[twin], limit, held)
            # in its code: a comment naming the library ("the rocFFT check is still to be written") ports nothing
            if data is not None and re.search(rb"(?i)(?<![A-Za-z0-9])" + re.escape(lib.encode()),
                                              preprocessor.blank_comments(data)):
                pm.file_side[path] = ("twin", CUDA, twin)
                pm.file_side.setdefault(twin, ("name", ROCM, path))
                break

    # A component directory only the CUDA build compiles whose sibling the ROCm build compiles instead (ucc's
    # tl/cuda under TL_CUDA_ENABLED beside tl/rccl under TL_RCCL_ENABLED, tl_templates/cuda beside
    # tl_templates/hip): its files are handled by that counterpart. One without a counterpart stays open: what it
    # does is a missing feature of the ROCm build, real work.
    twins = component_twins(files, [c for f in facts.values() for c in f.components], frozenset(other))
    # ... or the same backend written for another programming model that the project builds for AMD (lc0's
    # backends/cuda beside backends/sycl, whose sources include hipBLAS): scope.backend_twins
    named = {p: frozenset(posixpath.basename(t) for _n, t in preprocessor.quoted_includes(ds))
             for p, (ds, _t) in dirs.items()}
    for d, twin in backend_twins(files, _rocm_code(pm, dirs), named).items():
        twins.setdefault(d, twin)
    if twins:
        for path in sorted(files):
            if path in pm.file_side:
                continue
            d = posixpath.dirname(path)
            while d and d not in twins:
                d = posixpath.dirname(d)
            if d:
                pm.file_side[path] = (COMPONENT, CUDA, twins[d][0])

    # A source or header whose functions, kernels and classes a ROCm-side file of the repository defines again,
    # whatever the two files are called (twins.definition_twin): the per-backend implementation the build picks.
    # Only where no other rule decides (PortMap.decide): a name, folder or component pairing keeps its evidence.
    _definition_twins(pm, source, files, dirs, limit, held, with_findings)
    _unported(pm, source, files, result, limit, held, with_findings)

    # A CMake module loaded only from CUDA arms (gloo's Findnccl.cmake, read by find_package(nccl) under
    # `if(USE_CUDA AND USE_NCCL)` beside `if(USE_ROCM AND USE_RCCL)`): it runs as part of those arms, so it is
    # handled by their guard. Loaded from anywhere else (or never), its own arms decide.
    modules: dict[str, list[tuple[str, int]]] = {}
    for p, f in facts.items():
        for n, name in f.modules:
            modules.setdefault(name.lower(), []).append((p, n))
    if modules:
        cmake_files = {p for p, c in files.items() if c.language == "cmake"}
        for _round in range(2):  # a module loaded from a module loaded only from CUDA arms
            for path in sorted(cmake_files):
                if path in pm.file_side:
                    continue
                sites = modules.get(posix_path(path).name.lower())
                if not sites:
                    continue
                guards = []
                for p, n in sites:
                    fs = pm.file_side.get(p)
                    if fs is not None and fs[1] == CUDA and fs[0] in ("include", "twin"):
                        guards.append(fs[2])
                        continue
                    arm = next((g for a, b, s_, g in pm.cmake_regions.get(p, ()) if a <= n <= b and g and s_ == CUDA), 0)
                    guards.append(f"{p}:{arm}" if arm else None)
                if all(guards):
                    pm.file_side[path] = ("include", CUDA, guards[0])

    # CMake's CUDA language enabled only in CUDA arms of a repository whose CMake builds for ROCm (arbor's
    # ARB_GPU=hip, hoomd's HOOMD_GPU_PLATFORM=HIP compile HIP as CXX or HIP): a `$<COMPILE_LANGUAGE:CUDA>`
    # expression or a CUDA_SEPARABLE_COMPILATION applies to the CUDA build alone. An arm is also a whole CMake file
    # the CUDA build alone reads (DCA's cmake/dca_cuda.cmake, whose twin cmake/dca_hip.cmake enables HIP; a module
    # loaded only from CUDA arms).
    def cuda_side(p: str, g: int, s_: str) -> str | None:
        if s_ == CUDA and g:
            return f"{p}:{g}"
        fs = pm.file_side.get(p)
        return fs[2] if fs is not None and fs[1] == CUDA else None

    enables = sorted((p, n, cuda_side(p, g, s_)) for p, f in facts.items() for n, s_, g in f.language_enables)
    cmake_rocm = any(r[2] == ROCM for p, f in facts.items() if files[p].language == "cmake" for r in f.regions) or any(
        fs[1] == ROCM for p, fs in pm.file_side.items() if files[p].language == "cmake")
    if enables and cmake_rocm and all(ev for _p, _n, ev in enables):
        pm.cuda_language = enables[0][2]

    # Includes: a header only ROCm-side lines include is ROCm-only; one only CUDA-side lines include is the CUDA arm.
    # Down the include chain too (FastVideo's api.cu, built only in the CUDA arm, includes launch.h, which includes
    # kernel_ws.h, which includes utils.h): a header only CUDA-side headers include is the CUDA build's as well, so
    # the reading is repeated while it finds more, a few levels deep.
    by_name: dict[str, list[str]] = {}
    for p in files:
        by_name.setdefault(posix_path(p).name, []).append(p)
    # Each file's includes, resolved once: (including path, line, the arm's side there, the files it names).
    edges = [(path, line, preprocessor.side_at(regs, line)[0] if regs else "both",
              _resolve_include(path, target, files, by_name))
             for path, (ds, _total) in sorted(dirs.items())
             for regs in [pm.regions.get(path)]
             for line, target in preprocessor.quoted_includes(ds)]
    for _level in range(4):
        include_sides: dict[str, set[str]] = {}
        include_where: dict[str, str] = {}
        # per header, the ROCm counterparts of the CUDA components including it (None: an includer that is no
        # component file)
        component_of: dict[str, set[str | None]] = {}
        for path, line, arm, hits in edges:
            fs = pm.file_side.get(path)
            # a file only the CUDA build compiles (a CMake arm's source, with or without a ROCm twin, a file of a
            # CUDA component the ROCm build replaces with its sibling, or a header only such files include)
            # includes for it; so does one the ROCm build refuses (an `#error` only it reaches: pm.refused)
            whole = ROCM if fs and fs[1] == ROCM else CUDA if fs and fs[0] in ("build", "twin", "include", COMPONENT) \
                and fs[1] == CUDA or path in pm.refused else None
            s = whole or arm
            for hit in hits:
                include_sides.setdefault(hit, set()).add(s)
                if s in (CUDA, ROCM):
                    include_where.setdefault(hit + "\0" + s, f"{path}:{line}")
                if s == CUDA:
                    component_of.setdefault(hit, set()).add(fs[2] if fs and fs[0] == COMPONENT and whole else None)
        found = 0
        for hit, sides in sorted(include_sides.items()):
            if hit in pm.file_side or len(sides) != 1:
                continue
            s = next(iter(sides))
            comps = component_of.get(hit, {None})
            if s == CUDA and None not in comps:
                # included only from files of CUDA components (nbnxm/cuda/*.cuh beside nbnxm/hip/): part of those
                # components, handled by their counterpart, its kernels' verdicts kept as theirs are
                pm.file_side[hit] = (COMPONENT, CUDA, sorted(c for c in comps if c)[0])
                found += 1
            elif s in (CUDA, ROCM):
                pm.file_side[hit] = ("include", s, include_where[hit + "\0" + s])
                found += 1
        if not found:
            break

    pm.counterparts = counterpart_reach(pm, files, edges)

    # A file no build compiles, in a package whose only build is its torch-extension setup.py (unbuilt_sources):
    # cuda-only for findings, and its kernels' verdicts ok (UNBUILT: no target compiles them).
    present = (lambda paths: bool(source.included(paths))) if hasattr(source, "included") else None
    for path, why in sorted(unbuilt_sources(files, facts, dirs, lambda c: _read(source, c, limit, held),
                                            present).items()):
        pm.file_side.setdefault(path, (UNBUILT, CUDA, why))

    # Compat layers: names defined by ROCm-side code.
    for path, (ds, _total) in sorted(dirs.items()):
        fs = pm.file_side.get(path)
        rocm_file = fs is not None and fs[1] == ROCM
        regs = pm.regions.get(path)
        if not rocm_file and not regs:
            continue
        for line, name, _body in preprocessor.defines(ds):
            s = ROCM if rocm_file else preprocessor.side_at(regs, line)[0]
            if s == ROCM:
                pm.compat.add(path, line, name)
        for i, name in facts[path].aliases:
            if (ROCM if rocm_file else preprocessor.side_at(regs, i)[0]) == ROCM:
                pm.compat.add(path, i, name)
    # A header's mappings reach only the translation units that include it (compat.include_reach), read from every
    # `#include` - angle-bracket ones too, resolved to a repository file only when one has that path
    # (`<gt/common/cuda_runtime.hpp>`): a file no unit of the layer holds names CUDA to the ROCm build.
    compat_headers = pm.compat.header_paths()
    if compat_headers:
        pm.compat.scope(include_reach(compat_headers, (
            (path, hit) for path, (ds, _total) in sorted(dirs.items())
            for _line, target in preprocessor.quoted_includes(ds, angle=True)
            for hit in _resolve_include(path, target, files, by_name))))

    # Class twins and forward-declared types (porter.portaware.twins), across the repository's C/C++ files.
    pm.twins = class_twins((p, name, a, b) for p, f in sorted(facts.items()) for name, a, b in f.classes)
    for p, f in sorted(facts.items()):
        for line, name in f.forward:
            pm.forward.setdefault(name, f"{p}:{line}")

    # An `#if` with no other arm, on a finding's line, whose arm only defines names nothing else in the repository
    # uses (spla's `#if (CUDART_VERSION >= 10000)` around two flag constants): the ROCm build skipping it loses
    # nothing (scope.unused_arm, used_names). At most _UNUSED_FILES C/C++ files are searched, else none is decided.
    finding_lines: dict[str, set[int]] = {}
    for f in result.findings:
        finding_lines.setdefault(f.path, set()).add(f.line)
    candidates: list[tuple[str, int, int, int, list[str]]] = []
    for path, (ds, _total) in sorted(dirs.items()):
        wanted = finding_lines.get(path)
        if not wanted:
            continue
        text_lines: list[str] | None = None
        for i, d in enumerate(ds):
            if d.line not in wanted or d.kind not in ("if", "ifdef", "ifndef"):
                continue
            depth, end = 0, None
            for e in ds[i + 1:]:
                if e.kind in ("if", "ifdef", "ifndef"):
                    depth += 1
                elif e.kind == "endif":
                    if depth == 0:
                        end = e
                        break
                    depth -= 1
                elif depth == 0 and e.kind in ("else", "elif", "elifdef", "elifndef"):
                    break
                elif depth == 0 and e.kind != "define":
                    break  # an include or another directive in the arm: more than definitions
            if end is None or any(d.end_line < e.line < end.line and e.kind != "define" for e in ds):
                continue
            if text_lines is None:
                data = _read(source, files[path], limit, held)
                text_lines = data.decode("utf-8", "replace").split("\n") if data is not None else []
            names = unused_arm(text_lines, d.end_line + 1, end.line - 1) if text_lines else None
            if names:
                candidates.append((path, d.line, d.end_line + 1, end.line - 1, names))
    c_files = [p for p, c in sorted(files.items()) if c.language == "cuda"]
    if candidates and len(c_files) <= _UNUSED_FILES:
        def texts():
            for p in c_files:
                data = _read(source, files[p], limit, held)
                if data is not None:
                    yield p, data
        for path, line, first, last, names in candidates:
            if not used_names(names, texts(), (path, first, last)):
                pm.unused_arms.setdefault(path, []).append((line, f"{path}:{first}"))

    # `#if`/`#elif` directives testing a CUDA compiler macro and a HIP one (PortMap.hip_tests).
    for path, (ds, _total) in sorted(dirs.items()):
        if path in with_findings:
            # ... or a CUDA library's build switch tested with its ROCm twin (blaspp's `#if defined(BLAS_HAVE_CUBLAS)
            # || defined(BLAS_HAVE_ROCBLAS)`): code both vendors' builds compile, no CUDA-only code
            tests = [(d.line, d.end_line) for d in ds if d.kind in ("if", "elif")
                     and ((_CUDA_MACRO().search(d.text) and _HIP_MACRO().search(d.text)) or _twin_switches(d.text))]
            if tests:
                pm.hip_tests[path] = tests

    # A CI job named for CUDA beside its ROCm twin job in the same file (runners.ci_job_twins).
    for path in sorted(with_findings):
        c = files.get(path)
        if c is None or not is_ci_file(path):
            continue
        data = _read(source, c, limit, held)
        jobs = ci_job_twins(data.decode("utf-8", "replace")) if data is not None else []
        if jobs:
            pm.ci_twins[path] = jobs

    # A CI job already on an AMD GPU runner, looked for only when a finding asks for one (CTR007).
    runner_rules = {r.id for r in (result.rules.rules if result.rules is not None else ()) if RUNNER_TAG in r.tags}
    if runner_rules and any(f.rule in runner_rules for f in result.findings):
        for path, c in sorted(files.items()):
            data = _read(source, c, limit, held) if is_ci_file(path) else None
            n = amd_runner_line(data.decode("utf-8", "replace")) if data is not None else None
            if n is not None:
                pm.amd_runner = f"{path}:{n}"
                break

    # nvcc's flag variables in build files with findings, when the repository has ROCm-side files: ROCm sources by
    # name or place (StarPU's src/drivers/hip/, examples' `*_hip.hip`) or a ROCm build arm. A CUDA-only repository
    # with them keeps them open: there the port has to write the ROCm build's flags.
    # (the evidence named: a ROCm arm of a build file first, else the first ROCm-side file)
    # A build file's arm is evidence for build files of its own build system only: a Makefile's ROCm arm says
    # nothing of what a CMake project beside it builds (gpu-burn's Makefile and win/CMakeLists.txt), and a make arm
    # only of its own file (CMake's arms configure one project across its files; Makefiles are run one by one).
    arms = sorted((files[p].language if p in files else "", f"{p}:{g}") for p, regs in pm.cmake_regions.items()
                  for _a, _b, s_, g in regs if s_ == ROCM and g and isinstance(g, int))
    rocm_side = [ev for _lang, ev in arms]
    rocm_files = sorted(p for p, fs in pm.file_side.items() if fs[1] == ROCM and fs[0] != COMPONENT)
    rocm_side += rocm_files
    # Meson's vendor arms are regions (scope.meson_conditional_regions); outside them, a meson.build that itself
    # builds for ROCm (lc0's `hipblas` / `amdhip64` lookups and `-D__HIP_PLATFORM_AMD__` for its SYCL-on-AMD backend)
    # is its own evidence, for its own nvcc variables
    meson_rocm = {p: ev for p in sorted(with_findings) if p in files and files[p].language == "meson"
                  for data in [_read(source, files[p], limit, held)] if data is not None
                  for ev in [meson_rocm_line(p, data.decode("utf-8", "replace"))] if ev is not None}
    if rocm_side or meson_rocm:
        for path in sorted(with_findings):
            c = files.get(path)
            if c is None or c.language not in ("make", "cmake", "meson"):
                continue
            if c.language == "meson" and path not in meson_rocm:
                continue
            data = _read(source, c, limit, held)
            spans = nvcc_flag_assignments(data.decode("utf-8", "replace")) if data is not None else []
            # a file that sets such a variable in its ROCm arm (`porter port`'s `ifeq ($(USE_ROCM),1)` giving
            # NVCC_FLAGS hipcc's flags) feeds it to the ROCm build: its assignments stay open
            rocm_arms = [(a, b) for a, b, s_, _g in pm.cmake_regions.get(path, ()) if s_ == ROCM]
            if any(a <= x <= b for x, _y in spans for a, b in rocm_arms):
                spans = []
            ev = meson_rocm[path] if c.language == "meson" else next(
                (e for lang, e in arms if lang == c.language and (lang == "cmake" or e.startswith(path + ":"))),
                rocm_files[0] if rocm_files else None)
            if spans and ev is not None:
                pm.nvcc_flags[path] = spans
                pm.nvcc_evidence[path] = ev
            # ... and so are the arms of a CUDA switch that need the CUDA toolkit (necSpMV's `if(BUILD_WITH_CUDA)`
            # around find_package(CUDA REQUIRED), beside its hand-kept src/hip module): a ROCm build turns it off
            # (from the file's facts, which parsed its commands: file_facts)
            toolkit = list(facts[path].toolkit_arms) if c.language == "cmake" and path in facts else []
            # ... and an optional find_package(CUDAToolkit) (no REQUIRED) in a CMake file with a ROCm arm of its own
            # (gridtools' `find_package(CUDAToolkit)` before `if(CUDAToolkit_FOUND OR GT_CUDA_TYPE STREQUAL
            # HIPCC-AMDGPU)`): on a ROCm machine it finds nothing and the configure goes on into that arm
            if c.language == "cmake" and rocm_arms and data is not None:
                guard = next((g for _a, _b, s_, g in pm.cmake_regions.get(path, ()) if s_ == ROCM and g), 0)
                toolkit += [(a, b, guard or g) for a, b, g in
                            optional_toolkit_finds(cmake_commands(data.decode("utf-8", "replace")))]
            if toolkit and ev is not None:
                pm.toolkit_arms[path] = toolkit

    # A Python guard one module establishes and another tests (porter.portaware.pymodules): the importing files'
    # spans read with the other modules' CUDA-only functions, and the functions only such code calls, joined from
    # each Python file's facts the scan took (FileResult.py_module); no file is read here.
    modules = {r.path: r.py_module for r in result.files
               if r.py_module is not None and r.language == "python" and files.get(r.path) is not None
               and files[r.path].language == "python"}
    if modules:
        together = read_together(modules, sorted(p for p in with_findings if p in modules), pm.spans)
        for path, sps in together.spans.items():
            pm.spans[path] = [*pm.spans.get(path, ()), *sps]
        pm.callers.update(together.callers)
    # Shell scripts with findings that set a CUDA-named build variable beside its ROCm twin (script_twin).
    for path in sorted(with_findings):
        c = files.get(path)
        if c is None or c.language != "shell":
            continue
        data = _read(source, c, limit, held)
        text = data.decode("utf-8", "replace") if data is not None else ""
        if _MAKE_TWIN_HINT().search(text):
            spans = [(a, b, twin) for a, b, _s, twin in make_twin_regions(text)]
            if spans:
                pm.script_twins[path] = spans
            # a vendor branch of the script (`if [ "$device" = "gpu_nvidia" ] ... elif [ ... "gpu_amd" ]`): its
            # arms are runtime vendor branches, as a C++ or Python `if` is (rule 7)
            for a, b, side_, guard in shell_vendor_arms(text):
                pm.spans.setdefault(path, []).append(Span((a, 1), (b + 1, 1), side_, guard))

    # Same-stem siblings of CUDA sources with findings (`pool.cu` beside `pool.cpp`): read once, for by_twin.
    for path in sorted(with_findings):
        suffix = posix_path(path).suffix
        if suffix not in _STEM_TWIN_SUFFIXES or path in pm.file_side:
            continue
        stem = path[: -len(suffix)]
        for other in _STEM_TWIN_SUFFIXES[suffix]:
            c = files.get(stem + other)
            data = _read(source, c, limit, held) if c is not None and stem + other not in pm.file_side else None
            if data is not None:
                text = data.decode("utf-8", "replace")
                pm.stem_twins.setdefault(path, []).append(
                    StemTwin(stem + other, text, frozenset(re.findall(r"\w+", text))))

    for p, f in sorted(facts.items()):
        for n, old in f.rewrites:
            pm.rewrites.setdefault(old, f"{p}:{n}")
    if len(pm.compat) or pm.forward or pm.stem_twins or pm.rewrites:
        # Which name a finding matched needs its line: the scan kept the lines its findings are on (port facts'
        # `finding_lines`); a file the scan did not give facts for is read, from what the scan holds if it can.
        for path in sorted(with_findings):
            c = files.get(path)
            if c is None or c.language != "cuda":
                continue
            r = scanned.get(path)
            kept = r.port_facts.finding_lines if r is not None and r.port_facts is not None else None
            if kept is not None:
                pm.lines[path] = {int(n): text for n, text in kept}
                continue
            data = _read(source, c, limit, held)
            if data is not None:
                pm.lines[path] = dict(enumerate(data.decode("utf-8", "replace").split("\n"), 1))
    pm.rocm_build = _rocm_build(pm, files, facts, rocm_configurations)
    pm.cmake_projects = frozenset(posixpath.dirname(p) for p, f in facts.items()
                                  if files[p].language == "cmake" and CMAKE_PROJECT in f.tested)
    if pm.rocm_build.present:
        pm.cmake_units = {p: list(f.cmake_units) for p, f in facts.items() if f.cmake_units}
        pm.rocm_reach = frozenset(k for p, f in facts.items() if f.cmake_names
                                  for k in rocm_reach(f.cmake_names, pm.cmake_regions.get(p, f.regions),
                                                      f.rocm_lines))
    pm.rocm_scripts = {p: f"{p}:{f.rocm_tools[0]}" for p, f in sorted(facts.items())
                       if files[p].language == "shell" and f.rocm_tools}
    pm.launchers = frozenset(p for p, f in facts.items() if files[p].language == "shell" and f.launcher)
    return pm


def _rocm_build(pm: PortMap, files, facts: dict[str, PortFacts], rocm_configurations: list[str]) -> RocmBuild:
    """The repository's ROCm build (porter.portaware.rocmbuild), from the build-file arms, Python build-script
    branches, make configurations and build twins the PortMap holds and the build files' facts (read once)."""
    languages = {p: ("python" if c.language == "python" else CI if c.language == "yaml" else c.language)
                 for p, c in files.items()
                 if c.language in ("cmake", "make", "meson", "shell", "bazel", "dockerfile")
                 or (c.language == "yaml" and is_ci_file(p)) or _python_build_script(p, c.language)}
    arms: dict[str, list[tuple[int, int, int]]] = {}
    cuda_arms: dict[str, list[tuple[int, int]]] = {}
    for p, regs in pm.cmake_regions.items():
        for a, b, s_, g in regs:
            if p in languages and s_ == ROCM and g and isinstance(g, int):
                arms.setdefault(p, []).append((a, b, g))
            elif p in languages and s_ == CUDA:
                cuda_arms.setdefault(p, []).append((a, b))
    for p, sps in pm.spans.items():
        if languages.get(p) != "python":
            continue
        for sp in sps:
            # a span ends where its next line starts, or inside its last line
            last = sp.end[0] - 1 if sp.end[1] == 1 else sp.end[0]
            if sp.start[0] <= sp.line:
                continue  # a branch inside one expression (a dict entry, `x if hip else y`): no block of a build
            if sp.side == ROCM:
                arms.setdefault(p, []).append((sp.start[0], last, sp.line))
            elif sp.side == CUDA:
                cuda_arms.setdefault(p, []).append((sp.start[0], last))
    twins = {p: fs[2] for p, fs in pm.file_side.items()
             if fs[0] == "twin" and fs[1] == CUDA and p in languages and languages[p] != "shell"
             and (fs[2] in rocm_configurations or _build_file_name(fs[2]))}
    twins.update({p: ev.rsplit(":", 1)[0] for p, ev in pm.script_builds.items()})
    return rocm_build(languages, arms, cuda_arms, rocm_configurations, twins,
                      {p: f.inert for p, f in facts.items() if p in languages},
                      {p: f.rocm_lines for p, f in facts.items() if f.rocm_lines})


def _make_test_lines(regions) -> list[tuple[int, int, str, int]]:
    """The vendor test lines that open a make file's CUDA arms (ludwig's `ifeq ($(TARGET),nvcc)` right above its
    arm, beside an `ifeq ($(TARGET),hipcc)` one), as regions of their own: the fork's test, not work left, as a
    CMake `if` line and a C/C++ vendor directive are. A test no CUDA arm follows directly, or inside another
    region, is not one."""
    inside = {n for a, b, _s, _g in regions for n in range(a, b + 1)}
    return [(g, g, CUDA, g) for a, _b, s_, g in regions
            if s_ == CUDA and isinstance(g, int) and g and a == g + 1 and g not in inside]


def _python_build_script(path: str, language: str) -> bool:
    """A Python package's build script: `setup.py` or a twin of it (`setup_hip.py`, `setup_cuda.py`)."""
    name = posix_path(path).name
    return language == "python" and name.startswith("setup") and name.endswith(".py")


def _build_file_name(path: str) -> bool:
    """Whether a path names a build file (a ROCm twin found by name may have no language porter scans:
    `Makefile.rocm`, `CMakeLists_hip.txt`)."""
    name = posix_path(path).name.lower()
    return (name.startswith(("makefile", "cmakelists", "setup", "gnumakefile", "meson"))
            or name.endswith((".mk", ".mak", ".cmake")))


# A line of an arm that ports nothing (its directives are read from the preprocessor's list, not here): blank, an
# `#error`, `#warning` or `#pragma`, or a statement that only refuses (`throw std::runtime_error("not implemented")`,
# `assert(false && "TODO")`, `abort();`).
_HOLLOW_ROW = lazy_regex(r"^\s*(?:#\s*(?:error|warning|pragma)\b.*"
                         r"|throw\b[^;]*(?i:not[ _]+(?:yet[ _]+)?(?:implemented|supported)|unsupported|unimplemented"
                         r"|todo)[^;]*;|(?:std::)?abort\s*\(\s*\)\s*;|assert\s*\(\s*(?:false|0)\b[^;]*;)?\s*$")
# The directive kinds that open or close an arm.
_ARM_KINDS = frozenset({"if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif"})


def hollow_arms(data: bytes, directives) -> tuple[int, ...]:
    """The last line of each `#if`/`#elif`/`#else` directive (preprocessor.Directive) whose arm, up to the next
    directive of its chain, holds no code: every line blank once comments are, or a _HOLLOW_ROW; a directive inside
    it (a nested `#if`, a `#define`, an `#include`) is code."""
    if sum(1 for d in directives if d.kind in _ARM_KINDS) < 2:
        return ()
    lines: list[str] | None = None
    out = []
    stack: list[int] = []
    ends: dict[int, int] = {}  # index in `directives` of an arm's opener -> the line of the directive ending it
    for i, d in enumerate(directives):
        if d.kind in ("if", "ifdef", "ifndef"):
            stack.append(i)
        elif d.kind in _ARM_KINDS and stack:
            ends[stack[-1]] = d.line
            if d.kind == "endif":
                stack.pop()
            else:
                stack[-1] = i
    for i, end in sorted(ends.items()):
        d = directives[i]
        if any(d.end_line < e.line < end for e in directives):
            continue
        if lines is None:
            lines = preprocessor.blank_comments(data).decode("utf-8", "replace").split("\n")
        if all(_HOLLOW_ROW().match(t) for t in lines[d.end_line:end - 1]):
            out.append(d.end_line)
    return tuple(out)


# A macro whose words name ROCm, HIP, AMD or a ROCm library (`HAVE_ROCBLAS`, `BLAS_HAVE_ROCBLAS`, `USE_HIPFFT`).
_ROCM_MACRO = lazy_regex(r"(?<![A-Za-z0-9])(?:\w*_)?(?:HIP|ROCM|AMD|RCCL|MIOPEN|ROC(?:BLAS|FFT|RAND|SPARSE|SOLVER|PRIM|THRUST)"
                         r"|HIP(?:BLAS|FFT|RAND|SPARSE|SOLVER|CUB)\w*)(?:_\w*)?(?![A-Za-z0-9])", re.I)


def _without_hollow_forks(regs: list[preprocessor.Region], ds, hollow: tuple[int, ...],
                          rocm_names) -> list[preprocessor.Region]:
    """`regs` with the vendor guard taken off every arm of a fork whose ROCm arms hold no code: only blanks and
    comments, or only an `#error`, a "not implemented" throw (_HOLLOW_ROW). `#ifdef HAVE_CUBLAS cublasSgemm(...)
    #elif defined(HAVE_ROCBLAS) // TODO #endif` gives the ROCm build nothing in place of the cuBLAS call: the fork is
    where the port will go, not a port, so its CUDA arm stays open (and its `#if` line is no vendor test read as
    done). Only an arm whose own directive names ROCm counts: an empty `#else` says nothing of HIP. A ROCm arm that
    holds code (a hipBLAS call, an `#include <hip/...>`, a `#define`) keeps the fork."""
    if not hollow:
        return regs
    empty = set(hollow)
    opener = {d.end_line: d for d in ds if d.kind in ("if", "ifdef", "ifndef", "elif", "elifdef", "elifndef")}
    full: set[int] = set()
    named: set[int] = set()
    for r in regs:
        # an arm of a vendor fork the CUDA build skips and the ROCm build may take (`HAVE_ROCBLAS` is known to
        # neither build: read unknown, not false)
        if r.cuda is not False or r.rocm is False or not r.guard:
            continue
        d = opener.get(r.start - 1)
        if d is not None and (preprocessor.names_rocm(d.text, rocm_names) or _ROCM_MACRO().search(d.text)):
            named.add(r.guard)
        if d is None or d.end_line not in empty:
            full.add(r.guard)
    gone = named - full
    if not gone:
        return regs
    return [dataclasses.replace(r, guard=0) if r.guard in gone else r for r in regs]


def _twin_switches(text: str) -> bool:
    """Whether a condition names a CUDA-named macro and its ROCm twin (scope.rocm_spellings: `BLAS_HAVE_CUBLAS`
    with `BLAS_HAVE_ROCBLAS`, `USE_NCCL` with `USE_RCCL`)."""
    names = {t.lower() for t in _ident().findall(text)}
    return len(names) > 1 and any(rocm_spellings(t) & names for t in names)


def _unported(pm: PortMap, source, files, result: ScanResult, limit: int, held, with_findings: set[str]) -> None:
    """Twins decided per file and per kernel, not per directory or build switch (PortMap.unported). In a directory
    named for CUDA whose ROCm-named sibling holds a twin for each of its sources (scope.directory_counterparts:
    blaspp's src/cuda/device_conj.cu beside src/hip/device_conj.hip), a source with no twin there (a new
    src/cuda/device_scale.cu) is no file the ROCm build replaces: it loses its twin or component side, and its lines
    are unported. In a source with a twin file (that pairing, or a same-folder twin: `x.cu` / `x.hip`), a kernel
    whose name the twin does not spell (a kernel added to device_conj.cu only) is unported: the ROCm build compiles
    the twin, which lacks it. A twin generated at build time (hipify in the build) is no file, so it decides
    nothing here."""
    paired = directory_counterparts(files)
    twin_of: dict[str, str] = {}
    for path, twin in sorted(paired.items()):
        if path not in with_findings:
            continue
        fs = pm.file_side.get(path)
        if twin is not None:
            twin_of[path] = twin
        elif fs is None or fs[1] == CUDA:
            if fs is not None and fs[0] == COMPONENT and _runtime_shim(source, files[path], limit, held):
                # the CUDA component's own implementation of CUDA's API (OIDN's devices/cuda/curtn.cpp: the runtime
                # API written over the driver API): the ROCm sibling calls HIP's runtime, so nothing of it is missing
                # there - it stays the component's, handled by the counterpart
                continue
            if fs is not None and fs[0] in ("twin", COMPONENT):
                del pm.file_side[path]
            d = posixpath.dirname(path)
            pm.unported.setdefault(path, []).append((1, 1 << 30, f"{path} has no twin beside {d}/"))
    for path, fs in sorted(pm.file_side.items()):
        if fs[0] == "twin" and fs[1] == CUDA and fs[2] in files and path in with_findings:
            twin_of.setdefault(path, fs[2])
    kernels: dict[str, list[Kernel]] = {}
    for k in result.kernels:
        if k.path in twin_of and k.language == "cuda":
            kernels.setdefault(k.path, []).append(k)
    for path, ks in sorted(kernels.items()):
        twin = twin_of[path]
        data = _read(source, files[twin], limit, held)
        if data is None:
            continue
        words = frozenset(re.findall(r"\w+", data.decode("utf-8", "replace")))
        for k in sorted(ks):
            if k.name not in words:
                pm.unported.setdefault(path, []).append((k.line, k.end_line, f"{twin} has no kernel {k.name}"))
    _unported_kernels(pm, source, files, result, limit, held, set(twin_of))


# The most bytes of a ROCm counterpart's files read to learn which kernels it names (_unported_kernels).
COUNTERPART_BYTES = 16 * 1024 * 1024


def _unported_kernels(pm: PortMap, source, files, result: ScanResult, limit: int, held, done: set[str]) -> None:
    """A kernel of a CUDA source handled as a whole by a component pairing (`backend/cuda/` beside `backend/rocm/`)
    or by the CUDA arm of a split build (`file(GLOB kernels/cuda/*.cu)` beside `kernels/hip/*.hip`) is unported
    (PortMap.unported) when the ROCm counterpart - the paired directory, or the ROCm-named siblings of the source's
    own directory - holds neither a file of the same core stem (scope.core_stem: OPM's rocm/rocsparseWellContributions
    .cpp for cuda/cuWellContributions.cu, whose kernel it implements under another name) nor a file that spells the
    kernel's name: the ROCm build compiles that counterpart, which lacks the kernel, so the kernel is a missing
    feature (a pull request's new kernels/cuda/fast_topk.cu), not work done. `done`: the sources _unported already
    read per twin file."""
    from porter.portaware.scope import core_stem

    by_dir: dict[str, list[str]] = {}
    for p in files:
        by_dir.setdefault(posixpath.dirname(p), []).append(p)
    counterpart_words: dict[tuple[str, ...], frozenset[str] | None] = {}
    counterpart_cores: dict[tuple[str, ...], frozenset[str]] = {}
    for k in sorted(result.kernels):
        fs = pm.file_side.get(k.path)
        if k.path in done or k.language != "cuda" or fs is None or fs[1] != CUDA:
            continue
        if fs[0] == COMPONENT and fs[2].endswith("/"):
            where: tuple[str, ...] = (fs[2].rstrip("/"),)
        elif fs[0] == "twin" and fs[2] not in files:  # the CUDA arm of a build (`CMakeLists.txt:4`)
            d = posixpath.dirname(k.path)
            key, cuda, _rocm = _dir_key_of(posixpath.basename(d))
            parent = posixpath.dirname(d)
            where = tuple(sorted(s for s in by_dir if posixpath.dirname(s) == parent and s != d and cuda
                                 and (lambda kk: kk[0] == key and kk[2] and not kk[1])(_dir_key_of(posixpath.basename(s)))))
        else:
            continue
        if not where:
            continue
        if where not in counterpart_cores:  # once per counterpart, not per kernel
            counterpart_cores[where] = frozenset(core_stem(p) for w in where for d in by_dir
                                                 if d == w or d.startswith(w + "/") for p in by_dir[d])
        mine = core_stem(k.path)
        if mine and mine in counterpart_cores[where]:
            continue
        if where not in counterpart_words:
            words: set[str] = set()
            total = 0
            inside = [p for p in sorted(files) if any(p.startswith(w + "/") for w in where)]
            for p in inside:
                data = _read(source, files[p], limit, held)
                if data is None:
                    continue
                total += len(data)
                if total > COUNTERPART_BYTES:
                    words = set()
                    break
                words.update(re.findall(r"\w+", data.decode("utf-8", "replace")))
            counterpart_words[where] = frozenset(words) if words else None
        known = counterpart_words[where]
        if known is not None and k.name not in known:
            pm.unported.setdefault(k.path, []).append(
                (k.line, k.end_line, f"{', '.join(w + '/' for w in where)} has no kernel {k.name}"))


def _dir_key_of(name: str) -> tuple[str, bool, bool]:
    """scope's key of a directory's name (vendor words out; whether it named CUDA; whether ROCm)."""
    from porter.portaware.scope import directory_key

    return directory_key(name)


# An include of HIP's runtime header: a file that includes it (and no CUDA runtime header) is written for the ROCm
# build, whatever it is called.
_HIP_RUNTIME_INCLUDE = re.compile(r"[<\"]hip/hip_runtime(?:_api)?\.h[>\"]")
_CUDA_RUNTIME_INCLUDE = re.compile(r"[<\"](?:cuda_runtime(?:_api)?|cuda)\.h[>\"]")
# A CUDA side's signs: a CUDA suffix, a CUDA word in the path, or an include of a CUDA toolkit header (the runtime,
# a `cu*` library, CUB, Thrust, cooperative groups, NCCL). A SYCL or CPU backend that implements the same interface
# (Tasmanian's tsgDpcppKernels.cpp beside tsgHipKernels.hip.cpp) is a third backend, not the CUDA side of a twin.
_CUDA_PATH = re.compile(r"(?i)\.cuh?$|(?:^|[/_.-])cuda(?:$|[/_.-])")
_CUDA_TOOLKIT_INCLUDE = re.compile(r"[<\"](?:cu[A-Za-z0-9_]*\.h|cuda/|cub/|thrust/|cooperative_groups|nccl\.h)")


def _includes(ds: list[preprocessor.Directive]) -> list[str]:
    return [d.text for d in ds if d.kind == "include"]


def _definition_twins(pm: PortMap, source, files, dirs: dict[str, tuple[list[preprocessor.Directive], int]],
                      limit: int, held, with_findings: set[str]) -> None:
    """Twins by definition (porter.portaware.twins.definition_twin): a CUDA-side C/C++ file (_CUDA_PATH, a toolkit
    include) with findings and no side yet whose externally visible definitions a ROCm-side file also defines - at
    least TWIN_MIN_SHARED of them and half of its own - is that file's twin (pm.definition_twins): what no other rule decides there is handled, the twin named as
    the evidence (a last resort, so every other rule keeps its own evidence). ROCm-side: by name or place or
    compiled only by the ROCm build (pm.file_side), or including HIP's runtime header and no CUDA one. A file one of
    the two includes is shared code, no twin. Each definition of the CUDA file that the twin does not define stays
    open: the ROCm build lacks it, so it is work, not a port."""
    wanted = sorted(p for p in with_findings if p in dirs and p not in pm.file_side and (
        _CUDA_PATH.search(p) or any(_CUDA_TOOLKIT_INCLUDE.search(t) for t in _includes(dirs[p][0]))))
    if not wanted:
        return
    rocm = sorted(p for p, (ds, _t) in dirs.items()
                  if (p in pm.file_side and pm.file_side[p][1] == ROCM)
                  or (p not in pm.file_side and any(_HIP_RUNTIME_INCLUDE.search(t) for t in _includes(ds))
                      and not any(_CUDA_RUNTIME_INCLUDE.search(t) for t in _includes(ds))))
    if not rocm:
        return
    wanted = [p for p in wanted if p not in rocm]
    defined: dict[str, tuple[tuple[str, int, int], ...]] = {}
    for p in rocm + wanted:
        data = _read(source, files[p], limit, held)
        defined[p] = visible_definitions(p, data) if data is not None else ()
    names = {p: frozenset(n for n, _a, _b in defined[p]) for p in rocm}
    by_name: dict[str, set[str]] = {}
    for p in rocm:
        for n in names[p]:
            by_name.setdefault(n, set()).add(p)
    for path in wanted:
        mine = defined[path]
        own = {n for n, _a, _b in mine}
        candidates = {r for n in own for r in by_name.get(n, ())}
        included = {posixpath.basename(t.strip('<>"').split()[0]) for t in _includes(dirs[path][0]) if t.strip()}
        pairs = [(r, names[r]) for r in sorted(candidates)
                 if posixpath.basename(r) not in included and posixpath.basename(path) not in
                 {posixpath.basename(t.strip('<>"').split()[0]) for t in _includes(dirs[r][0]) if t.strip()}]
        found = definition_twin(own, pairs)
        if found is None:
            continue
        twin, shared = found
        pm.definition_twins[path] = (twin, tuple((a, b, n) for n, a, b in mine if n not in shared))


def _runtime_shim(source, candidate, limit: int, held) -> bool:
    """Whether a C/C++ file implements CUDA's own API (compat.implements_cuda_api)."""
    data = _read(source, candidate, limit, held)
    return data is not None and implements_cuda_api(data.decode("utf-8", "replace"))


# A script that may assign both a CUDA-named and a ROCm-named variable (checked before make_twin_regions runs).
_MAKE_TWIN_HINT = lazy_regex(r"(?i)(?<![a-z])(?:hip|rocm)")


def script_twin(f: Finding, spans: list[tuple[int, int, int]]) -> str | None:
    """"path:line" of the ROCm twin answering a finding on a shell script's CUDA-named build variable (hpcscan's
    env scripts: `export HPCSCAN_CUDA_LIB='... -lcudart'` beside `export HPCSCAN_HIP_LIB=...`): the ROCm build reads
    the twin, so the compiler, flags, architectures and drop-in links of the CUDA one are its build's business. A
    library whose ROCm counterpart needs a port or has none (a finding whose data says kind `port`/`none`: NVML,
    whose callers must move to AMD SMI) is code work the twin variable does not answer: None."""
    kind = dict(f.data).get("kind") if f.data else None
    if kind not in (None, "drop-in"):
        return None
    for a, b, twin in spans:
        if a <= f.line <= b:
            return f"{f.path}:{twin}"
    return None


def counterpart_reach(pm: PortMap, files, edges) -> dict[str, frozenset[str]]:
    """PortMap.counterparts: per counterpart a pairing names (COMPONENT's "dir/", a twin's path), the files it is
    made of - its own files and, down the include chain (a few levels, as build_map reads includes), the ROCm-side
    files they include. `edges`: build_map's resolved includes (path, line, arm side, hits)."""
    names = sorted({fs[2] for fs in pm.file_side.values() if fs[0] in (COMPONENT, "twin") and fs[1] == CUDA}
                   | {twin for twin, _missing in pm.definition_twins.values()})
    if not names:
        return {}
    includes: dict[str, set[str]] = {}
    for path, _line, _arm, hits in edges:
        includes.setdefault(path, set()).update(hits)
    out: dict[str, frozenset[str]] = {}
    listed = sorted(files)  # a directory's files are one run of the sorted listing: found by bisection, not a scan
    for name in names:
        if name.endswith("/"):
            at = end = bisect.bisect_left(listed, name)
            while end < len(listed) and listed[end].startswith(name):
                end += 1
            own = set(listed[at:end])
        else:
            own = {name} if name in files else set()
        if not own:
            continue
        reach, todo = set(own), sorted(own)
        for _level in range(4):
            nxt = []
            for p in todo:
                for hit in includes.get(p, ()):
                    fs = pm.file_side.get(hit)
                    if hit not in reach and fs is not None and fs[1] == ROCM and fs[0] != COMPONENT:
                        reach.add(hit)
                        nxt.append(hit)
            if not nxt:
                break
            todo = sorted(nxt)
        out[name] = frozenset(reach)
    return out


def shared_by_counterpart(findings: tuple[Finding, ...], pm: PortMap) -> tuple[Finding, ...]:
    """Findings a component or twin pairing handles (handled_by names the counterpart) put back to open when the
    counterpart has a finding of the same rule on the same words (the line's text, spacing aside), on a line the
    ROCm build compiles (not in an arm only the CUDA build, or no build, takes): the ROCm side has the gap too
    (Cycles' OptiX compat.h reads images with tex2D, and so does hip/compat.h, which its HIP RT counterpart
    includes: no image instructions on gfx942/gfx950 either way). Info findings (a kernel is defined or launched
    here) say what the code is, not what it needs: a twin shares those by being one, so they are left alone."""
    counterparts = pm.counterparts
    if not counterparts:
        return findings
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        if f.severity > Severity.INFO:
            by_path.setdefault(f.path, []).append(f)
    shared: dict[str, set[tuple[str, str]]] = {}

    def constructs(name: str) -> set[tuple[str, str]]:
        if name not in shared:
            words: set[tuple[str, str]] = set()
            for p in counterparts[name]:
                regs = pm.regions.get(p)
                for g in by_path.get(p, ()):
                    if regs and preprocessor.side_at(regs, g.line)[0] in (CUDA, "none"):
                        continue
                    words.add((g.rule, " ".join(g.snippet.split())))
            shared[name] = words
        return shared[name]

    out = []
    for f in findings:
        # (a file of the counterpart itself is the ROCm side, not the pairing's CUDA side)
        if f.status is Status.HANDLED and f.severity > Severity.INFO and f.handled_by in counterparts \
                and f.path not in counterparts[f.handled_by] \
                and (f.rule, " ".join(f.snippet.split())) in constructs(f.handled_by):
            f = dataclasses.replace(f, status=Status.OPEN, handled_by=None)
        out.append(f)
    return tuple(out)


def _rocm_code(pm: PortMap, dirs) -> dict[str, str]:
    """Per C/C++ file, the "path:line" (or path) of ROCm code of its own: ROCm-only by name or place, a ROCm-side
    preprocessor arm, or an include of a HIP or ROCm library header (scope.rocm_header)."""
    out: dict[str, str] = {}
    for path, (ds, _total) in sorted(dirs.items()):
        fs = pm.file_side.get(path)
        if fs is not None and fs[1] == ROCM and fs[0] == "name":
            out[path] = path
            continue
        at = [r.start for r in pm.regions.get(path, ()) if r.side == ROCM and r.guard]
        at += [d.line for d in ds if d.kind == "include" and rocm_header(d.text)]
        if at:
            out[path] = f"{path}:{min(at)}"
    return out


# A setup.py that builds torch extensions itself, and whether it mentions CMake or make (then it may drive them).
_TORCH_EXTENSION = lazy_regex(r"\b(?:CUDAExtension|CppExtension|BuildExtension)\b")
# (`make` only as a command: `["make", ...]`, `"make -j"`, not the word in a comment: DeepEP's "make NVSHMEM optional")
_DRIVES_BUILD = lazy_regex(r"(?i)cmake|Makefile|[\"']make[\"'\s]|\bmake\s+-[a-zA-Z]")
_SIDE_BUILD_NAMES = frozenset({"CMakeLists.txt", "Makefile", "makefile", "GNUmakefile"})


def _cmake_cuda_definitions(pm: PortMap, facts: dict[str, PortFacts], dirs, rocm_names: frozenset[str],
                            switches: Iterable[str] = ()) -> frozenset[str]:
    """Macros the repository's CMake defines only in CUDA arms (NWQ-Sim's `target_compile_definitions(... PUBLIC
    CUDA_MPI_ENABLED)` under `if(CUDAToolkit_FOUND)` beside a `if(HIP_FOUND)` arm), that no CMake line outside such
    an arm defines and no C/C++ file `#define`s: only the CUDA build compiles what `#ifdef` on one guards. (The
    CMake arms are the ones port status reads: a file without a ROCm arm has no CUDA arms.) `switches`: CUDA-build
    switches (nvidia_only_switches) whose same-named macro (`#cmakedefine01 GMX_NVSHMEM`) is the CUDA build's too,
    unless a CMake line defines it otherwise."""
    sides: dict[str, set[str]] = {}
    for path, f in facts.items():
        if not f.definitions:
            continue
        fs = pm.file_side.get(path)
        regions = pm.cmake_regions.get(path, ())
        for line, name in f.definitions:
            s = fs[1] if fs is not None and fs[1] in (CUDA, ROCM) else next(
                (s_ for a, b, s_, g in regions if a <= line <= b and g and s_ in (CUDA, ROCM)), "both")
            sides.setdefault(name, set()).add(s)
    cuda = ({n for n, s in sides.items() if s == {CUDA}} | (set(switches) - set(sides))) - rocm_names
    if cuda:
        cuda -= {name for ds, _total in dirs.values() for _line, name, _body in preprocessor.defines(ds)}
    return frozenset(cuda)


def _names_rocm_build(f: PortFacts | None) -> bool:
    """Whether a build file's facts show a ROCm side (an arm, a source or a vendor-named switch of its own): then it
    builds for both, and its own arms decide. From the cached facts, so nothing is read again."""
    if f is None:
        return False
    return (any(r[2] == ROCM for r in f.regions) or any(r[1] == ROCM for r in f.refs)
            or any(ROCM_WORD.search(t) for t in f.tested))


# PortFacts.tested of a setup.py that builds torch extensions itself and never runs CMake or make (the scan's own
# read decides it, so port status reads no setup.py again).
TORCH_EXTENSION_ONLY = "setup.py:torch-extensions-only"
# A Python module (not setup.py) that may compile sources at run time (_RUNTIME_BUILD): read by unbuilt_sources.
RUNTIME_BUILD = "python:runtime-build"
# PortFacts.tested of a make configuration fragment that selects the ROCm toolchain (scope.make_rocm_configuration).
MAKE_ROCM_CONFIGURATION = "make:rocm-configuration"
_FRAGMENT_SUFFIXES = (".mk", ".mak")


def _fragment(path: str) -> bool:
    """Whether a make file is a configuration fragment (`unix-nvcc.mk`), not a Makefile of its own."""
    return path.lower().endswith(_FRAGMENT_SUFFIXES)


def configuration_twins(paths: Iterable[str], rocm_configurations: Iterable[str]) -> dict[str, str]:
    """Make fragment path -> the ROCm configuration fragment (MAKE_ROCM_CONFIGURATION) that stands in for it: the
    first by path in its own directory, else in its parent directory unless that is the repository's root (ludwig's
    config/pre-0.9.0/nvidia-jade.mk -> config/unix-hipcc.mk): the project's collection of alternative
    configurations, one of which builds for ROCm. A fragment never stands in for itself; a root-level fragment has
    only its own directory's."""
    by_dir: dict[str, list[str]] = {}
    for r in sorted(rocm_configurations):
        by_dir.setdefault(posixpath.dirname(r), []).append(r)
    out: dict[str, str] = {}
    for path in sorted(paths):
        if not _fragment(path):
            continue
        folder = posixpath.dirname(path)
        looks = [folder] + ([posixpath.dirname(folder)] if folder and posixpath.dirname(folder) else [])
        twin = next((r for d in looks for r in by_dir.get(d, ()) if r != path), None)
        if twin is not None:
            out[path] = twin
    return out


# PortFacts.tested of a CMakeLists.txt that declares a project() of its own.
CMAKE_PROJECT = "cmake:project"
_PROJECT_CALL = lazy_regex(r"(?im)^[^\S\n]*project\s*\(")
# Rules whose finding says the file calls nvcc (a script that does is a build).
NVCC_RULES = frozenset({"BLD007"})


def _torch_extension_only(text: str) -> bool:
    return bool(_TORCH_EXTENSION().search(text)) and not _DRIVES_BUILD().search(text)


def side_builds(files, facts: dict[str, PortFacts]) -> dict[str, str]:
    """CMakeLists.txt / Makefile path -> why it is a side build: it sits beside a setup.py that builds the
    package as torch extensions and never mentions CMake or make (its facts say so)."""
    out: dict[str, str] = {}
    for path in files:
        if posix_path(path).name != "setup.py" or TORCH_EXTENSION_ONLY not in facts.get(path, PortFacts()).tested:
            continue
        folder = posixpath.dirname(path)
        for p in (posixpath.join(folder, n) if folder else n for n in sorted(_SIDE_BUILD_NAMES)):
            if p in files:
                out[p] = f"{path}: the package is built as torch extensions by setup.py, which never runs this build"
    return out


# Python that compiles C/C++/CUDA itself at run time (torch's JIT `load`/`load_inline`, CuPy's RawModule/RawKernel,
# PyCUDA's SourceModule, NVRTC) or names a source file: it may build a file setup.py does not list.
_RUNTIME_BUILD = lazy_regex(rb"""cpp_extension|load_inline|RawModule|RawKernel|SourceModule|nvrtc|\.(?:cu|cuh|cpp|cc|c|h|hpp|hip)["']""")
_INCLUDE_TARGET = lazy_regex(r"""^\s*[<"]([^>"]+)[>"]""")


_HEADER_NAME = lazy_regex(r"(?i)[\w.+-]+\.(?:h|hh|hpp|hxx|cuh|inc|inl|ipp|tcc|tpp|txx)\b")


def header_names(text: str) -> set[str]:
    """The header file names a Python or build file's text spells (`"norm.cuh"`, `kernels/fast_gemv.cuh`)."""
    return {m.group(0).rsplit("/", 1)[-1] for m in _HEADER_NAME().finditer(text)}


# More source patterns than any package's setup.py lists: a list this long bounds nothing a reader can check
# (and each pattern costs every file a match), so every file is taken as built.
MAX_SOURCE_PATTERNS = 2000


# Build systems porter does not read, by the name of their file: where one sits at the root or beside a Makefile,
# that Makefile may not be the build (asked of the source by name: porter lists no file of these names).
_OTHER_BUILD_NAMES = ("meson.build", "SConstruct", "SConscript", "build.ninja", "premake5.lua", "premake4.lua",
                      "xmake.lua", "BUILD.gn", "configure.ac", "configure.in", "build.sh", "CMakeLists.txt")
# A C/C++/CUDA source or object a Makefile names (`grid_Cuda.o`, `$(SRC_DIR)/main.cu`, `kernels.cu.o`).
_MAKE_UNIT_WORD = lazy_regex(r"(?<![\w$%*])[\w+.-]+\.(?:cu|cpp|cc|cxx|c|C|hip|o|obj|lo)(?![\w.])")
# A source a Makefile names by a plain relative path (`src/main.cu`), its directory in group 1.
_MAKE_SOURCE_PATH = lazy_regex(r"(?<![\w$%*/.-])((?:(?:\.\.|[\w+-][\w.+-]*)/)+)[\w+.-]+\.(?:cu|cpp|cc|cxx|c|C|hip)"
                               r"(?![\w.])")
# What makes a Makefile's list open-ended: a source wildcard or listing command, a pattern rule building a program
# straight from any source (`%: %.cu`), or another make file it includes (porter may not read it).
# (a wildcard of headers, `DEPS = $(wildcard src/*.h)`, or `$(shell which nvcc)` lists nothing compiled)
_MAKE_OPEN = lazy_regex(r"(?m)\$[({]wildcard\s[^)}\n]*(?:\.(?:cu|cpp|cc|cxx|c|C|hip)\b|\*\s*[)}])"
                        r"|\$[({]shell\s+(?:find|ls)\b|\*\.(?:cu|cpp|cc|cxx|c|hip)\b|^[^\S\n]*%\s*:[^=\n]*%\."
                        r"|^[^\S\n]*-?s?include\s")
# An include line of a Makefile and what it names (`include Makefile.inc`, `-include config.mk`).
_MAKE_INCLUDE = lazy_regex(r"(?m)^[^\S\n]*-?s?include[^\S\n]+([^\n#]*)")
# A shell script's command that compiles or configures a build of its own (not `make`, whose Makefile is read; an
# assignment `export APP_CUDA=nvcc` is no command).
_SHELL_COMPILE = lazy_regex(rb"(?m)(?:^|[;&|(`]|\$\()[^\S\n]*(?:[\w./-]*/)?(?:nvcc|hipcc|clang\+\+|clang|g\+\+|gcc|c\+\+|"
                            rb"cmake|ninja|bazel|meson|scons|mpicxx|mpic\+\+|icpx|dpcpp)(?=[^\S\n]|$)")
_DIR_WORD = lazy_regex(r"(?:-I|-L)?((?:\.\.?/)*[\w.-]+(?:/[\w.-]+)*/?)")


def _make_reading(path: str, text: str, dirs: set[str],
                  makes: frozenset[str] = frozenset()) -> tuple[set[str], set[str], bool]:
    """What one Makefile says it compiles: the stems of the sources and objects it names, the directories its scope
    covers (its own directory itself, not the folders below it, and the trees of every existing directory its text
    names relative to it: `SRC_DIR = ../src`, `VPATH`, `-I`), and whether its list is open-ended (_MAKE_OPEN: then
    every file in its scope may be built). A scope entry ending in "\0" is that one directory alone. An include of
    make files that are all in `makes` (the repository's, each read as a Makefile of its own: peasoup's `include
    Makefile.inc`, its toolchain and flags) leaves the list closed."""
    here = posixpath.dirname(path)
    stems = {m.group(0).rsplit("/", 1)[-1].split(".", 1)[0] for m in _MAKE_UNIT_WORD().finditer(text)} - {""}
    scope = {here + "\0"}
    # the directory of each source it names by path (CUDASW4's `$(BUILDDIR)/main.o : src/main.cu ...`): it lists
    # what it compiles there, so a source of that directory it never names is not built by it
    for m in _MAKE_SOURCE_PATH().finditer(text):
        d = posixpath.normpath(posixpath.join(here, m.group(1)))
        if not d.startswith("..") and d in dirs:
            scope.add(d + "\0")
    for word in re.split(r"[\s=:;,()]+", text):
        m = _DIR_WORD().fullmatch(word) if "/" in word or word.startswith("..") else None
        if m is None:
            continue
        d = posixpath.normpath(posixpath.join(here, m.group(1))) if here or m.group(1).startswith("..") \
            else posixpath.normpath(m.group(1))
        if d.startswith(".."):
            continue
        # (the root only for a Makefile there: `./`, `../` name where a command runs, not what it compiles)
        if d != "." and d in dirs:
            scope.add(d)
    # the tree of a static pattern rule's source folder (`$(OBJ_DIR)/%.o: src/%.cpp`): `%` spans subfolders, and
    # make builds from it only the objects some list asks for
    for m in _MAKE_PATTERN_SOURCE().finditer(text):
        d = posixpath.normpath(posixpath.join(here, m.group(1)))
        if not d.startswith("..") and d in dirs:
            scope.add(d)
    open_ended = any(not _read_include(m, here, makes) and not _lists_no_sources(m)
                     for m in _MAKE_OPEN().finditer(text))
    return stems, scope, open_ended


# A pattern rule's prerequisite in a plain folder: `$(OBJ)/%.o: src/%.cu`, the folder in group 1.
_MAKE_PATTERN_SOURCE = lazy_regex(r"(?m)^[^\s:#=]*%[^\s:=]*[^\S\n]*:[^\S\n]*((?:[\w+-][\w.+-]*/)+)%\."
                                  r"(?:cu|cpp|cc|cxx|c|C|hip)\b")


# A listing command whose names are not compiled: a recipe line that makes directories (OP2-style
# `@mkdir -p $(foreach dir,$(shell find src -mindepth 1 | grep -v "\."),$@/$(dir))`), a `find -type d`, or a glob of
# libraries (`$(shell ls $(VTK_DIR)/lib/libvtk*.so)`) - each lists folders or libraries, never a source to build.
_MKDIR_RECIPE = lazy_regex(r"^[^\S\n]*[@+-]*mkdir\b")
_NO_SOURCE_LISTING = lazy_regex(r"-type\s+d\b|\*\S*?\.(?:so|a|dylib|dll|lib)\b")


def _lists_no_sources(m: re.Match[str]) -> bool:
    """Whether an open-ended match of _MAKE_OPEN is a `$(shell find|ls ...)` that lists no source (see above)."""
    if not m.group(0).startswith(("$(shell", "${shell")):
        return False
    start = m.string.rfind("\n", 0, m.start()) + 1
    end = m.string.find("\n", m.end())
    line = m.string[start:end if end >= 0 else len(m.string)]
    return bool(_MKDIR_RECIPE().match(line) or _NO_SOURCE_LISTING().search(m.string[m.start():len(line) + start]))


def _read_include(m: re.Match[str], here: str, makes: frozenset[str]) -> bool:
    """Whether an open-ended match of _MAKE_OPEN is an include line naming only make files of `makes` by plain
    paths (no variable), relative to the including Makefile's directory."""
    inc = _MAKE_INCLUDE().match(m.string, m.string.rfind("\n", 0, m.start()) + 1)
    if inc is None or inc.start() != m.start():
        return False
    words = inc.group(1).split()
    return bool(words) and all("$" not in w and posixpath.normpath(posixpath.join(here, w)) in makes for w in words)


def _in_scope(path: str, scope: set[str]) -> bool:
    """Whether a file lies in a scope (see _make_reading): its folder as a one-directory entry, or any folder above
    it, itself included, as a tree - looked up per ancestor, so a scope of many entries costs a path its depth."""
    d = posixpath.dirname(path)
    if d + "\0" in scope:
        return True
    while True:
        if d in scope:
            return True
        if not d:
            return False
        d = posixpath.dirname(d)


def unbuilt_sources(files, facts: dict[str, PortFacts], dirs, read, present=None) -> dict[str, str]:
    """C/C++/CUDA path -> why no build compiles it: the repository's compiled set, read from every build it has.

    setuptools compiles the `sources` each Extension lists and nothing else
    (https://setuptools.pypa.io/en/latest/userguide/ext_modules.html); make compiles the sources and objects its
    Makefiles name, and nothing in their directories that no rule reaches; the preprocessor adds only what those
    sources `#include` (C++ [cpp.include]). So where every build of the repository is such a setup.py (torch
    extensions) or a Makefile with closed lists (hpcscan's build/Makefile: `CUDA_OBJ = grid_Cuda.o ...`, `HIP_OBJ =
    grid_Hip.o ...`, `VPATH = ../src`), with no CMake, Bazel or other build system, no script compiling sources and no
    Python module compiling sources at run time, a file that no build names and no such source includes, directly or
    through other headers, is compiled by no build: its lines are no port work (cuda-only: shown, never open; its
    kernels' verdicts ok, build_map's UNBUILT). A Makefile speaks for its own directory (not the folders below it)
    and the trees of those its text names; one
    with an open-ended list (a source wildcard, `%: %.cu`, an included make file) counts every file there as built,
    and a file outside every Makefile's directories counts as built. Names are matched loosely (a computed part of a
    path as "*", an object or source by its stem, an include by its file name when the path does not resolve), which
    can only count more files as built. `read(candidate)`: a file's bytes; `present(paths)`: which of these paths
    exist (None: unknown, and then no Makefile is read)."""
    setups = [p for p in files if posix_path(p).name == "setup.py"]
    makes = sorted(p for p, c in files.items() if c.language == "make")
    if any(TORCH_EXTENSION_ONLY not in facts.get(p, PortFacts()).tested for p in setups):
        return {}
    if any(c.language in ("cmake", "bazel", "meson") for c in files.values()):  # a build porter reads but not for this
        return {}
    # Python modules that build torch JIT extensions from literal source lists (jit_load_sources): builds too
    loads: dict[str, list[str]] = {}
    units = [p for p, c in files.items() if c.language == "cuda"]
    if not setups and not makes:
        if not units:
            return {}
        for p, c in sorted(files.items()):
            # only a module its facts tag RUNTIME_BUILD can be such a build, and its facts hold its JIT loads'
            # sources (file_facts: none when it may build anything else)
            f = facts.get(p, PortFacts())
            if c.language != "python" or RUNTIME_BUILD not in f.tested:
                continue
            if not f.sources:
                return {}
            loads[p] = list(f.sources)
        if not loads:
            return {}
    built: set[str] = set()
    patterns = sorted({posixpath.join(posixpath.dirname(p), pat) if posixpath.dirname(p) else pat
                       for p in setups for pat in facts[p].sources}
                      # a JIT load's paths are relative to where Python runs: the root, or the module's folder
                      | {pat for ps in loads.values() for pat in ps}
                      | {posixpath.normpath(posixpath.join(posixpath.dirname(p), pat))
                         for p, ps in loads.items() if posixpath.dirname(p) for pat in ps})
    if setups or loads:
        if not patterns or len(patterns) > MAX_SOURCE_PATTERNS:
            return {}
        # One regular expression for the whole list, compiled once: fnmatch per (file, pattern) recompiles once its
        # cache (32768 patterns) is full, which let a setup.py of 40,000 distinct wildcard sources stall this stage
        # for its whole budget. Each pattern matches the path itself or any path ending in it (`*/` + pattern).
        listed_rx = re.compile("|".join(f"{fnmatch.translate(pat)}|{fnmatch.translate('*/' + pat)}"
                                        for pat in patterns))
        built = {p for p in units if listed_rx.match(p)}
        if not built:
            return {}
    if makes:
        if present is None:
            return {}
        folders = {""} | {posixpath.dirname(p) for p in files}
        for p in list(folders):
            while p:
                p = posixpath.dirname(p)
                folders.add(p)
        asked = sorted({posixpath.join(d, n) if d else n for d in {""} | {posixpath.dirname(m) for m in makes}
                        for n in _OTHER_BUILD_NAMES})
        if present(asked):
            return {}
        stems: set[str] = set()
        scopes: set[str] = set()
        open_scopes: set[str] = set()  # the scopes of Makefiles whose lists are open-ended
        for m in makes:
            data = read(files[m])
            if data is None:
                return {}
            named, scope, open_ended = _make_reading(m, data.decode("utf-8", "replace"), folders, frozenset(makes))
            if open_ended or not named:
                open_scopes |= scope
            stems |= named
            scopes |= scope
        if open_scopes:
            built |= {p for p in units if _in_scope(p, open_scopes)}
        built |= {p for p in units if posix_path(p).name.split(".", 1)[0] in stems}
        if not setups:
            # a Makefile speaks for its own directories only: elsewhere, unknown (counted built)
            built |= {p for p in units if not _in_scope(p, scopes)}
    listed = set(built)
    if not listed or len(listed) == len(units):
        return {}
    by_name: dict[str, list[str]] = {}
    for p in units:
        by_name.setdefault(posix_path(p).name, []).append(p)
    todo = sorted(listed)
    while todo:
        path = todo.pop()
        for d in dirs.get(path, ([], 0))[0]:
            m = _INCLUDE_TARGET().match(d.text) if d.kind == "include" else None
            for hit in (_resolve_include(path, m.group(1), files, by_name) if m else ()):
                if hit not in built:
                    built.add(hit)
                    todo.append(hit)
    unbuilt = [p for p in units if p not in built]
    if not unbuilt:
        return {}
    # One pass over the Python and shell files: another build or a run-time compile bounds nothing (every file may
    # be built), and a header whose file name a Python file spells (package_data, a JIT build reading it as text,
    # setup.py included) may be compiled at run time.
    spelt: set[str] = set()
    for p, c in sorted(files.items()):
        if c.language not in ("python", "shell"):
            continue
        data = read(c)
        if data is None:
            return {}
        if c.language == "shell" and _SHELL_COMPILE().search(data):
            return {}
        if c.language == "python" and p not in setups and p not in loads and _RUNTIME_BUILD().search(data):
            return {}
        if c.language == "python":
            spelt |= header_names(data.decode("utf-8", "replace"))
    names = ", ".join(sorted(setups + makes + list(loads)))
    what = "lists the package's sources" if not makes and not loads else "list the sources they compile" if len(
        setups + makes + list(loads)) > 1 else "lists the sources it compiles"
    return {p: f"no build compiles it: {names} {what} and none of them includes it"
            for p in unbuilt if posix_path(p).name not in spelt}


_SOURCE_SUFFIX = lazy_regex(r"(?i)\.(?:cu|cpp|cc|cxx|c|hip)$")
# Python text that builds in ways a literal `load(sources=[...])` list does not bound
_OTHER_RUNTIME_BUILD = lazy_regex(r"load_inline|RawModule|RawKernel|SourceModule|nvrtc|CUDAExtension|CppExtension|"
                                  r"BuildExtension|\bsetup\(|subprocess|os\.system")


def jit_load_sources(text: str) -> list[str] | None:
    """The sources a Python module compiles at run time through torch's JIT `load(name, sources=[...])`
    (https://pytorch.org/docs/stable/cpp_extension.html#torch.utils.cpp_extension.load), when every such call lists
    them as string literals and no other string of the module names a C/C++/CUDA source; None when the module may
    build anything else (load_inline, CuPy/PyCUDA/NVRTC, a setup(), a computed list or a subprocess).
    RWKV-LM-V7's src/model.py: `load(name="rwkv7_clampw", sources=['cuda/rwkv7_clampw.cu', ...])` per kernel, so a
    .cu no load names is compiled by nothing."""
    import ast
    if _OTHER_RUNTIME_BUILD().search(text):
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    out: list[str] = []
    counted: set[int] = set()
    nodes = [tree]
    for node in nodes:  # every node, breadth first
        nodes.extend(ast.iter_child_nodes(node))
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        fn = node.func.id if isinstance(node.func, ast.Name) else \
            node.func.attr if isinstance(node.func, ast.Attribute) else None
        if fn != "load":
            continue
        arg = next((k.value for k in node.keywords if k.arg == "sources"), None)
        if arg is None and len(node.args) >= 2:
            arg = node.args[1]
        if arg is None:
            continue  # json.load(f), pickle.load(f): not a build
        if not isinstance(arg, (ast.List, ast.Tuple)) or not all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in arg.elts):
            return None
        for e in arg.elts:
            out.append(posixpath.normpath(e.value.lstrip("./")) if e.value.startswith("./") else e.value)
            counted.add(id(e))
    for node in nodes:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in counted \
                and _SOURCE_SUFFIX().search(node.value.strip()):
            return None
    return out or None


# A build of its own in a test directory (hornet's xlib/test/Reduce/CMakeLists.txt, xlib/test/PTX2/compile.sh): a
# CMakeLists.txt that declares its own project(), a Makefile, or a shell script that runs nvcc itself. The library's
# build is what a port moves; such a test harness is the team's NVIDIA-side extra (cuda-only), reported, never open.
# A test directory a parent build adds (faiss's `add_subdirectory(test)`, no project() of its own) stays open.
_TEST_DIRS = frozenset({"test", "tests", "unittest", "unittests", "unit_tests"})


def test_builds(files, facts: dict[str, PortFacts], nvcc_scripts: set[str]) -> dict[str, str]:
    """Build file path -> why it is a standalone test build (see above), from the cached facts and the scan's
    findings (`nvcc_scripts`: shell scripts with a finding that they run nvcc), so nothing is read again."""
    out: dict[str, str] = {}
    for path, c in files.items():
        parts = posix_path(path).parts
        at = next((k for k, d in enumerate(parts[:-1]) if d.lower() in _TEST_DIRS), None)
        if at is None or c.language not in ("cmake", "make", "shell"):
            continue
        if c.language == "shell" and path not in nvcc_scripts:
            continue
        # a CMake file that declares a project() of its own is a build of its own (one a parent adds is not)
        if c.language == "cmake" and (parts[-1] != "CMakeLists.txt"
                                      or CMAKE_PROJECT not in facts.get(path, PortFacts()).tested):
            continue
        out[path] = "/".join(parts[: at + 1]) + "/: a test build of its own, not the project's build"
    return out


def _resolve_include(path: str, target: str, files, by_name) -> list[str]:
    local = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    if local in files:
        return [local]
    if target in files:
        return [target]
    name = posix_path(target).name
    return [p for p in by_name.get(name, ()) if p == target or p.endswith("/" + target)]


def _verdicts(k: Kernel, decide, rocm_code: frozenset[str] = frozenset(),
              decide_code=None, gap: frozenset[str] = frozenset()) -> tuple[TargetVerdict, ...] | None:
    """The kernel's verdicts with every check whose lines are all handled removed, and the worst recomputed
    (cuda-only checks stay: they describe the optional work). A check named for a `rocm-code` rule (DEV017: a warp
    size fixed at 64 that the kernel's warp code uses) is about what the ROCm build compiles, so ROCm-side lines do
    not handle it (`decide_code`: PortMap.decide, asked with rocm_code); nor do a fork's own lines handle a check
    named for a `rocm-gap` rule (DEV043), the fork that gives the ROCm build nothing."""
    from porter.kernels.verdicts import worst

    if k.verdicts is None:
        return None
    def handled(check: str, line: int) -> bool:
        # a rocm-code check stays open on ROCm-side lines; elsewhere it is decided as any kernel check is (`decide`:
        # a component counterpart does not handle a kernel's needs), not as a finding would be
        if check in rocm_code and decide_code is not None \
                and decide_code(k.path, line, rocm_code=True)[0] is not Status.HANDLED:
            return False
        if check in gap and decide_code is not None:
            return decide_code(k.path, line, gap=True)[0] is Status.HANDLED
        if decide(k.path, line)[0] is Status.HANDLED:
            return True
        # a helper of another file called on this line, whose WMMA / async-copy names its own file handles (a
        # header's ROCm-side `namespace wmma = rocwmma;`): the check's evidence there is where the helper names them
        called = [h for h in (k.facts.helpers if k.facts else ()) if h.call_line == line]
        return bool(called) and all(h.facts.feature_lines and all(decide(h.path, n)[0] is Status.HANDLED
                                                                   for _, n in h.facts.feature_lines) for h in called)

    out = []
    for v in k.verdicts:
        kept = tuple(d for d in v.details if not d.lines or not all(handled(d.id, ln) for ln in d.lines))
        if len(kept) == len(v.details):
            out.append(v)
        else:
            out.append(dataclasses.replace(v, verdict=worst(d.verdict for d in kept), details=kept))
    return tuple(out)


# Kernel checks whose need is the AMD counterpart of an NVIDIA library: a ROCm counterpart directory named for that
# library is the port. An OptiX program (optix-program) is rewritten on HIP RT, AMD's ray-tracing library for HIP
# (https://gpuopen.com/hiprt/); a project whose OptiX back end has a HIP RT sibling (Blender Cycles'
# kernel/device/optix beside kernel/device/hiprt, https://github.com/blender/cycles/tree/main/src/kernel/device) has
# done that rewrite. A plain `hip/` sibling is not it: it has no ray tracing of its own.
_PORTED_BY_DIR = {"optix-program": frozenset({"hiprt"})}


def _ported_by_counterpart(verdicts: tuple[TargetVerdict, ...], counterpart: str) -> tuple[TargetVerdict, ...]:
    """The verdicts without the checks the component's ROCm counterpart directory (`counterpart`, "dir/") answers
    (_PORTED_BY_DIR), the worst recomputed."""
    from porter.kernels.verdicts import worst

    word = posix_path(counterpart.rstrip("/")).name.lower()
    answered = {c for c, words in _PORTED_BY_DIR.items() if word in words}
    if not answered:
        return verdicts
    out = []
    for v in verdicts:
        kept = tuple(d for d in v.details if d.id not in answered)
        out.append(v if len(kept) == len(v.details) else
                   dataclasses.replace(v, verdict=worst(d.verdict for d in kept), details=kept))
    return tuple(out)


# rules/kb/kernel_checks.yaml: the kernel's ROCm twin is not built for the target's gfx arch
TWIN_ARCH_CHECK = "twin-arch-unbuilt"


# Rules about a data format whose encoding differs between AMD targets (FP8: FNUZ on gfx942, OCP on gfx950 and
# later, rules/quantization/QNT002): a twin written for one target's format is wrong on another's.
FORMAT_TAG = "fp8"


def _twin_unbuilt(verdicts: tuple[TargetVerdict, ...], own: tuple[TargetVerdict, ...], archs: tuple[str, ...],
                  twin: str, format_rules: frozenset[str]) -> tuple[TargetVerdict, ...]:
    """The verdicts of a kernel whose file's ROCm twin (`twin`: where its build names it) is built for `archs`
    only. Widening the arch list is a build setting, so a twin limited to some archs ports the kernel to the others
    too - unless the kernel handles a per-target data format (`format_rules`, FORMAT_TAG: FP8, FNUZ on gfx942 and
    OCP on gfx950+) on that target (`own`: its verdicts before the twin handled its lines): there the twin, written
    for its archs' format, is not the port, and the twin-arch-unbuilt check joins the verdict (worst recomputed)."""
    from porter.kernels.check_table import load_checks
    from porter.kernels.checks import check_verdict
    from porter.kernels.verdicts import worst
    from porter.targets import resolve_targets

    spec = load_checks()[TWIN_ARCH_CHECK]["verdict"]
    out = []
    for v in verdicts:
        profile = resolve_targets([v.target])[0]
        mine = next((o for o in own if o.target == v.target), None)
        if profile.gfx.lower() in archs or mine is None or not any(d.id in format_rules for d in mine.details):
            out.append(v)
            continue
        verdict = check_verdict(spec, profile)
        if verdict == "ok":
            out.append(v)
            continue
        extra = CheckResult(TWIN_ARCH_CHECK, verdict, f"the ROCm twin ({twin}) is built for {', '.join(archs)} only, "
                                                      f"not {profile.gfx}: no ROCm code for this kernel there")
        details = tuple(sorted((*v.details, extra), key=lambda d: d.id))
        out.append(dataclasses.replace(v, verdict=worst(d.verdict for d in details), details=details))
    return tuple(out)


def _rocm_code_open(k: Kernel, rocm_code: frozenset[str]) -> bool:
    """Whether a check or rule about code the ROCm build compiles (`rocm-code`) still says more than ok on a
    target: the kernel is open work even where a ROCm file or arm holds it."""
    return any(d.id in rocm_code and d.verdict != "ok" for v in k.verdicts or () for d in v.details)


def _twinned(path: str, twins: list[str], cuda: list[str]) -> bool:
    """Whether the counterpart directory's kernels of a name (`twins`) stand for the one defined at `path`: always
    when the CUDA component defines the name once; when it defines it in several files (necSpMV's spmv_pcsr.cu and
    its variant spmv_pcsr_warp.cu, one twin spmv_pcsr.cpp), only for the file whose stem a twin has - a mirrored
    directory mirrors files, and the variant's own code has no counterpart."""
    if not twins:
        return False
    if len(set(cuda)) <= 1:
        return True
    stems = {posix_path(p).stem for p in twins}
    return posix_path(path).stem in stems


def decide_kernel(k: Kernel, findings: Iterable[Finding], decide) -> tuple[Status, str | None]:
    """A kernel's status: that of its definition when a build or guard decides it, else handled when it has issues
    and none is open."""
    st, by = decide(k.path, k.line)
    if st is not Status.OPEN:
        return st, by
    spans = [(k.line, k.end_line)] + [(d.line, d.end_line) for d in (k.facts.device_functions if k.facts else ())]
    # Info findings (KRN001: "a kernel is defined here") say a kernel exists, not that it needs work.
    issues = [(f.status, f.handled_by) for f in findings
              if f.path == k.path and f.severity > Severity.INFO and any(a <= f.line <= b for a, b in spans)]
    for v in k.verdicts or ():
        for d in v.details:
            if d.verdict != "ok":
                issues.extend(decide(k.path, ln) for ln in d.lines)
    if issues and all(s is not Status.OPEN for s, _ in issues):
        handled = [i for i in issues if i[0] is Status.HANDLED]
        return (Status.HANDLED, handled[0][1]) if handled else issues[0]
    return Status.OPEN, None


def attach_status(result: ScanResult, settings, source=None, cache=None, digest: bytes = b"",
                  mapped: Any = None) -> ScanResult:
    """The result with every finding's and kernel's status and handled_by set, verdicts counting open work only,
    and `port_status`. `cache` (porter.cache.Cache) keeps each file's facts by content, keyed with
    `digest` (porter's code digest). `mapped`: the budgeted worker's answer to map_call, when the caller ran it."""
    if source is None:
        from pathlib import Path

        from porter.source.read import WorkTree

        source = WorkTree(Path(result.root))
    pm, notice = _budgeted_map(source, settings, result, cache, digest, mapped)
    decide = pm.decide
    rules = result.rules.rules if result.rules is not None else ()
    rocm_code = frozenset(r.id for r in rules if ROCM_CODE_TAG in r.tags)
    gap = frozenset(r.id for r in rules if ROCM_GAP_TAG in r.tags)
    breaks = frozenset(r.id for r in rules if BREAKS_BUILD_TAG in r.tags)
    beyond = frozenset(r.id for r in rules if BEYOND_RENAME_TAG in r.tags)
    from porter.kernels.check_table import rocm_code_checks

    # kernel checks about code only HIP compiles (rules/kb/kernel_checks.yaml `tags`) are not handled by ROCm lines
    check_code = rocm_code | rocm_code_checks()
    format_rules = frozenset(r.id for r in rules if FORMAT_TAG in r.tags)  # _twin_unbuilt
    runner = frozenset(r.id for r in rules if RUNNER_TAG in r.tags) if pm.amd_runner else frozenset()
    findings = tuple(dataclasses.replace(f, status=st, handled_by=by) if st is not Status.OPEN else f
                     for f in result.findings
                     for st, by in [decide(f.path, f.line, f.column, f.end_column if f.end_line == f.line else None,
                                           f.rule in rocm_code, f.rule in gap, f.rule in breaks,
                                           f.rule in beyond)]
                     for st, by in [(Status.HANDLED, pm.amd_runner) if st is Status.OPEN and f.rule in runner
                                    else (st, by)])
    if pm.stem_twins:
        # an API or library spot whose hipified same-stem twin spells the HIP name (PortMap.by_twin)
        findings = tuple(f if f.status is not Status.OPEN or f.category not in _TWIN_CATEGORIES
                         else dataclasses.replace(f, status=Status.HANDLED, handled_by=by) if by else f
                         for f in findings
                         for by in [pm.by_twin(f.path, f.line, f.column, f.end_column if f.end_line == f.line
                                               else None, f.replacement)
                                    if f.status is Status.OPEN and f.category in _TWIN_CATEGORIES else None])
    if pm.script_twins:
        findings = tuple(f if f.status is not Status.OPEN or f.path not in pm.script_twins
                         else dataclasses.replace(f, status=Status.HANDLED, handled_by=by) if by else f
                         for f in findings
                         for by in [script_twin(f, pm.script_twins[f.path])
                                    if f.status is Status.OPEN and f.path in pm.script_twins else None])
    nvidia = frozenset(r.id for r in rules if NVIDIA_BUILD_TAG in r.tags)
    if pm.script_builds:
        findings = tuple(dataclasses.replace(f, status=Status.HANDLED, handled_by=pm.script_builds[f.path])
                         if f.status is Status.OPEN and f.rule in nvidia and f.path in pm.script_builds else f
                         for f in findings)
    if pm.rocm_build.present or pm.rocm_scripts:
        findings = by_rocm_build(findings, nvidia,
                                 frozenset(r.id for r in rules if TOOLKIT_REQUIREMENT_TAG in r.tags),
                                 frozenset(r.id for r in rules if NVIDIA_LAUNCH_TAG in r.tags), pm)
    if pm.off_packages:
        findings = optional_libraries(findings, pm.off_packages)
    if pm.rocm_build.hollow:
        findings = without_rocm_build(findings, nvidia, pm)
    findings = shared_by_counterpart(findings, pm)
    findings = through_project_headers(findings)
    findings = in_uninstantiated_kernels(findings, result.kernels)
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    kernels = []
    unreferenced_kernels = {(f.path, f.kernel): why for f in findings
                            if f.rule == refine_unreferenced.KERNEL_RULE and f.kernel
                            for why in [dict(f.data).get("unused")]
                            if why and why.startswith(refine_unreferenced.UNREFERENCED)}
    kernel_paths: dict[str, list[str]] = {}
    for k in result.kernels:
        kernel_paths.setdefault(k.name, []).append(k.path)
    for k in result.kernels:
        # A kernel of a CUDA component whose ROCm counterpart directory defines a kernel of the same name (libCEED's
        # jit-source/cuda/ beside jit-source/hip/) has its HIP twin there: its checks are handled like its findings.
        fs = pm.file_side.get(k.path)
        twin_dir = fs[2] if fs is not None and fs[0] == COMPONENT and fs[2].endswith("/") else None
        twinned = twin_dir is not None and _twinned(k.path, [p for p in kernel_paths[k.name] if p.startswith(twin_dir)],
                                                   [p for p in kernel_paths[k.name] if not p.startswith(twin_dir)])
        verdicts = _verdicts(k, pm.decide if twinned else pm.decide_verdict, check_code, pm.decide, gap)
        if fs is not None and fs[0] == COMPONENT and verdicts is not None:
            verdicts = _ported_by_counterpart(verdicts, fs[2])
        if fs is not None and fs[0] == UNBUILT and verdicts is not None:
            # no build compiles the kernel: no target has work in it
            verdicts = tuple(dataclasses.replace(v, verdict="ok", details=()) for v in verdicts)
        dead = unreferenced_kernels.get((k.path, k.name)) if k.is_template else None
        if dead is not None and verdicts is not None and not any(
                f.status is Status.OPEN and f.severity > Severity.INFO and k.line <= f.line <= k.end_line
                for f in by_path.get(k.path, ())):
            # nothing the build reaches launches the kernel (porter.match.refine_unreferenced): no target has work
            # in it, as in a file no build compiles
            verdicts = tuple(v if v.verdict == "ok" else dataclasses.replace(v, verdict="ok", details=())
                             for v in verdicts)
        if k.path in pm.twin_archs and verdicts is not None:
            verdicts = _twin_unbuilt(verdicts, k.verdicts or (), pm.twin_archs[k.path], pm.file_side[k.path][2],
                                     format_rules)
        k2 = dataclasses.replace(k, verdicts=verdicts)
        st, by = decide_kernel(k2, by_path.get(k.path, ()), decide)
        if st is Status.OPEN and dead is not None and all(v.verdict == "ok" for v in verdicts or ()):
            st, by = Status.CUDA_ONLY, dead
        if st is Status.HANDLED and (_rocm_code_open(k2, check_code) or _rocm_code_open(k2, frozenset({TWIN_ARCH_CHECK}))):
            # a ROCm file or arm that is itself wrong (a wave size fixed at 64 on wave32, warpSize in a shared
            # extent since ROCm 7.0): the port is not done there (issue 27 class 4)
            st, by = Status.OPEN, None
        kernels.append(dataclasses.replace(k2, status=st, handled_by=by))
    ka = result.kernel_analysis
    if ka is not None:
        ka = _recount(ka, kernels)
    stats = result.stats
    if notice or pm.notes:
        stats = dataclasses.replace(stats, notices=(*stats.notices, *pm.notes, *([notice] if notice else [])))
    return dataclasses.replace(result, findings=findings, kernels=tuple(kernels), kernel_analysis=ka,
                               port_status=summary(findings, kernels, pm.rocm_build), stats=stats)


def by_rocm_build(findings: tuple[Finding, ...], nvidia_build: frozenset[str], requirement: frozenset[str],
                  launch: frozenset[str], pm: PortMap) -> tuple[Finding, ...]:
    """The findings with each open NVIDIA-build line that the repository's ROCm build stands in for made handled,
    by that build's evidence, read per build system rather than per file (RocmBuild.stands_in): a line of a CMake
    file whose CMake project has ROCm evidence (an arm, the HIP language, ROCm's HIP package, hipcc), of a Meson
    file beside Meson evidence, of a Bazel BUILD file whose package has a hipcc rule, of a Dockerfile below a ROCm
    Dockerfile that builds the project, of a CI file beside a ROCm CI job that builds it. What the ROCm build
    leaves out stays open: a CMake project of its own with no ROCm evidence (cuSZ's CUDA-only codec projects), a
    build system the evidence is not in (qsim's Bazel BUILD beside its CMake ROCm build), and every make file,
    shell build script and setup.py, which are run on their own (their own arms, twins and configurations decide
    them, and a Makefile or script that compiles sources the ROCm build does not stays open: uccl's EFA plugin,
    ENCCS's CUDA-only stencil example). Rules tagged `toolkit-requirement` (`enable_language(CUDA)`,
    `find_package(CUDAToolkit)`, Meson's 'cuda') are left to the arms: outside one, the ROCm build runs them too
    and cannot configure without the CUDA toolkit; and in a CMake project that enables the CUDA language outside any
    arm (such a line still open), whose ROCm build then compiles CUDA-language sources too, no CUDA setting is handled
    this way.

    A shell script's NVIDIA launch lines (rules tagged `nvidia-launch`: NVIDIA_VISIBLE_DEVICES, `--gpus`,
    nvidia-smi), and every NVIDIA-build line of a script that launches the project in a container or cluster job,
    are handled by a script in its directory or one above it that runs ROCm's tools or compiler (rocprof,
    rocm-smi, HIP_VISIBLE_DEVICES, hipcc): the NVIDIA box's run beside the AMD one (xkernels' archived DGX docker
    launcher below its rocprof scripts)."""
    # CMake projects that enable the CUDA language outside any arm (an open `project(... CUDA)` or
    # `enable_language(CUDA)`): their ROCm build compiles CUDA-language sources too, so it reads their CUDA settings
    cuda_everywhere = {cmake_project(f.path, pm.cmake_projects) for f in findings
                       if f.status is Status.OPEN and f.rule in requirement and _is_cmake_file(f.path)
                       and _CMAKE_LANGUAGE_ENABLE().search(f.snippet)}

    def by(f: Finding) -> str | None:
        if f.status is not Status.OPEN:
            return None
        if f.rule in nvidia_build and f.rule not in requirement and pm.rocm_build.present and (
                not _is_cmake_file(f.path) or (_cuda_language_only(f, pm)
                                               and cmake_project(f.path, pm.cmake_projects) not in cuda_everywhere)):
            ev = pm.rocm_build.stands_in(f.path, pm.cmake_projects)
            if ev is not None and _reached(f, pm):
                return ev
        if f.rule in launch or (f.rule in nvidia_build and f.path in pm.launchers):
            return _rocm_script_above(f.path, pm.rocm_scripts)
        return None
    return tuple(dataclasses.replace(f, status=Status.HANDLED, handled_by=ev) if ev else f
                 for f in findings for ev in [by(f)])


# A CMake command that enables a language (what a toolkit-requirement finding on it enables is CUDA).
_CMAKE_LANGUAGE_ENABLE = lazy_regex(r"(?i)\b(?:enable_language|project)\s*\(")
# CMake's and PyTorch's variables that only the CUDA language or PyTorch's CUDA build reads (CMAKE_CUDA_FLAGS,
# CMAKE_CUDA_ARCHITECTURES, CMAKE_CUDA_COMPILER, the CUDA_ARCHITECTURES property, FindCUDA's CUDA_NVCC_FLAGS,
# TORCH_CUDA_ARCH_LIST, CUDAARCHS): a HIP-language or hipcc compile never reads them.
_CUDA_LANGUAGE_NAME = lazy_regex(r"\b(?:CMAKE_CUDA_\w+|CUDA_ARCHITECTURES|CUDA_ARCH_LIST|TORCH_CUDA_ARCH_LIST"
                                 r"|CUDA_NVCC_FLAGS|CUDAARCHS|CUDA_SEPARABLE_COMPILATION)\b")


def _cuda_language_only(f: Finding, pm: PortMap) -> bool:
    """Whether a CMake finding configures the CUDA language only: its matched name is one of CMake's CUDA-language
    variables (or PyTorch's CUDA architecture list), or it sits in a command, property or generator expression that
    applies to CUDA-language compiles only (PortMap.language_spans). A raw nvcc flag in any other variable or target
    option, or an nvcc command, may reach a compile the ROCm build runs too (`$<COMPILE_LANGUAGE:CXX,CUDA>`, a
    TOOL_FLAGS variable whose use porter does not follow), so the ROCm build elsewhere does not stand in for it."""
    end = f.end_column if f.end_line == f.line else None
    # the matched name: the snippet is the finding's line, maybe without its indentation, so a CUDA-language name in
    # it as long as the match is taken for it
    if end is not None and any(m.end() - m.start() == end - f.column
                               for m in _CUDA_LANGUAGE_NAME().finditer(f.snippet)):
        return True
    return any((n, a) <= (f.line, f.column) < (m, b) and (end is None or (f.line, end) <= (m, b))
               for n, a, m, b in pm.language_spans.get(f.path, ()))


def _reached(f: Finding, pm: PortMap) -> bool:
    """Whether the project's ROCm build reaches the build unit a CMake line configures (scope.cmake_units): the
    project as a whole (a CUDA variable, a directory's flags) always; a function that creates or configures targets
    only if the ROCm build runs it or it holds a ROCm arm of its own; a target only if a ROCm arm or HIP-language
    line configures that target too (scope.rocm_reach). A ROCm build in the same CMake project does not build every
    target: MRay's OptiX-IR generator (CUDA_ARCHITECTURES, CUDA_SEPARABLE_COMPILATION per compute capability) and
    its TCore test target's CUDA_SEPARABLE_COMPILATION have no ROCm counterpart, so those lines stay open."""
    if not _is_cmake_file(f.path):
        return True
    for first, last, key in pm.cmake_units.get(f.path, ()):
        if first <= f.line <= last:
            kind, _, rest = key.partition(":")
            wanted = [f"target:{t}" for t in rest.split()] if kind == "target" else [key]
            if not all(k in pm.rocm_reach for k in wanted):
                return False
    return True


def _rocm_script_above(path: str, scripts: dict[str, str]) -> str | None:
    """The ROCm script ("path:line") nearest a shell script: in its own directory, else the nearest one above."""
    if not path.endswith((".sh", ".bash")) or not scripts:
        return None
    d = posixpath.dirname(path)
    while True:
        here = [ev for p, ev in sorted(scripts.items()) if p != path and posixpath.dirname(p) == d]
        if here:
            return here[0]
        if not d:
            return None
        d = posixpath.dirname(d)


def without_rocm_build(findings: tuple[Finding, ...], nvidia_build: frozenset[str], pm: PortMap) -> tuple[Finding, ...]:
    """The findings with every NVIDIA-build line (a rule in `nvidia_build`) that an arm of its own build read handled
    made open again where that build names a ROCm build only by hollow arms (RocmBuild.hollow_for: QGEMM's
    `if(USE_CUDA)` arm beside an empty `if(USE_HIP)`): no ROCm build stands in for the NVIDIA build it configures,
    so configuring one is the port's work. What another decision handled (a ROCm twin directory, a runtime branch of
    other code) and a ROCm-side file's own lines are left as they are."""
    def by_own_build(f: Finding) -> bool:
        fs = pm.file_side.get(f.path)
        if (fs is not None and fs[1] == ROCM) or not f.handled_by or not re.search(r":\d+$", f.handled_by):
            return False
        at = f.handled_by.rsplit(":", 1)[0]
        return at == f.path or (_is_cmake_file(at) and _is_cmake_file(f.path))
    return tuple(dataclasses.replace(f, status=Status.OPEN, handled_by=None)
                 if f.rule in nvidia_build and f.status is Status.HANDLED and by_own_build(f)
                 and pm.rocm_build.hollow_for(f.path) else f
                 for f in findings)


def _is_cmake_file(path: str) -> bool:
    name = posix_path(path).name.lower()
    return name.startswith("cmakelists") or name.endswith(".cmake")


def _recount(ka: KernelAnalysisSummary, kernels: list[Kernel]) -> KernelAnalysisSummary:
    """The kernel stage's counts split by port status: `verdicts` the open kernels (what the assessment's kernel
    table lists), `handled` and `cuda_only` the rest, each per target in the stage's verdict order."""
    def counted(status: Status) -> tuple[tuple[str, tuple[tuple[str, int], ...]], ...]:
        counts = {t: {v: 0 for v, _ in c} for t, c in ka.verdicts}
        for k in kernels:
            if k.status is not status:
                continue
            for v in k.verdicts or ():
                if v.target in counts and v.verdict in counts[v.target]:
                    counts[v.target][v.verdict] += 1
        return tuple((t, tuple(c.items())) for t, c in counts.items())

    return dataclasses.replace(ka, verdicts=counted(Status.OPEN), handled=counted(Status.HANDLED),
                               cuda_only=counted(Status.CUDA_ONLY))


def in_uninstantiated_kernels(findings: tuple[Finding, ...], kernels: Iterable[Kernel]) -> tuple[Finding, ...]:
    """Open findings inside a template kernel nothing instantiates (every verdict of it is the never-instantiated
    check: porter.kernels.verdicts.uninstantiated) are cuda-only: neither nvcc nor hip-clang compiles its body, so
    its lines are no port work, shown and never open (nsparse's `__shfl_xor_sync` in hash_symbolic_gl2, whose only
    launch sits in an arm its header's own `#define` rules out), as a file no build compiles is (rule 4b)."""
    from porter.kernels.verdicts import NEVER_INSTANTIATED

    idle: dict[str, list[tuple[int, int, str]]] = {}
    for k in kernels:
        if k.verdicts and all(len(v.details) == 1 and v.details[0].id == NEVER_INSTANTIATED for v in k.verdicts):
            idle.setdefault(k.path, []).append((k.line, k.end_line, k.name))
    if not idle:
        return findings
    out = []
    for f in findings:
        spans = idle.get(f.path) if f.status is Status.OPEN else None
        name = next((n for a, b, n in spans if a <= f.line <= b), None) if spans else None
        if name is not None:
            f = dataclasses.replace(f, status=Status.CUDA_ONLY, handled_by=f"{f.path}: {name} is never instantiated")
        out.append(f)
    return tuple(out)


def through_project_headers(findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
    """Findings whose work lies in a project header they name (data PROJECT_HEADER: LIB014's includer needs that
    header's HIP counterpart) stay open only while the header has open work of its own; a header with none (cholla's
    cuda_utilities.h, portable through the gpu.hpp it includes) already builds for ROCm, so the include is handled
    there. (LIB014 never fires inside a CUDA-named header, so no such finding waits on another.)"""
    open_paths = {f.path for f in findings if f.status is Status.OPEN}
    out = []
    for f in findings:
        header = dict(f.data).get(PROJECT_HEADER) if f.data and f.status is Status.OPEN else None
        if header and header not in open_paths:
            f = dataclasses.replace(f, status=Status.HANDLED, handled_by=f"{header}: no open work in it")
        out.append(f)
    return tuple(out)


def map_call(source, settings, result: ScanResult, cache, digest: bytes) -> tuple[Any, tuple, Any]:
    """The port-status stage's budgeted work as (task, arguments, budget) for porter.budget.run_inherited_all, so a
    caller can run it in the worker of another stage that reads the same result (porter.pipeline.complete: the
    kernel analysis, whose answer build_map does not read); its answer goes to attach_status(..., mapped=)."""
    from porter.budget import Budget, stage_budget

    per_file = Budget(getattr(settings, "file_seconds", 30.0), getattr(settings, "file_memory_mib", 2048) << 20)
    return _map_task, (source, settings, result, cache, digest), stage_budget(per_file, len(result.files))


def _budgeted_map(source, settings, result: ScanResult, cache, digest: bytes,
                  answer: Any = None) -> tuple[PortMap, str | None]:
    """build_map in a budgeted worker (porter.budget: it lexes and parses repository content), the cache entries
    it made adopted here; when it runs out of its budget, a map of the configuration alone (every spot open unless
    a cuda_only glob says otherwise) and a notice saying so. `answer`: the worker's answer when it already ran
    (map_call)."""
    from porter.budget import Overrun, run_inherited

    if answer is None:
        task, args, budget = map_call(source, settings, result, cache, digest)
        answer = run_inherited(task, args, budget)
    if isinstance(answer, Overrun):
        pm = PortMap(cuda_only=tuple(getattr(settings, "cuda_only", ()) or ()),
                     cuda_only_from=tuple(getattr(settings, "cuda_only_from", ()) or ()))
        return pm, (f"port status {answer.reason} to read the repository's guards and build files; every finding "
                    "not in a cuda_only path is shown as open")
    pm, entries = answer
    if cache is not None:
        cache.adopt(entries)
    return pm, None


def _map_task(source, settings, result: ScanResult, cache, digest: bytes) -> tuple[PortMap, dict[str, bytes]]:
    if cache is not None:
        cache.in_worker()
    pm = build_map(source, settings, result, cache, digest)
    return pm, (cache.take() if cache is not None else {})


def summary(findings: Iterable[Finding], kernels: Iterable[Kernel] = (),
            rocm: RocmBuild | None = None) -> PortStatusSummary:
    """Counts by status, how many handled or cuda-only spots each guard, layer, twin or config entry decides, and
    the repository's ROCm build when it has one or only hollow arms of one (`rocm`)."""
    counts = {"open": 0, "handled": 0, "cuda_only": 0}
    by: dict[str, int] = {}
    for f in findings:
        counts[f.status.value.replace("-", "_")] += 1
        if f.handled_by:
            by[f.handled_by] = by.get(f.handled_by, 0) + 1
    kc = {"open": 0, "handled": 0, "cuda_only": 0}
    for k in kernels:
        kc[k.status.value.replace("-", "_")] += 1
    return PortStatusSummary(StatusCounts(**counts), tuple(sorted(by.items())), StatusCounts(**kc),
                             rocm if rocm is not None and (rocm.evidence or rocm.hollow) else None)


def select(result: ScanResult, status: str) -> ScanResult:
    """The result narrowed to findings and kernels of one status ("all": unchanged)."""
    if status == "all":
        return result
    want = Status.parse(status)
    return dataclasses.replace(result, findings=tuple(f for f in result.findings if f.status is want),
                               kernels=tuple(k for k in result.kernels if k.status is want))
