"""Deep mode: refine kernel facts with libclang — exact `sizeof` of shared arrays and constants from other headers.

Optional (`pip install porter-rocm[deep]`) and never required. libclang needs clang's resource headers, which the
PyPI wheel does not ship, so `setup()` looks for a system LLVM (libclang-N.so with its lib/clang/N resource dir,
matching versions), the CUDA toolkit ($CUDA_HOME, /usr/local/cuda; a small shim header otherwise), and the
project's compile_commands.json for -I/-D flags. When any of that is missing, `refine` changes nothing and
says which values stayed unknown and why. Environment overrides: PORTER_LIBCLANG (the .so),
PORTER_CLANG_RESOURCE_DIR, CUDA_HOME.

The repository is untrusted, so libclang never sees it. `contain` copies the translation unit and the repository
headers it reaches into a private temporary directory, reading each through `read_file` (regular files only,
opened non-blocking, FILE_CAP per file, TOTAL_CAP and MAX_FILES per unit), and rewrites every include-like
directive: one that resolves to a repository file is pinned to that file's copy by absolute path; one not in the
repository with a plain relative name is left for clang, whose search path then holds only the toolkit (resource
dir, CUDA, the host's system headers, the compat shims) — no repository directory; everything else (absolute
paths or `..` leading outside, symlinks out, FIFOs and devices, files over the caps, computed `#include MACRO`,
`#embed`, `#pragma`/`_Pragma` dependency, `__has_include` of such targets) becomes an empty line, so line numbers
stay, and is listed as a Refusal. Directives are found the way clang finds them (line splices, `\r` line ends, `%:`,
comments before `#` or spanning the directive; trigraphs are switched off), erring towards treating a line as a
directive. compile_commands.json is read only from inside the repository; its -I/-isystem/-include values count
only inside it, and only -D/-std reach clang. Diagnostics are kept only when located in repository copies (or on
the command line), named by repository path and clipped, so the report cannot echo an outside file.
Not closed: a `__has_include` or `_Pragma` whose name is assembled by token pasting is seen only by clang; it
only checks a path's existence (or timestamp), so no contents reach the report, but opening a FIFO named by
an absolute path that way could still block the parse.
"""
from __future__ import annotations

import atexit
import dataclasses
import glob
import os
import re
import shlex
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from porter.budget import Budget, Overrun, Pool
from porter.model import Kernel, ScanResult
from porter.model.kernel import DeepRefinement, KernelFacts

# libclang reads CUDA through clang's wrapper, which still includes headers CUDA 13 removed.
_COMPAT_HEADERS = ("texture_fetch_functions.h", "curand_mtgp32_kernel.h")
_SHIM = """#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ inline
typedef unsigned short __half; typedef __half half; struct __half2 { __half x, y; }; typedef __half2 half2;
typedef unsigned short __nv_bfloat16; struct __nv_bfloat162 { __nv_bfloat16 x, y; };
struct float2 { float x, y; }; struct float4 { float x, y, z, w; }; struct int2 { int x, y; }; struct int4 { int x, y, z, w; };
struct uint3 { unsigned x, y, z; }; struct dim3 { unsigned x, y, z; };
"""
PARSE_OPTIONS = 0x01 | 0x200  # DetailedPreprocessingRecord (macros) | KeepGoing (past a missing include)


@dataclass
class DeepConfig:
    """How libclang is set up on this machine, or why it is not."""

    available: bool
    reason: str = ""
    library: str | None = None
    version: str | None = None
    resource_dir: str | None = None
    cuda_path: str | None = None  # None: shim mode
    compat_dir: str | None = None
    base_args: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"available": self.available, "reason": self.reason, "library": self.library, "version": self.version,
                "resource_dir": self.resource_dir, "cuda": self.cuda_path or ("shim header" if self.available else None)}


_CONFIG: DeepConfig | None = None


def _candidates() -> list[tuple[str, str | None]]:
    """(libclang .so, resource dir) pairs, best first: explicit env, then system LLVMs newest-compatible first."""
    out: list[tuple[str, str | None]] = []
    env_lib, env_res = os.environ.get("PORTER_LIBCLANG"), os.environ.get("PORTER_CLANG_RESOURCE_DIR")
    if env_lib:
        out.append((env_lib, env_res))
    versions = []
    for d in glob.glob("/usr/lib/llvm-*/lib"):
        m = re.search(r"llvm-(\d+)", d)
        if m:
            versions.append(int(m.group(1)))
    # The wheel's Python bindings are clang 18's; newer libclangs keep the C API, so prefer 18-19, then newer.
    for v in sorted(versions, key=lambda v: (abs(v - 18.5), -v)):
        libs = sorted(glob.glob(f"/usr/lib/llvm-{v}/lib/libclang-{v}.so*") + glob.glob(f"/usr/lib/llvm-{v}/lib/libclang.so*"))
        res = glob.glob(f"/usr/lib/llvm-{v}/lib/clang/{v}*")
        if libs and res:
            out.append((libs[0], sorted(res)[0]))
    return out


