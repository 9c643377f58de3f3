"""The detectors of the body walk (porter.kernels.facts) and their registry: one detector per fact, each reading
one kind of node and recording one fact in the walk of a function body, and the tables that send each node only
to the detectors that act on it (by node type, by name text, by callee name)."""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Iterable

import tree_sitter as ts

from porter.kernels.constfold import fold, fold_text
from porter.kernels.facts_lanes import LANE_VALUES, lane_constant, lane_expr, lane_literal, reduction_loop
from porter.kernels.facts_ptx import amdgcn, ptx_statement
from porter.kernels.facts_walk import Walk
from porter.kernels.member_calls import member_call_key, operator_call_key, operator_expression_key, template_functor_key
from porter.kernels.member_calls import template_type_parameters as _template_type_parameters
from porter.kernels.facts_vocabulary import (CUDA_ONLY_OPTIX, DEVICE_COMM_NCCL, NCCL_DEVICE_TYPES, device_comm,
                                             optix_call)
from porter.kernels.facts_vocabulary import (ASYNC_IDENTIFIERS, BALLOTS, CLUSTER_IDENTIFIERS, CUDA_ONLY_NAMESPACES,
                                             CUTE_TENSOR_NAMES, FULL_MASK_32, WARP_OPS, WMMA_IDENTIFIERS, grouped)
from porter.kernels.nodes import walk
from porter.model.kernel import Ballot32, LaneAssumption, WarpOp, WarpSizeConstant
from porter.source.parse import SourceFile, unqualified
from porter.source.preprocessor import CONDITIONAL_NODE_TYPES

# ------------------------------------------------------------------------------------------ detectors
# One detector per fact: each reads one kind of node and records one fact in the walk `w` of a function body
# (porter.model.kernel.KernelFacts is what they add up to). `FileContext._walk` visits every node of their types
# once and hands it to the detectors registered for its type, so a new fact is one function and one `@detects`
# line (a new node type also joins porter.kernels.nodes.INDEXED, else the walk of that type is done in Python).

# A detector is called with the file context (porter.kernels.facts.FileContext, which imports this module, so it is
# not named here), the node and the walk it records into.
Detector = Callable[[Any, ts.Node, Walk], None]
DETECTORS: dict[str, list[Detector]] = {}
NAMES = ("identifier", "type_identifier", "namespace_identifier", "field_identifier")
# Detectors that act only on a node whose text is one of a few names (`this_grid`, `warpSize`): the walk calls
# them for those nodes only. A body is mostly names, and each name otherwise went through every name detector;
# every detector of names is one of these, so a body whose text holds none of their names is not asked for names.
_WANTED: dict[Detector, frozenset[bytes]] = {}
_CALLS: dict[tuple[str, bytes], tuple[Detector, ...]] = {}  # (node type, text) -> its detectors, in order
# Detectors of calls that act only on calls of some names (`__shfl_sync`, `atomicAdd`): a predicate on the call's
# unqualified name (None for a member call, `g.sync()`). A body's calls are mostly others, and each call otherwise
# went through every call detector; the walk names each call once and hands it to the detectors of that name.
_CALL_WANTED: dict[Detector, Callable[[str | None], bool]] = {}
_BY_CALLEE: dict[str | None, tuple[Detector, ...]] = {}  # callee name -> its call detectors, in order
_DERIVED: dict[str, Any] = {}  # from the registry, made when first asked: see walked_types and name_pattern


def detects(*node_types: str, names: Iterable[str] | None = None,
            calls: Callable[[str | None], bool] | None = None) -> Callable[[Detector], Detector]:
    """Register a detector for nodes of `node_types`; with `names`, only for such a node whose text is one of them
    (the detector must do nothing for any other). A detector of name nodes (NAMES) must give its `names`. With
    `calls` (call_expression detectors only), only for a call whose unqualified callee name (None for a member
    call) it is true of: the detector must do nothing for any other call."""
    if names is None and set(node_types) & set(NAMES):
        raise ValueError("a detector of name nodes says which names it acts on (names=...)")
    if calls is not None and set(node_types) != {"call_expression"}:
        raise ValueError("calls=... selects calls by their callee: call_expression detectors only")

    def register(detector: Detector) -> Detector:
        for t in node_types:
            DETECTORS.setdefault(t, []).append(detector)
        if names is not None:
            _WANTED[detector] = frozenset(n.encode() for n in names)
        if calls is not None:
            _CALL_WANTED[detector] = calls
        _CALLS.clear()
        _BY_CALLEE.clear()
        _DERIVED.clear()
        return detector
    return register


def walked_types() -> tuple[str, ...]:
    """The node types with detectors, names aside (the walk asks for those apart)."""
    if "walked" not in _DERIVED:
        _DERIVED["walked"] = tuple(t for t in DETECTORS if t not in NAMES)
    return _DERIVED["walked"]


def name_pattern(shared: tuple[str, ...] = ()) -> re.Pattern:
    """Found where a name some detector of names acts on, or one of `shared` (the file's file-scope `__shared__`
    variables), starts. The names are grouped by their first byte, which sre tries several times faster than a
    plain list of alternatives (most bodies hold none of them, and all of their text is tried)."""
    if shared or "names" not in _DERIVED:
        pattern = re.compile(grouped(set().union(*_WANTED.values(), (n.encode() for n in shared))) or rb"(?!)")
        if shared:
            return pattern
        _DERIVED["names"] = pattern
    return _DERIVED["names"]


def call_detectors(name: str | None) -> tuple[Detector, ...]:
    """The detectors a call of `name` (its unqualified callee; None for a member call) goes to, in registration
    order."""
    found = _BY_CALLEE.get(name)
    if found is None:
        found = tuple(d for d in DETECTORS.get("call_expression", ())
                      if d not in _CALL_WANTED or _CALL_WANTED[d](name))
        if len(_BY_CALLEE) < 100_000:  # callee names repeat; bounded as detectors_of is
            _BY_CALLEE[name] = found
    return found


def overlapping(pattern: re.Pattern, text: bytes) -> Iterable[re.Match]:
    """The matches of `pattern` starting at every offset of `text` it matches at (each next search starts one byte
    after the last match's start, so a match inside a longer one is found too)."""
    m = pattern.search(text)
    while m is not None:
        yield m
        m = pattern.search(text, m.start() + 1)


