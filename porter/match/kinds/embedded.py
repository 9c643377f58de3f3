"""Pattern kinds for code hidden inside other code: `embedded_cuda` and `embedded_binary`.

    embedded_cuda: {match: {kernel: {}}}
        CUDA source held in a Python string and compiled at run time — torch.utils.cpp_extension.load_inline
        (cuda_sources=), CuPy RawKernel / RawModule, PyCUDA SourceModule, NVRTC — found by the call, its
        argument resolved through one level of `NAME = "..."` in the same file, re-parsed with the CUDA
        grammar, and matched with the nested pattern (any registered kind). Hits are mapped back to the Python
        file's bytes, so a kernel is reported at its own line inside the string.
    embedded_binary: {names: '(?i)cubin|fatbin|_sm_?\\d+', min_bytes: 256}
        Large unsigned char / uint8_t arrays in C/C++ whose name looks like prebuilt device code (FasterTransformer
        and TensorRT plugins ship their fused attention kernels this way), and string literals that hold PTX.
"""
from __future__ import annotations

import functools
import re
from typing import Iterable, Iterator, NamedTuple

from porter.match.base import Hit, MatchContext, Matcher
from porter.source.parse import SourceFile, parse
from porter.source.parse_queries import captures, language
from porter.source.syntax import index

# Callee (last dotted part) -> the argument names and positions that hold CUDA source.
_SOURCE_ARGS = {
    "load_inline": (("cuda_sources",), None),
    "RawKernel": (("code",), 0),
    "RawModule": (("code",), 0),
    "SourceModule": (("source",), 0),
    "ElementwiseKernel": (("operation",), 2),
    "ReductionKernel": (("map_expr",), None),
    "nvrtcCreateProgram": (("src",), 1),
    "Program": (("code",), 0),  # cuda.core.experimental.Program(code, "c++")
}


def _string_contents(node) -> list:
    """string_content nodes of a string, or of each string in a list/tuple/concatenation."""
    if node is None:
        return []
    if node.type == "string":
        if any(c.type == "interpolation" for c in node.children):
            return []  # an f-string's text is not known statically
        return [c for c in node.children if c.type == "string_content"]
    if node.type in ("list", "tuple", "concatenated_string", "parenthesized_expression"):
        out = []
        for c in node.named_children:
            out.extend(_string_contents(c))
        return out
    return []


def _assignments(sf: SourceFile) -> dict[str, object]:
    """Module- or function-level `NAME = <string or list of strings>` (the last one written wins)."""
    if "py_string_assignments" not in sf.cache:
        out = {}
        for a in captures("python", "(assignment left: (identifier) @l right: (_) @r) @a", sf.root).get("a", []):
            left, right = a.child_by_field_name("left"), a.child_by_field_name("right")
            if left is not None and right is not None and _string_contents(right):
                out[left.text.decode()] = right
        sf.cache["py_string_assignments"] = out
    return sf.cache["py_string_assignments"]


def embedded_sources(sf: SourceFile) -> list[tuple[int, bytes]]:
    """(offset in the Python file, CUDA text) for every string that a CUDA-compiling call receives."""
    if "embedded_sources" in sf.cache:
        return sf.cache["embedded_sources"]
    out: dict[int, bytes] = {}
    for fn, dotted, call in index(sf).python_calls:
        last = dotted.rsplit(".", 1)[-1]
        if last not in _SOURCE_ARGS:
            continue
        names, position = _SOURCE_ARGS[last]
        args = call.child_by_field_name("arguments")
        if args is None:
            continue
        values = []
        positional = [a for a in args.named_children if a.type not in ("keyword_argument", "comment")]
        if position is not None and position < len(positional):
            values.append(positional[position])
        for kw in args.named_children:
            if kw.type == "keyword_argument" and kw.child_by_field_name("name").text.decode() in names:
                values.append(kw.child_by_field_name("value"))
        for v in values:
            if v is not None and v.type == "identifier":
                v = _assignments(sf).get(v.text.decode())
            for content in _string_contents(v):
                out[content.start_byte] = sf.data[content.start_byte:content.end_byte]
    sf.cache["embedded_sources"] = sorted(out.items())
    return sf.cache["embedded_sources"]


