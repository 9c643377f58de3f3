"""The refine steps for Python files: text only shown to a person or only documenting, a library module's self-test,
kernels CuPy compiles, optional and probe imports, pip's ignored dependency links, the project's own dtype names,
probed dtypes and FNUZ tables, nvcc variables read with a default or written from the running GPU, nvidia-smi probes
that answer for AMD too, other accelerator platforms' modules and CuTe DSL modules. porter.match.refine runs them
(capability tests: porter.match.refine_capability).

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
5e. Python: a kernel string CuPy compiles (RawKernel, RawModule, ElementwiseKernel, ReductionKernel) reads info in
   PYT007 (data `rocm_compiles`): CuPy's ROCm build compiles it with hipRTC; what in it does not hold on AMD is its
   own finding. PyCUDA's SourceModule stays open.
5d. Python: a finding in the `if __name__ == "__main__":` self-test of a module that defines functions or classes
   reads info (data `self_test`): the self-test runs only by hand, the library code is what ships.
5l. Python: nvidia-smi (PYT006) in a function that also runs rocm-smi or amd-smi is a dual platform probe: info
   (data `probes_rocm`).
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
   (`{torch.float8_e4m3fn: 1e-3, ..., torch.float8_e4m3fnuz: 1e-3}`), or whose name the same scope later gives an
   FNUZ entry (`TABLE[torch.float8_e4m3fnuz] = ...`, `TABLE.update(...)` naming one), is a table that serves both
   encodings: info (data `fnuz_too`).
5u. requirements: in a file that pins torch (`torch==2.1.2`, a `pip freeze` of a PyTorch environment), an
   `nvidia-*-cuNN` wheel the CUDA build of torch installs with it (cuBLAS, cuDNN, NCCL, nvJitLink, ...) is that
   build's dependency, not the project's: info (data `torch_closure`).
5m. Python: a string that is a statement of its own (a docstring) runs nothing: findings in it are dropped.
5p. Python: the text of an exception's message (a raise statement), a `help=` argument or a setuptools
   `user_options` help string is read by a person, not built: findings in that string text are dropped.
5n. Python: a module named for another accelerator platform (Metal, Ascend, IPEX, MUSA, ...) runs on neither the CUDA
   nor the ROCm build: info (data `other_platform`).
5o. Python: in a module that imports an NVIDIA-only kernel DSL (CuTe DSL, cuTile) at its top level, a 32-thread warp
   (PYT009), a capability test (PYT001) and cuda-python's driver (LIB007) belong to an NVIDIA-only implementation
   whose DSL import is the port item: info (data `nvidia_dsl`).
8j. Python: an OCP FP8 dtype's exact name defined by the project (a DSL's `class float8_e4m3fn`) is a name: info
   (data `own_name`).
8k. Python: an OCP FP8 dtype under a dict key spelling its own name is a menu entry: info (data `dtype_table`).
8l. Python: OCP FP8 in code named for the MX formats is what the MX specification defines, and E4M3 in code named
   for NVFP4 is that format's block scale: info (data `mx_format`).
8m. Python: an NVFP4-named constant whose name speaks only of how many 4-bit elements a byte holds
   (`NVFP4_ELES_PER_BYTE = 2` and the shape arithmetic that divides by it, ac4k) describes the E2M1 element packing
   that AMD's MXFP4 shares (two E2M1 values per byte: OCP Microscaling Formats v1.0, section 5.3.3): a port to MXFP4
   keeps it, so it reads info (data `element_packing`). The NVFP4-specific parts - the E4M3 block scales, the
   16-element scale block (`NVFP4_SF_VEC_SIZE = 16`, real), the kernels - stay open.
8n. Python: a CUDA version or capability read (PYT001, PYT002) in an `if`/`elif` arm of a chain whose later arm is
   the ROCm build's (`if args.use_zluda: ... torch.version.cuda ... elif torch.version.hip: ...`) is the other side
   of a decision the project already makes for ROCm: info (data `rocm_arm`). The ROCm arm's own reads stay, and so
   do an arm after it (the else of `if hasattr(torch, "xpu") and torch.version.hip:` is where ROCm without XPU
   goes) and an arm whose own test reads PyTorch's CUDA device API, which ROCm's PyTorch answers too.
8p. Python: the OCP return of an FP8 dtype chooser (QNT004) - a function whose own `if` arm tests the ROCm build
   (`torch.version.hip is not None and hasattr(...)`, `detect_vendor() == "amd"`) and returns the FNUZ dtype - or an
   OCP dtype after such an arm in the same block or in its else, is the other devices' answer: info (data
   `fnuz_arm`).
8q. Python: torch.version.cuda (PYT002) read where None cannot reach it - the test of an `if` that returns when it is
   None, a read after that `if` in the same block or one around it (data `none_returned`), or a clause of a boolean
   test that reads torch.version.hip the same way in another clause (data `hip_twin`): info. A None test that raises
   stays open (the code refuses a ROCm build).
8r. Python: a build variable (BLD006) in a test module's assertion or environment patch (`mock.patch.dict(os.environ,
   {...})`, `monkeypatch.setenv`, `os.environ.pop(...)`) is the test's fixture: info (data `test_fixture`).
8h. C/C++: a device-property capability test (DEV013) that only sets a variable the file reads only in printed text
   changes a line of a report: info (data `report_only`). Python: a capability only joined into a label nothing
   compares is an identity (8b), and TORCH_CUDA_ARCH_LIST written from the running GPU's own capability names no
   NVIDIA GPU (data `own_arch`, 8i).
"""
from __future__ import annotations

import re

from porter.match.draft import Draft
# Shared helpers keep the private names the steps called them by when all of refine was one module, so the
# moved code reads as it did.
from porter.match.refine_common import as_info as _as_info, code_line as _code_line, offset as _offset
from porter.model import Severity
from porter.source.parse import SourceFile

# The data keys of the steps above that lower a finding to info because code of its own file gives the ROCm build
# its answer (a rocm-smi probe beside nvidia-smi, a probed dtype, an FNUZ arm or table, a ROCm arm of the same
# chain, a None return or a torch.version.hip twin of a torch.version.cuda read). In a file a pull request adds or
# modifies, that code is the author under review vouching for their own spot: under --isolated the gate counts such
# a finding at its rule's severity (porter.diff._reopen).
OWN_ROCM_CONTEXT_KEYS = frozenset({"probes_rocm", "probed", "fnuz_too", "fnuz_arm", "rocm_arm", "none_returned",
                                   "hip_twin"})

