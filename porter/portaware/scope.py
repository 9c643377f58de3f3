"""Decide which files only one vendor's build compiles: by name or place, by the build files, and by configuration.

- By name or place: `.hip` files, `*_hip.*`/`*_rocm.*`/`*-rocm.*` names, and anything under a directory named for
  ROCm (`rocm/`, `hip/`, `ck/`, `ggml-hip/`, `hip_kernels/`) is ROCm-only.
- By CMake: every `if()/elseif()/else()` arm of a CMakeLists.txt or *.cmake is evaluated as a CUDA and a ROCm build
  (ROCm-side variables: names with a HIP/ROCM/AMD component, `STREQUAL "hip"`; in a file that has a ROCm test, names
  with a CUDA component such as `BUILD_CUDA` count as the CUDA build's switch); source files and globs named in an
  arm belong to that arm's side. `enable_language(HIP)` and `LANGUAGE HIP` count as ROCm references.
  A value compared with a vendor (`ARB_GPU STREQUAL "hip"`, `HIP_PLATFORM STREQUAL "nvcc"`) decides too; a
  variable compared with two NVIDIA values is unknown for the CUDA build; a ROCm-named switch whose first arm itself
  chooses the NVIDIA build (hoomd's `ENABLE_HIP`) decides nothing (neutral_switches).
  Names and values with a HIP and an NVIDIA word (`USE_HIP_NVIDIA`, `"hip_nvidia"`) are HIP on NVIDIA: the CUDA
  build's; `"$ENV{NAME}" STREQUAL ""` tests the switch NAME. What only CUDA-language compiles read (a
  `$<$<COMPILE_LANGUAGE:CUDA>:...>` expression over any number of lines, CUDA_SEPARABLE_COMPILATION and its kin:
  cuda_language_spans, cuda_property_spans) and an arm of a CUDA switch that requires the CUDA toolkit (toolkit_arms)
  are the CUDA build's in a repository that builds for ROCm (port status decides when it does).
- By Automake: a Makefile.am whose primaries all sit in one vendor's `if` builds its directory for that vendor only;
  a CUDA component directory with a sibling the ROCm build builds (or one named for ROCm) has a twin component,
  and so has one whose sibling is the same backend in another programming model with ROCm code of its own
  (backend_twins: lc0's `backends/cuda` beside `backends/sycl`).
- By setup.py: string literals naming sources inside a branch on `IS_ROCM`/`torch.version.hip` (porter.portaware.guards).
- By includes: a header included only from ROCm-side lines is ROCm-only; one included only from CUDA-side lines is
  the CUDA side of a guard.
A file that some build arm names for one side only, and no other arm names, is that side's; named on both, shared.
- `cuda_only` globs from configuration keep paths NVIDIA-only by the team's choice.
"""
from __future__ import annotations

import fnmatch
import functools
import itertools
import posixpath
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Iterable, Iterator, Sequence

from porter.lazyre import lazy_regex
from porter.source.cmake_conditions import generator_expressions
from porter.source.discover import HEADER_SUFFIXES
from porter.source.preprocessor import CUDA, ROCM, Tri, side, tri_and, tri_not, tri_or

# A repository path as a PurePosixPath, made once per path: port status asks the same few thousand paths for their
# name, suffix or parts in a dozen passes (24,710 paths made in a cold FasterTransformer scan, ~2% of it under
# cProfile, and again in every re-scan). Paths are immutable, so one object serves every caller.
posix_path = functools.lru_cache(maxsize=16384)(PurePosixPath)


_ROCM_DIR_PARTS = frozenset({"hip", "rocm", "amd", "ck", "hipified", "composable_kernel", "hipkittens"})
_SPLIT = re.compile(r"[-_.]")
SOURCE_SUFFIXES = (".cu", ".cuh", ".hip", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".inl", ".cl", ".py")


def rocm_path_evidence(path: str) -> str | None:
    """Why a path is ROCm-only by its name or place (the file itself, or the ROCm directory ending in "/"), or None."""
    p = posix_path(path)
    parts = p.parts
    for i, d in enumerate(parts[:-1]):
        toks = {t.lower() for t in _SPLIT.split(d) if t}
        if d.lower() in _ROCM_DIR_PARTS or toks & {"hip", "rocm"}:
            return "/".join(parts[: i + 1]) + "/"
    name = p.name
    if name.lower().endswith(".hip"):
        return path
    stem_toks = [t.lower() for t in _SPLIT.split(name) if t]
    if "hip" in stem_toks[:-1] or "rocm" in stem_toks:
        return path
    if name.lower().startswith("dockerfile") and "rocm" in stem_toks:
        return path
    return None


# A build file's ROCm twin beside it: the same name with a ROCm word added (`makefile` / `makefile.hip`,
# `Makefile_rocm`, `build.hip.mk`) or put in place of a CUDA word (`cuda.mk` / `hip.mk`, `FindCUDAThings.cmake` /
# `FindHIPThings.cmake`). GPUMD keeps `src/makefile` for nvcc and `src/makefile.hip` for hipcc.
_TWIN_WORDS = ("hip", "rocm")
_CUDA_WORD = re.compile(r"(?i)cuda")


def build_twin_names(path: str) -> list[str]:
    """The paths `path`'s ROCm twin could have (build_twin's candidates), in the order build_twin tries them."""
    folder, name = posixpath.split(path)
    stem, dot, ext = name.rpartition(".") if "." in name else (name, "", "")
    if not dot:
        stem, ext = name, ""
    suffix = f".{ext}" if ext else ""
    names: list[str] = []
    for w in _TWIN_WORDS:
        for sep in (".", "_", "-"):
            names += [f"{name}{sep}{w}", f"{stem}{sep}{w}{suffix}"]
        if _CUDA_WORD.search(name):
            names += [_CUDA_WORD.sub(lambda m: w.upper() if m.group().isupper() else w, name)]
    return [posixpath.join(folder, n) for n in names]


def build_twin(path: str, files: Iterable[str]) -> str | None:
    """The path of `path`'s ROCm twin among `files` (a build file in the same directory), or None."""
    folder = posixpath.dirname(path)
    by_lower = {f.lower(): f for f in files if posixpath.dirname(f) == folder and f != path}
    for n in build_twin_names(path):
        hit = by_lower.get(n.lower())
        if hit is not None:
            return hit
    return None


# A CUDA source with a ROCm twin beside it: the same stem with a ROCm word added or put in place of a CUDA word, in
# any source suffix (sppark's `ff/mont_t.cuh` / `ff/mont_t.hip`, `kernels_cuda.cu` / `kernels_hip.cpp`,
# `CUDAWrapper.cu` / `HIPWrapper.hip`). The HIP build compiles the twin instead, so the original's spots are handled
# by it. Only a file that is CUDA by its suffix (.cu, .cuh) or by a CUDA word in its name has a twin: a plain
# `utils.h` beside `utils_hip.h` is shared code that may only include the HIP part.
# A Python module pairs the same way with a Python module only (TGI's layers/attention/cuda.py beside rocm.py, one
# imported under `SYSTEM == "cuda"`, the other under `SYSTEM == "rocm"`; vLLM's platforms/cuda.py beside rocm.py),
# its vendor's name read as its platform's (`_nvidia.py` / `_amd.py`).
_SOURCE_SUFFIXES = frozenset({".cu", ".cuh", ".hip", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx",
                              ".inl", ".inc", ".py"})
_CUDA_SOURCE_SUFFIXES = frozenset({".cu", ".cuh"})
_VENDOR_TOKEN = re.compile(r"(?i)(?:^|(?<=[-_.\s]))(cuda|hip|rocm)(?=$|[-_.\s])|(?i:cuda|hip)(?=[A-Z_])|(?<=[a-z])(?:Cuda|CUDA|Hip|HIP)")


def _kind(path: str) -> str:
    suffix = posix_path(path).suffix.lower()
    if suffix == ".py":
        return "python"
    return "hip" if suffix == ".hip" else "header" if suffix in HEADER_SUFFIXES else "source"


def _stem_key(path: PurePosixPath, stem: str) -> tuple[str, bool, bool]:
    """_source_key of a source's stem; a Python module's marked apart (it pairs with Python modules only)."""
    if path.suffix.lower() != ".py":
        return _source_key(stem)
    key, cuda, rocm = _dir_key(stem)
    return "\1" + key, cuda, rocm


def _source_key(name: str) -> tuple[str, bool, bool]:
    """vendor_key of a file name without its suffix."""
    return vendor_key(name)


def vendor_key(name: str, words: tuple[tuple[str, str], ...] = ()) -> tuple[str, bool, bool]:
    """(`name` with its vendor words taken out, lower case; whether it named CUDA; whether it named ROCm): the one
    key by which porter pairs a CUDA thing with its ROCm twin - a source file's stem (`kernels_cuda` /
    `kernels_hip`), a directory's name (`words`: _DIR_WORDS), a CI job's (`build-cuda` / `build-rocm`:
    porter.portaware.runners). `words`: (word, platform word) pairs read as that platform's word first (`nvidia`
    as `cuda`, `rccl` as `hip`), each delimited as the platform words are. The separators next to a vendor word
    are taken out with it, so `build-cuda` and `build_rocm` share a key."""
    if words:
        table = dict(words)
        name = _words_regex(words).sub(lambda m: table[m.group(1).lower()], name)
    cuda = rocm = False

    def drop(m: re.Match) -> str:
        nonlocal cuda, rocm
        word = m.group(0).lower()
        cuda |= word == "cuda"
        rocm |= word in ("hip", "rocm")
        return "\0"

    key = _VENDOR_TOKEN.sub(drop, name)
    return re.sub(r"[-_.\s]*\0[-_.\s]*", "\0", key).lower(), cuda, rocm


