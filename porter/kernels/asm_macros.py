"""Function-like macros whose body is inline assembly or a texture/surface call, as helpers of the kernels that
invoke them (issue 27).

`#define LDMATRIX_X4(R0, R1, R2, R3, addr) asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared.b16 ...")` in a
header, invoked in a kernel as `LDMATRIX_X4(...)`, is that PTX in the kernel after preprocessing: hip-clang
rejects it exactly as if it were written there. An invocation parses as a call, so the kernel's calls already
name it; here each such macro of a file becomes a DeviceHelper of that name whose facts are the PTX of its
body (the body parsed as a statement, its `asm` statements read by porter.kernels.facts_ptx), and
porter.kernels.callgraph follows the call to it like a call to a `__device__` function (the same include-closure
resolution, so a macro several headers define for different kernels reaches the one the caller includes).

A texture or surface call is read the same way: uDeviceX's device layer `#define Ttex3D(T, to, i, j, k) tex3D<T>(to,
i, j, k);` (d/cuda/ker.h; its CPU twin d/cpu/ker.h defines `(T{})`, no helper) puts tex3D in every kernel that
samples the wall SDF through `Ttex3D(float, sdf->tex.t, i, j, k)`: no image instructions on gfx942, gfx950 and
gfx1250 (facts_detectors.IMAGE_API, the image-instructions check).
"""
from __future__ import annotations

import re

from porter.kernels.facts_detectors import IMAGE_API
from porter.kernels.facts_ptx import amdgcn, ptx_statement
from porter.kernels.facts_walk import Walk, body_facts
from porter.model.kernel import DeviceHelper, KernelFacts
from porter.source.parse import SourceFile
from porter.source.parse_queries import parser_for

_ASM = re.compile(rb"\basm\b|\b__asm__\b")
# A call of CUDA's texture/surface API in a macro body: `tex3D<T>(to, i, j, k)`, `tex1Dfetch<float4>(t, i)`.
_IMAGE_CALL = re.compile(rb"\b(" + b"|".join(sorted((n.encode() for n in IMAGE_API), key=len, reverse=True))
                         + rb")\s*(?:<[^;(){}]*>)?\s*\(")


_FUNCTION_LIKE = re.compile(r"([A-Za-z_]\w*)\(([^()]*)\)(.*)", re.S)
# An object-like macro (`#define cp_async_wait_all asm volatile("cp.async.wait_all;\n" ::)`): its name, then
# whitespace (a `(` right after the name would make it function-like), then the body. A kernel writes it as a
# statement of its own (`cp_async_wait_all;`), which porter.kernels.facts_detectors.macro_statements counts as a call.
_OBJECT_LIKE = re.compile(r"([A-Za-z_]\w*)\s(.*)", re.S)


def asm_macro_helpers(sf: SourceFile) -> tuple[DeviceHelper, ...]:
    """The file's function-like and object-like macros whose body holds PTX, each as a helper with that PTX as its
    facts (lines of the `#define`)."""
    # `asm` is in both of _ASM's words: found at memchr speed first, since `re` tries a pattern that opens with `\b`
    # at every byte of the file (it has no literal prefix to skip ahead to)
    if b"#" not in sf.data or not (b"asm" in sf.data and _ASM.search(sf.data)
                                   or (b"tex" in sf.data or b"surf" in sf.data) and _IMAGE_CALL.search(sf.data)):
        return ()
    from porter.source.preprocessor import preprocessed

    out: list[DeviceHelper] = []
    for d in preprocessed(sf).directives:
        m = _FUNCTION_LIKE.match(d.text) if d.kind == "define" else None
        o = _OBJECT_LIKE.match(d.text) if d.kind == "define" and m is None else None
        name, body = (m.group(1), m.group(3)) if m is not None else (o.group(1), o.group(2)) if o is not None else (
            "", "")
        image = [m.group(1).decode() for m in _IMAGE_CALL.finditer(body.encode())] if body else []
        if not body or not (_ASM.search(body.encode()) or image):
            continue
        w = Walk()
        if image:
            w.clang_differs.append(("image-instructions", d.line))
        tree = parser_for("cuda").parse(b"void __porter_macro__() { " + body.encode() + b"; }")
        stack = [tree.root_node]
        while stack:
            n = stack.pop()
            if n.type == "gnu_asm_expression":
                ptx = ptx_statement(n)
                if ptx["families"] and not amdgcn(ptx):
                    w.ptx.append({**ptx, "line": d.line})
            stack.extend(n.children)
        if w.ptx or w.clang_differs:
            facts = KernelFacts(lines=d.end_line - d.line + 1, **body_facts(w))
            out.append(DeviceHelper(name, d.line, d.end_line, facts))
    return tuple(out)
