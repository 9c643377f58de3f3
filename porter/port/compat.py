"""Write the compat header: exactly the CUDA names the project uses, mapped to their HIP names for the ROCm build.

The names come from the scan's findings (API001/API003 renames with the knowledge base's HIP name; the `*_sync`
warp functions of API004/DEV002 findings and kernel facts) and from an earlier run's header (so a second run, which reads those names as
handled, writes the same file: the port is idempotent). Everything mapped sits under the platform test; the CUDA
build sees only `lane_mask_t` (32 bits there). Library headers (hipBLAS for cuBLAS) are not included here but where
the project includes the CUDA one (porter.port.sources), so a file that does not use a library does not need it. The mapping comes from HIPIFY's tables, so HIPIFY's MIT notice
(rules/kb/NOTICE) is carried in the header.
"""
from __future__ import annotations

import re

from porter.datafile import DATA_DIR
from porter.port.model import ROCM_TEST
from porter.translate.fixups import PORT_COMPAT_MARK

GENERATED_MARK = PORT_COMPAT_MARK.decode()
NOTICE_FILE = DATA_DIR / "kb" / "NOTICE"
_DEFINE = re.compile(r"^#define ([A-Za-z_]\w*) (\w+)$", re.M)

# HIP 5.2 (Debian's) has the warp functions without a mask; HIP 6.2 added the `_sync` forms with a 64-bit mask.
SYNC_SHIMS = {
    "__shfl_sync": "#define __shfl_sync(mask, ...) __shfl(__VA_ARGS__)",
    "__shfl_up_sync": "#define __shfl_up_sync(mask, ...) __shfl_up(__VA_ARGS__)",
    "__shfl_down_sync": "#define __shfl_down_sync(mask, ...) __shfl_down(__VA_ARGS__)",
    "__shfl_xor_sync": "#define __shfl_xor_sync(mask, ...) __shfl_xor(__VA_ARGS__)",
    "__ballot_sync": "#define __ballot_sync(mask, pred) (__ballot(pred) & (lane_mask_t)(mask))",
    "__any_sync": "#define __any_sync(mask, pred) __any(pred)",
    "__all_sync": "#define __all_sync(mask, pred) __all(pred)",
    "__activemask": "#define __activemask() __ballot(1)",
    "__syncwarp": "#define __syncwarp(...) __builtin_amdgcn_wave_barrier()",
}


# cooperative_groups::reduce and its operators (CUDA 11's <cooperative_groups/reduce.h>), which HIP has from 7.13 only
# (rules/kb/hip_versions.yaml cg_reduce): a butterfly of the tile's own shfl_xor leaves the reduction in every lane,
# as CUDA's does; only thread_block_tile is covered (a coalesced_group argument stays a compile error).
CG_REDUCE_MARK = "/* cooperative_groups::reduce for HIP before 7.13 (porter port) */"
CG_REDUCE_SHIM = "cooperative_groups/reduce.h"  # its rules/kb/fixups.yaml shim (translate's too)


def cg_reduce_block() -> str:
    """The compat header's cooperative_groups::reduce block: the fixups shim's code after its HIP include."""
    from porter.translate.fixups import load_fixups

    e = load_fixups().shims[CG_REDUCE_SHIM]
    return "\n".join([CG_REDUCE_MARK, f"#include <{e['include']}>", e["code"].rstrip("\n")])


# CUDA runtime calls whose CUDA declarations are templates on the kernel's pointer type, where HIP 5 declares
# `const void*` (a function pointer does not convert to it): a template that casts, named for the call.
WRAPPERS = {
    "cudaFuncSetAttribute": (
        "porter_cudaFuncSetAttribute",
        "template <typename T>\ninline hipError_t porter_cudaFuncSetAttribute(T* f, hipFuncAttribute a, int v) {\n"
        "  return hipFuncSetAttribute(reinterpret_cast<const void*>(f), a, v);\n}"),
    "cudaFuncGetAttributes": (
        "porter_cudaFuncGetAttributes",
        "template <typename T>\ninline hipError_t porter_cudaFuncGetAttributes(hipFuncAttributes* a, T* f) {\n"
        "  return hipFuncGetAttributes(a, reinterpret_cast<const void*>(f));\n}"),
    "cudaFuncSetCacheConfig": (
        "porter_cudaFuncSetCacheConfig",
        "template <typename T>\ninline hipError_t porter_cudaFuncSetCacheConfig(T* f, hipFuncCache_t c) {\n"
        "  return hipFuncSetCacheConfig(reinterpret_cast<const void*>(f), c);\n}"),
}