# A kernel in a Python string that CuPy compiles (5e).
HIPRTC_RULES = frozenset({"PYT007"})


# 5l. Python: nvidia-smi (PYT006) run by a function that also runs rocm-smi or amd-smi (Liger-Kernel's get_platform():
# nvidia-smi first, rocm-smi when it is missing) is a platform probe that already answers for AMD: info (data
# `probes_rocm`). A function that only runs nvidia-smi stays open, whatever the rest of the file does.
SMI_RULES = frozenset({"PYT006"})
ROCM_TOOL = re.compile(rb"\b(?:rocm-smi|amd-smi)\b")


def _open_node(f: Draft, sf: SourceFile, rules: frozenset[str]):
    """The syntax node at finding `f` when it is an open (above info) finding of one of `rules` in a parsed file, else
    None: where every Python context step below starts."""
    if f.rule not in rules or f.severity <= Severity.INFO or sf.root is None:
        return None
    at = _offset(sf, f.line, f.column)
    return sf.root.named_descendant_for_byte_range(at, at + 1)


def dual_probe(f: Draft, sf: SourceFile) -> Draft:
    """PYT006 at info inside a Python function whose code also names rocm-smi or amd-smi (step 5l)."""
    if f.rule not in SMI_RULES or f.severity <= Severity.INFO or sf.root is None:
        return f
    node = sf.root.named_descendant_for_byte_range(_offset(sf, f.line, f.column), _offset(sf, f.line, f.column) + 1)
    while node is not None and node.type != "function_definition":
        node = node.parent
    if node is None:
        return f
    m = ROCM_TOOL.search(sf.data, node.start_byte, node.end_byte)
    if m is None:
        return f
    line = sf.data.count(b"\n", 0, m.start()) + 1
    return _as_info(f, "probes_rocm", f"the same function runs {m.group(0).decode()} (line {line}): a platform probe "
                                      "that answers for AMD")


# 5e. A kernel string CuPy compiles (RawKernel, RawModule, ElementwiseKernel, ReductionKernel): CuPy's ROCm build
# compiles the same string with hipRTC, so the kernel's existence (PYT007's inventory note) is no port item; what
# in it does not hold on AMD (PTX, 32-lane masks) is its own finding (PYT008, the embedded rules), still open.
# Every dev set's judge read plain CuPy kernels so (gpu4pyscf, CuPy's cupyx.scipy). PyCUDA's SourceModule and raw
# NVRTC calls have no ROCm build and stay open.
CUPY_KERNEL = re.compile(rb"\b(?:RawKernel|RawModule|ElementwiseKernel|ReductionKernel)\s*\(")
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
PY_MESSAGE_HINT = re.compile(rb"\b(?:print|warn|warning|info|debug|error|critical|exception|log|log_once)\s*\(")
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


# 5p. Python: the text of a string that only a person reads - an exception's message in a `raise` statement
# (`raise SystemExit("... TORCH_CUDA_ARCH_LIST=8.9 uv sync")`), an argparse/click `help=` argument, and the help
# string of a setuptools/distutils command option (the third item of each `(long, short, help)` tuple in
# `user_options`, https://setuptools.pypa.io/en/latest/deprecated/distutils/apiref.html#distutils.cmd.Command) -
# configures nothing: an nvcc flag or a CUDA name written there is advice, as a print's text is (5c). Dropped. Only the
# string's own text counts: an f-string's interpolated expression (`raise ValueError(f"{torch.version.cuda}")`) runs,
# and a string passed to anything else (a flag list, an environment write) keeps its finding.
PY_TEXT_HINT = re.compile(rb"\braise\b|\bhelp\s*=|\buser_options\b")


def message_text_spans(sf: SourceFile) -> list[tuple[int, int]]:
    """Byte spans [start, end) of the raise statements, `help=` argument values and user_options help strings of a
    Python file (step 5p); findings count only when they also sit in string text (in_string_text)."""
    from porter.source.parse_queries import descendants

    root = sf.root
    if root is None:
        return []
    out = []
    for node in descendants(root, ("raise_statement", "keyword_argument", "assignment"), lang="python"):
        if node.type == "raise_statement":
            out.append((node.start_byte, node.end_byte))
        elif node.type == "keyword_argument":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if name is not None and value is not None and name.text == b"help":
                out.append((value.start_byte, value.end_byte))
        else:
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or right is None or not left.text.split(b".")[-1].strip() == b"user_options":
                continue
            for item in descendants(right, ("tuple",), lang="python"):
                parts = item.named_children
                if len(parts) == 3 and parts[0].type == "string" and parts[2].type in _STRING_NODES:
                    out.append((parts[2].start_byte, parts[2].end_byte))
    return out


def in_string_text(sf: SourceFile, at: int) -> bool:
    """Whether byte `at` is in a string literal's own text, not in an f-string's interpolated expression."""
    if sf.root is None:
        return False
    node = sf.root.named_descendant_for_byte_range(at, at + 1)
    while node is not None:
        if node.type == "interpolation":
            return False
        if node.type in _STRING_NODES:
            return True
        node = node.parent
    return False


def without_message_text(findings: list[Draft], sf: SourceFile) -> list[Draft]:
    """The findings not in the text of an exception message or an option's help (step 5p)."""
    spans = message_text_spans(sf)
    if not spans:
        return findings
    out = []
    for f in findings:
        at = _offset(sf, f.line, f.column)
        if any(a <= at < b for a, b in spans) and in_string_text(sf, at):
            continue
        out.append(f)
    return out


# A drop-in library's Python import (LIB007): optional when a try/except ImportError holds it.
OPTIONAL_IMPORT_RULES = frozenset({"LIB007"})
# A port-kind or unported library's Python import (LIB008, LIB009): marked optional there, severity kept.
PROBED_IMPORT_RULES = frozenset({"LIB008", "LIB009"})


