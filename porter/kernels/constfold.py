"""Fold constant C/C++ expressions from a tree-sitter tree: #define, constexpr, const int and enum values.

A `Constants` table is built once per file from its `#define`s, namespace- and function-scope `const`/`constexpr`
integer declarations and enumerators; `fold(node)` then evaluates literals, names from the table, arithmetic,
shifts, comparisons, `?:`, casts and `sizeof` of known types. Anything it cannot evaluate comes back as
`Unknown` carrying the reason, so a caller can say *why* a value stayed unknown instead of guessing.
"""
from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import tree_sitter as ts

from porter.kernels.nodes import pre_order
from porter.source.parse_input import line_matches
from porter.source.parse_queries import captures, descendants, descendants_query, language, register_root_descendants

# sizeof of the element types a shared-memory array commonly uses (CUDA's vector types included).
_SCALARS = {
    "char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "int8_t": 1, "uint8_t": 1, "std::int8_t": 1, "std::uint8_t": 1,
    "short": 2, "unsigned short": 2, "short int": 2, "int16_t": 2, "uint16_t": 2,
    "int": 4, "unsigned": 4, "unsigned int": 4, "signed": 4, "signed int": 4, "int32_t": 4, "uint32_t": 4,
    "std::int32_t": 4, "std::uint32_t": 4, "uint": 4,
    "long": 8, "unsigned long": 8, "long long": 8, "unsigned long long": 8, "long int": 8, "long long int": 8,
    "int64_t": 8, "uint64_t": 8, "std::int64_t": 8, "std::uint64_t": 8, "size_t": 8, "std::size_t": 8, "ptrdiff_t": 8,
    "float": 4, "double": 8,
    "half": 2, "__half": 2, "half2": 4, "__half2": 4,
    "__nv_bfloat16": 2, "nv_bfloat16": 2, "__nv_bfloat162": 4, "nv_bfloat162": 4, "bfloat16": 2,
    "__nv_fp8_e4m3": 1, "__nv_fp8_e5m2": 1, "__nv_fp8x2_e4m3": 2, "__nv_fp8x4_e4m3": 4,
    "__nv_fp4x2_e2m1": 1, "__nv_fp4x4_e2m1": 2,
}
_VECTOR_BASES = {"char": 1, "uchar": 1, "short": 2, "ushort": 2, "int": 4, "uint": 4, "float": 4, "long": 8,
                 "ulong": 8, "longlong": 8, "ulonglong": 8, "double": 8}
for _base, _size in _VECTOR_BASES.items():
    for _n in (1, 2, 3, 4):
        _SCALARS[f"{_base}{_n}"] = _size * _n

_INT_TYPES = re.compile(r"^(?:(?:static|const|constexpr|inline|unsigned|signed|long|short|int|char|size_t|std::size_t|"
                        r"u?int(?:8|16|32|64)_t|std::u?int(?:8|16|32|64)_t|auto|__device__|__host__|__constant__|"
                        r"uint|bool)\s*)+$")
_NUMBER = re.compile(r"^(0[xX][0-9a-fA-F']+|0[bB][01']+|[0-9][0-9']*(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)([uUlLfF]*)$")


def type_size(name: str) -> int | None:
    """sizeof a builtin or CUDA vector type spelled as in source (`float4`, `unsigned int`, `__half`), else None."""
    text = " ".join(name.replace("const ", " ").replace("volatile ", " ").split())
    if text.endswith("*"):
        return 8
    return _SCALARS.get(text)


@dataclass(frozen=True)
class Unknown:
    """A value that could not be folded, and why (e.g. "`N` is a template parameter")."""

    reason: str

    def __bool__(self) -> bool:  # an Unknown is never mistaken for a usable value
        return False


def known(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) or isinstance(value, bool)