def setup() -> DeepConfig:
    """Find libclang, matching resource headers and the CUDA toolkit; cached per process."""
    global _CONFIG
    if _CONFIG is not None:
        return _CONFIG
    try:
        import clang.cindex as ci
    except ImportError:
        _CONFIG = DeepConfig(False, "libclang is not installed (pip install 'porter-rocm[deep]')")
        return _CONFIG
    chosen: tuple[str, str | None] | None = None
    for lib, res in _candidates():
        if os.path.exists(lib) and res and os.path.isdir(os.path.join(res, "include")):
            chosen = (lib, res)
            break
    if chosen is None:
        _CONFIG = DeepConfig(False, "no clang resource headers found (the libclang wheel ships none): install a system "
                                    "clang (e.g. Debian clang-19) or set PORTER_LIBCLANG and PORTER_CLANG_RESOURCE_DIR")
        return _CONFIG
    lib, res = chosen
    try:
        if not ci.Config.loaded:
            ci.Config.set_library_file(lib)
        ci.Index.create()
        m = re.search(r"llvm-(\d+)|libclang-(\d+)", lib)
        version = f"libclang {m.group(1) or m.group(2)}" if m else "libclang"
    except Exception as e:  # a broken or incompatible libclang is "unavailable", never a crash
        _CONFIG = DeepConfig(False, f"cannot load libclang from {lib}: {e}")
        return _CONFIG
    cuda = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    cuda_path = cuda if os.path.exists(os.path.join(cuda, "include", "cuda_runtime.h")) else None
    compat = tempfile.mkdtemp(prefix="porter-deep-")
    # The stub headers live as long as the process's libclang configuration; remove them when it exits.
    atexit.register(shutil.rmtree, compat, True)
    for name in _COMPAT_HEADERS:
        Path(compat, name).write_text("#pragma once\n")
    Path(compat, "porter_cuda_shim.h").write_text(_SHIM)
    args = ["-x", "cuda", "--cuda-host-only", "-std=c++17", "-nocudalib", "-ferror-limit=0", "-Wno-unknown-cuda-version",
            "--cuda-gpu-arch=sm_80", f"-resource-dir={res}", "-idirafter", compat]
    if cuda_path:
        args += [f"--cuda-path={cuda_path}"]
        if os.path.isdir(os.path.join(cuda_path, "include", "cccl")):
            args += ["-isystem", os.path.join(cuda_path, "include", "cccl")]
    else:
        args += ["-nocudainc", "--cuda-path=/nonexistent", "-include", os.path.join(compat, "porter_cuda_shim.h")]
    _CONFIG = DeepConfig(True, "", lib, version, res, cuda_path, compat, args)
    return _CONFIG


# ---- containment: what libclang may read -------------------------------------------------------------------------

FILE_CAP = 4 << 20  # one repository header; generated tables beyond this are not worth a parse
TOTAL_CAP = 64 << 20  # all repository files of one translation unit
# All files written out of a git tree for libclang (`--rev`): a tree of a few MB can name one blob thousands of times,
# and each path is a file on disk. Past this, the rest are left out (libclang reports them as missing headers).
TREE_CAP = 256 << 20
MAX_FILES = 4000
DB_CAP = 64 << 20  # compile_commands.json
_CLIP = 300  # longest include spelling or diagnostic echoed into the report


@dataclass(frozen=True)
class Refusal:
    """An include (or compile-database flag) that was not followed, where it was written and why."""

    source: str  # repository-relative file, or compile_commands.json
    line: int  # 0 for a compile-database flag
    include: str  # as written, clipped
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.source, "line": self.line, "include": self.include, "reason": self.reason}


@dataclass(frozen=True)
class Contained:
    """A translation unit copied into a private directory with every include pinned to a copy or refused."""

    main: str  # the sandbox copy libclang parses
    data: bytes  # the main file's bytes as read (bounded, regular file)
    files: dict[str, str]  # sandbox copy -> repository-relative path
    forced: tuple[str, ...]  # sandbox copies of the compile database's -include files
    refused: tuple[Refusal, ...]


class ContainmentError(Exception):
    """The main file itself cannot be read safely; the message is the reason (never file contents)."""