# An except clause that catches an ImportError: by name, or a bare `except:` / `except Exception` (gpt-neox's
# `try: from apex.contrib... import FastLayerNormFN` / `except: HAVE_PERSIST_LAYER_NORM = False`).
_CATCHES_IMPORT = re.compile(rb"^except\s*(?::|\(?\s*(?:\w+\s*,\s*)*(?:ImportError|ModuleNotFoundError|(?:Base)?Exception)\b)")


BARE_EXCEPT = re.compile(rb"\bexcept\s*:")


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


# 5u. requirements. PyTorch's Linux CUDA wheels declare NVIDIA's runtime wheels as dependencies (torch's
# Requires-Dist on PyPI: nvidia-cuda-nvrtc/-runtime/-cupti, nvidia-cudnn, -cublas, -cufft, -curand, -cusolver,
# -cusparse, -cusparselt, -nccl, -nvtx, -nvjitlink, -cufile, each -cu11/-cu12/-cu13; nvJitLink also through cuSPARSE's
# and cuSOLVER's own Requires-Dist: https://pypi.org/project/torch/, https://pypi.org/project/nvidia-cusparse-cu12/),
# so `pip freeze` of a CUDA torch environment lists them beside the torch pin (heldout22's KIVI requirements.txt).
# There they are the CUDA torch's closure: ROCm torch (installed from PyTorch's ROCm index, where `torch==2.1.2`
# matches 2.1.2+rocm5.6) brings its own libraries, and the wheels, if installed, are not loaded. The torch install
# is the port item; each wheel line is not: info (data `torch_closure`). A wheel named without a torch pin beside it
# (a Dockerfile's `pip install nvidia-nccl-cu13`) is the project's own choice and stays.
TORCH_CLOSURE_RULES = frozenset({"LIB010", "LIB011", "CTR005"})
TORCH_PIN = re.compile(rb"^[ \t]*torch[ \t]*==", re.M | re.I)
_TORCH_CUDA_WHEEL = re.compile(r"^\s*nvidia[-_](?:cuda[-_]nvrtc|cuda[-_]runtime|cuda[-_]cupti|cudnn|cublas|cufft|"
                               r"curand|cusolver|cusparse|cusparselt|nccl|nvtx|nvjitlink|cufile)[-_]cu1\d\b", re.I)


def torch_closure(f: Draft, sf: SourceFile) -> Draft:
    """The finding at info when its requirement line is a wheel the CUDA build of torch brings, in a file that pins
    torch (step 5u); the caller checks the pin (TORCH_PIN)."""
    if f.rule not in TORCH_CLOSURE_RULES or f.severity <= Severity.INFO:
        return f
    if not _TORCH_CUDA_WHEEL.match(_code_line(sf, f.line).decode("utf-8", "replace")):
        return f
    return _as_info(f, "torch_closure", "a wheel the CUDA build of torch installs with it, listed beside this file's "
                                        "torch pin (a frozen environment): ROCm torch brings its own libraries; the "
                                        "torch install is the port item")


# 8d. NVFP4-named enum members the project defines (QNT003).
ENUM_NAME_RULES = frozenset({"QNT003"})
# 8j. Python: an OCP FP8 dtype's exact name the project defines itself - a class, a function or a variable
# (tilelang's DSL dtypes: `class float8_e4m3fn(dtype): ...`, `float8_e4m3fn = dtype("float8_e4m3fn")`) - is the
# project's own symbol, not a use of PyTorch's OCP FP8 dtype: info (data `own_name`). Its uses elsewhere, and
# `x = torch.float8_e4m3fn` (the torch attribute on the right), stay as they are. Not QNT003: an NVFP4-named
# constant can be the format's own parameter (the first judged set's flashinfer `NVFP4_SF_VEC_SIZE = 16`, real).
DEFINED_NAME_RULES = frozenset({"QNT004"})
OWN_NAME_RULES = ENUM_NAME_RULES | DEFINED_NAME_RULES
# 8f. OCP FP8 dtypes in a table that names the FNUZ ones too (QNT004).
FNUZ_TABLE_RULES = frozenset({"QNT004"})
_COLLECTIONS = frozenset({"dictionary", "list", "tuple", "set"})


def project_name(f: Draft, sf: SourceFile) -> Draft:
    """QNT003 at info on an enum member's definition (module doc, step 8d); QNT004 at info on a name the project
    defines as a class, a function or a variable of its own (8j)."""
    from porter.match.kinds.python import enum_member_definition

    if f.rule not in OWN_NAME_RULES or f.severity <= Severity.INFO:
        return f
    at = _offset(sf, f.line, f.column)
    if f.rule in PACKING_RULES and _PACKING_NAME.fullmatch(_identifier_at(sf, at)):
        return _as_info(f, "element_packing", "counts 4-bit E2M1 elements per byte: MXFP4 packs the same elements two "
                                              "to a byte, so a port to MXFP4 keeps it")
    owner = enum_member_definition(sf, at) if f.rule in ENUM_NAME_RULES else None
    if owner is not None:
        return _as_info(f, "own_name", f"defines a member of the project's {owner} with a number: a name, not "
                                       f"NVIDIA's NVFP4 API")
    kind = _defined_here(sf, at) if f.rule in DEFINED_NAME_RULES else None
    if kind is None:
        return f
    return _as_info(f, "own_name", f"defines the project's own {kind} of that name (a DSL's dtype, a constant): a "
                                   f"name, not PyTorch's dtype")


# 8m. An NVFP4-named count of elements per byte (QNT003): NVFP4_ELES_PER_BYTE, NVFP4_ELEMENTS_PER_UINT8.
PACKING_RULES = frozenset({"QNT003"})
_PACKING_NAME = re.compile(r"(?i)NVFP4_?(?:ELE?M?S?|ELEMENTS?|VALUES?|VALS?|NUMS?|FP4S?)_?PER_?(?:BYTE|U?INT8)S?")
_IDENT = re.compile(rb"\w+")


def _identifier_at(sf: SourceFile, at: int) -> str:
    """The whole identifier starting at byte `at` ("" when none does)."""
    m = _IDENT.match(sf.code, at)
    return m.group(0).decode("ascii", "replace") if m else ""


