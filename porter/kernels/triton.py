"""Triton kernels in Python files: find the `@triton.jit` functions, measure what matters for them on AMD, and find
their `kernel[grid](...)` launch sites.

A Triton kernel is a `@triton.jit` function (under `@triton.autotune` / `@triton.heuristics` or not) that the file
does not only call from another jit function (those are helpers, inlined into their callers: their facts count as
the caller's, like a CUDA kernel's `__device__` functions). Measured from the tree-sitter Python tree: the
`tl.constexpr` parameters (BLOCK_M, BLOCK_N, ...), each autotune `triton.Config`'s meta-parameters and
num_warps / num_stages / num_ctas (literals, or the literal lists a comprehension runs over; a config list named by
a module-level variable or built by a same-file function is followed), the launches' keywords, `tl.dot` calls with
their (M, N, K) block names and sizes and input precision, atomics, FP8 dtypes, inline assembly, `tl.extra.cuda`,
and TMA / tensor descriptors. Kernel analysis judges them per target (porter.kernels.checks, the triton-* checks).

Only files that mention `triton` (or `num_warps`, for a wrapper module that only launches) are looked at: the
pipeline checks the token before calling in, so a scan of code without Triton pays nothing.
"""
from __future__ import annotations

import dataclasses
import itertools
import re
from typing import Iterable

from porter.model.kernel import (DeviceFunction, Kernel, KernelFacts, Launch, TritonConfig, TritonDot, TritonFacts,
                                 TritonHelper, TritonUse, Unresolved)
from porter.source.parse import SourceFile
from porter.source.parse_queries import descendants

# Launch and Config keywords that tune the kernel rather than pass it an argument; the last three exist only in
# the AMD backend, so a config that sets one was tuned for AMD.
TUNING = ("num_warps", "num_stages", "num_ctas", "waves_per_eu", "matrix_instr_nonkdim", "kpack")
AMD_OPTIONS = frozenset({"waves_per_eu", "matrix_instr_nonkdim", "kpack"})
# OCP FP8 (what NVIDIA runs) and the FNUZ variants CDNA3 runs natively.
FP8_OCP = frozenset({"float8e4nv", "float8e5"})
FP8_FNUZ = frozenset({"float8e4b8", "float8e5b16"})
FP8_OTHER = frozenset({"float8e4b15"})
# Host-created TMA descriptors (the CUDA driver's cuTensorMapEncode) and the device-side tensormap builders.
HOST_TMA = frozenset({"_experimental_descriptor_load", "_experimental_descriptor_store",
                      "experimental_device_tensormap_create1d", "experimental_device_tensormap_create2d",
                      "tensormap_fenceproxy_acquire", "_experimental_tensormap_fenceproxy_acquire"})
TENSOR_DESCRIPTOR = frozenset({"make_tensor_descriptor", "_experimental_make_tensor_descriptor",
                               "load_tensor_descriptor", "store_tensor_descriptor"})
_TL_PREFIXES = ("tl", "triton.language", "language", "tl.core", "triton.language.core")
# Triton 2.0's `tl.libdevice` namespace (NVIDIA's libdevice.10.bc): renamed tl.math in 2.1 and later moved to
# triton.language.extra.libdevice, so no Triton release with an AMD backend has it (AttributeError when the kernel
# compiles). https://github.com/triton-lang/triton/pull/562, https://github.com/triton-lang/triton/pull/1368
_LEGACY_LIBDEVICE = frozenset({"tl.libdevice", "triton.language.libdevice"})
# Triton 3.0 keeps only these in tl.math (built-ins every backend lowers); the libdevice functions Triton 2.1-2.3
# also put there (tl.math.tanh, tl.math.pow, tl.math.fast_expf, ...) moved to triton.language.extra.libdevice, which
# the AMD backend maps to its own libdevice. Every Triton with a gfx950 or gfx1250 backend is 3.x, so
# `tl.math.tanh(x)` is an AttributeError when the kernel compiles. The last names (cdiv ... min) live in
# triton.language's standard library; left out of the check, not claimed absent.
# https://github.com/triton-lang/triton/blob/main/python/triton/language/math.py;
# https://triton-lang.org/main/python-api/triton.language.html (Math Ops)
TL_MATH_CORE = frozenset({"umulhi", "exp", "exp2", "fma", "log", "log2", "cos", "rsqrt", "sin", "sqrt", "sqrt_rn",
                          "abs", "fdiv", "div_rn", "erf", "floor", "ceil",
                          "cdiv", "sigmoid", "softmax", "maximum", "minimum", "clamp", "max", "min"})
_TL_MATH = frozenset({"tl.math", "triton.language.math"})
_BLOCK_NAME = re.compile(r"(?i)^(?:BLOCK|TILE)(?:_?SIZE)?_?([MNK])$")
_FROM_TRITON_JIT = re.compile(rb"^[^\S\n]*from\s+triton\s+import\s+[^\n]*\bjit\b", re.M)
_FROM_TRITON_AUTOTUNE = re.compile(rb"^[^\S\n]*from\s+triton\s+import\s+[^\n]*\bautotune\b", re.M)
# triton.autotune's parameters after `key` changed order: Triton 2.1 had autotune(configs, key, prune_configs_by=None,
# reset_to_zero=None, warmup=25, rep=100); Triton 2.2 put restore_value (then pre_hook, post_hook) fifth, before
# warmup and rep (https://github.com/triton-lang/triton/blob/v2.1.0/python/triton/runtime/autotuner.py;
# https://triton-lang.org/main/python-api/generated/triton.autotune.html). A call passing more than four arguments by
# position means 2.1's warmup/rep and now sets restore_value to an int: Autotuner.__init__ iterates it (TypeError at
# import). Every Triton with an AMD backend for gfx942/gfx950/gfx1250 is 2.2 or later.
AUTOTUNE_POSITIONAL_MAX = 4
_AUTOTUNE_MODULES = frozenset({"triton", "triton.runtime", "triton.runtime.autotuner"})
# Imports from the CUDA backend's language extras: Triton's own `triton.language.extra.cuda`, and the same namespace
# in a package that extends Triton's language (`<package>.language.extra.cuda`, e.g. a distributed-Triton package's
# PTX wrappers tid/ld/st), which are CUDA-only in the same way (issue 27, heldout11). A parenthesised name list may
# span lines.
_CUDA_EXTRA_MODULE = r"(?:\w+\.)*language\.extra\.cuda(?:\.\w+)*"
_CUDA_EXTRA_IMPORT = re.compile(
    r"^[^\S\n]*from\s+" + _CUDA_EXTRA_MODULE + r"\s+import\s+(?:\((?P<group>[^)]*)\)|(?P<names>[^\n#]+))"
    r"|^[^\S\n]*import\s+" + _CUDA_EXTRA_MODULE + r"\s+as\s+(?P<alias>\w+)", re.M)


