"""Give a project's build files a ROCm branch beside the CUDA one: CMake, Makefiles and setup.py.

CMake: `option(USE_ROCM)`, the CUDA language kept for the CUDA build and HIP enabled for ROCm (`enable_language(HIP)`,
`CMAKE_HIP_ARCHITECTURES` defaulting to the chosen gfx targets, `USE_ROCM` defined for the code), `find_package(CUDAToolkit)` beside
`find_package(hip)` and the ROCm packages of the libraries linked, CUDA-only settings (`CMAKE_CUDA_ARCHITECTURES`,
`CMAKE_CUDA_FLAGS`) under `if(NOT USE_ROCM)`, `target_link_libraries` with CUDA targets given their ROCm packages
(rules/kb/buildfiles.yaml), and the `.cu` sources the file names marked `LANGUAGE HIP` for the ROCm build.
Makefiles: a `USE_ROCM=1` branch that sets the nvcc variable to `hipcc -DUSE_ROCM`, its flags to hipcc's and the CUDA libraries
to their ROCm ones. setup.py with torch's CUDAExtension: PyTorch hipifies at build time on ROCm, so nothing is
written; nvcc-only flags it passes (`-arch=sm_*`, `-gencode`) are listed as open work with their finding.
Build files are only read, never run.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from porter.model import Finding
from porter.port.model import Change, OpenItem
from porter.translate.buildfiles import nvcc_option, nvcc_value

OPTION = 'option(USE_ROCM "Build for AMD GPUs with HIP (porter port)" OFF)'
_CMD = re.compile(r"(?im)^([ \t]*)([A-Za-z_]\w*)[ \t]*\(")
_CUDA_LINK = re.compile(r"^(?:CUDA::(\w+)|(cudart|cublas|cublasLt|cufft|curand|cusparse|cusolver|cuda|nvrtc))$")
_NVCC_ARCH = re.compile(r"^(?:-arch(?:=|$)|--gpu-architecture|-gencode|--generate-code|-code=|--gpu-code)")


@dataclass
class BuildWork:
    path: str
    text: str
    edits: list[tuple[int, int, str]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    open_work: list[OpenItem] = field(default_factory=list)
    answered_lines: set[int] = field(default_factory=set)

    def line_of(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def result(self) -> str:
        out, pos = [], 0
        for s, e, t in sorted(self.edits, key=lambda x: (x[0], x[1])):
            if s < pos:
                continue
            out += [self.text[pos:s], t]
            pos = e
        return "".join(out) + self.text[pos:]


def _commands(text: str):
    """(indent start, name, start, end) of each command invocation, `end` after its `)`; comments skipped."""
    pos = 0
    while True:
        m = _CMD.search(text, pos)
        if not m:
            return
        depth, i, quote = 1, m.end(), False
        while i < len(text) and depth:
            c = text[i]
            if quote:
                if c == "\\":
                    i += 1
                elif c == '"':
                    quote = False
            elif c == '"':
                quote = True
            elif c == "#":
                nl = text.find("\n", i)
                i = len(text) if nl < 0 else nl
                continue
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            i += 1
        yield m.start(), m.group(2).lower(), m.start(2), i, m.group(1)
        pos = i


def _args(text: str) -> list[str]:
    # An unclosed command (`foo(` at the end of a hostile or half-edited file) has no `)`: its arguments run to the end.
    close = text.rfind(")")
    inner = text[text.index("(") + 1:close if close > text.index("(") else len(text)]
    inner = re.sub(r"#[^\n]*", "", inner)
    return re.findall(r'"[^"]*"|[^\s()"]+', inner)


def port_cmake(work: BuildWork, tables: dict, gfx: tuple[str, ...]) -> None:
    """Plan the CMake file's ROCm branch into `work` (nothing when it already has USE_ROCM)."""
    text = work.text
    if re.search(r"\bUSE_ROCM\b", text):
        return
    cmds = list(_commands(text))
    targets_map = tables.get("cmake_targets", {})
    libs = tables.get("link_libraries", {})
    rocm_packages: set[str] = set()
    hip_arch = ";".join(gfx)
    languages_done = False
    option_at = None
    for line_start, name, start, end, indent in cmds:
        body = text[start:end]
        args = _args(body)
        line = work.line_of(start)
        if name == "cmake_minimum_required" and option_at is None:
            option_at = _line_end(text, end)
        if name == "project" and any(a.upper() == "CUDA" for a in args):
            new = re.sub(r"[ \t]+CUDA\b(?=[\s)])", "", body, count=1)
            work.edits.append((start, end, new))
            block = (f"\n{indent}if(USE_ROCM)\n{indent}  if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)\n"
                     f"{indent}    set(CMAKE_HIP_ARCHITECTURES \"{hip_arch}\")\n{indent}  endif()\n"
                     f"{indent}  enable_language(HIP)\n{indent}  add_compile_definitions(USE_ROCM)\n"
                     f"{indent}else()\n{indent}  enable_language(CUDA)\n{indent}endif()")
            work.edits.append((end, end, block))
            work.answered_lines.add(line)
            languages_done = True
            work.changes.append(Change(work.path, line, "cmake", None,
                                       "CUDA language for the CUDA build, HIP (enable_language) for USE_ROCM"))
            if option_at is None:
                option_at = line_start
        elif name == "enable_language" and any(a.upper() == "CUDA" for a in args) and not languages_done:
            _wrap(work, line_start, end, indent,
                  f"if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)\n{indent}    set(CMAKE_HIP_ARCHITECTURES "
                  f"\"{hip_arch}\")\n{indent}  endif()\n{indent}  enable_language(HIP)\n"
                  f"{indent}  add_compile_definitions(USE_ROCM)")
            work.answered_lines.add(line)
            languages_done = True
        elif name == "find_package" and args and args[0] in ("CUDA", "CUDAToolkit"):
            _wrap(work, line_start, end, indent, "@FIND_PACKAGES@")
            work.answered_lines.add(line)
        elif name == "set" and args and re.fullmatch(r"CMAKE_CUDA_\w+|CUDA_NVCC_FLAGS\w*", args[0]):
            work.edits.append((line_start, end, f"{indent}if(NOT USE_ROCM)\n{indent}  "
                                                + text[start:end] + f"\n{indent}endif()"))
            work.answered_lines.add(line)
            work.changes.append(Change(work.path, line, "cmake", None, f"{args[0]} only for the CUDA build"))
        elif name == "target_compile_features" and any(re.fullmatch(r"cuda_std_\d+", a) for a in args):
            # CMake rejects a cuda_std_* feature when the CUDA language is not enabled (the ROCm build).
            variables = tables.get("cmake_variables", {})
            hip_args = [variables.get(a, a) for a in args]
            _wrap(work, line_start, end, indent, f"target_compile_features({' '.join(hip_args)})")
            work.answered_lines.add(line)
        elif name in ("target_link_libraries", "link_libraries"):
            mapped, cuda = [], False
            for a in args:
                m = _CUDA_LINK.match(a)
                if not m:
                    mapped.append(a)
                    continue
                cuda = True
                tgt = f"CUDA::{m.group(1)}" if m.group(1) else a
                rocm = targets_map.get(tgt) or ("hip::host" if libs.get(a) == "amdhip64" else
                                                (f"roc::{libs[a]}" if a in libs else None))
                if rocm:
                    mapped.append(rocm)
                    if rocm != "hip::host":
                        rocm_packages.add(rocm.split("::", 1)[1])
                else:
                    work.open_work.append(OpenItem(work.path, line, "LIB006", f"{a}: no ROCm package to link",
                                                   f"LIB006 {work.path}:{line}"))
            if cuda:
                hip_call = f"{text[start:text.index('(', start)]}({' '.join(mapped)})"
                _wrap(work, line_start, end, indent, hip_call)
                work.answered_lines.add(line)
    for i, (s, e, t) in enumerate(work.edits):
        if "@FIND_PACKAGES@" in t:
            pk = ["find_package(hip REQUIRED)"] + [f"find_package({p} REQUIRED)" for p in sorted(rocm_packages)]
            ind = text[s:len(text[s:]) - len(text[s:].lstrip(" \t")) + s]
            work.edits[i] = (s, e, t.replace("@FIND_PACKAGES@", f"\n{ind}  ".join(pk)))
    sources = sorted(set(re.findall(r"(?<![\w${}/.-])((?:[\w.-]+/)*[\w.-]+\.cu)\b", _strip_comments(text))))
    if sources and languages_done:
        work.edits.append((len(text), len(text),
                           ("" if text.endswith("\n") else "\n")
                           + "\n# porter port: the CUDA sources compile as HIP in the ROCm build\nif(USE_ROCM)\n"
                           + "  set_source_files_properties(" + " ".join(sources) + " PROPERTIES LANGUAGE HIP)\n"
                           + "endif()\n"))
        work.changes.append(Change(work.path, work.line_of(len(text)), "cmake", None,
                                   f"{len(sources)} .cu source(s) LANGUAGE HIP for USE_ROCM"))
    if work.edits:
        at = option_at if option_at is not None else 0
        work.edits.append((at, at, OPTION + "\n" if at == 0 or text[at - 1] == "\n" else "\n" + OPTION))
        work.changes.append(Change(work.path, work.line_of(at), "cmake", None, "option(USE_ROCM)"))