def _defined_here(sf: SourceFile, at: int) -> str | None:
    """"class", "function" or "variable" when the identifier at byte `at` is the name a class or function
    definition binds, or the whole left side of an assignment (a module's, a class's or a local name); else None."""
    if sf.root is None:
        return None
    node = sf.root.named_descendant_for_byte_range(at, at + 1)
    if node is None or node.type != "identifier" or node.parent is None:
        return None
    parent = node.parent
    if parent.type in ("class_definition", "function_definition") and parent.child_by_field_name("name") == node:
        return "class" if parent.type == "class_definition" else "function"
    if parent.type == "assignment" and parent.child_by_field_name("left") == node:
        return "variable"
    return None


# 8e. A dtype taken only where PyTorch has it (QNT003, QNT004).
PROBED_DTYPE_RULES = frozenset({"QNT003", "QNT004"})


def probed_dtype(f: Draft, sf: SourceFile) -> Draft:
    """The finding at info when its `mod.name` is the value of `mod.name if hasattr(mod, "name") else other`."""
    node = _open_node(f, sf, PROBED_DTYPE_RULES)
    if node is None:
        return f
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
    if node is None:
        return f
    if b"fnuz" in sf.code[node.start_byte:node.end_byte]:
        return _as_info(f, "fnuz_too", f"the {node.type} at line {node.start_point[0] + 1} lists the FNUZ dtypes too: "
                                       f"a table that serves both encodings")
    added = _fnuz_added(node, sf)
    if added is None:
        return f
    return _as_info(f, "fnuz_too", f"the {node.type} at line {node.start_point[0] + 1} is {added[0]}, to which line "
                                   f"{added[1]} adds an FNUZ entry: a table that serves both encodings")


# 8f, a table filled in two steps: the literal bound to a name, and the FNUZ entries the same scope adds to that name
# afterwards - `name[key] = value`, `name.update(...)`, `name.setdefault(...)`, `name.append/extend/add/insert(...)`
# naming an FNUZ dtype - often under `if hasattr(torch, "float8_e4m3fnuz"):` (sdnext's dtype_dict and
# torch_dtype_dict). The name is the literal's whole left side; writes in a nested function or class are another
# scope's and are not read.
_ADDS = frozenset({"update", "setdefault", "append", "extend", "add", "insert"})
_SCOPES = frozenset({"function_definition", "class_definition", "lambda"})


def _fnuz_added(table, sf: SourceFile) -> tuple[str, int] | None:
    """(the name the collection literal `table` is bound to, the line of the first statement after it in the same
    scope that adds an FNUZ-named entry to that name), or None."""
    from porter.source.parse_queries import walk_descendants

    bind = table.parent
    if bind is not None and bind.type == "assignment" and bind.child_by_field_name("right") == table:
        target = bind.child_by_field_name("left")
    else:
        return None
    if target is None or target.type != "identifier":
        return None
    scope = bind.parent
    while scope is not None and scope.type not in ("function_definition", "module"):
        scope = scope.parent
    if scope is None:
        return None
    name = target.text
    writes = sf.cache.get("refine.fnuz_writes")
    if writes is None:  # once per file: the statements that name an FNUZ dtype at all
        writes = [n for n in walk_descendants(sf.root, frozenset({"assignment", "call"})) if b"fnuz" in n.text]
        sf.cache["refine.fnuz_writes"] = writes
    for node in writes:
        if node.start_byte < bind.end_byte or not scope.start_byte <= node.start_byte < scope.end_byte:
            continue
        up = node.parent
        while up is not None and up != scope and up.type not in _SCOPES:
            up = up.parent
        if up != scope:
            continue  # inside a nested function, class or lambda
        if node.type == "assignment":
            left = node.child_by_field_name("left")
            value = left.child_by_field_name("value") if left is not None and left.type == "subscript" else None
            if value is None or value.text != name:
                continue
        else:
            fn = node.child_by_field_name("function")
            obj = fn.child_by_field_name("object") if fn is not None and fn.type == "attribute" else None
            attr = fn.child_by_field_name("attribute") if fn is not None and fn.type == "attribute" else None
            if obj is None or attr is None or obj.text != name or attr.text.decode("ascii", "replace") not in _ADDS:
                continue
        return name.decode("utf-8", "replace"), node.start_point[0] + 1
    return None


# 8c. nvcc variables read from the environment with a default (BLD006).
ENV_DEFAULT_RULES = frozenset({"BLD006"})
_ENV_READ = re.compile(rb"(?:\bos\.getenv|\bgetenv|\benviron\.get)$")


def env_default(f: Draft, sf: SourceFile) -> Draft:
    """BLD006 at info on the name argument of an environment read that has a default (module doc, step 8c)."""
    node = _open_node(f, sf, ENV_DEFAULT_RULES)
    if node is None:
        return f
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
    node = _open_node(f, sf, ENV_DEFAULT_RULES)
    if node is None:
        return f
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
    bound = {m.group(1) for m in re.finditer(rb"(?m)^[^\S\n]*([A-Za-z_]\w*)\s*=[^=].*$", fn.text)
             if b"capability" in m.group(0)}
    if not names & bound:
        return f
    return _as_info(f, "own_arch", "set from the running GPU's own capability: it names no NVIDIA GPU, and ROCm's "
                                   "extension builder reads PYTORCH_ROCM_ARCH")


# 5m. Python: a string that is a statement of its own - a docstring, or a block of text or old code put in triple
# quotes - is evaluated and thrown away: nothing reads it (https://peps.python.org/pep-0257/: a docstring is only
# stored as __doc__). An nvcc flag named in one (tilelang's `"""... --use_fast_math will be passed to nvcc"""`, a usage
# example in a docstring) is documentation, not a build setting: dropped, as printed text is (5c).
_STRING_NODES = frozenset({"string", "concatenated_string"})


def in_string_statement(sf: SourceFile, line: int, column: int) -> int | None:
    """The first line of the string statement holding (line, column), or None when the spot is not inside a string
    that is a statement of its own."""
    if sf.root is None:
        return None
    at = _offset(sf, line, column)
    node = sf.root.named_descendant_for_byte_range(at, at + 1)
    # the outermost string around the spot (an f-string's interpolation sits inside the string node)
    outer = None
    while node is not None and node.type not in ("expression_statement", "block", "module"):
        if node.type in _STRING_NODES:
            outer = node
        node = node.parent
    if outer is None or node is None or node.type != "expression_statement" or outer.parent != node \
            or node.named_child_count != 1:
        return None
    return outer.start_point[0] + 1