def _clip(text: str) -> str:
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text if len(text) <= _CLIP else text[:_CLIP] + "…"


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def resolve_include(spelling: str, angled: bool, includer_dir: str, search: list[str], root: str) -> tuple[str | None, str | None]:
    """(real path inside `root`, None), (None, why it is refused), or (None, None): not in the repository, so left
    to the toolkit's include directories. `root` is a realpath; the first existing candidate decides, as in clang."""
    if not spelling or any(ch in spelling for ch in "\0\n\r"):
        return None, "not a plain file name"
    candidates = [spelling] if os.path.isabs(spelling) else [os.path.join(d, spelling) for d in ([] if angled else [includer_dir]) + search]
    for cand in candidates:
        real = os.path.realpath(cand)
        try:
            st = os.stat(real)
        except OSError:
            continue
        if not _inside(real, root):
            if os.path.isabs(spelling):
                return None, "absolute path outside the repository"
            if not _inside(os.path.normpath(cand), root):
                return None, "`..` leads outside the repository"
            return None, "a symlink leads outside the repository"
        if not stat.S_ISREG(st.st_mode):
            return None, f"{_kind(st.st_mode)}, not a regular file"
        if st.st_size > FILE_CAP:
            return None, f"{st.st_size} bytes, over the {FILE_CAP} byte cap"
        return real, None
    if os.path.isabs(spelling):
        return None, "absolute path outside the repository" if not _inside(os.path.normpath(spelling), root) else "not found"
    if ".." in Path(spelling).parts:
        return None, "`..` would search outside the repository"
    return None, None


# A logical line that clang could take as a directive: `#` (or the `%:` digraph) first on the line, possibly after
# whitespace, closed comments, or the end of a comment opened on an earlier line (over-matching is harmless: only
# include-like directives are touched, and those are pinned or blanked).
_WS = r"[ \t\f\v\0]*"
_DIRECTIVE = re.compile(rf"(?P<pre>(?:.*\*/)?{_WS}(?:/\*.*?\*/{_WS})*)(?:#|%:){_WS}(?:/\*.*?\*/{_WS})*"
                        r"(?P<name>[A-Za-z_\\$][\w\\$]*)(?P<rest>.*)", re.S)
_NEWLINE = re.compile(r"\r\n|\r|\n")
_PRAGMA_DEPENDENCY = re.compile(r"\b_Pragma\b(?=[^\r\n]*dependency)")
_HAS_INCLUDE = re.compile(r"\b(?P<op>__has_include_next|__has_include|__has_embed)\b"
                          r"(?P<arg>[ \t]*\([ \t]*(?:\"(?P<q>[^\"\n]*)\"|<(?P<a>[^>\n]*)>)[ \t]*\))?")
_OPERAND = re.compile(r"\s*(?:\"(?P<q>[^\"\n]*)\"|<(?P<a>[^>\n]*)>)")