def _strip_comments(text: str) -> str:
    return re.sub(r"#[^\n]*", "", text)


def _line_end(text: str, pos: int) -> int:
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


def _wrap(work: BuildWork, start: int, end: int, indent: str, rocm: str) -> None:
    """`if(USE_ROCM) <rocm> else() <the original command> endif()` in place of the command."""
    original = work.text[start:end].lstrip(" \t")
    work.edits.append((start, end, f"{indent}if(USE_ROCM)\n{indent}  {rocm}\n{indent}else()\n{indent}  "
                                   f"{original}\n{indent}endif()"))
    work.changes.append(Change(work.path, work.line_of(start), "cmake", None,
                               f"{original.split('(')[0].strip()}: ROCm branch beside the CUDA one"))


# Options that make a variable nvcc's flags without a table entry (architecture options and their families).
_NVCC_FLAGS_HINT = re.compile(r"(?:^|\s)(?:-arch[= ]|-gencode|--gpu-architecture|--expt-)")
_ASSIGN = re.compile(r"(?m)^([A-Za-z_]\w*)[ \t]*(\?=|:=|\+=|=)[ \t]*(.*?)[ \t]*$")


def map_nvcc_flags(value: str, tables: dict, gfx: tuple[str, ...]) -> str:
    """nvcc options in a flag string as hipcc's: architecture options become --offload-arch, the rest by the table."""
    out, arch_done, skip, pending = [], False, False, ("", "")
    for w in value.split():
        if skip:
            skip = False
            continue
        option, mode = pending
        if mode:
            out.append(nvcc_value(option, mode, w, tables))
            pending = ("", "")
            continue
        if _NVCC_ARCH.match(w):
            if w in ("-arch", "-gencode", "--generate-code", "--gpu-architecture"):
                skip = True
            if not arch_done:
                out += [f"--offload-arch={g}" for g in gfx]
                arch_done = True
            continue
        mapped, mode = nvcc_option(w, tables)
        if mode:
            pending = (w, mode)
            continue
        out.append(mapped)
    return " ".join(o for o in out if o)