def without_string_statements(findings: list[Draft], sf: SourceFile) -> list[Draft]:
    """The findings that are not inside a string statement (step 5m)."""
    spans = sf.string_spans
    out = []
    for f in findings:
        at = _offset(sf, f.line, f.column)
        if any(a <= at < b for a, b in spans) and in_string_statement(sf, f.line, f.column) is not None:
            continue
        out.append(f)
    return out


# 5n. Python: a module of another accelerator platform's backend - a file or folder named for Apple Metal/MLX,
# Ascend NPUs, Intel XPU/IPEX/Gaudi, Moore Threads MUSA, Cambricon MLU, Google TPU, Iluvatar, x86 CPUs (torchao's
# inductor `x86.py` lowering passes),
# Kunlunxin, MetaX or WebGPU (tilelang's `metal/` simdgroup code, TGI's layers/attention/ipex.py imported under
# `SYSTEM == "ipex"`, flash-linear-attention's `backends/triton_ascend/`) - runs on neither the CUDA nor the ROCm
# build: what it says about warps or FP8 is about its own hardware (a Metal simdgroup is 32 wide). Info (data
# `other_platform`). The words are platforms that are neither NVIDIA's nor AMD's; words AMD also runs (XLA, SYCL,
# OpenCL, Vulkan, CPU) are not among them, nor words science uses for other things (`mps`: matrix product states,
# `neuron`: neuron simulators, both with CUDA code of their own).
_OTHER_PLATFORMS = {"metal": "Apple Metal", "mlx": "Apple MLX", "ascend": "Ascend NPUs",
                    "npu": "NPUs", "xpu": "Intel XPU", "ipex": "Intel Extension for PyTorch", "gaudi": "Intel Gaudi",
                    "habana": "Intel Gaudi", "hpu": "Intel Gaudi (HPU)", "musa": "Moore Threads MUSA",
                    "mthreads": "Moore Threads", "mlu": "Cambricon MLU", "cambricon": "Cambricon MLU",
                    "tpu": "Google TPU", "iluvatar": "Iluvatar CoreX",
                    "kunlunxin": "Kunlunxin XPU", "metax": "MetaX", "webgpu": "WebGPU", "x86": "x86 CPUs"}
_PATH_WORDS = re.compile(r"[A-Za-z0-9]+")


def other_platform(path: str) -> tuple[str, str] | None:
    """(the word, the platform) when a folder of `path` or its file name names another accelerator platform, as a
    whole word between `/`, `_`, `-` or `.` (`backends/triton_ascend/x.py`, `attention/ipex.py`), else None."""
    for word in _PATH_WORDS.findall(path.lower()):
        if word in _OTHER_PLATFORMS:
            return word, _OTHER_PLATFORMS[word]
    return None


def platform_module(f: Draft, platform: tuple[str, str]) -> Draft:
    if f.severity <= Severity.INFO:
        return f
    return _as_info(f, "other_platform", f"in a module for {platform[1]} (`{platform[0]}` in its path): neither the "
                                         "CUDA nor the ROCm build runs it")


# 5o. Python: a module that imports an NVIDIA-only kernel DSL at its top level - the CUTLASS Python DSL (CuTe DSL,
# `import cutlass` / `cutlass.cute`, https://docs.nvidia.com/cutlass/media/docs/pythonDSL/overview.html) or cuTile
# (`cuda.tile`) - is an NVIDIA kernel implementation as a whole: it cannot be imported on ROCm, and its port item is
# that import (LIB008 "CUTLASS / CuTe", LIB007 for cuTile). A warp of 32 threads inside it (PYT009: tilelang's
# cutedsl/reduce.py, Liger's cutedsl rms_norm) is right for the DSL it feeds, a capability test (PYT001) chooses
# between NVIDIA generations only, and cuda-python's driver (LIB007 `cuda.bindings.driver`) only hands the DSL its
# stream: info (data `nvidia_dsl`). A module that imports the DSL only inside a function may run on ROCm until that
# function is called, so its findings stay as they are.
NVIDIA_DSL_RULES = frozenset({"PYT001", "PYT009", "LIB007"})
# The NVIDIA-only kernel DSLs: the CUTLASS Python DSL (CuTe DSL) and cuTile Python (`cuda.tile`, which compiles tile
# kernels for NVIDIA GPUs only: https://docs.nvidia.com/cuda/cutile-python/).
_NVIDIA_DSL_MODULES = {"cutlass": "the CUTLASS DSL", "cuda.tile": "cuTile"}


def nvidia_dsl_import(sf: SourceFile) -> tuple[int, str, frozenset[int]] | None:
    """(the line of the first top-level import of an NVIDIA-only kernel DSL, the DSL, the lines of every import of
    one) - a top-level import is a module-level statement or one inside a module-level `try`/`if` - else None."""
    from porter.source.syntax import imports

    first = None
    lines = set()
    for imp in imports(sf):
        dsl = next((d for m, d in _NVIDIA_DSL_MODULES.items()
                    if imp.module == m or imp.module.startswith(m + ".")), None)
        if dsl is None:
            continue
        lines.add(imp.node.start_point[0] + 1)
        node = imp.node
        while node is not None and node.type not in ("function_definition", "class_definition", "module"):
            node = node.parent
        if first is None and node is not None and node.type == "module":
            first = (imp.node.start_point[0] + 1, dsl)
    return None if first is None else (first[0], first[1], frozenset(lines))


def nvidia_dsl(f: Draft, dsl: tuple[int, str, frozenset[int]]) -> Draft:
    """A 32-thread warp, a capability test or a drop-in library's import (cuda-python's driver, which hands the DSL
    its stream) at info inside an NVIDIA kernel DSL module; the DSL's own imports stay (step 5o)."""
    line, name, imports_at = dsl
    if f.rule not in NVIDIA_DSL_RULES or f.severity <= Severity.INFO or f.line in imports_at:
        return f
    return _as_info(f, "nvidia_dsl", f"in a module written in {name} (imported at line {line}), which compiles for "
                                     "NVIDIA GPUs only: part of the module the DSL import's finding reports")