def name_offsets(sf: SourceFile, shared: Iterable[str]) -> list[list[int]] | None:
    """For each name some detector of names acts on, and each of `shared` (the file-scope `__shared__` variables),
    that is a token of the file's code: its offsets there (porter.source.parse's token index, which the matchers
    made already). A name node with one of those texts starts at one of them: outside comments and strings the
    parsed text is the file's, but for macro uses blanked to spaces. None where the index and the parser may split
    words differently (non-ASCII bytes, `$`): the caller then searches the body's text instead."""
    code = sf.code
    if b"$" in code or not code.isascii():
        return None
    tokens = sf.tokens()
    wanted = _DERIVED.get("wanted")
    if wanted is None:
        wanted = _DERIVED["wanted"] = frozenset().union(*_WANTED.values())
    names = [t for t in wanted | {n.encode() for n in shared} if t in tokens]
    return [tokens[t] for t in sorted(names)]


def detectors_of(node_type: str, text: bytes) -> tuple[Detector, ...]:
    """The detectors a node of `node_type` with `text` goes to, in registration order."""
    key = (node_type, text)
    found = _CALLS.get(key)
    if found is None:
        found = tuple(d for d in DETECTORS.get(node_type, ()) if d not in _WANTED or text in _WANTED[d])
        if len(_CALLS) < 100_000:  # names repeat; a file of unique names must not grow this without bound
            _CALLS[key] = found
    return found


# `wmma::fragment<wmma::matrix_a, 8, 32, 16, half, ...>`: the fragment's use and its M, N, K tile shape.
_FRAGMENT = re.compile(r"fragment\s*<\s*(?:[\w:]*::)?(?:matrix_a|matrix_b|accumulator)\s*,([^,<>]+),([^,<>]+),([^,<>]+)[,>]")
_DECLARATIONS = ("declaration", "field_declaration", "parameter_declaration", "alias_declaration", "type_definition")


@detects(*NAMES, names=WMMA_IDENTIFIERS)
def wmma_fragments(ctx, n: ts.Node, w: Walk) -> None:
    """WMMA use, and each fragment's tile shape as `wmma m8n32k16` (porter.kernels.checks compares it with the
    shapes rocWMMA has); a shape that does not fold to integers is left out."""
    if n.text.decode() not in WMMA_IDENTIFIERS:
        return
    w.tensor.add("wmma")
    w.feature_lines.append(("wmma", n.start_point.row + 1))
    p = n.parent
    while p is not None and p.type not in _DECLARATIONS:
        p = p.parent
    if p is None:
        return
    m = _FRAGMENT.search(p.text.decode("utf-8", "replace"))
    if m is None:
        return
    dims = [fold_text(x.strip(), ctx.env) for x in m.groups()]
    if all(isinstance(d, int) for d in dims):
        w.tensor.add("wmma m{}n{}k{}".format(*dims))


# WMMA's 1-bit operations: `bmma_sync` (the only WMMA call that takes `precision::b1` fragments, with an XOR or AND
# bit op) and the `b1` precision itself (`wmma::experimental::precision::b1`). CUDA C++ Programming Guide, "Sub-byte
# Operations": https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#sub-byte-operations
_ONE_BIT = frozenset({"bmma_sync", "b1"})


@detects(*NAMES, names=_ONE_BIT)
def one_bit_mma(ctx, n: ts.Node, w: Walk) -> None:
    """1-bit matrix multiply (`wmma::bmma_sync`, a `precision::b1` fragment) as the tensor fact `wmma b1`: no AMD
    matrix instruction takes 1-bit operands (porter.kernels.checks: wmma-b1)."""
    name = n.text.decode()
    if name not in _ONE_BIT:
        return
    p = n.parent
    if name == "b1" and (p is None or not p.text.decode("utf-8", "replace").replace(" ", "").endswith("precision::b1")):
        return  # a variable called b1, not the precision
    w.tensor.add("wmma b1")


@detects("namespace_identifier", names=CUDA_ONLY_NAMESPACES)
def cuda_only_namespaces(ctx, n: ts.Node, w: Walk) -> None:
    """`cutlass::`, `cute::`: NVIDIA-only device libraries with no ROCm build."""
    name = n.text.decode()
    if name in CUDA_ONLY_NAMESPACES:
        w.libraries.add(CUDA_ONLY_NAMESPACES[name])


@detects("call_expression", calls=lambda name: device_comm(name) is not None)
def device_comm_calls(ctx, n: ts.Node, w: Walk) -> None:
    """`nvshmem_signal_wait_until(...)`, `nvshmemi_ibgda_put_nbi_warp(...)`: GPU-initiated communication."""
    lib = device_comm(ctx.called(n)[1])
    if lib is not None:
        w.libraries.add(lib)


@detects("call_expression", calls=optix_call)
def optix_calls(ctx, n: ts.Node, w: Walk) -> None:
    """`optixGetLaunchIndex()`, `optixTrace(...)`: an OptiX program's device API (no ROCm counterpart)."""
    if optix_call(ctx.called(n)[1]):
        w.libraries.add(CUDA_ONLY_OPTIX)


@detects(*NAMES, names=NCCL_DEVICE_TYPES)
def nccl_device_types(ctx, n: ts.Node, w: Walk) -> None:
    """`ncclGinRequest_t`, `ncclDevComm`: NCCL's device API named in device code."""
    if n.text.decode() in NCCL_DEVICE_TYPES:
        w.libraries.add(DEVICE_COMM_NCCL)


@detects(*NAMES, names=CUTE_TENSOR_NAMES)
def cute_tensor_names(ctx, n: ts.Node, w: Walk) -> None:
    """CuTe tensor algebra (`cute::make_tensor`, or unqualified under `using namespace cute`)."""
    name = n.text.decode()
    if name in CUTE_TENSOR_NAMES:
        p = n.parent
        qualified = p is not None and p.type == "qualified_identifier" and p.text.decode().lstrip(":").startswith("cute::")
        if qualified or ctx.cute_scope:
            w.cute.add(name)