def _strip_comments(text: str) -> tuple[str, bool]:
    """`text` with comments replaced by a space; True when a block comment is still open at its end."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                return "".join(out), True
            out.append(" ")
            i = end + 2
        elif text.startswith("//", i):
            break
        elif text[i] == '"':
            end = text.find('"', i + 1)
            end = n if end < 0 else end + 1
            out.append(text[i:end])
            i = end
        else:
            out.append(text[i])
            i += 1
    return "".join(out), False


def _logical_lines(text: str) -> list[tuple[int, int, str]]:
    """(first physical line index, physical line count, spliced text) — backslash-newline joins lines first."""
    phys = _NEWLINE.split(text)
    out, i = [], 0
    while i < len(phys):
        start, parts = i, []
        while True:
            line = phys[i]
            stripped = line.rstrip(" \t")
            i += 1
            if stripped.endswith("\\") and i < len(phys):
                parts.append(stripped[:-1])
                continue
            parts.append(line)
            break
        out.append((start, i - start, "".join(parts)))
    return out


class _Scanner:
    """Copies the repository files a translation unit reaches into `into`, pinning each include to a checked copy."""

    def __init__(self, root: str, search: list[str], into: Path, main_real: str):
        self.root, self.search, self.into, self.main_real = root, search, into, main_real
        self.main_data = b""
        self.copies: dict[str, str] = {}  # real path -> sandbox copy
        self.files: dict[str, str] = {}  # sandbox copy -> repository-relative
        self.refused: list[Refusal] = []
        self.queue: list[str] = []
        self.budget = TOTAL_CAP

    def admit(self, real: str) -> tuple[str | None, str | None]:
        """The sandbox copy for a repository file (queued for rewriting), or why not."""
        if real in self.copies:
            return self.copies[real], None
        if len(self.copies) >= MAX_FILES:
            return None, f"over the {MAX_FILES} file limit for one translation unit"
        size = os.stat(real).st_size
        if size > self.budget:
            return None, f"over the {TOTAL_CAP} byte budget for one translation unit"
        self.budget -= size
        base = re.sub(r"[^\w.+-]", "_", os.path.basename(real)) or "file"
        copy = str(self.into / str(len(self.copies)) / base)
        self.copies[real] = copy
        self.files[copy] = os.path.relpath(real, self.root)
        self.queue.append(real)
        return copy, None

    def run(self) -> None:
        from porter.source.read import SourceReadError, read_file

        while self.queue:
            real = self.queue.pop(0)
            copy, rel = self.copies[real], self.files[self.copies[real]]
            try:
                data = read_file(Path(real), FILE_CAP, root=self.root)  # checked again on the descriptor
            except SourceReadError as e:
                if real == self.main_real:
                    raise ContainmentError(str(e)) from None
                data = b""
                self.refuse(rel, 0, rel, f"cannot be read safely: {e}")
            if real == self.main_real:
                self.main_data = data
            Path(copy).parent.mkdir(parents=True, exist_ok=True)
            Path(copy).write_bytes(self.rewrite(data.decode("latin-1"), rel, os.path.dirname(real)).encode("latin-1"))

    def refuse(self, rel: str, line: int, spelling: str, reason: str) -> None:
        self.refused.append(Refusal(rel, line, _clip(spelling), reason))

    def rewrite(self, text: str, rel: str, here: str) -> str:
        """`text` with every include-like directive pinned to a checked copy, left to the toolkit, or blanked;
        line numbers unchanged so libclang's locations match tree-sitter's."""
        text = _HAS_INCLUDE.sub(lambda m: self._has_include(m, text, rel, here), text)
        text = _PRAGMA_DEPENDENCY.sub(lambda m: self._refused_pragma(m, text, rel), text)
        lines = _NEWLINE.split(text)
        for start, count, logical in _logical_lines(text):
            m = _DIRECTIVE.match(logical)
            if not m:
                continue
            name, line = m.group("name"), start + 1
            if name == "pragma" and not re.search(r"\bdependency\b", m.group("rest")):
                continue
            if name != "pragma" and "\\" not in name and "$" not in name and not re.search(r"include|import|embed", name):
                continue
            joined, end = m.group("rest"), start + count
            rest, still_open = _strip_comments(joined)
            while still_open and end < len(lines):  # a block comment inside a directive may span lines
                joined, end = joined + "\n" + lines[end], end + 1
                rest, still_open = _strip_comments(joined)
            replacement, op = "", _OPERAND.match(rest)
            shown = f"#{name}{rest}".strip()
            if name == "pragma":
                self.refuse(rel, line, shown, "#pragma dependency is not followed")
            elif name not in ("include", "include_next", "import"):
                self.refuse(rel, line, shown, f"#{name} is not followed")
            elif op is None:
                self.refuse(rel, line, shown, "not a literal file name (computed include)")
            else:
                quoted = op.group("q") is not None
                spelling = op.group("q") if quoted else op.group("a")
                real, why = resolve_include(spelling, not quoted, here, self.search, self.root)
                if real is not None:
                    copy, why = self.admit(real)
                    if copy is not None:
                        replacement = f'#{"import" if name == "import" else "include"} "{copy}"'
                if why is not None:
                    self.refuse(rel, line, spelling, why)
                elif real is None:  # not in the repository: clang looks in the toolkit's directories only
                    replacement = f"#{name} " + (f'"{spelling}"' if quoted else f"<{spelling}>")
            lines[start:end] = [m.group("pre") + replacement] + [""] * (end - start - 1)
        return "\n".join(lines)

    def _refused_pragma(self, m: re.Match, text: str, rel: str) -> str:
        self.refuse(rel, len(_NEWLINE.findall(text, 0, m.start())) + 1, "_Pragma", "_Pragma dependency is not followed")
        return "__porter_refused_Pragma"

    def _has_include(self, m: re.Match, text: str, rel: str, here: str) -> str:
        line = len(_NEWLINE.findall(text, 0, m.start())) + 1
        if m.group("op") == "__has_embed" or m.group("arg") is None:
            if m.group("arg") is not None or text[m.end():m.end() + 8].lstrip().startswith("("):
                self.refuse(rel, line, m.group(0), f"{m.group('op')} with a computed operand is not followed")
            return "__porter_refused_" + m.group("op").lstrip("_")
        spelling = m.group("q") if m.group("q") is not None else m.group("a")
        real, why = resolve_include(spelling, m.group("q") is None, here, self.search, self.root)
        if why is not None:
            self.refuse(rel, line, spelling, why)
            return "0"
        return "1" if real is not None else m.group(0)


def contain(path: Path, root: Path, search: list[str], into: Path, forced: tuple[str, ...] = ()) -> Contained:
    """Copy the translation unit at `path` and the repository headers it reaches into `into`, each include pinned
    to a checked copy (inside `root`, regular, under the caps), left to the toolkit (relative, not in the
    repository, no `..`), or blanked and listed as refused. `forced` are `-include` files, already inside root."""
    root_real = os.path.realpath(root)
    real = os.path.realpath(path)
    if not _inside(real, root_real):
        raise ContainmentError("the file resolves outside the repository")
    try:
        st = os.stat(real)
    except OSError as e:
        raise ContainmentError(f"cannot stat: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ContainmentError(f"{_kind(st.st_mode)}, not a regular file")
    sc = _Scanner(root_real, [os.path.realpath(d) for d in search], into, real)
    main, why = sc.admit(real)
    if main is None:
        raise ContainmentError(why)
    copies = []
    for f in forced:
        copy, why = sc.admit(f)
        if copy is None:
            sc.refuse("compile_commands.json", 0, f"-include {os.path.relpath(f, root_real)}", why)
        else:
            copies.append(copy)
    sc.run()
    refused = sorted(sc.refused, key=lambda r: (r.source, r.line, r.include))
    return Contained(main, sc.main_data, dict(sc.files), tuple(copies), tuple(refused))


@dataclass(frozen=True)
class CompileFlags:
    """What a compile database contributes: flags for clang, include directories and -include files for the scanner."""

    clang: tuple[str, ...] = ()  # -D and -std only
    search: tuple[str, ...] = ()  # -I / -isystem directories inside the repository
    forced: tuple[str, ...] = ()  # -include files inside the repository (real paths)
    refused: tuple[Refusal, ...] = ()


_STD = re.compile(r"-std=[\w+]+")


def compile_flags(root: Path, path: Path) -> CompileFlags:
    """-I/-D/-std/-isystem/-include for a file from the project's compile_commands.json, contained to the repository."""
    import json

    from porter.source.read import SourceReadError, read_file

    root_real = os.path.realpath(root)
    for base in (root, root / "build"):
        db = base / "compile_commands.json"
        if not _inside(os.path.realpath(db), root_real) or not db.is_file():
            continue
        try:
            entries = json.loads(read_file(db, DB_CAP, root=root_real))
        except (SourceReadError, ValueError):
            return CompileFlags()
        if not isinstance(entries, list):
            return CompileFlags()
        for e in entries:
            if not isinstance(e, dict):
                continue
            where = Path(str(e.get("directory", ".")))
            if os.path.realpath(where / str(e.get("file", ""))) != os.path.realpath(path):
                continue
            argv = e.get("arguments") or shlex.split(str(e.get("command", "")))
            return _contain_flags([str(a) for a in argv[1:]], where, root_real)
    return CompileFlags()


