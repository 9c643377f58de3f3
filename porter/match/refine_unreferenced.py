"""Findings inside functions no code of the repository reaches: a repository-wide reference index of the functions
holding open findings, followed back through their callers.

A port changes what a build compiles and runs. A function template nothing instantiates is never compiled (C++
[temp.inst]: a template's definition is instantiated only where it is used), and an inline, static or in-class member
function nothing calls is never emitted and never runs; so a finding inside one is no port work, as cuZK's
device-side launches in member templates of its matrix library that only other uncalled templates call, or a
helper header's cooperative-groups fallback no compiled source instantiates.

`unreferenced(findings, sources, read, facts)`: each open finding (severity low or worse) of a C/C++/CUDA file
inside a function (porter.source.parse's definitions, innermost) that may be dead (below) is looked up in the
repository's reference index: every word of the function's name in the code of every C/C++/CUDA and Python file
(comments blanked; strings count, so a kernel named in a JIT loader's string or a pybind11 `m.def` is referenced),
outside the definitions of that name and outside `#if` arms hip-clang never takes (preprocessor.hip_reaches). A
mention at file scope (a declaration, an explicit instantiation, a table of function pointers, a macro body), in a
Python file, a test, benchmark or example (the code a library's API is exercised by), or inside a function that
cannot be dead is a root: the name is live. A mention inside another function
that may be dead is an edge, followed the same way (transitively: `p_transpose_ell2csr` called only from
`p_multi_exp_faster`, itself called by nothing). Names left unreached from every root are dead, and each open finding
inside one reads info with the reason in `data["unused"]` (Finding.unused: shown, never open).

A function may be dead only when nothing outside the repository can call it and the search can see every use:
- a plain name (no operator, constructor, destructor, or a name the language calls implicitly: `begin`, `end`,
  `swap`, `get`, `main`), not all capitals (a macro-shaped entry point: PYBIND11_MODULE, TORCH_LIBRARY);
- not `virtual`/`override`/`final` (called through a base), not `extern "C"` and not exported (`dllexport`,
  `visibility("default")`): an ABI for callers elsewhere;
- not in a file under an `include/` directory (a library's public API); in a repository with no entry point of its
  own (no `main`: a library, a Python extension included), not in a header and not a plain (external) kernel: a
  library's users call those;
- not defined through a macro, and no macro of the repository pastes tokens onto a part of its name (`##`):
  such a name is spelt nowhere;
- its definition emitted only where used (a template or a member of one, `inline`, `static`, `constexpr`, a member
  defined in its class) or a `__global__` kernel (launched only where named);
- the finding must be inside a template: hip-clang checks a non-template body whether it is called or not
  (GPUSorting's 32-bit `__activemask()` mask meets HIP's static_assert uncalled), and even in a template a spot it
  rejects when parsing stays open (PARSE_ERRORS: spaced chevrons, `register`); inline PTX (DEV001) reads not open,
  template or not (a plain kernel excepted: it is emitted unlaunched), only where every asm operand constraint is one the AMDGPU target parses
  (porter.match.refine_helpers.parses_on_amdgpu). A kernel's definition (KRN001) carries the kernel's deadness to
  its verdict (porter.portaware.status: ok and cuda-only when no open finding stays inside it).
Each file's part of the index (its definitions and how each may be dead as far as the file tells; for each word,
the definitions whose compiled code mentions it) is `reference_facts`, which the scan's worker takes from its own
read and parse (FileResult.references, cached with the file's result): the pass reads and parses only a file whose
result lacks it. When a budget runs out (READ_BUDGET bytes indexed, PARSE_BUDGET files consulted for the function
around a finding or a mention, MAX_NAMES names followed) every finding stands, or a mention past it is a use. What this cannot see (a call the compiler resolves by overload or `sizeof(T)` to another
definition of the same name) keeps the finding open: one live mention of the name keeps every definition of it.
"""
from __future__ import annotations

import bisect
import re
from typing import Callable, Iterable, Mapping

from porter.match.refine_helpers import parses_on_amdgpu
from porter.model.finding import Finding, Severity, Status
from porter.model.report import Definition, ReferenceFacts
from porter.source.discover import HEADER_SUFFIXES
from porter.source.parse import Function, SourceFile, parse
from porter.source.preprocessor import (Directive, Tri, blank_comments, condition, hip_arch_build,
                                       may_hold_directives, preprocessed)