# 8k. Python: an OCP FP8 dtype (QNT004) as the value of a dict literal's key that spells the dtype's own name
# (`{"float8_e4m3fn": torch.float8_e4m3fn}`: uccl's benchmark menu, a command-line choice) names the dtype for a
# user to pick; the menu chooses nothing, and what uses the chosen dtype is its own spot. Info (data `dtype_table`).
# A value under any other key (`{"kv_dtype": torch.float8_e4m3fn}`: a configuration that picks OCP FP8) stays open,
# and so does a dtype-keyed table without the FNUZ entries (`{torch.float8_e4m3fn: 1e-3}`: MI300X's FNUZ dtypes
# would miss it; 8f reads the table that lists them).
DTYPE_TABLE_RULES = frozenset({"QNT004"})


def dtype_table(f: Draft, sf: SourceFile) -> Draft:
    """QNT004 at info on a dict literal's value under a string key naming the same dtype (step 8k)."""
    node = _open_node(f, sf, DTYPE_TABLE_RULES)
    if node is None:
        return f
    attr = node.parent if node is not None and node.parent is not None and node.parent.type == "attribute" else node
    pair = attr.parent if attr is not None else None
    if attr is None or pair is None or pair.type != "pair" or pair.parent is None or pair.parent.type != "dictionary":
        return f
    key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
    name = attr.text.decode("utf-8", "replace").rsplit(".", 1)[-1]
    if value == attr and key is not None and key.type == "string" \
            and key.text.decode("utf-8", "replace").strip("\"'") == name:
        why = "a dict literal's (line {}) entry under its own name: a menu of dtypes"
    else:
        return f
    return _as_info(f, "dtype_table", why.format(pair.parent.start_point[0] + 1))


# 8l. Python: OCP FP8 (QNT004) in code for the OCP Microscaling formats - a path, function or parameter named for MX
# (`mx_formats/`, `quantize_mxfp8`, `mx_fp8_dtype`) - is right on every target: the MX specification defines MXFP8's
# elements as OCP E4M3/E5M2 (https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf),
# gfx950 implements them natively and elsewhere they are decoded in software with the same bit patterns, so no FNUZ
# conversion applies. Info (data `mx_format`). The same holds for NVFP4, whose per-16-element block scales are FP8
# E4M3 by the format's definition
# (https://developer.nvidia.com/blog/introducing-nvfp4-for-efficient-and-accurate-low-precision-inference/): an E4M3
# dtype in code named for NVFP4 (a function, a parameter, or a dict entry under a string key such as
# `"scaled_mm_nvfp4"`) is the format's scale, and the NVFP4 use itself is QNT003's port item. Info (data
# `mx_format`).
MX_RULES = frozenset({"QNT004"})
_MX_WORD = re.compile(r"^(?:mx(?:fp\d+)?|nvfp4)$")


def _mx_words(text: str) -> str | None:
    """The MX or NVFP4 word in `text` (split at non-alphanumerics and underscores), else None."""
    for w in re.findall(r"[a-z0-9]+", text.lower().replace("_", " ")):
        if _MX_WORD.match(w):
            return w
    return None


def mx_format(f: Draft, sf: SourceFile) -> Draft:
    """QNT004 at info in a path, enclosing function, parameter or string-keyed dict entry named for the MX formats or
    NVFP4 (step 8l)."""
    if f.rule not in MX_RULES or f.severity <= Severity.INFO:
        return f
    where = None
    word = _mx_words(sf.path)
    if word is not None:
        where = f"the path {sf.path}"
    elif sf.root is not None:
        at = _offset(sf, f.line, f.column)
        node = sf.root.named_descendant_for_byte_range(at, at + 1)
        while node is not None and where is None:
            name, kind = None, ""
            if node.type in ("default_parameter", "typed_default_parameter", "function_definition"):
                name = node.child_by_field_name("name")
                kind = "function" if node.type == "function_definition" else "parameter"
            elif node.type == "pair":
                key = node.child_by_field_name("key")
                name, kind = (key, "dict entry") if key is not None and key.type == "string" else (None, "")
            text = name.text.decode("utf-8", "replace") if name is not None else ""
            word = _mx_words(text) if text else None
            if word is not None:
                where = f"the {kind} {text}"
            node = node.parent
    if where is None:
        return f
    if word == "nvfp4":
        return _as_info(f, "mx_format", f"NVFP4 code ({where}): NVFP4's block scales are FP8 E4M3 by the format's "
                                        "definition; the NVFP4 use is the port item")
    return _as_info(f, "mx_format", f"MX-format code ({where}): the MX specification defines its FP8 elements as OCP "
                                    "E4M3/E5M2 on every target")


# 8n. A CUDA version or capability read in a non-ROCm arm of an if/elif chain with a ROCm arm (PYT001, PYT002). sdnext's
# installer records `torch.version.cuda` in its ZLUDA arm before `elif torch.version.hip and allow_rocm:` (judged:
# the ROCm torch is reported by that arm). Only an `if`/`elif` arm before the ROCm arm, with a test of its own that
# ROCm's PyTorch does not answer as CUDA's (a user's option, another platform's flag): an `else` or an arm after a
# ROCm test joined by `and` is where a ROCm build falls when the rest of that test fails (pinned in
# tests/test_pyrec_s23.py). The chain's ROCm arm is found as porter.portaware.guards reads a test's
# build (torch.version.hip, is_hip(), `SYSTEM == "rocm"`, a ROCm test joined by `and`); the chains around the read
# are tried from the innermost out. A read in the ROCm arm itself, or in a condition, stays, and so does one in an
# arm porter.portaware.guards already reads as the CUDA build's (the else of `if torch.version.hip:`), which the port
# status reads handled.
ROCM_ARM_RULES = frozenset({"PYT001", "PYT002"})
# A condition that reads PyTorch's CUDA device API (`torch.cuda.is_available()`, `x.is_cuda`, `device.type == "cuda"`)
# is true on ROCm's PyTorch too (https://pytorch.org/docs/stable/notes/hip.html): its arm is where a ROCm build goes.
_TRUE_ON_ROCM = re.compile(rb"\btorch\.cuda\b|\bis_cuda\b|\.type\b|\bis_available\b|\bdevice_count\b")
# A file without one of these words has no ROCm test for the step to find.
ROCM_ARM_HINT = re.compile(rb"(?i)hip|rocm|amd")


