"""Follow a kernel's calls into `__device__` helpers defined in other files, so their facts count as the kernel's.

A kernel whose body is one call into a helper in another header (`flash::compute_attn<...>(params)`, a shuffle
reduction in `type_shim.h`, `mma.sync` behind a function in `mma.cuh`) does what the helper does. The scan records
each file's device helpers with their facts (porter.kernels.facts.measure_helpers, cached with the file) and each
kernel's calls its own file does not define (KernelFacts.calls); after the scan, kernel analysis resolves those
calls here, repository-wide, and attaches what it found as KernelFacts.helpers.

A call resolves to the file that defines a device function of that name among the files the caller's file
includes, transitively (quoted includes relative to the includer, `-I`-style ones by path suffix:
porter.source.includes.resolve_include); when none of them does, to the one such file among those the files that
include the caller's file include (a header is compiled only inside the translation units that include it, and
sees what they included before it: GauXC's `uvvars_lda.hpp` calls `cuda::warp_reduce_sum`, which `uvvars.cu`
includes from `cuda_extensions.hpp` just above it, while `hip_extensions.hpp` defines the same name for the HIP
build); when none of those does either, to the one file in the repository that defines it.
A qualified call `Q::f` is looked up as C++ does ([basic.lookup.qual]): never in another namespace's free functions
(`ptx::add_cc` is not `wide::add_cc`), first in a namespace or class named Q (or the class a project typedef or
`using` names Q: `typedef ec<fd_p, 3> curve;` for `curve::add`), else, for a Q that owns none of the candidates (a
template parameter no launch binds), in the one class with a static member `f`. A template parameter the kernel's
launches bind (`k<fd_q><<<...>>>`) is read as the class they name (bound_functor_calls).
Two or more candidate files make the call ambiguous and it is not followed: merging both would give a kernel the
facts of a helper it may not run, and the verdict would then rest on a guess. Overloads in one file are one helper
(the file's definitions of the name together). The walk is bounded (depth, helpers per kernel, files per include
closure) and never revisits a helper, so recursive and cyclic call graphs end.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Iterable

from porter.kernels.constfold import split_template_arguments
from porter.model.kernel import DeviceHelper, HelperCall, Kernel, KernelFacts, merge_helpers
from porter.source.includes import resolve_include
from porter.source.parse import unqualified
from porter.source.parse_input import word_matches

MAX_DEPTH = 4  # helper calls followed from a kernel: kernel -> a -> b -> c -> d
MAX_HELPERS = 32  # helpers merged into one kernel
MAX_CLOSURE = 400  # files in one include closure


@dataclass
class HelperIndex:
    """The repository's device helpers by file and name, and its include graph (resolved once per analysis)."""

    helpers: dict[str, dict[str, list[DeviceHelper]]]  # path -> name -> its definitions in that file
    defined_in: dict[str, tuple[str, ...]]  # name -> files that define a device function of that name
    includes: dict[str, tuple[str, ...]]  # path -> repository files it includes
    aliases: dict[str, frozenset[str]] = field(default_factory=dict)  # type alias -> the classes files alias by it
    _closures: dict[str, frozenset[str]] = field(default_factory=dict)
    _includers: dict[str, tuple[str, ...]] | None = None  # path -> repository files that include it (directly)

    def closure(self, path: str) -> frozenset[str]:
        """The files `path` includes, transitively (not itself), at most MAX_CLOSURE of them."""
        if path not in self._closures:
            seen: dict[str, None] = {}
            todo = list(self.includes.get(path, ()))
            while todo and len(seen) < MAX_CLOSURE:
                p = todo.pop(0)
                if p in seen or p == path:
                    continue
                seen[p] = None
                todo.extend(self.includes.get(p, ()))
            self._closures[path] = frozenset(seen)
        return self._closures[path]

    def resolve(self, caller: str, name: str, written: str | None = None) -> str | None:
        """The file whose helper `name` a call in `caller` reaches, or None (not defined, or ambiguous). `written`:
        the call as written; a member call `Cls::f` several files define `f` for resolves to the one file named
        after `Cls` (`WarpReduce::atomicMax` to `WarpReduce.i.cuh`, not `WarpSegReduce.i.cuh`: one class per file
        pair is how such libraries are laid out), else stays ambiguous."""
        defined = self.defined_in.get(name, ())
        scope = written.rsplit("::", 1)[0].rsplit("::", 1)[-1] if written and "::" in written else ""
        if scope:
            # `host_math::add_cc` cannot reach namespace ptx's `add_cc`: qualified lookup looks in the scope named
            defined = tuple(p for p in defined if not self._other_namespace(p, name, scope))
        if caller in defined:
            # a call the caller's file does not define as a function (KernelFacts.calls) but indexes a helper of:
            # its own function-like macro (porter.kernels.asm_macros), which the preprocessor expands there
            return caller
        homes = [p for p in defined if p != caller]
        if not homes:
            return None
        reachable = self.closure(caller)
        included = [p for p in homes if p in reachable]
        if len(included) == 1:
            return included[0]
        if not included:
            # what the translation units including the caller's header bring in before it
            around = frozenset().union(*(self.closure(u) for u in self.includers(caller)))
            included = [p for p in homes if p in around]
            if len(included) == 1:
                return included[0]
        candidates = included or homes
        if len(candidates) == 1:
            return candidates[0]
        if scope:
            by_scope = self._by_scope(candidates, name, scope)
            if by_scope is not None:
                return by_scope
        named = [p for p in candidates if scope and p.rsplit("/", 1)[-1].split(".", 1)[0] == scope]
        return named[0] if len(named) == 1 else None

    def member_through_alias(self, name: str) -> str | None:
        """A member call keyed by an alias of its class (`elected->insertAggr(v)` on a `cuVecU *elected` with
        `typedef cuVec<uint32> cuVecU;`: `cuVecU.insertAggr`) keyed by the class itself (`cuVec.insertAggr`): a
        typedef-name or alias-declaration is a synonym for the type it names (C++ [dcl.typedef]), so the call runs
        that class's member. None when the name is no member key or the alias names no single class."""
        cls, dot, member = name.partition(".")
        if not dot or not member:
            return None
        aliased = self.aliases.get(cls, frozenset())
        return f"{next(iter(aliased))}.{member}" if len(aliased) == 1 else None

    def _other_namespace(self, path: str, name: str, scope: str) -> bool:
        """Whether every definition of `name` in `path` is a free function of a namespace other than `scope`,
        which `scope::name` cannot name (a class or a template parameter called `scope` has no such member)."""
        return all(d.scope[:1] == ("namespace",) and d.scope[1] != scope for d in self.helpers[path][name])

    def _by_scope(self, candidates: list[str], name: str, scope: str) -> str | None:
        """The one candidate file whose `name` a qualified call `scope::name` can reach by C++ qualified lookup
        ([basic.lookup.qual]), else None: the one defining it in a namespace or class called `scope`
        (`ptx::add_cc` is namespace ptx's, not carry_chain's member `add_cc`); when no candidate's owner has that
        name (`FD::mul` on a template parameter, a typedef), the one defining it as a static member of a class, the
        only kind of function a type's name can call without an object (a namespace's free function and a
        non-static member are not)."""
        owned = [p for p in candidates if any(d.scope[1:] == (scope,) for d in self.helpers[p][name])]
        if owned:
            return owned[0] if len(owned) == 1 else None
        aliased = self.aliases.get(scope, frozenset())
        if len(aliased) == 1:
            # `curve::add` with `typedef ec<fd_p, 3> curve;`: the alias names the class whose member it calls
            (target,) = aliased
            owned = [p for p in candidates if any(d.scope[1:] == (target,) for d in self.helpers[p][name])]
            if owned:
                return owned[0] if len(owned) == 1 else None
        static = [p for p in candidates if any(d.scope[:1] in (("static",), ("scoped",)) for d in self.helpers[p][name])]
        return static[0] if len(static) == 1 else None

    def includers(self, path: str) -> tuple[str, ...]:
        """The repository files that include `path` directly, in path order."""
        if self._includers is None:
            by: dict[str, list[str]] = {}
            for p, included in sorted(self.includes.items()):
                for q in included:
                    by.setdefault(q, []).append(p)
            self._includers = {q: tuple(v) for q, v in by.items()}
        return self._includers.get(path, ())