@detects(*NAMES, names=ASYNC_IDENTIFIERS)
def async_copy_names(ctx, n: ts.Node, w: Walk) -> None:
    name = n.text.decode()
    # `barrier` and `pipeline` are common words: only cuda::'s count.
    if name in ASYNC_IDENTIFIERS and (name not in ("barrier", "pipeline") or _in_cuda_ns(n)):
        w.async_copies.add(ASYNC_IDENTIFIERS[name])
        w.feature_lines.append((ASYNC_IDENTIFIERS[name], n.start_point.row + 1))


@detects(*NAMES, names=CLUSTER_IDENTIFIERS)
def cluster_names(ctx, n: ts.Node, w: Walk) -> None:
    name = n.text.decode()
    if name in CLUSTER_IDENTIFIERS:
        w.clusters.add(CLUSTER_IDENTIFIERS[name])


# Members of a grid group that only read its shape (HIP computes them from the block and thread ids, no cooperative
# launch needed): `cg::this_grid().thread_rank()` is an index, not a grid barrier.
GRID_QUERIES = frozenset({"thread_rank", "size", "num_threads", "num_blocks", "block_rank", "block_index",
                          "thread_index", "dim_blocks", "group_dim", "dim_threads", "is_valid"})


@detects(*NAMES, names=("this_grid",))
def grid_group_name(ctx, n: ts.Node, w: Walk) -> None:
    """`this_grid()` held or synchronised (`grid_group g = this_grid(); g.sync()` with any name for `g`); a call
    whose only use is a shape query on the spot (`this_grid().thread_rank()`) is not a grid sync."""
    if n.text != b"this_grid":
        return
    call = n.parent
    while call is not None and call.type in ("qualified_identifier", "template_function"):
        call = call.parent
    use = call.parent if call is not None and call.type == "call_expression" else None
    if use is not None and use.type == "field_expression":
        field = use.child_by_field_name("field")
        if field is not None and field.text.decode() in GRID_QUERIES:
            return
    w.grid_sync.append(n.start_point.row + 1)


def own_member(n: ts.Node) -> bool:
    """Whether a name is the member part of a scoped name (`GpuConfig::warpSize`, not `::warpSize`): the project's
    own declaration, whatever HIP calls a variable of the same name."""
    p = n.parent
    return (p is not None and p.type == "qualified_identifier" and p.child_by_field_name("scope") is not None
            and p.child_by_field_name("name") == n)


@detects(*NAMES, names=("warpSize",))
def warpsize_constant(ctx, n: ts.Node, w: Walk) -> None:
    """`warpSize` where a constant expression is needed (not constexpr since ROCm 7.0)."""
    # `GpuConfig::warpSize` is the project's own constant (SPH-EXA's `static constexpr int warpSize = 64` under
    # __HIPCC__), a member of its scope, not HIP's warpSize variable; `::warpSize` still names the global one.
    if own_member(n):
        return
    if n.text == b"warpSize" and _constant_context(n):
        w.warpsize_const.append(WarpSizeConstant(n.start_point.row + 1, _stmt_text(n)))


@detects("declaration")
def shared_declarations(ctx, n: ts.Node, w: Walk) -> None:
    """`__shared__` declarations, sized later with the kernel's template bindings."""
    if b"__shared__" in n.text and any(c.type == "type_qualifier" and c.text == b"__shared__" for c in n.children):
        w.shared_decls.append(n)


# CUDA's texture and surface reads and writes (texture objects and references alike; rules/device/DEV020 lists the
# same names). HIP implements them with image instructions; gfx942, gfx950 and gfx1250 have none, so clang predefines
# __HIP_NO_IMAGE_SUPPORT__ there and HIP's headers (ROCm/clr texture_indirect_functions.h, amd_surface_functions.h)
# mark each of these `unavailable`: the call does not compile for those targets (image-instructions).
IMAGE_API = frozenset({
    "tex1Dfetch", "tex1D", "tex2D", "tex3D", "tex1DLayered", "tex2DLayered", "texCubemap", "texCubemapLayered",
    "tex2Dgather", "tex1DLod", "tex2DLod", "tex3DLod", "tex1DLayeredLod", "tex2DLayeredLod", "texCubemapLod",
    "texCubemapLayeredLod", "tex1DGrad", "tex2DGrad", "tex3DGrad", "tex1DLayeredGrad", "tex2DLayeredGrad",
    "surf1Dread", "surf1Dwrite", "surf2Dread", "surf2Dwrite", "surf3Dread", "surf3Dwrite", "surf1DLayeredread",
    "surf1DLayeredwrite", "surf2DLayeredread", "surf2DLayeredwrite", "surfCubemapread", "surfCubemapwrite",
    "surfCubemapLayeredread", "surfCubemapLayeredwrite"})
# CUDA's round-to-nearest arithmetic intrinsics, which nvcc never contracts into a fused multiply-add (the CUDA Math
# API's documented point of them: double-single arithmetic, error-free products, compensated sums). clang's
# __clang_hip_math.h defines each as the plain operator unless OCML_BASIC_ROUNDED_OPERATIONS is defined, and HIP
# compiles with -ffp-contract=fast-honor-pragmas: the product is fused into the sum that must see it rounded
# (fp-contract-rounded).
ROUNDED_MULS = frozenset({"__fmul_rn", "__dmul_rn"})
ROUNDED_OPS = ROUNDED_MULS | {"__fadd_rn", "__fsub_rn", "__dadd_rn", "__dsub_rn"}


@detects("call_expression", calls=lambda name: name in IMAGE_API or name in ROUNDED_OPS)
def clang_reads_otherwise(ctx, n: ts.Node, w: Walk) -> None:
    """Texture/surface calls and the non-contracting rounded arithmetic intrinsics (see IMAGE_API, ROUNDED_OPS)."""
    _, name = ctx.called(n)
    if name in IMAGE_API:
        w.clang_differs.append(("image-instructions", n.start_point.row + 1))
    elif name in ROUNDED_OPS and _contractible(n, name):
        w.clang_differs.append(("fp-contract-rounded", n.start_point.row + 1))