def rocm_sibling_arm(f: Draft, sf: SourceFile) -> Draft:
    """PYT001/PYT002 at info inside a non-ROCm arm of an if/elif chain whose other arm tests the ROCm build (8n)."""
    from porter.portaware.guards import python_rocm_test, python_spans
    from porter.source.preprocessor import CUDA

    if f.rule not in ROCM_ARM_RULES or f.severity <= Severity.INFO or sf.root is None:
        return f
    spans = python_spans(sf.data, sf.path, sf)  # kept on sf for the port-status stage's reading of this file
    if any(sp.side == CUDA and sp.holds((f.line, f.column)) for sp in spans):
        return f  # a CUDA side port-awareness reads (the else of `if torch.version.hip:`): handled there
    at = _offset(sf, f.line, f.column)
    node = sf.root.named_descendant_for_byte_range(at, at + 1)
    arm = None  # the arm's block the read sits in, as the walk goes up
    while node is not None and node.type not in _SCOPES:
        parent = node.parent
        if node.type == "block" and parent is not None and parent.type in ("if_statement", "elif_clause",
                                                                            "else_clause"):
            arm = parent
        if node.type == "if_statement" and arm is not None:
            arms = [node, *(c for c in node.children if c.type in ("elif_clause", "else_clause"))]
            mine = arm if arm in arms else None
            own = mine.child_by_field_name("condition") if mine is not None else None
            if mine is not None and own is not None and not _TRUE_ON_ROCM.search(own.text):
                for other in arms[arms.index(mine):]:
                    cond = other.child_by_field_name("condition")
                    if cond is None or not python_rocm_test(cond, sf.data):
                        continue
                    if other == mine:
                        return f  # the ROCm arm's own read
                    return _as_info(f, "rocm_arm", f"in an arm of the if-chain at line {node.start_point[0] + 1} "
                                                   f"whose arm at line {other.start_point[0] + 1} "
                                                   f"(`{' '.join(cond.text.decode('utf-8', 'replace').split())}`) is "
                                                   "the ROCm build's: the other side of a decision made for ROCm")
            arm = None
        node = parent
    return f


# 8p. The OCP return of an FP8 dtype chooser: `if torch.version.hip is not None and hasattr(torch,
# "float8_e4m3fnuz"): return torch.float8_e4m3fnuz` then `return torch.float8_e4m3fn`. The function already picks
# the FNUZ encoding for the ROCm build in the arm before; the OCP dtype after it (or in that arm's else) is the other
# devices' answer, not a spot to port. The arm's test must name the ROCm build (porter.portaware.guards' reading of a
# ROCm test, joined by `and` or not, or a value compared with "amd", "rocm" or "hip": xkernels' `detect_vendor() ==
# "amd"`) and its block must end by returning an FNUZ dtype. Kept open: an OCP dtype with no such arm before it in
# its own block (a cast, a constant, a helper elsewhere choosing FNUZ), and one in the ROCm arm itself.
FNUZ_ARM_RULES = frozenset({"QNT004"})
_ROCM_VALUE = re.compile(rb"""^[rbuRBU]*["'](?i:amd|rocm|hip)["']$""")


def _names_rocm(cond, data: bytes) -> bool:
    """Whether an `if` test is the ROCm build's (guards' reading) or compares a value with a ROCm vendor's name."""
    from porter.portaware.guards import python_rocm_test
    from porter.source.parse_queries import walk_descendants

    if python_rocm_test(cond, data):
        return True
    for node in walk_descendants(cond, frozenset({"comparison_operator"})):
        if len(node.children) == 3 and node.children[1].type == "==" \
                and any(_ROCM_VALUE.match(c.text or b"") for c in (node.children[0], node.children[2])):
            return True
    return False


def _returns_fnuz(block) -> bool:
    last = block.named_children[-1] if block is not None and block.named_children else None
    return last is not None and last.type == "return_statement" and b"fnuz" in (last.text or b"")


def fnuz_arm(f: Draft, sf: SourceFile) -> Draft:
    """QNT004 at info after (or in the else of) an arm that returns the FNUZ dtype on the ROCm build (step 8p)."""
    node = _open_node(f, sf, FNUZ_ARM_RULES)
    if node is None:
        return f
    while node is not None and node.type not in _SCOPES:
        parent = node.parent
        if parent is not None and parent.type == "else_clause" and parent.parent is not None \
                and parent.parent.type == "if_statement":
            if _fnuz_arm(parent.parent, sf.data):
                return _fnuz_arm_info(f, parent.parent)
        if parent is not None and parent.type in ("block", "module"):
            before = node.prev_named_sibling
            while before is not None:
                if _fnuz_arm(before, sf.data):
                    return _fnuz_arm_info(f, before)
                before = before.prev_named_sibling
        if node.type == "return_statement" and node.named_child_count == 1 \
                and node.named_children[0].type == "attribute":
            # `return torch.float8_e4m3fn` in a function that returns the FNUZ dtype on the ROCm build in an arm of
            # its own body, before or after: every return of the chooser is some device's answer
            fn = node.parent
            while fn is not None and fn.type not in _SCOPES:
                fn = fn.parent
            body = fn.child_by_field_name("body") if fn is not None and fn.type == "function_definition" else None
            arm = next((s for s in (body.named_children if body is not None else ()) if _fnuz_arm(s, sf.data)), None)
            if arm is not None:
                return _fnuz_arm_info(f, arm)
        node = parent
    return f


def _fnuz_arm(stmt, data: bytes) -> bool:
    """Whether a statement is `if <ROCm test>: ... return <FNUZ dtype>`."""
    cond = stmt.child_by_field_name("condition") if stmt.type == "if_statement" else None
    return cond is not None and _names_rocm(cond, data) and _returns_fnuz(stmt.child_by_field_name("consequence"))


def _fnuz_arm_info(f: Draft, arm) -> Draft:
    cond = arm.child_by_field_name("condition")
    test = " ".join(cond.text.decode("utf-8", "replace").split())
    return _as_info(f, "fnuz_arm", f"the arm at line {arm.start_point[0] + 1} (`{test}`) returns the FNUZ dtype on "
                                   "the ROCm build: this is the other devices' answer")


