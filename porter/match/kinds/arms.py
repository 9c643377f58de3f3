"""Pattern kinds over preprocessor arms: `#if` tests whose code vanishes on HIP (porter.source.preprocessor answers
which arms those are; this module says where, and which kernels lose code).

`vanishing_arm: [__CUDA_ARCH__]` hits the macro in the first arm of a group that the CUDA device pass may compile
and HIP's never does, when HIP then compiles nothing of the group (no `#else`, or an empty one), and the arm's code
is in a kernel or device function or holds one. The hit names the kernels it empties (`emptied`).
"""
from __future__ import annotations

from typing import Iterable

from porter.match.base import Hit, MatchContext
from porter.source.parse import SourceFile
from porter.source.preprocessor import preprocessed, vanishing_arms


def match_vanishing_arm(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    names = pattern["vanishing_arm"]
    if sf.language != "cuda" or b"#" not in sf.data or not any(n.encode() in sf.data for n in names):
        return
    found = vanishing_arms(preprocessed(sf), names, ctx.extra.get("constants") or {}, ctx.extra.get("rocm_names", ()))
    if not found:
        return
    spans = [(f, f.start_line, f.end_line) for f in sf.functions if f.is_kernel or f.is_device]
    for _group, arm in found:
        first, last = arm.end_line + 1, arm.last
        around = [f for f, a, b in spans if a < arm.line and b > last]  # the arm is inside these functions
        inside = [f for f, a, b in spans if first <= a <= last]  # these functions are inside the arm
        touched = around[-1:] + inside  # the innermost enclosing function, and every one the arm holds
        if not touched:
            continue  # no device code in or around the arm: nothing runs without it
        kernels = sorted({f.name for f in touched if f.is_kernel})
        helpers = sorted({f.name for f in touched if not f.is_kernel})
        said = []
        if kernels:
            said.append(("kernel " if len(kernels) == 1 else "kernels ") + ", ".join(kernels))
        if helpers:
            said.append(("device function " if len(helpers) == 1 else "device functions ") + ", ".join(helpers))
        start = sf.line_starts[arm.line - 1]
        end = sf.line_starts[arm.end_line] if arm.end_line < len(sf.line_starts) else len(sf.data)
        name = next(n for n in names if n in arm.text)
        at = sf.data.find(name.encode(), start, end)
        if at < 0:
            continue
        yield Hit(at, at + len(name), name=name, values=(("emptied", " and ".join(said)),
                                                          ("condition", arm.text)))