@dataclass
class Constants:
    """Named compile-time values of one file (plus any given from elsewhere, e.g. deep mode's headers)."""

    sources: dict[str, Any] = field(default_factory=dict)  # name -> Node | str (macro/text) | int
    template_params: frozenset[str] = frozenset()
    _values: dict[str, Any] = field(default_factory=dict)
    _active: set[str] = field(default_factory=set)

    def with_template_params(self, names) -> "Constants":
        c = Constants(self.sources, frozenset(names), {}, set())
        c._values = {k: v for k, v in self._values.items()}
        return c

    def lookup(self, name: str) -> Any:
        if name in self.template_params:
            return Unknown(f"`{name}` is a template parameter")
        if name in self._values:
            return self._values[name]
        src = self.sources.get(name)
        if src is None:
            return Unknown(f"`{name}` is not a constant defined in this file")
        if name in self._active:
            return Unknown(f"`{name}` is defined in terms of itself")
        self._active.add(name)
        try:
            if isinstance(src, (int, float)):
                value = src
            elif isinstance(src, str):
                value = fold_text(src, self)
            else:
                value = fold(src, self)
        finally:
            self._active.discard(name)
        self._values[name] = value
        return value


_HARVEST = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+\(?[ \t]*(0[xX][0-9a-fA-F]+|\d+)[uUlL]*[ \t]*\)?[ \t]*(?://[^\n]*)?$"
    rb"|^[ \t]*(?:static[ \t]+|inline[ \t]+)*(?:constexpr|const)[ \t]+(?:static[ \t]+)?(?:unsigned[ \t]+|signed[ \t]+)?"
    rb"(?:int|long|short|size_t|std::size_t|u?int(?:8|16|32|64)_t|auto|uint)[ \t]+([A-Za-z_]\w*)[ \t]*=[ \t]*"
    rb"\(?(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\)?[ \t]*;", re.M)


_CONSTANT_NAME = re.compile(r"^(?:[A-Z][A-Z0-9_]*|k[A-Z]\w*)$")


def harvest_constants(data: bytes) -> dict[str, int]:
    """Integer constants a file defines with a literal (`#define TILE 64`, `constexpr int kWarps = 4;`), for
    other files' kernels: a shared-memory extent is often a constant from an included header."""
    values = harvest_constant_values(data)
    return {k: v[0] for k, v in values.items() if len(v) == 1}


def harvest_constant_values(data: bytes) -> dict[str, tuple[int, ...]]:
    """Every value each integer constant of the file is defined with, ascending: one for most, one per `#if` arm
    for a constant the build chooses (`kWarpSize` 64 under `#ifdef USE_ROCM`, else 32)."""
    if b"define" not in data and b"const" not in data:
        return {}
    out: dict[str, set[int]] = {}
    for m in line_matches(_HARVEST, data, (b"define", b"const")):
        name = (m.group(1) or m.group(3)).decode()
        if not _CONSTANT_NAME.match(name):
            continue  # `const int threads = 32;` in some function is that function's local, not a shared constant
        text = (m.group(2) or m.group(4)).decode()
        if text[:2] in ("0x", "0X"):
            value = int(text, 16)
        elif len(text) > 1 and text[0] == "0":
            if not set(text) <= set("01234567"):
                continue  # `09` is no C integer
            value = int(text, 8)
        else:
            value = int(text)
        out.setdefault(name, set()).add(value)
    if out and b"warpSize" in data:
        # `#define WS warpSize` in one arm (ROCm's) and `#define WS 32` in another: on HIP the name is warpSize, a
        # run-time value (not constexpr since ROCm 7.0), so it is no integer constant of any build porter judges;
        # nor is a name the ROCm arm defines from it (`#define NWARPS (1024 / warpSize)`).
        for m in line_matches(_WARPSIZE_DEFINE, data, (b"warpSize",)):
            out.pop(m.group(1).decode(), None)
    return {k: tuple(sorted(v)) for k, v in out.items()}


