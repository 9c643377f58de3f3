"""A kernel's `__shared__` memory (porter.kernels.facts): its static arrays sized by folding their extents with the
file's constants, the launch sites' template arguments and the values other files' constants have per build;
extern arrays; and sizeof of the file's plain structs. `SharedMemoryMeasure` is the part of the file context
that does it."""
from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

import tree_sitter as ts

from porter.kernels.constfold import (STRUCT_TYPES, Constants, Unknown, fold, fold_text, split_template_arguments,
                                     type_size)
from porter.kernels.facts_walk import Walk
from porter.model.kernel import ExternShared, LaunchConfig, SharedArray, TemplateParameter, Unresolved
from porter.source.parse import SourceFile
from porter.source.parse_queries import descendants
from porter.source.syntax import LaunchSite


class SharedMemoryMeasure:
    """The shared-memory part of porter.kernels.facts.FileContext (which holds the state these methods read)."""

    # The state these methods read, set up by FileContext (env and struct_sizes made when first asked).
    sf: SourceFile
    launches: tuple[LaunchSite, ...]
    file_shared: dict[str, ts.Node]
    alternatives: dict[str, tuple[int, ...]]
    _type_params: set[str]
    _launch_host_types: dict[int, dict[str, int]] | None

    if TYPE_CHECKING:  # FileContext's cached properties
        @property
        def env(self) -> Constants: ...

        @property
        def struct_sizes(self) -> dict[str, int]: ...

    def _bounded_shared(self, merged: Walk, tparams: list[TemplateParameter], sites: list[LaunchConfig],
                        env: Constants) -> tuple[SharedArray, ...] | None:
        """The static arrays sized with what the launches and the builds give, the largest case winning: template
        arguments at the launch sites (`k<256, float><<<...>>>`; a type argument that is the launching function's
        own template parameter is sized by that function's explicit instantiations in this file), and each value a
        constant of another file has per build (`kWarpSize` 32 or 64; the arrays then say "at most"). None when
        some case still leaves an array unsized."""
        reached = _reached_names(merged, self.env) if self.alternatives else set()
        choices = [(n, v) for n, v in sorted(self.alternatives.items()) if n in reached]
        if len(choices) > 3:
            return None  # too many combinations to try, and the bound would say little
        combos: list[dict[str, int]] = [{}]
        for name, values in choices:
            combos = [{**c, name: v} for c in combos for v in values]
        bindings = _site_bindings(tparams, sites, self.env, self._host_types(sites)) if tparams else []
        cases = [(c, b) for c in combos for b in (bindings or [None])]
        best = None
        for combo, binding in cases:
            base = Constants({**(binding.env.sources if binding else self.env.sources), **combo})
            case_env = base.with_template_params(binding.env.template_params if binding else env.template_params)
            case_unknown: list[Unresolved] = []
            sized, _ = self._shared(merged.shared_decls, case_env, case_unknown, merged.identifiers,
                                    binding.types if binding else None)
            if case_unknown:
                if choices:
                    return None  # a bound must cover every case
                continue  # as before: a launch whose arguments do not fold says nothing about the others
            total = sum(a.bytes for a in sized)
            if best is None or total > best[0]:
                best = (total, sized)
        if best is None:
            return None
        if not choices:
            return best[1]
        note = "at most: the largest over " + "; ".join(f"{n} = {', '.join(map(str, v))} (a value per build)"
                                                       for n, v in choices)
        return tuple(dataclasses.replace(a, reason=note) for a in best[1])

    def _why(self, reason: str) -> str:
        """An unknown extent's reason, saying so when the constant has a value per build (porter tried them)."""
        m = re.match(r"`(\w+)` is not a constant defined in this file$", reason)
        if m and m.group(1) in self.alternatives:
            values = ", ".join(map(str, self.alternatives[m.group(1)]))
            return f"`{m.group(1)}` has a value per build ({values}) and another part is unknown"
        return reason

    def _host_types(self, sites: list[LaunchConfig]) -> dict[int, dict[str, int]]:
        """Per launch line: the launching function's type template parameters sized by its explicit
        instantiations in this file (`run<unsigned char>(...)`), the largest over them; a parameter left out when
        some instantiation's type has no size porter knows, or when the file names none. The same for every
        kernel of the file (made once)."""
        if self._launch_host_types is not None:
            return self._launch_host_types
        out: dict[int, dict[str, int]] = {}
        self._launch_host_types = out
        by_host: dict[int, dict[str, int]] = {}
        for launch, start, _ in self.launches:
            host = self.sf.enclosing(start)
            if host is None or host.node.parent is None or host.node.parent.type != "template_declaration":
                continue
            if host.start_byte in by_host:
                if by_host[host.start_byte]:
                    out[launch.line] = by_host[host.start_byte]
                continue
            by_host[host.start_byte] = {}
            params = template_params(host.node)
            if not any(p.kind == "type" for p in params):
                continue
            sizes: dict[str, int | None] = {}
            for m in _instantiations(host.name).finditer(self.sf.data):
                if host.start_byte <= m.start() < host.end_byte:
                    continue
                args = _balanced_template_arguments(self.sf.data, m.end() - 1)
                if args is None:
                    continue
                for p, arg in zip(params, split_template_arguments(args)):
                    if p.kind == "type" and p.name:
                        size = type_size(arg) or self.struct_sizes.get(arg)
                        prev = sizes.get(p.name, 0)
                        sizes[p.name] = None if size is None or prev is None else max(prev, size)
            bound = by_host[host.start_byte] = {k: v for k, v in sizes.items() if v}
            if bound:
                out[launch.line] = bound
        return out



    # ------------------------------------------------------------------------------------------ shared memory

    def _file_scope_shared(self) -> dict[str, ts.Node]:
        out = {}
        root = self.sf.root
        if root is None or b"__shared__" not in root.text:  # the parsed text (a qualifier macro may spell it)
            return out
        for n in root.children:
            if n.type == "declaration" and any(c.type == "type_qualifier" and c.text == b"__shared__" for c in n.children):
                for name in _declarator_names(n):
                    out[name] = n
        return out

    def _shared(self, decls: list[ts.Node], env: Constants, unknown: list[Unresolved], identifiers: set[str],
                types: dict[str, int] | None = None) -> tuple[tuple[SharedArray, ...], tuple[ExternShared, ...]]:
        """The kernel's static and extern `__shared__` variables: its own declarations and the file-scope ones it names."""
        arrays: list[SharedArray] = []
        extern: list[ExternShared] = []
        decls = list(decls) + [d for name, d in self.file_shared.items() if name in identifiers]
        seen_nodes: set[int] = set()
        for decl in decls:
            if decl.start_byte in seen_nodes:
                continue
            seen_nodes.add(decl.start_byte)
            ty = decl.child_by_field_name("type")
            tytext = " ".join(ty.text.decode("utf-8", "replace").split()) if ty is not None else "?"
            is_extern = any(c.type == "storage_class_specifier" and c.text == b"extern" for c in decl.children)
            line = decl.start_point.row + 1
            for d in decl.children:
                if d.type not in ("identifier", "array_declarator", "init_declarator", "pointer_declarator"):
                    continue
                if d.type == "init_declarator":
                    d = d.child_by_field_name("declarator")
                name, extents_nodes, pointer = _unwrap_declarator(d)
                if is_extern:
                    extern.append(ExternShared(name, tytext, line))
                    continue
                elem = 8 if pointer else (type_size(tytext) or (types or {}).get(tytext) or self.struct_sizes.get(tytext))
                extents: list[int | str] = []
                reasons: list[str] = []
                for e in extents_nodes:
                    v = fold(e, env) if e is not None else Unknown("array without an extent")
                    if isinstance(v, Unknown):
                        extents.append(e.text.decode("utf-8", "replace") if e is not None else "")
                        reasons.append(self._why(v.reason))
                    else:
                        extents.append(int(v))
                if elem is None:
                    reasons.append(f"element type `{tytext}` is a template parameter" if tytext in env.template_params
                                   or tytext in self._type_params else f"element type `{tytext}` has no size porter "
                                   "knows without --deep (not a builtin, CUDA vector or same-file plain struct)")
                if reasons:
                    reason = "; ".join(dict.fromkeys(reasons))
                    arrays.append(SharedArray(name, tytext, line, tuple(extents), elem, None, reason))
                    unknown.append(Unresolved(f"__shared__ {name}", reason))
                else:
                    total = elem
                    for x in extents:
                        total *= x
                    arrays.append(SharedArray(name, tytext, line, tuple(extents), elem, total))
        return tuple(arrays), tuple(extern)


