"""Deep mode: refine kernel facts with libclang — exact `sizeof` of shared arrays and constants from other headers.

Optional (`pip install porter-rocm[deep]`) and never required. libclang needs clang's resource headers, which the
PyPI wheel does not ship, so `setup()` looks for a system LLVM (libclang-N.so with its lib/clang/N resource dir,
matching versions), the CUDA toolkit ($CUDA_HOME, /usr/local/cuda; a small shim header otherwise), and the
project's compile_commands.json for -I/-D flags. When any of that is missing, `refine` changes nothing and
says which values stayed unknown and why. Environment overrides: PORTER_LIBCLANG (the .so),
PORTER_CLANG_RESOURCE_DIR, CUDA_HOME.
"""
from __future__ import annotations

import dataclasses
import glob
import os
import re
import shlex
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


def _compile_flags(root: Path, path: Path) -> list[str]:
    """-I/-D/-std flags for a file from the project's compile_commands.json, when it has one."""
    for base in (root, root / "build"):
        db = base / "compile_commands.json"
        if not db.is_file():
            continue
        import json

        try:
            entries = json.loads(db.read_text())
        except (OSError, ValueError):
            return []
        for e in entries:
            f = Path(e.get("directory", ".")) / e.get("file", "")
            if f.resolve() != path.resolve():
                continue
            argv = e.get("arguments") or shlex.split(e.get("command", ""))
            out, it = [], iter(argv[1:])
            for a in it:
                if a in ("-I", "-D", "-isystem", "-include"):
                    val = next(it, "")
                    out += [a, val if a == "-D" or os.path.isabs(val) else str(Path(e.get("directory", ".")) / val)]
                elif a.startswith(("-I", "-D", "-std=")):
                    if a.startswith("-I") and not os.path.isabs(a[2:]):
                        a = "-I" + str(Path(e.get("directory", ".")) / a[2:])
                    out.append(a)
            return out
    return []


def analyse_file(path: Path, root: Path, cfg: DeepConfig) -> dict[str, Any]:
    """Parse one file with libclang: constants from every non-system header, exact sizes of shared variables."""
    import clang.cindex as ci

    t0 = time.perf_counter()
    args = list(cfg.base_args) + ["-I", str(path.parent), "-I", str(root), "-I", str(root / "include")]
    args += _compile_flags(root, path)
    index = ci.Index.create()
    tu = index.parse(str(path), args=args, options=PARSE_OPTIONS)
    system = tuple(p for p in (cfg.resource_dir, cfg.cuda_path, "/usr/include", "/usr/lib", cfg.compat_dir) if p)
    constants: dict[str, Any] = {}
    origins: dict[str, str] = {}
    shared: dict[tuple[str, int], int] = {}
    main = str(path)
    _eval = _evaluator(ci)
    stack = list(tu.cursor.get_children())
    while stack:
        c = stack.pop()
        loc = c.location
        fname = loc.file.name if loc.file is not None else ""
        if fname.startswith(system):
            continue
        kind = c.kind
        if kind == ci.CursorKind.MACRO_DEFINITION:
            toks = [t.spelling for t in c.get_tokens()]
            if len(toks) >= 2 and not (len(toks) > 2 and toks[1] == "(" and _is_function_like(c)):
                constants.setdefault(c.spelling, " ".join(toks[1:]))
                origins.setdefault(c.spelling, fname)
            continue
        if kind == ci.CursorKind.VAR_DECL:
            attrs = {a.kind for a in c.get_children()}
            if ci.CursorKind.CUDASHARED_ATTR in attrs and fname == main:
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
    errors = [str(d) for d in tu.diagnostics if d.severity >= 3]
    return {"constants": constants, "origins": origins, "shared": shared, "errors": errors,
            "seconds": time.perf_counter() - t0}


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


def refine(result: ScanResult, kernels: list[Kernel]) -> tuple[list[Kernel], dict[str, Any]]:
    """Kernels with deep-mode facts where libclang resolved what tree-sitter could not; plus what was done."""
    cfg = setup()
    info: dict[str, Any] = {"setup": cfg.to_dict()}
    if not cfg.available:
        info["unresolved"] = [{"kernel": k.name, "path": k.path, **u.to_dict()} for k in kernels if k.facts is not None
                              for u in k.facts.unknown]
        info["note"] = f"deep mode unavailable ({cfg.reason}); these values stayed unknown"
        return kernels, info
    from porter.kernels.facts import measure_file
    from porter.source.parse import parse

    root = Path(result.root)
    by_path: dict[str, list[Kernel]] = {}
    for k in kernels:
        by_path.setdefault(k.path, []).append(k)
    out: list[Kernel] = []
    files, total, errors = 0, 0.0, {}
    for rel, ks in sorted(by_path.items()):
        path = root if root.is_file() else root / rel
        try:
            deep = analyse_file(path, root if root.is_dir() else root.parent, cfg)
            data = path.read_bytes()
        except Exception as e:  # one file libclang cannot handle must not stop the rest
            errors[rel] = [f"{type(e).__name__}: {e}"]
            out.extend(ks)
            continue
        files += 1
        total += deep["seconds"]
        if deep["errors"]:
            errors[rel] = deep["errors"][:20]
        sf = parse(rel, "cuda", data)
        remeasured = {(k.name, k.line): k for k in measure_file(sf, extra_constants=deep["constants"])}
        for k in ks:
            new = remeasured.get((k.name, k.line), k)
            if new.facts is None or k.facts is None:
                out.append(k)
                continue
            facts = _apply_sizes(new.facts, deep["shared"])
            before = {u.what for u in k.facts.unknown}
            after = {u.what for u in facts.unknown}
            used = _names_used(k.facts)
            refinement = DeepRefinement(
                tuple(sorted(before - after)), tuple(sorted(after)), round(deep["seconds"] / len(ks), 4),
                tuple(sorted({os.path.relpath(o, path.parent) for n, o in deep["origins"].items()
                              if o and o != str(path) and n in used})))
            out.append(dataclasses.replace(k, facts=dataclasses.replace(facts, deep=refinement)))
    info.update({"files": files, "kernels": len(kernels), "seconds": round(total, 3),
                 "seconds_per_kernel": round(total / max(1, len(kernels)), 4), "errors": errors})
    return out, info


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