READ_BUDGET = 256 * 1024 * 1024  # bytes of C/C++/CUDA and Python files whose words are searched
# files whose definitions are consulted for the function around a finding or a mention: once the bound of the files
# parsed on demand, kept so that a repository's answer does not change with how the pass holds its files
PARSE_BUDGET = 400
MAX_NAMES = 4000  # function names followed

UNREFERENCED = "unreferenced:"  # how the reason opens (porter.portaware.status reads a kernel's by it)
KERNEL_RULE = "KRN001"  # info, at each kernel's definition: carries "unreferenced" to the kernel's status
# Rules whose spot hip-clang rejects when it parses a template's definition, instantiated or not: spaced launch
# chevrons (`<< <`: no launch token to clang) and the `register` storage class (removed in C++17).
PARSE_ERRORS = frozenset({"DEV040", "DEV021"})
ASM_RULE = "DEV001"  # inline PTX: clang reads an uncalled body's asm constraints only (refine_helpers)
_NAME = re.compile(r"[A-Za-z_]\w*\Z")
# Names the language or the standard library calls without spelling them at the call (range-for, ADL swap,
# structured bindings), and program entry points.
_IMPLICIT = frozenset({"main", "begin", "end", "rbegin", "rend", "cbegin", "cend", "swap", "get", "size", "data",
                       "wmain", "DllMain"})
_ON_DEMAND = re.compile(r"\b(?:inline|__inline__|__forceinline__|__forceinline|static|constexpr|consteval)\b")
_EXPORTED = re.compile(r"\b(?:virtual|override|final|dllexport|visibility\s*\(\s*\"default\"|__global__\s+extern)\b"
                       r"|extern\s*\"C\"")
# A program's entry point. A Python binding module is none: the extension is a library its Python callers use, and
# what they reach through the bound functions is not all spelt in C++ (SageAttention's wgmma dispatch).
_ENTRY = re.compile(rb"\b(?:int|void)\s+main\s*\(")
# A test, benchmark, example or demo by its path: a directory so named, or a file name holding the word.
_CONSUMER = re.compile(r"(?i)(?:^|/)(?:tests?|testing|unit_?tests?|bench(?:marks?)?|examples?|samples?|demos?)/"
                       r"|(?:^|/)[^/]*(?:test|bench|example|sample|demo)[^/]*$")


def consumer(path: str) -> bool:
    """Whether the file exercises a library rather than being one (see _CONSUMER)."""
    return _CONSUMER.search(path) is not None


_HEADER_EXTENSIONS = frozenset(s.lstrip(".").lower() for s in HEADER_SUFFIXES)
# A word that may name a function where it stands: not inside a longer one (`1e5f`'s `e5f`)
_MENTION = re.compile(rb"(?<![\w$])[A-Za-z_$][\w$]*")
# C and C++ keywords, never a function's name (the most frequent words of code: left out of the index)
_KEYWORDS = frozenset(b"""alignas alignof asm auto bool break case catch char class const consteval constexpr constinit
const_cast continue decltype default delete do double dynamic_cast else enum explicit extern false float for friend
goto if inline int long mutable namespace new noexcept nullptr operator private protected public register
reinterpret_cast return short signed sizeof static static_assert static_cast struct switch template this throw true
try typedef typeid typename union unsigned using virtual void volatile while""".split())
_PASTE = re.compile(rb"(\w*)\s*##\s*(\w*)")


def _ancestors(fn: Function):
    node = fn.node.parent
    while node is not None:
        yield node
        node = node.parent


def _kind(fn: Function, data: bytes) -> tuple[bool, bool, bool] | None:
    """(template, on-demand, exported) of a definition, or None when the node cannot be read."""
    template = member = linkage = False
    for a in _ancestors(fn):
        if a.type == "template_declaration":
            template = True
        elif a.type == "field_declaration_list":
            member = True
        elif a.type == "linkage_specification":
            linkage = True
    body = fn.node.child_by_field_name("body")
    head = data[fn.start_byte: body.start_byte if body is not None else fn.end_byte].decode("utf-8", "replace")
    # a template's own `template <...>` line precedes the node: read back to the previous statement for exports
    exported = linkage or _EXPORTED.search(head) is not None
    on_demand = template or member or _ON_DEMAND.search(head) is not None
    return template, on_demand, exported