# The language extras' wrappers of Hopper/Blackwell PTX, by a word of their name (`tma_load_2d`, `mbarrier_expect_tx`,
# `cp_async_bulk_commit_group`, `tensormap_...`): the same features as in CUDA C (porter.kernels.checks,
# hopper-blackwell-ptx), which have no counterpart on AMD, so a kernel on them is a rewrite, not a rename to the HIP
# extras (issue 27, heldout11: Triton-distributed's TMA pipeline).
_HOPPER_EXTRA = re.compile(r"(?:^|_)(?P<family>tma|mbarrier|wgmma|tcgen05|tensormap|cp_async_bulk)(?:_|$)")


def hopper_extra(name: str) -> str | None:
    """The Hopper/Blackwell feature a language-extras name (`tma_load_2d`, `tl.extra.cuda.mbarrier_arrive`) wraps:
    tma, mbarrier, wgmma, tcgen05 or cp.async.bulk (a tensormap is TMA's); None for any other name."""
    m = _HOPPER_EXTRA.search(name.rsplit(".", 1)[-1])
    if m is None:
        return None
    family = m.group("family")
    return {"tensormap": "tma", "cp_async_bulk": "cp.async.bulk"}.get(family, family)


def measure_python(sf: SourceFile) -> tuple[list[Kernel], list[Launch]]:
    """The Triton kernels of a parsed Python file with their facts, and the file's Triton launch sites."""
    kernels, launches, _ = measure_python_file(sf)
    return kernels, launches


def measure_python_file(sf: SourceFile) -> tuple[list[Kernel], list[Launch], list[TritonHelper]]:
    """measure_python, and the file's jit functions as kernels in other modules that import them see them
    (porter.kernels.triton_imports)."""
    if sf.root is None or (b"triton" not in sf.data and b"num_warps" not in sf.data):
        return [], [], []
    f = _File(sf)
    kernels, launches = f.measure()
    return kernels, launches, f.exported


def with_remote_launches(facts: TritonFacts, kernel: Kernel, launches: Iterable[Launch]) -> TritonFacts:
    """A Triton kernel's facts with the launches of it written in other files (their keywords as the Launch's
    config records them: `num_warps=8`, `num_warps<=32`), so a wrapper module's num_warps reaches the kernel's
    verdict. Replaces what an earlier analysis set."""
    remote = []
    for l in launches:
        if l.kind != "triton" or l.path == kernel.path:
            continue
        kw = dict(item.split("=", 1) for item in l.config[1:] if "=" in item and "<=" not in item)
        bound = [item.split("<=", 1)[1] for item in l.config[1:] if item.startswith("num_warps<=")]
        branch = [item.split("<=", 1)[1] for item in l.config[1:] if item.startswith("num_warps?<=")]
        warps = _literal_ints(kw.get("num_warps")) or _literal_ints(bound[0] if bound else None)
        cfg = TritonConfig(l.line, num_warps=warps or _literal_ints(branch[0] if branch else None),
                           num_stages=_literal_ints(kw.get("num_stages")), num_ctas=_literal_ints(kw.get("num_ctas")),
                           amd_options=tuple(sorted(k for k in kw if k in AMD_OPTIONS)), path=l.path,
                           branch=not warps and bool(branch), arch=kw.get(ARCH_KEY))
        if cfg.num_warps or cfg.num_stages or cfg.num_ctas or cfg.amd_options or cfg.arch:
            remote.append(cfg)
    return dataclasses.replace(facts, remote_launches=tuple(sorted(remote, key=lambda c: (c.path or "", c.line))))


# A Launch's config item that records the NVIDIA-generation test a num_warps local was chosen by (`num_warps@arch=
# IS_HOPPER_GPU`), for launches in other files (with_remote_launches).
ARCH_KEY = "num_warps@arch"
# A name that tests the NVIDIA generation: a Hopper/Ampere/... flag or helper, an `sm_90`-style architecture, the
# compute capability. ROCm's torch answers such tests for NVIDIA's numbering (get_device_capability is (9, 4) on
# gfx942, so `major == 9` reads Hopper), so the choice it makes is an NVIDIA one on AMD too.
_NVIDIA_ARCH = re.compile(r"\b\w*(?:hopper|ampere|blackwell|volta|turing|lovelace|capability|cuda_arch|sm_?[5-9]\d|"
                          r"sm_?1[0-2]\d)\w*\b", re.IGNORECASE)


def _literal_ints(text: str | None) -> tuple[int, ...]:
    return (int(text),) if text is not None and text.strip().isdigit() else ()


def _text(node) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def _dotted(node) -> str:
    return "".join(_text(node).split())


def _last(dotted: str) -> tuple[str, str]:
    """('tl', 'dot') for 'tl.dot'; ('', 'dot') for 'dot'."""
    head, _, tail = dotted.rpartition(".")
    return head, tail


def _walk(node, types: frozenset[str]) -> list:
    """`node` and the nodes under it of `types`, in pre-order (porter.source.parse_queries.descendants on Python trees)."""
    return descendants(node, tuple(sorted(types)), lang="python")


def _string_value(node) -> str | None:
    if node is None or node.type != "string":
        return None
    return "".join(_text(c) for c in node.children if c.type == "string_content")