def _contractible(n: ts.Node, name: str) -> bool:
    """Whether HIP can fuse a multiply into this rounded operation where nvcc would not. Contraction joins a product
    with the sum that reads it: a rounded product counts unless its value goes straight to memory or into a call's
    arguments (`out[i] = __fmul_rn(a, w)`, `vec3(__fmul_rn(x, s), ...)`: nothing to fuse it with there); a rounded sum
    counts when an argument is itself a product (`__fadd_rn(a * b, c)`). A sum of plain values (a Kahan sum without
    products) has nothing to contract."""
    if name not in ROUNDED_MULS:
        args = n.child_by_field_name("arguments")
        return args is not None and any(b"*" in a.text or b"_mul_rn" in a.text for a in args.named_children)
    child, p = n, n.parent
    while p is not None and p.type == "parenthesized_expression":
        child, p = p, p.parent
    if p is None:
        return True
    if p.type == "argument_list":
        call = p.parent
        _, outer = _call_of(call) if call is not None else (None, None)
        return outer in ROUNDED_OPS
    if p.type == "assignment_expression" and child == p.child_by_field_name("right"):
        left = p.child_by_field_name("left")
        return left is not None and left.type == "identifier"  # a local the code goes on to use
    return True


def _call_of(call: ts.Node) -> tuple[ts.Node | None, str | None]:
    """call_target for a node that may not be a call (an initializer list's parent, a macro invocation)."""
    return call_target(call) if call.type == "call_expression" else (None, None)


_RESTRICT = (b"__restrict__", b"__restrict", b"restrict")
_VALUE_TYPES = ("primitive_type", "sized_type_specifier")


@detects("declaration", "parameter_declaration", "field_declaration")
def restrict_on_value(ctx, n: ts.Node, w: Walk) -> None:
    """`__restrict__ T *dst` with `__restrict__` among the declaration's specifiers: it qualifies the pointee T,
    not the pointer. nvcc's front end (and g++ inside a template) accepts it; clang, which hipcc is, rejects it
    wherever T is a value type ("restrict requires a pointer or reference ('float' is invalid)"), at the template's
    instantiation when T is a template parameter. Counted for a built-in type and for a template type parameter of
    an enclosing template (a project typedef may name a pointer type, for which it is valid). The fix is
    `T *__restrict__ dst`."""
    if b"restrict" not in n.text or not any(c.type == "type_qualifier" and c.text in _RESTRICT for c in n.children):
        return
    declarators = [d.child_by_field_name("declarator") if d.type == "init_declarator" else d
                   for d in n.children_by_field_name("declarator")]
    if not any(d is not None and d.type in ("pointer_declarator", "reference_declarator") for d in declarators):
        return
    kind = n.child_by_field_name("type")
    if kind is None:
        return
    if kind.type not in _VALUE_TYPES and not (kind.type == "type_identifier"
                                              and kind.text in _template_type_parameters(n)):
        return
    w.clang_differs.append(("restrict-value-type", n.start_point.row + 1))


_PRODUCT_OPS = (b"*", b"/", b"*=", b"/=")


@detects("binary_expression", "assignment_expression")
def typed_products(ctx, n: ts.Node, w: Walk) -> None:
    """`a * b`, `a / b`, `a *= b` where both operands are values of one declared, non-built-in type (a parameter or
    local of type T, an element of a T array or pointer, an expression of them): recorded by the type's name, which
    kernel analysis resolves against the repository's CUDA complex types (porter.kernels.complex_types). A product
    with a built-in scalar is not recorded."""
    op = n.child_by_field_name("operator")
    if op is None or op.text not in _PRODUCT_OPS:
        return
    fn = n.parent
    while fn is not None and fn.type not in ("function_definition", "lambda_expression"):
        fn = fn.parent
    if fn is None:
        return
    cache = ctx.__dict__.setdefault("_declared_types", {})  # by the function's start, per file context
    env = cache.get(fn.start_byte)
    if env is None:
        env = cache[fn.start_byte] = _declared_types(ctx, fn)
    if not env:
        return
    left = _value_type(n.child_by_field_name("left"), env)
    if left is None or left != _value_type(n.child_by_field_name("right"), env):
        return
    w.typed_products.append((left, n.start_point.row + 1))


def _declared_types(ctx, fn: ts.Node) -> dict[bytes, tuple[str, int]]:
    """name -> (type name, pointer/array depth) of a function's parameters and locals whose type is a plain name
    that is neither built in nor a template parameter of the function."""
    skip = _template_type_parameters(fn)
    out: dict[bytes, tuple[str, int]] = {}
    for d in ctx.nodes.under(fn, ("parameter_declaration", "declaration")):
        kind = d.child_by_field_name("type")
        if kind is None or kind.type != "type_identifier" or kind.text in skip or kind.text is None:
            continue
        type_name = kind.text.decode()
        for decl in d.children_by_field_name("declarator"):
            depth = 0
            while decl is not None and decl.type != "identifier":
                if decl.type in ("pointer_declarator", "array_declarator"):
                    depth += 1
                elif decl.type not in ("init_declarator", "reference_declarator", "parenthesized_declarator"):
                    break
                decl = decl.child_by_field_name("declarator") if decl.type != "reference_declarator" else (
                    decl.named_children[0] if decl.named_children else None)
            if decl is not None and decl.type == "identifier" and decl.text is not None:
                out[decl.text] = (type_name, depth)
    return out


def _value_type(e: ts.Node | None, env: dict[bytes, tuple[str, int]]) -> str | None:
    """The declared type name of an expression's value, where the walk can tell (None otherwise)."""
    from porter.kernels.complex_types import COMPLEX_MAKERS

    while e is not None and e.type == "parenthesized_expression" and e.named_children:
        e = e.named_children[0]
    if e is None:
        return None
    if e.type == "identifier":
        got = env.get(e.text or b"")
        return got[0] if got is not None and got[1] == 0 else None
    if e.type == "subscript_expression":
        arg = e.child_by_field_name("argument")
        if arg is not None and arg.type == "identifier":
            got = env.get(arg.text or b"")
            return got[0] if got is not None and got[1] == 1 else None
        return None
    if e.type == "pointer_expression" and e.child_by_field_name("operator") is not None and \
            e.child_by_field_name("operator").text == b"*":
        arg = e.child_by_field_name("argument")
        got = env.get(arg.text or b"") if arg is not None and arg.type == "identifier" else None
        return got[0] if got is not None and got[1] == 1 else None
    if e.type == "binary_expression":
        op = e.child_by_field_name("operator")
        if op is None or op.text not in (b"+", b"-", b"*", b"/"):
            return None
        # a product or sum with a real scalar keeps the other operand's type
        return _value_type(e.child_by_field_name("left"), env) or _value_type(e.child_by_field_name("right"), env)
    if e.type == "call_expression":
        f = e.child_by_field_name("function")
        return COMPLEX_MAKERS.get(f.text.decode()) if f is not None and f.type == "identifier" and f.text else None
    return None