@functools.lru_cache(maxsize=8)
def _words_regex(words: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    return re.compile(r"(?i)(?:^|(?<=[-_.\s]))(" + "|".join(sorted((w for w, _ in words), key=len, reverse=True)) +
                      r")(?=$|[-_.\s])")


def source_twins(paths: Iterable[str], plain: bool = False) -> dict[str, str]:
    """CUDA source path -> its ROCm twin in the same folder (see above), for every pair among `paths`. With `plain`,
    instead the pairs whose first file has no CUDA sign (`mhc_types.h` beside `mhc_types_hip.h`): candidates only,
    which same_definitions decides by what the two files hold."""
    by_folder: dict[str, list[str]] = {}
    for p in paths:
        if posix_path(p).suffix.lower() in _SOURCE_SUFFIXES:
            by_folder.setdefault(posixpath.dirname(p), []).append(p)
    out: dict[str, str] = {}
    for folder, names in by_folder.items():
        twins: dict[str, str] = {}
        for p in sorted(names):
            pp = posix_path(p)
            stem = pp.name[: -len(pp.suffix)] if pp.suffix else pp.name
            key, _c, rocm = _stem_key(pp, stem)
            # a `.hip` suffix is the twin of the same stem; a ROCm word in the name, put in place of a CUDA word
            # (`k_cuda.cu` / `k_hip.cpp`) or added (`x.cu` / `x_hip.cpp`), too
            if rocm or pp.suffix.lower() == ".hip":
                twins.setdefault(key, p)
                twins.setdefault(key.replace("\0", ""), p)
                # a ROCm word both in the name and as an inner suffix (SUNDIALS' `sundials_hip_kernels.hip.hpp`
                # beside `sundials_cuda_kernels.cuh`): the inner `.hip` only marks the file, as `.hip` alone would
                twins.setdefault(key.rstrip("\0"), p)
        if not twins:
            continue
        for p in sorted(names):
            pp = posix_path(p)
            if pp.suffix.lower() == ".hip":
                continue
            stem = pp.name[: -len(pp.suffix)] if pp.suffix else pp.name
            key, cuda, rocm = _stem_key(pp, stem)
            if rocm or (plain == (cuda or pp.suffix.lower() in _CUDA_SOURCE_SUFFIXES)):
                continue
            twin = twins.get(key)
            # a header's twin is a header or a `.hip` file, a source's a source or a `.hip` file: `y.cu` beside
            # `y_hip.h` is a kernel file and a header it may include, not two builds of one file
            if twin is not None and twin != p and _kind(twin) in (_kind(p), "hip"):
                out[p] = twin
    if plain:
        return out
    for p, twin in _tree_twins(by_folder).items():
        out.setdefault(p, twin)
    return out


# What a C/C++ file defines, by name: types (struct, class, union, enum, a `using` alias, a typedef), kernels and
# device functions, macros. A ROCm-named file that defines most of what a plain file beside it defines, without
# including it, is the same header kept by hand for the HIP build (mHC.cu's `mhc_types_hip.h` redefines
# `mhc_types.h`'s MHCConfig, RMSNormParams, floatX and CHECK_CUDA over hipBLASLt): the ROCm build includes it
# instead, as it does a `_hip` twin of a `.cuh`. A plain file the twin includes, or one that includes the twin, is
# shared code that picks the HIP part (a `utils.h` holding `#include "utils_hip.h"` under `__HIP__`): no pair.
_DEFINED = lazy_regex(r"\b(?:struct|class|union|enum(?:\s+class)?)\s+(?:__attribute__\s*\(\(.*?\)\)\s*)?(\w+)\s*(?:final\s*)?[{:]"
                      r"|\busing\s+(\w+)\s*="
                      r"|\btypedef\b[^;{}]*?\b(\w+)\s*;"
                      r"|\b__(?:global|device)__\b[^;{}()]*?\b(\w+)\s*\("
                      r"|^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)
_INCLUDED = lazy_regex(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)


def defined_names(text: str) -> frozenset[str]:
    """The names a C/C++ file's text defines (see _DEFINED)."""
    return frozenset(next(g for g in m.groups() if g) for m in _DEFINED().finditer(text))


def same_definitions(path: str, text: str, twin: str, twin_text: str) -> bool:
    """Whether `twin` (a ROCm-named file beside `path`) is `path` kept again for the HIP build: neither includes the
    other, and the twin defines at least half of what `path` defines (two names at least)."""
    if posixpath.basename(twin) in {posixpath.basename(i) for i in _INCLUDED().findall(text)} or \
            posixpath.basename(path) in {posixpath.basename(i) for i in _INCLUDED().findall(twin_text)}:
        return False
    mine = defined_names(text)
    shared = mine & defined_names(twin_text)
    return len(shared) >= 2 and 2 * len(shared) >= len(mine)


# A twin in a sibling tree: the CUDA and ROCm builds keep parallel folders whose names, like the files', differ only
# by the vendor or its library's prefix (PETSc's `seqcusparse/aijcusparse.cu` beside
# `seqhipsparse/aijhipsparse.hip.cxx`, `seqcuda/sellcuda.cu` beside `seqhip/sellhip.hip.cxx`, each folder's makefile
# built for one package). The words are read inside a name too (`aijcusparse`), which a same-folder pair does not need:
# both paths must exist and match word for word once the vendor words are gone, so a stray `hip` in `ship` pairs with
# nothing. The library prefixes are the CUDA math libraries' and their HIP/ROCm ports' (`cusparse` / `hipsparse` /
# `rocsparse`: https://rocm.docs.amd.com/en/latest/reference/api-libraries.html).
_TREE_LIBS = r"(?:sparse|blas|blaslt|fft|rand|solver)"
_TREE_CUDA = re.compile(r"cuda|cu(?=" + _TREE_LIBS + ")")
_TREE_ROCM = re.compile(r"hip|rocm|roc(?=" + _TREE_LIBS + ")")
_TREE_SUFFIXES = frozenset(_SOURCE_SUFFIXES - {".py"})
_TREE_FIRM = re.compile(r"\.hip(?:\.\w+)?$|(?:hip|roc)" + _TREE_LIBS)


def _tree_key(path: str) -> tuple[tuple[str, ...], bool, bool] | None:
    """(each folder and the stem with vendor words and separators taken out, lower case; whether a CUDA word went;
    whether a ROCm word went) of a C/C++ source path, or None for other files."""
    pp = posix_path(path)
    suffix = pp.suffix.lower()
    if suffix not in _TREE_SUFFIXES:
        return None
    parts = [*pp.parts[:-1], pp.name[: -len(pp.suffix)]]
    cuda = suffix in _CUDA_SOURCE_SUFFIXES
    rocm = suffix == ".hip"
    key = []
    for part in parts:
        low = part.lower()
        c, r = _TREE_CUDA.search(low) is not None, _TREE_ROCM.search(low) is not None
        cuda |= c
        rocm |= r
        key.append(re.sub(r"[-_.]", "", _TREE_ROCM.sub("", _TREE_CUDA.sub("", low))))
    return tuple(key), cuda, rocm


def _vendor_folders_only(a: str, b: str) -> bool:
    """Whether the folders two paths differ in are each named for a vendor alone (`cuda` / `hip`)."""
    da, db = posix_path(a).parts[:-1], posix_path(b).parts[:-1]
    diff = [(x.lower(), y.lower()) for x, y in zip(da, db) if x != y]
    words = {"cuda", "hip", "rocm", "nvidia", "amd"}
    return bool(diff) and all(x in words and y in words for x, y in diff)


def _tree_twins(by_folder: dict[str, list[str]]) -> dict[str, str]:
    """CUDA source -> its ROCm twin in a parallel folder (see above), for pairs in different folders."""
    rocm_files: dict[tuple[tuple[str, ...], str], list[str]] = {}
    cuda_files: list[tuple[str, tuple[str, ...]]] = []
    for names in by_folder.values():
        for p in names:
            k = _tree_key(p)
            if k is None or k[1] == k[2]:  # no vendor word, or both (a ROCm file named after the CUDA API)
                continue
            if k[2]:
                # a ROCm word run into a name pairs only beside a firmer sign: a `.hip` suffix (`x.hip.cxx`), a
                # ROCm library's name (`hipsparse`), or a ROCm word of its own (`hip/`, `_hip`): `ship/a.cpp` is
                # no twin of `scuda/a.cu`
                if not (_TREE_FIRM.search(p.lower()) or rocm_path_evidence(p)):
                    continue
                rocm_files.setdefault((k[0], _kind(p)), []).append(p)
            else:
                cuda_files.append((p, k[0]))
    out: dict[str, str] = {}
    if not rocm_files:
        return out
    for p, key in sorted(cuda_files):
        homes = rocm_files.get((key, _kind(p)), []) + rocm_files.get((key, "hip"), [])
        homes = [h for h in homes if posixpath.dirname(h) != posixpath.dirname(p)]
        # folders named for the vendor alone (`jit/cuda/` beside `jit/hip/`) are component twins: their kernels
        # keep their own verdicts unless the sibling defines them (porter.portaware.status), so no file pairs there
        homes = [h for h in homes if not _vendor_folders_only(p, h)]
        if homes:
            out[p] = min(homes)
    return out


# A Makefile's CUDA-named variable or rule with a ROCm twin in the same file (qsim: PYBINDFLAGS_CUDA beside
# PYBINDFLAGS_HIP, pybind-cuda: beside pybind-hip:, NVCC beside HIPCC): the file builds for either vendor.
_MAKE_ASSIGN = re.compile(r"^(?:export\s+|override\s+)?([A-Za-z_][\w.-]*)\s*(?:::=|:=|\+=|\?=|!=|=)")
_MAKE_RULE = re.compile(r"^([A-Za-z0-9_.\-/]+)\s*:(?!=)")
# The word may run into the rest of a name (libCEED's NVCCFLAGS beside HIPCCFLAGS, CUDAFLAGS beside HIPFLAGS).
_MAKE_WORDS = re.compile(r"(?i)(?<![a-z])(cuda|nvcc)")
_MAKE_TWINS = {"cuda": ("hip", "rocm"), "nvcc": ("hipcc",)}


def make_twin_regions(text: str) -> list[tuple[int, int, str, int]]:
    """(first line, last line, "cuda", twin's line) for each CUDA-named variable assignment or rule (its recipe
    included) whose ROCm twin - the same name with HIP/ROCM (HIPCC for NVCC) in place of CUDA (NVCC) - the file
    also defines."""
    lines = text.split("\n")
    defined: dict[str, int] = {}
    spans: list[tuple[str, int, int]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        start = i
        while lines[i].endswith("\\") and i + 1 < len(lines):
            i += 1
        m = _MAKE_ASSIGN.match(line)
        r = None if m or line.startswith(("\t", ".")) else _MAKE_RULE.match(line)
        if r is not None:
            while i + 1 < len(lines) and (lines[i + 1].startswith("\t") or lines[i + 1].endswith("\\")):
                i += 1
        name = m.group(1) if m else r.group(1) if r else None
        if name is not None:
            defined.setdefault(name.lower(), start + 1)
            spans.append((name, start + 1, i + 1))
        i += 1
    out = []
    for name, a, b in spans:
        words = _MAKE_WORDS.findall(name)
        if not words:
            continue
        for twin_word in _MAKE_TWINS[words[0].lower()]:
            twin = _MAKE_WORDS.sub(twin_word, name, count=1).lower()
            if twin in defined:
                out.append((a, b, CUDA, defined[twin]))
                break
    return out


# A CMake `set()` / `list(APPEND)` / `string(APPEND)` of a CUDA-named variable whose ROCm twin the same file names
# (RAJAPerf's top-level `set(CUDA_NVCC_FLAGS ${RAJA_NVCC_FLAGS})` beside `${HIP_HIPCC_FLAGS}` in its HIP arm;
# `CMAKE_CUDA_ARCHITECTURES` beside `CMAKE_HIP_ARCHITECTURES`): a variable only CUDA tooling reads, so the HIP build
# ignores it and reads the twin instead. Every CUDA word is put in its twin's place (`CUDA_NVCC_FLAGS` ->
# `HIP_HIPCC_FLAGS`), or only the first.
_CM_SETTERS = frozenset({"set", "list", "string"})


def cmake_twin_variables(text: str, cmds: list[CMakeCommand] | None = None) -> list[tuple[int, int, str, int]]:
    """(first line, last line, "cuda", line naming the twin) of each command setting a CUDA-named variable whose
    ROCm-named twin (see above) the file also names. `cmds`: the file's cmake_commands when the caller has them."""
    if not _MAKE_WORDS.search(text) or not re.search(r"(?i)hip|rocm", text):
        return []
    out = []
    for c in cmds if cmds is not None else cmake_commands(text):
        if c.name not in _CM_SETTERS or not c.args:
            continue
        name = c.args[0] if c.name == "set" else c.args[1] if len(c.args) > 1 and c.args[0].upper() in (
            "APPEND", "PREPEND") else None
        if not name or not re.fullmatch(r"\w+", name) or not _MAKE_WORDS.search(name):
            continue
        words = _MAKE_WORDS.findall(name)
        candidates = []
        for twin_word in _MAKE_TWINS[words[0].lower()]:
            candidates.append(_MAKE_WORDS.sub(lambda m: _cm_twin_word(m.group(1), twin_word), name, count=1))
        for pick in range(len(_MAKE_TWINS["cuda"])):
            candidates.append(_MAKE_WORDS.sub(lambda m: _cm_twin_word(m.group(1), _MAKE_TWINS[m.group(1).lower()][
                min(pick, len(_MAKE_TWINS[m.group(1).lower()]) - 1)]), name))
        for twin in dict.fromkeys(candidates):
            m = re.search(r"(?<![\w])" + re.escape(twin) + r"(?!\w)", text)
            if twin != name and m is not None:
                out.append((c.line, c.end_line or c.line, CUDA, text.count("\n", 0, m.start()) + 1))
                break
    return out


# A variable only NVIDIA's compiler reads: nvcc's flag lists in make (`NVCCFLAGS`, `NVCC_FLAGS`; Automake's `.cu`
# rules pass NVCCFLAGS to nvcc alone) and in CMake (FindCUDA's `CUDA_NVCC_FLAGS`, the CUDA language's
# `CMAKE_CUDA_FLAGS`: https://cmake.org/cmake/help/latest/variable/CMAKE_LANG_FLAGS.html). hipcc and CMake's HIP
# language read their own (`HIPCCFLAGS`, `HIP_HIPCC_FLAGS`, `CMAKE_HIP_FLAGS`), so in a repository that already
# builds for ROCm, setting one of these is the CUDA build's business: the port's flags are in the ROCm build.
# Every make variable named for nvcc that holds its options, not the compiler itself: `NVCCFLAGS`, `NVCC_FLAGS`,
# pixeltrack's `NVCC_COMMON` and `LDFLAGS_NVCC`, `EIGEN_NVCC_CXXFLAGS`, `NVCC_OPTS`; a name built in a `define`
# template (`$(2)NVCC_FLAGS`, read with its `$(...)` parts left out) too. The compiler variable (`NVCC := nvcc`,
# `CUDA_NVCC`) is the build's choice of compiler, not its flags: it is the CUDA build's only where the same Makefile
# has a ROCm toolchain (make_toolchain_regions).
# Meson spells its variables in lower case (lc0's `nvcc_arguments += ['-Xcompiler', '-fPIC']`,
# `nvcc_extra_args += '-gencode=...'`, the argument lists of its nvcc custom_target): read alike.
_NVCC_FLAG_VAR = re.compile(r"\w*NVCC_?(?:FLAGS|COMMON|OPTS|OPTIONS|ARGS|ARGUMENTS)\w*|\w+_NVCC_\w*FLAGS\w*"
                            r"|\w*FLAGS_NVCC\w*|CMAKE_CUDA_FLAGS\w*"
                            r"|\w*nvcc_(?:\w+_)?(?:flags|opts|options|args|arguments)\w*")
_CM_SET_HEAD = re.compile(r"^\s*(?:set|list\s*\(\s*(?:APPEND|PREPEND)|string\s*\(\s*APPEND)\s*\(?\s*(\w+)", re.I)
_MK_SET_HEAD = re.compile(r"^\s*(?:export\s+|override\s+)?((?:\w|\$[({]\w*[)}])+)\s*(?:::=|:=|\+=|\?=|=)")
# The `$(x)` / `${x}` parts of a make variable's name (a `define` template's `$(2)NVCC_FLAGS`, evaluated per call).
_MK_NAME_REF = re.compile(r"\$[({]\w*[)}]")


def nvcc_flag_assignments(text: str) -> list[tuple[int, int]]:
    """(first line, last line) of each assignment to an nvcc-only flag variable (see above) in a CMake file,
    Makefile or Meson file (`name += [...]`, read as make's `+=`), continuation lines included. None at all when the file feeds such a variable to a ROCm-named line
    (`set(HIP_HIPCC_FLAGS ${CUDA_NVCC_FLAGS})`): there the ROCm build reads it too."""
    if not _NVCC_FLAG_VAR.search(text):
        return []
    lines = text.split("\n")
    names: set[str] = set()
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        start = i
        m = _CM_SET_HEAD.match(lines[i]) or _MK_SET_HEAD.match(lines[i])
        if m is not None and lines[i].lstrip()[:1] != "#":
            # the command runs to its closing parenthesis (CMake) or its last `\`-continued line (make)
            depth = lines[i].count("(") - lines[i].count(")")
            cmake = m.re is _CM_SET_HEAD
            while i + 1 < len(lines) and (depth > 0 if cmake else lines[i].endswith("\\")):
                i += 1
                depth += lines[i].count("(") - lines[i].count(")")
            name = _MK_NAME_REF.sub("", m.group(1))
            if name and _NVCC_FLAG_VAR.fullmatch(name):
                names.add(name)
                out.append((start + 1, i + 1))
        i += 1
    for line in lines:
        if re.search(r"(?i)hip|rocm", line) and any(re.search(r"(?<!\w)" + re.escape(n) + r"(?!\w)", line) for n in names):
            return []
    return out


# A Meson line that builds for ROCm: a lookup of the HIP runtime or a ROCm library, the ROCm compiler, or HIP's
# platform macro passed to the compiler (`cc.find_library('amdhip64', ...)`, `dependency('hip')`,
# `add_project_arguments('-D__HIP_PLATFORM_AMD__', ...)`). A comment is no such line.
_MESON_ROCM = re.compile(r"(?:find_library|dependency)\s*\(\s*'(?:amdhip64|hip|hip-lang|hipblas\w*|rocblas|rocm\w*|"
                         r"miopen|rccl|hipfft|rocfft|hiprand|rocrand|hipsparse|rocsparse)'|__HIP_PLATFORM_AMD__|\bhipcc\b")


def meson_rocm_line(path: str, text: str) -> str | None:
    """"path:line" of the first line of a Meson file that builds for ROCm (_MESON_ROCM), or None."""
    for n, line in enumerate(text.split("\n"), 1):
        if _MESON_ROCM.search(_meson_code(line)):
            return f"{path}:{n}"
    return None


def make_logical_lines(text: str) -> Iterator[tuple[int, int, str]]:
    """(first line, last line, text) of each logical line of a Makefile: a line ending in a backslash goes on in the
    next, the backslash and newline read as one space
    (https://www.gnu.org/software/make/manual/html_node/Splitting-Lines.html)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        start, line = i, lines[i]
        while lines[i].endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line[:-1] + " " + lines[i]
        i += 1
        yield start + 1, i, line


# A Makefile that builds with both vendors' toolchains (gpu-benches' `cuda-$(NAME)` rule running `$(NVCC)` beside its
# `hip-$(NAME)` rule running hipcc on the hipified source; pixeltrack's CUDA section with `CUDA_NVCC` beside its ROCm
# section with `ROCM_HIPCC`): what the ROCm toolchain is - a recipe or a variable that runs hipcc, hipify or
# amdclang++, or passes `--offload-arch` (https://rocm.docs.amd.com/projects/HIP/en/latest/understand/compilers.html).
_MK_ROCM_TOOL = re.compile(r"(?<![\w-])(?:hipcc|hipify-perl|hipify-clang|amdclang\+\+)(?![\w-])|--offload-arch\b")
_MK_NVCC = re.compile(r"(?<![\w-])nvcc(?![\w-])")
# A variable reference, `$(NAME)`, `${NAME}` or a template's `$$(NAME)`, with its name's own `$(x)` parts.
_MK_REF = re.compile(r"\$+[({]((?:\$[({]\w*[)}])*[A-Za-z_][\w.-]*(?:\$[({]\w*[)}][\w.-]*)*)[)}]")
_MK_ROCM_NAME = re.compile(r"(?i)(?<![a-z])(?:hip|rocm|amd)")
# Variables make's built-in rules read (https://www.gnu.org/software/make/manual/html_node/Implicit-Variables.html):
# a rule without a recipe may be built by one, so they are read where the file cannot show it.
_MK_IMPLICIT_VARS = frozenset({"CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LDLIBS", "LOADLIBES", "TARGET_ARCH"})


def make_toolchain_regions(text: str) -> list[tuple[int, int, str, int]]:
    """(first line, last line, "cuda", ROCm toolchain's line) of each variable assignment of a Makefile with a ROCm
    toolchain (above) that only its CUDA toolchain reads: a variable named for nvcc or CUDA (`NVCC := nvcc`,
    `CUDA_NVCC`, `CUDA_LDFLAGS`), or one every reference to which is in the recipe of a rule running nvcc or in
    another such variable (gpu-benches' `LDFLAGS := ... -lcuda -lnvidia-ml`, read only by `$(NVCC) ... $(LDFLAGS)`),
    and never one the ROCm side reads (a rule running the ROCm toolchain, a ROCm-named or hipcc-valued variable, down
    the chain of references: pixeltrack's `HIPCC_LDFLAGS := $(LDFLAGS)` keeps LDFLAGS shared). The ROCm build never
    reads them: the port of that part is the ROCm toolchain already there. A Makefile without one (a CUDA-only
    benchmark beside the dual ones) gets nothing: its build is work still to do."""
    if not _MK_NVCC.search(text) or not _MK_ROCM_TOOL.search(text):
        return []
    lines = text.split("\n")
    assigns: list[tuple[str, int, int, str, bool]] = []  # (name, first, last, value, exported)
    rules: list[list[str]] = []  # each rule's recipe lines
    rule_spans: list[list[int]] = []  # each rule's first and last line (its recipe included)
    other: list[str] = []  # rule lines, conditionals, includes: references neither side owns
    exported_all = recipeless = False
    in_rule = False
    for first, i, logical in make_logical_lines(text):
        if logical.startswith("\t") and in_rule:
            rules[-1].append(logical)
            rule_spans[-1][1] = i
            continue
        stripped = logical.strip()
        if not stripped or stripped.startswith("#"):
            continue
        m = _MK_SET_HEAD.match(logical)
        if m is not None:
            assigns.append((_MK_NAME_REF.sub("", m.group(1)), first, i, logical[m.end():],
                            stripped.startswith("export")))
            continue
        exported_all = exported_all or stripped == "export"
        r = _MAKE_RULE.match(logical) or re.match(r"^\S[^=]*?[^:=]:(?![:=])", logical)
        in_rule = r is not None
        if in_rule:
            rules.append([])
            rule_spans.append([first, i])
            # a rule (other than a special target) with no recipe may be built by an implicit rule
            recipeless = recipeless or (not logical.startswith(".") and not (i < len(lines) and lines[i].startswith("\t")))
        other.append(logical)
    names = {a[0] for a in assigns}
    values: dict[str, list[str]] = {}
    for name, _a, _b, value, _e in assigns:
        values.setdefault(name, []).append(value)

    def refs(line: str) -> set[str]:
        return {_MK_NAME_REF.sub("", n) for n in _MK_REF.findall(line)} & names

    rocm_vars = {n for n, vs in values.items() if _MK_ROCM_NAME.search(n) or any(_MK_ROCM_TOOL.search(v) for v in vs)}
    nvcc_vars = {n for n, vs in values.items() if n not in rocm_vars and
                 ("nvcc" in n.lower() or any(_MK_NVCC.search(v) for v in vs))}
    rocm_rules = [r for r in rules if any(_MK_ROCM_TOOL.search(ln) or refs(ln) & rocm_vars for ln in r)]
    cuda_rules = [r for r in rules if r not in rocm_rules and any(_MK_NVCC.search(ln) or refs(ln) & nvcc_vars for ln in r)]
    if not rocm_rules and not any(_MK_ROCM_TOOL.search(v) for vs in values.values() for v in vs):
        return []  # hipcc named only in a comment or a message
    # what the ROCm side reads, down the chain of references
    rocm_read = set().union(*(refs(ln) for r in rocm_rules for ln in r)) | rocm_vars
    todo = list(rocm_read)
    while todo:
        for v in values.get(todo.pop(), ()):
            for n in refs(v) - rocm_read:
                rocm_read.add(n)
                todo.append(n)
    exported = {n for n, _a, _b, _v, e in assigns if e}
    cuda_vars = {n for n in names - rocm_read if _MAKE_WORDS.search(n)}
    # who reads each variable: "" a CUDA rule's recipe, a name another variable's value, None anything else
    readers: dict[str, list[str | None]] = {}
    for r in rules:
        for ln in r:
            for n in refs(ln):
                readers.setdefault(n, []).append("" if any(r is c for c in cuda_rules) else None)
    for ln in other:
        for n in refs(ln):
            readers.setdefault(n, []).append(None)
    for name, _a, _b, value, _e in assigns:
        for n in refs(value) - {name}:
            readers.setdefault(n, []).append(name)
    changed = True
    while changed:
        changed = False
        for n in sorted(names - cuda_vars - rocm_read):
            if n in exported or exported_all or (recipeless and n in _MK_IMPLICIT_VARS):
                continue  # a sub-make or a built-in rule may read it
            got = readers.get(n)
            if got and all(x == "" or (x is not None and x in cuda_vars) for x in got):
                cuda_vars.add(n)
                changed = True
    evidence = next((k + 1 for k, ln in enumerate(lines) if _MK_ROCM_TOOL.search(ln) and not ln.lstrip().startswith("#")), 0)
    if not evidence:
        return []
    # and each rule whose recipe runs nvcc and never the ROCm toolchain (f5c's `$(NVCC) -x cu ... -rdc=true` rules
    # beside its `$(HIPCC) -x hip ... -fgpu-rdc` ones; Vship's `buildcuda:` running nvcc beside `build:` running
    # hipcc): the CUDA build's own rule, whose nvcc spellings the ROCm build never reads
    cuda_rule_spans = [(a, b, CUDA, evidence) for r, (a, b) in zip(rules, rule_spans) if any(r is c for c in cuda_rules)]
    return [(a, b, CUDA, evidence) for n, a, b, _v, _e in assigns if n in cuda_vars] + cuda_rule_spans


# A make configuration fragment (`config/unix-hipcc.mk`) is one of several alternatives a project keeps side by side,
# one per machine or compiler, of which the user copies or includes one (ludwig's config/*.mk: `unix-nvcc-default.mk`
# sets `CC = nvcc`, `unix-hipcc.mk` sets `CC = hipcc`). One that sets a variable to the ROCm toolchain (hipcc,
# amdclang++, `-x hip`, `--offload-arch`) and names no NVIDIA target (nvcc, `sm_XX`/`compute_XX`, HIP's NVIDIA
# platform) is the ROCm build's configuration: its siblings' nvcc settings are the CUDA build's, handled by it.
_MK_ROCM_VALUE = re.compile(r"(?<![\w-])(?:hipcc|amdclang\+\+|amdclang)(?![\w-])|--offload-arch\b|(?<![\w-])-x\s+hip\b")
_MK_NVIDIA_TARGET = re.compile(r"(?<![\w-])nvcc(?![\w-])|\b(?:sm|compute)_\d|HIP_PLATFORM_NV|(?i:nvidia)")


def make_rocm_configuration(text: str) -> bool:
    """Whether a make fragment is a ROCm build configuration (above): some variable assignment's value (outside
    comments) selects the ROCm toolchain, and nothing outside comments names an NVIDIA target."""
    rocm = False
    for _first, _last, logical in make_logical_lines(text):
        code = logical.split("#", 1)[0]
        if _MK_NVIDIA_TARGET.search(code):
            return False
        m = _MK_SET_HEAD.match(code)
        if m is not None and _MK_ROCM_VALUE.search(code[m.end():]):
            rocm = True
    return rocm


# A CMake function or macro named for the NVIDIA build whose ROCm twin the same file defines (QMCPACK's
# `verifyNVIDIAGPUconsistency` beside `verifyAMDGPUconsistency`, each called from its vendor's arm): its body runs only
# where the CUDA build calls it, and the ROCm build calls the twin. The vendor word is read at a word start in either
# case (`NVIDIA`, `Nvidia`, `CUDA`, `Cuda`, `cuda`, `nvcc`), its twins the ROCm spellings in the same case.
_CM_FUNCTION_WORD = re.compile(r"(?:^|(?<=_)|(?<=[a-z0-9])(?=[A-Z]))(NVIDIA|Nvidia|nvidia|CUDA|Cuda|cuda)")
_CM_FUNCTION_TWINS = {"nvidia": ("amd", "hip", "rocm"), "cuda": ("hip", "rocm", "amd")}


def _cm_function_bodies(cmds: list[CMakeCommand]) -> list[tuple[str, int, int]]:
    """(name as written, first line, last line) of each function()/macro() definition, in the order they close."""
    bodies: list[tuple[str, int, int]] = []
    open_at: list[tuple[str, int]] = []
    for c in cmds:
        if c.name in ("function", "macro") and c.args:
            open_at.append((c.args[0], c.line))
        elif c.name in ("endfunction", "endmacro") and open_at:
            name, start = open_at.pop()
            bodies.append((name, start, c.end_line or c.line))
    return bodies


def cmake_twin_functions(cmds: list[CMakeCommand]) -> list[tuple[int, int, str, int]]:
    """(first line, last line, "cuda", the twin's definition line) of each function()/macro() body named for the
    NVIDIA build whose ROCm-named twin (see above) the same file defines."""
    defined: dict[str, int] = {}
    for c in cmds:
        if c.name in ("function", "macro") and c.args:
            defined.setdefault(c.args[0].lower(), c.line)
    out = []
    for name, start, end in _cm_function_bodies(cmds):
        for m in _CM_FUNCTION_WORD.finditer(name):
            word = m.group(1)
            twins = [name[:m.start(1)] + _cm_twin_word(word, t) + name[m.end(1):]
                     for t in _CM_FUNCTION_TWINS[word.lower()]]
            at = next((defined[t.lower()] for t in twins if t.lower() in defined), None)
            if at is not None:
                out.append((start, end, CUDA, at))
                break
    return out


def _cm_twin_word(word: str, twin: str) -> str:
    """`twin` in `word`'s case (CMake variables are case-sensitive)."""
    return twin.upper() if word.isupper() else twin.capitalize() if word[:1].isupper() else twin


# GNU make conditionals (https://www.gnu.org/software/make/manual/html_node/Conditional-Syntax.html), indented or not;
# `else ifeq (...)` continues the group. A recipe line (tab first) is never one.
_MAKE_COND = re.compile(r"^ *(?:(else)\s*)?(ifeq|ifneq|ifdef|ifndef)?\s*(.*)$")
_MAKE_ROCM_WORDS = frozenset({"hip", "rocm", "amd", "hipcc", "amdgpu"})
_MAKE_CUDA_WORDS = frozenset({"cuda", "nvcc", "nvidia"})
_MAKE_OFF = frozenset({"", "0", "no", "false", "off", "n"})


# A switch whose name runs a vendor word into another (cholla's `ifdef HIPCONFIG`, `CUDAROOT`): the word leads it.
_MAKE_ROCM_LEAD = ("hip", "rocm")
_MAKE_CUDA_LEAD = ("cuda", "nvcc")


def make_conditional(line: str) -> tuple[bool, str, str] | None:
    """A GNU make conditional line as (opens an `else` arm, its word, its argument): `ifeq ($(X),1)` gives (False,
    "ifeq", "($(X),1)"), `else ifdef Y` (True, "ifdef", "Y"), `else` (True, "", ""), `endif` (False, "endif", "");
    any other line, and a recipe line (tab-led), None
    (https://www.gnu.org/software/make/manual/html_node/Conditional-Syntax.html)."""
    if line.startswith("\t"):
        return None
    m = _MAKE_COND.match(line)
    if m is None:
        return None
    if m.group(2):
        return bool(m.group(1)), m.group(2), m.group(3).strip()
    rest = m.group(3).strip()
    if m.group(1) and (not rest or rest.startswith("#")):
        return True, "", ""
    if not m.group(1) and re.match(r"endif\b", rest):
        return False, "endif", ""
    return None


def _make_word_side(word: str) -> str | None:
    parts = {p for p in re.split(r"[_\W]+", word.lower()) if p}
    if parts & _MAKE_ROCM_WORDS or any(p.startswith(_MAKE_ROCM_LEAD) for p in parts):
        return ROCM
    return CUDA if parts & _MAKE_CUDA_WORDS or any(p.startswith(_MAKE_CUDA_LEAD) for p in parts) else None


# _make_test's answer for a test of whether a vendor-named variable is empty: `ifneq ($(CUDA_LIB_DIR),)` is false
# in the ROCm build (nothing sets the CUDA variable there) and undecided in the CUDA build (a user may leave it
# empty), so its arm is the CUDA build's; `ifeq ($(CUDA_ARCH),)` is true in the ROCm build and undecided in the CUDA
# one, so only its `else` is. As (cuda, rocm) truth values, keyed by (the variable's side, whether "set" is tested).
_MAKE_SET_TESTS: dict[tuple[str, bool], tuple[Tri, Tri]] = {
    (CUDA, True): (None, False), (CUDA, False): (None, True), (ROCM, True): (False, None), (ROCM, False): (True, None)}


def _make_test(kind: str, arg: str) -> str | tuple[Tri, Tri] | None:
    """The build a make conditional says it is true in ("cuda", "rocm") or None: `ifeq ($(BACKEND),hip)` (a vendor
    word compared), `ifeq ($(USE_HIP),1)` / `ifdef USE_ROCM` (a vendor-named switch set); ifneq / ifndef flip it.
    A vendor-named variable compared with the empty string (libCEED's `ifneq ($(CUDA_LIB_DIR),)` beside `ifneq
    ($(HIP_LIB_DIR),)`) gives its (cuda, rocm) truth values instead (_MAKE_SET_TESTS)."""
    if kind in ("ifdef", "ifndef"):
        s = _make_word_side(arg.strip())
    else:
        body = arg.strip()
        if body.startswith("(") and body.endswith(")"):
            # (an operand may be quoted in the parentheses too: gpu-burn's `ifneq ("$(wildcard /usr/bin/nvcc)","")`)
            operands = [o.strip().strip("\"'") for o in body[1:-1].split(",", 1)]
        else:
            operands = [o.strip().strip("\"'") for o in re.findall(r"\"[^\"]*\"|'[^']*'", body)]
        literals = [o for o in operands if "$" not in o]
        variables = [o for o in operands if "$" in o]
        s = next((x for x in (_make_word_side(o) for o in literals) if x), None)
        if s is None and variables and all(o.lower() not in _MAKE_OFF for o in literals) and literals:
            s = next((x for x in (_make_word_side(re.sub(r"[$(){}]", " ", v)) for v in variables) if x), None)
        if s is None and len(variables) == 1 and literals == [""]:
            # `$(CUDA_DIR)` alone, not a function of it (`$(wildcard $(MAGMA_DIR)/...)`, `$(filter cuda,...)`)
            plain = re.fullmatch(r"\$[({]([A-Za-z_][\w.-]*)[)}]", variables[0])
            v = _make_word_side(plain.group(1)) if plain else None
            if v is not None:
                return _MAKE_SET_TESTS[(v, kind == "ifneq")]
    if s is not None and kind in ("ifneq", "ifndef"):
        s = CUDA if s == ROCM else ROCM
    return s


def make_conditional_regions(text: str) -> list[tuple[int, int, str, int]]:
    """(first line, last line, side, guard line) for the arms of a Makefile's vendor conditionals: MAGMA's
    `ifeq ($(BACKEND),cuda) ... else ifeq ($(BACKEND),hip) ... endif`, `ifdef USE_ROCM`. Only a file with a ROCm
    test has CUDA arms (a CUDA-only Makefile's `ifeq ($(CUDA),1)` says nothing about a port); nested conditionals
    inside an arm are that arm's."""
    lines = text.split("\n")
    parsed = []
    for i, line in enumerate(lines):
        if line.startswith("\t"):
            continue
        m = _MAKE_COND.match(line)
        if m is None or not (m.group(1) or m.group(2) or m.group(3).startswith("endif")):
            continue
        if m.group(2):
            parsed.append((i + 1, "else" if m.group(1) else "if", _make_test(m.group(2), m.group(3))))
        elif m.group(1):
            parsed.append((i + 1, "else", "else"))
        elif re.match(r"endif\b", m.group(3)):
            parsed.append((i + 1, "endif", None))
    return _arm_regions(parsed)


def _arm_regions(parsed: list[tuple[int, str, str | tuple[Tri, Tri] | None]]) -> list[tuple[int, int, str, int]]:
    """(first line, last line, side, guard line) for the arms of a build file's conditionals, given each
    conditional line as (line, "if" | "else" | "endif", the build its test says it is true in: "cuda", "rocm", a
    (cuda, rocm) truth pair, "else" for a plain else, None when it names no vendor). Only a file with a ROCm test has
    CUDA arms (a CUDA-only file's `if cuda` says nothing about a port); conditionals inside an arm are that arm's."""
    # a ROCm test: a ROCm word or switch, or a ROCm-named variable's emptiness (decided in the CUDA build)
    if not any(t == ROCM or isinstance(t, tuple) and t[0] is not None for _l, _k, t in parsed):
        return []

    def truth(test: str | tuple[Tri, Tri] | None, build: str) -> Tri:
        if isinstance(test, tuple):
            return test[0] if build == CUDA else test[1]
        return None if test is None else test == build

    out: list[tuple[int, int, str, int]] = []
    stack: list[dict] = []
    cur = (True, True, 0)
    start = 1

    def mark(upto: int) -> None:
        nonlocal start
        s = side(cur[0], cur[1])
        if upto >= start and s in (CUDA, ROCM) and cur[2]:
            out.append((start, upto, s, cur[2]))
        start = upto + 1

    for line, kind, test in parsed:
        if kind == "if":
            mark(line)  # the `ifeq` line is its enclosing arm's
            c, r = truth(test, CUDA), truth(test, ROCM)
            stack.append({"outer": cur, "c": c, "r": r, "guard": line if test else 0})
            cur = (tri_and(cur[0], c), tri_and(cur[1], r), (line if test else 0) or cur[2])
        elif kind == "else" and stack:
            mark(line - 1)
            f = stack[-1]
            c, r = (True, True) if test == "else" else (truth(test, CUDA), truth(test, ROCM))
            if test not in ("else", None):
                f["guard"] = f["guard"] or line
            arm_c, arm_r = tri_and(tri_not(f["c"]), c), tri_and(tri_not(f["r"]), r)
            f["c"], f["r"] = tri_or(f["c"], c), tri_or(f["r"], r)
            o = f["outer"]
            cur = (tri_and(o[0], arm_c), tri_and(o[1], arm_r), f["guard"] or o[2])
            start = line + 1
        elif kind == "endif" and stack:
            mark(line - 1)
            cur = stack.pop()["outer"]
            start = line + 1
    return out


_MESON_COND = re.compile(r"^[ \t]*(if|elif|else|endif)\b[ \t]*(.*?)[ \t]*$")
_MESON_STRING = re.compile(r"'(?:[^'\\\n]|\\.)*'")


def meson_conditional_regions(text: str) -> list[tuple[int, int, str, int]]:
    """(first line, last line, side, guard line) for the arms of a meson.build's vendor conditionals: `if
    get_option('backend') == 'hip'` / `elif get_option('backend') == 'cuda'` / `else` / `endif`, `if
    get_option('rocm')`, `if cuda_dep.found()`, `if not get_option('cuda')` (Meson's `if` statement:
    https://mesonbuild.com/Syntax.html#if-statements). A test naming one vendor is true in that vendor's build (`not`
    or `!=` flips it); one naming both or neither decides nothing. As make_conditional_regions, only a file with a
    ROCm test has arms."""
    parsed: list[tuple[int, str, str | tuple[Tri, Tri] | None]] = []
    for i, line in enumerate(text.split("\n")):
        m = _MESON_COND.match(_meson_code(line))
        if m is None:
            continue
        kind, test = m.group(1), m.group(2)
        if kind == "endif":
            parsed.append((i + 1, "endif", None))
        elif kind == "else":
            parsed.append((i + 1, "else", "else"))
        else:
            parsed.append((i + 1, "if" if kind == "if" else "else", _meson_test(test)))
    return _arm_regions(parsed)


def _meson_code(line: str) -> str:
    """A Meson line without its comment (a `#` inside a '...' string is no comment)."""
    return _MESON_STRING.sub(lambda q: q.group(0).replace("#", " "), line).split("#", 1)[0]


def _meson_test(test: str) -> str | None:
    """The build a meson `if` test is true in ("cuda", "rocm") or None (see meson_conditional_regions)."""
    sides = {x for x in (_make_word_side(w) for w in re.findall(r"[A-Za-z_][\w-]*", test)) if x}
    if len(sides) != 1:
        return None
    s = sides.pop()
    if re.match(r"not\b", test) or "!=" in test:
        s = CUDA if s == ROCM else ROCM
    return s


# An optional-dependencies extra named for a CUDA build: unsloth's `cu124onlytorch250`, `cuda12`, `nvidia-gpu`.
# (`cu12x` ends `flashattentiontorch260abiTRUEcu12x`; a CUDA wheel tag cuNNN is read anywhere in the name)
# Or for an NVIDIA library with no ROCm build under that name (comfy-kitchen's `cublas = ["nvidia-cublas>=13"]`, the
# opt-in cuBLAS wheel of its CUDA backend): a user picks it for an NVIDIA machine as well.
_CUDA_EXTRA = re.compile(r"(?i)cu\d{2,3}|(?:^|[-_.])(?:cuda\d*|nvidia|cublas(?:lt)?|cudnn\d*|cufft|cusparse(?:lt)?|"
                         r"cusolver|curand|nccl|nvshmem|tensorrt)(?:$|[-_.])")
_DEV_EXTRA = re.compile(r"(?i)^(?:bench(?:mark)?s?|tests?|testing|dev|develop|docs?|lint|examples?)$")
_TOML_TABLE = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]\s*(?:#.*)?$")
_TOML_KEY = re.compile(r"^([A-Za-z0-9_.\"'-]+)\s*=")


def cuda_extras(text: str) -> list[tuple[int, int, int]]:
    """(first line, last line, key line) of each `[project.optional-dependencies]` extra whose name says it is a
    CUDA build's (`cu124onlytorch250 = [...]`, `cuda12`, `nvidia`): an opt-in the user picks for an NVIDIA machine, so what it pins is
    the team's NVIDIA-only choice, not work the ROCm install inherits (the default dependencies still are). So is an
    extra named for the developers' own tooling (`bench`, `test`, `dev`, `docs`): an NVIDIA package there
    (OpenEquivariance's `cuequivariance-ops-torch-cu12` comparison baseline in `bench`) is not a dependency a ROCm
    install of the package gets."""
    lines = text.split("\n")
    out: list[tuple[int, int, int]] = []
    in_extras = False
    current: tuple[int, int] | None = None  # (key line, last line so far)

    def close() -> None:
        nonlocal current
        if current is not None:
            out.append((current[0], current[1], current[0]))
        current = None

    for i, line in enumerate(lines, 1):
        t = _TOML_TABLE.match(line)
        if t is not None:
            close()
            in_extras = t.group(1).strip() in ("project.optional-dependencies", "tool.poetry.extras")
            continue
        if not in_extras:
            continue
        k = _TOML_KEY.match(line)
        if k is not None:
            close()
            if _CUDA_EXTRA.search(k.group(1).strip("\"'")) or _DEV_EXTRA.match(k.group(1).strip("\"'")):
                current = (i, i)
            continue
        if current is not None and line.strip():
            current = (current[0], i)
    close()
    return out


def cuda_only_match(path: str, globs: Iterable[str]) -> str | None:
    """The first `cuda_only` glob (gitignore style) that holds the path, or None.

    Asked once per finding: the list is matched as one compiled set (one linear pass says "none of them", the
    usual answer), and only a path it holds is tried against each glob, each compiled once per list. Tried one at a
    time as lists of their own, a repository's 1,000 globs were compiled again for every finding (discover keeps
    64 compiled lists): 77 s for 101 findings (tests/test_red_s20_cuda_only_globs.py)."""
    globs = tuple(globs)
    if not globs or not _all_globs(globs).match_file(path):
        return None
    return next((g for g, spec in zip(globs, _each_glob(globs)) if spec.match_file(path)), None)


# Kept here, not only in discover's cache of 64 compiled lists, which compiling each glob of a list evicts.
@functools.lru_cache(maxsize=8)
def _all_globs(globs: tuple[str, ...]) -> Any:
    """A `cuda_only` list compiled as one set (discover's matcher, as `selected` applies it)."""
    from porter.source.discover import compiled_globs

    return compiled_globs(globs)


@functools.lru_cache(maxsize=8)
def _each_glob(globs: tuple[str, ...]) -> tuple[Any, ...]:
    """Each glob of a `cuda_only` list compiled on its own, once per list."""
    from porter.source.discover import compiled_globs

    return tuple(compiled_globs((g,)) for g in globs)


# ------------------------------------------------------------------------------------------ CMake

# Compiled when first used (porter.lazyre), as the setup.py one below: only a CMake file needs it.
# An unterminated bracket comment, bracket argument or quoted argument runs to the end of the file (CMake rejects
# the file anyway): matched once, not tried again from every later `#[[` or `"` (`'#[[\n' * 80000` was quadratic).
# A word holds CMake's escapes (`code=\"sm_70\"` is one unquoted argument; its `\"` opens no quoted one).
_cmake_lex = lazy_regex(
        r'(?P<comment>\#\[(?P<eq>=*)\[.*?(?:\](?P=eq)\]|\Z)|\#[^\n]*)'
        r'|(?P<bracket>\[(?P<eq2>=*)\[.*?(?:\](?P=eq2)\]|\Z))'
        r'|(?P<quoted>"(?:\\.|[^"\\])*(?:"|\Z))'
        r'|(?P<open>\()|(?P<close>\))'
        r'|(?P<word>(?:\\.|[^\s()#"\\])+)'
        r'|(?P<nl>\n)',
        re.S,
    )


@dataclass(frozen=True)
class CMakeCommand:
    line: int
    name: str  # lower case
    args: tuple[str, ...]  # unquoted
    end_line: int = 0  # the line of its closing parenthesis (0: not known)


# Commands whose arguments only talk to a person: message(), a project's own print helpers (FBGEMM's BLOCK_PRINT,
# print_summary), warnings.
_PROSE_COMMAND = re.compile(r"(?i)^(?:message|\w*print\w*|\w*summary\w*|\w*warn\w*)$")


def cmake_prose_spans(text: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """((line, column), (end line, end column)) spans, 1-based and end-exclusive, of CMake text that only talks to
    a person: every argument of message() and of print/summary/warning helpers, the documentation string of
    option(NAME "doc" ...) and of set(... CACHE TYPE "doc"). A compiler or flag named there is prose, not build."""
    out: list[tuple[tuple[int, int], tuple[int, int]]] = []
    line, line_start = 1, 0
    depth = 0
    name: str | None = None
    quoted: list[tuple[tuple[int, int], tuple[int, int], int]] = []  # (start, end, argument index)
    words: list[str] = []
    pending: str | None = None
    open_at: tuple[int, int] = (1, 1)

    def pos(offset: int) -> tuple[int, int]:
        return line, offset - line_start + 1

    for m in _cmake_lex().finditer(text):
        kind, tok = m.lastgroup, m.group()
        if kind in ("comment", "bracket", "quoted"):
            start = pos(m.start())
            if tok.count("\n"):
                line += tok.count("\n")
                line_start = m.start() + tok.rindex("\n") + 1
            if depth and kind != "comment":
                quoted.append((start, pos(m.end()), len(words)))
                words.append(tok)
            continue
        if kind == "nl":
            line, line_start = line + 1, m.end()
            continue
        if kind == "open":
            if depth == 0 and pending is not None:
                name, quoted, words, open_at = pending, [], [], pos(m.start())
            depth += depth > 0 or name is not None
            continue
        if kind == "close":
            if depth == 0:
                continue
            depth -= 1
            if depth == 0 and name is not None:
                if _PROSE_COMMAND.match(name):
                    out.append((open_at, pos(m.end())))
                elif name.lower() == "option":
                    out.extend((a, b) for a, b, i in quoted if i == 1)
                elif name.lower() == "set" and "CACHE" in words:
                    doc = words.index("CACHE") + 2
                    out.extend((a, b) for a, b, i in quoted if i == doc)
                name, pending = None, None
            continue
        if depth:
            words.append(tok)
        else:
            pending = tok
    return out


# `"${NAME}" STREQUAL ""` / `"$ENV{NAME}" STREQUAL ""`: CMake's test that a variable (or an environment variable) is
# empty, i.e. that the switch NAME is not given (https://cmake.org/cmake/help/latest/command/if.html#comparisons).
# TASMANIAN's pip installer turns Tasmanian_ENABLE_CUDA on with `if (NOT "$ENV{Tasmanian_ENABLE_CUDA}" STREQUAL "")`
# beside the same test of Tasmanian_ENABLE_HIP: each reads as a test of the switch itself (`NOT NAME`).
_CM_DEREF = re.compile(r"^\$(?:ENV)?\{(\w+)\}$")


def _cm_emptiness(args: list[str]) -> tuple[str, ...]:
    """An if() condition's arguments with each emptiness test of a dereferenced name written as `NOT NAME`."""
    out: list[str] = []
    i = 0
    while i < len(args):
        m = _CM_DEREF.match(args[i])
        if m is not None and i + 2 < len(args) and args[i + 1].upper() == "STREQUAL" and args[i + 2] == "":
            out += ["NOT", m.group(1)]
            i += 3
            continue
        out.append(args[i])
        i += 1
    return tuple(out)


def cmake_commands(text: str) -> list[CMakeCommand]:
    """The commands of a CMake file with their arguments (nested parentheses flattened), lines 1-based."""
    out: list[CMakeCommand] = []
    line = 1
    pending: tuple[str, int] | None = None
    args: list[str] = []
    depth = 0
    for m in _cmake_lex().finditer(text):
        kind = m.lastgroup
        tok = m.group()
        if kind in ("comment", "bracket", "quoted"):
            if depth and kind != "comment":
                args.append(tok[1:-1] if kind == "quoted" else re.sub(r"^\[=*\[|\]=*\]$", "", tok))
            line += tok.count("\n")
            continue
        if kind == "nl":
            line += 1
            continue
        if kind == "open":
            if depth == 0 and pending is None:
                continue
            depth += 1
            continue
        if kind == "close":
            if depth == 0:
                continue
            depth -= 1
            if depth == 0 and pending is not None:
                name = pending[0].lower()
                kept = _cm_emptiness(args) if name in ("if", "elseif") else tuple(args)
                out.append(CMakeCommand(pending[1], name, kept, line))
                pending, args = None, []
            continue
        if depth:
            args.append(tok)
        else:
            pending = (tok, line)
    return out


_CM_ROCM_PARTS = frozenset({"hip", "rocm", "amd", "amdgpu", "hipcc"})
# Target and source properties CMake applies to CUDA-language sources only
# (https://cmake.org/cmake/help/latest/manual/cmake-properties.7.html).
_CUDA_LANGUAGE_PROPERTIES = frozenset({"CUDA_SEPARABLE_COMPILATION", "CUDA_RESOLVE_DEVICE_SYMBOLS",
                                       "CUDA_ARCHITECTURES", "CUDA_STANDARD", "CUDA_STANDARD_REQUIRED",
                                       "CUDA_EXTENSIONS", "CUDA_PTX_COMPILATION", "CUDA_RUNTIME_LIBRARY"})
_CM_CUDA_PARTS = frozenset({"cuda", "nvcc", "nvidia", "cudatoolkit"})


# A word that starts with a vendor name is that vendor's (superlu_dist's TPL_ENABLE_CUDALIB / TPL_ENABLE_HIPLIB),
# and ROCm's packages export imported targets named roc::<library> (heffte's `if(TARGET roc::rocfft)` beside
# `if(TARGET CUDA::cufft)`; https://rocm.docs.amd.com/en/latest/conceptual/cmake-packages.html).
_CM_ROCM_WORD = re.compile(r"(?:rocm|hip)\w*|roc(?:blas|fft|prim|thrust|sparse|solver|rand|alution|wmma|shmem)\w*")
_CM_CUDA_WORD = re.compile(r"cuda\w*")
# A CMake test that a package or imported target exists: `CUDAToolkit_FOUND`, `CUDA::cufft` (after TARGET).
_CM_FOUND = re.compile(r"(?i)_FOUND$|^CUDA::")


# NVIDIA's words beside a HIP word name HIP compiled for NVIDIA GPUs (HIP_PLATFORM=nvidia, hipcc over nvcc:
# https://rocm.docs.amd.com/projects/HIP/en/latest/install/build.html): SIMULATeQCD's USE_HIP_NVIDIA beside
# USE_HIP_AMD, `BACKEND STREQUAL "hip_nvidia"`. The AMD build never sets such a switch or value, as it never defines
# __HIP_PLATFORM_NVIDIA__ (porter.source.preprocessor.NVCC_ONLY): it is the NVIDIA build's.
_CM_HIP_ON_NVIDIA = frozenset({"nvidia", "nvcc"})


def _cm_var_side(name: str) -> str | None:
    name = re.sub(r"^\$\{(.*)\}$", r"\1", name)
    parts = {p.lower() for p in re.split(r"[_\W]+", name) if p}
    if parts & _CM_HIP_ON_NVIDIA and parts & {"hip", "hipcc"}:
        return CUDA
    if parts & _CM_ROCM_PARTS or any(_CM_ROCM_WORD.fullmatch(p) for p in parts) or name.lower().startswith("roc::"):
        return ROCM
    if parts & _CM_CUDA_PARTS or any(_CM_CUDA_WORD.fullmatch(p) for p in parts):
        return CUDA
    return None


# A vendor named as a compared value, by its words: `ARB_GPU STREQUAL "hip"`, `"cuda-clang"`, hoomd's
# `HIP_PLATFORM STREQUAL "nvcc"` (HIP on NVIDIA) and `"hip-clang"` (HIP on AMD; hcc is its old name).
_CM_ROCM_LITERAL = frozenset({"hip", "rocm", "amd", "hcc", "amdgpu", "hipcc"})
_CM_CUDA_LITERAL = frozenset({"cuda", "nvidia", "nvcc"})


def _cm_literal_side(lit: str) -> str | None:
    # each alternative of a MATCHES pattern or list apart (`"cuda|hip"` names both; `"hip_nvidia"` is one value)
    sides = set()
    for alt in re.split(r"[|;\s]+", lit.lower()):
        words = {w for w in re.split(r"[-_.]+", alt) if w}
        if words & _CM_HIP_ON_NVIDIA and words & {"hip", "hipcc"}:
            sides.add(CUDA)
        elif words & _CM_ROCM_LITERAL:
            sides.add(ROCM)
        elif words & _CM_CUDA_LITERAL:
            sides.add(CUDA)
    return ROCM if ROCM in sides else CUDA if sides else None


# A whole-value variable dereference as an if() argument, quoted or not: `${CMAKE_CUDA_ARCHITECTURES}`.
_CM_WHOLE_DEREF = re.compile(r'"?\$\{([A-Za-z_][\w.+-]*)\}"?')


# A CUDA toolkit imported target (FindCUDAToolkit's CUDA::cudart, CUDA::cublas) and a ROCm library as a list names
# it: an imported target (hip::host, roc::rocblas) or a bare package name (HIP, HIPBLAS, rocsparse).
_CM_CUDA_TARGET = re.compile(r"CUDA::\w+")
_CM_ROCM_LIBRARY = re.compile(r"(?i)(?:hip|roc)::\w+|hip\w*|roc(?:blas|fft|prim|thrust|sparse|solver|rand|alution)\w*")


def _both_vendor_libraries(args: Iterable[str]) -> bool:
    """Whether a set()/list() command's values name a CUDA toolkit target and a ROCm library."""
    values = [a for a in args if "${" not in a]
    return (any(_CM_CUDA_TARGET.fullmatch(a) for a in values)
            and any(_CM_ROCM_LIBRARY.fullmatch(a) for a in values))


def _cm_condition(args: tuple[str, ...], build: str, cuda_switches: bool,
                  neutral: frozenset[str] = frozenset(), variants: frozenset[str] = frozenset(),
                  implied: frozenset[str] = frozenset(), selectors: frozenset[str] = frozenset()
                  ) -> tuple[bool | None, bool]:
    """A CMake if() condition under one build (three-valued), and whether a ROCm-side test decided any of it.
    `neutral`: ROCm-named switches that both builds set (see neutral_switches): they decide nothing. `variants`:
    variables compared with more than one NVIDIA value (arbor's ARB_GPU "cuda" / "cuda-clang"): a CUDA build may
    take any of those arms, so each is unknown for it (and false for the ROCm build). `implied`: switches named for
    no vendor that only the CUDA build can turn on (cuda_dependent_options): read as CUDA-named switches.
    `selectors`: variables the file compares with a ROCm value (horovod's `HOROVOD_GPU STREQUAL "ROCM"`): the ROCm
    build is the one that sets them so, so `DEFINED HOROVOD_GPU` is true for it."""
    toks = list(args)
    vendor = False

    def atom(i: int) -> tuple[bool | None, int]:
        nonlocal vendor
        t = toks[i]
        if t == "(":
            v, j = expr(i + 1)
            return v, j + 1
        if t.upper() == "NOT":
            v, j = atom(i + 1)
            return (None if v is None else not v), j
        if t.upper() == "DEFINED" and i + 1 < len(toks) and toks[i + 1] in selectors and build == ROCM:
            vendor = True
            return True, i + 2
        if t.upper() in ("DEFINED", "TARGET") and i + 1 < len(toks):
            t = toks[i + 1]
            i += 1
        nxt = toks[i + 1].upper() if i + 1 < len(toks) else ""
        if nxt in ("STREQUAL", "MATCHES", "EQUAL") and i + 2 < len(toks):
            # The compared value is a literal; a dereference on the right (`"all" STREQUAL
            # "${CMAKE_CUDA_ARCHITECTURES}"`, MFEM) is the variable, and the literal is on the left: a value of the
            # CUDA build's own variable is tested, which is no vendor fork (both arms are the CUDA build's).
            deref = _CM_WHOLE_DEREF.fullmatch(toks[i + 2])
            if deref is not None and not _CM_WHOLE_DEREF.fullmatch(t):
                s = _cm_literal_side(t)
                t = deref.group(1)
            else:
                s = _cm_literal_side(toks[i + 2])
            # a HIP platform variable compared with NVIDIA's (`HIP_PLATFORM STREQUAL "nvcc"`): the HIP build on
            # NVIDIA, whose other arm is the AMD one - a vendor fork like a ROCm test
            platform = s == CUDA and _cm_var_side(t) == ROCM and t not in neutral
            if s == ROCM or platform:
                vendor = True
            v = None if s is None or (s == CUDA and not (cuda_switches or platform)) else (s == build)
            if v is True and s == CUDA and t in variants:
                v = None
            return v, i + 3
        if nxt in ("VERSION_GREATER", "VERSION_LESS", "VERSION_EQUAL", "VERSION_GREATER_EQUAL", "VERSION_LESS_EQUAL",
                   "LESS", "GREATER", "LESS_EQUAL", "GREATER_EQUAL", "IN_LIST", "STRLESS", "STRGREATER"):
            return None, i + 3
        s = _cm_var_side(t) if t not in neutral else None
        if s is None and t in implied:
            s = CUDA
        if s == ROCM:
            vendor = True
            return build == ROCM, i + 1
        if s == CUDA and cuda_switches:
            # CUDA_FOUND-like names say only that CUDA is there; a ROCm build may still have it: false only for ROCm
            # switches' opposites (BUILD_CUDA, GGML_CUDA, USE_CUDA) in a file that has a ROCm arm.
            return (None if build == CUDA else False), i + 1
        return None, i + 1

    def expr(i: int) -> tuple[bool | None, int]:
        v, i = atom(i) if i < len(toks) else (None, i)
        while i < len(toks) and toks[i].upper() in ("AND", "OR"):
            op = toks[i].upper()
            w, i = atom(i + 1) if i + 1 < len(toks) else (None, i + 1)
            if op == "AND":
                v = False if (v is False or w is False) else (None if v is None or w is None else True)
            else:
                v = True if (v is True or w is True) else (None if v is None or w is None else False)
        return v, i

    try:
        v, _ = expr(0)
    except (IndexError, RecursionError):
        return None, vendor
    return v, vendor


@dataclass(frozen=True)
class Reference:
    """A build file naming a source (or glob) on one side, at a line."""

    target: str  # repository-relative path or glob
    side: str  # cuda, rocm, both
    where: str  # "path:line"
    twin: str | None = None  # for a CUDA-side reference: where the same branch's ROCm arm names its own sources


def cmake_tested(text: str) -> tuple[str, ...]:
    """The vendor-named words a CMake file's if()/elseif() conditions test, sorted."""
    return tuple(sorted({a for c in cmake_commands(text) if c.name in ("if", "elseif") for a in c.args
                         if _cm_var_side(a) is not None}))


def cuda_twins_tested(names: Iterable[str], tested: Iterable[str]) -> frozenset[str]:
    """The CUDA-named switches among `names` whose ROCm twin (CUDA -> HIP/ROCM) is among `tested`."""
    tested = set(tested)
    return frozenset(a for a in names if _cm_var_side(a) == CUDA and
                     any(re.sub(r"(?i)cuda", w, a, count=1) in tested for w in ("HIP", "ROCM", "hip", "rocm")))


_CM_COMPARE = frozenset({"STREQUAL", "MATCHES", "EQUAL"})


def cuda_dependent_options(cmds: list[CMakeCommand]) -> list[tuple[str, str]]:
    """(option, CUDA-named switch) for each `cmake_dependent_option(<option> <doc> <value> <depends> <force>)` whose
    conditions require that switch. CMake makes such an option a plain variable holding <force> (hiding any cache
    value) whenever one of the `;`-separated <depends> conditions is false
    (https://cmake.org/cmake/help/latest/module/CMakeDependentOption.html): GauXC's
    `cmake_dependent_option(GAUXC_ENABLE_NCCL "..." OFF "GAUXC_ENABLE_CUDA" OFF)` is OFF in every build without
    GAUXC_ENABLE_CUDA. A condition is read only when it is bare names joined by AND (`MGE_WITH_CUDA`,
    `A AND USE_CUDA`); one with OR, NOT, parentheses or a comparison requires nothing here
    (`GAUXC_ENABLE_CUDA OR GAUXC_ENABLE_HIP` lets the HIP build turn GAUXC_ENABLE_MAGMA on)."""
    out: list[tuple[str, str]] = []
    for c in cmds:
        if c.name != "cmake_dependent_option" or len(c.args) < 5:
            continue
        option = c.args[0]
        for cond in c.args[3].split(";"):
            toks = cond.split()
            names = toks[0::2]
            if not toks or len(toks) % 2 == 0 or any(t.upper() != "AND" for t in toks[1::2]):
                continue
            if any(not re.fullmatch(r"[A-Za-z_][\w.+-]*", n) or n.upper() in ("NOT", "OR", "AND") for n in names):
                continue
            # (a found-test, CUDAToolkit_FOUND, is no build switch: a ROCm build may find CUDA too)
            out.extend((option, n) for n in names if _cm_var_side(n) == CUDA and n != option and not _CM_FOUND.search(n))
    return out


# Switches named for an NVIDIA library that ROCm has no build of under that name and hipify does not rename
# (NVSHMEM, whose ROCm counterpart is rocSHMEM with its own API; CUPTI; NVML; cuFile): a ROCm build that turned one on
# would include headers no ROCm install has, so a project that builds for ROCm keeps it off there.
_NVIDIA_ONLY_SWITCH = re.compile(r"(?i)nvshmem|cupti|nvml|cufile")
_CM_OPERATORS = frozenset({"AND", "OR", "NOT", "DEFINED", "TARGET", "EXISTS", "COMMAND", "POLICY", "IS_DIRECTORY"})


def nvidia_only_switches(cmds: list[CMakeCommand], regions: list[tuple[int, int, str, int]]) -> list[tuple[str, str]]:
    """(switch, side) for each switch named for an NVIDIA-only library (above) that an if()/elseif() tests inside one
    build's arm (`if(GMX_NVSHMEM)` in GROMACS's `if (GMX_GPU_CUDA)` arm) or joins by AND with a test naming that
    build (`if(GMX_NVSHMEM AND GMX_GPU_CUDA)`). Port status takes a switch the repository only ever tests on the CUDA
    side for a CUDA-build switch, and a macro of the same name (`#if GMX_NVSHMEM` from `#cmakedefine01`) for that
    build's."""
    out: list[tuple[str, str]] = []
    for c in cmds:
        if c.name not in ("if", "elseif"):
            continue
        names = [a for a in c.args if _NVIDIA_ONLY_SWITCH.search(a) and re.fullmatch(r"[A-Za-z_]\w*", a)
                 and a.upper() not in _CM_OPERATORS and _cm_var_side(a) is None]
        if not names:
            continue
        sides = {s_ for a, b, s_, g in regions if a <= c.line <= b and g and s_ in (CUDA, ROCM)}
        upper = [a.upper() for a in c.args]
        if "OR" not in upper and "NOT" not in upper:
            sides |= {s for a in c.args for s in [_cm_var_side(a)] if s is not None}
        out.extend((n, s) for s in sorted(sides) for n in names)
    return out


def _chooses_cuda(c: CMakeCommand) -> bool:
    """Whether a command picks the NVIDIA build: a test comparing with an NVIDIA value (`STREQUAL "CUDA"`,
    `"nvcc"`) or enable_language(CUDA)."""
    if c.name == "enable_language":
        return any(a.upper() == "CUDA" for a in c.args)
    if c.name not in ("if", "elseif"):
        return False
    return any(a.upper() in _CM_COMPARE and k + 1 < len(c.args) and _cm_literal_side(c.args[k + 1]) == CUDA
               for k, a in enumerate(c.args))


def cuda_variants(cmds: list[CMakeCommand]) -> frozenset[str]:
    """Variables the if()/elseif() tests compare with two or more different NVIDIA values."""
    seen: dict[str, set[str]] = {}
    for c in cmds:
        if c.name in ("if", "elseif"):
            for k, a in enumerate(c.args[1:-1], 1):
                if a.upper() in _CM_COMPARE and _cm_literal_side(c.args[k + 1]) == CUDA:
                    seen.setdefault(c.args[k - 1], set()).add(c.args[k + 1].lower())
    return frozenset(v for v, lits in seen.items() if len(lits) > 1)


def neutral_switches(cmds: list[CMakeCommand]) -> frozenset[str]:
    """ROCm-named switches that are no ROCm test: the first arm of `if(ENABLE_HIP)` itself chooses the NVIDIA build
    (hoomd's ENABLE_HIP holds `if (HOOMD_GPU_PLATFORM STREQUAL "HIP") ... elseif (... "CUDA") enable_language(CUDA)`:
    HIP there is the API both vendors' builds use), so the switch is on in both builds and decides no side."""
    stack: list[tuple[list[str], bool]] = []  # (the ROCm-named switches an if() tests bare, still in its first arm)
    out: set[str] = set()
    for c in cmds:
        if c.name == "if":
            names = [a for k, a in enumerate(c.args) if _cm_var_side(a) == ROCM
                     and not (k + 1 < len(c.args) and c.args[k + 1].upper() in _CM_COMPARE)
                     and not (k and c.args[k - 1].upper() in _CM_COMPARE)]
            if _chooses_cuda(c):
                for names_, first in stack:
                    if first:
                        out.update(names_)
            stack.append((names, True))
            continue
        if c.name in ("elseif", "else") and stack:
            stack[-1] = (stack[-1][0], False)
        elif c.name == "endif" and stack:
            stack.pop()
            continue
        if _chooses_cuda(c):
            for names_, first in stack:
                if first:
                    out.update(names_)
    return frozenset(out)


# The CUDA toolkit packages a quiet find_package() may probe for (BLD002's names).
_QUIET_PROBE = re.compile(r"(?i)CUDA|CUDAToolkit")


# A package's switch for its CUDA device backend where the package builds one device backend at a time: Kokkos
# enables at most one of CUDA, HIP, SYCL ("Mutual Exclusion: You can only have one device backend",
# https://kokkos.org/kokkos-core-wiki/get-started/configuration-guide.html), so `if(Kokkos_ENABLE_CUDA)` is false in
# every ROCm build - one on Kokkos' HIP backend or one without Kokkos - whether or not the file tests the HIP twin
# (Octo-Tiger's `enable_language(CUDA)` under it, beside its OCTOTIGER_WITH_HIP arms).
_ONE_DEVICE_BACKEND = frozenset({"Kokkos_ENABLE_CUDA", "KOKKOS_ENABLE_CUDA"})


def cmake_references(path: str, text: str, paired_elsewhere: Iterable[str] = (), implied: Iterable[str] = ()
                     ) -> tuple[list[Reference], list[tuple[int, int, str, int]]]:
    """The sources a CMake file names with the side of the arm naming them, and its own line regions
    (start, end, side, guard line) for findings in the CMake file itself. `paired_elsewhere`: CUDA switches whose
    ROCm twin another CMake file of the repository tests (deepmd-kit's op/pt tests USE_CUDA_TOOLKIT, its parent
    USE_ROCM_TOOLKIT). `implied`: options only the CUDA build can turn on (cuda_dependent_options; GauXC's
    GAUXC_ENABLE_NCCL): each is a paired CUDA switch of its own."""
    cmds = cmake_commands(text)
    implied = frozenset(implied)
    paired_elsewhere = frozenset(paired_elsewhere) | implied
    neutral = neutral_switches(cmds)
    variants = cuda_variants(cmds)
    selectors = rocm_selectors(cmds)
    has_rocm = bool(paired_elsewhere) or any(c.name in ("if", "elseif") and _cm_condition(c.args, ROCM, False, neutral)[1]
                                             for c in cmds)
    # A CUDA switch whose ROCm twin the file also tests (`if(MAGMA_ENABLE_CUDA)` beside `if(MAGMA_ENABLE_HIP)`,
    # two options, one per backend): its arm is the CUDA build's, a guard of its own like the preprocessor's
    # paired switches (porter.source.preprocessor.paired_cuda_switches).
    tested = {a for c in cmds if c.name in ("if", "elseif") for a in c.args}
    paired = set(cuda_twins_tested(tested, tested)) | (paired_elsewhere & tested) | (tested & _ONE_DEVICE_BACKEND)
    base = posixpath.dirname(path)
    folders = _source_folders(cmds)
    probed = any(c.name == "check_language" and any(a.upper() == "CUDA" for a in c.args) for c in cmds)
    probes: list[tuple[int, int, str, int]] = []
    # the first if()/elseif() line whose test names ROCm: where the file's ROCm build is chosen
    rocm_guard = next((c.line for c in cmds if c.name in ("if", "elseif") and _cm_condition(c.args, ROCM, False, neutral)[1]
                       and _cm_condition(c.args, ROCM, False, neutral)[0] is not False), 0) if has_rocm else 0
    stack: list[dict] = []
    cur = (True, True, 0)
    refs: list[Reference] = []
    regions: list[tuple[int, int, str, int]] = []
    last_line = 1

    def mark(upto: int) -> None:
        nonlocal last_line
        s = side(cur[0], cur[1])
        if upto >= last_line and s in (CUDA, ROCM):
            regions.append((last_line, upto, s, cur[2]))
        last_line = upto + 1

    def shared_test(c: CMakeCommand, rv: bool | None, rocm_decided: bool) -> None:
        # `if(CMAKE_CUDA_COMPILER OR CMAKE_HIP_COMPILER)`: a test that a ROCm-named atom makes true for the ROCm
        # build is the fork both builds pass; the CUDA name beside the HIP one is the port already made, not a
        # call of nvcc. Only its own lines: what the arm holds is decided as the arm's side says.
        if rv is True and rocm_decided and any(_cm_var_side(a) == CUDA or _cm_literal_side(a) == CUDA for a in c.args):
            regions.append((c.line, c.end_line or c.line, "both", c.line))

    for c in cmds:
        if c.name == "if":
            mark(c.line)
            cv, vend = _cm_condition(c.args, CUDA, has_rocm, neutral, variants, implied, selectors)
            rv, vend2 = _cm_condition(c.args, ROCM, has_rocm, neutral, variants, implied, selectors)
            shared_test(c, rv, vend2)
            # A test that the CUDA toolkit was found (`if(CUDAToolkit_FOUND)`, `if(TARGET CUDA::cufft)` beside
            # `if(TARGET roc::rocfft)`) in a file that also tests a ROCm name is the CUDA build's fork: the ROCm
            # build takes its own arm, so the CUDA arm is a guard like a paired switch's. A plain switch such as
            # `if(USE_CUDA)` with no ROCm twin is not (a ROCm build may set it too).
            vend = vend or (side(cv, rv) == CUDA and (any(a in paired for a in c.args) or (
                has_rocm and any(_cm_var_side(a) == CUDA and _CM_FOUND.search(a) for a in c.args))))
            stack.append({"args": c.args, "outer": cur, "cuda_taken": cv, "rocm_taken": rv,
                          "guard": c.line if (vend or vend2) else 0,
                          "first": len(refs), "line": c.line, "regions": len(regions),
                          "head": side(tri_and(cur[0], cv), tri_and(cur[1], rv))})
            g = stack[-1]["guard"] or cur[2]
            cur = (tri_and(cur[0], cv), tri_and(cur[1], rv), g)
            continue
        if c.name in ("elseif", "else") and stack:
            mark(c.line)
            f = stack[-1]
            if c.name == "else":
                cv = rv = True
            else:
                cv, vend = _cm_condition(c.args, CUDA, has_rocm, neutral, variants, implied, selectors)
                rv, vend2 = _cm_condition(c.args, ROCM, has_rocm, neutral, variants, implied, selectors)
                shared_test(c, rv, vend2)
                if vend or vend2:
                    f["guard"] = f["guard"] or c.line
            arm_c = tri_and(tri_not(f["cuda_taken"]), cv)
            arm_r = tri_and(tri_not(f["rocm_taken"]), rv)
            f["rocm_arm"] = f.get("rocm_arm") or (arm_r is True and has_rocm)
            f["cuda_taken"] = tri_or(f["cuda_taken"], cv)
            f["rocm_taken"] = tri_or(f["rocm_taken"], rv)
            o = f["outer"]
            cur = (tri_and(o[0], arm_c), tri_and(o[1], arm_r), f["guard"] or o[2])
            continue
        if c.name == "endif" and stack:
            mark(c.line)
            f = stack.pop()
            cur = f["outer"]
            # `if(CMAKE_CUDA_COMPILER) ... elseif(has_hipcc)` / `else()` holding a ROCm-only arm: the group is a
            # vendor guard even though its first test named only CUDA, so the CUDA arm marked before the ROCm one
            # was seen (and its `if` line, when that test is the CUDA side's) gets the group's guard line.
            inner = regions[f["regions"]:]
            # ... and so is `if(MSCCLPP_USE_CUDA) ... else()` in a file with ROCm arms: the CUDA switch is false
            # for the ROCm build, which takes the else() - its own path.
            # ... and a group whose own `if` test is the CUDA build's guard: its `if` line is that build's too
            # (heffte's `if (Heffte_ENABLE_CUDA AND NOT DEFINED CMAKE_CUDA_ARCHITECTURES)`).
            if any(r[2] == ROCM for r in inner) or (f["head"] == CUDA and (f.get("rocm_arm") or f["guard"] == f["line"])):
                g = f["guard"] or f["line"]
                regions[f["regions"]:] = [(a, b, s_, g) if s_ == CUDA and not gl else (a, b, s_, gl)
                                          for a, b, s_, gl in inner]
                if f["head"] == CUDA and not cur[2]:
                    regions.append((f["line"], f["line"], CUDA, g))
            mine = refs[f["first"]:]
            rocm_ref = next((r.where for r in mine if r.side == ROCM), None)
            if rocm_ref:
                refs[f["first"]:] = [Reference(r.target, r.side, r.where, rocm_ref) if r.side == CUDA and r.twin is None
                                     else r for r in mine]
            continue
        s = side(cur[0], cur[1])
        where = f"{path}:{cur[2] or c.line}"
        if c.name == "enable_language" and any(a.upper() == "HIP" for a in c.args):
            continue
        if c.name in ("set", "list") and rocm_guard and _both_vendor_libraries(c.args[1:]):
            # A list naming the CUDA toolkit's libraries beside ROCm's (MFEM's MFEM_TPLS: `... HIP HIPBLAS
            # HIPSPARSE ... CUDA::cudart`, each entry used only when found) is a menu both builds read, each taking
            # its own vendor's entries: the CUDA entry is no link the ROCm build makes. Its own lines only.
            regions.append((c.line, c.end_line or c.line, "both", c.line))
        if (c.name in ("set_target_properties", "set_property", "set_source_files_properties") and rocm_guard
                and (not cur[2] or s == "both") and any(a in _CUDA_LANGUAGE_PROPERTIES for a in c.args)):
            # CUDA_SEPARABLE_COMPILATION and its kin apply to CUDA-language sources only; in a file that builds a
            # ROCm variant in its own arm (superlu_dist's `if (TPL_ENABLE_HIPLIB)`), the ROCm build's sources
            # ignore them: the property is the CUDA build's, decided by that arm. So also in an arm both builds
            # take (`if(CMAKE_CUDA_COMPILER OR CMAKE_HIP_COMPILER)` after the sources were marked LANGUAGE HIP).
            regions.append((c.line, c.end_line or c.line, CUDA, rocm_guard))
        if (c.name == "find_package" and rocm_guard and not cur[2] and c.args and _QUIET_PROBE.fullmatch(c.args[0])
                and "QUIET" in (u := {a.upper() for a in c.args[1:]}) and "REQUIRED" not in u):
            # A quiet probe for the CUDA toolkit in a file that builds a ROCm variant in its own arm (OpenMM's
            # `FIND_PACKAGE(CUDAToolkit QUIET)` switching OPENMM_BUILD_CUDA_LIB on, beside OPENMM_BUILD_HIP_LIB):
            # the ROCm build runs it and goes on without CUDA, so it is nothing to port.
            regions.append((c.line, c.end_line or c.line, CUDA, rocm_guard))
        if (c.name == "enable_language" and rocm_guard and probed and any(a.upper() == "CUDA" for a in c.args)
                and stack and any(a == "CMAKE_CUDA_COMPILER" for a in stack[-1]["args"])):
            # `check_language(CUDA)` then `if(CMAKE_CUDA_COMPILER) enable_language(CUDA)`, CMake's documented probe
            # (https://cmake.org/cmake/help/latest/module/CheckLanguage.html), in a file that builds a ROCm variant
            # in its own arm: the ROCm build runs it and goes on without CUDA. Its `if` line is the probe's too.
            # (Read at the end: a group whose own later arm is the ROCm build's decides by that arm instead.)
            probes.append((c.line, c.end_line or c.line, CUDA, rocm_guard))
            probes.append((stack[-1]["line"], stack[-1]["line"], CUDA, rocm_guard))
        if c.name == "add_subdirectory":
            # A directory only one build's arm adds is that build's, every file under it (qsim adds
            # pybind_interface/cuda under if(CMAKE_CUDA_COMPILER) and pybind_interface/hip under elseif(has_hipcc)).
            # One that both builds add names nothing: its own CMake arms decide.
            arg = c.args[0] if c.args else ""
            target = _resolve_cmake_path(arg, base) if s in (CUDA, ROCM) and arg and (
                "${" not in arg or re.match(r"^\$\{(CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR)\}/", arg)) else None
            if target is not None and target != ".":
                refs.append(Reference(f"{target}/*", s, where))
            continue
        hip_language = c.name == "set_source_files_properties" and "HIP" in (a.upper() for a in c.args)
        for a in c.args:
            folder = _source_folder(a, folders) if "${" in a else None
            if "${" in a and folder is None and not re.match(
                    r"^\$\{(CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR|PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR)\}/", a):
                continue
            if not a.lower().endswith(SOURCE_SUFFIXES) and not ("*" in a and "." in a.rsplit("/", 1)[-1]):
                continue
            target = folder if folder is not None else _resolve_cmake_path(a, base)
            if target is None:
                continue
            refs.append(Reference(target, ROCM if hip_language else s if s in (CUDA, ROCM) else "both", where))
    mark(text.count("\n") + 1)
    regions.extend(generator_vendor_arms(text))
    regions.extend(p for p in probes if not any(a <= p[0] <= b and g for a, b, _s, g in regions))
    regions.extend(cuda_called_bodies(cmds, regions))
    # A variable the file turns on only inside the CUDA build's arms (FastVideo's `set(ENABLE_ATTN_QAT_INFER ON)` in
    # the `else()` of `if(GPU_BACKEND STREQUAL "ROCM")`) is off in the ROCm build: it is a CUDA switch like a
    # cmake_dependent_option's, read again with it.
    if has_rocm:
        more = cuda_set_switches(cmds, regions) - implied
        if more:
            return cmake_references(path, text, paired_elsewhere - implied, implied | more)
    return refs, regions


# The vendor test of a generator expression's condition: `$<BOOL:${TM_CUDA}>` (a switch named for a vendor) or
# `$<STREQUAL:${GPU_BACKEND},CUDA>` (a variable compared with a vendor's name, either way round).
_GX_BOOL = re.compile(r"\$<BOOL:\s*(\$\{[^}]*\}|[A-Za-z_]\w*)\s*>")
_GX_STREQUAL = re.compile(r"\$<STREQUAL:\s*([^,>]*?)\s*,\s*([^,>]*?)\s*>")


def _generator_side(cond: str) -> str | None:
    """CUDA or ROCM when a generator expression's whole condition is one vendor test, else None."""
    m = _GX_BOOL.fullmatch(cond.strip())
    if m:
        return _cm_var_side(m.group(1))
    m = _GX_STREQUAL.fullmatch(cond.strip())
    if m:
        sides = {_cm_literal_side(x.strip('"')) for x in m.groups() if not x.startswith("${")}
        variables = [x for x in m.groups() if x.startswith("${")]
        if len(variables) == 1 and len(sides) == 1:
            return sides.pop()
    return None


def generator_vendor_arms(text: str) -> list[tuple[int, int, str, int]]:
    """Line regions (start, end, CUDA, guard line) of generator-expression arms a CUDA vendor test selects, when the
    file also has an arm a ROCm test selects: `$<$<BOOL:${TM_ROCM}>:roc::rocblas>` beside
    `$<$<BOOL:${TM_CUDA}>:CUDA::cublas>` (Tiled-MM's target_link_libraries) is the if()/else() of one command,
    evaluated when the build is generated (https://cmake.org/cmake/help/latest/manual/cmake-generator-expressions.7.html).
    The guard is the first ROCm arm's line, as for an if() the file tests."""
    code = text.encode("utf-8", "surrogateescape")
    if b"$<" not in code:
        return []
    cuda: list[tuple[int, int]] = []
    rocm_line = 0
    for start, colon, end in generator_expressions(code):
        if colon < 0 or not code.startswith(b"$<$<", start):
            continue
        side_ = _generator_side(code[start + 2:colon].decode("utf-8", "replace"))
        if side_ == ROCM:
            line = code.count(b"\n", 0, start) + 1
            rocm_line = min(rocm_line, line) if rocm_line else line
        elif side_ == CUDA:
            cuda.append((code.count(b"\n", 0, colon) + 1, code.count(b"\n", 0, end) + 1))
    return [(a, b, CUDA, rocm_line) for a, b in cuda] if rocm_line else []


def rocm_selectors(cmds: list[CMakeCommand]) -> frozenset[str]:
    """Variables an if()/elseif() compares with a ROCm value (`HOROVOD_GPU STREQUAL "ROCM"`, `GPU_BACKEND MATCHES
    "hip"`): the ROCm build is chosen by setting them."""
    out: set[str] = set()
    for c in cmds:
        if c.name in ("if", "elseif"):
            for k, a in enumerate(c.args[1:-1], 1):
                if a.upper() in _CM_COMPARE and _cm_literal_side(c.args[k + 1]) == ROCM:
                    out.add(c.args[k - 1])
    return frozenset(out)


def cuda_called_bodies(cmds: list[CMakeCommand], regions: list[tuple[int, int, str, int]]
                       ) -> list[tuple[int, int, str, int]]:
    """(first line, last line, "cuda", guard) of each macro()/function() body the file calls only from the CUDA
    build's guarded arms (horovod's `add_cuda()`, called under `HOROVOD_GPU STREQUAL "CUDA"` beside the "ROCM"
    arm): it runs only as part of those arms. A body called anywhere else, or never, keeps its own reading."""
    out = []
    for written, start, end in _cm_function_bodies(cmds):
        name = written.lower()
        guards = []
        for c in cmds:
            if c.name != name or start <= c.line <= end:
                continue
            guards.append(next((g for a, b, s_, g in regions if a <= c.line <= b and s_ == CUDA and g), 0))
        if guards and all(guards):
            out.append((start, end, CUDA, guards[0]))
    return out


_CM_TRUE = frozenset({"ON", "TRUE", "YES", "Y", "1"})
_CM_FALSE = frozenset({"OFF", "FALSE", "NO", "N", "0", ""})


def cuda_set_switches(cmds: list[CMakeCommand], regions: list[tuple[int, int, str, int]]) -> frozenset[str]:
    """Variables named for no vendor that the file tests, sets to something other than false only inside CUDA
    regions with a guard (at least once), and never makes an option or cache entry (a user could set those)."""
    cuda_lines = [(a, b) for a, b, s_, g in regions if s_ == CUDA and g]
    tested = {a for c in cmds if c.name in ("if", "elseif") for a in c.args}
    user_set: set[str] = set()
    on_cuda: set[str] = set()
    elsewhere: set[str] = set()
    for c in cmds:
        if c.name in ("option", "cmake_dependent_option") and c.args:
            user_set.add(c.args[0])
        if c.name != "set" or not c.args:
            continue
        name = c.args[0]
        values = c.args[1:]
        if "CACHE" in (v.upper() for v in values):
            user_set.add(name)
            continue
        if len(values) == 1 and values[0].upper() in _CM_FALSE:
            continue
        if any(a <= c.line <= b for a, b in cuda_lines):
            on_cuda.add(name)
        else:
            elsewhere.add(name)
    return frozenset(n for n in on_cuda - elsewhere - user_set
                     if n in tested and re.fullmatch(r"[A-Za-z_]\w*", n) and _cm_var_side(n) is None)


# A block the CUDA toolkit must be there to enter: CMake stops the configure when a REQUIRED package is not found
# (https://cmake.org/cmake/help/latest/command/find_package.html) and when enable_language(CUDA) finds no CUDA
# compiler (https://cmake.org/cmake/help/latest/command/enable_language.html). A ROCm machine has neither.
_CM_PACKAGE_TOOLKIT = re.compile(r"(?i)CUDA(?:Toolkit)?")


def _needs_toolkit(c: CMakeCommand) -> bool:
    upper = [a.upper() for a in c.args]
    if c.name == "enable_language":
        return "CUDA" in upper
    return c.name == "find_package" and bool(c.args) and _CM_PACKAGE_TOOLKIT.fullmatch(c.args[0]) is not None \
        and "REQUIRED" in upper


def optional_toolkit_finds(cmds: list[CMakeCommand]) -> list[tuple[int, int, int]]:
    """(line, last line, line) of each find_package(CUDAToolkit) / find_package(CUDA) without REQUIRED: CMake goes on
    when it finds nothing (https://cmake.org/cmake/help/latest/command/find_package.html), so on a ROCm machine it
    only leaves `CUDAToolkit_FOUND` false."""
    return [(c.line, c.end_line or c.line, c.line) for c in cmds
            if c.name == "find_package" and c.args and _CM_PACKAGE_TOOLKIT.fullmatch(c.args[0]) is not None
            and "REQUIRED" not in [a.upper() for a in c.args]]


def toolkit_arms(cmds: list[CMakeCommand]) -> list[tuple[int, int, int]]:
    """(first line, last line, guard line) of each `if(<CUDA-named switch>)` arm (`if(BUILD_WITH_CUDA)`,
    `if(USE_CUDA AND USE_MPI)`) that itself, outside any inner if(), requires the CUDA toolkit (see above). A ROCm
    build cannot take such an arm, so in a repository that builds for ROCm elsewhere (a hand-kept HIP module, a
    ROCm build file) the switch is off there and the arm is the CUDA build's, whatever other file holds the ROCm
    side. A test of what is installed (`CMAKE_CUDA_COMPILER`, `CUDAToolkit_FOUND`) is a probe, not a switch."""
    out: list[tuple[int, int, int]] = []
    stack: list[list] = []  # [if line, the arm's switch test, needs the toolkit]
    for c in cmds:
        if c.name == "if":
            words = [a for a in c.args if a.upper() != "AND"]
            switch = bool(words) and len(words) == len(c.args) - c.args.count("AND") and all(
                re.fullmatch(r"[A-Za-z_]\w*", w) and w.upper() not in ("NOT", "OR") for w in words) and any(
                _cm_var_side(w) == CUDA and not w.upper().startswith("CMAKE_") and not _CM_FOUND.search(w)
                for w in words)
            stack.append([c.line, switch, False])
        elif c.name in ("elseif", "else", "endif") and stack:
            f = stack[-1]
            if f[1] and f[2]:
                out.append((f[0], c.line - 1, f[0]))
            f[1] = False  # only the if() arm is the switch's
            if c.name == "endif":
                stack.pop()
        elif stack and stack[-1][1] and _needs_toolkit(c):
            stack[-1][2] = True
    return sorted(out)


# ------------------------------------------------------------------------------------------ CMake's CUDA language

# A generator expression whose value applies only to CUDA-language sources: `$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=>`,
# `$<$<BUILD_INTERFACE:$<COMPILE_LANGUAGE:CUDA>>:...>`, `$<$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>:...>`,
# `$<$<AND:$<COMPILE_LANGUAGE:CUDA>,...>:...>` (https://cmake.org/cmake/help/latest/manual/cmake-generator-expressions.7.html).
# `$<NOT:...>` turns it round and `$<OR:...>` widens it; `$<COMPILE_LANGUAGE:CXX,CUDA>` names another language too.
# The value may run over many lines (comm_scope's `$<$<COMPILE_LANGUAGE:CUDA>:` holding one `-Xcompiler=` per line):
# CMake reads the whole argument before it evaluates it.
_CUDA_LANGUAGE_TEST = re.compile(r"COMPILE_LANGUAGE:\s*CUDA\s*>|COMPILE_LANG_AND_ID:\s*CUDA\s*,")


def _cuda_language_only(cond: str) -> bool:
    return _CUDA_LANGUAGE_TEST.search(cond) is not None and "NOT:" not in cond and "OR:" not in cond


# A variable the file sets to such a test and then uses as the condition (GHEX's `set(cuda_lang
# "$<COMPILE_LANGUAGE:CUDA>")` ... `$<${cuda_lang}:-Xcompiler=-Wall ...>`): CMake substitutes the variable before it
# evaluates the expression, so the condition is the test itself. Set once in the file, to one expression alone.
_CM_LANGUAGE_VARIABLE = re.compile(r'(?im)^[^\S\n#]*set\s*\(\s*([A-Za-z_]\w*)\s+"?(\$<[^"\s()]*>)"?\s*\)')
_CM_VARIABLE_CONDITION = re.compile(r"\$\{([A-Za-z_]\w*)\}")


def _language_variables(text: str) -> dict[str, str]:
    """Variable name -> the CUDA-language test it holds, for each variable the file sets exactly once to one."""
    seen: dict[str, list[str]] = {}
    for m in _CM_LANGUAGE_VARIABLE.finditer(text):
        seen.setdefault(m.group(1), []).append(m.group(2))
    sets = Counter(re.findall(r"(?i)\bset\s*\(\s*([A-Za-z_]\w*)", text))
    return {n: vs[0] for n, vs in seen.items() if len(vs) == 1 and sets[n] == 1 and _cuda_language_only(vs[0])}


def cuda_language_spans(text: str) -> list[tuple[int, int, int, int]]:
    """(line, first column, end line, column after the end), 1-based, of each generator expression whose value CMake
    applies to CUDA-language sources only (the outermost such one)."""
    code = text.encode("utf-8", "surrogateescape")
    if b"COMPILE_LANG" not in code or b"CUDA" not in code:
        return []
    found = generator_expressions(code)
    variables = _language_variables(text)
    by_start = {s_: (c_, e_) for s_, c_, e_ in found}
    chosen: list[tuple[int, int]] = []
    for start, colon, end in sorted(found):
        if chosen and start < chosen[-1][1]:
            continue  # inside one already taken
        inner = by_start.get(start + 2)
        # `$<condition:value>` whose condition is one nested expression, or the test `$<COMPILE_LANG_AND_ID:CUDA,...>`
        if inner is not None and inner[1] == colon:
            cond = code[start + 2:colon].decode("utf-8", "replace")
        elif code.startswith(b"COMPILE_LANG_AND_ID:", start + 2):
            cond = code[start + 2:end].decode("utf-8", "replace")
        elif colon > 0 and (v := _CM_VARIABLE_CONDITION.fullmatch(code[start + 2:colon].decode("utf-8", "replace"))):
            cond = variables.get(v.group(1), "")
        else:
            continue
        if _cuda_language_only(cond):
            chosen.append((start, end))

    def position(offset: int) -> tuple[int, int]:
        line_start = code.rfind(b"\n", 0, offset) + 1
        return code.count(b"\n", 0, offset) + 1, len(code[line_start:offset].decode("utf-8", "replace")) + 1

    return [(*position(a), *position(b)) for a, b in chosen]


# The commands that set properties (https://cmake.org/cmake/help/latest/command/set_property.html).
_CM_PROPERTY_COMMANDS = frozenset({"set_target_properties", "set_property", "set_source_files_properties"})


def cuda_property_spans(cmds: list[CMakeCommand]) -> list[tuple[int, int, int, int]]:
    """(line, 1, line after the end, 1) of each command that sets a property CMake applies to CUDA-language sources
    only (CUDA_SEPARABLE_COMPILATION and its kin, _CUDA_LANGUAGE_PROPERTIES): like a CUDA-language generator
    expression, nothing a HIP-language or hipcc-as-C++ compile reads."""
    return [(c.line, 1, (c.end_line or c.line) + 1, 1) for c in cmds
            if c.name in _CM_PROPERTY_COMMANDS and any(a in _CUDA_LANGUAGE_PROPERTIES for a in c.args)]


# CMake's variables for the CUDA language (https://cmake.org/cmake/help/latest/manual/cmake-variables.7.html:
# CMAKE_CUDA_ARCHITECTURES, CMAKE_CUDA_FLAGS, CMAKE_CUDA_STANDARD, ...): only a CUDA-language compile reads them.
_CM_CUDA_LANGUAGE_VARIABLE = re.compile(r"CMAKE_CUDA_[A-Z0-9_]+")
# Commands that read a variable rather than write it.
_CM_READERS = frozenset({"if", "elseif", "else", "endif", "while", "endwhile", "foreach", "endforeach", "message",
                         "return", "include", "option"})


def cuda_variable_spans(cmds: list[CMakeCommand]) -> list[tuple[int, int, int, int]]:
    """(line, 1, line after the end, 1) of each command that writes one of CMake's CUDA-language variables - the
    variable named bare, as set() / list() / string() / a function's output argument name it (gridtools'
    `gt_cuda_arch_to_cuda_arch_version(${GT_CUDA_ARCH} CMAKE_CUDA_ARCHITECTURES)`, `set(CMAKE_CUDA_ARCHITECTURES
    OFF)`) - and of each if() arm that tests whether CUDA is among the enabled languages (`get_property(langs GLOBAL
    PROPERTY ENABLED_LANGUAGES)` ... `if("CUDA" IN_LIST langs)`): like a CUDA-language generator expression, nothing
    a build that never enables CUDA reads."""
    out = [(c.line, 1, (c.end_line or c.line) + 1, 1) for c in cmds
           if c.name not in _CM_READERS and any(_CM_CUDA_LANGUAGE_VARIABLE.fullmatch(a) for a in c.args)]
    enabled = {c.args[0] for c in cmds if c.name == "get_property" and len(c.args) >= 4
               and "ENABLED_LANGUAGES" in c.args and "GLOBAL" in c.args}
    for k, c in enumerate(cmds):
        if not (c.name == "if" and len(c.args) == 3 and c.args[0] == "CUDA" and c.args[1] == "IN_LIST"
                and c.args[2] in enabled):
            continue
        depth = 0
        for d in cmds[k + 1:]:
            if d.name == "if":
                depth += 1
            elif d.name == "endif" and depth:
                depth -= 1
            elif d.name in ("else", "elseif", "endif") and not depth:
                out.append((c.line, 1, d.line, 1))
                break
    return sorted(out)


def cuda_language_enables(cmds: list[CMakeCommand], regions: list[tuple[int, int, str, int]]
                          ) -> list[tuple[int, str, int]]:
    """(line, side, guard line) of each command that enables CMake's CUDA language - enable_language(CUDA),
    project(... CUDA) - with the side of the arm it sits in ("both" and 0 outside any vendor arm)."""
    out = []
    for c in cmds:
        upper = [a.upper() for a in c.args]
        if not ((c.name == "enable_language" and "CUDA" in upper) or (c.name == "project" and "CUDA" in upper[1:])):
            continue
        arm = next(((s, g) for a, b, s, g in regions if a <= c.line <= b and g and s in (CUDA, ROCM)), ("both", 0))
        out.append((c.line, arm[0], arm[1]))
    return out


# The scope keywords of target_compile_definitions (https://cmake.org/cmake/help/latest/command/target_compile_definitions.html).
_CM_SCOPES = frozenset({"PUBLIC", "PRIVATE", "INTERFACE"})


def cmake_compile_definitions(cmds: list[CMakeCommand]) -> list[tuple[int, str]]:
    """(line, macro) of each preprocessor definition a CMake file adds: add_compile_definitions(X Y=1),
    target_compile_definitions(tgt PUBLIC X), add_definitions(-DX). Generator expressions are left out (what they
    define depends on the configuration)."""
    out: list[tuple[int, str]] = []
    for c in cmds:
        if c.name == "add_compile_definitions":
            args = c.args
        elif c.name == "target_compile_definitions":
            args = tuple(a for a in c.args[1:] if a not in _CM_SCOPES)
        elif c.name == "add_definitions":
            args = tuple(a[2:] for a in c.args if a.startswith("-D"))
        else:
            continue
        for a in args:
            m = re.fullmatch(r"([A-Za-z_]\w*)(?:=.*)?", a, re.S)
            if m:
                out.append((c.line, m.group(1)))
    return out


def cmake_module_uses(cmds: list[CMakeCommand]) -> list[tuple[int, str]]:
    """(line, file name) of each CMake module a file loads by name: find_package(nccl) reads `Findnccl.cmake` from
    the module path, include(Hipify) reads `Hipify.cmake` (https://cmake.org/cmake/help/latest/command/find_package.html,
    .../include.html). A module is run where it is loaded: only from a CUDA arm, it is that arm's code."""
    out = []
    for c in cmds:
        if not c.args or "$" in c.args[0] or "<" in c.args[0]:
            continue
        if c.name == "find_package":
            out.append((c.line, f"Find{c.args[0]}.cmake"))
        elif c.name == "include":
            name = posixpath.basename(c.args[0])
            out.append((c.line, name if name.endswith(".cmake") else f"{name}.cmake"))
    return out


def _source_folders(cmds) -> dict[str, str]:
    """The file's `set(VAR relative/folder)` of one literal relative path (ExaChem's `set(CCSD_T_SRCDIR cc/ccsd_t)`
    in a .cmake file another CMakeLists.txt include()s): a folder its source lists name as `${VAR}/x.cu`."""
    out: dict[str, str] = {}
    for c in cmds:
        if c.name == "set" and len(c.args) == 2 and re.fullmatch(r"[\w.+-]+(?:/[\w.+-]+)*", c.args[1]) \
                and "/" in c.args[1] and not c.args[1].startswith("/"):
            out[c.args[0]] = posixpath.normpath(c.args[1])
    return out


def _source_folder(arg: str, folders: dict[str, str]) -> str | None:
    """`${VAR}/x.cu` with VAR one of the file's literal folders, as a pattern on the repository path: a relative
    source path is read from the current source directory of the CMakeLists.txt that defines the target
    (https://cmake.org/cmake/help/latest/command/add_library.html; for an include()d file that is its includer's
    folder, which this file does not know), so the folder is matched as the end of the path, `*/cc/ccsd_t/x.cu`."""
    m = re.fullmatch(r"\$\{(\w+)\}/([\w.+/-]+)", arg)
    if m is None or m.group(1) not in folders or ".." in m.group(2):
        return None
    return "*/" + posixpath.normpath(posixpath.join(folders[m.group(1)], m.group(2)))


def _resolve_cmake_path(arg: str, base: str) -> str | None:
    m = re.match(r"^\$\{(\w+)\}/(.*)$", arg)
    if m:
        rel = m.group(2)
        root = base if m.group(1) in ("CMAKE_CURRENT_SOURCE_DIR", "CMAKE_CURRENT_LIST_DIR") else ""
    else:
        rel, root = arg, base
    if rel.startswith("/"):
        return None
    out = posixpath.normpath(posixpath.join(root, rel)) if root else posixpath.normpath(rel)
    return None if out.startswith("..") else out


# ------------------------------------------------------------------------------------------ setup.py

_py_string = lazy_regex(r"""(?P<q>['"])(?P<s>[^'"\n]+)(?P=q)""")


def setup_references(path: str, text: str, spans) -> list[Reference]:
    """Source names (and globs) written as string literals inside a setup.py branch that one build takes."""
    base = posixpath.dirname(path)
    lines = text.split("\n")
    refs: list[Reference] = []
    rocm_checks: dict[int, str] = {}
    for sp in spans:
        for ln in range(sp.start[0], min(sp.end[0], len(lines)) + 1):
            row = lines[ln - 1]
            for m in _py_string().finditer(row):
                col = m.start() + 1
                if (ln, col) < sp.start or (ln, col) >= sp.end:
                    continue
                s = m.group("s")
                if not s.lower().endswith(SOURCE_SUFFIXES) or s.startswith("/") or " " in s:
                    continue
                if sp.side == ROCM:
                    rocm_checks.setdefault(sp.line, f"{path}:{ln}")
                for root in sorted({base, ""}):
                    refs.append(Reference(posixpath.normpath(posixpath.join(root, s)) if root else posixpath.normpath(s),
                                          sp.side, f"{path}:{sp.line}"))
    return [Reference(r.target, r.side, r.where, rocm_checks.get(int(r.where.rsplit(":", 1)[1])))
            if r.side == CUDA else r for r in refs]


_SETUP_UNIT_SUFFIXES = tuple(x for x in SOURCE_SUFFIXES if x != ".py")


def _py_literal(node) -> str | None:
    """A Python string node's text with each interpolation (`f"{d}/gn.cpp"`) read as "*"; None: not a string."""
    if node.type != "string":
        return None
    out = []
    for c in node.named_children:
        if c.type == "string_content":
            out.append(c.text.decode("utf-8", "replace"))
        elif c.type == "interpolation":
            out.append("*")
    return "".join(out)


def setup_source_patterns(root) -> tuple[str, ...]:
    """The source files a setup.py names, each as a path pattern relative to the setup.py's folder: every string
    literal (never a comment: a commented-out source is not built) ending in a C/C++/CUDA suffix, and where it is
    the last argument of a `path.join(...)` the join's parts before it, a literal as spelled and anything computed
    as "*" (the package root `current_directory`, a variable folder). setuptools compiles exactly the `sources` an
    Extension lists (https://setuptools.pypa.io/en/latest/userguide/ext_modules.html), so these bound what the
    package build compiles; a computed part reads as "*", which can only name more files, never fewer."""
    out: set[str] = set()
    stack = [root]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        s = _py_literal(n)
        if s is None or " " in s or not s.lower().endswith(_SETUP_UNIT_SUFFIXES):
            continue
        # `name + ".cu"`, `stem + "_kernel.cu"`: a name completed at run time, any file with that ending
        if s.startswith(".") or (n.parent is not None and n.parent.type == "binary_operator"):
            s = "*" + s
        parts = [s]
        args = n.parent
        if args is not None and args.type == "argument_list" and args.named_children and args.named_children[-1] == n:
            call = args.parent
            fn = call.child_by_field_name("function") if call is not None else None
            if fn is not None and fn.text.decode("utf-8", "replace").split(".")[-1] == "join":
                parts = [(_py_literal(a) or "*") if a.type == "string" else "*" for a in args.named_children]
        path = "/".join(p.strip("/") for p in parts if p.strip("/"))
        out.add(posixpath.normpath(path) if "*" not in path else path)
    return tuple(sorted(out))


def build_sides(refs: Iterable[Reference], files: Iterable[str]) -> dict[str, tuple[str, str, str | None]]:
    """Each repository file some build arm names: path -> (side, evidence, twin) where all arms naming it agree on
    one side ("cuda" or "rocm"); files also named by a shared arm are left out (shared). `twin` is set when every
    CUDA arm naming the file has a ROCm arm of its own (the ROCm twin's reference)."""
    files = sorted(files)
    fileset = set(files)
    seen: dict[str, set[str]] = {}
    where: dict[str, str] = {}
    twins: dict[str, list[str | None]] = {}
    refs = list(refs)
    # A directory one build's arm adds (add_subdirectory): the CMake files in it name their sources for that build
    # only, however their own arms read.
    dirs = [(r.target[:-2] + "/", r.side, r.where, r.twin) for r in refs if r.target.endswith("/*") and r.side in (CUDA, ROCM)]
    if dirs:
        def inherited(r: Reference) -> Reference:
            if r.side != "both":
                return r
            home = r.where.rsplit(":", 1)[0]
            for d, side_, where_, twin_ in dirs:
                if home.startswith(d):
                    return Reference(r.target, side_, where_, twin_)
            return r

        refs = [inherited(r) for r in refs]
    # A file under a directory an arm adds is named by that directory's own CMake files: what a file higher up says
    # of its whole subtree does not reach into it (deepmd-kit adds src/gpu from both builds' arms and src/gpu/cudart
    # from the CUDA arm of src/gpu/CMakeLists.txt; a `src/*.cc` glob, which CMake does not take into subdirectories,
    # read through fnmatch's `*` reaches it too).
    added = sorted({d for d, _s, _w, _t in dirs}, key=len, reverse=True) if dirs else []

    def reaches(r: Reference, f: str) -> bool:
        if not added:
            return True
        home = next((d for d in added if f.startswith(d)), None)
        if home is None:
            return True
        star = r.target.find("*")
        return len(r.target if star < 0 else r.target[:star]) >= len(home)

    for r in refs:
        hits = [r.target] if r.target in fileset else (
            [f for f in files if fnmatch.fnmatchcase(f, r.target)] if "*" in r.target else [])
        for h in hits:
            if not reaches(r, h):
                continue
            seen.setdefault(h, set()).add(r.side)
            if r.side in (CUDA, ROCM):
                where.setdefault(h + "\0" + r.side, r.where)
            if r.side == CUDA:
                twins.setdefault(h, []).append(r.twin)
    out = {}
    for f, sides in seen.items():
        if len(sides) == 1 and next(iter(sides)) in (CUDA, ROCM):
            s = next(iter(sides))
            tw = twins.get(f, [])
            twin = tw[0] if tw and all(tw) else None
            out[f] = (s, where[f + "\0" + s], twin)
    return out


# ------------------------------------------------------------------------------------------ components

AUTOMAKE_NAME = "Makefile.am"
# Automake conditionals (https://www.gnu.org/software/automake/manual/html_node/Usage-of-Conditionals.html):
# `if COND` / `if !COND`, `else`, `endif` at the start of a line; configure defines COND with AM_CONDITIONAL.
_AM_COND = re.compile(r"^(if|else|endif)\b\s*(!?)\s*([A-Za-z_]\w*)?")
# The words that name a vendor in a conditional: the libraries a component needs count (ucc's TL_NCCL_ENABLED,
# TL_RCCL_ENABLED; NVML and NVLS are NVIDIA-only).
_AM_ROCM_WORDS = frozenset({"hip", "rocm", "amd", "amdgpu", "hipcc", "rccl", "hcc"})
_AM_CUDA_WORDS = frozenset({"cuda", "nvcc", "nvidia", "nccl", "nvml", "nvls"})
# What builds something in a Makefile.am: the primaries and the subdirectories it descends into.
_AM_BUILDS = re.compile(r"^\s*(SUBDIRS|\w+_(?:SOURCES|LTLIBRARIES|LIBRARIES|PROGRAMS))\s*\+?=\s*(.*)$")


def _am_side(name: str) -> str | None:
    words = {w for w in name.lower().split("_") if w}
    return ROCM if words & _AM_ROCM_WORDS else CUDA if words & _AM_CUDA_WORDS else None


def automake_components(path: str, text: str) -> list[tuple[str, str, str]]:
    """(directory, side, "path:line" of the conditional) for what a Makefile.am builds for one vendor only: its own
    directory when every primary and SUBDIRS it assigns sits in one vendor's arm (ucc's ec/cuda/Makefile.am is all
    `if HAVE_CUDA`), and each subdirectory a vendor arm alone adds (`if HAVE_ROCM` / `SUBDIRS += rocm`)."""
    base = posixpath.dirname(path)
    stack: list[tuple[str | None, int]] = []  # (side of the arm, its `if` line)
    sides: list[tuple[str | None, int]] = []  # per build assignment: the innermost vendor arm holding it
    subdirs: dict[str, set[tuple[str | None, int]]] = {}
    for n, _last, line in make_logical_lines(text):
        m = _AM_COND.match(line)
        if m is not None:
            kind, bang, name = m.groups()
            if kind == "if":
                s = _am_side(name or "")
                if s is not None and bang:
                    s = CUDA if s == ROCM else ROCM
                stack.append((s, n))
            elif kind == "else" and stack:
                s, at = stack[-1]
                stack[-1] = ((CUDA if s == ROCM else ROCM) if s else None, at)
            elif kind == "endif" and stack:
                stack.pop()
            continue
        b = _AM_BUILDS.match(line)
        if b is None:
            continue
        arm = next(((s, at) for s, at in reversed(stack) if s is not None), (None, 0))
        sides.append(arm)
        if b.group(1) == "SUBDIRS":
            for word in b.group(2).split():
                if re.fullmatch(r"[\w.-]+", word) and word != ".":
                    subdirs.setdefault(word, set()).add(arm)
    out: list[tuple[str, str, str]] = []
    own = {s for s, _ in sides}
    if len(own) == 1 and next(iter(own)) in (CUDA, ROCM):
        s, at = sides[0]
        out.append((base, s, f"{path}:{at}"))
    for sub, arms in sorted(subdirs.items()):
        if len(arms) == 1 and next(iter(arms))[0] in (CUDA, ROCM):
            s, at = next(iter(arms))
            out.append((posixpath.join(base, sub) if base else sub, s, f"{path}:{at}"))
    return out


# A directory named for the vendor rather than its platform, or for a vendor's library: FlagGems'
# `runtime/backend/_nvidia` beside `runtime/backend/_amd`, one vendor backend loaded at run time by the device found
# (https://github.com/FlagOpen/FlagGems/tree/main/src/flag_gems/runtime/backend); FBGEMM's gen_ai
# `quantize/cutlass_extensions` beside `quantize/ck_extensions`, the CUDA build's CUTLASS kernels and the ROCm build's
# Composable Kernel ones (https://github.com/pytorch/FBGEMM/tree/main/fbgemm_gpu/experimental/gen_ai/src/quantize).
# Blender Cycles' `kernel/device/optix` beside `kernel/device/hiprt`: OptiX is NVIDIA's ray-tracing engine, CUDA
# only (https://raytracing-docs.nvidia.com/optix8/guide/index.html), and HIP RT is AMD's ray-tracing library for HIP
# (https://gpuopen.com/hiprt/), so directories named for them are one ray-tracing back end per vendor.
# Each word, with the platform word it stands for.
_DIR_WORDS = {"nvidia": "cuda", "amd": "hip", "cutlass": "cuda", "ck": "hip", "composable_kernel": "hip",
              "nccl": "cuda", "rccl": "hip", "cudnn": "cuda", "miopen": "hip", "cublas": "cuda", "hipblas": "hip",
              "rocblas": "hip", "cub": "cuda", "hipcub": "hip", "optix": "cuda", "hiprt": "hip"}
_DIR_PAIRS = tuple(sorted(_DIR_WORDS.items()))


# A CUDA library's directory word -> its AMD counterpart's, for the sibling a component pairs with first.
_LIBRARY_TWINS = {"optix": "hiprt", "nccl": "rccl", "cudnn": "miopen", "cublas": "hipblas", "cub": "hipcub"}


def _dir_key(name: str) -> tuple[str, bool, bool]:
    """_source_key of a directory's name, reading a vendor's or its library's name as its platform word."""
    return vendor_key(name, _DIR_PAIRS)


def directory_key(name: str) -> tuple[str, bool, bool]:
    """A directory's name with its vendor words out, and whether it named CUDA, whether ROCm (`kernels/cuda` and
    `kernels/hip` share a key): the pairing key of sibling directories."""
    return _dir_key(name)


def component_twins(paths: Iterable[str], components: Iterable[tuple[str, str, str]] = (),
                    not_rocm: frozenset[str] = frozenset()) -> dict[str, tuple[str, str]]:
    """CUDA component directory -> (its ROCm counterpart's evidence, what made it the CUDA build's) for every
    directory only the CUDA build compiles whose sibling the ROCm build compiles instead: a sibling directory
    named for ROCm in place of the CUDA word (tilelang's `tl_templates/cuda` / `tl_templates/hip`, OpenMM's
    `platforms/cuda` / `platforms/hip`, FlagGems' `backend/_nvidia` / `backend/_amd`, FBGEMM's `cutlass_extensions` /
    `ck_extensions`), or, from the build, a sibling a ROCm arm builds (ucc's `tl/cuda` under
    TL_CUDA_ENABLED beside `tl/rccl` under TL_RCCL_ENABLED). A CUDA component without such a sibling has none;
    nor is a sibling in `not_rocm` one (a directory named for AMD whose code is OpenCL: other_model_dirs)."""
    dirs: set[str] = set()
    for p in paths:
        d = posixpath.dirname(p)
        while d and d not in dirs:
            dirs.add(d)
            d = posixpath.dirname(d)
    by_parent: dict[str, list[str]] = {}
    for d in sorted(dirs):
        by_parent.setdefault(posixpath.dirname(d), []).append(d)
    built = {d: (s, where) for d, s, where in components}
    out: dict[str, tuple[str, str]] = {}
    for parent, kids in by_parent.items():
        named: dict[str, str] = {}
        for d in kids:
            key, cuda, rocm = _dir_key(posixpath.basename(d))
            if rocm and d not in not_rocm:
                named.setdefault(key, d)
        rocm_built = {d: built[d][1] for d in kids if built.get(d, ("",))[0] == ROCM}
        for d in kids:
            key, cuda, rocm = _dir_key(posixpath.basename(d))
            if built.get(d, ("",))[0] == CUDA and rocm_built:
                # the build's own word first; the sibling named for ROCm in its place when the build has it too
                twin = named.get(key) if cuda and named.get(key) in rocm_built else sorted(rocm_built)[0]
                out[d] = (rocm_built[twin], built[d][1])
            elif cuda and not rocm and key in named:
                # the sibling named for the library's AMD counterpart first (`optix` -> `hiprt`, not `hip`)
                pair = _LIBRARY_TWINS.get(posixpath.basename(d).lower())
                twin = next((k for k in kids if pair and posixpath.basename(k).lower() == pair), named[key])
                out[d] = (twin + "/", f"{d}/ is named for CUDA")
    return out


# A header of the HIP runtime or of a ROCm library, by its include path (`hip/hip_runtime.h`, `hipblas/hipblas.h`,
# `rocblas.h`, `miopen/miopen.h`): https://rocm.docs.amd.com/en/latest/reference/api-libraries.html.
_ROCM_HEADER = re.compile(r"^[<\"]\s*(?:hip|hip\w*blas\w*|rocblas|hipcub|rocprim|rocthrust|miopen|rccl|hipsparse\w*|"
                          r"rocsparse|hipfft|rocfft|hiprand|rocrand|hipsolver|rocsolver|rocwmma|hipblaslt)(?:/|\.h)")


def rocm_header(include: str) -> bool:
    """Whether an `#include` directive's text names a HIP or ROCm library header."""
    return _ROCM_HEADER.match(include.strip()) is not None


def _stem(path: str) -> str:
    """A source's name up to its first dot, lower case: `layers.cc.dp.cpp` and `layers.cc` are both `layers`."""
    return posixpath.basename(path).split(".", 1)[0].lower()


def backend_twins(paths: Iterable[str], rocm_code: dict[str, str],
                  includes: dict[str, frozenset[str]] | None = None) -> dict[str, tuple[str, str]]:
    """CUDA component directory -> (the ROCm evidence of its counterpart, why they pair) for each directory named
    for CUDA whose sibling, named for no vendor, is the same backend written for another programming model that the
    project builds for AMD GPUs: lc0's src/neural/backends/cuda beside backends/sycl (layers, kernels,
    fp16_kernels, common_kernels, winograd_helper, inputs_outputs in both; its -Dsycl=amd build links hipBLAS, and
    the SYCL sources include hipblas/hipblas.h under USE_HIPBLAS). The pair is the file stems (at least two, and at
    least half of the CUDA directory's), and the AMD build is the sibling's own code: `rocm_code` gives, per file,
    the "path:line" of a ROCm header it includes or of a ROCm-side arm it holds. A sibling with no ROCm code (a CPU
    or OpenCL backend) is no counterpart: the CUDA directory's work stays open. Nor is a sibling whose headers the
    CUDA directory's files include (`includes`: per file, the names its quoted includes end in): that is code both
    builds share, and its ROCm arms say nothing of the CUDA directory."""
    by_dir: dict[str, list[str]] = {}
    for p in paths:
        if posix_path(p).suffix.lower() in _TREE_SUFFIXES:
            by_dir.setdefault(posixpath.dirname(p), []).append(p)
    by_parent: dict[str, list[str]] = {}
    for d in sorted(by_dir):
        if d:
            by_parent.setdefault(posixpath.dirname(d), []).append(d)
    out: dict[str, tuple[str, str]] = {}
    for kids in by_parent.values():
        for d in kids:
            _key, cuda, rocm = _dir_key(posixpath.basename(d))
            if not cuda or rocm:
                continue
            stems = {_stem(p) for p in by_dir[d]}
            for sib in kids:
                _k, s_cuda, s_rocm = _dir_key(posixpath.basename(sib))
                if sib == d or s_cuda or s_rocm:
                    continue
                shared = stems & {_stem(p) for p in by_dir[sib]}
                if len(shared) < 2 or 2 * len(shared) < len(stems):
                    continue
                theirs = {posixpath.basename(p) for p in by_dir[sib]} - {posixpath.basename(p) for p in by_dir[d]}
                if includes and any(includes.get(p, frozenset()) & theirs for p in by_dir[d]):
                    continue
                ev = next((rocm_code[p] for p in sorted(by_dir[sib]) if p in rocm_code), None)
                if ev is not None:
                    out[d] = (ev, f"{d}/ and {sib}/ share {len(shared)} file stems")
                    break
    return out


# An OpenCL header (Khronos' CL/cl.h, CL/cl2.hpp, CL/opencl.hpp; Apple's OpenCL/cl.h) or an OpenCL C kernel source
# pasted in by `#include "./opencl/cryptonight.cl"`: https://registry.khronos.org/OpenCL/specs/3.0-unified/html/
# OpenCL_API.html. A Vulkan header is another vendor-neutral API that no HIP build compiles.
_OTHER_MODEL_INCLUDE = re.compile(r"^[<\"]\s*(?:(?:CL|OpenCL)/\w+\.h(?:pp)?|vulkan/vulkan\w*\.h(?:pp)?|"
                                  r"[^<>\"]*\.cl)\s*[>\"]", re.I)


def other_model_dirs(named: dict[str, list[str]], includes: dict[str, list[tuple[int, str]]]) -> dict[str, str]:
    """Directory named for AMD (`backend/amd/`, by rocm_path_evidence) -> "path:line" of the OpenCL (or Vulkan)
    include that shows its code is written for another programming model, not HIP: xmr-stak's xmrstak/backend/amd/
    includes <OpenCL/cl.h> and pastes in its `.cl` kernels; the AMD GPUs run it, but no HIP/ROCm build compiles it, so
    it ports nothing of the CUDA backend beside it (backend/nvidia/). `named`: per such directory, its files;
    `includes`: per C/C++ file, its include directives (line, text as written). A directory with any HIP or ROCm
    code of its own (a `.hip` file, a HIP or ROCm library header included: rocm_header) stays ROCm by its name."""
    out: dict[str, str] = {}
    for d, paths in sorted(named.items()):
        if any(p.lower().endswith(".hip") for p in paths):
            continue
        seen = [(p, n, t) for p in sorted(paths) for n, t in includes.get(p, ())]
        if any(rocm_header(t) for _p, _n, t in seen):
            continue
        # an API header first, else an OpenCL C source pasted in
        hits = sorted((t.strip().lower().endswith(('.cl"', ".cl>")), p, n) for p, n, t in seen
                      if _OTHER_MODEL_INCLUDE.match(t.strip()))
        hit = f"{hits[0][1]}:{hits[0][2]}" if hits else None
        if hit is not None:
            out[d] = hit
    return out


def sibling_twin(path: str, rocm_paths: Iterable[str]) -> str | None:
    """The ROCm twin of a source in a directory named for CUDA: the file of the same stem in the sibling directory
    named for ROCm in its place, among `rocm_paths` (the files the ROCm build compiles): a spla pull request's
    `kernels/cuda/scale_rows.cu` under `if(SPLA_CUDA)` beside `kernels/rocm/scale_rows.hip` under `if(SPLA_ROCM)`.
    Each arm builds its own file, so neither arm names a twin (build_sides), yet the pair is one kernel per vendor."""
    d = posixpath.dirname(path)
    key, cuda, rocm = _dir_key(posixpath.basename(d))
    if not d or not cuda or rocm:
        return None
    parent, stem = posixpath.dirname(d), _stem(path)
    for p in sorted(rocm_paths):
        pd = posixpath.dirname(p)
        if posixpath.dirname(pd) != parent or _stem(p) != stem:
            continue
        k, c, r = _dir_key(posixpath.basename(pd))
        if r and not c and k == key:
            return p
    return None


# One definition on a line of its own: a constant (`constexpr auto X = ...;`, `static const int X = 4;`), an alias
# (`using X = ...;`, `typedef ... X;`) or a macro (`#define X ...`). Its name is the group.
_DEFINITION_LINE = re.compile(r"^\s*(?:(?:static\s+|inline\s+)*(?:constexpr|const)\b[^=;(){}]*?\b(\w+)\s*(?:=|\{)[^;]*;"
                              r"|using\s+(\w+)\s*=[^;]*;|typedef\b[^;]*?\b(\w+)\s*;|#\s*define\s+(\w+)\b.*)\s*(?://.*)?$")


def unused_arm(lines: list[str], first: int, last: int) -> list[str] | None:
    """The names an `#if` arm (1-based lines first..last, its directive lines excluded) defines when every line of
    it is blank, a comment or one definition (_DEFINITION_LINE), else None: spla's `#if (CUDART_VERSION >= 10000)`
    around `constexpr auto MemoryTypeUnregistered = ...;` and `MemoryTypeManaged`. When the repository uses none of
    the names elsewhere, the ROCm build dropping the arm drops nothing (unused_names decides that)."""
    names: list[str] = []
    for n in range(first, last + 1):
        row = lines[n - 1] if 0 < n <= len(lines) else ""
        s = row.strip()
        if not s or s.startswith(("//", "/*", "*")):
            continue
        m = _DEFINITION_LINE.match(row)
        if m is None:
            return None
        names.append(next(g for g in m.groups() if g))
    return names or None


def used_names(names: Iterable[str], texts: Iterable[tuple[str, bytes]], own: tuple[str, int, int]) -> set[str]:
    """Which of `names` a word of the repository's C/C++ text uses outside the arm that defines them (`own`: its
    path, first and last line). `texts`: (path, bytes) pairs, read lazily; the search stops once every name is seen.
    A file whose bytes hold none of the names left is neither decoded nor searched: the pattern begins with `\b` and
    an alternation, which Python's re tries at every character (nine such searches over FasterTransformer's 765
    C/C++ files took 0.35 CPU-s, each file decoded again for each), while bytes' substring search runs at memory
    speed; a name the decoded text holds is in the bytes as its UTF-8 (decoding with "replace" keeps valid
    sequences), so no file that could match is skipped."""
    left = set(names)
    found: set[str] = set()
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, left))) + r")\b") if left else None
    for path, data in texts:
        if pattern is None or not left:
            break
        if not any(name.encode("utf-8") in data for name in left):
            continue
        text = data.decode("utf-8", "replace")
        for m in pattern.finditer(text):
            if path == own[0] and own[1] <= text.count("\n", 0, m.start()) + 1 <= own[2]:
                continue
            found.add(m.group(1))
            left.discard(m.group(1))
        if not left:
            break
    return found


def counterpart_slot(path: str, root: str) -> tuple[str, str]:
    """Where a source under `root` sits in a pair of directories (directory_counterparts): its folder below `root`
    and its stem with vendor words out, so `src/cuda/x/scale_cuda.cu` under `src/cuda` and `src/hip/x/scale.hip`
    under `src/hip` share one."""
    rel = path[len(root) + 1:]
    return posixpath.dirname(rel), _source_key(_stem(rel))[0].replace("\0", "")


@functools.cache
def _vendor_prefixes() -> tuple[str, ...]:
    """A vendor's words (LIBRARY_PAIRS, and `cu`, `nv`, `roc`) as a prefix of a camel-case or run-together name
    (`cuWellContributions`, `rocsparseWellContributions`, `hipKernels`), longest first: core_stem takes one off."""
    return tuple(sorted({w for k, v in LIBRARY_PAIRS.items() for w in (k, *v)} | {"cu", "nv", "roc"},
                        key=lambda w: (-len(w), w)))


def core_stem(path: str) -> str:
    """A source's stem with its vendor words out, then letters and digits only, then one vendor prefix off
    (`cuWellContributions.cu` and `rocsparseWellContributions.cpp` are both `wellcontributions`, `scale_hip.cpp`
    and `scale.cu` both `scale`): the name of what a file implements, by which a ROCm directory holds a counterpart
    of a CUDA one's file under a vendor-prefixed name (OPM's gpubridge/cuda/ beside gpubridge/rocm/)."""
    name = re.sub(r"[^a-z0-9]", "", _source_key(_stem(path))[0])
    for w in _vendor_prefixes():
        if name.startswith(w) and len(name) > len(w):
            return name[len(w):]
    return name


def directory_counterparts(paths: Iterable[str]) -> dict[str, str | None]:
    """Source in a directory named for CUDA -> its counterpart in the sibling directory named for ROCm in its place
    (the same relative folder and stem once vendor words are gone, any source suffix), or None when it has none, for
    every such pair of directories that pairs file for file: at least two of the CUDA directory's sources have a
    counterpart and at least half do (blaspp's src/cuda/device_conj.cu beside src/hip/device_conj.hip, each under
    its build's arm). There the ROCm directory is a set of twins, not a component of its own: a CUDA source without a
    twin (a pull request's new src/cuda/device_scale.cu) is no file the ROCm build replaces, so its work is open.
    A pair of directories holding different files (tilelang's tl_templates/cuda beside tl_templates/hip) is no such
    set: it is left out, and component_twins decides it as a whole."""
    by_dir: dict[str, list[str]] = {}
    for p in paths:
        if posix_path(p).suffix.lower() in _TREE_SUFFIXES:
            parts = p.split("/")
            for i in range(1, len(parts)):
                by_dir.setdefault("/".join(parts[:i]), []).append(p)
    out: dict[str, str | None] = {}
    for d in sorted(by_dir):
        key, cuda, rocm = _dir_key(posixpath.basename(d))
        if not cuda or rocm:
            continue
        parent = posixpath.dirname(d)
        sibs = [s for s in by_dir if posixpath.dirname(s) == parent and s != d
                and (lambda k: k[0] == key and k[2] and not k[1])(_dir_key(posixpath.basename(s)))]
        if not sibs:
            continue

        slot = counterpart_slot
        theirs: dict[tuple[str, str], str] = {}
        for s in sibs:
            for p in sorted(by_dir[s]):
                theirs.setdefault(slot(p, s), p)
        mine = {p: theirs.get(slot(p, d)) for p in by_dir[d]}
        paired = sum(1 for t in mine.values() if t is not None)
        if paired >= 2 and 2 * paired >= len(mine):
            for p, t in mine.items():
                out.setdefault(p, t)
    return out


# A CUDA library's (or platform's) word -> its ROCm counterparts' words: the HIP and ROCm ports of NVIDIA's math and
# communication libraries (https://rocm.docs.amd.com/en/latest/reference/api-libraries.html): cuBLAS / rocBLAS /
# hipBLAS, cuFFT / rocFFT / hipFFT, cuRAND / rocRAND / hipRAND, cuSPARSE, cuSOLVER, NCCL / RCCL, cuDNN / MIOpen,
# CUB / hipCUB, NVTX / ROCTX.
LIBRARY_PAIRS = {"cuda": ("hip", "rocm"), "cublas": ("rocblas", "hipblas"), "cublaslt": ("hipblaslt",),
                 "cufft": ("rocfft", "hipfft"), "curand": ("rocrand", "hiprand"),
                 "cusparse": ("rocsparse", "hipsparse"), "cusolver": ("rocsolver", "hipsolver"),
                 "nccl": ("rccl",), "cudnn": ("miopen",), "cub": ("hipcub",), "nvtx": ("roctx",),
                 "nvidia": ("amd",)}
_NAME_PART = re.compile(r"[A-Za-z0-9]+")


def rocm_spellings(name: str) -> set[str]:
    """`name` in lower case with one CUDA library word among its `_`/`-`/`.`-separated parts spelled for ROCm, each
    way (`blas_have_cublas` -> `blas_have_rocblas`, `blas_have_hipblas`; `cublas` -> `rocblas`, `hipblas`)."""
    return {spelled for spelled, _word in _spellings(name)}


def _spellings(name: str) -> Iterable[tuple[str, str]]:
    """rocm_spellings with the ROCm word each put in."""
    low = name.lower()
    for m in _NAME_PART.finditer(low):
        for twin in LIBRARY_PAIRS.get(m.group(0), ()):
            yield low[:m.start()] + twin + low[m.end():], twin


def library_twin_candidates(paths: Iterable[str]) -> dict[str, list[tuple[str, str]]]:
    """Source or header named for a CUDA library -> the files beside it (same folder, same kind) named for that
    library's ROCm counterpart in its place, each with that counterpart's word: blaspp's config/cublas.cc beside config/rocblas.cc. Candidates only: the
    caller keeps a pair when the twin's text uses the ROCm library (a file named rocblas.cc that never calls rocBLAS
    is no port)."""
    by_folder: dict[str, dict[str, list[str]]] = {}
    for p in sorted(paths):
        pp = posix_path(p)
        if pp.suffix.lower() in _TREE_SUFFIXES:
            by_folder.setdefault(posixpath.dirname(p), {}).setdefault(pp.name[: -len(pp.suffix)].lower(), []).append(p)
    out: dict[str, list[tuple[str, str]]] = {}
    for stems in by_folder.values():
        for stem, ps in stems.items():
            twins = [(t, w) for s, w in sorted(_spellings(stem)) for t in stems.get(s, ())]
            for p in ps:
                mine = [(t, w) for t, w in twins if _kind(t) in (_kind(p), "hip")]
                if mine:
                    out[p] = mine
    return out


# A shell `if`/`elif` test naming one vendor by a word of its own: `[ "${device}" = "gpu_nvidia" ]`,
# `[[ $backend == cuda ]]`, `command -v hipcc`. Words are read at word starts and ends (`gpu_amd`, not `camd`).
_SH_AMD = lazy_regex(r"(?i)(?<![a-z0-9])(?:amd|amdgpu|hip|hipcc|rocm|rocm-smi|roc)(?![a-z0-9])")
_SH_NV = lazy_regex(r"(?i)(?<![a-z0-9])(?:nvidia|nv|cuda|nvcc|nvidia-smi)(?![a-z0-9])")
_SH_KEY = lazy_regex(r"^\s*(if|elif|else|fi)(?=\s|;|$)(.*)$")


def shell_vendor_arms(text: str) -> list[tuple[int, int, str, int]]:
    """(first line, last line, side, the test's line) of each arm of a shell `if`/`elif` chain that tests for one
    vendor, when the chain has an arm for each vendor and the ROCm arm runs a command: blaspp's CI setup_env.sh
    loads CUDA and runs `nvcc --version` under `if [ "${device}" = "gpu_nvidia" ]` beside `elif [ "${device}" =
    "gpu_amd" ]`, which loads ROCm and runs `hipcc --version`. The CUDA arm is that script's NVIDIA side, ported by
    its twin; a chain with no AMD arm, or an AMD arm of only comments, leaves it open. Read by lines: a keyword
    starts a line (after blanks), as the scripts porter reads write them; `case` is not read."""
    lines = text.split("\n")
    out: list[tuple[int, int, str, int]] = []
    stack: list[list[tuple[int, str | None]]] = []  # per open `if`: (arm line, side of its test)
    for n, row in enumerate(lines, 1):
        m = _SH_KEY().match(row)
        if m is None:
            continue
        kind, rest = m.groups()
        if kind == "if":
            stack.append([])
        if not stack:
            continue
        if kind in ("if", "elif"):
            test = rest.split("then", 1)[0]
            amd, nv = bool(_SH_AMD().search(test)), bool(_SH_NV().search(test))
            stack[-1].append((n, ROCM if amd and not nv else CUDA if nv and not amd else None))
        elif kind == "else":
            stack[-1].append((n, None))
        else:
            arms = stack.pop()
            spans = [(a, (arms[i + 1][0] if i + 1 < len(arms) else n) - 1, s) for i, (a, s) in enumerate(arms)]
            ported = any(s == ROCM and any(lines[k - 1].strip() and not lines[k - 1].lstrip().startswith("#")
                                           for k in range(a + 1, b + 1)) for a, b, s in spans)
            if ported and any(s == CUDA for _a, _b, s in spans):
                out.extend((a, b, s, a) for a, b, s in spans if s in (CUDA, ROCM))
    return sorted(out)


# Commands that configure the targets they name first (https://cmake.org/cmake/help/latest/manual/cmake-commands.7.html)
_CM_TARGET_FIRST = frozenset({"target_compile_options", "target_link_options", "target_compile_definitions",
                              "target_compile_features", "target_include_directories", "target_link_libraries",
                              "target_sources", "target_precompile_headers", "add_library", "add_executable",
                              "add_custom_target"})
# The keywords that end set_property(TARGET t ...)'s target list.
_CM_SET_PROPERTY_END = frozenset({"APPEND", "APPEND_STRING", "PROPERTY"})


def cmake_targets(c: CMakeCommand) -> tuple[str, ...]:
    """The targets one CMake command configures or creates, as its arguments spell them (`TCore`,
    `${TARGET_NAME}`): set_target_properties' names before PROPERTIES, set_property(TARGET ...)'s, and the first
    argument of target_*() and add_library/add_executable/add_custom_target; () for any other command."""
    if c.name == "set_target_properties":
        return tuple(a for a in itertools.takewhile(lambda a: a != "PROPERTIES", c.args) if a)
    if c.name == "set_property":
        if not c.args or c.args[0] != "TARGET":
            return ()
        return tuple(a for a in itertools.takewhile(lambda a: a not in _CM_SET_PROPERTY_END, c.args[1:]) if a)
    if c.name in _CM_TARGET_FIRST and c.args and c.args[0]:
        return (c.args[0],)
    return ()


def cmake_units(cmds: list[CMakeCommand]) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, str]]]:
    """Which build unit narrower than its CMake project each line of a CMake file configures, and what each of its
    commands names: the facts rocm_reach reads once the file's arms are known (RocmBuild's stand-in is per
    project; a target or a generator function is built by the ROCm build only where that build reaches it).

    Units: (first line, last line, key) of each function()/macro() body that creates or configures targets (key
    `function:NAME`: every line in it, the reads of CMake's CUDA variables that pick its targets' architectures too)
    and of each target command outside such a body (`target:T1 T2`: set_target_properties(T1 T2 PROPERTIES ...),
    set_property(TARGET ...), target_*(T ...)). A line in neither configures the project as a whole.
    Names: (first line, last line, key) of each function()/macro() body (`body:NAME`), each command (`function:NAME`,
    a call of a function of that name if the project defines one) and each target it creates or configures
    (`target:T`)."""
    bodies: list[tuple[int, int, str]] = []
    opened: tuple[int, str, str] | None = None  # (line, name, "function" or "macro")
    for c in cmds:
        if c.name in ("function", "macro") and opened is None and c.args:
            opened = (c.line, c.args[0].lower(), c.name)
        elif opened is not None and c.name == "end" + opened[2]:
            bodies.append((opened[0], c.end_line or c.line, opened[1]))
            opened = None
    units = [(first, last, f"function:{name}") for first, last, name in bodies
             if any(cmake_targets(c) for c in cmds if first < c.line <= last)]
    names = [(first, last, f"body:{name}") for first, last, name in bodies]
    for c in cmds:
        targets = cmake_targets(c)
        last = c.end_line or c.line
        in_body = any(first <= c.line <= end for first, end, _n in bodies)
        if targets and not in_body and c.name not in ("add_library", "add_executable", "add_custom_target"):
            units.append((c.line, last, "target:" + " ".join(targets)))
        names.append((c.line, last, f"function:{c.name}"))
        names.extend((c.line, last, f"target:{t}") for t in targets)
    return sorted(units), names