_DECLARATOR_WRAPPERS = frozenset({"qualified_identifier", "template_function", "pointer_declarator",
                                  "reference_declarator", "destructor_name", "operator_name"})


_OPENS_PARAMETERS = re.compile(rb"\s*\(")  # after a declarator's name: its parameter list


def _declared_only(sf: SourceFile, start: int, end: int) -> bool:
    """Whether the word at [start, end) is the declarator of a function declaration (a prototype, a member
    declared in its class) with no export or `virtual` on it: a declaration is no use, a definition elsewhere needs
    it. A `virtual`/`extern "C"` declaration stays a use: the definition it announces is called from elsewhere."""
    root = sf.root
    if root is None:
        return False
    node = root.descendant_for_byte_range(start, end)
    if node is None or node.type not in ("identifier", "field_identifier"):
        return False
    parent = node.parent
    while parent is not None and parent.type in _DECLARATOR_WRAPPERS:
        node, parent = parent, parent.parent
    if parent is None or parent.type != "function_declarator" or parent.child_by_field_name("declarator") != node:
        return False
    node, parent = parent, parent.parent
    while parent is not None and parent.type in _DECLARATOR_WRAPPERS:
        node, parent = parent, parent.parent
    if parent is None or parent.type not in ("declaration", "field_declaration"):
        return False
    if parent.child_by_field_name("declarator") != node:
        return False
    outer = parent.parent
    text = (parent.text or b"").decode("utf-8", "replace")
    if _EXPORTED.search(text) or (outer is not None and outer.type == "linkage_specification"):
        return False
    # a member's declaration in its class, or a template's: a plain function's prototype (`__global__ void k(float*);`
    # in a header) announces a definition for other translation units, maybe outside the repository: a use
    return parent.type == "field_declaration" or (outer is not None and outer.type == "template_declaration")


def _asked(f: Finding) -> bool:
    """Whether the finding's function is looked up: an open finding of severity low or worse, or a kernel's
    definition (KERNEL_RULE, info)."""
    return f.status is Status.OPEN and (f.severity > Severity.INFO or f.rule == KERNEL_RULE)


def _locally_ok(path: str, fn: Function, kind: tuple[bool, bool, bool]) -> bool:
    """Whether the definition may be dead as far as its own file tells (the module doc's list, but for the
    repository's entry point and its macros' pastes)."""
    name = fn.name
    if not _NAME.match(name) or name in _IMPLICIT or name.isupper() or fn.via_macro:
        return False
    if "~" in fn.qualified_name or fn.qualified_name.endswith(f"{name}::{name}"):
        return False
    for a in _ancestors(fn):
        if a.type in ("class_specifier", "struct_specifier", "union_specifier"):
            own = a.child_by_field_name("name")
            if own is not None and (own.text or b"").decode("utf-8", "replace").split("<", 1)[0] == name:
                return False  # a constructor: called by every object made
    if "include" in path.split("/")[:-1]:
        return False
    _, on_demand, exported = kind
    return not exported and (on_demand or fn.is_kernel)


