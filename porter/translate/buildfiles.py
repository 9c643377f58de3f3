"""Migrate build files with the sources: CMakeLists to the HIP language, Makefiles from nvcc to hipcc, PyTorch advice.

HIPIFY migrates no build file. Here, from rules/kb/buildfiles.yaml:
- CMake (CMakeLists.txt, *.cmake): the CUDA language becomes HIP (`project(... CUDA)`, `enable_language(CUDA)`),
  `find_package(CUDAToolkit|CUDA)` becomes `find_package(hip REQUIRED)`, `CMAKE_CUDA_ARCHITECTURES` becomes
  `CMAKE_HIP_ARCHITECTURES` set to the selected gfx targets, `CUDA::` imported targets their ROCm ones, CUDA flags
  and properties their HIP names (nvcc-only options mapped or dropped), and the `.cu` sources the file names get
  `LANGUAGE HIP` (CMake compiles `.cu` as CUDA otherwise).
- Makefiles (Makefile, makefile, GNUmakefile, *.mk): `nvcc` becomes `hipcc`, `-arch=sm_XX` / `-gencode ...` become
  `--offload-arch=gfxNNN` for the selected targets, nvcc-only options and `-lcudart`-style libraries are mapped.
- setup.py with PyTorch's CUDAExtension/BuildExtension: not rewritten; the advice that PyTorch's ROCm build runs
  its own hipify over the extension (torch.utils.cpp_extension), so the CUDA spelling is what it expects.
Every change is a TRN018 finding at its line saying what changed and why.
"""
from __future__ import annotations

import functools
import re
from collections import Counter
from pathlib import Path, PurePosixPath

from porter import contain
from porter.datafile import DATA_DIR, read_yaml
from porter.errors import DataFileError
from porter.translate.engines.builtin import make_finding, sorted_findings
from porter.translate.model import FileTranslation

BUILDFILES_FILE = DATA_DIR / "kb" / "buildfiles.yaml"
MAX_BUILD_FILE = 2 * 1024 * 1024
_SM = re.compile(r"(?:sm|compute)_(\d+)[a-z]?")


class BuildFilesError(DataFileError):
    """rules/kb/buildfiles.yaml cannot be used."""


@functools.lru_cache(maxsize=2)
def load_tables(path: Path = BUILDFILES_FILE) -> dict:
    raw = read_yaml(path, BuildFilesError)
    for key in ("cmake_targets", "cmake_variables", "nvcc_flags", "link_libraries"):
        if not isinstance(raw, dict) or not isinstance(raw.get(key), dict):
            raise BuildFilesError(path, key, "must be a mapping")
    return raw


def kind_of(rel: str) -> str | None:
    name = PurePosixPath(rel).name
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        return "cmake"
    if name in ("Makefile", "makefile", "GNUmakefile") or name.endswith(".mk"):
        return "make"
    if name == "setup.py":
        return "setup"
    return None


def gfx_targets(targets: tuple[str, ...]) -> list[str]:
    """The gfx names the migrated build files build for: the given targets', else porter's default target's."""
    from porter.targets import TargetError, gfx_of, resolve_targets
    from porter.translate.model import TranslateError

    try:
        if targets:
            return sorted({gfx_of(t) for t in targets})
        return sorted({t.gfx for t in resolve_targets(None)})
    except TargetError as e:
        raise TranslateError(f"--target: {e.problem}") from None