# An object-like macro whose one-line body names warpSize before any comment (`WS warpSize`, `NW (1024 / warpSize)`).
_WARPSIZE_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+(?:[^\n/]|/(?![/*]))*?\bwarpSize\b"
                              rb"[^\n]*$", re.M)


def build_constants(root: ts.Node, data: bytes, extra: dict[str, Any] | None = None) -> Constants:
    """The constant table of a parsed file: `#define N expr`, `const`/`constexpr` integers, enumerators."""
    sources: dict[str, Any] = dict(extra or {})
    conflicts: set[str] = set()
    arms: dict[str, set[int]] = {}  # per name, the chains of `#if` arms its definitions sit in (_arms_by_line)
    placed: dict[str, list[tuple[int, Any]]] = {}  # per name, each definition's line and source
    arm_at = _arms_by_line(data)

    def put(name: str, src: Any, node: ts.Node | None = None) -> None:
        if name in sources and name not in (extra or {}) and _src_text(sources[name]) != _src_text(src):
            conflicts.add(name)
        sources[name] = src
        at = node if node is not None else src
        line = at.start_point.row + 1 if isinstance(at, ts.Node) else 0
        arms.setdefault(name, set()).add(arm_at(line) if line else 0)
        placed.setdefault(name, []).append((line, src))

    # The nodes a walk from the root would act on, in the same order; nothing under a #define or an enumerator
    # list is looked at (descendants() returns pre-order, so those follow their pruned ancestor directly).
    pruned_end = -1
    pruned_start = -1
    for n in _root_nodes(root, _CONSTANT_NODES):
        if pruned_start <= n.start_byte and n.end_byte <= pruned_end and not (n.start_byte == pruned_end > pruned_start):
            continue
        t = n.type
        if t == "preproc_def":
            pruned_start, pruned_end = n.start_byte, n.end_byte
            name = n.child_by_field_name("name")
            value = n.child_by_field_name("value")
            if name is not None and value is not None:
                put(name.text.decode(), value.text.decode("utf-8", "replace").strip(), n)
            continue
        if t in ("declaration", "field_declaration"):
            if b"const" in n.text:  # its words hold `const` or `constexpr` (most declarations are locals: neither)
                _declared_constants(n, put)
        elif t == "enumerator_list":
            pruned_start, pruned_end = n.start_byte, n.end_byte
            _enumerators(n, put)
    for name in conflicts:
        # Two different definitions fold to Unknown. In different `#if` arms (`#ifdef USE_ROCM` 64 `#else` 32) the
        # ROCm build may take the other value; in one arm (a member of two trait structs, a local shadowing a
        # file constant) the CUDA build compiles both, so whatever bounds the CUDA build bounds each of them
        # (porter.kernels.checks._static_cap reads the difference from the reason).
        sources[name] = CONFLICT if len(arms.get(name, ())) > 1 else CONFLICT_ONE_BUILD
        if len(arms.get(name, ())) > 1:
            hip = _hip_definition(placed.get(name, []), data)
            if hip is not None:
                sources[name] = hip
    return Constants(sources)


def _hip_definition(placed: list[tuple[int, Any]], data: bytes) -> Any:
    """The one definition hip-clang compiles of a name defined in several `#if` arms, when the others sit in arms
    only NVIDIA's compiler takes (`#ifdef __NVCC__` 768 `#else` 4096: HIP compiles 4096): porter judges the ROCm
    build. None when two definitions HIP may compile differ, or every one is NVIDIA's (the value is then unknown)."""
    from porter.source import preprocessor

    if any(line == 0 for line, _ in placed):
        return None
    dirs = preprocessor.directives(data)
    kept = [src for line, src in placed if not preprocessor.nvidia_compiler_only(dirs, line)]
    if len(kept) == len(placed) or not kept or len({_src_text(src) for src in kept}) != 1:
        return None
    return kept[-1]


# A size a repository writes folds to any integer (`__shared__ float s[32][32]...`, 210 dimensions, is 2**1050
# bytes): as a float it overflows (OverflowError ended the whole run). Past this many bytes (1 EiB, over every
# memory a target has) a size is shown as "more than" it.
SHOWN_BYTES_MAX = 1 << 60


def kib_number(n: int) -> str:
    """`n` bytes in KiB as a report shows it (`48`, `0.5`), never overflowing: past SHOWN_BYTES_MAX, the bound."""
    if n > SHOWN_BYTES_MAX:
        return f"more than {SHOWN_BYTES_MAX // 1024:,}"
    return f"{n / 1024:g}"


CONFLICT = "__porter_conflict__"
CONFLICT_ONE_BUILD = "__porter_conflict_one_build__"
# What a name defined twice folds to. PER_BUILD_REASON's words are what _static_cap looks for.
PER_BUILD_REASON = "defined more than once with different values"
ONE_BUILD_REASON = "defined with different values in one build (two scopes or specialisations)"


def _arms_by_line(data: bytes) -> Callable[[int], int]:
    """The `#if`/`#elif`/`#else` arms around each line (1-based), as one number per distinct chain of arms (0: none):
    two definitions with the same number sit in the same arms (both only inside an include guard, or in none), so
    the same builds compile them, from the preprocessor's reading of the file's directives. A chain is numbered by
    its innermost arm's line and the number of the chain around it, so N nested groups cost N entries, where a
    tuple of the whole chain per directive cost N^2 (20,000 nested `#if`, 240 KB, needed more than the 2 GiB file
    cap)."""
    from porter.source import preprocessor

    if b"#" not in data:
        return lambda line: 0
    starts: list[int] = [0]
    chains: list[int] = [0]
    numbers: dict[tuple[int, int], int] = {}  # (number of the chain around, arm's line) -> this chain's number
    stack: list[tuple[int, int]] = []  # per open group: (the chain around it, its current arm's chain)

    def chain(around: int, line: int) -> int:
        return numbers.setdefault((around, line), len(numbers) + 1)

    for d in preprocessor.directives(data):
        if d.kind in ("if", "ifdef", "ifndef"):
            around = stack[-1][1] if stack else 0
            stack.append((around, chain(around, d.line)))
        elif d.kind in ("elif", "elifdef", "elifndef", "else") and stack:
            around = stack[-1][0]
            stack[-1] = (around, chain(around, d.line))
        elif d.kind == "endif" and stack:
            stack.pop()
        else:
            continue
        starts.append(d.end_line + 1)
        chains.append(stack[-1][1] if stack else 0)
    return lambda line: chains[bisect.bisect_right(starts, line) - 1]


def _root_nodes(root: ts.Node, types: tuple[str, ...]) -> list[ts.Node]:
    """descendants(root, types) for a whole file, ordered as porter.kernels.nodes.pre_order does (reading ends only
    where nodes start together), which is descendants' order; where that cannot say, descendants itself."""
    found = captures("cuda", descendants_query(types), root).get("n", []) if root.parent is None else None
    ordered = pre_order(found, root.has_error) if found else None
    return ordered[0] if ordered is not None else descendants(root, types)


_CONSTANT_NODES = ("preproc_def", "declaration", "field_declaration", "enumerator_list")
register_root_descendants("cuda", _CONSTANT_NODES)  # build_constants walks every kernel file from its root
# The nodes porter.kernels.facts_shared.struct_sizes reads, registered here: facts is imported at the first kernel, after
# the first file was parsed, and a query registered then makes the combined one compile again (30 ms).
STRUCT_TYPES = ("struct_specifier", "class_specifier")
register_root_descendants("cuda", STRUCT_TYPES)


def _src_text(src: Any) -> str:
    return src.text.decode("utf-8", "replace") if isinstance(src, ts.Node) else str(src)


def _declared_constants(n: ts.Node, put: Callable[..., None]) -> None:
    """The integer constants a declaration whose text holds `const` declares (build_constants asks only those)."""
    spec = []
    for c in n.children:
        if c.type in ("type_qualifier", "storage_class_specifier", "primitive_type", "sized_type_specifier", "type_identifier",
                      "qualified_identifier"):
            spec.append(c.text.decode())
    text = " ".join(spec)
    if not ("const" in text.split() or "constexpr" in text.split()) or not _INT_TYPES.match(text):
        return
    for c in n.children:
        if c.type == "init_declarator":
            name = c.child_by_field_name("declarator")
            value = c.child_by_field_name("value")
            if name is not None and name.type == "identifier" and value is not None:
                if value.type in ("initializer_list", "argument_list"):
                    inner = value.named_children
                    if len(inner) != 1:
                        continue
                    value = inner[0]
                put(name.text.decode(), value)
        elif c.type == "field_identifier":  # `static constexpr int X = 4;` in a struct
            value = n.child_by_field_name("default_value")
            if value is not None:
                put(c.text.decode(), value)


def _enumerators(n: ts.Node, put: Callable[..., None]) -> None:
    prev_name: str | None = None
    for e in n.named_children:
        if e.type != "enumerator":
            continue
        name = e.child_by_field_name("name")
        value = e.child_by_field_name("value")
        if name is None:
            continue
        if value is not None:
            put(name.text.decode(), value)
        elif prev_name is None:
            put(name.text.decode(), 0, e)
        else:
            put(name.text.decode(), f"({prev_name}) + 1", e)
        prev_name = name.text.decode()


_BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: (int(a / b) if isinstance(a, int) and isinstance(b, int) else a / b),
    "%": lambda a, b: a - b * int(a / b), "<<": lambda a, b: _shift_left(a, b), ">>": lambda a, b: a >> b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b), "<=": lambda a, b: int(a <= b),
    ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "&&": lambda a, b: int(bool(a) and bool(b)), "||": lambda a, b: int(bool(a) or bool(b)),
}
_MIN_MAX = {"min": min, "max": max, "std::min": min, "std::max": max}
# C integer casts wrap to the type's width (`(unsigned char)300` is 44).
_CAST_BITS = {"char": 8, "signed char": 8, "unsigned char": 8, "uint8_t": 8, "int8_t": 8, "short": 16,
              "unsigned short": 16, "uint16_t": 16, "int16_t": 16, "int": 32, "unsigned": 32, "unsigned int": 32,
              "uint32_t": 32, "int32_t": 32}
_SIGNED_CASTS = {"char", "signed char", "int8_t", "short", "int16_t", "int", "int32_t"}


def _shift_left(a, b):
    # Anything wider than 64 bits is not a size a kernel can use, and an unbounded shift exhausts memory.
    if not isinstance(a, int) or not isinstance(b, int) or not 0 <= b < 64:
        raise ValueError("shift out of range")
    return a << b


def _unary(op: str, v):
    if op == "~" and not isinstance(v, int):
        raise TypeError("~ on a non-integer")
    return {"-": lambda x: -x, "+": lambda x: x, "~": lambda x: ~x, "!": lambda x: int(not x)}[op](v)


def _cast(type_text: str, v):
    """Apply a C cast to a folded value: truncate to integer types, wrap to their width."""
    ty = " ".join(type_text.replace("const", " ").split())
    if ty in ("float", "double"):
        return float(v)
    if isinstance(v, float) and (ty in _CAST_BITS or ty in ("long", "long long", "size_t", "unsigned long")):
        v = int(v)
    bits = _CAST_BITS.get(ty)
    if bits is None or not isinstance(v, int):
        return v
    v &= (1 << bits) - 1
    if ty in _SIGNED_CASTS and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def fold(node: ts.Node | None, env: Constants) -> Any:
    """The value of an expression node: an int or float, or Unknown with the reason."""
    if node is None:
        return Unknown("no expression")
    t = node.type
    if t == "identifier":
        return env.lookup(node.text.decode("utf-8", "replace"))
    if t == "binary_expression":
        op = node.child_by_field_name("operator").type
        left = fold(node.child_by_field_name("left"), env)
        if isinstance(left, Unknown):
            return left
        right = fold(node.child_by_field_name("right"), env)
        if isinstance(right, Unknown):
            return right
        fn = _BINOPS.get(op)
        if fn is None:
            return Unknown(f"operator {op} in `{node.text.decode('utf-8', 'replace')}`")
        try:
            return fn(left, right)
        except (ArithmeticError, TypeError, ValueError, MemoryError):
            return Unknown(f"`{node.text.decode('utf-8', 'replace')}` cannot be evaluated")
    # The text of an identifier or a binary expression (most folded nodes, and the nested ones) is read only where
    # it is the value or the reason: decoding every level of `a * (b + c)` read its subexpressions over and over.
    text = node.text.decode("utf-8", "replace")
    if t == "number_literal":
        return parse_number(text)
    if t in ("true", "false"):
        return int(t == "true")
    if t == "char_literal":
        body = text[1:-1]
        return ord(body) if len(body) == 1 else Unknown(f"character literal {text}")
    if t == "qualified_identifier":
        name = node.child_by_field_name("name")
        return env.lookup(name.text.decode()) if name is not None else Unknown(f"`{text}`")
    if t in ("parenthesized_expression", "condition_clause"):
        inner = [c for c in node.named_children if c.type != "comment"]
        return fold(inner[0], env) if len(inner) == 1 else Unknown(f"`{text}`")
    if t == "unary_expression":
        op = node.child_by_field_name("operator").type
        v = fold(node.child_by_field_name("argument"), env)
        if isinstance(v, Unknown):
            return v
        if op not in ("-", "+", "~", "!"):
            return Unknown(f"operator {op} in `{text}`")
        try:
            out = _unary(op, v)
        except (ArithmeticError, TypeError, ValueError):
            return Unknown(f"`{text}` cannot be evaluated")
        # `~0u` and `-1u` are unsigned: all ones in 32 bits (64 with `ull`), the full warp mask they spell.
        bits = _unsigned_bits(node.child_by_field_name("argument"))
        return out & ((1 << bits) - 1) if bits and op in ("-", "~") and isinstance(out, int) else out
    if t == "conditional_expression":
        cond = fold(node.child_by_field_name("condition"), env)
        if isinstance(cond, Unknown):
            return cond
        return fold(node.child_by_field_name("consequence" if cond else "alternative"), env)
    if t == "cast_expression":
        v = fold(node.child_by_field_name("value"), env)
        ty = node.child_by_field_name("type")
        if isinstance(v, Unknown) or ty is None:
            return v
        try:
            return _cast(ty.text.decode("utf-8", "replace"), v)
        except (ArithmeticError, TypeError, ValueError):
            return Unknown(f"`{text}` cannot be evaluated")
    if t == "sizeof_expression":
        ty = node.child_by_field_name("type")
        if ty is not None:
            size = type_size(ty.text.decode())
            return size if size is not None else Unknown(f"sizeof({ty.text.decode()}): type not known without deep mode")
        inner = text[len("sizeof"):].strip()
        if inner.startswith("(") and inner.endswith(")"):
            size = type_size(inner[1:-1].strip())  # `sizeof(float4)` parses as sizeof of an expression
            if size is not None:
                return size
            return Unknown(f"{text}: type not known without deep mode")
        return Unknown(f"`{text}`: sizeof of an expression")
    if t == "call_expression":
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        name = fn.text.decode() if fn is not None else ""
        if name in _MIN_MAX and args is not None and len(args.named_children) == 2:
            a, b = (fold(x, env) for x in args.named_children)
            for v in (a, b):
                if isinstance(v, Unknown):
                    return v
            return _MIN_MAX[name](a, b)
        if args is not None and len(args.named_children) == 1:
            # A functional cast (`uint32_t(-1)`, `unsigned(x)`) or `static_cast<T>(x)` converts like a C cast.
            target = name
            if fn is not None and fn.type == "template_function" and name.startswith("static_cast<"):
                targs = fn.child_by_field_name("arguments")
                target = targs.text.decode("utf-8", "replace")[1:-1].strip() if targs is not None else ""
            if target in _CAST_BITS or target in ("size_t", "static_cast"):
                v = fold(args.named_children[0], env)
                return v if isinstance(v, Unknown) else _cast(target, v)
        return Unknown(f"`{text}` is a function call")
    if t == "template_function":  # static_cast<int>(x) parses as call of template_function
        return Unknown(f"`{text}`")
    if t == "field_expression":
        return Unknown(f"`{text}` is a runtime value")
    if t == "__porter_conflict__":
        return Unknown("defined twice with different values")
    return Unknown(f"`{text}` is not a constant expression porter can fold")


def _unsigned_bits(node: ts.Node | None) -> int:
    """The width of an unsigned operand: 32 for an unsigned literal (`0u`, `1U`) or a cast to a 32-bit unsigned type
    (`uint32_t(0)`, `(unsigned)0`), 64 for an unsigned long (long) literal (`0ul`, `0ull`), else 0 (signed or
    unknown)."""
    while node is not None and node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node is None:
        return 0
    if node.type == "number_literal":
        m = _NUMBER.match(node.text.decode("utf-8", "replace").strip().lstrip("+-"))
        suffix = m.group(2).lower() if m else ""
        return 0 if "u" not in suffix else 64 if "l" in suffix else 32  # unsigned long is 64-bit on LP64
    ty = None
    if node.type == "cast_expression":
        ty = node.child_by_field_name("type")
    elif node.type == "call_expression":
        ty = node.child_by_field_name("function")
    name = " ".join(ty.text.decode("utf-8", "replace").split()) if ty is not None else ""
    return _CAST_BITS[name] if name in _CAST_BITS and name not in _SIGNED_CASTS and _CAST_BITS[name] == 32 else 0


def parse_number(text: str) -> Any:
    text = text.strip()
    if text[:1] in ("-", "+"):  # tree-sitter keeps the sign inside some number literals (`-7`)
        v = parse_number(text[1:])
        if text[0] != "-" or isinstance(v, Unknown):
            return v
        m = _NUMBER.match(text[1:].strip())
        suffix = m.group(2).lower() if m else ""
        # `-1u` is unsigned: all ones in 32 bits (64 with `ul`/`ull`, LP64)
        return (-v) & ((1 << (64 if "l" in suffix else 32)) - 1) if "u" in suffix and isinstance(v, int) else -v
    m = _NUMBER.match(text)
    if not m:
        return Unknown(f"number {text}")
    body = m.group(1).replace("'", "")
    try:
        if body[:2] in ("0x", "0X"):
            return int(body, 16)
        if body[:2] in ("0b", "0B"):
            return int(body[2:], 2)
        if ("." in body or "e" in body or "E" in body) and not body.startswith("0x"):
            return float(body)
        if len(body) > 1 and body.startswith("0"):
            return int(body, 8)
        return int(body)
    except ValueError:
        return Unknown(f"number {text}")


_SNIPPET_PREFIX = b"int __porter_v = ("


@functools.lru_cache(maxsize=1)
def _snippet_parser() -> ts.Parser:
    return ts.Parser(language("cuda"))

_text_cache: dict[str, ts.Node | None] = {}


def parse_expression(text: str) -> ts.Node | None:
    """A tree-sitter expression node for a piece of text (a #define body or a launch argument from another file)."""
    if text in _text_cache:
        return _text_cache[text]
    src = _SNIPPET_PREFIX + text.encode("utf-8", "replace") + b");"
    tree = _snippet_parser().parse(src)
    node = None
    decl = tree.root_node.named_children[0] if tree.root_node.named_children else None
    if decl is not None and not tree.root_node.has_error:
        init = next((c for c in decl.named_children if c.type == "init_declarator"), None)
        if init is not None:
            node = init.child_by_field_name("value")
    if len(_text_cache) > 4096:
        _text_cache.clear()
    _text_cache[text] = node
    return node


def fold_text(text: str, env: Constants | None = None) -> Any:
    """Fold an expression given as text; a `#define` body that is not an expression is Unknown."""
    env = env or Constants()
    if text == CONFLICT:
        return Unknown(PER_BUILD_REASON)
    if text == CONFLICT_ONE_BUILD:
        return Unknown(ONE_BUILD_REASON)
    if not text.strip():
        return Unknown("empty macro")
    node = parse_expression(text)
    if node is None:
        return Unknown(f"`{text}` is not an expression")
    return fold(node, env)


# A 64-bit type or literal in a lane-mask expression: the mask is that wide (porter.kernels.checks reads a mask's width
# by it; full_mask_32 below).
WIDE_MASK = re.compile(r"(?i)(?:\b0x[0-9a-f]+|\b\d+)(?:ull|llu|ll)\b|uint64|unsigned\s+long\s+long|size_t|lanemask_t")
# The longest mask expression folded as text (a mask argument is a few tokens; past this it is not read as constant).
MAX_MASK_TEXT = 256
_FUNCTIONAL_CAST = re.compile(r"\b((?:un)?signed(?:\s+int)?)\s*\(")


def full_mask_32(text: str) -> bool:
    """Whether a warp intrinsic's mask argument, as written, is a full 32-bit lane mask: it folds to 0xffffffff
    (lanes 0-31 only, whatever its type: `0xffffffff + 0`, `unsigned(0xffffffff)`, `0xffff0000 | 0x0000ffff`), or to
    -1 with no 64-bit type or literal in it (an int or 32-bit unsigned of all ones: `~0`, `(int)-1 | 0`). The
    folder is the kernel analysis' own (fold), so the rule and the kernel verdict agree; names are not looked up
    (a file's named masks are read by their definitions, porter.match.kinds.code_lanes)."""
    if len(text) > MAX_MASK_TEXT:
        return False
    # A functional cast to a type of two words or a bare `unsigned` (`unsigned(0xffffffff)`) is no expression to the
    # snippet parser; it converts as the C cast `(unsigned)(...)` does.
    value = fold_text(_FUNCTIONAL_CAST.sub(r"(\1)(", text))
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    return value == 0xFFFFFFFF or (value == -1 and WIDE_MASK.search(text) is None)


def dims(node: ts.Node | None, env: Constants, locals_: dict[str, Any] | None = None) -> Any:
    """A launch dimension: `256`, `dim3(16, 6)`, `{16, 6, 1}` or a local dim3/int variable -> (x, y, z) or Unknown."""
    if node is None:
        return Unknown("no expression")
    locals_ = locals_ or {}
    t = node.type
    if t == "identifier":
        name = node.text.decode()
        if name in locals_:
            return locals_[name]
    if t == "call_expression":
        fn = node.child_by_field_name("function")
        if fn is not None and fn.text.decode() == "dim3":
            return dim3_arguments(node.child_by_field_name("arguments"), env, locals_)
    if t == "initializer_list" or (t == "compound_literal_expression"):
        return dim3_arguments(node if t == "initializer_list" else node.child_by_field_name("value"), env, locals_)
    v = _fold_local(node, env, locals_)
    if isinstance(v, Unknown):
        return v
    return (int(v), 1, 1)


def _fold_local(node: ts.Node, env: Constants, locals_: dict[str, Any]) -> Any:
    if not locals_:
        return fold(node, env)
    scalars = {k: v[0] for k, v in locals_.items() if isinstance(v, tuple) and v[1:] == (1, 1)}
    if not scalars:
        return fold(node, env)
    local_env = Constants({**env.sources, **scalars}, env.template_params)
    return fold(node, local_env)


def dim3_arguments(args: ts.Node | None, env: Constants, locals_: dict[str, Any]) -> Any:
    """`(x, y, z)` of a dim3 constructor or initializer list as a (x, y, z) triple, missing ones 1."""
    if args is None:
        return Unknown("dim3 without arguments")
    vals = []
    for a in args.named_children:
        if a.type == "comment":
            continue
        v = _fold_local(a, env, locals_)
        if isinstance(v, Unknown):
            return v
        vals.append(int(v))
    if not vals or len(vals) > 3:
        return Unknown(f"`{args.text.decode()}`")
    return tuple(vals + [1] * (3 - len(vals)))


def split_template_arguments(text: str) -> list[str]:
    """`<float, Reducer<T, 2>, (N > 4), 8>` -> ["float", "Reducer<T, 2>", "(N > 4)", "8"]: the top-level arguments of
    a template argument list, stripped. Commas inside brackets of any kind do not split; `<` and `>` count as
    brackets only outside parentheses, square brackets and braces, where they may be comparisons."""
    inner = text.strip()
    if inner.startswith("<") and inner.endswith(">"):
        inner = inner[1:-1]
    out: list[str] = []
    angle, paren, cur = 0, 0, []
    for ch in inner:
        if ch in "([{":
            paren += 1
        elif ch in ")]}":
            paren -= 1
        elif paren == 0 and ch == "<":
            angle += 1
        elif paren == 0 and ch == ">":
            angle -= 1
        elif ch == "," and angle == 0 and paren == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out
