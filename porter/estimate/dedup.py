"""Say where a kernel's fix is made and which kernels are copies of one another, so the work is costed once.

Real ports fix wave64 and mask issues at one place — a shared `__device__` helper, a `WARP_SIZE` macro — and port a
template once, whatever number of instantiations, generated files or vendored copies it has. Two pure functions over
facts kernel analysis already measured (porter.kernels is not changed):

- `fix_site(kernel, lines)`: the shared place a need's lines are in (a same-file helper the kernel calls, a helper in
  another file reached from the kernel's call line - of the chain a call reaches, the one whose own facts hold the
  need - or a warp-size macro the lane arithmetic is written with), or None when the lines are the kernel's own.
- `template_key(kernel, needs)`: a fingerprint under which copies of one kernel (same body length, same needs,
  names that differ only in types and numbers) fall together.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from porter.model import Kernel
from porter.model.kernel import InlinePtx, KernelFacts


@dataclass(frozen=True)
class Site:
    """A place shared code is fixed once: `key` identifies it across kernels, `label` says it to a reader."""

    key: str
    label: str


# A macro that stands for the warp width: WARP_SIZE, kWarpSize is not a macro (and constexpr values fold), THREADS_PER_WARP.
_WARP_MACRO = re.compile(r"\b([A-Z0-9_]*(?:WARP|WAVE|LANE)[A-Z0-9_]*)\b")
# Needs a warp-size macro can carry: lane arithmetic and warpSize constants written through it.
_MACRO_NEEDS = frozenset({"wave64-lane-arith", "wave64-lane-count", "warpsize-constant"})


def fix_site(k: Kernel, need: str, lines: Iterable[int]) -> Site | None:
    """Where the work behind one need is done when that is not the kernel's own body: every line of the need in
    one same-file `__device__` helper, or at the call of one helper in another file, or every lane-arithmetic
    text at those lines written with one warp-size macro. None: the kernel's own (or lines that say nothing)."""
    lines = sorted(set(lines))
    facts = k.facts
    if not lines or facts is None:
        return None
    for d in facts.device_functions:
        if all(d.line <= n <= d.end_line for n in lines):
            return Site(f"helper:{k.path}:{d.line}", f"helper {d.name} ({k.path}:{d.line})")
    if all(any(h.call_line == n for h in facts.helpers) for n in lines):
        reached = [h for h in facts.helpers if h.call_line in lines]
        # A call line reaches a chain of helpers (a member call, then the helpers that member calls in further
        # files); the work is in the ones whose own facts hold the need, not in every helper the call passes through.
        holders = [h for h in reached if _holds(h.facts, need)] or reached
        calls = sorted({(h.path, h.line, h.chain[-1] if h.chain else "?") for h in holders})
        if len(calls) == 1:
            path, line, name = calls[0]
            return Site(f"helper:{path}:{line}", f"helper {name} ({path}:{line})")
    if need in _MACRO_NEEDS:
        merged = facts.merged()  # a helper's lane arithmetic sits at its call line
        texts = [x.text for x in merged.lane_assumptions if x.line in lines]
        texts += [x.text for x in merged.warpsize_constant if x.line in lines]
        names = {m for t in texts for m in _WARP_MACRO.findall(t)}
        if texts and len(names) == 1 and all(_WARP_MACRO.search(t) for t in texts):
            name = names.pop()
            return Site(f"macro:{name}", f"macro {name}")
    return None


# The facts that hold a need, for finding which helper of a call chain its work is in (porter.kernels.checks reads the
# same facts into these needs). A need not listed here is held by every helper the call reaches (no site unless one).
_NEED_FACTS = {
    "inline-ptx": ("inline_ptx",), "inline-ptx-matrix": ("inline_ptx",), "hopper-blackwell-ptx": ("inline_ptx",),
    "wave64-lane-arith": ("lane_assumptions",), "wave64-lane-count": ("lane_assumptions",),
    "warpsize-constant": ("warpsize_constant",), "wave64-full-mask": ("warp_ops", "ballot_32bit"),
    "wave64-ballot-32bit": ("ballot_32bit",), "mask-32bit-type": ("ballot_32bit",),
    "partial-syncwarp": ("partial_syncwarp",), "async-copy": ("async_copies",), "async-copy-barrier": ("async_copies",),
    "wmma": ("tensor_cores",), "wmma-shape": ("tensor_cores",), "nvfp4-mma": ("tensor_cores",),
    "clusters-dsmem": ("clusters",), "cutlass-cute": ("cuda_libraries",), "cute-tensor": ("cute_tensor",),
    "dynamic-parallelism": ("device_launches",),
    "block-scope-atomic": ("atomics",), "system-atomics": ("atomics",), "grid-sync": ("grid_sync",),
}


def _holds(facts: KernelFacts, need: str) -> bool:
    """Whether a helper's own facts (not those of the helpers it calls in further files) hold `need`; a need named
    by a clang difference (fp-contract-rounded, restrict-value-type) is held where that difference is written."""
    if any(kind == need for kind, _ in facts.clang_differs):
        return True
    for name in _NEED_FACTS.get(need, ()):
        value = getattr(facts, name)
        if value.statements if isinstance(value, InlinePtx) else value:
            return True
    return False


# Type and precision words that tell instantiations of one template apart in generated names.
_TYPE_WORDS = re.compile(r"(?i)bfloat16|bf16|fp16|fp32|fp8|fp4|f16|f32|f64|half2?|float|double|e4m3|e5m2|"
                         r"u?int(?:4|8|16|32|64)?|nvfp4|mxfp4|bf|fp|hdim|sm|causal|noncausal")
_NUMBERS = re.compile(r"\d+")


def normalised_name(name: str) -> str:
    """A kernel name with its type words and numbers taken out: `gemm_fp16_128x64` and `gemm_bf16_64x64` are
    both `gemm_T_NxN`."""
    return _NUMBERS.sub("N", _TYPE_WORDS.sub("T", name.lower()))


def template_key(k: Kernel, needs: Iterable[str]) -> tuple:
    """The fingerprint copies of one kernel share: its language, normalised name, body length and what it needs."""
    lines = max(1, k.end_line - k.line + 1)
    return (k.language, normalised_name(k.name), lines, tuple(sorted(set(needs))))
