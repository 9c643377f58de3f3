"""Find CUDA kernel definitions and kernel launch sites in a parsed C/C++/CUDA file.

A kernel is a `function_definition` carrying `__global__` (directly or through a neutralised qualifier macro);
a launch is a `<<<...>>>` call or a call to one of the launch APIs, whose kernel argument is read through casts
and `&`. Names are unqualified so a launch of `ns::k<float>` links to the definition of `k`.
"""
from __future__ import annotations

import re

from porter.model import Kernel, Launch
from porter.source.parse import Function, SourceFile, unqualified

# Launch API -> index of the argument that names the kernel.
LAUNCH_APIS = {
    "cudaLaunchKernel": 0,
    "cudaLaunchCooperativeKernel": 0,
    "cudaLaunchCooperativeKernelMultiDevice": None,  # takes an array of launch params
    "cudaLaunchKernelEx": 1,
    "cudaLaunchKernelExC": 1,
    "cuLaunchKernel": 0,
    "cuLaunchKernelEx": 1,
    "cuLaunchCooperativeKernel": 0,
}

_CHEVRON = "(call_expression function: (_) @callee (kernel_call_syntax) @config) @launch"
_CAST_NOISE = re.compile(r"^\s*(\((?:const\s+)?void\s*\*+\s*\)|reinterpret_cast<[^>]*>|static_cast<[^>]*>|\(|&|\*)\s*")


def kernel_functions(sf: SourceFile) -> list[tuple[Kernel, Function]]:
    """Every `__global__` definition with the parsed function it came from."""
    if "kernels" in sf.cache:
        return sf.cache["kernels"]
    out = []
    for f in sf.functions:
        if not f.is_kernel:
            continue
        start_line = f.start_line
        parent = f.node.parent
        is_template = parent is not None and parent.type == "template_declaration"
        if is_template:
            start_line = parent.start_point.row + 1
        bounds: tuple[str, ...] = ()
        for c in f.node.children:
            if c.type == "launch_bounds":
                bounds = tuple(n.text.decode("utf-8", "replace") for n in c.named_children)
        out.append((Kernel(sf.path, start_line, f.end_line, f.name, f.qualified_name, is_template, f.via_macro, bounds), f))
    sf.cache["kernels"] = out
    return out


def launch_spans(sf: SourceFile) -> list[tuple[Launch, int, int]]:
    """Every launch with the byte span of its callee (chevrons) or API call name, in file order."""
    if "launches" in sf.cache:
        return sf.cache["launches"]
    out: list[tuple[Launch, int, int]] = []
    if sf.language != "cuda" or sf.root is None:
        sf.cache["launches"] = out
        return out
    # Most files launch nothing with chevrons; skip the query unless the token is there at all.
    for _, m in (_matches(sf) if b"<<<" in sf.code else ()):
        callee, config = m["callee"][0], m["config"][0]
        if sf.in_comment(callee.start_byte):
            continue
        text = callee.text.decode("utf-8", "replace")
        exprs = tuple(n.text.decode("utf-8", "replace") for n in config.named_children if n.type != "comment")
        out.append((_launch(sf, callee.start_byte, unqualified(text), "chevron", exprs), callee.start_byte, config.end_byte))
    from porter.match.kinds.code import call_sites

    for fn, text, call in call_sites(sf):
        api = unqualified(text)
        if api not in LAUNCH_APIS or fn.type == "field_expression":
            continue
        args_node = call.child_by_field_name("arguments")
        args = [a.text.decode("utf-8", "replace") for a in (args_node.named_children if args_node else []) if a.type != "comment"]
        idx = LAUNCH_APIS[api]
        kernel = kernel_argument(args[idx]) if idx is not None and idx < len(args) else "<unknown>"
        rest = tuple(a for i, a in enumerate(args) if i != idx)
        out.append((_launch(sf, fn.start_byte, kernel, api, rest), fn.start_byte, fn.end_byte))
    out.sort(key=lambda x: x[1])
    sf.cache["launches"] = out
    return out


def launches(sf: SourceFile) -> list[Launch]:
    return [l for l, _, _ in launch_spans(sf)]


def kernel_argument(arg: str) -> str:
    """The kernel's name from a launch API argument such as `(void*)&ns::k<float>`."""
    prev = None
    while prev != arg:
        prev = arg
        arg = _CAST_NOISE.sub("", arg).rstrip(") ")
    return unqualified(arg) or "<unknown>"


def _matches(sf: SourceFile):
    from porter.source.parse import query
    import tree_sitter as ts

    return ts.QueryCursor(query("cuda", _CHEVRON)).matches(sf.root)


def _launch(sf: SourceFile, offset: int, kernel: str, kind: str, config: tuple[str, ...]) -> Launch:
    line, col = sf.position(offset)
    f = sf.enclosing(offset)
    return Launch(sf.path, line, col, kernel, kind, config, f.name if f else None)