class _File:
    """One Python file's Triton kernels: decorated definitions, module-level names, launches."""

    def __init__(self, sf: SourceFile):
        self.sf = sf
        self.root = sf.root
        self.bare_jit = bool(_FROM_TRITON_JIT.search(sf.data))
        self.cuda_aliases = self._cuda_extra_aliases()
        self.module_names: dict[str, object] = {}  # top-level `NAME = <expr>` (last one wins)
        self.module_ints: dict[str, int] = {}
        self.functions: dict[str, object] = {}  # every function definition by name (the first one)
        for n in self.root.children:
            if n.type == "expression_statement" and n.named_children and n.named_children[0].type == "assignment":
                a = n.named_children[0]
                left, right = a.child_by_field_name("left"), a.child_by_field_name("right")
                if left is not None and left.type == "identifier" and right is not None:
                    self.module_names[_text(left)] = right
                    if right.type == "integer":
                        self.module_ints[_text(left)] = _int(right)
        for f in _walk(self.root, frozenset({"function_definition"})):
            name = _text(f.child_by_field_name("name"))
            self.functions.setdefault(name, f)
        self.imports = self._import_bindings() if b"import" in sf.data else {}
        self.bare_autotune = bool(_FROM_TRITON_AUTOTUNE.search(sf.data))
        # Plain functions of the file that call triton.autotune with Triton 2.1's positional warmup/rep (a project's
        # own `autotune` decorator factory): the use each would give a kernel it decorates.
        self.autotune_wrappers: dict[str, TritonUse] = self._autotune_wrappers() if b"autotune" in sf.data else {}
        self.exported: list[TritonHelper] = []
        self._facts_of: dict[int, tuple[list[TritonDot], list[TritonUse]]] = {}

    def _import_bindings(self) -> dict[str, str]:
        """The names the file's imports bind, each with what it names: `pkg.mod` / `pkg.mod.f` for an absolute
        import, `dir/of/this/file:.mod.f` for a relative one (the leading dots as written), which
        porter.kernels.triton_imports resolves against the project's files. `import a.b` binds `a` to `a`; a star
        import binds nothing (what it brings is not written here). Triton's own modules are left out: its language
        functions are judged by name (porter.kernels.checks), and following them into Triton's source (a scan of
        Triton itself) would give every kernel the internals of the language."""
        here = self.sf.path.rsplit("/", 1)[0] if "/" in self.sf.path else ""
        out: dict[str, str] = {}
        for node in _walk(self.root, frozenset({"import_statement", "import_from_statement"})):
            if node.type == "import_statement":
                for item in node.named_children:
                    if item.type == "dotted_name":
                        out[_text(item).split(".", 1)[0]] = _text(item).split(".", 1)[0]
                    elif item.type == "aliased_import":
                        alias = item.child_by_field_name("alias")
                        if alias is not None:
                            out[_text(alias)] = _dotted(item.child_by_field_name("name"))
                continue
            module = node.child_by_field_name("module_name")
            if module is None:
                continue
            base = _dotted(module)
            if module.type == "relative_import":
                base = f"{here}:{base}"
            for item in node.children_by_field_name("name"):
                local, name = (item.child_by_field_name("alias"), item.child_by_field_name("name")) \
                    if item.type == "aliased_import" else (item, item)
                if local is None or name is None:
                    continue
                out[_text(local)] = base + ("" if base.endswith(".") else ".") + _dotted(name)
        return {k: v for k, v in out.items() if v.split(".", 1)[0] != "triton"}

    def _imported_calls(self, fn) -> list[tuple[str, int]]:
        """(import target, line) of the calls in `fn` through the file's imports: `f(...)` with `f` imported,
        `m.f(...)` / `pkg.mod.f(...)` with the leading name imported. A name the file defines itself is its own."""
        out = []
        for call in _walk(fn, frozenset({"call"})):
            f = call.child_by_field_name("function")
            if f is None or f.type not in ("identifier", "attribute"):
                continue
            dotted = _dotted(f)
            head, _, rest = dotted.partition(".")
            if head not in self.imports or head in self.functions or not all(p.isidentifier() for p in
                                                                             dotted.split(".")):
                continue
            out.append((self.imports[head] + ("." + rest if rest else ""), call.start_point.row + 1))
        return out

    def _facts(self, body) -> tuple[list[TritonDot], list[TritonUse]]:
        key = body.start_byte
        if key not in self._facts_of:
            self._facts_of[key] = self._body_facts(body, _opt_in_flags(body))
        return self._facts_of[key]

    def _cuda_extra_aliases(self) -> frozenset[str]:
        """Names bound by imports from a language.extra.cuda module (`libdevice`, `tid`, or an alias)."""
        text = self.sf.data.decode("utf-8", "replace")
        if "extra.cuda" not in text:
            return frozenset()
        out = set()
        for m in _CUDA_EXTRA_IMPORT.finditer(text):
            if m.group("alias"):
                out.add(m.group("alias"))
            else:
                names = m.group("names") or re.sub(r"#[^\n]*", "", m.group("group"))
                for part in names.strip("() \\").split(","):
                    bits = part.split()
                    if bits:
                        out.add(bits[-1])
        return frozenset(out)

    def _is_triton_autotune(self, dotted: str) -> bool:
        head, tail = _last(dotted)
        return tail == "autotune" and (head in _AUTOTUNE_MODULES or (head == "" and self.bare_autotune))

    def _positional_autotune(self, call) -> TritonUse | None:
        """The use a `triton.autotune(...)` call gives when it passes more than AUTOTUNE_POSITIONAL_MAX arguments by
        position (a `*args` splat is not counted: how many it holds is not written)."""
        f = call.child_by_field_name("function")
        args = call.child_by_field_name("arguments")
        if f is None or args is None or not self._is_triton_autotune(_dotted(f)):
            return None
        positional = [a for a in args.named_children if a.type not in ("keyword_argument", "list_splat",
                                                                         "dictionary_splat", "comment")]
        if len(positional) <= AUTOTUNE_POSITIONAL_MAX:
            return None
        return TritonUse("autotune-positional", _dotted(f), call.start_point.row + 1)

    def _autotune_wrappers(self) -> dict[str, TritonUse]:
        out: dict[str, TritonUse] = {}
        for name, fn in self.functions.items():
            for call in _walk(fn, frozenset({"call"})):
                use = self._positional_autotune(call)
                if use is not None:
                    out[name] = use
                    break
        return out

    def _decorator_autotune(self, dname: str, expr, line: int) -> tuple[list[TritonUse], list[tuple[str, int]]]:
        """What an `@...autotune(...)` decorator gives its kernel: triton.autotune itself with positional warmup/rep,
        a same-file wrapper that calls it so, or (import target, line) of a wrapper another module defines, which
        porter.kernels.triton_imports resolves like a call into an imported jit function."""
        if self._is_triton_autotune(dname):
            use = self._positional_autotune(expr)
            return ([TritonUse(use.kind, use.name, line)] if use is not None else []), []
        if dname in self.autotune_wrappers:
            use = self.autotune_wrappers[dname]
            return [TritonUse(use.kind, use.name, line)], []
        head, _, rest = dname.partition(".")
        if head in self.imports and head not in self.functions and all(p.isidentifier() for p in dname.split(".")):
            return [], [(self.imports[head] + ("." + rest if rest else ""), line)]
        return [], []

    # ------------------------------------------------------------------------------------------ kernels

    def measure(self) -> tuple[list[Kernel], list[Launch]]:
        jitted: dict[str, tuple[object, object, list[tuple[str, object]]]] = {}
        defined: dict[str, int] = {}
        # static-method jit functions by class-qualified name (`GELU.forward`), each definition
        methods: dict[str, list[tuple[object, object, list[tuple[str, object]]]]] = {}
        # A wrapper module that only launches (`k[grid](..., num_warps=8)`) need not say `triton`.
        for d in _walk(self.root, frozenset({"decorated_definition"})) if b"triton" in self.sf.data else ():
            fn = d.child_by_field_name("definition")
            if fn is None or fn.type != "function_definition":
                continue
            decorators = [(self._decorator_name(c), c) for c in d.children if c.type == "decorator"]
            if not any(self._is_jit(name) for name, _ in decorators):
                continue
            name = _text(fn.child_by_field_name("name"))
            jitted.setdefault(name, (d, fn, decorators))
            defined[name] = defined.get(name, 0) + 1
            owner = _enclosing_class(d)
            if owner is not None:
                methods.setdefault(f"{owner}.{name}", []).append((d, fn, decorators))
        launches, launch_nodes = self._launches(set(jitted))
        launched = {l.kernel for l in launches}
        calls = {name: self._called_names(fn) for name, (_, fn, _) in jitted.items()}
        called_by_jit = {c for name, cs in calls.items() for c in cs if c != name}
        # A kernel returns nothing, so a jit function that returns a value is a helper other kernels inline
        # (flash-attention's k_activations.gelu, imported by the files that use it).
        helpers = {n for n, (_, fn, _) in jitted.items()
                   if n not in launched and (n in called_by_jit or _returns_value(fn))}
        kernels = []
        for name, (d, fn, decorators) in jitted.items():
            if name in helpers:
                continue
            kernels.append(self._kernel(name, d, fn, decorators, jitted, helpers, calls,
                                        [site for site in launch_nodes if site[0].kernel == name]))
        kernels.sort()
        # A name defined more than once (`if IS_BLACKWELL: def safe_dot ... else: def safe_dot ...`) is not
        # exported: which definition a build runs depends on a condition read at import time, and taking one
        # would give importing kernels the facts of a branch AMD may never take.
        self.exported = [self._exported(name, jitted, helpers, calls) for name in sorted(jitted) if defined[name] == 1]
        # A jit function written as a static method (`class GELU: @staticmethod @triton.jit def forward`) is
        # called as `mod.GELU.forward(...)`: exported under its class-qualified name, which tells two classes'
        # `forward` apart (their bare name is defined twice, so not exported as such).
        for qname, defs in sorted(methods.items()):
            if len(defs) == 1:
                d, fn, decs = defs[0]
                self.exported.append(self._exported(qname, {**jitted, qname: (d, fn, decs)}, helpers,
                                                    {**calls, qname: self._called_names(fn)}))
        for name, use in sorted(self.autotune_wrappers.items()):
            if name not in jitted:
                fn = self.functions[name]
                start, end = fn.start_point.row + 1, fn.end_point.row + 1
                self.exported.append(TritonHelper(name, start, end, ((start, end),), uses=(use,)))
        return kernels, sorted(launches)

    def _exported(self, name, jitted, helpers, calls) -> TritonHelper:
        """A jit function of this file as a kernel of another module that imports it sees it: its body and the
        same-file helpers it reaches, with their dots, features and calls through this file's imports."""
        reached = [name] + _reached(name, calls, helpers | {name})
        dots, uses, imported = [], [], []
        for h in reached:
            d_, u_ = self._facts(jitted[h][1])
            dots += d_
            uses += u_
            imported += self._imported_calls(jitted[h][1])
        d = jitted[name][0]
        return TritonHelper(name, d.start_point.row + 1, d.end_point.row + 1,
                            tuple((jitted[h][0].start_point.row + 1, jitted[h][0].end_point.row + 1) for h in reached),
                            tuple(sorted(dots, key=lambda x: x.line)),
                            tuple(sorted(set(uses), key=lambda u: (u.line, u.kind, u.name))),
                            _first_lines(imported))

    def _decorator_name(self, decorator) -> str:
        expr = decorator.named_children[0] if decorator.named_children else None
        if expr is not None and expr.type == "call":
            expr = expr.child_by_field_name("function")
        return _dotted(expr)

    def _is_jit(self, name: str) -> bool:
        head, tail = _last(name)
        if tail != "jit":
            return False
        return head.startswith("triton") or (head == "" and self.bare_jit)

    def _called_names(self, fn) -> set[str]:
        out = set()
        for call in _walk(fn, frozenset({"call"})):
            f = call.child_by_field_name("function")
            if f is not None and f.type == "identifier":
                out.add(_text(f))
        return out

    def _kernel(self, name, d, fn, decorators, jitted, helpers, calls, launch_sites) -> Kernel:
        unknown: list[Unresolved] = []
        params, defaults = self._constexpr_parameters(fn)
        configs: list[TritonConfig] = []
        heuristics: list[str] = []
        names = []
        decorated_uses: list[TritonUse] = []
        decorated_calls: list[tuple[str, int]] = []
        for dname, dec in decorators:
            _, tail = _last(dname)
            names.append(tail)
            expr = dec.named_children[0] if dec.named_children else None
            if expr is not None and expr.type == "call" and (tail == "autotune" or not dname.startswith("triton")):
                # any decorator factory may be a project's wrapper of triton.autotune (`@local_tune(...)`)
                got_uses, got_calls = self._decorator_autotune(dname, expr, dec.start_point.row + 1)
                decorated_uses += got_uses
                decorated_calls += got_calls
            if tail == "autotune" and expr is not None and expr.type == "call":
                configs.extend(self._autotune_configs(expr, unknown))
            elif tail == "heuristics" and expr is not None and expr.type == "call":
                args = expr.child_by_field_name("arguments")
                for pair in _walk(args, frozenset({"pair"})) if args is not None else ():
                    key = _string_value(pair.child_by_field_name("key"))
                    if key:
                        heuristics.append(key)
        # The helpers this kernel reaches, transitively (their bodies count as the kernel's).
        reached = _reached(name, calls, helpers)
        bodies = [fn] + [jitted[h][1] for h in reached]
        launches = [cfg for _, cfg in launch_sites]
        dots, uses, imported = [], list(decorated_uses), list(decorated_calls)
        for body in bodies:
            d_, u_ = self._facts(body)
            dots += d_
            uses += u_
            imported += self._imported_calls(body)
        shape = _dot_shape(params)
        sizes = _dot_sizes(shape, configs + launches, defaults)
        dots = [TritonDot(x.line, shape if not x.scaled else (), sizes if not x.scaled else (), x.input_precision,
                          x.scaled) for x in sorted(dots, key=lambda x: x.line)]
        uses = sorted(set(uses), key=lambda u: (u.line, u.kind, u.name))
        facts = TritonFacts(
            decorators=tuple(names),
            constexpr_parameters=tuple(params),
            configs=tuple(configs),
            heuristics=tuple(sorted(set(heuristics))),
            launches=tuple(sorted(launches, key=lambda c: c.line)),
            dots=tuple(dots),
            uses=tuple(uses),
            calls=_first_lines(imported),
        )
        start, end = d.start_point.row + 1, d.end_point.row + 1
        device = tuple(sorted((DeviceFunction(h, jitted[h][0].start_point.row + 1, jitted[h][0].end_point.row + 1)
                               for h in reached), key=lambda x: x.line))
        atomics = tuple(sorted({u.name for u in uses if u.kind == "atomic"}))
        kf = KernelFacts(lines=end - start + 1, device_functions=device, atomics=atomics, unknown=tuple(unknown),
                         triton=facts)
        return Kernel(self.sf.path, start, end, name, name, facts=kf, language="triton")

    def _constexpr_parameters(self, fn) -> tuple[list[str], dict[str, int]]:
        names, defaults = [], {}
        params = fn.child_by_field_name("parameters")
        for p in params.named_children if params is not None else ():
            if p.type not in ("typed_parameter", "typed_default_parameter"):
                continue
            t = p.child_by_field_name("type")
            if t is None or _last(_dotted(t))[1] != "constexpr":
                continue
            ident = p.child_by_field_name("name") if p.type == "typed_default_parameter" else p.named_children[0]
            if ident is None or ident.type != "identifier":
                continue
            names.append(_text(ident))
            value = p.child_by_field_name("value")
            if value is not None and value.type == "integer":
                defaults[_text(ident)] = _int(value)
        return names, defaults

    # ------------------------------------------------------------------------------------------ configs

    def _autotune_configs(self, call, unknown: list[Unresolved]) -> list[TritonConfig]:
        args = call.child_by_field_name("arguments")
        if args is None:
            return []
        source = None
        for a in args.named_children:
            if a.type == "keyword_argument" and _text(a.child_by_field_name("name")) == "configs":
                source = a.child_by_field_name("value")
                break
        else:
            positional = [a for a in args.named_children if a.type not in ("keyword_argument", "comment")]
            source = positional[0] if positional else None
        if source is None:
            return []
        node = self._resolve(source)
        if node is None:
            unknown.append(Unresolved("autotune configs", f"built by `{_text(source)[:80]}` (not followed)"))
            return []
        out = [self._config(c) for c in _walk(node, frozenset({"call"})) if _last(_dotted(c.child_by_field_name("function")))[1] == "Config"]
        if not out:
            unknown.append(Unresolved("autotune configs", f"no triton.Config in `{_text(source)[:80]}`"))
        return sorted(out, key=lambda c: c.line)

    def _resolve(self, node):
        """The expression that holds the configs: the node itself, the value of a module-level name, or the body
        of a same-file function a call names."""
        for _ in range(4):
            if node.type == "identifier" and _text(node) in self.module_names:
                node = self.module_names[_text(node)]
                continue
            if node.type == "call":
                f = node.child_by_field_name("function")
                if f is not None and f.type == "identifier" and _text(f) in self.functions:
                    return self.functions[_text(f)]
                if _last(_dotted(f))[1] == "Config":
                    return node
            break
        if any(_last(_dotted(c.child_by_field_name("function")))[1] == "Config" for c in _walk(node, frozenset({"call"}))):
            return node
        return None

    def _config(self, call) -> TritonConfig:
        args = call.child_by_field_name("arguments")
        bindings = _comprehension_bindings(call)
        meta: list[tuple[str, str]] = []
        tuning: dict[str, tuple[int, ...]] = {}
        amd = set()
        for i, a in enumerate(args.named_children if args is not None else ()):
            if a.type == "keyword_argument":
                key = _text(a.child_by_field_name("name"))
                value = a.child_by_field_name("value")
                if key in TUNING:
                    tuning[key] = self._ints(value, bindings)
                    if key in AMD_OPTIONS:
                        amd.add(key)
                elif key in ("kwargs", "meta") and value is not None and value.type == "dictionary":
                    meta += self._meta(value, bindings, amd)
            elif a.type == "dictionary" and i == 0:
                meta += self._meta(a, bindings, amd)
        return TritonConfig(call.start_point.row + 1, tuple(meta), tuning.get("num_warps", ()),
                            tuning.get("num_stages", ()), tuning.get("num_ctas", ()), tuple(sorted(amd)),
                            variants=_comprehension_variants(call), rocm_test=_rocm_test(call))

    def _meta(self, dictionary, bindings, amd: set[str]) -> list[tuple[str, str]]:
        """The meta-parameters of a Config's dict; AMD options written there (`"waves_per_eu": 2`) go to `amd`."""
        out = []
        for pair in dictionary.named_children:
            if pair.type != "pair":
                continue
            key = _string_value(pair.child_by_field_name("key"))
            value = pair.child_by_field_name("value")
            if key is None or value is None:
                continue
            ints = self._ints(value, bindings)
            if key in AMD_OPTIONS:
                amd.add(key)
                continue
            out.append((key, ",".join(str(v) for v in ints) if ints else _text(value)))
        return out

    def _ints(self, node, bindings: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
        """The integer values an expression can take: a literal, a comprehension variable over literals, a
        module-level integer constant."""
        if node is None:
            return ()
        if node.type == "integer":
            v = _int(node)
            return (v,) if v is not None else ()
        if node.type == "identifier":
            name = _text(node)
            if name in bindings:
                return bindings[name]
            if name in self.module_ints and self.module_ints[name] is not None:
                return (self.module_ints[name],)
        return ()

    def _clamped(self, node, call) -> tuple[tuple[int, ...], bool]:
        """The largest value a launch keyword held in a local can take when its last assignment before the launch
        clamps it with literals (`num_warps = max(8, min(32, block_size // 256))` reaches 32), else (); and whether
        that value is a conditional's larger branch (_upper_bound), which input decides."""
        if node is None or node.type != "identifier":
            return (), False
        host = self.sf.enclosing(call.start_byte)
        if host is None:
            return (), False
        name, value = _text(node), None
        for a in _walk(host.node, frozenset({"assignment"})):
            left = a.child_by_field_name("left")
            if a.start_byte < call.start_byte and left is not None and left.type == "identifier" and _text(left) == name:
                value = a.child_by_field_name("right")
        if value is None:
            # never assigned before the launch: a parameter's default (`def fwd(x, num_warps=8)`) is what a caller
            # that does not pass it launches with
            params = host.node.child_by_field_name("parameters")
            for p in (params.named_children if params is not None else ()):
                if p.type in ("default_parameter", "typed_default_parameter") and \
                        _text(p.child_by_field_name("name")) == name:
                    value = p.child_by_field_name("value")
        bound = _upper_bound(value)
        branch = value is not None and _unparenthesized(value).type == "conditional_expression"
        return ((bound,), branch) if bound is not None else ((), False)

    def _arch_choice(self, node, call) -> str | None:
        """The NVIDIA-generation test (_NVIDIA_ARCH) a launch keyword held in a local was chosen by: its last
        assignment before the launch in the launching function (`num_warps, num_stages = get_num_warps_stages(d, b,
        IS_HOPPER_GPU)`, `num_warps = 8 if is_hopper() else 4`) names one in its value. None when it names none."""
        if node is None or node.type != "identifier":
            return None
        host = self.sf.enclosing(call.start_byte)
        if host is None:
            return None
        name, value = _text(node), None
        for a in _walk(host.node, frozenset({"assignment"})):
            left = a.child_by_field_name("left")
            if a.start_byte >= call.start_byte or left is None:
                continue
            targets = [left] if left.type == "identifier" else [
                c for c in left.named_children if c.type == "identifier"] if left.type in (
                "pattern_list", "tuple_pattern") else []
            if any(_text(t) == name for t in targets):
                value = a.child_by_field_name("right")
        m = _NVIDIA_ARCH.search(_text(value)) if value is not None else None
        return m.group() if m else None

    # ------------------------------------------------------------------------------------------ bodies

    def _body_facts(self, fn, opt_in: frozenset[str] = frozenset()) -> tuple[list[TritonDot], list[TritonUse]]:
        """The body's tl.dot calls and the Triton features it uses. A tensor descriptor used only under `if FLAG:`,
        FLAG a constexpr parameter that defaults to False (`USE_TMA_LOAD: tl.constexpr = False`), is an opt-in path
        the default compile leaves out: its use is recorded as `tensor-descriptor-opt-in`, which no check judges."""
        dots, uses = [], []
        for node in _walk(fn, frozenset({"call", "attribute"})):
            line = node.start_point.row + 1
            if node.type == "attribute":
                dotted = _dotted(node)
                head, tail = _last(dotted)
                if tail in FP8_OCP | FP8_FNUZ | FP8_OTHER and (head in _TL_PREFIXES or head.endswith("language")):
                    uses.append(TritonUse("fp8", tail, line))
                obj = node.child_by_field_name("object")
                if ".extra.cuda" in "." + dotted and not (node.parent is not None and node.parent.type == "attribute"):
                    uses.append(TritonUse("cuda-extra", dotted, line))
                elif obj is not None and obj.type == "identifier" and _text(obj) in self.cuda_aliases \
                        and not (node.parent is not None and node.parent.type == "attribute"):
                    uses.append(TritonUse("cuda-extra", dotted, line))
                continue
            f = node.child_by_field_name("function")
            if f is None or f.type not in ("identifier", "attribute"):
                continue
            dotted = _dotted(f)
            head, tail = _last(dotted)
            if f.type == "identifier" and _text(f) in self.cuda_aliases:
                uses.append(TritonUse("cuda-extra", dotted, line))
            if head in _LEGACY_LIBDEVICE:
                uses.append(TritonUse("legacy-libdevice", dotted, line))
                continue
            if head in _TL_MATH and tail not in TL_MATH_CORE:
                uses.append(TritonUse("math-libdevice", dotted, line))
                continue
            triton_op = head in _TL_PREFIXES or head == "" or head.endswith("language")
            if not triton_op and tail not in HOST_TMA | TENSOR_DESCRIPTOR:
                continue
            kwargs = _keywords(node)
            if tail in ("dot", "dot_scaled") and (head in _TL_PREFIXES or head.endswith("language")):
                precision = _string_value(kwargs.get("input_precision"))
                if precision is None and _text(kwargs.get("allow_tf32")) == "True":
                    precision = "allow_tf32"
                dots.append(TritonDot(line, input_precision=precision, scaled=tail == "dot_scaled"))
            elif tail.startswith("atomic_") and head in _TL_PREFIXES:
                uses.append(TritonUse("atomic", tail, line))
                if _string_value(kwargs.get("scope")) == "sys":
                    uses.append(TritonUse("system-atomic", tail, line))
            elif tail == "inline_asm_elementwise":
                uses.append(TritonUse("inline-asm", tail, line))
            elif tail in HOST_TMA:
                uses.append(TritonUse("host-tma", tail, line))
            elif tail in TENSOR_DESCRIPTOR:
                kind = "tensor-descriptor-opt-in" if _under_flag(node, fn, opt_in) else "tensor-descriptor"
                uses.append(TritonUse(kind, tail, line))
        return dots, uses

    # ------------------------------------------------------------------------------------------ launches

    def _launches(self, jitted: set[str]) -> tuple[list[Launch], list[tuple[Launch, TritonConfig]]]:
        """`kernel[grid](...)` calls: of a jit function of this file, or of any name when the call passes a
        tuning keyword or the subscript reads like a grid (a `handlers[kind](x)` table lookup does neither)."""
        out, sites = [], []
        for call in _walk(self.root, frozenset({"call"})):
            f = call.child_by_field_name("function")
            if f is None or f.type != "subscript":
                continue
            value = _launched(f.child_by_field_name("value"))
            if value is None:
                continue
            name = _last(_dotted(value))[1]
            kwargs = _keywords(call)
            grid = f.child_by_field_name("subscript")
            grid_text = " ".join(_text(grid).split()) if grid is not None else ""
            if name not in jitted and not (set(kwargs) & set(TUNING)) and "grid" not in grid_text \
                    and "cdiv" not in grid_text:
                continue
            tuning = {k: v for k, v in kwargs.items() if k in TUNING}
            bindings = _comprehension_bindings(call)
            warps = self._ints(tuning.get("num_warps"), bindings)
            branch = False
            if not warps:
                warps, branch = self._clamped(tuning.get("num_warps"), call)
            config = (grid_text,) + tuple(f"{k}={' '.join(_text(v).split())}" for k, v in sorted(tuning.items()))
            if warps and not _text(tuning.get("num_warps")).isdigit():
                # a clamped local: its bound, for launches of other files (`?`: a conditional's larger branch)
                config += (f"num_warps{'?' if branch else ''}<={max(warps)}",)
            arch = self._arch_choice(tuning.get("num_warps"), call)
            if arch is not None:
                config += (f"{ARCH_KEY}={arch}",)
            host = self.sf.enclosing(call.start_byte)
            line, column = call.start_point.row + 1, call.start_point.column + 1
            launch = Launch(self.sf.path, line, column, name, "triton", config, host.name if host else None)
            out.append(launch)
            meta = tuple((k, ",".join(map(str, self._ints(v, bindings))) or " ".join(_text(v).split()))
                         for k, v in sorted(kwargs.items()) if k not in TUNING)
            cfg = TritonConfig(line, meta, warps,
                               self._ints(tuning.get("num_stages"), bindings),
                               self._ints(tuning.get("num_ctas"), bindings),
                               tuple(sorted(k for k in tuning if k in AMD_OPTIONS)), branch=branch, arch=arch)
            sites.append((launch, cfg))
        return out, sites


def _enclosing_class(definition) -> str | None:
    """The name of the class whose body holds a (decorated) definition directly, or None."""
    block = definition.parent
    owner = block.parent if block is not None and block.type == "block" else None
    if owner is None or owner.type != "class_definition":
        return None
    return _text(owner.child_by_field_name("name")) or None


def _reached(name: str, calls: dict[str, set[str]], helpers: set[str]) -> list[str]:
    """The same-file helpers a jit function reaches, transitively, each once (a call cycle ends)."""
    reached, todo = [], [name]
    seen = {name}
    while todo:
        for c in sorted(calls.get(todo.pop(), ())):
            if c in helpers and c not in seen:
                seen.add(c)
                reached.append(c)
                todo.append(c)
    return reached


def _first_lines(calls: list[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    """Each call target once, at its first line, in line order."""
    first: dict[str, int] = {}
    for target, line in calls:
        first[target] = min(line, first.get(target, line))
    return tuple(sorted(first.items(), key=lambda c: (c[1], c[0])))


def _launched(value):
    """The kernel a `value[grid](...)` launches: a name or attribute, or the one a torch wrapper hands on
    (`torch.library.wrap_triton(kernel)[grid](...)`, `capture_triton(kernel)`)."""
    if value is not None and value.type == "call" and _last(_dotted(value.child_by_field_name("function")))[1] in (
            "wrap_triton", "capture_triton"):
        args = value.child_by_field_name("arguments")
        value = args.named_children[0] if args is not None and args.named_children else None
    return value if value is not None and value.type in ("identifier", "attribute") else None


# A conditional's test that picks per platform or device (`16 if is_hip() else 32`, `... if torch.version.hip`,
# `... if warp_size == 64`): its other branch may never run on AMD, so it bounds nothing.
_PLATFORM_TEST = re.compile(r"hip|rocm|amd|cuda|nvidia|warp_?size|device|arch|capability|backend|\bsm\b|target",
                            re.IGNORECASE)


def _upper_bound(node) -> int | None:
    """An upper bound of an expression built from integer literals, min()/max() of them and of unknowns, and
    two-way conditionals of them (None: unbounded). One test on the input (`8 if tiles_per_cta == 1 else 32`,
    FlagGems' unique) splits the inputs the code expects in two, so its larger branch is reached. A ladder of
    thresholds (`4 if n < 2048 else (8 if n < 8192 else 32)`) ends in a catch-all a bound elsewhere may exclude
    (flash-attention's cross-entropy never reaches its last), and a test that reads the platform (_PLATFORM_TEST)
    may pick the smaller branch on AMD: both are left unbounded."""
    if node is None:
        return None
    if node.type == "parenthesized_expression" and node.named_children:
        return _upper_bound(node.named_children[0])
    if node.type == "integer":
        return _int(node)
    if node.type == "conditional_expression" and len(node.named_children) == 3:
        body, test, other = node.named_children
        if any(_unparenthesized(b).type == "conditional_expression" for b in (body, other)):
            return None
        branches = [_upper_bound(body), _upper_bound(other)]
        if _PLATFORM_TEST.search(_text(test)) or None in branches:
            return None
        return max(b for b in branches if b is not None)
    if node.type == "call":
        f = _dotted(node.child_by_field_name("function"))
        args = node.child_by_field_name("arguments")
        bounds = [_upper_bound(a) for a in (args.named_children if args is not None else ())]
        if f == "min" and bounds:
            known = [b for b in bounds if b is not None]
            return min(known) if known else None
        if f == "max" and bounds and all(b is not None for b in bounds):
            return max(bounds)
    return None


def _unparenthesized(node):
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    return node


def _int(node) -> int | None:
    try:
        return int(_text(node).replace("_", ""), 0)
    except ValueError:
        return None


def _keywords(call) -> dict[str, object]:
    args = call.child_by_field_name("arguments")
    out = {}
    for a in args.named_children if args is not None else ():
        if a.type == "keyword_argument":
            out[_text(a.child_by_field_name("name"))] = a.child_by_field_name("value")
    return out


def _opt_in_flags(fn) -> frozenset[str]:
    """The constexpr parameters of a jit function that default to False (switches a caller turns on), and the
    names its body sets from them alone (`BOTH: tl.constexpr = USE_X and USE_Y`)."""
    out = set()
    params = fn.child_by_field_name("parameters")
    for p in params.named_children if params is not None else ():
        if p.type != "typed_default_parameter":
            continue
        t, value, ident = p.child_by_field_name("type"), p.child_by_field_name("value"), p.child_by_field_name("name")
        if t is not None and _last(_dotted(t))[1] == "constexpr" and value is not None and value.type == "false" \
                and ident is not None and ident.type == "identifier":
            out.add(_text(ident))
    body = fn.child_by_field_name("body")
    for stmt in body.named_children if out and body is not None else ():
        a = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else None
        if a is not None and a.type == "assignment":
            left, right = a.child_by_field_name("left"), a.child_by_field_name("right")
            if left is not None and left.type == "identifier" and right is not None and _off_by_default(right, out):
                out.add(_text(left))
    return frozenset(out)


def _off_by_default(cond, flags) -> bool:
    """Whether a condition is False when every switch in `flags` keeps its default: a switch, or an `and` with one."""
    while cond is not None and cond.type == "parenthesized_expression" and cond.named_children:
        cond = cond.named_children[0]
    if cond is None:
        return False
    if cond.type == "identifier":
        return _text(cond) in flags
    if cond.type == "boolean_operator" and _text(cond.child_by_field_name("operator")) == "and":
        return _off_by_default(cond.child_by_field_name("left"), flags) or \
            _off_by_default(cond.child_by_field_name("right"), flags)
    return False


def _under_flag(node, fn, flags: frozenset[str]) -> bool:
    """Whether `node` sits in the body of an `if` (not its `else`) whose condition is off by default, inside `fn`."""
    if not flags:
        return False
    child, n = node, node.parent
    while n is not None and n != fn:
        if n.type == "if_statement" and child == n.child_by_field_name("consequence") \
                and _off_by_default(n.child_by_field_name("condition"), flags):
            return True
        child, n = n, n.parent
    return False


def _returns_value(fn) -> bool:
    stack = list(fn.children)
    while stack:
        n = stack.pop()
        if n.type == "return_statement" and n.named_children:
            return True
        if n.type not in ("function_definition", "lambda", "class_definition"):
            stack.extend(n.children)
    return False


def _comprehension_variants(call) -> int:
    """How many configs the comprehensions around a `triton.Config(...)` call make over the loop variables the call
    reads (`[Config({"BLOCK_M": m, "BLOCK_N": n}, num_warps=4) for m in block_m for n in block_n]`): the product of
    each loop's literal length, a loop over a name or call counting 2 (at least a choice). 1 outside a comprehension.
    A loop the call does not read repeats one config, and adds nothing."""
    used = {_text(i) for i in _walk(call, frozenset({"identifier"}))}
    out, p = 1, call.parent
    while p is not None:
        if p.type in ("list_comprehension", "generator_expression", "set_comprehension"):
            for clause in p.named_children:
                if clause.type != "for_in_clause":
                    continue
                left, right = clause.child_by_field_name("left"), clause.child_by_field_name("right")
                names = {_text(i) for i in _walk(left, frozenset({"identifier"}))} if left is not None else set()
                if right is None or not names & used:
                    continue
                out *= len(right.named_children) if right.type in ("list", "tuple") else 2
        p = p.parent
    return out


# A test of the ROCm platform as projects write it: torch's `torch.version.hip`, a helper or flag named for HIP,
# ROCm or AMD (`is_hip()`, `IS_ROCM`, `is_amd_gpu()`). CUDA or device-name tests are not (they pick NVIDIA parts).
_ROCM_TEST = re.compile(r"\bversion\.hip\b|\b(?:is|IS|use|USE)_(?:hip|HIP|rocm|ROCM|amd|AMD)(?:_\w*)?\b")


def _rocm_test(call) -> str | None:
    """The ROCm test (_ROCM_TEST) of a two-way conditional that picks a value of a `triton.Config(...)` call, in
    the call itself (`num_stages=1 if is_hip() else 3`) or in a loop of the comprehensions around it (`for s in
    [1 if torch.version.hip else 2]`): the test as written, or None. Such a Config was written for ROCm too."""
    where, p = [call], call.parent
    while p is not None:
        if p.type in ("list_comprehension", "generator_expression", "set_comprehension"):
            where += [c.child_by_field_name("right") for c in p.named_children if c.type == "for_in_clause"]
        p = p.parent
    for node in where:
        for cond in _walk(node, frozenset({"conditional_expression"})) if node is not None else ():
            if len(cond.named_children) == 3 and _ROCM_TEST.search(_text(cond.named_children[1])):
                return " ".join(_text(cond.named_children[1]).split())[:80]
    return None


def _comprehension_bindings(node) -> dict[str, tuple[int, ...]]:
    """Loop variables of the comprehensions around a node that run over literal integer lists or tuples
    (`[triton.Config(..., num_warps=w) for w in [4, 8]]`). A variable an `if` clause filters is left out: which
    values survive is decided at run time (flash-attention keeps `w * warp_size <= 1024`)."""
    out: dict[str, tuple[int, ...]] = {}
    p = node.parent
    while p is not None:
        if p.type in ("list_comprehension", "generator_expression", "set_comprehension"):
            filtered = {_text(i) for c in p.named_children if c.type == "if_clause"
                        for i in _walk(c, frozenset({"identifier"}))}
            for clause in p.named_children:
                if clause.type != "for_in_clause":
                    continue
                left, right = clause.child_by_field_name("left"), clause.child_by_field_name("right")
                if left is None or right is None or left.type != "identifier" or _text(left) in filtered:
                    continue
                if right.type in ("list", "tuple"):
                    values = tuple(v for v in (_int(c) for c in right.named_children if c.type == "integer")
                                   if v is not None)
                    if values and len(values) == len(right.named_children):
                        out.setdefault(_text(left), values)
        p = p.parent
    return out


def _dot_shape(params: list[str]) -> tuple[str, ...]:
    """(M, N, K) block names when the kernel's constexpr parameters spell them (BLOCK_M / BLOCK_SIZE_N / ...)."""
    by_axis: dict[str, str] = {}
    for p in params:
        m = _BLOCK_NAME.match(p)
        if m:
            by_axis.setdefault(m.group(1).upper(), p)
    return tuple(by_axis[a] for a in "MNK") if all(a in by_axis for a in "MNK") else ()


def _dot_sizes(shape: tuple[str, ...], configs: list[TritonConfig], defaults: dict[str, int]) -> tuple[tuple[int, ...], ...]:
    if not shape:
        return ()
    out: set[tuple[int, ...]] = set()
    for c in configs:
        meta = dict(c.meta)
        choices: list[tuple[int, ...]] = []
        for name in shape:
            text = meta.get(name)
            if text is not None and re.fullmatch(r"\d+(?:,\d+)*", text):
                choices.append(tuple(int(v) for v in text.split(",")))  # a comprehension's values: every one
            elif text is None and name in defaults:
                choices.append((defaults[name],))
            else:
                break
        else:
            out.update(itertools.product(*choices))
    if not out and all(n in defaults for n in shape):
        out.add(tuple(defaults[n] for n in shape))
    return tuple(sorted(out))