# 8q. torch.version.cuda read where None cannot reach it (PYT002): after the same function (or module) block left on
# None - `if torch.version.cuda is None: return (0, 0)`, `if not torch.version.cuda: return None` - earlier in the
# same block or a block around it (data `none_returned`); or in a clause of a boolean test that reads
# torch.version.hip the same way in another clause (`(backend == gs.cuda and not torch.version.cuda) or (backend ==
# gs.amdgpu and not torch.version.hip)`: the test already tells the two builds apart; data `hip_twin`). Kept open:
# a read before the early return, after one that raises (the code refuses a ROCm build), after a test of another
# value, and a clause whose hip twin is spelled differently.
VERSION_NONE_RULES = frozenset({"PYT002"})
_CUDA_READ = b"torch.version.cuda"
_NONE_TESTS = frozenset({b"torch.version.cuda is None", b"not torch.version.cuda", b"torch.version.cuda == None"})


def _leaves_on_none(stmt) -> bool:
    if stmt.type != "if_statement" or any(c.type in ("elif_clause", "else_clause") for c in stmt.children):
        return False
    cond = stmt.child_by_field_name("condition")
    body = stmt.child_by_field_name("consequence")
    while cond is not None and cond.type == "parenthesized_expression" and cond.named_child_count == 1:
        cond = cond.named_children[0]
    if cond is None or b" ".join((cond.text or b"").split()) not in _NONE_TESTS or body is None \
            or not body.named_children:
        return False
    return body.named_children[-1].type == "return_statement"


def version_none_safe(f: Draft, sf: SourceFile) -> Draft:
    """PYT002 at info where None cannot reach the read (step 8q)."""
    if f.rule not in VERSION_NONE_RULES or f.severity <= Severity.INFO or sf.root is None:
        return f
    at = _offset(sf, f.line, f.column)
    read = sf.root.named_descendant_for_byte_range(at, at + len(_CUDA_READ))
    while read is not None and read.type != "attribute":
        read = read.parent
    if read is None or read.text != _CUDA_READ:
        return f
    # a clause of a boolean test with a hip twin
    clause, top = read, None
    while clause.parent is not None and clause.parent.type not in ("boolean_operator", "block", "module") \
            and clause.parent.type not in _SCOPES:
        clause = clause.parent
    if clause.parent is not None and clause.parent.type == "boolean_operator":
        top = clause.parent
        while top.parent is not None and top.parent.type in ("boolean_operator", "parenthesized_expression"):
            top = top.parent
        twin = b" ".join((clause.text or b"").split()).replace(_CUDA_READ, b"torch.version.hip")
        from porter.source.parse_queries import walk_descendants
        for node in walk_descendants(top, frozenset({clause.type})):
            if b" ".join((node.text or b"").split()) == twin:
                return _as_info(f, "hip_twin", f"the test at line {top.start_point[0] + 1} reads torch.version.hip "
                                               f"the same way (`{twin.decode('utf-8', 'replace')}`): it tells the "
                                               "two builds apart")
    # the test of an `if` that leaves the block on None (`if torch.version.cuda is None: return (0, 0)`)
    test = read.parent
    while test is not None and test.type in ("parenthesized_expression", "comparison_operator", "not_operator"):
        test = test.parent
    if test is not None and test.type == "if_statement" and _leaves_on_none(test):
        return _as_info(f, "none_returned", f"the test at line {test.start_point[0] + 1} returns when "
                                            "torch.version.cuda is None (the ROCm build)")
    # after the block was left on None
    node = read
    while node is not None and node.type not in _SCOPES:
        parent = node.parent
        if parent is not None and parent.type in ("block", "module"):
            before = node.prev_named_sibling
            while before is not None:
                if _leaves_on_none(before):
                    return _as_info(f, "none_returned", f"line {before.start_point[0] + 1} returns when "
                                                        "torch.version.cuda is None (the ROCm build) before this read")
                before = before.prev_named_sibling
        node = parent
    return f


# 8r. A build variable (BLD006) a test only checks or stages: in a test module (under a `test`/`tests` directory, or
# named test_*.py, *_test.py, conftest.py), a hit inside an `assert`, in the arguments of an environment patch
# (`mock.patch.dict(os.environ, {"CUDAARCHS": "80"})`, `monkeypatch.setenv/delenv(...)`), or naming the variable an
# `os.environ.pop(...)` removes, is the test's fixture: the code under test decides the flags, and its own hits are
# the port items (data `test_fixture`). Kept open: a test that builds (a `load()`/`load_inline()` call's
# `extra_cuda_cflags`, an `os.environ[...] = ...` write before a JIT build) and the same shapes outside tests.
TEST_FIXTURE_RULES = frozenset({"BLD006"})
_TEST_PATH = re.compile(r"(?:^|/)(?:tests?/|test_[^/]*\.py$|[^/]*_test\.py$|conftest\.py$)")
_ENV_PATCH = re.compile(rb"(?:\bpatch\.dict|\bmonkeypatch\.(?:setenv|delenv)|\benviron\.pop)$")


def test_fixture(f: Draft, sf: SourceFile) -> Draft:
    """BLD006 at info in a test module's assertion or environment patch (step 8r)."""
    if f.rule not in TEST_FIXTURE_RULES or f.severity <= Severity.INFO or sf.root is None \
            or not _TEST_PATH.search(sf.path):
        return f
    at = _offset(sf, f.line, f.column)
    node = sf.root.named_descendant_for_byte_range(at, at + 1)
    while node is not None and node.type not in _SCOPES and node.type not in ("block", "module"):
        if node.type == "assert_statement":
            return _as_info(f, "test_fixture", f"in the test's assertion at line {node.start_point[0] + 1}: the "
                                               "code under test decides the flags")
        if node.type == "call":
            fn = node.child_by_field_name("function")
            if fn is not None and _ENV_PATCH.search(fn.text or b""):
                return _as_info(f, "test_fixture", f"in the test's environment patch at line "
                                                   f"{node.start_point[0] + 1} "
                                                   f"(`{fn.text.decode('utf-8', 'replace')}`): the code under test "
                                                   "decides the flags")
        node = node.parent
    return f