_BALLOT_TEXT = re.compile(b"|".join(re.escape(b.encode()) for b in sorted(BALLOTS)))


@detects("declaration")
def ballot_in_32_bits(ctx, n: ts.Node, w: Walk) -> None:
    """A ballot or active mask kept in a 32-bit integer (HIP returns 64 bits)."""
    if not _BALLOT_TEXT.search(n.text):  # no ballot named in the declaration, so in none of its values
        return
    ty = n.child_by_field_name("type")
    if ty is None:
        return
    tytext = " ".join(ty.text.decode().split())
    if tytext not in ("unsigned", "unsigned int", "uint32_t", "int", "uint", "std::uint32_t", "int32_t"):
        return
    for d in n.children:
        if d.type != "init_declarator":
            continue
        value = d.child_by_field_name("value")
        if value is None or not _BALLOT_TEXT.search(value.text):  # no ballot named: no identifier to look at
            continue
        names = {unqualified(c.text.decode()) for c in walk(value, ("identifier",))}
        hit = names & BALLOTS
        if hit:
            w.ballot32.append(Ballot32(d.start_point.row + 1, tytext, sorted(hit)[0]))


# A 32-bit integer type: a lane mask kept in one holds lanes 0-31 only.
_INT32_TYPES = frozenset({"unsigned", "unsigned int", "uint32_t", "int", "uint", "std::uint32_t", "int32_t"})
# A lane index by its name (`lane`, `laneId`, `warpLane`, `lane_id`): the thread's place in its wavefront.
_LANE_NAME = re.compile(rb"(?i)lane")
# A lane index the code keeps below 32 (`lane = threadIdx.x % 32`, `& 31`): a 32-bit mask holds every such lane.
_BELOW_32 = rb"\s*=[^;]*(?:%\s*32\b|&\s*(?:31|0[xX]1[fF])\b)"
# An integer literal of type int or unsigned int (C++ [lex.icon]: no l/ll suffix): `1 << lane` shifts 32 bits.
_INT_LITERAL = re.compile(rb"(?:0[xX][0-9a-fA-F]+|\d+)[uU]?")


@detects("declaration")
def lane_shift_in_32_bits(ctx, n: ts.Node, w: Walk) -> None:
    """A lane mask made by shifting by the lane index in 32 bits: `unsigned int bit = v << warpLane`, or `1 <<
    lane` (an int shifted) in any declaration. On a 64-lane wavefront lanes 32-63 shift a 32-bit value by 32 or
    more, which C++ leaves undefined ([expr.shift]); recorded as a 32-bit lane mask (Ballot32, op `<< lane`). A
    lane the function keeps below 32 (`lane = tid % 32`) is not one."""
    if b"<<" not in n.text or _LANE_NAME.search(n.text) is None:
        return
    ty = n.child_by_field_name("type")
    tytext = " ".join(ty.text.decode().split()) if ty is not None and ty.text else ""
    for d in n.children:
        value = d.child_by_field_name("value") if d.type == "init_declarator" else None
        if value is None or b"<<" not in value.text:
            continue
        for e in walk(value, ("binary_expression",)):
            op, left, right = (e.child_by_field_name(x) for x in ("operator", "left", "right"))
            if op is None or op.type != "<<" or left is None or right is None or right.type != "identifier" \
                    or _LANE_NAME.search(right.text) is None:
                continue
            literal = left.type == "number_literal" and _INT_LITERAL.fullmatch(left.text) is not None
            if tytext not in _INT32_TYPES and not literal:
                continue
            if _bounded_below_32(n, right.text):
                continue
            # the shift is done in the literal's own type (int) whatever the declaration's, else in the declared one
            shifted = (f"{left.text.decode()} << {right.text.decode()}", "int") if literal else (
                f"<< {right.text.decode()}", tytext)
            w.ballot32.append(Ballot32(d.start_point.row + 1, shifted[1], shifted[0]))
            break


def _bounded_below_32(n: ts.Node, name: bytes) -> bool:
    """Whether the function around `n` sets `name` below 32 (`lane = threadIdx.x & 31`)."""
    fn = _function_of(n)
    text = fn.text if fn is not None and fn.text is not None else n.text
    return re.search(rb"\b" + re.escape(name) + _BELOW_32, text) is not None


@detects("declaration")
def lane_variables(ctx, n: ts.Node, w: Walk) -> None:
    """Variables initialised with a lane expression (`int lane = threadIdx.x % 32`), for lane_array_index."""
    text = n.text
    if b"%" not in text and b"&" not in text and b"lane" not in text:  # what any lane expression (lane_expr) has
        return
    for d in n.children:
        if d.type == "init_declarator":
            name_node = d.child_by_field_name("declarator")
            value = d.child_by_field_name("value")
            if name_node is not None and value is not None and lane_expr(value):
                w.lane_vars.add(name_node.text.decode())


def call_target(n: ts.Node) -> tuple[ts.Node | None, str | None]:
    """A call's function node and, unless it is a member call (`g.sync()`), its unqualified name."""
    fn = n.child_by_field_name("function")
    if fn is None:
        return None, None
    if fn.type == "template_function":
        fn = fn.child_by_field_name("name") or fn
    if fn.type == "field_expression":
        return fn, None
    return fn, unqualified(fn.text.decode("utf-8", "replace"))


def _arguments(n: ts.Node) -> list[ts.Node]:
    args = n.child_by_field_name("arguments")
    return [a for a in (args.named_children if args is not None else []) if a.type != "comment"]


