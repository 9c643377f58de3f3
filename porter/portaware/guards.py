"""Find the code a vendor check confines to one build: preprocessor arms and runtime checks in C++ and Python.

Preprocessor arms come from porter.source.preprocessor (each line evaluated as a CUDA and as a ROCm build). Runtime checks
are read from the tree-sitter trees porter already builds (porter.source.parse): a C++ `if` chain or `?:` on a vendor
predicate (`GGML_CUDA_CC_IS_AMD(cc)`, `is_rocm()`), a Python `if`/`elif`/conditional expression on
`torch.version.hip`, `is_hip()`, `current_platform.is_rocm()`, `IS_HIP_EXTENSION` (`is None`/`not` flip the side),
Triton's active target backend (`get_current_target().backend == "cuda"`), a project's own `is_cuda()` when the file
also asks its ROCm twin `is_hip()` (_paired_cuda_predicates) or when its body is one such test
(_solo_cuda_predicates), and a vendor predicate asked about an argument (`is_hip_target(target)`); the right operand
of `and` after a one-vendor test runs on that vendor's build only.
The branch a check takes on ROCm is ROCm-side; the branch it takes otherwise is CUDA-side, but only when the check
is the whole condition (the `else` of `is_amd(cc) && big` also runs on AMD; `hasattr(torch.version, "hip") and
torch.version.hip` is the right test alone). A dict entry keyed "cuda" beside its "rocm" twin key is CUDA-side
(_vendor_keyed_entries), as a CUDA-named function beside its ROCm twin is (_function_twins). A Python module's private function used
only from CUDA-side code (CuPy's `_compile_with_cache_cuda`, called from the `else` of `if runtime.is_hip:`) is
CUDA-side as a whole, and so are the private helpers only it uses.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from porter.lazyre import lazy_regex
from porter.match.regex import compile_regex
from porter.source.preprocessor import CUDA, ROCM
from porter.source.parse import parse
from porter.source.parse_queries import descendants, register_root_descendants, walk_descendants

Pos = tuple[int, int]  # 1-based line, 1-based byte column


@dataclass(frozen=True, order=True)
class Span:
    """Code from `start` up to (not including) `end` that runs only on one side; `line` is the check's line."""

    start: Pos
    end: Pos
    side: str  # "cuda" or "rocm"
    line: int

    def holds(self, pos: Pos) -> bool:
        return self.start <= pos < self.end