def rocm_reach(names: Sequence[tuple[int, int, str]], regions: Sequence[tuple[int, int, str, int]],
               rocm_lines: Sequence[int]) -> set[str]:
    """The units (cmake_units' keys) a CMake file's ROCm build reaches, from its names (cmake_units), its arms
    (`regions`: those of side ROCm) and its HIP-language lines: `function:NAME` for a function whose body holds a
    ROCm arm or HIP-language line, or that a ROCm arm calls; `target:T` for each target a ROCm arm or HIP-language
    line creates or configures. (MRay's generator functions each have an MRAY_GPU_BACKEND_HIP arm; its OptiX-IR
    generator and its TCore test target have none.)"""
    rocm = [(a, b) for a, b, s, _g in regions if s == ROCM] + [(n, n) for n in rocm_lines]
    out: set[str] = set()
    for first, last, key in names:
        if key.startswith("body:"):
            if any(first <= a <= last for a, _b in rocm):
                out.add("function:" + key[5:])
        elif any(a <= first <= b or first <= a <= last for a, b in rocm):
            out.add(key)
    return out


# A variable read in CMake text (`${MRAY_CUDA_OPTIONS}`).
_CM_VARIABLE_USE = re.compile(r"\$\{(\w+)\}")
# Commands that write the variable their first (or second, after a mode word) argument names.
_CM_LIST_WRITES = frozenset({"APPEND", "PREPEND", "INSERT", "REMOVE_ITEM", "REMOVE_AT", "REMOVE_DUPLICATES",
                             "FILTER", "TRANSFORM", "SORT", "REVERSE"})