def helper_index(files: Iterable) -> HelperIndex:
    """The index over a scan's FileResults (their `helpers` and `includes`)."""
    files = list(files)
    paths = frozenset(r.path for r in files if r.language == "cuda")
    helpers: dict[str, dict[str, list[DeviceHelper]]] = {}
    defined: dict[str, list[str]] = {}
    includes: dict[str, tuple[str, ...]] = {}
    for r in files:
        for h in r.helpers:
            by_name = helpers.setdefault(r.path, {})
            if h.name not in by_name:
                defined.setdefault(h.name, []).append(r.path)
            by_name.setdefault(h.name, []).append(h)
        resolved = (resolve_include(r.path, header, quoted, paths) for header, quoted in r.includes)
        includes[r.path] = tuple(dict.fromkeys(p for p in resolved if p is not None and p != r.path))
    aliases: dict[str, set[str]] = {}
    for r in files:
        for alias, target in getattr(r, "type_aliases", ()):
            aliases.setdefault(alias, set()).add(target)
    return HelperIndex(helpers, {k: tuple(sorted(v)) for k, v in defined.items()}, includes,
                       {k: frozenset(v) for k, v in aliases.items()})


# `typedef ec<fd_p, 3> curve;`, `typedef typename ns::Traits<T>::type T2;` (the last name before any template
# arguments), `using curve = ec<fd_p, 3>;`. Read from the file's code with comments and strings blanked.
_TYPEDEF = re.compile(rb"\btypedef\s+(?:typename\s+)?(?:const\s+)?((?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)\s*"
                      rb"(?:<[^;{}()]*>)?\s+([A-Za-z_]\w*)\s*;")