def _contain_flags(argv: list[str], where: Path, root_real: str) -> CompileFlags:
    clang, search, forced, refused = [], [], [], []
    it = iter(argv)
    for a in it:
        flag, val = a, None
        if a in ("-I", "-D", "-isystem", "-include"):
            val = next(it, "")
        elif a.startswith(("-I", "-D")):
            flag, val = a[:2], a[2:]
        elif a.startswith("-isystem"):
            flag, val = "-isystem", a[len("-isystem"):]
        elif _STD.fullmatch(a):
            clang.append(a)
            continue
        else:
            continue
        if any(ch in val for ch in "\0\n\r"):
            refused.append(Refusal("compile_commands.json", 0, _clip(f"{flag} {val}"), "not a plain value"))
        elif flag == "-D":
            clang += ["-D", val]
        else:
            real = os.path.realpath(where / val)
            ok = os.path.isdir(real) if flag != "-include" else os.path.isfile(real)
            if not _inside(real, root_real):
                refused.append(Refusal("compile_commands.json", 0, _clip(f"{flag} {val}"), "outside the repository"))
            elif ok:
                (forced if flag == "-include" else search).append(real)
    return CompileFlags(tuple(clang), tuple(search), tuple(forced), tuple(refused))


def analyse_file(path: Path, root: Path, cfg: DeepConfig) -> dict[str, Any]:
    """Parse one file with libclang: constants from every repository header, exact sizes of shared variables.

    libclang parses a contained copy (see `contain`), so it reads only those copies and the toolkit's headers."""
    import clang.cindex as ci

    t0 = time.perf_counter()
    flags = compile_flags(root, path)
    search = [str(path.parent), str(root), str(root / "include"), *flags.search]
    sandbox = tempfile.mkdtemp(prefix="porter-deep-tu-")
    try:
        tu_files = contain(path, root, search, Path(sandbox), flags.forced)
        args = list(cfg.base_args) + ["-fno-trigraphs", *flags.clang]
        for f in tu_files.forced:
            args += ["-include", f]
        tu = ci.Index.create().parse(tu_files.main, args=args, options=PARSE_OPTIONS)
        found = _walk(ci, tu, tu_files, root)
        errors = _diagnostics(tu, tu_files, sandbox)
    finally:
        shutil.rmtree(sandbox, ignore_errors=True)
    return {**found, "errors": errors, "data": tu_files.data,
            "refused": [r.to_dict() for r in sorted(flags.refused + tu_files.refused, key=lambda r: (r.source, r.line, r.include))],
            "seconds": time.perf_counter() - t0}


