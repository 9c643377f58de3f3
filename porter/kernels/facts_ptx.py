"""Inline asm statements read as PTX (porter.kernels.facts): each statement's instruction families (the longest
dotted prefix among PTX_FAMILIES, a special register the PTX table judges on its own spelt with it) and whether
the statement is AMD GCN assembly instead."""
from __future__ import annotations

import re
from typing import Any

import tree_sitter as ts

from porter.kernels import ptx as ptx_table
from porter.kernels.facts_vocabulary import PTX_FAMILIES

# Special registers the table judges on their own (`mov.u32 %0, %laneid;` is the family `mov %laneid`).
_PTX_REGISTERS = ptx_table.register_families()


_INSTR_SPLIT = re.compile(r"[;\n]")
_OPCODE = re.compile(r"[a-z][a-z0-9_]*(?:\.[a-z0-9_:]+)*")


# AMD GCN mnemonics and builtins: assembly HIP code is meant to use, never PTX.
AMDGCN_ASM = re.compile(r"^(?:v|s|ds|buffer|global|flat|scratch|image|exp)_[a-z0-9_]+$|^__builtin_amdgcn_")


def amdgcn(ptx: dict[str, Any]) -> bool:
    return all(AMDGCN_ASM.match(f) for f in ptx["families"])


_PTX_FAMILY_SET = frozenset(PTX_FAMILIES)


def _ptx_family(opcode: str) -> str | None:
    """The longest of PTX_FAMILIES that is the opcode or a dotted prefix of it (`cp.async.bulk.tensor.2d...`)."""
    parts = opcode.split(".")
    for k in range(len(parts), 0, -1):
        prefix = ".".join(parts[:k])
        if prefix in _PTX_FAMILY_SET:
            return prefix
    return None


def _string_literals(node: ts.Node) -> list[ts.Node]:
    """The string literals at or under `node`, in tree order (a string literal holds none, so none is entered)."""
    out: list[ts.Node] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "string_literal":
            out.append(n)
        else:
            stack.extend(reversed(n.children))
    return out


def _string_text(s: ts.Node) -> str:
    """A string literal's characters as written (escapes kept): its contents and escapes, which are all of what
    lies between its quotes (the grammar gives a string literal no other child); read from the children when the
    literal is not one closed `"..."` without errors (a prefix, a missing quote, a line continuation)."""
    text = s.text
    if (text[:1] == b'"' and text[-1:] == b'"' and len(text) >= 2 and not s.has_error
            and s.child_count == s.named_child_count + 2):
        return text[1:-1].decode("utf-8", "replace")
    return "".join(c.text.decode("utf-8", "replace") for c in s.named_children
                   if c.type in ("string_content", "escape_sequence"))


def ptx_statement(n: ts.Node) -> dict[str, Any]:
    code = n.child_by_field_name("assembly_code")
    parts = []
    if code is not None:
        nodes = [code] if code.type == "string_literal" else [c for c in code.named_children if c.type == "string_literal"]
        if code.type == "concatenated_string" or not nodes:
            nodes = _string_literals(code)
        for s in nodes:
            parts.append(_string_text(s))
    text = "\n".join(parts).replace("\\n", "\n").replace("\\t", " ")
    families = set()
    for instr in _INSTR_SPLIT.split(text):
        instr = instr.strip().lstrip("{}").strip()
        if not instr or instr.startswith((".reg", ".shared", ".local", ".param", "//", "}")) or instr.endswith(":"):
            continue
        if instr.startswith("@"):
            instr = instr.split(None, 1)[1] if " " in instr else ""
        opcode = instr.split()[0] if instr.split() else ""
        if not _OPCODE.fullmatch(opcode):
            continue  # operands of an instruction split over lines (`{%0,%1},`), not a mnemonic
        family = _ptx_family(opcode) or opcode.split(".")[0]
        registers = _PTX_REGISTERS.get(family)
        if registers:
            # `%%laneid` in the asm string is `%laneid` in PTX
            read = [r for r in re.findall(r"%+([a-z][a-z0-9_]*)\b", instr) if f"%{r}" in registers]
            if read:
                family = f"{family} %{read[0]}"
        families.add(family)
    families.discard("")
    return {"line": n.start_point.row + 1, "families": sorted(families), "text": text}
