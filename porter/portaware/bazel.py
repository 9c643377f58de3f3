"""Bazel targets the ROCm build leaves out: what a `BUILD`/`BUILD.bazel` file says about its own CUDA targets.

A Bazel target whose `target_compatible_with` selects `@platforms//:incompatible` under a ROCm configuration
(`select({"@//:use_hip": ["@platforms//:incompatible"], ...})`: a config_setting label naming hip, rocm or amd) is
never built by the ROCm build: its CUDA-only attributes (`cuda_library`, nvcc `-Xcompiler=` copts) are the CUDA
build's, as a CMake `if(USE_CUDA)` arm is. Such a target is a CUDA region guarded by that select line only when the
same file runs the ROCm toolchain outside it (a genrule or rule naming hipcc or amdclang++, rocmbuild.rocm_lines):
the ROCm build then compiles the sources some other way, here, in the file porter reads. A `load()` line whose loaded
rules are called only by such targets (`load("@rules_cuda//cuda:defs.bzl", "cuda_library")`) is the CUDA build's
too, guarded by the same line.
"""
from __future__ import annotations

from porter.lazyre import lazy_regex
from porter.portaware.rocmbuild import code_chars, rocm_lines
from porter.source.preprocessor import CUDA

# A top-level rule call or load at the start of a line: `cuda_library(`, `load(`.
_CALL = lazy_regex(r"^([A-Za-z_]\w*)\s*\(")
# A select key naming a ROCm configuration, mapped to the incompatible platform: `"@//:use_hip": [...incompatible`.
_ROCM_INCOMPATIBLE = lazy_regex(r"""["'][^"']*(?i:hip|rocm|amd)[^"']*["']\s*:\s*\[\s*["']@platforms//:incompatible["']""")
# A string literal (a load's loaded names).
_STRING = lazy_regex(r"""["']([^"']*)["']""")


def _calls(lines: list[str]) -> list[tuple[str, int, int]]:
    """The file's top-level calls: (name, first line, last line), by bracket balance outside strings and comments."""
    out: list[tuple[str, int, int]] = []
    n = 0
    while n < len(lines):
        m = _CALL().match(lines[n])
        if m is None:
            n += 1
            continue
        depth, first = 0, n
        while n < len(lines):
            # strings do not span lines in BUILD files porter reads (no triple quotes here)
            for ch, quoted in code_chars(lines[n]):
                if quoted:
                    continue
                if ch in "([{":
                    depth += 1
                elif ch in ")]}":
                    depth -= 1
            if depth <= 0:
                break
            n += 1
        out.append((m.group(1), first + 1, min(n, len(lines) - 1) + 1))
        n += 1
    return out


def incompatible_regions(text: str) -> tuple[tuple[int, int, str, int], ...]:
    """The CUDA regions (first line, last line, CUDA, guard line) of a Bazel BUILD file: each target the ROCm build
    leaves out by `target_compatible_with` (guard: the ROCm select key's line) and each load line whose rules only
    such targets call (guard: the first of their guards). None unless the file runs the ROCm toolchain outside
    those targets."""
    lines = text.split("\n")
    calls = _calls(lines)
    regions: list[tuple[int, int, str, int]] = []
    for name, first, last in calls:
        if name == "load":
            continue
        guard = next((k for k in range(first, last + 1) if _ROCM_INCOMPATIBLE().search(lines[k - 1])
                      and "target_compatible_with" in "\n".join(lines[first - 1:k])), 0)
        if guard:
            regions.append((first, last, CUDA, guard))
    if not regions:
        return ()
    inside = {n for a, b, _s, _g in regions for n in range(a, b + 1)}
    if not any(n not in inside for n in rocm_lines("shell", text)):
        return ()
    loads: list[tuple[int, int, str, int]] = []
    for name, first, last in calls:
        if name != "load":
            continue
        names = _STRING().findall(" ".join(lines[first - 1:last]))[1:]
        used = [(a, g) for rule in names for cname, a, _b in calls if cname == rule
                for ra, _rb, _s, g in regions if ra == a]
        every = [a for rule in names for cname, a, _b in calls if cname == rule]
        if names and every and len(used) == len(every):
            loads.append((first, last, CUDA, min(g for _a, g in used)))
    return tuple(sorted(loads + regions))