def _walk(ci, tu, tu_files: Contained, root: Path) -> dict[str, Any]:
    """Constants (with the repository file defining each) and shared-variable sizes of the main file."""
    constants: dict[str, Any] = {}
    origins: dict[str, str] = {}
    shared: dict[tuple[str, int], int] = {}
    _eval = _evaluator(ci)
    stack = list(tu.cursor.get_children())
    while stack:
        c = stack.pop()
        loc = c.location
        copy = loc.file.name if loc.file is not None else ""
        if copy and copy not in tu_files.files:  # the toolkit's own headers
            continue
        fname = str(root / tu_files.files[copy]) if copy else ""
        kind = c.kind
        if kind == ci.CursorKind.MACRO_DEFINITION:
            toks = [t.spelling for t in c.get_tokens()]
            if len(toks) >= 2 and not (len(toks) > 2 and toks[1] == "(" and _is_function_like(c)):
                constants.setdefault(c.spelling, " ".join(toks[1:]))
                origins.setdefault(c.spelling, fname)
            continue
        if kind == ci.CursorKind.VAR_DECL:
            attrs = {a.kind for a in c.get_children()}
            if ci.CursorKind.CUDASHARED_ATTR in attrs and copy == tu_files.main:
                size = c.type.get_size()
                if size > 0:
                    shared[(c.spelling, loc.line)] = size
            elif c.type.spelling.replace("const ", "").strip() in _INT_SPELLINGS or "const" in c.type.spelling:
                v = _eval(c)
                if v is not None:
                    constants.setdefault(c.spelling, v)
                    origins.setdefault(c.spelling, fname)
        if kind in (ci.CursorKind.NAMESPACE, ci.CursorKind.FUNCTION_DECL, ci.CursorKind.FUNCTION_TEMPLATE,
                    ci.CursorKind.COMPOUND_STMT, ci.CursorKind.DECL_STMT, ci.CursorKind.STRUCT_DECL,
                    ci.CursorKind.CLASS_DECL, ci.CursorKind.ENUM_DECL, ci.CursorKind.LINKAGE_SPEC):
            stack.extend(c.get_children())
        elif kind == ci.CursorKind.ENUM_CONSTANT_DECL:
            constants.setdefault(c.spelling, c.enum_value)
            origins.setdefault(c.spelling, fname)
    return {"constants": constants, "origins": origins, "shared": shared}


def _diagnostics(tu, tu_files: Contained, sandbox: str) -> list[str]:
    """Errors located in repository files (or on the command line), as `file:line:col: message`, clipped; errors
    inside the toolkit's headers are dropped, so nothing read from outside the repository reaches the report."""
    out = []
    for d in tu.diagnostics:
        if d.severity < 3:
            continue
        f = d.location.file
        if f is not None and f.name not in tu_files.files:
            continue
        where = f"{tu_files.files[f.name]}:{d.location.line}:{d.location.column}" if f is not None else "<command line>"
        message = d.spelling
        for copy, rel in tu_files.files.items():
            message = message.replace(copy, rel)
        out.append(_clip(f"{where}: {message.replace(sandbox, '<sandbox>')}"))
    return out


_INT_SPELLINGS = {"int", "unsigned int", "long", "unsigned long", "long long", "unsigned long long", "size_t", "short",
                  "unsigned short", "int32_t", "uint32_t", "int64_t", "uint64_t", "unsigned"}


def _is_function_like(cursor) -> bool:
    try:
        return bool(cursor.is_macro_function_like())
    except AttributeError:
        return False


