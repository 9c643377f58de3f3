"""Pattern kind `host_arm_call`: a `__host__` function called in the `__CUDA_ARCH__` arm HIP's device pass compiles.

A `__host__ __device__` helper often picks its path per compilation pass: `#ifdef __CUDA_ARCH__` / device code /
`#else` / host code (era-bellman's field arithmetic: `add_sub_limbs_device` under the test, `add_sub_limbs_host` in
the `#else`). nvcc defines `__CUDA_ARCH__` in its device pass, so device code never sees the host arm. hip-clang
defines it in neither pass (`clang -x hip --cuda-device-only -dM -E`), so its device pass compiles the host arm, and
a call there to a function declared `__host__` (and not `__device__`) is "reference to __host__ function 'f' in
__host__ __device__ function" as soon as a kernel uses the helper - a compile error, not a silent host path
(checked with clang-22 -x hip --offload-arch=gfx942 and hipcc 5.2.3 for gfx90a, on templated and plain helpers;
an unused helper compiles, as clang defers the diagnostic until the function is emitted for the device).

`host_arm_call: [__CUDA_ARCH__]` hits each such call: the arm hip-clang's device pass takes
(porter.source.preprocessor.hip_device_arm) of a group testing a named macro, inside a `__device__` or
`__host__ __device__` function's body, calling a function the same file declares `__host__` without `__device__`
in every definition of its name (after the file's qualifier macros are expanded: `HOST_INLINE` for
`__host__ __forceinline__`). A constexpr function with no host/device attribute is implicitly `__host__
__device__` in clang and is not hit; an explicit `__host__` on a constexpr function keeps it host-only (checked
the same way). Functions defined in other files are not read (a known gap: the fixture's todoruleid).
"""
from __future__ import annotations

import re
from typing import Iterable, Iterator

import tree_sitter as ts

from porter.match.base import Hit, MatchContext
from porter.source.parse import Function, SourceFile, unqualified
from porter.source.preprocessor import defines, hip_device_arm, may_hold_directives, preprocessed

_WORD = re.compile(rb"[A-Za-z_]\w*")
_QUALIFIERS = (b"__host__", b"__device__", b"__global__")


def match_host_arm_call(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    names = frozenset(pattern["host_arm_call"])
    if sf.language != "cuda" or b"__host__" not in sf.data or not may_hold_directives(sf.data) \
            or not any(n.encode() in sf.data for n in names):
        return
    pre = preprocessed(sf)
    arms = [(g, i) for g in pre.groups if any(a.kind != "else" and n in a.text for a in g.arms for n in names)
            for i in (hip_device_arm(g),) if i is not None and i >= 0]
    if not arms:
        return
    macros = _macro_words(sf)
    host_only = _host_only_names(sf, macros)
    if not host_only:
        return
    devices = [f for f in sf.functions if f.is_device and not f.is_kernel]
    seen: set[int] = set()
    for g, i in arms:
        arm = g.arms[i]
        first, last = arm.end_line + 1, arm.last
        if last < first:
            continue
        around = [f for f in devices if f.start_line < arm.line and f.end_line > last]
        if not around:
            continue
        fn = around[-1]  # the innermost
        for call, name in _calls(fn.node, first, last):
            if name in host_only and call.start_byte not in seen:
                seen.add(call.start_byte)
                callee = call.child_by_field_name("function")
                at = callee.start_byte if callee is not None else call.start_byte
                end = callee.end_byte if callee is not None else call.end_byte
                yield Hit(at, end, name=name, values=(("function", fn.name), ("directive", g.arms[0].kind),
                                                      ("condition", g.arms[0].text), ("host_line", str(host_only[name]))))


def _calls(node: ts.Node, first: int, last: int) -> Iterator[tuple[ts.Node, str]]:
    """The call expressions under `node` that start on lines first..last, with their unqualified callee names."""
    todo = [node]
    while todo:
        n = todo.pop()
        if n.end_point.row + 1 < first or n.start_point.row + 1 > last:
            continue
        if n.type == "call_expression" and n.start_point.row + 1 >= first:
            fn = n.child_by_field_name("function")
            if fn is not None and fn.type == "template_function":
                fn = fn.child_by_field_name("name") or fn
            if fn is not None and fn.type in ("identifier", "qualified_identifier"):
                yield n, unqualified(fn.text.decode("utf-8", "replace"))
        todo.extend(reversed(n.children))


def _macro_words(sf: SourceFile) -> dict[bytes, frozenset[bytes]]:
    """Each object-like macro the file defines: the qualifier words of its definitions together (a macro defined
    `__host__ __device__` in one arm and `__host__` in another may be either: it carries both)."""
    out: dict[bytes, set[bytes]] = {}
    for _line, name, body in defines(list(preprocessed(sf).directives)):
        out.setdefault(name.encode(), set()).update(w for w in _WORD.findall(body.encode()) if w in _QUALIFIERS)
    return {k: frozenset(v) for k, v in out.items()}


def _host_only_names(sf: SourceFile, macros: dict[bytes, frozenset[bytes]]) -> dict[str, int]:
    """The names every same-file definition of which is declared `__host__` and not `__device__` (macros
    expanded), each with its first definition's line."""
    words: dict[str, list[tuple[frozenset[bytes], int]]] = {}
    for f in sf.functions:
        words.setdefault(f.name, []).append((_qualifiers(sf, f, macros), f.start_line))
    return {name: min(line for _, line in decls) for name, decls in words.items()
            if all(b"__host__" in q and b"__device__" not in q and b"__global__" not in q for q, _ in decls)}


def _qualifiers(sf: SourceFile, f: Function, macros: dict[bytes, frozenset[bytes]]) -> frozenset[bytes]:
    """The host/device qualifiers written before `f`'s name (its template head included), macros expanded."""
    node = f.node
    lo = node.parent.start_byte if node.parent is not None and node.parent.type == "template_declaration" \
        else node.start_byte
    decl = node.child_by_field_name("declarator")
    hi = decl.start_byte if decl is not None else node.end_byte
    out: set[bytes] = set()
    for w in _WORD.findall(sf.data[lo:hi]):
        if w in _QUALIFIERS:
            out.add(w)
        elif w in macros:
            out.update(macros[w])
    return frozenset(out)