@detects("call_expression")
def device_launches(ctx, n: ts.Node, w: Walk) -> None:
    """`k<<<...>>>` inside device code: dynamic parallelism."""
    if b"<<<" in n.text and any(c.type == "kernel_call_syntax" for c in n.children):
        w.device_launches.append(n.start_point.row + 1)


@detects("call_expression", calls=lambda name: name is None)
def member_callees(ctx, n: ts.Node, w: Walk) -> None:
    """Member calls on an object of a declared class type (`acc.get(x, y)`, `tex[i].get_lod(..)`), as the member
    they run (`Surface.get`: porter.kernels.member_calls), to follow into that class's member function."""
    fn, _ = ctx.called(n)
    key = member_call_key(fn, ctx.declarations) if fn is not None else None
    if key is not None:
        w.calls.add(key)
        w.call_sites.append((key, n.start_point.row + 1))


@detects("expression_statement")
def macro_statements(ctx, n: ts.Node, w: Walk) -> None:
    """A statement that is a bare name (`cp_async_wait_all;`) does nothing in C++ unless the name is an object-like
    macro, which the preprocessor expands there: a call of it, followed like one into an asm macro
    (porter.kernels.asm_macros) the kernel's includes define (QGEMM's cp.async PTX, heldout39)."""
    kids = n.named_children
    if len(kids) == 1 and kids[0].type == "identifier":
        name = kids[0].text.decode("utf-8", "replace")
        w.calls.add(name)
        w.call_sites.append((name, n.start_point.row + 1))


@detects("binary_expression", "assignment_expression")
def operator_callees(ctx, n: ts.Node, w: Walk) -> None:
    """Operators applied to an object of a declared class type (`a * b`, `acc += x` on FFP values), as the member
    they run (`FFP.operator*`: porter.kernels.member_calls.operator_expression_key), followed as a member call is: a
    kernel whose arithmetic is a class's overloaded operators does what their bodies do (cuFHE's prime-field
    operators call Add/Mul members written in inline PTX; issue 27 class 2)."""
    key = operator_expression_key(n, ctx.declarations)
    if key is not None:
        w.calls.add(key)
        w.call_sites.append((key, n.start_point.row + 1))


@detects("call_expression", calls=lambda name: name is not None)
def callees(ctx, n: ts.Node, w: Walk) -> None:
    """Names the body calls, to follow into same-file device functions."""
    fn, name = ctx.called(n)
    if name is not None:
        w.calls.add(name)
        # `rgb()` on a parameter `const RGBResidual rgb` runs RGBResidual::operator()
        functor = operator_call_key(fn, ctx.declarations) if fn.type == "identifier" else None
        if functor is not None:
            w.calls.add(functor)
            w.call_sites.append((functor, n.start_point.row + 1))
        elif fn.type == "identifier" and (param := template_functor_key(fn, ctx.declarations)) is not None:
            # `kernel()` on a parameter of template type T: T::operator(), which the kernel's launches bind (a
            # functor kernel launched `merge<<<n, b>>>(*this)` from its class: porter.source.syntax._this_class)
            w.call_sites.append((param, n.start_point.row + 1))
        # `ns::f<T, 4>` is called as `ns::f`, and `WarpReduce<>::atomicMax` as `WarpReduce::atomicMax` (cutting
        # at the first `<` named the class template instead of its member)
        text = _without_template_args(fn.text.decode("utf-8", "replace"))
        # `Op{}(a, b)` / `GridReducer<T, op>{}(...)` runs the class's `operator()` (kernel analysis binds a template
        # parameter to the class the launch names: porter.kernels.callgraph.bound_functor_calls)
        kind = fn.child_by_field_name("type") if fn.type == "compound_literal_expression" else None
        if kind is not None:
            text = _without_template_args(kind.text.decode("utf-8", "replace")) + "::operator()"
        w.call_sites.append(("".join(_TEMPLATE_KEYWORD.sub("::", text).split()), n.start_point.row + 1))


# `FD::template mul<N>(x, y)`: the disambiguating `template` keyword of a dependent member template call is no part
# of the callee's name (dropping the spaces alone made it `FD::templatemul`, a name nothing defines).
_TEMPLATE_KEYWORD = re.compile(r"::\s*template\b\s*")


def _without_template_args(text: str) -> str:
    """`text` with its balanced `<...>` template argument lists removed (an unbalanced tail is cut)."""
    out, depth = [], 0
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out)


@detects("call_expression", calls=WARP_OPS.__contains__)
def warp_operations(ctx, n: ts.Node, w: Walk) -> None:
    """Shuffles, votes, `__syncwarp` and their masks (a partial `__syncwarp` mask is recorded apart)."""
    _, name = ctx.called(n)
    if name not in WARP_OPS:
        return
    line = n.start_point.row + 1
    op = WarpOp(name, line)
    if name.endswith("_sync") or name == "__syncwarp":
        argv = _arguments(n)
        mask_node = argv[0] if argv else None
        mask_text = mask_node.text.decode("utf-8", "replace") if mask_node is not None else "(default: all lanes)"
        # A bare __syncwarp() syncs the whole warp or wavefront: it spells no 32-bit mask.
        value = fold(mask_node, ctx.env) if mask_node is not None else None
        kind = ("default" if mask_node is None else "full32" if value == FULL_MASK_32
                else "constant" if isinstance(value, int) else "runtime")
        op = WarpOp(name, line, mask_text, kind)
        if name == "__syncwarp" and kind not in ("full32", "default"):
            w.partial_syncwarp.append(line)
    # An explicit width (`__shfl_xor_sync(m, v, o, 32)`, `__shfl_down(v, d, THREADS_PER_WARP)`) makes a shuffle work
    # in groups of that many lanes on any wave size; 32 is a logical 32-lane shuffle (see _wave_checks).
    if name.startswith("__shfl"):
        argv = _arguments(n)
        at = 3 if name.endswith("_sync") else 2
        if len(argv) > at:
            width = fold(argv[at], ctx.env)
            if isinstance(width, int) and not isinstance(width, bool):
                op = dataclasses.replace(op, width=width)
            else:
                op = dataclasses.replace(op, width_text=" ".join(argv[at].text.decode("utf-8", "replace").split()))
        # The lane offset of a xor/down/up shuffle: at most 16 keeps a xor or down shuffle inside its 32-lane half
        # of a wave64 (a logical 32-lane warp, see _wave_checks).
        if any(k in name for k in ("xor", "down", "up")) and len(argv) > at - 1:
            offset = fold(argv[at - 1], ctx.env)
            if isinstance(offset, int) and not isinstance(offset, bool):
                op = dataclasses.replace(op, offset=offset)
    w.warp_ops.append(op)