@dataclasses.dataclass(frozen=True)
class _Binding:
    """A kernel's template parameters bound by one launch site's template arguments."""

    env: Constants
    types: dict[str, int]


def _reached_names(merged: Walk, env: Constants) -> set[str]:
    """The names the kernel's shared declarations use, directly or through this file's constants."""
    seen: set[str] = set()
    todo = [n for d in merged.shared_decls for n in re.findall(r"[A-Za-z_]\w*", d.text.decode("utf-8", "replace"))]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        src = env.sources.get(n)
        if src is not None and not isinstance(src, (int, float)):
            text = src if isinstance(src, str) else src.text.decode("utf-8", "replace")
            todo.extend(re.findall(r"[A-Za-z_]\w*", text))
    return seen


def _instantiations(name: str) -> re.Pattern:
    r"""`\bname\s*<`, spelt with the name first and the word boundary before it as a lookbehind after it when the
    name starts with a word character (the same matches): sre then skips ahead to the name instead of trying the
    boundary at every byte of the file."""
    word = re.escape(name.encode())
    if re.match(rb"\w", name.encode()):
        return re.compile(word + rb"(?<!\w" + word + rb")\s*<")
    return re.compile(rb"\b" + word + rb"\s*<")


def _balanced_template_arguments(data: bytes, open_at: int) -> str | None:
    """`<...>` starting at data[open_at] == '<', balanced, on at most a few hundred bytes; None if it does not close."""
    depth = 0
    for i in range(open_at, min(len(data), open_at + 400)):
        c = data[i:i + 1]
        if c == b"<":
            depth += 1
        elif c == b">":
            depth -= 1
            if depth == 0:
                return data[open_at:i + 1].decode("utf-8", "replace")
        elif c in (b";", b"{", b"}"):
            return None
    return None