# Compiled when first used (porter.lazyre): a file without vendor predicates never needs these.
_camel = lazy_regex(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


_AMD_PARTS = frozenset({"amd", "hip", "rocm", "amdgpu", "amdgcn", "cdna", "rdna", "gcn", "hcc"})
_NV_PARTS = frozenset({"nvidia", "nv"})
_PREDICATE_PARTS = frozenset({"is", "use", "uses", "has", "on", "using", "build", "enabled", "with"})


def _parts(name: str) -> list[str]:
    return [p.lower() for chunk in name.split("_") for p in _camel().findall(chunk)]


def name_side(name: str, python: bool = False) -> str | None:
    """Which build a predicate's name says it is true on: "rocm", "cuda" or None (not a vendor predicate).

    C++ needs a predicate word (`IS_AMD`, `isRocm`, `use_hip`) so that API calls (`hipMalloc`) never count; Python's
    vendor names are flags already (`IS_HIP_EXTENSION`, `ROCM_HOME`)."""
    last = name.rsplit(".", 1)[-1].rsplit("::", 1)[-1]
    parts = _parts(last)
    if not parts:
        return None
    predicate = python or any(p in _PREDICATE_PARTS for p in parts) or last.isupper() and len(parts) == 1
    if not predicate:
        return None
    if any(p in _AMD_PARTS for p in parts):
        return ROCM
    if any(p in _NV_PARTS for p in parts):
        return CUDA
    return None


def _flip(side: str | None) -> str | None:
    return {CUDA: ROCM, ROCM: CUDA}.get(side)


def _pos(point) -> Pos:
    return point[0] + 1, point[1] + 1


def _span(node, side: str, line: int) -> Span:
    return Span(_pos(node.start_point), _pos(node.end_point), side, line)


# ------------------------------------------------------------------------------------------ C++


# A run-time backend choice: a value compared with a vendor's constant (`b == Backend::HIP`, `kind != kCUDA`) or
# a vendor-named string (`!strcmp(resource, "/gpu/hip/ref")`, libCEED's backend resources, or `name == "rocm"`).
_CPP_VENDOR_CONSTANT = lazy_regex(r"^k?(?:(HIP|Hip|ROCM|ROCm|Rocm|AMD|Amd)|(CUDA|Cuda|NVIDIA|Nvidia))$")
_CPP_STRING_COMPARE = frozenset({"strcmp", "strncmp", "strcasecmp", "strncasecmp", "std::strcmp", "std::strncmp"})
_LITERAL_ROCM = frozenset({"hip", "rocm", "amd", "amdgpu"})
_LITERAL_CUDA = frozenset({"cuda", "nvidia"})


def _text(node, data: bytes) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _cpp_constant_side(node, data: bytes) -> str | None:
    """The vendor a backend constant names: an enumerator spelled as the vendor (`Backend::HIP`, `kCuda`), or a
    string literal with the vendor as a word (`"/gpu/hip/ref"`, `"rocm"`)."""
    if node.type == "string_literal":
        parts = {p for p in re.split(r"[^a-z0-9]+", _text(node, data).lower()) if p}
        return ROCM if parts & _LITERAL_ROCM else CUDA if parts & _LITERAL_CUDA else None
    if node.type in ("qualified_identifier", "identifier"):
        m = _CPP_VENDOR_CONSTANT().match(_text(node, data).rsplit("::", 1)[-1])
        return None if m is None else ROCM if m.group(1) else CUDA
    return None


def _cpp_compared(node, data: bytes) -> tuple[str, str] | None:
    """(the compared value's text, the vendor) of `x == VENDOR` / `x != VENDOR` / `strcmp(x, "vendor")`, or None;
    the vendor carries a "!" when the expression is true where the value differs from it."""
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        if op is None or op.type not in ("==", "!="):
            return None
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return None
        for value, const in ((left, right), (right, left)):
            v = _cpp_constant_side(const, data)
            if v is not None and _cpp_constant_side(value, data) is None:
                return re.sub(r"\s+", "", _text(value, data)), v if op.type == "==" else "!" + v
        return None
    if node.type == "call_expression":
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is None or args is None or _text(fn, data) not in _CPP_STRING_COMPARE:
            return None
        vals = [a for a in args.named_children if a.type != "comment"]
        if len(vals) < 2:
            return None
        for value, const in ((vals[0], vals[1]), (vals[1], vals[0])):
            v = _cpp_constant_side(const, data) if const.type == "string_literal" else None
            if v is not None:
                return re.sub(r"\s+", "", _text(value, data)), "!" + v  # strcmp is 0 (false) when equal
    return None


def _cpp_paired(root, data: bytes) -> frozenset[str]:
    """The values the file compares with a ROCm constant: a CUDA comparison of the same value is a backend choice
    between vendors, not a CUDA-only project's `device == Device::CUDA` (which a port must extend, not skip)."""
    out = set()
    for n in descendants(root, _COMPARISONS):
        c = _cpp_compared(n, data)
        if c is not None and c[1].lstrip("!") == ROCM:
            out.add(c[0])
    return frozenset(out)


def _cpp_side(node, data: bytes, paired: frozenset[str] = frozenset()) -> tuple[str | None, bool]:
    """The side on which a C++ condition is true, and whether that is all it says (so the else is the other side).
    `paired`: the values the file also compares with a ROCm constant (_cpp_paired)."""
    t = node.type
    if t in ("condition_clause", "parenthesized_expression"):
        inner = [c for c in node.named_children if c.type != "comment"]
        return _cpp_side(inner[0], data, paired) if len(inner) == 1 else (None, False)
    if t == "unary_expression" and node.child(0) is not None and node.child(0).type == "!":
        s, pure = _cpp_side(node.named_children[0], data, paired)
        return (_flip(s), pure) if pure else (None, False)
    compared = _cpp_compared(node, data) if t in _COMPARISONS else None
    if compared is not None:
        value, vendor = compared
        equal, v = not vendor.startswith("!"), vendor.lstrip("!")
        # As Python's `SYSTEM == "rocm"`: the ROCm test is the whole condition, so its other branch is the CUDA
        # (or another) backend's; a CUDA test confines only the branch it takes (the rest also runs on a CPU).
        if v == ROCM:
            return (ROCM if equal else CUDA), True
        if value not in paired:
            return None, False
        return (CUDA, False) if equal else ("!" + ROCM, False)
    if t == "call_expression":
        fn = node.child_by_field_name("function")
        return (name_side(data[fn.start_byte:fn.end_byte].decode("utf-8", "replace")), True) if fn is not None else (None, False)
    if t in ("identifier", "qualified_identifier", "field_expression"):
        return name_side(data[node.start_byte:node.end_byte].decode("utf-8", "replace")), True
    if t == "binary_expression":
        op = node.child_by_field_name("operator")
        op = op.type if op is not None else ""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op in ("&&", "||"):
            ls, lp = _cpp_side(left, data, paired) if left is not None else (None, False)
            rs, rp = _cpp_side(right, data, paired) if right is not None else (None, False)
            s = ls if ls and lp else rs if rs and rp else None
            if s is None:
                return None, False
            # `amd && x` is true only on AMD (then-branch), `amd || x` false only off AMD (else-branch).
            return (s, False) if op == "&&" else ("!" + s, False)
    return None, False


_BRANCHES = ("if_statement", "conditional_expression")
_COMPARISONS = ("binary_expression", "call_expression")
# cpp_spans and python_spans walk whole files from the root: with the other whole-file queries, not once more.
register_root_descendants("cuda", _BRANCHES)
# Python also reads `and` operands: `is_cuda() and cap >= 9` evaluates its right operand on the CUDA build only.
_PY_BRANCHES = ("if_statement", "conditional_expression", "boolean_operator")
register_root_descendants("python", _PY_BRANCHES)


def cpp_spans(data: bytes, path: str = "x.cu", sf=None) -> list[Span]:
    """Branches of C++ `if` chains and `?:` that a vendor predicate confines to one build."""
    sf = sf or parse(path, "cuda", data)
    out: list[Span] = []
    paired = _cpp_paired(sf.root, data) if _CPP_CHOICE_HINT().search(data) else frozenset()
    for node in descendants(sf.root, _BRANCHES):
        cond = node.child_by_field_name("condition")
        if cond is None:
            continue
        side, pure = _cpp_side(cond, data, paired)
        if side is None:
            continue
        line = node.start_point[0] + 1
        then = node.child_by_field_name("consequence")
        other = node.child_by_field_name("alternative")
        if side.startswith("!"):
            if other is not None:
                out.append(_span(other, _flip(side[1:]), line))
            continue
        if then is not None:
            out.append(_span(then, side, line))
        if pure and other is not None:
            out.append(_span(other, _flip(side), line))
    return out


# ------------------------------------------------------------------------------------------ Python

_py_rocm_expr = lazy_regex(r"^(?:torch\.)?version\.hip$|(?:^|\.)(?:is_hip|is_rocm|_is_hip|_is_rocm)(?:\(\))?$")


_py_platform_name = lazy_regex(r"^[A-Z][A-Z0-9_]*$")
# An environment lookup of one variable (`os.getenv("FORCE_CUDA", "0")`, `os.environ.get("FORCE_ROCM")`,
# `os.environ["USE_HIP"]`), as its text reads with spaces kept: _py_side's environment switch
_py_env_switch = lazy_regex(r"""^os\.(?:getenv|environ\.get)\(\s*["'](\w+)["']\s*(?:,[^()]*)?\)$|^os\.environ\[\s*["'](\w+)["']\s*\]$""")
# The values an environment switch is set to when it asks for something (`FORCE_CUDA=1`).
_TRUE_VALUES = frozenset({"1", "true", "on", "yes"})
_py_getattr_version = lazy_regex(r"""^getattr\((?:torch\.)?version,["'](hip|cuda)["'](?:,None)?\)$""")


_py_cuda_expr = lazy_regex(r"^(?:torch\.)?version\.cuda$|^current_platform\.is_cuda\(\)$|(?:^|\.)is_nvidia(?:\(\))?$")


_py_hasattr = lazy_regex(r"""^hasattr\(([\w.]+),["'](\w+)["']\)$""")


def _tests_attribute(left, right, data: bytes) -> bool:
    """Whether `left` is `hasattr(X, "a")` and `right` reads `X.a`: the left only keeps the right from raising."""
    m = _py_hasattr().match(_py_text(left, data)) if left.type == "call" else None
    return m is not None and re.search(r"(?<![\w.])" + re.escape(f"{m.group(1)}.{m.group(2)}") + r"(?!\w)",
                                       data[right.start_byte:right.end_byte].decode("utf-8", "replace")) is not None


def _py_text(node, data: bytes) -> str:
    return re.sub(r"\s+", "", data[node.start_byte:node.end_byte].decode("utf-8", "replace"))


def _env_switch_side(name: str, data: bytes) -> str | None:
    """The build an environment switch asks for: ROCm by its name (`FORCE_ROCM`, `USE_HIP`); CUDA only beside its
    ROCm twin in the same file (`FORCE_CUDA` beside `FORCE_ROCM`): alone, PyTorch extensions read FORCE_CUDA=1 as
    "build the GPU extension" on a ROCm torch too."""
    side = name_side(name, python=True)
    if side is not None or "CUDA" not in name.upper():
        return side
    twins = (re.sub("(?i)cuda", w, name) for w in ("ROCM", "HIP", "AMD"))
    return CUDA if any(re.search(rb"(?<!\w)" + re.escape(t.encode()) + rb"(?!\w)", data) for t in twins) else None


def _py_side(node, data: bytes, paired: frozenset[str] = frozenset(),
             selectors: frozenset[str] = frozenset()) -> tuple[str | None, bool]:
    """(the build the test is true on, whether it is false on exactly the other build); a side "!S" means only the
    test's false branch is confined, to the build that is not S. `paired`: the file's paired CUDA predicates
    (_paired_cuda_predicates), true on the CUDA build only but false on every other (not only ROCm)."""
    t = node.type
    if t == "parenthesized_expression":
        inner = node.named_children
        return _py_side(inner[0], data, paired, selectors) if len(inner) == 1 else (None, False)
    if t == "not_operator":
        arg = node.child_by_field_name("argument")
        s, pure = _py_side(arg, data, paired, selectors) if arg is not None else (None, False)
        if pure:
            return _flip(s), pure
        # `not is_cuda()`: its false branch is the CUDA build's; `not (x != "cuda")`-like "!rocm": its true one
        if s in (CUDA, ROCM):
            return "!" + _flip(s), False
        if s is not None and s.startswith("!"):
            return _flip(s[1:]), False
        return None, False
    if t == "comparison_operator":
        kids = node.children
        text = [c.type for c in kids]
        if len(kids) == 3 and kids[-1].type == "none" and text[1] in ("is", "is not", "==", "!="):
            s, pure = _py_side(kids[0], data, paired, selectors)
            if not pure or s is None:
                return None, False
            return (s if text[1] in ("is not", "!=") else _flip(s)), True
        if len(kids) == 3 and text[1] == "==" and kids[2].type == "string":
            # An environment switch named for a vendor set to a true value (`os.getenv("FORCE_CUDA", "0") == "1"`,
            # `os.environ.get("FORCE_ROCM") == "1"`): the user asks for that vendor's build, so the test is true on
            # it only; its false branch is every other build (not pure)
            env = _py_env_switch().match(_py_text(kids[0], data))
            value = _py_text(kids[2], data).strip("\"'").lower()
            if env is not None and value in _TRUE_VALUES:
                side = _env_switch_side(env.group(1) or env.group(2), data)
                if side is not None:
                    return side, False
        if len(kids) == 3 and text[1] in ("==", "!=") and kids[2].type == "string":
            # A platform constant compared to a vendor's name (TGI's `SYSTEM == "rocm"`, set once from
            # torch.version.hip): the ROCm test is the whole condition, so its else is the CUDA (or another)
            # build's; `== "cuda"` confines its own branch only, since its else also runs on IPEX or a CPU.
            # An ALL-CAPS name only: `device.type == "cuda"` is true on ROCm too.
            whole = _py_text(kids[0], data)
            name = whole.rsplit(".", 1)[-1]
            value = _py_text(kids[2], data).strip("\"'").lower()
            vendor = ROCM if value in ("rocm", "hip", "amd") else CUDA if value in ("cuda", "nvidia") else None
            # Triton's active target (`triton.runtime.driver.active.get_current_target().backend`) is "cuda" on
            # NVIDIA and "hip" on AMD (triton/backends/nvidia|amd/driver.py: GPUTarget("cuda"|"hip", arch, warp)),
            # as a platform constant is; Triton's tutorials define `is_cuda()` / `is_hip()` by it.
            triton_target = name == "backend" and "get_current_target()" in whole
            # A value compared with a ROCm name is a ROCm test whatever the value's name: no CUDA build's backend,
            # target or platform value is "rocm" or "hip" (tilelang's `target.kind.name == "hip"`, Triton's
            # `options.backend_name == "hip"`, piper-kernels' `accelerator_backend == "rocm"` from torch.version.hip).
            # Not a torch device's `.type`: ROCm's PyTorch reports "cuda" there, so `device.type == "hip"` is no test
            # of the build (https://pytorch.org/docs/stable/notes/hip.html).
            rocm_value = vendor == ROCM and name != "type" and "(" not in name
            # A value the file also tells apart from a ROCm name (`backend == "rocm"`, or set from a function that
            # returns "rocm") is a choice between vendor builds: its `== "cuda"` arm is the CUDA build's, as the
            # C/C++ reading does for a value compared with a ROCm constant (_cpp_paired).
            selector = vendor == CUDA and whole in selectors
            if vendor is None or not (_py_platform_name().match(name) or triton_target or rocm_value or selector):
                return None, False
            if vendor == ROCM:
                return (ROCM if text[1] == "==" else CUDA), True
            return (CUDA, False) if text[1] == "==" else ("!" + ROCM, False)
        if len(kids) == 3 and text[1] in ("==", "!=") and kids[2].type == "attribute":
            # A value compared with a vendor's enumeration member (gt4py's `CUPY_DEVICE_TYPE ==
            # DeviceType.ROCM`, DLPack-style device kinds): read as the string case above - the ROCm member is a
            # ROCm test whatever the value's name, the CUDA one only for a value the file also compares with a ROCm
            # member or name (a selector between vendor builds)
            vendor = _py_member_side(kids[2], data)
            whole = _py_text(kids[0], data)
            if vendor == ROCM and "(" not in whole:
                return (ROCM if text[1] == "==" else CUDA), True
            if vendor == CUDA and whole in selectors:
                return (CUDA, False) if text[1] == "==" else ("!" + ROCM, False)
        return None, False
    if t == "boolean_operator":
        op = node.child_by_field_name("operator")
        op = op.type if op is not None else ""
        l, r = node.child_by_field_name("left"), node.child_by_field_name("right")
        ls, lp = _py_side(l, data, paired, selectors) if l is not None else (None, False)
        rs, rp = _py_side(r, data, paired, selectors) if r is not None else (None, False)
        if op == "and" and l is not None and r is not None and _tests_attribute(l, r, data):
            # `hasattr(torch.version, "hip") and torch.version.hip is not None` is the right test alone, spelled for
            # an object that may lack the attribute (as `getattr(torch.version, "hip", None)` is)
            return rs, rp
        if op == "or" and ls == rs and ls in (CUDA, ROCM):
            # `(torch.cuda.is_available() and torch.version.cuda is not None) or os.getenv("FORCE_CUDA") == "1"`:
            # each side is true on that vendor's build only, so their `or` is too; false, it is the other build's
            # when one side alone is (a pure test false only there)
            return ls, lp or rp
        s = ls if ls and lp else rs if rs and rp else None
        if s is None and op == "and":
            # `is_cuda() and cap >= 9`: true on the CUDA build only, whether or not is_cuda()'s false is ROCm's
            s = ls if ls in (CUDA, ROCM) else rs if rs in (CUDA, ROCM) else None
        if s is None:
            return None, False
        return (s, False) if op == "and" else ("!" + s, False)
    if t in ("identifier", "attribute", "call"):
        text = _py_text(node, data)
        # `getattr(torch.version, "hip", None)`: torch.version.hip, spelled for a torch without the attribute
        g = _py_getattr_version().match(text) if t == "call" else None
        if g is not None:
            return (ROCM if g.group(1) == "hip" else CUDA), True
        if t == "call" and node.child_by_field_name("arguments") is not None and node.child_by_field_name("arguments").named_child_count:
            # a vendor predicate asked about its argument (tilelang's `is_cuda_target(target)` beside
            # `is_hip_target(target)`): true on that vendor's build only; the CUDA one only when paired, as `is_cuda()`
            fn = node.child_by_field_name("function")
            called = _py_text(fn, data) if fn is not None else ""
            if called in paired:
                return CUDA, False
            if "(" not in called and any(p in _PREDICATE_PARTS for p in _parts(called.rsplit(".", 1)[-1])) \
                    and name_side(called, python=True) == ROCM:
                return ROCM, False
            return None, False
        if _py_rocm_expr().search(text):
            return ROCM, True
        if _py_cuda_expr().search(text):
            return CUDA, True
        if t == "call" and text.endswith("()") and text[:-2] in paired:
            return CUDA, False
        if t == "identifier" and text in paired:
            # a name the file binds once to a test true on the CUDA build only (_test_names)
            return CUDA, False
        name = text[:-2] if text.endswith("()") else text
        if "(" in name or "[" in name:
            return None, False
        if _asks_for_nvidia_only(name):
            return CUDA, False
        return name_side(name, python=True), True
    return None, False


def cuda_only_functions(root, data: bytes) -> frozenset[str]:
    """The module-level functions of a Python module whose value no ROCm build finds true, for other modules that
    import them (porter.portaware.pymodules): the file's own CUDA predicates (`is_cuda()` beside `is_hip()`, a solo
    `is_nvidia_cuda()`), a function whose body is one `return` of a CUDA-only test, and one that first leaves with
    None or False unless the CUDA build runs (QuantumAttention's `cuda_capability_compare(op, major, minor)`: `if not
    is_nvidia_cuda(): return None`, then the capability compared): whatever it compares after that, ROCm gets None."""
    if root is None or not PY_PREDICATE_HINT.search(data):
        return frozenset()
    paired, _ = _predicate_bodies(root, _paired_cuda_predicates(data) | _solo_cuda_predicates(root, data))
    out = set(paired)
    for node in root.named_children:
        fn = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        if fn is None or fn.type != "function_definition":
            continue
        name, body = fn.child_by_field_name("name"), fn.child_by_field_name("body")
        if name is None or body is None:
            continue
        stmts = [c for c in body.named_children if c.type != "comment" and not (
            c.type == "expression_statement" and c.named_child_count == 1 and c.named_children[0].type == "string")]
        if not stmts:
            continue
        first = stmts[0]
        if len(stmts) == 1 and first.type == "return_statement" and first.named_children \
                and _py_side(first.named_children[0], data, paired)[0] == CUDA:
            out.add(name.text.decode("utf-8", "replace"))
            continue
        cond = first.child_by_field_name("condition") if first.type == "if_statement" else None
        then = first.child_by_field_name("consequence") if cond is not None else None
        if cond is None or then is None or len(stmts) < 2 \
                or any(c.type in ("elif_clause", "else_clause") for c in first.children):
            continue
        last = then.named_children[-1] if then.named_children else None
        if last is None or last.type != "return_statement" or (
                last.named_children and last.named_children[0].type not in ("none", "false")):
            continue
        side, pure = _py_side(cond, data, paired)
        if side == "!" + ROCM or side == ROCM and pure:
            out.add(name.text.decode("utf-8", "replace"))
    return frozenset(out)


def _test_names(root, data: bytes, paired: frozenset[str]) -> frozenset[str]:
    """Names the file binds once, to a test true on the CUDA build only (`use_tk = (config.enabled and
    checks.cuda_capability_compare("ge", 9, 0) and ...)`, the capability test returning None off NVIDIA's build):
    `if use_tk:` is that test. A name bound more than once anywhere in the file, or declared global, is left."""
    count: dict[bytes, int] = {}
    value: dict[bytes, object] = {}
    for node in descendants(root, ("assignment", "augmented_assignment", "global_statement", "parameters",
                                   "for_statement", "as_pattern", "named_expression"), lang="python"):
        left = node.child_by_field_name("left")
        if node.type in ("parameters", "as_pattern", "named_expression"):
            left = node  # a parameter, a `with ... as` or `except ... as` target, a walrus: bound there too
        if node.type in ("global_statement", "parameters", "as_pattern", "named_expression"):
            for n in descendants(node, ("identifier",), lang="python"):
                count[n.text] = count.get(n.text, 0) + 2
            continue
        if left is None or left.type != "identifier" or node.type == "for_statement":
            for n in descendants(left, ("identifier",), lang="python") if left is not None else ():
                count[n.text] = count.get(n.text, 0) + 2
            continue
        count[left.text] = count.get(left.text, 0) + (1 if node.type == "assignment" else 2)
        value[left.text] = node.child_by_field_name("right")
    out = set()
    for name, n in count.items():
        right = value.get(name)
        if n == 1 and right is not None and _py_side(right, data, paired)[0] == CUDA:
            out.add(name.decode("utf-8", "replace"))
    return frozenset(out)


def python_rocm_test(node, data: bytes) -> bool:
    """Whether the Python test `node` is true on the ROCm build only (`torch.version.hip`, `is_hip()`, `SYSTEM ==
    "rocm"`, `torch.version.hip and allow_rocm`), as this module reads a branch's side."""
    return _py_side(node, data)[0] == ROCM


# Words of a predicate that asks whether something is there (`is_nvrtc_available`, `HAS_FLASHINFER`,
# `nvshmem_supported()`, `use_cutlass`).
_AVAILABILITY_PARTS = _PREDICATE_PARTS | {"available", "availability", "supported", "installed", "have", "can"}
# NVIDIA toolkit components with no ROCm build under their name (HIP has hipRTC, hipcc and amd-smi instead).
_NVIDIA_TOOLS = frozenset({"nvrtc", "nvcc", "nvml"})


@functools.cache
def nvidia_only_components() -> frozenset[str]:
    """The import names of the libraries rules/kb/libraries.yaml says have no ROCm build under that name (kind
    port, none or early-access: flashinfer, nvshmem, cutlass, tensorrt, deep_gemm, pycuda, ...), and NVIDIA's toolkit
    tools. cuDNN is left out: PyTorch's ROCm build answers `torch.backends.cudnn.is_available()` with MIOpen."""
    from porter.libraries import load_libraries

    words = {m.split(".")[0].lower() for lib in load_libraries().values() if lib.kind in ("port", "none", "early-access")
             for m in lib.imports if m.split(".")[0] not in ("nvidia", "cupy", "cupyx", "cupy_backends", "numba",
                                                              # only optimum.quanto's CUDA extension is NVIDIA-only
                                                              "optimum")}
    return frozenset(words - {"cudnn"}) | _NVIDIA_TOOLS


def _asks_for_nvidia_only(name: str) -> bool:
    """`name` (a flag or parameterless predicate) asks whether an NVIDIA-only component is there:
    tilelang's `if is_nvrtc_available: import cuda.bindings.driver`, `if HAS_FLASHINFER:`. Where that component has
    no ROCm build the branch runs on the CUDA build only; its else runs on both (a CUDA machine without it), so
    only the true branch is confined."""
    last = name.rsplit(".", 1)[-1].lower()
    parts = _parts(last)
    if not any(p in _AVAILABILITY_PARTS for p in parts):
        return False
    return any(re.search(r"(?:^|_)" + re.escape(c) + r"(?:_|$)", last) for c in nvidia_only_components())


_PY_ROCM_NAMES = frozenset({"rocm", "hip", "amd"})
_PY_SELECTOR_NODES = ("comparison_operator", "assignment")
register_root_descendants("python", _PY_SELECTOR_NODES)


def _py_rocm_string(node, data: bytes) -> bool:
    return node is not None and node.type == "string" and _py_text(node, data).strip("\"'").lower() in _PY_ROCM_NAMES


# An enumeration member named for one vendor alone, in capitals (`DeviceType.ROCM`, `Backend.HIP`, `Platform.CUDA`):
# the last part of an attribute whose object is a class-like name (not `torch.version.hip`, a value).
_PY_MEMBER_SIDES = {"ROCM": ROCM, "HIP": ROCM, "AMD": ROCM, "CUDA": CUDA, "NVIDIA": CUDA}


def _py_member_side(node, data: bytes) -> str | None:
    if node is None or node.type != "attribute":
        return None
    parts = _py_text(node, data).split(".")
    if len(parts) < 2 or "(" in parts[-2] or not parts[-2][:1].isupper():
        return None
    return _PY_MEMBER_SIDES.get(parts[-1])


def _py_selectors(root, data: bytes) -> frozenset[str]:
    """The values (names or attributes, never a call or a device's `.type`) that the file compares with a ROCm name
    (`backend == "rocm"`) or assigns from one of its own functions that returns a ROCm name (`backend =
    _select_backend()` whose body has `return "rocm"`): a build selector, whose value on a ROCm build is that name,
    so its `== "cuda"` comparison is true on the CUDA build only (Python's `==` on str compares the characters,
    https://docs.python.org/3/reference/expressions.html#value-comparisons)."""
    out: set[str] = set()
    rocm_functions: set[str] = set()
    for node in root.named_children:
        fn = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        if fn is None or fn.type != "function_definition":
            continue
        name, body = fn.child_by_field_name("name"), fn.child_by_field_name("body")
        if name is not None and body is not None and any(
                r.named_children and _py_rocm_string(r.named_children[0], data)
                for r in walk_descendants(body, frozenset({"return_statement"}))):
            rocm_functions.add(name.text.decode("utf-8", "replace"))
    for node in descendants(root, _PY_SELECTOR_NODES, lang="python"):
        if node.type == "comparison_operator":
            kids = node.children
            if len(kids) == 3 and kids[1].type in ("==", "!=") and kids[0].type in ("identifier", "attribute") \
                    and (_py_rocm_string(kids[2], data) or _py_member_side(kids[2], data) == ROCM):
                whole = _py_text(kids[0], data)
                if whole.rsplit(".", 1)[-1] != "type":
                    out.add(whole)
            continue
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and right is not None and left.type in ("identifier", "attribute") and right.type == "call":
            fn = right.child_by_field_name("function")
            if fn is not None and _py_text(fn, data) in rocm_functions:
                out.add(_py_text(left, data))
    return frozenset(out)


def python_spans(data: bytes, path: str = "x.py", sf=None, external: frozenset[str] = frozenset(),
                 local: frozenset[str] = frozenset()) -> list[Span]:
    """Branches of Python `if`/`elif`/`else` and conditional expressions a vendor check confines to one build.
    Kept on a given parse (`sf.cache`) for its own bytes: refine's step 8n and the port-status stage read the same
    file's spans from one parse. `external`: how the file spells calls of the CUDA-only predicates other modules of
    the project define (`checks.cuda_capability_compare`; porter.portaware.pymodules); `local`: the file's public
    module-level names no other module of the project mentions, read as its private ones are. Both are the
    project's facts, not the file's, so a reading with them is not kept on the parse."""
    if external or local:
        return _python_spans(data, path, sf, external, local)
    if sf is not None and sf.data is data:
        cached = sf.cache.get("guards.python_spans")
        if cached is None:
            cached = sf.cache["guards.python_spans"] = tuple(_python_spans(data, path, sf))
        return list(cached)
    return _python_spans(data, path, sf)


def _python_spans(data: bytes, path: str = "x.py", sf=None, external: frozenset[str] = frozenset(),
                  local: frozenset[str] = frozenset()) -> list[Span]:
    sf = sf or parse(path, "python", data)
    paired, out = _predicate_bodies(sf.root, _paired_cuda_predicates(data) | _solo_cuda_predicates(sf.root, data))
    paired = paired | external
    if external:
        paired = paired | _test_names(sf.root, data, paired)
    out.extend(_function_twins(sf.root))
    selectors = _py_selectors(sf.root, data) if ROCM_WORD.search(data) else frozenset()
    for node in descendants(sf.root, _PY_BRANCHES, lang="python"):
        if node.type == "boolean_operator":
            # `A and B` evaluates B only when A is true: after a test true on one build only, B is that build's
            op = node.child_by_field_name("operator")
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if op is not None and op.type == "and" and left is not None and right is not None:
                side = _py_side(left, data, paired, selectors)[0]
                if side in (CUDA, ROCM):
                    out.append(_span(right, side, node.start_point[0] + 1))
            continue
        if node.type == "conditional_expression":
            kids = node.named_children
            if len(kids) != 3:
                continue
            side, pure = _py_side(kids[1], data, paired, selectors)
            line = node.start_point[0] + 1
            if side is None:
                continue
            if side.startswith("!"):
                out.append(_span(kids[2], _flip(side[1:]), line))
                continue
            out.append(_span(kids[0], side, line))
            if pure:
                out.append(_span(kids[2], _flip(side), line))
            continue
        cond = node.child_by_field_name("condition")
        side, pure = _py_side(cond, data, paired, selectors) if cond is not None else (None, False)
        rest = [c for c in node.children if c.type in ("elif_clause", "else_clause")]
        # an `elif` whose own test names a vendor confines its own branch (`if SYSTEM == "cuda": ... elif SYSTEM ==
        # "rocm": ...`, `if torch.version.cuda is not None: ... elif torch.version.hip is not None: ...`)
        for c in rest:
            c_cond = c.child_by_field_name("condition") if c.type == "elif_clause" else None
            c_side = _py_side(c_cond, data, paired, selectors)[0] if c_cond is not None else None
            body = c.child_by_field_name("consequence") if c_cond is not None else None
            if c_side in (CUDA, ROCM) and body is not None:
                out.append(_span(body, c_side, c.start_point[0] + 1))
        if side is None:
            continue
        line = node.start_point[0] + 1
        then = node.child_by_field_name("consequence")
        if side.startswith("!"):
            for c in rest:
                out.append(_span(c, _flip(side[1:]), line))
            # `if not is_cuda(): return False` with no else: only the CUDA build gets past it
            if (not rest and then is not None and _returns(then)
                    and (after := _rest_of_block(node)) is not None):
                out.append(Span(after[0], after[1], _flip(side[1:]), line))
            continue
        if then is not None:
            out.append(_span(then, side, line))
        if pure:
            for c in rest:
                out.append(_span(c, _flip(side), line))
            # `if torch.version.hip: return ...` with no else: the rest of the block is the other build's.
            if not any(c.type == "else_clause" for c in rest) and all(_returns(b) for b in [then, *rest] if b is not None):
                after = _rest_of_block(node)
                if after is not None:
                    out.append(Span(after[0], after[1], _flip(side), line))
    if ROCM_WORD.search(data):
        out.extend(_vendor_keyed_entries(sf.root, data))
        out.extend(_twin_setting_calls(sf.root, data))
    if any(sp.side == ROCM for sp in out):
        out.extend(_cuda_only_helpers(sf.root, out, ROCM))
    if any(sp.side == CUDA for sp in out):
        out.extend(_cuda_only_helpers(sf.root, out, local=local))
        out.extend(_cuda_only_variables(sf.root, out, script=path.rsplit("/", 1)[-1] == "setup.py", local=local))
        if local:
            # a module-level value only CUDA-side code reads can hand a function on (`choice =
            # ExternKernelChoice(kernel_fn)` read only under `if use_tk:`): its helpers once more
            out.extend(_cuda_only_helpers(sf.root, out, local=local))
    if ROCM_WORD.search(data) and b"#" in data:
        out.extend(_embedded_arms(sf.root))
    return out


# A dict key or keyword naming one vendor's build: "rocm", "hip", "amd" (with a version: "rocm6.2") or "cuda",
# "cu121", "nvidia"; the key's first word decides (`"cuda-12"`, `rocm_extra`).
_py_vendor_key = lazy_regex(r"(?i)^(?:(rocm[\d.]*|hip|amd)|(cuda[\d.]*|cu\d{2,3}|nvidia))(?:[-_. ]|$)")


def _vendor_keyed_entries(root, data: bytes) -> list[Span]:
    """The entries of a dict (`{...}` or `dict(...)`) keyed by vendor that has both a CUDA and a ROCm key:
    `extras_require={"cuda": ["flashinfer"], "rocm": ["aiter"]}`, a backend table `{"cuda": cuda_impl, "hip":
    hip_impl}`. A lookup by vendor reads one entry per build, so each entry is its vendor's side of the table and the
    ROCm entry is the port of the CUDA one (the span's line is the ROCm key's). A table with CUDA keys only is
    left as it is: nothing there serves the ROCm build."""
    out: list[Span] = []
    # the name such a dict literal is bound to -> (its scope, the ROCm key's line, where the literal ends)
    tables: dict[bytes, tuple] = {}
    for node in descendants(root, ("dictionary", "argument_list"), lang="python"):
        if node.type == "argument_list":
            call = node.parent
            fn = call.child_by_field_name("function") if call is not None and call.type == "call" else None
            if fn is None or fn.text != b"dict":
                continue
            entries = [(kw.child_by_field_name("name"), kw) for kw in node.named_children
                       if kw.type == "keyword_argument"]
        else:
            entries = []
            for pair in node.named_children:
                key = pair.child_by_field_name("key") if pair.type == "pair" else None
                content = key.named_children[1] if key is not None and key.type == "string" \
                    and len(key.named_children) == 3 and key.named_children[1].type == "string_content" else None
                entries.append((content, pair))
        sides = []
        for key, entry in entries:
            m = _py_vendor_key().match(key.text.decode("utf-8", "replace")) if key is not None else None
            sides.append((ROCM if m.group(1) else CUDA, entry) if m is not None else (None, entry))
        rocm_line = next((e.start_point[0] + 1 for side, e in sides if side == ROCM), None)
        if rocm_line is None or not any(side == CUDA for side, _ in sides):
            continue
        out.extend(_span(e, side, rocm_line) for side, e in sides if side is not None)
        bound = node.parent if node.type == "dictionary" else None
        name = bound.child_by_field_name("left") if bound is not None and bound.type == "assignment" else None
        if name is not None and name.type == "identifier":
            tables[name.text] = (_scope_of(bound), rocm_line, bound.end_point)
    # an entry the same scope adds to such a table afterwards (SimpleTuner's `extras_require["cuda-nightly"] =
    # get_cuda_nightly_dependencies()` under `if not _is_building_dist:`): that vendor's side of the table too
    for node in descendants(root, ("assignment",), lang="python") if tables else ():
        left = node.child_by_field_name("left")
        table = left.child_by_field_name("value") if left is not None and left.type == "subscript" else None
        key = left.child_by_field_name("subscript") if table is not None else None
        if table is None or table.text not in tables or key is None or key.type != "string" \
                or tables[table.text][0] != _scope_of(node) or node.start_point < tables[table.text][2]:
            continue
        m = _py_vendor_key().match(key.text.decode("utf-8", "replace").strip("\"'"))
        if m is not None:
            out.append(_span(node, ROCM if m.group(1) else CUDA, tables[table.text][1]))
    return out


def _scope_of(node):
    """The function, class or module whose names `node`'s statement binds."""
    scope = node.parent
    while scope is not None and scope.type not in ("function_definition", "class_definition", "module"):
        scope = scope.parent
    return scope


# A setting's name whose words name CUDA, and the ROCm words a twin setting puts in its place or beside one of its
# words (DaCe's `compiler.cuda.args` beside `compiler.cuda.hip_args`, `compiler.cuda.cuda_arch` beside
# `compiler.cuda.hip_arch`).
_py_setting_cuda_word = lazy_regex(r"(?i)(?<![a-z])(?:cuda|nvcc|nvidia)(?![a-z])")
_py_setting_rocm_word = lazy_regex(r"(?i)(?<![a-z])(?:hip|rocm|hipcc|amd)(?![a-z])")
# A setting's name: words joined by dots, colons or slashes (no hyphen: `nvidia-smi` is a command, not a setting).
_py_setting_key = lazy_regex(r"^[A-Za-z_]\w*(?:[.:/][A-Za-z_]\w*)*$")


def _setting_twins(cuda_key: str, rocm_key: str) -> bool:
    """Whether `rocm_key` is `cuda_key` with a CUDA word put into ROCm's (`cuda_arch` / `hip_arch`) or with a ROCm
    word set before or after one of its words (`args` / `hip_args`)."""
    if cuda_key == rocm_key or not _py_setting_cuda_word().search(cuda_key) or _py_setting_rocm_word().search(cuda_key) \
            or not _py_setting_rocm_word().search(rocm_key):
        return False
    def vendorless(key: str) -> str:
        return _py_setting_rocm_word().sub("<vendor>", _py_setting_cuda_word().sub("<vendor>", key))

    if vendorless(cuda_key) == vendorless(rocm_key):
        return True
    for m in _py_setting_rocm_word().finditer(rocm_key):
        a, b = m.span()
        if b < len(rocm_key) and rocm_key[b] in "_-" and rocm_key[:a] + rocm_key[b + 1:] == cuda_key:
            return True
        if a > 0 and rocm_key[a - 1] in "_-" and rocm_key[:a - 1] + rocm_key[b:] == cuda_key:
            return True
    return False


def _twin_setting_calls(root, data: bytes) -> list[Span]:
    """Calls, each a statement of its own, of one function whose first argument is a setting's name, one named for CUDA
    and one for its ROCm twin
    (gt4py's `dace.Config.set("compiler.cuda.args", ...)` beside `dace.Config.set("compiler.cuda.hip_args", ...)`):
    the tool reads one of them per build, so the CUDA call is the CUDA build's side (the span's line is the first
    ROCm twin's call). A CUDA setting without its ROCm twin in the file is left as it is."""
    calls: dict[bytes, list[tuple[str, Any]]] = {}
    for node in descendants(root, ("call",), lang="python"):
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        if fn is None or first is None or first.type != "string" or len(first.named_children) != 3 \
                or first.named_children[1].type != "string_content":
            continue
        if node.parent is None or node.parent.type != "expression_statement":
            continue  # a setter is a statement of its own; a call whose value is used (a probe) runs on every build
        key = first.named_children[1].text.decode("utf-8", "replace")
        if _py_setting_key().match(key):
            calls.setdefault(fn.text, []).append((key, node))
    out: list[Span] = []
    for group in calls.values():
        for key, node in group:
            twin = next((n for k, n in group if _setting_twins(key, k)), None)
            if twin is not None:
                out.append(_span(node, CUDA, twin.start_point[0] + 1))
    return out


# A CUDA-named function called (or defined) in a Python file, and the vendor words its ROCm twin may put in place
_py_cuda_call = lazy_regex(rb"(?<![\w.])(\w*(?:cuda|CUDA|nvidia|NVIDIA)\w*)\s*\(")
_py_cuda_word = lazy_regex(r"cuda|CUDA|nvidia|NVIDIA")
# The ROCm words a twin puts in the CUDA or NVIDIA word's place, in the word's own case (predicates and functions).
_PY_TWIN_WORDS = {"cuda": ("hip", "rocm", "amd"), "CUDA": ("HIP", "ROCM", "AMD"), "Cuda": ("Hip", "Rocm", "Amd"),
                  "nvidia": ("amd", "hip", "rocm"), "NVIDIA": ("AMD", "HIP", "ROCM"), "Nvidia": ("Amd", "Hip", "Rocm")}


def _paired_cuda_predicates(data: bytes) -> frozenset[str]:
    """Names of the file's CUDA predicates that have a ROCm twin in the same file: a bare function named for a
    predicate on CUDA (`is_cuda`, `_is_cuda_platform`; name_side's predicate words) whose name with HIP, ROCm or AMD
    in place of the CUDA word is called, defined (`def is_hip(`) or imported there too (Triton-distributed's `is_cuda()` beside
    `is_hip()`, its setup.py's `_is_cuda_platform()` beside `_is_hip_platform()`). A lone `is_cuda()` may be a
    device test (`torch.cuda.is_available()` is true on ROCm), but a project that also asks `is_hip()` keeps the two
    apart, so `is_cuda()` is true on the CUDA build only. Not pure: its false branch may also be another vendor's
    (MACA, Ascend) or the CPU. Attribute calls (`x.is_cuda()`, `tensor.is_cuda`) are never counted."""
    if b"cuda" not in data.lower() and b"nvidia" not in data.lower():
        return frozenset()
    out = set()
    for m in _py_cuda_call().finditer(data):
        name = m.group(1).decode("ascii", "replace")
        if name in out or not any(p in _PREDICATE_PARTS for p in _parts(name)):
            continue
        word = _py_cuda_word().search(name)
        if word is None:
            continue
        for twin_word in _PY_TWIN_WORDS[word.group(0)]:
            twin = (name[:word.start()] + twin_word + name[word.end():]).encode()
            if re.search(rb"(?m)(?<![\w.])" + re.escape(twin) + rb"\s*\(|^[ \t]*(?:from[ \t]+\S+[ \t]+)?import\b[^\n]*\b"
                         + re.escape(twin) + rb"\b", data):
                out.add(name)
                break
    return frozenset(out)


def _solo_cuda_predicates(root, data: bytes) -> frozenset[str]:
    """Names of the module-level predicates without parameters named for CUDA or NVIDIA (`is_cuda`,
    `_is_nvidia_platform`) whose body is one `return` of a test true on the CUDA build only
    (`triton.runtime.driver.active.get_current_target().backend == "cuda"`, `torch.version.cuda is not None`), as
    Triton's tutorials define `is_cuda()`: such a predicate is a CUDA test without an `is_hip()` twin beside it. A
    body that only asks for a GPU (`torch.cuda.is_available()`, true on ROCm too) is no such test."""
    if root is None or not _py_cuda_word().search(data.decode("utf-8", "replace")):
        return frozenset()
    out = set()
    for node in root.named_children:
        fn = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        if fn is None or fn.type != "function_definition":
            continue
        name, params, body = (fn.child_by_field_name(k) for k in ("name", "parameters", "body"))
        text = name.text.decode("utf-8", "replace") if name is not None else ""
        if body is None or params is None or params.named_child_count or not _py_cuda_word().search(text) \
                or not any(p in _PREDICATE_PARTS for p in _parts(text)):
            continue
        stmts = [c for c in body.named_children if c.type not in ("comment", "expression_statement")
                 or c.named_child_count != 1 or c.named_children[0].type != "string"]
        if len(stmts) != 1 or stmts[0].type != "return_statement" or not stmts[0].named_children:
            continue
        if _py_side(stmts[0].named_children[0], data)[0] == CUDA:
            out.add(text)
    return frozenset(out)


# What a predicate's own body tests when it tells the vendors apart: the toolkit's version, a vendor's tool or
# backend name. `torch.cuda.is_available()`, a tensor's `.is_cuda` or `device.type == "cuda"` alone are true on ROCm.
_py_vendor_body = lazy_regex(rb"(?i)version\.(?:cuda|hip)|nvidia|nvcc|nvml|rocm|hip|amd|backend|platform")


def _predicate_bodies(root, paired: frozenset[str]) -> tuple[frozenset[str], list[Span]]:
    """The paired predicates kept, and the body of each module-level `def` of one (`def is_cuda(): return
    shutil.which("nvidia-smi") ...`): the vendor test itself, as a preprocessor vendor guard's own line is, not work a
    port has to do; the line given is the definition's. A predicate defined here whose body names no vendor
    (`def is_cuda(): return torch.cuda.is_available()`, true on ROCm as well) is dropped from the pairs."""
    out: list[Span] = []
    if not paired:
        return paired, out
    dropped = set()
    for node in root.named_children:
        fn = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        if fn is None or fn.type != "function_definition":
            continue
        name = fn.child_by_field_name("name")
        body = fn.child_by_field_name("body")
        text = name.text.decode("utf-8", "replace") if name is not None else ""
        if body is None or text not in paired:
            continue
        if not _py_vendor_body().search(body.text):
            dropped.add(text)
            continue
        out.append(_span(body, CUDA, fn.start_point[0] + 1))
    return paired - dropped, out


# A vendor word in a function's name, at a word start (`_compile_with_cache_cuda`, `get_default_config_nvidia`,
# `_find_cuda_home`): not inside another word (`barracuda`)
_py_def_vendor = lazy_regex(r"(?:^|(?<=_))(cuda|CUDA|Cuda|nvidia|NVIDIA|Nvidia)(?=_|$)")


def _function_twins(root) -> list[Span]:
    """Each function named for CUDA or NVIDIA whose ROCm-named twin is defined in the same scope (module or class):
    gemlite's `get_max_autotune_config_nvidia` beside `get_max_autotune_config_amd`, tilelang's `_find_cuda_home`
    beside `_find_rocm_home`, CuPy's `_compile_with_cache_cuda` beside `_compile_with_cache_hip`. The project keeps
    one function per vendor, as ginkgo keeps one class (porter.portaware.twins): the CUDA one is the CUDA side of the
    pair, handled by its twin (the span's line is the twin's `def`). Predicates (`is_cuda` / `is_hip`) are left to
    _paired_cuda_predicates, which also asks whether the CUDA one really tests the vendor."""
    out: list[Span] = []
    scopes = [root]
    scopes += [body for node in root.named_children
               for cls in [node.child_by_field_name("definition") if node.type == "decorated_definition" else node]
               if cls is not None and cls.type == "class_definition"
               for body in [cls.child_by_field_name("body")] if body is not None]
    for scope in scopes:
        defs: dict[str, object] = {}
        for node in scope.named_children:
            fn = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
            if fn is None or fn.type != "function_definition":
                continue
            name = fn.child_by_field_name("name")
            if name is not None:
                defs.setdefault(name.text.decode("utf-8", "replace"), node)
        for name, node in defs.items():
            m = _py_def_vendor().search(name)
            if m is None or any(p in _PREDICATE_PARTS for p in _parts(name)):
                continue
            for word in _PY_TWIN_WORDS[m.group(1)]:
                twin = defs.get(name[:m.start(1)] + word + name[m.end(1):])
                if twin is not None:
                    out.append(Span(_pos(node.start_point), _pos(node.end_point), CUDA, twin.start_point[0] + 1))
                    break
    return out


# The one pre-test for an AMD vendor word anywhere in a text (bytes or str, RE2): text without one cannot hold a
# ROCm side of its own, so the readers of vendor arms skip it. A string holding CUDA source with its own vendor arms
# (CuPy's `#ifdef __HIP_DEVICE_COMPILE__` inside a RawKernel string) is read by the preprocessor (the one directive
# reader) as in a .cu file, each vendor arm a span of the Python file; port status pre-tests headers' mapped
# definitions and build files' switches with it. It only pre-tests; the readers decide what is an arm.
ROCM_WORD = compile_regex(r"(?i)hip|rocm|amd")


def _embedded_arms(root) -> list[Span]:
    """Spans of the vendor arms inside string literals that hold preprocessor directives."""
    from porter.source import preprocessor

    out: list[Span] = []
    for node in descendants(root, ("string",), lang="python"):
        text = node.text
        if not preprocessor.may_hold_directives(text) or not ROCM_WORD.search(text):
            continue
        first = node.start_point[0]  # the string's first line, 0-based: its line n is the file's first + n
        pre = preprocessor.preprocess(text)
        for r in preprocessor.evaluate(list(pre.directives), pre.total):
            if r.side in (CUDA, ROCM) and r.guard:
                out.append(Span((first + r.start, 1), (first + r.end + 1, 1), r.side, first + r.guard))
    return out


def _cuda_only_helpers(root, spans: list[Span], side: str = CUDA, local: frozenset[str] = frozenset()) -> list[Span]:
    """A module's private function (`def _compile_with_cache_cuda`) whose every use in the file is CUDA-side code
    (the `else` of `if runtime.is_hip:`, or another such helper) runs on the CUDA build only: its whole definition is
    a CUDA-side span, with the vendor check that confines its first use as the line. Private names only (a leading
    underscore: the module's own, by Python's convention), since another module may call a public one - unless its
    name has a CUDA or NVIDIA word. With `side` ROCM the same for the ROCm build: a private function, or one with a
    HIP, ROCm or AMD word, used only in ROCm-side code (flashfast's `build_for_rocm()`, called only under `if
    IS_HIP_EXTENSION:`) is the port's own code, not CUDA code left to port."""
    defs: dict[str, object] = {}
    for node in root.named_children:
        fn = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        if fn is None or fn.type != "function_definition":
            continue
        name = fn.child_by_field_name("name")
        text = name.text.decode("utf-8", "replace") if name is not None else ""
        # a public one too when its name says it is NVIDIA's (`nvidia_stages_inspection_hook`, called only under
        # `if is_cuda():`): another module calling it would be CUDA-side code as well
        # (`softplus_nv`, bound only in the `if IS_NVIDIA:` arm whose else binds `softplus_triton`: an `nv` word as a
        # whole part of the name says NVIDIA as name_side reads it)
        if side == ROCM:
            if text.startswith("_") and not text.startswith("__") or not _AMD_PARTS.isdisjoint(_parts(text)):
                defs[text] = (node, name)
        elif text.startswith("_") and not text.startswith("__") or _py_cuda_word().search(text) or \
                "nv" in text.lower().split("_") or text in local:
            defs[text] = (node, name)
    if not defs:
        return []
    uses: dict[str, list[Pos]] = {n: [] for n in defs}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            text = node.text.decode("utf-8", "replace")
            if text in uses and node != defs[text][1]:
                uses[text].append(_pos(node.start_point))
            continue
        stack.extend(node.children)
    cuda = [sp for sp in spans if sp.side == side]
    found: dict[str, Span] = {}
    changed = True
    while changed:
        changed = False
        for name, (node, _n) in defs.items():
            if name in found:
                continue
            own = (_pos(node.start_point), _pos(node.end_point))
            outside = [u for u in uses[name] if not own[0] <= u < own[1]]
            if not outside:
                continue
            holders = [next((sp for sp in [*cuda, *found.values()] if sp.holds(u)), None) for u in outside]
            if all(h is not None for h in holders):
                found[name] = Span(own[0], own[1], side, holders[0].line)
                changed = True
    return list(found.values())


# Where a scope's own names are bound without being read: nested definitions bind theirs in their own scope, and
# these fields name a keyword, an attribute or a parameter, never the variable.
_PY_SCOPES = ("function_definition", "class_definition", "lambda")
_PY_NOT_READ = {("keyword_argument", "name"), ("attribute", "attribute"), ("default_parameter", "name"),
                ("typed_default_parameter", "name"), ("parameters", None), ("lambda_parameters", None)}


def _scope_statements(block, handing: frozenset[str] = frozenset()):
    """The assignment statements `name = value` of one scope (a module or a function body), in nested blocks too
    (`if`, `for`, `with`, `try`) but not in nested functions or classes, which bind their own names. For a name in
    `handing` also one whose value is a call that hands a function on (_hands_on)."""
    stack = list(reversed(block.named_children))
    while stack:
        node = stack.pop()
        if node.type in _PY_SCOPES or node.type == "decorated_definition":
            continue
        if node.type == "expression_statement" and node.named_child_count == 1:
            inner = node.named_children[0]
            left = inner.child_by_field_name("left") if inner.type == "assignment" else None
            right = inner.child_by_field_name("right") if left is not None else None
            if left is not None and left.type == "identifier" and right is not None and (
                    _effect_free(right) or left.text.decode("utf-8", "replace") in handing and _hands_on(right)):
                yield left.text.decode("utf-8", "replace"), node, left
            continue
        stack.extend(reversed(node.named_children))


def _hands_on(value) -> bool:
    """Whether `value` is one call whose arguments are effect-free and name something (`ExternKernelChoice(kernel_fn,
    name="...")`, `functools.partial(fn, 2)`): it wraps what it is handed, which runs when the wrapper's reader calls
    it. Read only for a module's name no other module mentions (pymodules): there the wrapper's readers are all in
    the file."""
    args = value.child_by_field_name("arguments") if value.type == "call" else None
    fn = value.child_by_field_name("function") if args is not None else None
    if fn is None or not _effect_free(fn) or not _effect_free(args):
        return False
    return any(a.type == "identifier" for a in args.named_children)


def _effect_free(value) -> bool:
    """Whether evaluating `value` does nothing but make a value: literals, names, f-strings, operators, subscripts,
    comprehensions, with no call or `await` anywhere in it. Only then is an assignment's work its reads' alone: a call
    (`lib = ctypes.CDLL("libcudart.so")`, `cap = torch.cuda.get_device_capability()`) runs on every build."""
    stack = [value]
    while stack:
        node = stack.pop()
        if node.type in ("call", "await", "yield", "named_expression"):
            return False
        stack.extend(node.named_children)
    return True


def _reads(block, names: set[bytes], bound: set[int]) -> dict[bytes, list[Pos]]:
    """Positions of the identifiers of `names` in `block` (nested functions included: a closure reads its enclosing
    scope's names) other than the assignment targets in `bound` and keyword, attribute and parameter names."""
    out: dict[bytes, list[Pos]] = {}
    stack = [block]
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            if node.text in names and node.id not in bound:
                parent = node.parent
                field = next((parent.field_name_for_child(i) for i, child in enumerate(parent.children)
                              if child.id == node.id), None)
                if (parent.type, field) not in _PY_NOT_READ and (parent.type, None) not in _PY_NOT_READ:
                    out.setdefault(node.text, []).append(_pos(node.start_point))
            continue
        if node.type == "string":
            # an f-string reads the names in its `{...}` parts (gt4py's f"{cuda_dbginfo} -O3 ..."); the rest is text
            stack.extend(c for c in node.children if c.type == "interpolation")
        elif node.type != "comment":
            stack.extend(node.children)
    return out


def _cuda_only_variables(root, spans: list[Span], script: bool = False,
                         local: frozenset[str] = frozenset()) -> list[Span]:
    """A variable whose every read is CUDA-side code is CUDA-side where it is assigned: fused-ssim's
    `fallback_archs = ["-gencode=arch=compute_75,code=sm_75", ...]`, defined before `if torch.version.hip:` and
    extended into the nvcc flags only in its `else`. Python binds a name in the scope that assigns it (the Python
    language reference, 4.2.2 Resolution of names), so every read of a function's local is in that function's body,
    and the value reaches the build only through those reads: a ROCm build never uses it. The same holds for a
    module's private names (a leading underscore) and, in `setup.py`, which setuptools runs as a script and nothing
    imports, for every module-level name; another module may import a public one. A name read nowhere, declared
    `global`/`nonlocal`, or with any read outside the CUDA spans is left as it is; `x += [...]` and `x.append(...)`
    read `x`. Only an assignment whose value is effect-free (_effect_free: no call) is one: a call runs on every
    build whoever reads its result. The span's line is the check that confines its first read."""
    cuda = [sp for sp in spans if sp.side == CUDA]
    if not cuda:
        return []
    scopes = [(root, True)]
    stack = list(root.named_children)
    while stack:
        node = stack.pop()
        if node.type == "function_definition":
            body = node.child_by_field_name("body")
            if body is not None:
                scopes.append((body, False))
        stack.extend(node.named_children)
    out: list[Span] = []
    for block, module in scopes:
        assigned: dict[str, list] = {}
        for name, statement, target in _scope_statements(block, local if module else frozenset()):
            assigned.setdefault(name, []).append((statement, target))
        if not assigned:
            continue
        declared = {n.text.decode("utf-8", "replace") for stmt in descendants(
            block, ("global_statement", "nonlocal_statement"), lang="python") for n in stmt.named_children}
        wanted = {name for name in assigned if name not in declared and (
            not module or script or name.startswith("_") and not name.startswith("__") or name in local)}
        if not wanted:
            continue
        bound = {target.id for name in wanted for _, target in assigned[name]}
        reads = _reads(block, {name.encode() for name in wanted}, bound)
        for name in sorted(wanted):
            where = reads.get(name.encode(), [])
            holders = [next((sp for sp in cuda if sp.holds(r)), None) for r in where]
            if not where or any(h is None for h in holders):
                continue
            for statement, _ in assigned[name]:
                start = _pos(statement.start_point)
                if not any(sp.holds(start) for sp in cuda):
                    out.append(Span(start, _pos(statement.end_point), CUDA, holders[0].line))
    return out


def _returns(block) -> bool:
    """Whether a Python block (or elif clause) always leaves by return/raise at its end."""
    if block.type == "elif_clause":
        block = block.child_by_field_name("consequence")
    if block is None or not block.named_children:
        return False
    last = block.named_children[-1]
    return last.type in ("return_statement", "raise_statement")


def _rest_of_block(node) -> tuple[Pos, Pos] | None:
    """From the end of `node` to the end of the block (or module) holding it."""
    parent = node.parent
    if parent is None or parent.type not in ("block", "module"):
        return None
    if node.next_named_sibling is None:
        return None
    return _pos(node.next_named_sibling.start_point), _pos(parent.end_point)


# A quick test for whether a C/C++ file can hold a runtime vendor check at all (parsing costs more than this).
# Whole-file prefilters, so run on the linear-time engine: Python's `re` took 6.6 CPU-s over FasterTransformer's
# 215 MB (its case-insensitive alternation is tried at every byte), RE2 0.24 s. The first alternative is "a call
# whose name contains a vendor word" (the word may sit anywhere in the name, so no leading `\b\w*` is needed).
CPP_PREDICATE_HINT = compile_regex(r"(?i)(?:amd|hip|rocm|cdna|rdna|nvidia)\w*\s*\(|\bif\s*(?:constexpr\s*)?\(\s*!?\s*\w*(?:amd|hip|rocm)\w*\s*\)"
                                   r"|[=!]=\s*(?:(?:\w+::)*k?(?:hip|rocm|amd)\b|\"[^\"\n]*(?:hip|rocm|amd))"
                                   r"|str\w*cmp\s*\([^;]*\"[^\"\n]*(?:hip|rocm|amd)")
# The same for a run-time backend choice (a comparison with a ROCm constant): only then are comparisons collected.
_CPP_CHOICE_HINT = lazy_regex(rb"[=!]=\s*(?:(?:\w+::)*k?(?:HIP|Hip|ROCM|ROCm|Rocm|AMD|Amd)\b|\"[^\"\n]*(?i:hip|rocm|amd))"
                              rb"|str\w*cmp\s*\([^;]*\"[^\"\n]*(?i:hip|rocm|amd)")
PY_PREDICATE_HINT = compile_regex(r"(?i)hip|rocm|amd|version\.cuda|is_cuda\(\)|nvidia|[=!]=\s*[\"']cuda[\"']"
                                  # nvidia_only_components (a test asserts each is matched)
                                  r"|nvrtc|nvcc|nvml|nvshmem|flashinfer|cutlass|deep_gemm|tensorrt|pycuda|cudf|cufile"
                                  r"|cupti|modelopt|pyamgx|numba_cuda|pynvvideocodec")