def match_embedded_cuda(pattern: dict, sf: SourceFile, ctx: MatchContext, inner: Matcher) -> Iterable[Hit]:
    """`inner` runs the nested pattern on each re-parsed string (the registry passes its own dispatch)."""
    if sf.language != "python" or sf.root is None:
        return
    nested = pattern["embedded_cuda"].get("match") or {"kernel": {}}
    for offset, text in embedded_sources(sf):
        sub = parse(sf.path, "cuda", text)
        for hit in inner(nested, sub, ctx):
            yield Hit(hit.start + offset, hit.end + offset, name=hit.name, replacement=hit.replacement,
                      values=hit.values, message=hit.message)


_PTX_TEXT = re.compile(rb"\.version\s+\d+\.\d+.*?\.target\s+(sm_\w+|compute_\w+)", re.S)


def _arrays(sf: SourceFile) -> Iterator[tuple[object, object]]:
    """(name, initializer) of each `T name[...] = {...};` declaration, in file order: picked from the file's
    declarators (porter.source.syntax), which costs less than a query of that shape takes to compile. Node kinds
    and fields are compared by the grammar's ids (see _CudaIds): a file has thousands of declarators."""
    ids = _cuda_ids()
    for d in index(sf).declarators:
        if d.kind_id not in ids.init_declarator:
            continue
        array = d.child_by_field_id(ids.declarator)
        if array is None or array.kind_id not in ids.array_declarator:
            continue
        init = d.child_by_field_id(ids.value)
        if init is None or init.kind_id not in ids.initializer_list:
            continue
        name = array.child_by_field_id(ids.declarator)
        if name is not None and name.kind_id in ids.identifier:
            yield name, init


class _CudaIds(NamedTuple):
    """The CUDA grammar's ids for the node kinds and fields _arrays reads: `node.kind_id in ids.identifier` is
    `node.type == "identifier"` (every id the grammar names so), `child_by_field_id(ids.value)` is
    `child_by_field_name("value")`, without a string made or looked up per node."""

    init_declarator: frozenset[int]
    array_declarator: frozenset[int]
    initializer_list: frozenset[int]
    identifier: frozenset[int]
    declarator: int
    value: int


@functools.lru_cache(maxsize=1)
def _cuda_ids() -> _CudaIds:
    lang = language("cuda")

    def kinds(name: str) -> frozenset[int]:
        return frozenset(i for i in range(lang.node_kind_count) if lang.node_kind_for_id(i) == name)

    return _CudaIds(kinds("init_declarator"), kinds("array_declarator"), kinds("initializer_list"),
                    kinds("identifier"), lang.field_id_for_name("declarator"), lang.field_id_for_name("value"))


def match_embedded_binary(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.language != "cuda" or sf.root is None:
        return
    spec = pattern["embedded_binary"]
    name_rx = re.compile(spec.get("names", r"(?i)cubin|fatbin|_sm_?\d+"))
    min_bytes = int(spec.get("min_bytes", 256))
    for name, init in _arrays(sf):
        ident = name.text.decode("utf-8", "replace")
        if not name_rx.search(ident):
            continue
        # Count elements cheaply (commas at the top level are all there is in a byte array).
        count = sf.data.count(b",", init.start_byte, init.end_byte) + 1
        if count < min_bytes:
            continue
        yield Hit(name.start_byte, name.end_byte, name=ident, values=(("bytes", count), ("form", "byte array")))
    if spec.get("ptx", True) and b".target" in sf.data:
        for start, end in sf.string_spans:
            m = _PTX_TEXT.search(sf.data, start, end)
            if m:
                yield Hit(start, max(start + 1, min(end, start + 16)), name="PTX text",
                          values=(("target", m.group(1).decode()), ("form", "PTX string")))