_USING = re.compile(rb"\busing\s+([A-Za-z_]\w*)\s*=\s*(?:typename\s+)?((?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)"
                    rb"\s*(?:<[^;{}()]*>)?\s*;")


def type_aliases_of(code: bytes) -> tuple[tuple[str, str], ...]:
    """The file's type aliases of a named class or class template, as (alias, the class's last name), sorted:
    `typedef ec<fd_p, 3> curve;` gives ("curve", "ec"), so a qualified call `curve::add` in any file reaches ec's
    static member (HelperIndex.resolve). Aliases of built-in or nested types (`typedef unsigned int uint;`,
    `typedef curve::storage storage;`, whose last name is a member, not a class the index knows) come out too and
    are harmless: a scope is read through an alias only when no candidate's owner has the scope's own name."""
    if b"typedef" not in code and b"using" not in code:
        return ()
    out: set[tuple[str, str]] = set()
    # Tried only where the keyword is written: `re` tries a pattern that opens with `\b` at every byte.
    for m in word_matches(_TYPEDEF, code, (b"typedef",)):
        target, alias = m.group(1), m.group(2)
        out.add((alias.decode(), target.decode().rsplit("::", 1)[-1].strip()))
    for m in word_matches(_USING, code, (b"using",)):
        alias, target = m.group(1), m.group(2)
        out.add((alias.decode(), target.decode().rsplit("::", 1)[-1].strip()))
    return tuple(sorted((a, t) for a, t in out if a != t))


def helper_calls(kernel: Kernel, index: HelperIndex) -> tuple[HelperCall, ...]:
    """The helpers in other files a kernel reaches, each with the chain of calls from the kernel, in the order the
    kernel calls them (breadth first)."""
    out: list[HelperCall] = []
    for home, chain, line, definitions in _reached(kernel, index, limit=None):
        with_facts = [d for d in definitions if d.facts is not None]
        if with_facts:
            out.append(HelperCall(chain, home, with_facts[0].line, line, _union(with_facts)))
            if len(out) >= MAX_HELPERS:
                break
    return tuple(out)