def _nvcc_only(value: str, tables: dict) -> bool:
    """Whether a Makefile variable's value holds an option only nvcc takes (so it is nvcc's flag variable): an
    architecture option or one rules/kb/buildfiles.yaml maps (-m64, which host compilers take too, aside)."""
    if _NVCC_FLAGS_HINT.search(value):
        return True
    for w in value.split():
        if w != "-m64" and (w in tables["nvcc_flags"] or
                            w.partition("=")[0] in tables.get("nvcc_options_with_value", {})):
            return True
    return False


def port_make(work: BuildWork, tables: dict, gfx: tuple[str, ...]) -> None:
    """Plan a Makefile's `USE_ROCM=1` branch: hipcc for the nvcc variable, its flags and the ROCm libraries."""
    text = work.text
    if re.search(r"\bUSE_ROCM\b", text):
        return
    libs = tables.get("link_libraries", {})
    assigns = list(_ASSIGN.finditer(text))
    compiler_vars = [m for m in assigns if re.fullmatch(r"(?:\S*/)?nvcc", m.group(3))]
    if not compiler_vars and not re.search(r"(?m)^\t[^\n]*\bnvcc\b", text):
        return
    lines = []
    for m in compiler_vars:
        # USE_ROCM on the compiler: the project's own `#ifdef USE_ROCM` code and the port's guards both see it.
        lines.append(f"{m.group(1)} := hipcc -DUSE_ROCM")
    for m in assigns:
        if m in compiler_vars:
            continue
        value = m.group(3)
        if _nvcc_only(value, tables):
            mapped = map_nvcc_flags(value, tables, gfx)
            op = "+=" if m.group(2) == "+=" else ":="
            lines.append(f"{m.group(1)} {op} {mapped}".rstrip())
    link_edits = []
    for m in re.finditer(r"(?<![\w$(-])-l(cudart|cublasLt|cublas|cufft|curand|cusparse|cusolver|nvrtc|cuda)\b", text):
        lib = m.group(1)
        var = f"PORTER_LIB_{lib.upper()}"
        link_edits.append((m.start(), m.end(), f"$({var})"))
        rocm = libs.get(lib)
        lines.append(f"@LIB {var} {lib} {rocm or ''}")
    recipe_nvcc = [(m.start(1), m.end(1)) for m in re.finditer(r"(?m)^\t[^\n]*?(?<![\w$(/-])(nvcc)\b", text)]
    rocm_lines, cuda_lines, seen = [], [], set()
    for entry in lines:
        if entry.startswith("@LIB "):
            _, var, lib, rocm = (entry.split(" ") + [""])[:4]
            if var in seen:
                continue
            seen.add(var)
            rocm_lines.append(f"{var} := -l{rocm}" if rocm else f"{var} :=")
            cuda_lines.append(f"{var} := -l{lib}")
            if not rocm:
                work.open_work.append(OpenItem(work.path, 1, "LIB006", f"-l{lib}: no ROCm library",
                                               f"LIB006 {work.path}:1"))
        else:
            rocm_lines.append(entry)
    # Host units a C/C++ compiler builds (`$(CXX) $(CXXFLAGS) -c host.cpp`): the port guards their CUDA includes with
    # USE_ROCM too, so the ROCm build hands that compiler USE_ROCM and HIP's host defines and include path
    # (hipconfig --cpp_config), or it compiles the CUDA branch and stops at <cuda_runtime.h>.
    for var in _host_flag_vars(text):
        rocm_lines.append(f"{var} += -DUSE_ROCM $(shell HIP_PLATFORM=amd hipconfig --cpp_config)")
    if recipe_nvcc and not compiler_vars:
        rocm_lines.insert(0, "NVCC := hipcc -DUSE_ROCM")
        cuda_lines.insert(0, "NVCC ?= nvcc")
        for s, e in recipe_nvcc:
            link_edits.append((s, e, "$(NVCC)"))
    names = [m.group(1) for m in compiler_vars] or ["NVCC"]
    after_source = _inputs_after_sources(text, names)
    if after_source:
        rocm_lines.append(f"{X_NONE} := -x none")
        cuda_lines.append(f"{X_NONE} :=")
        link_edits.extend((at, at, f"$({X_NONE}) ") for at in after_source)
    if not rocm_lines:
        return
    # HIP_PLATFORM: a hipcc that finds nvcc on the machine (Debian's) compiles for NVIDIA without it.
    block = ["", "# porter port: `make USE_ROCM=1` builds for AMD GPUs with hipcc (the .cu sources compile as HIP)",
             "ifeq ($(USE_ROCM),1)", "export HIP_PLATFORM := amd", *rocm_lines]
    block += (["else", *cuda_lines] if cuda_lines else []) + ["endif"]
    # After the last variable assignment before the first rule, so the branch overrides what the file set.
    first_rule = re.search(r"(?m)^[^\s#=][^=\n]*:(?!=)", text)
    before = [m for m in assigns if first_rule is None or m.start() < first_rule.start()]
    at = _line_end(text, before[-1].end()) if before else 0
    work.edits.append((at, at, "\n".join(block) + "\n"))
    work.edits.extend(link_edits)
    work.changes.append(Change(work.path, work.line_of(at), "make", None,
                               "USE_ROCM=1 branch: hipcc, offload-arch flags, ROCm libraries"))