def _site_bindings(tparams: list[TemplateParameter], sites: list[LaunchConfig], env: Constants,
                   host_types: dict[int, dict[str, int]] | None = None) -> list[_Binding]:
    """One binding per distinct launch-site template argument list that binds every parameter the arrays need:
    value parameters folded to numbers, type parameters to their sizes (unfoldable ones stay unknown; a type that
    is the launching function's own template parameter is sized by `host_types`, per launch line)."""
    out = []
    hosts: dict[str, dict[str, int]] = {}
    for s in sites:
        if s.template_arguments:
            for k, v in (host_types or {}).get(s.line, {}).items():
                hosts.setdefault(s.template_arguments, {})[k] = max(v, hosts.get(s.template_arguments, {}).get(k, 0))
    for text in sorted({s.template_arguments for s in sites if s.template_arguments}):
        args = split_template_arguments(text)
        values: dict[str, Any] = {}
        types: dict[str, int] = {}
        for p, arg in zip(tparams, args):
            if not p.name:
                continue
            if p.kind == "type":
                size = type_size(arg) or hosts.get(text, {}).get(arg)
                if size is not None:
                    types[p.name] = size
            else:
                v = fold_text(arg, env)
                if not isinstance(v, Unknown):
                    values[p.name] = v
        bound = Constants({**env.sources, **values})
        out.append(_Binding(bound.with_template_params(p.name for p in tparams if p.name and p.name not in values
                                                       and p.kind != "type"), types))
    return out