@dataclass(frozen=True)
class HelperSpan:
    """Where a helper another file defines, and a kernel reaches, is written: the kernel owns what lies there."""

    path: str
    line: int
    end_line: int
    chain: tuple[str, ...]
    cuda_only: tuple[tuple[int, int], ...] = ()  # its lines only the CUDA build compiles
    call_line: int = 0  # the kernel's line that starts the chain (in the kernel's own file)
    # the bodies in its file it runs: its own (line..end_line) unless overloaded, and its same-file callees'
    ranges: tuple[tuple[int, int], ...] = ()

    @property
    def where(self) -> str:
        return f"{' → '.join(self.chain)} ({self.path}:{self.line})"

    def holds(self, line: int) -> bool:
        """Whether `line` of the span's file is code the helper runs on HIP (not a CUDA-only line)."""
        return (any(a <= line <= b for a, b in self.ranges or ((self.line, self.end_line),))
                and not any(a <= line <= b for a, b in self.cuda_only))


def helper_spans(kernel: Kernel, index: HelperIndex) -> tuple[HelperSpan, ...]:
    """Where each helper in other files the kernel reaches is defined, those with no facts of their own too (a
    helper that only calls `cg::labeled_partition` or an API HIP lacks has none), with the same-file functions it
    calls (`memory::load` -> `ld` -> `ld_single`, whose `__ldcg` HIP lacks): the findings inside them are the
    kernel's (porter.kernels.verdicts). Of a name its file defines more than once (overloads, explicit
    specialisations such as DeepSpeed's `conversion::to<T>`) only the callees every definition runs count: which
    definition the kernel runs is not known, and a finding in one of them would be a guess; one all of them reach
    holds whichever it is (era-bellman's three `memory::load` overloads, one per vector width, all call `ld`)."""
    out: list[HelperSpan] = []
    for home, chain, line, definitions in _reached(kernel, index, limit=MAX_HELPERS * 4):
        d = definitions[0]
        if len(definitions) == 1:
            ranges = ((d.line, d.end_line), *d.callee_spans)
        else:
            common = set(d.callee_spans).intersection(*(o.callee_spans for o in definitions[1:]))
            ranges = tuple(r for r in d.callee_spans if r in common)
            if not ranges:
                continue
        cuda_only = tuple(dict.fromkeys(r for o in definitions for r in o.cuda_only))
        out.append(HelperSpan(home, d.line, d.end_line, chain, cuda_only, line, ranges))
    return tuple(out)


def marked_helpers(kernel: Kernel, index: HelperIndex) -> tuple[tuple[str, DeviceHelper, tuple[str, ...], int], ...]:
    """The helpers in other files the kernel reaches that a qualifier macro alone makes device code
    (DeviceHelper.markers), as (home file, definition, call chain, kernel call line); every definition of a name
    counts (an overload declared through the macro is as host-only on HIP as the others)."""
    return tuple((home, d, chain, line) for home, chain, line, definitions in _reached(kernel, index, MAX_HELPERS * 4)
                 for d in definitions if d.markers)


def _reached(kernel: Kernel, index: HelperIndex, limit: int | None):
    """(home file, call chain, kernel call line, definitions there) of each helper the kernel reaches in another
    file, breadth first, each once, at most `limit` of them (None: as deep as MAX_DEPTH goes)."""
    facts = kernel.facts
    if facts is None or not facts.calls:
        return
    seen: set[tuple[str, str, int]] = set()
    todo: list[tuple[str, str, tuple[str, ...], int, int]] = []  # (caller path, name, chain, call line, depth)
    for text, line in facts.calls:
        todo.append((kernel.path, callee_name(text), (text,), line, 1))
    while todo and (limit is None or len(seen) < limit):
        caller, name, chain, line, depth = todo.pop(0)
        home = index.resolve(caller, name, chain[-1])
        if home is None:
            name = index.member_through_alias(name)
            home = index.resolve(caller, name, chain[-1]) if name else None
        if home is None:
            continue
        definitions = _qualified(index.helpers[home][name], chain[-1])
        key = (home, name, definitions[0].line)
        if key in seen:
            continue
        seen.add(key)
        yield home, chain, line, definitions
        if depth < MAX_DEPTH:
            # a helper's calls are kept as written (`ptx::add_cc`): looked up by the name they reach, as the
            # kernel's own are (following the written text found nothing for any qualified call)
            for callee in sorted({c for d in definitions for c in d.calls}):
                todo.append((home, callee_name(callee), chain + (callee,), line, depth + 1))


