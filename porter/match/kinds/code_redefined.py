"""The `hip_declared_definition` pattern kind (porter.match.kinds.code): a project's own `__device__` definition of
a function HIP's headers already declare with the same signature - `double atomicMax(double*, double)`, written
from atomicCAS because CUDA lacks it - where hip-clang compiles it (not in an arm HIP never reaches, such as the
`#else` of `#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600`) and at global scope: one inside a named namespace
(sundials' `sundials::cuda::impl::atomicMax`) is another function, which calls in that namespace find first, so it
collides with nothing (an anonymous namespace's members are visible beside the global ones: those still collide)."""
from __future__ import annotations

import re
from typing import Iterable

from porter.match.base import Hit, MatchContext, per_object
from porter.source import preprocessor
from porter.source.parse import SourceFile


def _compile(pattern: dict) -> re.Pattern[bytes]:
    spec = pattern["hip_declared_definition"]
    names = b"|".join(re.escape(n.encode()) for n in spec["names"])
    pointee = b"|".join(re.escape(t.encode()) for t in spec["pointee"])
    # `__device__` before the name (return type and qualifiers between), the first parameter a pointer to one of
    # the types, and a body after the parameter list: a definition, not a call, a prototype or a template over T.
    return re.compile(rb"__device__[^;{}()]*?\b(?P<name>" + names + rb")\s*\(\s*(?:volatile\s+)?(?P<type>" + pointee
                      + rb")\s*\*[^;{}]*\)\s*\{")


_regex = per_object(_compile)


def match_hip_declared_definition(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    text = sf.code
    if b"__device__" not in text:
        return
    dirs = None
    for m in _regex(pattern).finditer(text):
        if dirs is None:
            dirs = preprocessor.directives(sf.data)
        line = sf.data.count(b"\n", 0, m.start("name")) + 1
        if not preprocessor.hip_reaches(dirs, line, ctx.extra.get("rocm")):
            continue  # HIP never compiles this arm: the CUDA-only polyfill is already out of its way
        if in_named_namespace(sf, m.start("name")):
            continue
        yield Hit(m.start("name"), m.end("name"), name=m.group("name").decode(),
                  values=(("type", m.group("type").decode()),))


def in_named_namespace(sf: SourceFile, offset: int) -> bool:
    """Whether the function defined around `offset` sits inside a named `namespace X { ... }`."""
    fn = sf.enclosing(offset)
    node = fn.node.parent if fn is not None else None
    while node is not None:
        if node.type == "namespace_definition" and node.child_by_field_name("name") is not None:
            return True
        node = node.parent
    return False