def struct_sizes(root: ts.Node | None, env: Constants) -> dict[str, int]:
    """sizeof of the file's plain structs (fields of builtin/CUDA vector types or earlier plain structs, arrays of
    foldable extents), laid out as C does: each field at its alignment, the size rounded to the largest one."""
    out: dict[str, int] = {}
    if root is None:
        return out
    if b"struct" not in root.text and b"class" not in root.text:
        return out
    for n in descendants(root, STRUCT_TYPES):
        name = n.child_by_field_name("name")
        body = n.child_by_field_name("body")
        if name is None or body is None or name.type != "type_identifier":
            continue
        offset, align, ok = 0, 1, True
        for field in body.named_children:
            if field.type == "comment":
                continue
            if field.type != "field_declaration":
                if field.type in ("access_specifier",):
                    continue
                ok = False  # methods, nested types, templates: not a plain struct porter sizes
                break
            ty = field.child_by_field_name("type")
            tytext = " ".join(ty.text.decode("utf-8", "replace").split()) if ty is not None else ""
            if any(c.type == "storage_class_specifier" and c.text == b"static" for c in field.children):
                continue
            esize = type_size(tytext) or out.get(tytext)
            declarators = [c for c in field.children if c.type in ("field_identifier", "array_declarator",
                                                                       "pointer_declarator", "bitfield_clause")]
            if esize is None or not declarators or any(c.type == "bitfield_clause" for c in declarators):
                ok = False
                break
            for d in declarators:
                a = esize if esize in (1, 2, 4, 8, 16) else 4 if esize % 4 == 0 else 2 if esize % 2 == 0 else 1
                size, a = (8, 8) if d.type == "pointer_declarator" else (esize, a)
                if d.type == "array_declarator":
                    count = 1
                    while d is not None and d.type == "array_declarator":
                        v = fold(d.child_by_field_name("size"), env)
                        if isinstance(v, Unknown) or not isinstance(v, int):
                            ok = False
                            break
                        count *= v
                        d = d.child_by_field_name("declarator")
                    size *= count
                if not ok:
                    break
                offset = (offset + a - 1) // a * a + size
                align = max(align, a)
            if not ok:
                break
        if ok and offset:
            out[name.text.decode()] = (offset + align - 1) // align * align
    return out


def template_params(fn_node: ts.Node) -> list[TemplateParameter]:
    parent = fn_node.parent
    if parent is None or parent.type != "template_declaration":
        return []
    plist = parent.child_by_field_name("parameters")
    out = []
    for p in plist.named_children if plist is not None else ():
        if p.type == "comment":
            continue
        name = None
        for c in reversed(p.named_children):
            if c.type in ("identifier", "type_identifier"):
                name = c.text.decode()
                break
        if p.type in ("optional_parameter_declaration", "optional_type_parameter_declaration"):
            nm = p.child_by_field_name("declarator") or p.child_by_field_name("name")
            name = nm.text.decode() if nm is not None else name
        kind = "type" if "type_parameter" in p.type else "value"
        out.append(TemplateParameter(name, kind, p.text.decode("utf-8", "replace")))
    return out


def _unwrap_declarator(d: ts.Node) -> tuple[str, list[ts.Node | None], bool]:
    extents: list[ts.Node | None] = []
    pointer = False
    while d is not None and d.type != "identifier":
        if d.type == "array_declarator":
            extents.append(d.child_by_field_name("size"))
        elif d.type == "pointer_declarator":
            pointer = True
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            break
        d = nxt
    return (d.text.decode("utf-8", "replace") if d is not None else "?"), list(reversed(extents)), pointer


def _declarator_names(decl: ts.Node) -> list[str]:
    names = []
    for d in decl.children:
        if d.type == "init_declarator":
            d = d.child_by_field_name("declarator")
        if d is not None and d.type in ("identifier", "array_declarator", "pointer_declarator"):
            names.append(_unwrap_declarator(d)[0])
    return names