def cmake_variable_facts(text: str, cmds: list[CMakeCommand], spans: Sequence[tuple[int, int, int, int]]
                         ) -> tuple[list[tuple[str, int, int]], list[tuple[str, int, int]]]:
    """A CMake file's writes of its own variables - (name, first line, last line) of each set(NAME ...),
    list(APPEND NAME ...), string(APPEND NAME ...) - and, per variable it reads as `${NAME}`, (name, reads inside a
    CUDA-language span, other reads): `spans` are the file's CUDA-language spans (cuda_language_spans,
    cuda_property_spans). A write's own `${NAME}` (`set(V ${V} -x)`) is no read of it; CMake's own variables
    (CMAKE_*, which CMake reads itself) are left out. cuda_only_variables reads these over the repository."""
    writes: list[tuple[str, int, int]] = []
    for c in cmds:
        name = None
        if c.name == "set" and c.args:
            name = c.args[0]
        elif c.name in ("list", "string") and len(c.args) > 1 and c.args[0].upper() in (_CM_LIST_WRITES | {"APPEND"}):
            name = c.args[1]
        if name and re.fullmatch(r"\w+", name) and not name.startswith("CMAKE_"):
            writes.append((name, c.line, c.end_line or c.line))
    own = {(n, line) for n, a, b in writes for line in range(a, b + 1)}
    reads: dict[str, list[int]] = {}
    for number, raw in enumerate(text.split("\n"), 1):
        if raw.lstrip().startswith("#"):
            continue
        for m in _CM_VARIABLE_USE.finditer(raw):
            name = m.group(1)
            if name.startswith("CMAKE_") or (name, number) in own:
                continue
            at = (number, m.start() + 1)
            inside = any((n, a) <= at < (e, b) for n, a, e, b in spans)
            count = reads.setdefault(name, [0, 0])
            count[0 if inside else 1] += 1
    return writes, [(n, c[0], c[1]) for n, c in sorted(reads.items())]


def cuda_only_variables(reads: Iterable[tuple[str, int, int]]) -> set[str]:
    """The variables every read of which, over all of a repository's CMake files (cmake_variable_facts), sits in a
    CUDA-language span: MRay's MRAY_CUDA_OPTIONS, read only in `$<$<COMPILE_LANGUAGE:CUDA>:${MRAY_CUDA_OPTIONS}>`.
    Its nvcc options reach CUDA-language compiles only, as if written in that expression."""
    inside: dict[str, int] = {}
    outside: dict[str, int] = {}
    for name, n_in, n_out in reads:
        inside[name] = inside.get(name, 0) + n_in
        outside[name] = outside.get(name, 0) + n_out
    return {n for n, k in inside.items() if k and not outside.get(n)}