def notice() -> str:
    """HIPIFY's copyright and permission notice, from porter's knowledge-base NOTICE."""
    from porter.contain import read_bytes

    text = read_bytes(NOTICE_FILE, 1 << 20).decode("utf-8")
    start = text.find("Copyright (c)")
    return text[start:].strip() if start >= 0 else text.strip()


def names_in(header: bytes) -> tuple[dict[str, str], set[str]]:
    """What an earlier run's header maps: (CUDA name -> HIP name, the warp functions it shims)."""
    text = header.decode("utf-8", "replace")
    if GENERATED_MARK not in text:
        return {}, set()
    names = {c: h for c, h in _DEFINE.findall(text)}
    sync = {n for n, line in SYNC_SHIMS.items() if line in text}
    return names, sync


def has_cg_reduce(header: bytes) -> bool:
    """Whether an earlier run's header carries the cooperative_groups::reduce block."""
    return CG_REDUCE_MARK.encode() in header


def render(names: dict[str, str], sync: set[str], mask_type: str, shims: dict[str, dict] | None = None,
           cg_reduce: bool = False) -> bytes:
    """The header's bytes; the same inputs give the same bytes."""
    out = [GENERATED_MARK + ": the CUDA names this project uses, mapped to HIP",
           f"   for the ROCm build ({ROCM_TEST}); the CUDA build sees only {mask_type}.",
           "   Regenerate it with `porter port`; delete an entry the code no longer uses.",
           "",
           "   The CUDA -> HIP names below come from HIPIFY's tables (https://github.com/ROCm/HIPIFY),",
           "   used under HIPIFY's licence:",
           ""]
    out += [("   " + line).rstrip() for line in notice().splitlines()]
    out += ["*/", "#pragma once", "",
            "/* HIP 5's own headers define __HIP_PLATFORM_AMD__ (its hipcc does not): a HIP compile reads them first. */",
            "#if (defined(__HIP__) || defined(__HIPCC__)) && !defined(__HIP_PLATFORM_AMD__) && "
            "!defined(__HIP_PLATFORM_NVIDIA__)",
            "#include <hip/hip_runtime.h>", "#endif", "",
            f"#if {ROCM_TEST}", "#include <hip/hip_runtime.h>"]
    out += ["", "/* A ballot's and a *_sync mask's width: 64 lanes on CDNA (wave64), 32 on RDNA and gfx1250. */",
            f"typedef unsigned long long {mask_type};"]
    if sync:
        out += ["", "/* HIP 6.2 added the *_sync warp functions (64-bit masks); older HIP has the unmasked forms. */",
                "#if HIP_VERSION < 60200000"]
        out += [SYNC_SHIMS[n] for n in sorted(sync)]
        out.append("#endif")
    macros = {c: v for c, v in names.items() if v.isdigit()}
    if macros:
        out += ["", "/* CUDA version and runtime-header macros the code tests: for the ROCm build, the CUDA API level HIP's",
                "   runtime models (rules/kb/fixups.yaml in porter says why each). */"]
        out += [f"#define {c} {v}" for c, v in sorted(macros.items())]
    shims = shims or {}
    if shims:
        out += ["", "/* CUDA device functions HIP 5 lacks, where the same function is written here (porter's"
                    " rules/kb/fixups.yaml). */"]
        out += [f"#include <{h}>" for h in sorted({e["include"] for e in shims.values() if e.get("include")})]
        from porter.translate.fixups import load_fixups

        for c in load_fixups().shim_order(shims):
            out += [f"/* {c}: {shims[c]['why']} */", shims[c]["code"].rstrip("\n")]
    if cg_reduce:
        out += ["", cg_reduce_block()]
    renames = {c: (WRAPPERS[c][0] if c in WRAPPERS else h) for c, h in names.items() if c not in macros}
    wrapped = sorted(c for c in renames if c in WRAPPERS)
    if wrapped:
        out += ["", "/* CUDA declares these as templates on the kernel's type; HIP 5 takes const void*. */"]
        out += [WRAPPERS[c][1] for c in wrapped]
    if renames:
        out.append("")
        out += [f"#define {c} {h}" for c, h in sorted(renames.items())]
    out += ["#else", f"typedef unsigned int {mask_type};", f"#endif  /* {ROCM_TEST} */", ""]
    return "\n".join(out).encode()