def _evaluator(ci):
    """clang_Cursor_Evaluate for integer constants (the Python bindings do not wrap it)."""
    import ctypes

    lib = ci.conf.lib
    try:
        lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
        lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
        lib.clang_EvalResult_getKind.restype = ctypes.c_int
        lib.clang_EvalResult_getKind.argtypes = [ctypes.c_void_p]
        lib.clang_EvalResult_getAsLongLong.restype = ctypes.c_longlong
        lib.clang_EvalResult_getAsLongLong.argtypes = [ctypes.c_void_p]
        lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]
    except AttributeError:
        return lambda c: None

    def evaluate(cursor):
        res = lib.clang_Cursor_Evaluate(cursor)
        if not res:
            return None
        try:
            return lib.clang_EvalResult_getAsLongLong(res) if lib.clang_EvalResult_getKind(res) == 1 else None
        finally:
            lib.clang_EvalResult_dispose(res)

    return evaluate


# What libclang may take per file (porter.budget) when the caller gives no budget; a scan gives its settings' one
# (file_seconds, file_memory_mib), as for every other parser.
BUDGET = Budget()


def refine(result: ScanResult, kernels: list[Kernel], budget: Budget = BUDGET) -> tuple[list[Kernel], dict[str, Any]]:
    """Kernels with deep-mode facts where libclang resolved what tree-sitter could not, each file parsed under
    `budget`; plus what was done."""
    cfg = setup()
    info: dict[str, Any] = {"setup": cfg.to_dict()}
    if not cfg.available:
        info["unresolved"] = [{"kernel": k.name, "path": k.path, **u.to_dict()} for k in kernels if k.facts is not None
                              for u in k.facts.unknown]
        info["note"] = f"deep mode unavailable ({cfg.reason}); these values stayed unknown"
        return kernels, info
    root, materialised = _tree_of(result)
    try:
        return _refine(result, kernels, cfg, info, root, budget)
    finally:
        if materialised:
            shutil.rmtree(root, ignore_errors=True)


TREE_PREFIX = "porter-deep-tree-"


