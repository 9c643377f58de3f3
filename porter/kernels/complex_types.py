"""CUDA's complex types (cuComplex.h) and the arithmetic a kernel writes on them: the names a repository gives those
types, and which of a kernel's products of two same-typed values are products of two complex numbers.

cuComplex.h defines `cuDoubleComplex` as `double2` and no operators, so `a * b` on two of them compiles under nvcc only
through operators the project defines itself. hipify renames the type to `hipDoubleComplex`, which HIP defines as
`double2` = `HIP_vector_type<double, 2>`, whose own `operator*` multiplies component by component. On the HIP releases
porter judges that product is either ambiguous with the project's operators (a compile error, as HIP's own complex
operators were in ROCm 5.7-6.0: https://github.com/ROCm/hip/issues/3377, https://github.com/ROCm/hip/issues/2797) or,
where the project's operators are compiled only for nvcc, the component-wise one: (re*re, im*im), the cross terms
lost with no error (current amd_hip_complex.h defines hipCmul and no operators:
https://github.com/ROCm/clr/blob/develop/hipamd/include/hip/amd_detail/amd_hip_complex.h; QuEST on ROCm 7:
https://github.com/QuEST-Kit/QuEST/issues/704). Either way the product must become hipCmul / hipCdiv (or operators
the HIP build defines and HIP's do not shadow). A product with a real scalar is right component-wise and is not
counted.

A project's own operator that HIP compiles is what the product calls there, though: `cuComplex operator*(cuComplex,
cuComplex)` declared as a plain (non-template) function outside an nvcc-only arm is, after hipify, an exact match
for two hipComplex values, and a non-template function beats HIP_vector_type's `operator*` template in overload
resolution (https://en.cppreference.com/w/cpp/language/overload_resolution, best viable function: a non-template
is preferred over a template specialization), so the product is complex on HIP as on CUDA (GX's device_funcs.h,
heldout43; ROCm 6.4 and later define no complex operators of their own to clash with). `operators_of` records the
type names a file gives such an operator (FileResult.complex_operators); a product of one of them is not counted.
QuEST's operators sit under `#if defined(__NVCC__)` and are not recorded: hip-clang never sees them.

Which type names are complex is repository-wide (`typedef cuDoubleComplex cu_qcomp;` in one header, the kernels in
another): each file's aliases are read with the scan (`aliases_of`, FileResult.complex_aliases) and kernel analysis
resolves the products the body walk recorded by type name (KernelFacts.typed_products) against them.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Iterable

from porter.model.kernel import HelperCall, KernelFacts

# cuComplex.h's types and hipify's names for them.
COMPLEX_TYPES = frozenset({"cuComplex", "cuFloatComplex", "cuDoubleComplex",
                           "hipComplex", "hipFloatComplex", "hipDoubleComplex"})
# Functions of cuComplex.h (and HIP's) that return one of its types: `make_cuDoubleComplex(re, im) * z` is complex.
COMPLEX_MAKERS = {"make_cuComplex": "cuComplex", "make_cuFloatComplex": "cuFloatComplex",
                  "make_cuDoubleComplex": "cuDoubleComplex", "cuCmul": "cuDoubleComplex", "cuCmulf": "cuFloatComplex",
                  "cuCadd": "cuDoubleComplex", "cuCaddf": "cuFloatComplex", "cuCsub": "cuDoubleComplex",
                  "cuCsubf": "cuFloatComplex", "cuConj": "cuDoubleComplex", "cuConjf": "cuFloatComplex",
                  "make_hipComplex": "hipComplex", "make_hipFloatComplex": "hipFloatComplex",
                  "make_hipDoubleComplex": "hipDoubleComplex"}
COMPLEX_PRODUCT = "complex-product"  # the KernelFacts.clang_differs kind (rules/kb/kernel_checks.yaml)

_ALIAS = re.compile(rb"\btypedef\s+(?:const\s+)?([A-Za-z_]\w*)\s+([A-Za-z_]\w*)\s*;"
                    rb"|\busing\s+([A-Za-z_]\w*)\s*=\s*(?:const\s+)?([A-Za-z_]\w*)\s*;")
_COMMENT = re.compile(rb"/\*.*?\*/|//[^\n]*", re.S)
# Any other definition of a type name: `typedef <anything> X;`, `using X = <anything>;`, `struct {...} X;`.
_DEFINED = re.compile(rb"\btypedef\b[^;{}]*?\b([A-Za-z_]\w*)\s*;|\busing\s+([A-Za-z_]\w*)\s*="
                      rb"|\}\s*([A-Za-z_]\w*)\s*;")


def aliases_of(data: bytes) -> tuple[str, ...]:
    """The names a file's `typedef T X;` / `using X = T;` give a CUDA complex type (T one of COMPLEX_TYPES, or a
    name the file already made one), sorted; () for a file that names none. A name the file also defines as
    something else is left out: that is a per-build choice (MAGMA's magma_types.h makes magmaDoubleComplex
    cuDoubleComplex in its CUDA arm and a struct of its own, with MAGMA's operators, in its HIP arm)."""
    if b"Complex" not in data:
        return ()
    data = _COMMENT.sub(b" ", data)
    pairs = []
    for m in _ALIAS.finditer(data):
        target, name = (m.group(1), m.group(2)) if m.group(1) is not None else (m.group(4), m.group(3))
        pairs.append((target.decode(), name.decode()))
    known = set(COMPLEX_TYPES)
    out: set[str] = set()
    grew = True
    while grew:  # `typedef cuDoubleComplex cplx; typedef cplx amp_t;`, in any order
        grew = False
        for target, name in pairs:
            if target in known and name not in known:
                known.add(name)
                out.add(name)
                grew = True
    complex_pairs = {(t, n) for t, n in pairs if n in out}
    for m in _DEFINED.finditer(data):
        name = next(g for g in m.groups() if g is not None).decode()
        if name in out:
            whole = m.group(0)
            alias = _ALIAS.fullmatch(whole.strip())
            if alias is not None:
                a, b = (alias.group(1), alias.group(2)) if alias.group(1) is not None else (alias.group(4), alias.group(3))
                if (a.decode(), b.decode()) in complex_pairs:
                    continue
            elif m.group(2) is not None:
                continue  # `using X =` of a complex alias: the _ALIAS match above
            out.discard(name)
    return tuple(sorted(out))


# `operator*(const T &a, T b)` / `operator /(T, T)`: a binary operator on two values of one named type.
_OPERATOR = re.compile(rb"\boperator\s*[*/]\s*\(\s*(?:const\s+)?([A-Za-z_]\w*)\s*&?\s*(?:[A-Za-z_]\w*)?\s*,"
                       rb"\s*(?:const\s+)?([A-Za-z_]\w*)\s*&?\s*(?:[A-Za-z_]\w*)?\s*\)")
_TEMPLATE_HEAD = re.compile(rb"\btemplate\s*<")


def operators_of(data: bytes) -> tuple[str, ...]:
    """The type names T for which the file declares a non-template `operator*` or `operator/` taking two T values,
    on lines hip-clang may compile (not in an arm only NVIDIA's compiler takes: preprocessor.nvidia_compiler_only),
    sorted; () for a file that declares none. Any type name: which are complex is decided after the scan, with the
    repository's aliases."""
    if b"operator" not in data:
        return ()
    code = _COMMENT.sub(lambda m: b" " * len(m.group(0)) if b"\n" not in m.group(0) else
                        re.sub(rb"[^\n]", b" ", m.group(0)), data)
    found = []
    for m in _OPERATOR.finditer(code):
        if m.group(1) != m.group(2):
            continue
        # the declaration's head: back to the end of the previous declaration or block
        head_start = max(code.rfind(b";", 0, m.start()), code.rfind(b"}", 0, m.start()),
                         code.rfind(b"{", 0, m.start())) + 1
        if _TEMPLATE_HEAD.search(code, head_start, m.start()):
            continue
        found.append((code.count(b"\n", 0, m.start()) + 1, m.group(1).decode()))
    if not found:
        return ()
    from porter.source.preprocessor import directives, nvidia_compiler_only

    dirs = directives(data)
    return tuple(sorted({name for line, name in found if not nvidia_compiler_only(dirs, line)}))


def complex_operators(files: Iterable[Any], names: frozenset[str]) -> frozenset[str]:
    """The complex type names (of `names`) some scanned file gives a non-template `*` / `/` HIP compiles
    (FileResult.complex_operators); cuComplex and cuFloatComplex are one type (cuComplex.h's typedef)."""
    served = {n for r in files for n in getattr(r, "complex_operators", ()) if n in names}
    for pair in (("cuComplex", "cuFloatComplex"), ("hipComplex", "hipFloatComplex")):
        if served & set(pair):
            served |= set(pair)
    return frozenset(served)


def complex_names(files: Iterable[Any]) -> frozenset[str]:
    """COMPLEX_TYPES and every alias of them the scanned files declare (FileResult.complex_aliases)."""
    names = set(COMPLEX_TYPES)
    for r in files:
        names.update(getattr(r, "complex_aliases", ()))
    return frozenset(names)


def with_complex_products(facts: KernelFacts, names: frozenset[str], served: frozenset[str] = frozenset()) -> KernelFacts:
    """`facts` with each recorded product of two values of a complex type (in the kernel and in the helpers of other
    files it calls) added to clang_differs as COMPLEX_PRODUCT, but of a type the project's own operators serve on
    HIP (`served`: complex_operators); the same object when there are none."""
    names = names - served
    own = _resolved(facts, names)
    helpers = tuple(dataclasses.replace(h, facts=_resolved(h.facts, names)) if h.facts.typed_products else h
                    for h in facts.helpers)
    if own is facts and all(a is b for a, b in zip(helpers, facts.helpers)):
        return facts
    return dataclasses.replace(own, helpers=helpers)


def _resolved(facts: KernelFacts, names: frozenset[str]) -> KernelFacts:
    found = {(COMPLEX_PRODUCT, line) for type_name, line in facts.typed_products if type_name in names}
    if not found or found <= set(facts.clang_differs):
        return facts
    return dataclasses.replace(facts, clang_differs=tuple(sorted(set(facts.clang_differs) | found)))


def _helpers_have_products(helpers: tuple[HelperCall, ...]) -> bool:
    return any(h.facts.typed_products for h in helpers)


def has_products(facts: KernelFacts) -> bool:
    """Whether the kernel or a helper it calls recorded a product of two same-typed values."""
    return bool(facts.typed_products) or _helpers_have_products(facts.helpers)