def reference_facts(path: str, language: str, data: bytes, sf: SourceFile | None = None) -> ReferenceFacts:
    """What the pass reads from one C/C++/CUDA or Python file (ReferenceFacts), from its bytes and, for C/C++/CUDA,
    its parse without the repository's macros (porter.source.parse.parse(path, "cuda", data); made here when not
    given): the scan's worker takes it from its own read, so the pass reads and parses no file again. A Python file's
    are its words alone (any mention there is a use)."""
    if language != "cuda":
        words = {m.group(0).decode("ascii") for m in _MENTION.finditer(data)}
        return ReferenceFacts(size=len(data), entry=False, pastes=(), definitions=(),
                              mentions=tuple((w, ()) for w in sorted(words)))
    if sf is None:
        sf = parse(path, language, data)
    code = blank_comments(data) if b"/" in data else data  # no comment without a slash: no comment pass
    header = path.rsplit(".", 1)[-1].lower() in _HEADER_EXTENSIONS
    functions = sf.functions  # sorted by first byte; definitions nest or are disjoint
    index = {id(fn): i for i, fn in enumerate(functions)}
    data_dirs = list(preprocessed(sf).directives) if may_hold_directives(data) else []  # the scan's own lex
    starts = sf.line_starts

    def position(offset: int, line: int) -> tuple[int, int]:
        while line < len(starts) and starts[line] <= offset:
            line += 1
        while line > 1 and starts[line - 1] > offset:
            line -= 1
        return line, offset - starts[line - 1]

    definitions = []
    # whether a line is compiled turns only at a directive's line: one answer per stretch between two, all in one walk
    dir_lines = [d.line for d in data_dirs]
    stretch = _stretches(data_dirs)
    stack: list[Function] = []
    for fn in functions:
        while stack and stack[-1].end_byte <= fn.start_byte:
            stack.pop()
        outer = index[id(stack[-1])] if stack else -1
        stack.append(fn)
        kind = _kind(fn, sf.data)
        assert kind is not None
        definitions.append(Definition(
            name=fn.name, start_byte=fn.start_byte, end_byte=fn.end_byte,
            start=position(fn.start_byte, fn.start_line), end=position(fn.end_byte, fn.end_line),
            is_kernel=fn.is_kernel, template=kind[0], on_demand=kind[1], local_ok=_locally_ok(path, fn, kind),
            library_only=header or (fn.is_kernel and not kind[1]), reached=stretch[bisect.bisect_left(dir_lines, fn.start_line)],
            asm_parses=parses_on_amdgpu(fn.node.text or b""), outer=outer))
    every = consumer(path)
    mentions: dict[bytes, dict[int, None]] = {}  # word -> its definitions mentioning it, in file order
    line, counted = 1, 0
    for m in _MENTION.finditer(code):
        word = m.group(0)
        if word in _KEYWORDS:
            continue  # no function's name
        at = m.start()
        seen = mentions.get(word)
        if seen is None:
            seen = mentions[word] = {}
        line += code.count(b"\n", counted, at)
        counted = at
        if not stretch[bisect.bisect_left(dir_lines, line) if dir_lines else 0]:
            continue
        inner = sf.enclosing(at)
        # -2: a prototype or member declaration names the function without using it. Only a word its parameter list
        # follows can be a declarator: asking the syntax tree for every other word costs its depth each time, which
        # is quadratic on a long run like `warp=warp=...` (test_red_s18's 129 KB line took 10 CPU-s, not 0.5)
        i = (index[id(inner)] if inner is not None else
             -2 if _OPENS_PARAMETERS.match(code, m.end()) and _declared_only(sf, at, m.end()) else -1)
        seen.setdefault(i, None)
    return ReferenceFacts(
        size=len(data), entry=_ENTRY.search(code) is not None,
        pastes=tuple((a.decode("ascii"), b.decode("ascii")) for a, b in _PASTE.findall(code)) if b"##" in code else (),
        definitions=tuple(definitions),
        mentions=tuple((w.decode("ascii"), tuple(seen)) for w, seen in sorted(mentions.items()) if seen or every))


def _stretches(dirs: list[Directive]) -> list[bool]:
    """hip_reaches for the lines after each count of directives: [k] answers a line the first k precede (one walk of
    porter.source.preprocessor._reaches's, which walks them all for each line asked)."""
    build = hip_arch_build()
    stack: list[tuple[list[Tri], Tri]] = []
    out = [True]
    closed = 0  # open groups whose current arm reads false
    for d in dirs:
        if d.kind in ("if", "ifdef", "ifndef"):
            t = condition(d.kind, d.text, build)[0]
            stack.append(([t], t))
            closed += t is False
        elif d.kind in ("elif", "elifdef", "elifndef", "else") and stack:
            prev, _ = stack[-1]
            own: Tri = True if d.kind == "else" else condition("if" if d.kind == "elif" else d.kind[2:], d.text,
                                                                build)[0]
            if any(p is True for p in prev) or own is False:
                cur: Tri = False
            else:
                cur = own if all(p is False for p in prev) else None
            closed += (cur is False) - (stack[-1][1] is False)
            stack[-1] = (prev + [own], cur)
        elif d.kind == "endif" and stack:
            closed -= stack.pop()[1] is False
        out.append(closed == 0)
    return out