def _sweep_trees() -> None:
    """Remove the git-tree copies (up to TREE_CAP each) that runs killed before their cleanup left in the temporary
    directory: each is named with its process id, and one whose process is gone is removed (never another user's;
    a process id reused since only delays the removal)."""
    base = tempfile.gettempdir()
    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        if not name.startswith(TREE_PREFIX):
            continue
        pid = name[len(TREE_PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        path = os.path.join(base, name)
        try:
            st = os.lstat(path)
            if st.st_uid != os.getuid() or not stat.S_ISDIR(st.st_mode):
                continue
            os.kill(int(pid), 0)
            continue  # its run is still going
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except OSError:
            continue


def _tree_of(result: ScanResult) -> tuple[Path, bool]:
    """The directory libclang's contained copies are made from, and whether it was made for this run: the work
    tree itself, or for a git tree (`--rev`, `--new-since`) its C/C++/CUDA files written into a private temporary
    directory from the bytes the scan holds (porter.pipeline.Held; a header the scan did not read, from git objects)."""
    seen = result.stats.discovery  # (source, include, exclude, Discovery), set by porter.pipeline.scan
    source = seen[0] if seen else None
    if source is None or not hasattr(source, "commit"):
        return Path(result.root), False
    from porter.source.read import SourceReadError

    held = result.stats.held
    _sweep_trees()
    into = Path(tempfile.mkdtemp(prefix=f"{TREE_PREFIX}{os.getpid()}-"))
    left = TREE_CAP
    for c in source.discover().files:
        if c.language != "cuda" or (c.size is not None and c.size > left):
            continue
        limit = min(FILE_CAP, left)
        try:
            data = held.read(source, c, limit) if held is not None else source.read(c, limit)
        except SourceReadError:
            continue  # as unreadable as on disk (or past what is left of TREE_CAP): a missing header to libclang
        if len(data) > left:  # held bytes come back whatever the limit
            continue
        target = into / c.path
        if not _inside(os.path.realpath(target.parent), os.path.realpath(into)):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        left -= len(data)
    return into, True


def _refine(result: ScanResult, kernels: list[Kernel], cfg: DeepConfig, info: dict[str, Any],
            root: Path, budget: Budget) -> tuple[list[Kernel], dict[str, Any]]:
    by_path: dict[str, list[Kernel]] = {}
    for k in kernels:
        by_path.setdefault(k.path, []).append(k)
    out: list[Kernel] = []
    files, total, errors, refused = 0, 0.0, {}, {}
    order = sorted(by_path.items())
    tasks = [(root if root.is_file() else root / rel, root if root.is_dir() else root.parent, cfg, rel, ks)
             for rel, ks in order]
    answers: dict[int, Any] = {}
    # libclang and tree-sitter on repository content run in a budgeted worker (porter.budget): a parse that blocks
    # (a token-pasted `__has_include` naming a FIFO, which `contain` cannot see) is killed at the budget. So does
    # applying its facts to the file's kernels (_analyse_task): that costs what the file holds (its kernels, the
    # macros libclang saw), and nothing the repository decides may run here without a budget.
    with Pool(budget, 1) as pool:
        for i, answer in pool.map(_analyse_task, tasks):
            answers[i] = answer
    for i, (rel, ks) in enumerate(order):
        answer = answers[i]
        if isinstance(answer, Overrun):
            errors[rel] = [f"not analysed: libclang {answer.reason}"]
            out.extend(ks)
            continue
        if isinstance(answer, str):
            errors[rel] = [answer]
            out.extend(ks)
            continue
        deep, refined = answer
        files += 1
        total += deep["seconds"]
        if deep["errors"]:
            errors[rel] = deep["errors"][:20]
        if deep["refused"]:
            refused[rel] = deep["refused"]
        out.extend(refined)
    info.update({"files": files, "kernels": len(kernels), "seconds": round(total, 3),
                 "seconds_per_kernel": round(total / max(1, len(kernels)), 4), "errors": errors,
                 "refused_includes": refused})
    return out, info


def _analyse_task(path: Path, root: Path, cfg: DeepConfig, rel: str, ks: list[Kernel]
                  ) -> tuple[dict[str, Any], list[Kernel]] | str:
    """A deep worker's part for one file: libclang's facts, and the file's kernels `ks` with them applied (measured
    again with its constants, its exact shared-array sizes), or why it was not analysed."""
    from porter.kernels.facts import measure_file
    from porter.source.parse import parse

    try:
        deep = analyse_file(path, root, cfg)
    except ContainmentError as e:
        return f"not analysed: {e}"
    except Exception as e:  # noqa: BLE001 - one file libclang cannot handle must not stop the rest
        return f"{type(e).__name__}: {e}"
    sf = parse(rel, "cuda", deep["data"])
    remeasured = {(k.name, k.line): k for k in measure_file(sf, extra_constants=deep["constants"])}
    # Where each name libclang resolved was defined, when not in this file: once per file, not once per kernel
    # (a file of many kernels and many macros made that loop their product).
    here = str(path)
    elsewhere = {n: o for n, o in deep["origins"].items() if o and o != here}
    places: dict[str, str] = {}
    per_kernel = round(deep["seconds"] / max(1, len(ks)), 4)
    out: list[Kernel] = []
    for k in ks:
        new = remeasured.get((k.name, k.line), k)
        if new.facts is None or k.facts is None:
            out.append(k)
            continue
        facts = _apply_sizes(new.facts, deep["shared"])
        before = {u.what for u in k.facts.unknown}
        after = {u.what for u in facts.unknown}
        origins = set()
        for n in _names_used(k.facts):
            if n in elsewhere:
                if n not in places:
                    places[n] = os.path.relpath(elsewhere[n], path.parent)
                origins.add(places[n])
        refinement = DeepRefinement(tuple(sorted(before - after)), tuple(sorted(after)), per_kernel,
                                    tuple(sorted(origins)))
        out.append(dataclasses.replace(k, facts=dataclasses.replace(facts, deep=refinement)))
    summary = {"seconds": deep["seconds"], "errors": deep["errors"], "refused": deep["refused"]}
    return summary, out


def _names_used(facts: KernelFacts) -> set[str]:
    """The `names` unknown reasons quote: the constants another header may define."""
    return {u.reason.split("`")[1] for u in facts.unknown if u.reason.count("`") >= 2}


def _apply_sizes(facts: KernelFacts, sizes: dict[tuple[str, int], int]) -> KernelFacts:
    """The facts with exact libclang sizes for shared arrays tree-sitter could not size (totals follow from them)."""
    arrays = []
    resolved = set()
    for a in facts.shared_memory.arrays:
        size = sizes.get((a.name, a.line))
        if size is not None and a.bytes is None:
            a = dataclasses.replace(a, bytes=size, reason="sized by libclang (--deep)")
            resolved.add(f"__shared__ {a.name}")
        arrays.append(a)
    return dataclasses.replace(facts, shared_memory=dataclasses.replace(facts.shared_memory, arrays=tuple(arrays)),
                               unknown=tuple(u for u in facts.unknown if u.what not in resolved))