def _qualified(definitions: list[DeviceHelper], written: str) -> list[DeviceHelper]:
    """The definitions a call as written names: `ptx::add_cc` is namespace ptx's `add_cc`, not namespace
    ptx::u64's of the same file (qualified lookup looks in the named scope only); all of them when the call names
    no scope any of them is in (a template parameter, an unqualified call)."""
    scope = written.rsplit("::", 1)[0].rsplit("::", 1)[-1] if "::" in written else ""
    named = [d for d in definitions if scope and d.scope[1:] == (scope,)]
    return named or definitions


def _union(definitions: list[DeviceHelper]) -> KernelFacts:
    """The facts of a file's definitions of one name (overloads) together."""
    first = definitions[0].facts
    if len(definitions) == 1:
        return first
    # Each overload's facts at its own first line: the kernel's merge moves them all to its call line anyway.
    return merge_helpers(first, tuple(HelperCall((d.name,), "", d.line, d.line, d.facts) for d in definitions[1:]))


OPERATOR = "::operator()"


def callee_name(text: str) -> str:
    """The helper name a call as written reaches: `Cls::operator()` keeps its class (porter.kernels.facts.member_name),
    any other call its unqualified name."""
    if text.endswith(OPERATOR):
        return unqualified(text[: -len(OPERATOR)]) + OPERATOR
    return unqualified(text)


def bound_functor_calls(kernel: Kernel, launches: Iterable) -> Kernel:
    """`kernel` with each call `P::operator()` on a template parameter P (`Op{}(a, b)`) bound to the classes the
    launches name in P's place (`k<float, GridReducerAtomic><<<...>>>`: `GridReducerAtomic::operator()`), one call
    per class, at the same line; likewise a static member call `P::f(x)` (`FD::mul(a, b)` in `k<fd_q><<<...>>>`:
    `fd_q::mul`, which qualified lookup then follows through `typedef field<...> fd_q;`). A P no launch binds keeps
    its call, which the call graph resolves as written. `launches`: LaunchConfigs of the kernel (its own file's
    and others')."""
    facts = kernel.facts
    if facts is None or not facts.template_parameters or not any("::" in text for text, _ in facts.calls):
        return kernel
    # a template template parameter (`template <typename, typename> class GridReducer`) has no name in the facts:
    # its name is the declaration's last word
    position = {name: i for i, p in enumerate(facts.template_parameters)
                if (name := p.name or _last_word(p.text))}
    bound: list[tuple[str, int]] = []
    for text, line in facts.calls:
        if text.endswith(OPERATOR):
            param, member = text[: -len(OPERATOR)], OPERATOR
        else:
            param, _, rest = text.partition("::")
            member = "::" + rest
        if not _one_member(member) or param not in position:
            bound.append((text, line))
            continue
        classes = []
        for site in launches:
            args = _template_arguments(site.template_arguments)
            if len(args) > position[param] and args[position[param]] not in classes and args[position[param]]:
                classes.append(args[position[param]])
        bound.extend((f"{c}{member}", line) for c in classes) if classes else bound.append((text, line))
    if bound == list(facts.calls):
        return kernel
    return replace(kernel, facts=replace(facts, calls=tuple(bound)))


def _one_member(member: str) -> bool:
    """Whether `member` (`::f`, `::operator()`) names one member after the parameter (not `::A::f`, not empty)."""
    return member == OPERATOR or (member.startswith("::") and len(member) > 2 and "::" not in member[2:])


def _last_word(text: str) -> str | None:
    m = re.search(r"([A-Za-z_]\w*)\s*$", text)
    return m.group(1) if m else None


def _template_arguments(text: str | None) -> list[str]:
    """`<float, Reducer<T>, 4>` -> ["float", "Reducer", "4"]: the top-level arguments, each without its own template
    arguments or spaces."""
    return ["".join(a.split("<", 1)[0].split()) for a in split_template_arguments(text or "")]