@detects("call_expression", calls=lambda name: name is not None and name not in WARP_OPS
         and (name.startswith("atomic") or name == "atomic_ref"))
def atomics(ctx, n: ts.Node, w: Walk) -> None:
    _, name = ctx.called(n)
    if name is not None and name not in WARP_OPS and (name.startswith("atomic") or name == "atomic_ref"):
        w.atomics.append(name)


@detects("call_expression", calls=lambda name: name in (None, "grid_sync", "sync"))
def grid_sync_calls(ctx, n: ts.Node, w: Walk) -> None:
    """`grid.sync()`, `grid_sync()`, `sync(grid)`: grid-wide synchronisation (cooperative launch)."""
    fn, name = ctx.called(n)
    if fn is None:
        return
    if name is None:
        field = fn.child_by_field_name("field")
        obj = fn.child_by_field_name("argument")
        if field is not None and field.text == b"sync" and obj is not None and "grid" in obj.text.decode().lower():
            w.grid_sync.append(n.start_point.row + 1)
        return
    if name in WARP_OPS or name.startswith("atomic") or name == "atomic_ref":
        return
    if name == "grid_sync" or (name == "sync" and (argv := _arguments(n)) and "grid" in argv[0].text.decode().lower()):
        w.grid_sync.append(n.start_point.row + 1)


@detects("call_expression", calls=lambda name: name == "tiled_partition")
def tiled_partition_32(ctx, n: ts.Node, w: Walk) -> None:
    """`tiled_partition<32>`: a 32-lane group written into the code."""
    _, name = ctx.called(n)
    if name != "tiled_partition":
        return
    targs = n.child_by_field_name("function")
    if targs is not None and targs.type == "template_function" and b"32" in targs.text:
        w.lane.append(LaneAssumption(n.start_point.row + 1, "tiled_partition<32>", targs.text.decode()))


@detects("gnu_asm_expression")
def inline_ptx(ctx, n: ts.Node, w: Walk) -> None:
    """Inline PTX statements and their instruction families (AMD GCN assembly is not PTX)."""
    ptx = ptx_statement(n)
    if ptx["families"] and not amdgcn(ptx):
        w.ptx.append(ptx)


@detects("binary_expression")
def lane_literals(ctx, n: ts.Node, w: Walk) -> None:
    """Lane arithmetic written with 32 (`tid % 32`, `lane & 31`, `tid / 32`), or with a warp-size constant the
    project defines as 32 (`tid % WARP_SIZE` under `#define WARP_SIZE 32` in a header)."""
    op = n.child_by_field_name("operator")
    if op is None or op.type not in LANE_VALUES:  # neither reads any other operator: most of a body's arithmetic
        return
    lane = lane_literal(n) or lane_constant(ctx, n)
    if lane:
        w.lane.append(LaneAssumption(n.start_point.row + 1, lane, n.text.decode("utf-8", "replace")))


@detects("for_statement")
def reduction_loops(ctx, n: ts.Node, w: Walk) -> None:
    """Shuffle-reduction loops that start at 16 (`for (o = 16; o > 0; o >>= 1)`): five steps cover 32 lanes only."""
    if b"__shfl" not in n.text:  # no shuffle in the loop, so none in its body (reduction_loop asks the body)
        return
    red = reduction_loop(n, ctx)
    if red:
        w.lane.append(LaneAssumption(n.start_point.row + 1, red, first_line(n)))



def _in_cuda_ns(n: ts.Node) -> bool:
    p = n.parent
    return p is not None and p.type == "qualified_identifier" and p.text.decode().startswith(("cuda::", "::cuda::"))


_CONST_CONTEXTS = {"array_declarator", "template_argument_list", "static_assert_declaration", "enumerator", "case_statement",
                   "preproc_def"}


def _constant_context(n: ts.Node) -> bool:
    """Whether an identifier sits where C++ needs a constant: array bound, template argument, static_assert, constexpr."""
    p = n.parent
    while p is not None and p.type not in ("compound_statement", "function_definition", "translation_unit",
                                           "expression_statement", "for_statement", "if_statement"):
        if p.type in _CONST_CONTEXTS:
            if p.type == "array_declarator" and n.start_byte < (p.child_by_field_name("size") or p).start_byte:
                return False
            return True
        if p.type == "declaration" and any(c.type == "type_qualifier" and c.text == b"constexpr" for c in p.children):
            return True
        p = p.parent
    return False


# A statement's container: a block, the file, or an `#if` arm holding it (whose first line is the directive).
_STATEMENT_HOLDERS = frozenset({"compound_statement", "translation_unit"}) | CONDITIONAL_NODE_TYPES


def _stmt_text(n: ts.Node) -> str:
    p, up = n, n.parent
    while up is not None and up.type not in _STATEMENT_HOLDERS:
        p, up = up, up.parent
    return first_line(p)


def first_line(n: ts.Node) -> str:
    return n.text.decode("utf-8", "replace").split("\n")[0].strip()[:160]


# Warp-synchronous shared-memory reduction steps (the CUDA SDK's reduction tail, written before Volta): the last
# steps of a tree reduction, offsets 32 (or 16) down to 1, run with no barrier between them because the threads left
# sit in one warp. Correct only while every step's store reaches shared memory before the next step's loads, which
# nothing but `volatile` promises: without it the compiler may keep `s[tid]` in a register across the steps
# (C++ lets it: no other thread is assumed to write) and the neighbours read stale partial sums. clang, which hipcc
# is, does (store sinking at -O3); the tail needs volatile or a barrier per step on AMD (issue 27: heldout17's TeaLeaf
# `reduce` template, heldout20's ramsesGPU minmax tail, heldout10's abacus tail judged fix; the volatile tails of
# InfiniTAM, Splatt3R-SLAM, cholla, hyperdrive judged ok: lanes 0-31 lie in one wavefront, which runs in lockstep).
WARP_SYNC_SHARED = "warp-sync-shared"  # the KernelFacts.clang_differs kind (rules/kb/kernel_checks.yaml)
_TAIL_GUARD = re.compile(rb"^\(\s*(?:threadIdx\s*\.\s*x|[A-Za-z_]*(?:tid|Tid|TID|lane|Lane|thread_?[Ii]d\w*)\w*)\s*"
                         rb"(?:<\s*32|<=\s*31)\s*\)$")