class _Edits:
    def __init__(self, rel: str, text: str):
        self.rel, self.text = rel, text
        self.notes = []
        self.count = Counter()

    def line_of(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def sub(self, pattern: str, repl, why: str, flags: int = 0) -> None:
        """Replace every match (repl: str or function of the match, returning the new text or None to keep)."""
        rx = re.compile(pattern, flags)
        out, pos = [], 0
        for m in rx.finditer(self.text):
            new = repl(m) if callable(repl) else m.expand(repl)
            if new is None or new == m.group(0):
                continue
            out += [self.text[pos:m.start()], new]
            line = self.line_of(m.start())
            old = m.group(0).strip()
            self.notes.append(make_finding("TRN018", self.rel, line, 1, old[:60], f"{old[:80]} → {new.strip()[:80] or '(removed)'}: {why}",
                                           old, replacement=new.strip()))
            self.count[why] += 1
            pos = m.end()
        if out:
            self.text = "".join(out) + self.text[pos:]

    def advise(self, pos: int, name: str, why: str) -> None:
        self.notes.append(make_finding("TRN018", self.rel, self.line_of(pos), 1, name, why))


def nvcc_option(word: str, tables: dict) -> tuple[str, str]:
    """(what clang takes for one nvcc option word, what becomes of the next word): the next word is left alone (""),
    dropped ("drop"), passed on as host options ("host"), or joined to the option as its value ("join"), by
    rules/kb/buildfiles.yaml's nvcc_flags and nvcc_options_with_value. `--compiler-options=-a,-b` is `-a -b`."""
    flags = tables["nvcc_flags"]
    if word in flags:
        return flags[word], ""
    name, eq, value = word.partition("=")
    mode = tables.get("nvcc_options_with_value", {}).get(name)
    if mode is None:
        return word, ""
    if not eq:
        return "", mode
    return (" ".join(v for v in value.split(",") if v) if mode == "host" else flags.get(word, "")), ""


def nvcc_value(option: str, mode: str, value: str, tables: dict) -> str:
    """The word after a value-taking nvcc `option`, as nvcc_option's `mode` says."""
    if mode == "host":
        return " ".join(v for v in value.split(",") if v)
    if mode == "join":
        return tables["nvcc_flags"].get(f"{option}={value}", "")
    return ""


def _flag_map(tables: dict, flags: str) -> str:
    """nvcc options in a CMake/Make flag string mapped to clang's (quotes and variables kept as they are)."""
    parts = re.split(r'(\s+|")', flags)
    out, pending = [], ("", "")
    for w in parts:
        option, mode = pending
        if mode:
            if w.isspace() or w == "":
                continue  # up to the option's value
            out.append(nvcc_value(option, mode, w, tables))
            pending = ("", "")
            continue
        mapped, mode = nvcc_option(w, tables)
        if mode:
            pending = (w, mode)
            continue
        out.append(mapped)
    return re.sub(r"[ \t]+(\"|$)", r"\1", "".join(out))


def migrate_cmake(rel: str, text: str, gfx: list[str], tables: dict) -> _Edits:
    e = _Edits(rel, text)
    e.sub(r"(?i)\b(project\s*\([^)]*?)\bCUDA\b", lambda m: m.group(1) + "HIP",
          "CMake's HIP language (3.21+) compiles the HIP sources with the ROCm clang")
    e.sub(r"(?i)\benable_language\s*\(\s*CUDA\s*\)", "enable_language(HIP)",
          "CMake's HIP language (3.21+) compiles the HIP sources with the ROCm clang")
    e.sub(r"(?i)\bfind_package\s*\(\s*(?:CUDAToolkit|CUDA)\b[^)]*\)", "find_package(hip REQUIRED)",
          "ROCm's CMake package: hip::host / hip::device replace the CUDA toolkit targets")
    arch_list = ";".join(gfx)
    e.sub(r"(?i)\bset\s*\(\s*CMAKE_CUDA_ARCHITECTURES\b[^)]*\)", f"set(CMAKE_HIP_ARCHITECTURES {arch_list})",
          f"the selected AMD targets ({', '.join(gfx)}) instead of NVIDIA sm_ levels")
    e.sub(r"(?i)\bCUDA_ARCHITECTURES\s+(\"[^\"]*\"|[0-9;a-z_\-]+)", f"HIP_ARCHITECTURES {arch_list}",
          f"the selected AMD targets ({', '.join(gfx)}) instead of NVIDIA sm_ levels")
    for cuda, hip in sorted(tables["cmake_targets"].items()):
        e.sub(r"(?<![\w:])" + re.escape(cuda) + r"(?![\w])", hip, f"ROCm's imported target for {cuda}")
    e.sub(r"(?i)(set\s*\(\s*CMAKE_CUDA_FLAGS\w*\s+)([^)]*)\)",
          lambda m: m.group(1) + _flag_map(tables, m.group(2)) + ")",
          "nvcc-only options mapped to clang's or dropped (rules/kb/buildfiles.yaml nvcc_flags)")
    e.sub(r"(\$<\$<COMPILE_LANGUAGE:CUDA>:)([^>]*)>", lambda m: "$<$<COMPILE_LANGUAGE:HIP>:" + _flag_map(tables, m.group(2)) + ">",
          "compile options of the HIP language; nvcc-only options dropped")
    for cuda, hip in sorted(tables["cmake_variables"].items()):
        e.sub(r"(?<![\w$])" + re.escape(cuda) + r"(?!\w)", hip, f"the HIP language's name for {cuda}")
    m = re.search(r"(?i)\bCUDA_SEPARABLE_COMPILATION\b", e.text)
    if m:
        e.advise(m.start(), "CUDA_SEPARABLE_COMPILATION", "CUDA_SEPARABLE_COMPILATION has no HIP property: kept (CMake "
                 "ignores it for HIP); add -fgpu-rdc to the HIP flags if the sources call device code across files")
    proj = re.search(r"(?im)^[ \t]*project\s*\([^)]*\bHIP\b", e.text)
    if proj and not re.search(r"(?i)CMAKE_HIP_ARCHITECTURES", e.text[:proj.start()]):
        # CMake enables HIP inside project() and fails there without architectures (no default to detect on a
        # machine without a GPU): they are set before it, as a cache default the user can override.
        line = f'set(CMAKE_HIP_ARCHITECTURES "{arch_list}" CACHE STRING "AMD GPU targets")'
        e.notes.append(make_finding("TRN018", rel, e.line_of(proj.start()), 1, "CMAKE_HIP_ARCHITECTURES",
                                    f"{line} inserted before project(): CMake picks the HIP architectures when "
                                    f"project() enables the language", line))
        e.count["HIP architectures before project()"] += 1
        e.text = e.text[:proj.start()] + line + "\n" + e.text[proj.start():]
    cu = sorted(set(re.findall(r"(?<![\w./${}-])([\w./-]+\.cu)\b", re.sub(r"#[^\n]*", "", e.text))))
    if cu and re.search(r"(?i)\b(add_executable|add_library|target_sources|cuda_add_executable)\b", e.text):
        tail = "" if e.text.endswith("\n") else "\n"
        line = f"set_source_files_properties({' '.join(cu)} PROPERTIES LANGUAGE HIP)"
        e.text += f"{tail}# porter: CMake compiles .cu as CUDA; these are HIP now\n{line}\n"
        e.notes.append(make_finding("TRN018", rel, e.line_of(len(e.text) - 2), 1, "LANGUAGE HIP",
                                    f"{line}: CMake compiles a .cu file as CUDA unless told otherwise", line))
        e.count["LANGUAGE HIP"] += 1
    return e


def migrate_make(rel: str, text: str, gfx: list[str], tables: dict) -> _Edits:
    e = _Edits(rel, text)
    offload = " ".join(f"--offload-arch={g}" for g in gfx)
    e.sub(r"(?<![\w-])(?:\$\((?:CUDA_PATH|CUDA_HOME|CUDA_DIR)\)/bin/|/usr/local/cuda[\w.-]*/bin/)?nvcc(?![\w-])", "hipcc",
          "hipcc compiles CUDA-syntax .cu files for AMD GPUs (it takes clang's options)")
    state = {"done": set()}

    def arch(m: re.Match) -> str:
        line = e.line_of(m.start())
        if line in state["done"]:
            return ""
        state["done"].add(line)
        return offload

    e.sub(r"(?:-gencode[= ]arch=compute_\d+[a-z]?,code=\\?\"?[\w,\[\]]+\\?\"?|-arch[= ]sm_\d+[a-z]?|--gpu-architecture[= ]\w+"
          r"|-code[= ]sm_\d+[a-z]?)", arch, f"the selected AMD targets ({', '.join(gfx)}) instead of NVIDIA sm_ levels")
    for flag, new in sorted(tables["nvcc_flags"].items()):
        e.sub(r"(?<![\w-])" + re.escape(flag) + r"(?![\w=-])", new, "nvcc-only option mapped to clang's or dropped")
    e.sub(r"-Xcompiler[= ]([\w,=.-]+)", lambda m: " ".join(m.group(1).split(",")), "hipcc passes host options directly")
    for lib, new in sorted(tables["link_libraries"].items()):
        e.sub(r"(?<![\w-])-l" + re.escape(lib) + r"(?![\w])", f"-l{new}", f"ROCm's library for lib{lib}")
    return e


def advise_setup(rel: str, text: str) -> _Edits:
    e = _Edits(rel, text)
    seen = set()
    for m in re.finditer(r"\b(CUDAExtension|BuildExtension)\b", text):
        if m.group(1) in seen:
            continue  # once per name: the advice is the same at every use
        seen.add(m.group(1))
        e.advise(m.start(), m.group(1), f"{m.group(1)}: no rewrite needed; PyTorch's ROCm build hipifies the extension's "
                 f"sources itself when it builds a CUDAExtension (torch.utils.cpp_extension), so keep the CUDA spelling")
    return e


def migrate(root: Path, copies: list[str], options) -> tuple[list[FileTranslation], list[str]]:
    """(migrated build files, the copies that stay copies)."""
    todo = [(rel, kind_of(rel)) for rel in copies]
    todo = [(rel, k) for rel, k in todo if k]
    if not todo:
        return [], copies
    tables = load_tables()
    gfx = gfx_targets(tuple(getattr(options, "targets", ())))
    out, moved = [], set()
    for rel, kind in todo:
        p = root / rel
        try:
            if p.is_symlink():
                continue
            data = contain.read_bytes(p, MAX_BUILD_FILE, root=root)
            text = data.decode("utf-8")
        except (OSError, contain.Unreadable, UnicodeDecodeError):
            continue
        if kind == "setup":
            if "CUDAExtension" not in text and "BuildExtension" not in text:
                continue
            e = advise_setup(rel, text)
        elif kind == "cmake":
            e = migrate_cmake(rel, text, gfx, tables)
        else:
            e = migrate_make(rel, text, gfx, tables)
        if not e.notes:
            continue
        new = e.text.encode("utf-8")
        out.append(FileTranslation(path=rel, status="translated" if new != data else "unchanged", original=data,
                                   output=new, lines=text.count("\n"), converted=(("build", sum(e.count.values())),) if e.count else (),
                                   warnings=sorted_findings(e.notes)))
        moved.add(rel)
    return out, [c for c in copies if c not in moved]