# hipcc (5.2.3's hipcc.pl, checked) puts `-x hip` before each .cu input and nothing after it, so an object file or
# archive later on the same line (`$(NVCC) -o app k.cu host.o`) is compiled as HIP source and the link fails; clang
# reads a file after `-x none` by its suffix again. nvcc takes no `-x none`: the CUDA branch sets it empty.
X_NONE = "PORTER_X_NONE"
# Options whose value is the next word (not an input file).
_VALUE_OPTIONS = frozenset({"-o", "-I", "-L", "-l", "-x", "-D", "-U", "-include", "-isystem", "-Xlinker", "-Xcompiler",
                            "-ccbin", "--compiler-bindir", "--output-file", "-arch", "-gencode", "-code", "-MF", "-MT"})
_SHELL_END = frozenset({"&&", "||", ";", "|", ">", ">>", "<", "2>", "&>"})


def _inputs_after_sources(text: str, compilers: list[str]) -> list[int]:
    """Where `$(PORTER_X_NONE) ` goes on recipe lines that run the CUDA compiler (a variable of `compilers`, or
    nvcc): before the first input word of each run of non-.cu inputs that follows a .cu input on the command."""
    run = re.compile(r"(?:\$[({](?:" + "|".join(re.escape(c) for c in compilers) + r")[)}]|(?<![\w$(/-])nvcc\b)")
    out: list[int] = []
    for line in re.finditer(r"(?m)^\t[^\n]*", text):
        start = run.search(line.group(0))
        if start is None:
            continue
        seen_cu, gap_open, prev = False, False, ""
        for w in re.finditer(r"\S+", line.group(0)[start.end():]):
            word = w.group(0)
            if word in _SHELL_END or word.endswith(";"):
                break
            if word.startswith("-") or prev in _VALUE_OPTIONS:
                prev = word
                continue
            prev = word
            if re.search(r"\.(?:cu|cuh)$", word):
                seen_cu, gap_open = True, False
            elif seen_cu and not gap_open:
                out.append(line.start() + start.end() + w.start())
                gap_open = True
    return out