def _around(f: Finding, facts: ReferenceFacts) -> int | None:
    """The index of the definition around the finding: innermost, or for a kernel's definition (KERNEL_RULE, at its
    first line, which may be its `template <...>` line before the definition's node) the nearest kernel so named."""
    defs = facts.definitions
    if f.rule == KERNEL_RULE:
        near = [(abs(d.start[0] - f.line), i) for i, d in enumerate(defs)
                if d.is_kernel and d.name == f.kernel and d.end[0] >= f.line]
        return min(near)[1] if near else None
    at = (f.line, max(f.column - 1, 0))
    inside = [i for i, d in enumerate(defs) if d.start <= at < d.end]
    return max(inside, key=lambda i: defs[i].start_byte) if inside else None


def unreferenced(findings: Iterable[Finding], sources: Mapping[str, str],
                 read: Callable[[str], bytes | None] | None = None,
                 facts: Mapping[str, ReferenceFacts] | None = None) -> list[Finding]:
    """The findings, each open one inside a function no code of the repository reaches at info (see the module
    doc). `sources`: the scan's C/C++/CUDA and Python files (path -> porter language); `facts`: what their scans
    took for this pass (reference_facts); `read`: the bytes of a file `facts` lacks (None when unreadable), from
    which its facts are taken here. PARSE_BUDGET bounds the files whose definitions are consulted, as when each was
    parsed on demand."""
    findings = list(findings)
    wanted = [f for f in findings if _asked(f) and f.rule != KERNEL_RULE and sources.get(f.path) == "cuda"]
    if not wanted:
        return findings
    facts = facts or {}
    files: dict[str, ReferenceFacts] = {}
    spent = 0
    for path in sorted(sources):
        x = facts.get(path)
        if x is None:
            data = read(path) if read is not None else None
            if data is None:
                continue
            x = reference_facts(path, sources[path], data)
        spent += x.size
        if spent > READ_BUDGET:
            return findings
        files[path] = x
    consulted: set[str] = set()

    def consult(path: str) -> bool:
        """Whether the file's definitions may be consulted (within PARSE_BUDGET files)."""
        if path not in consulted:
            if len(consulted) >= PARSE_BUDGET:
                return False
            consulted.add(path)
        return True
    entry = any(x.entry for x in files.values())
    pastes = [(a.encode(), b.encode()) for x in files.values() for a, b in x.pastes]
    words = {path: dict(x.mentions) for path, x in files.items()}

    def pasted(name: str) -> bool:
        b = name.encode()
        return any((len(left) > 1 and b.startswith(left)) or (len(right) > 1 and b.endswith(right))
                   for left, right in pastes)

    # name -> its definitions: (path, start byte, end byte, template, on-demand)
    defs: dict[str, list[tuple[str, int, int, bool, bool]]] = {}
    dead_ok: dict[str, bool] = {}
    spans: dict[tuple[str, str], list[tuple[int, int]]] = {}  # (name, path) -> its definitions' byte spans there

    def note(path: str, d: Definition) -> bool:
        """Record a definition; whether its name may be dead so far."""
        entry_ = (path, d.start_byte, d.end_byte, d.template, d.on_demand)
        if entry_ not in defs.setdefault(d.name, []):
            defs[d.name].append(entry_)
            spans.setdefault((d.name, path), []).append((d.start_byte, d.end_byte))
        if not d.reached:
            # a definition the ROCm build never compiles (CUDASW4's `#if CUDART_VERSION >= 9000` atomicAggInc beside
            # its `#else` twin) decides nothing about the name; a name defined only there is the arm's own question
            return True
        ok = d.local_ok and (entry or not d.library_only) and not pasted(d.name)
        dead_ok[d.name] = dead_ok.get(d.name, True) and ok
        return ok

    # The function around each open finding.
    around: dict[int, tuple[str, Definition]] = {}
    for i, f in enumerate(findings):
        x = files.get(f.path)
        if not _asked(f) or sources.get(f.path) != "cuda" or x is None or not consult(f.path):
            continue
        at = _around(f, x)
        if at is None:
            continue
        note(f.path, x.definitions[at])
        around[i] = (f.path, x.definitions[at])
    todo = sorted(n for n, ok in dead_ok.items() if ok)
    live: set[str] = {n for n, ok in dead_ok.items() if not ok}
    edges: dict[str, set[str]] = {}  # name -> the functions whose bodies mention it
    followed: set[str] = set()
    while todo:
        batch = [n for n in todo if n not in followed and n not in live]
        todo = []
        if not batch:
            break
        followed |= set(batch)
        if len(followed) > MAX_NAMES:
            return findings
        for path, x in files.items():
            said = words[path]
            hits = [n for n in batch if n in said]
            if not hits:
                continue
            defined = x.definitions
            for name in hits:
                if sources[path] != "cuda" or consumer(path):
                    # named in Python (a binding, a JIT loader), or in a test, benchmark or example: the code a library's API is exercised by, whether or
                    # not a build target runs it (GPUSorting's SplitSortPairs, called by its SplitSortTests.cuh)
                    live.add(name)
                    continue
                for i in said[name]:
                    if name in live:
                        break
                    if i == -2:
                        if not consult(path):
                            live.add(name)  # past the parse budget: unknown, so used
                        continue  # a declaration names the function without using it
                    if i >= 0:
                        j = i  # its own definition (recursion, an overload calling another): no use
                        while j >= 0 and not (defined[j].name == name
                                              and (defined[j].start_byte, defined[j].end_byte)
                                              in spans.get((name, path), ())):
                            j = defined[j].outer
                        if j >= 0:
                            continue
                    if not consult(path):
                        live.add(name)  # past the parse budget: unknown, so used
                        continue
                    if i < 0:
                        live.add(name)  # at file scope: an instantiation, a table of pointers, a macro body
                        continue
                    caller = defined[i]
                    if caller.name == name:
                        note(path, caller)  # another definition of the name (an overload elsewhere)
                        continue
                    if not note(path, caller):
                        live.add(name)
                        continue
                    edges.setdefault(name, set()).add(caller.name)
                    if caller.name not in followed and caller.name not in live:
                        todo.append(caller.name)
    live |= {n for n, ok in dead_ok.items() if not ok}
    # live spreads to what live functions mention
    mentions: dict[str, set[str]] = {}
    for callee, named_by in edges.items():
        for name in named_by:
            mentions.setdefault(name, set()).add(callee)
    stack = list(live)
    while stack:
        n = stack.pop()
        for callee in mentions.get(n, ()):
            if callee not in live:
                live.add(callee)
                stack.append(callee)
    out = []
    for i, f in enumerate(findings):
        held = around.get(i)
        if held is not None and held[1].name not in live and held[1].name in followed:
            path, fn = held
            own = next((d for d in defs.get(fn.name, ()) if d[0] == path and d[1] == fn.start_byte), None)
            template = bool(own and own[3])
            if f.rule == ASM_RULE:
                # clang checks an asm statement's constraints when it parses it, in a template too: a PTX register
                # class (`"l"`) breaks the ROCm build uncalled; `"=r"` parses, and the PTX is read only once emitted.
                # A plain (non-template) kernel is emitted whether launched or not (external linkage, like any
                # `__global__` definition), so its PTX always reaches the AMDGPU assembler
                keep = not fn.asm_parses or (fn.is_kernel and not template)
            elif f.rule == KERNEL_RULE:
                # a kernel named nowhere at all is launched by a name the search cannot see (cuSZ's
                # KERNEL_CUHIP_c_lorenzo_2d1l, named through its build's macros): only one whose every launch sits
                # in dead code reads dead
                keep = not edges.get(fn.name)
            else:
                # hip-clang checks a non-template body whether it is called or not (a 32-bit mask meets HIP's
                # static_assert in any translation unit including GPUSorting's Utils.cuh), and a template's syntax
                # when it parses the definition (`f << <gs, bs >> >(args...)`)
                keep = not template or f.rule in PARSE_ERRORS
            if not keep:
                callers = sorted(edges.get(fn.name, set()))
                what = "template" if template else "kernel" if fn.is_kernel else "function"
                named = ("named nowhere in the repository's code outside its own definition" if not callers else
                         f"named in the repository's code only by {', '.join(f'`{c}`' for c in callers[:3])}"
                         f"{' and others' if len(callers) > 3 else ''}, which nothing the build reaches uses either")
                f = f.unused(f"{UNREFERENCED} `{fn.name}` ({what}) is {named}: no build "
                             f"{'instantiates' if template else 'runs'} it, so this is no port work")
        out.append(f)
    return out