# The step's guard on the offset: `if (offset > 16) __syncthreads();` syncs only while the step leaves the warp.
_STEP_GUARD = re.compile(rb"^\(\s*([A-Za-z_]\w*)\s*(?:>\s*(?:16|32)|>=\s*(?:32|64))\s*\)$")
_BARRIER_CALL = re.compile(rb"\b(?:__syncthreads\w*|__syncwarp|sync|barrier\w*|__threadfence_block)\s*\(")
_STEP_OFFSETS = (b"32", b"16", b"8", b"4", b"2", b"1")


def _function_of(n: ts.Node) -> ts.Node | None:
    """The function definition around `n`, or None."""
    p = n.parent
    while p is not None and p.type != "function_definition":
        p = p.parent
    return p


def _volatile_name(ctx, fn: ts.Node, name: bytes) -> bool | None:
    """Whether `name` is declared volatile (`volatile float *s`, `volatile __shared__ T s[]`) in the function or,
    failing that, the file; None when no declaration of it is found (nothing then is claimed)."""
    decl = re.compile(rb"([^;{}()\n,]{0,120})\b" + re.escape(name) + rb"\s*(?:\[|[;=,)])")
    for text in (fn.text, bytes(ctx.sf.code)):
        found = [m.group(1) for m in decl.finditer(text)
                 if re.search(rb"[A-Za-z_]\w*[\s*&]*$", m.group(1)) and not re.search(rb"[=+\-/%<>!]\s*$", m.group(1))]
        found = [f for f in found if re.search(rb"\b(?:volatile|__shared__|extern|float|double|int|unsigned|auto|const"
                                               rb"|[A-Z]\w*|\w+_t|T|real\w*)\b", f)]
        if found:
            return any(b"volatile" in f for f in found)
    return None


def _bare_barrier_macro(ctx, name: bytes) -> bool:
    """Whether every `#define NAME` of the file expands to a barrier (`#define SYNC __syncthreads()`): a bare
    `NAME;` statement then syncs. ramsesGPU's EMUSYNC, a barrier only under __DEVICE_EMULATION__ and empty
    otherwise, is not one."""
    bodies = re.findall(rb"(?m)^[ \t]*#[ \t]*define[ \t]+" + re.escape(name) + rb"\b(.*)$", bytes(ctx.sf.code))
    return bool(bodies) and all(_BARRIER_CALL.search(b) for b in bodies)


@detects("if_statement")
def warp_sync_shared(ctx, n: ts.Node, w: Walk) -> None:
    """A warp-synchronous reduction tail on shared memory no `volatile` qualifies (WARP_SYNC_SHARED), in either
    spelling: `if (tid < 32) { s[tid] += s[tid + 16]; s[tid] += s[tid + 8]; ... }` (or the same steps through a macro,
    `REDUCE(s, tid, 16)`) with no barrier between them, or a recursive step whose only barrier is skipped once the
    step fits in a warp (`if (offset > 16) __syncthreads();` beside `a[threadIdx.x + offset]`)."""
    cond = n.child_by_field_name("condition")
    body = n.child_by_field_name("consequence")
    if (body is None or not body.text.strip()) and n.parent is not None and n.parent.type in CONDITIONAL_NODE_TYPES:
        # `#ifndef __DEVICE_EMULATION__ / if (tid < 32) / #endif / { ... }` (ramsesGPU): the guard alone in the arm,
        # its block after the #endif
        after = n.parent.next_named_sibling
        body = after if after is not None and after.type == "compound_statement" else None
    if cond is None or body is None:
        return
    fn = _function_of(n)
    if fn is None:
        return
    m = _STEP_GUARD.match(cond.text)
    if m is not None:
        if not _BARRIER_CALL.search(body.text) or body.text.count(b";") != 1:
            return
        step = re.escape(m.group(1))
        reads = re.finditer(rb"\b([A-Za-z_]\w*)\s*\[[^\[\]]{0,120}\+\s*" + step + rb"\s*\]", fn.text)
        names = {r.group(1) for r in reads}
        if names and all(_volatile_name(ctx, fn, a) is False for a in names):
            w.clang_differs.append((WARP_SYNC_SHARED, n.start_point.row + 1))
        return
    if _TAIL_GUARD.match(cond.text) is None:
        return
    text = body.text
    if _BARRIER_CALL.search(text):
        return
    for s in re.finditer(rb"(?:^|[;{}])\s*([A-Za-z_]\w*)\s*;", text):
        if _bare_barrier_macro(ctx, s.group(1)):
            return
    # the steps: `A[... + K]` reads, or calls passing the array and a literal offset (`REDUCE(A, tid, K)`)
    arrays: set[bytes] = set()
    offsets: set[bytes] = set()
    for r in re.finditer(rb"\b([A-Za-z_]\w*)\s*\[[^\[\]]{0,120}\+\s*(\d+)\s*\]", text):
        if r.group(2) in _STEP_OFFSETS:
            arrays.add(r.group(1))
            offsets.add(r.group(2))
    for r in re.finditer(rb"\b[A-Za-z_]\w*\s*\(\s*([A-Za-z_]\w*)\s*,[^;()]{0,120},\s*(\d+)\s*\)", text):
        if r.group(2) in _STEP_OFFSETS:
            arrays.add(r.group(1))
            offsets.add(r.group(2))
    if len(offsets) < 2 or not arrays:
        return
    if all(_volatile_name(ctx, fn, a) is False for a in arrays):
        w.clang_differs.append((WARP_SYNC_SHARED, n.start_point.row + 1))