# A recipe line that runs a host C/C++ compiler (GNU make's variables or the compilers by name), and the flag
# variables it names.
_HOST_COMPILE = re.compile(r"(?m)^\t[^\n]*?(?:\$[({](?:CXX|CC)[)}]|(?<![\w/.-])(?:g\+\+|gcc|c\+\+|clang\+\+|clang)(?![\w.+-]))"
                           r"[^\n]*")
_FLAG_VAR = re.compile(r"\$[({](\w*FLAGS)[)}]")


def _host_flag_vars(text: str) -> list[str]:
    """The flag variables the host-compiler recipe lines use (`$(CXXFLAGS)`, `$(CPPFLAGS)`), in order of first use;
    LDFLAGS is the linker's."""
    out: list[str] = []
    for m in _HOST_COMPILE.finditer(text):
        for v in _FLAG_VAR.findall(m.group(0)):
            if v not in out and v != "LDFLAGS" and "NVCC" not in v.upper() and "CUDA" not in v.upper():
                out.append(v)
    return out


def setup_open_work(path: str, findings: list[Finding]) -> list[OpenItem]:
    """setup.py: PyTorch hipifies CUDAExtension sources at build time on ROCm; what it cannot do is nvcc-only flags."""
    out = []
    for f in findings:
        if f.rule in ("BLD006",) and f.status.value == "open":
            out.append(OpenItem(path, f.line, f.rule, "nvcc-only flag in a CUDAExtension: give ROCm builds "
                                                      "(torch.version.hip) hipcc's flags; PyTorch's hipify does not "
                                                      "map flags", f"{f.rule} {f.path}:{f.line}"))
    return out


def kind_of(path: str) -> str | None:
    base = posixpath.basename(path)
    if base == "CMakeLists.txt" or base.endswith(".cmake"):
        return "cmake"
    if base in ("Makefile", "makefile", "GNUmakefile") or base.endswith((".mk", ".make")):
        return "make"
    if base == "setup.py":
        return "setup"
    return None
