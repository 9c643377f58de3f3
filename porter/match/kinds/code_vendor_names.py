"""The `cuda_named_project_name` pattern kind: the project's own name for its CUDA path (`Grid_Cuda`,
`CudaDeviceSetup`, `DEVICE_CUDA`, `setCuBlasHandle`, `launch_flux_cuda_kernel_post`), or for its NVIDIA or OptiX
path (`ELPA_2STAGE_REAL_NVIDIA_GPU`, `DEVICE_OPTIX`, `optixDirectCall`, a setting string `"nvidia-gpu"`), used in a
repository that already keeps a ROCm path of its own (a `hip/` directory, a `*_hip.cpp` or `.hip` file).

Such a repository chooses per build between code named for each vendor, and the lines that name the CUDA one are
where its ROCm arms sit: hpcscan's factory creates `Grid_Cuda` under `#ifdef __CUDA__` and `Grid_Hip` under
`#ifdef __HIP__`; mfem calls `CudaDeviceSetup` or `HipDeviceSetup`; Cycles registers `DEVICE_CUDA` or `DEVICE_HIP`.
A line that names only the CUDA one, outside such an arm, is a spot the ROCm build still takes the CUDA path at (or
fails to compile). In a repository with no ROCm path at all nothing is reported: there every name is CUDA's, and
the project's names carry no choice yet.

Read as C/C++ identifiers in code (sf.tokens: not comments or strings), one per line. Not the project's: names the
knowledge base knows (CUDA's own API), CUDA's API spelling (`cudaFoo`, `cuFoo`), toolkit macros (`CUDA_VERSION`,
`CUDART_VERSION`, `CUDA_R_32F`: all-caps names that start with the CUDA word, `__CUDACC__`), the bare namespace words
(`cuda`, `at::cuda::`), names with an AMD word as well (`typecasts_cuda_hip`: code for both), and preprocessor
the CUDA path's own files (`.cu`/`.cuh`
sources, a path naming CUDA: `devices/cuda/`, `grid_Cuda.cpp`), files built against PyTorch (`#include <torch/...>`, `<ATen/...>`, `<c10/...>`: there `cuda`
names PyTorch's GPU device, which ROCm PyTorch keeps and torch's extension builder hipifies), directive lines other than a
#define's replacement list (a guard, an include, the name a #define defines: not uses), the name a
`class`/`struct`/`enum`/`namespace` head introduces (`class CudaExecutor`: a definition, not a choice) and lines that name the ROCm counterpart too
(`{ DEVICE_CUDA, DEVICE_HIP }`: no choice is made there). Lower-case `cu` and all-caps `CU` are not read
as the vendor word (`cu_seqlens` is cumulative; `CU_` is the driver API's prefix); `Cu` before a capitalised word
is (`CuMemFree`, `setCuBlasHandle`)."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable

from porter.match.base import Hit, MatchContext

if TYPE_CHECKING:
    from porter.source.parse import SourceFile

# The CUDA word at a word start inside an identifier: the start of the name, after `_`, or an upper-case word start
# after a lower-case letter or digit (`gpuCudaExec`), followed by another word, `_`, a digit or the name's end.
# `Cu` only before a capitalised word (`CuMemFree`), so `Cube`, `Cut` and `Cuda` spelt in full are told apart.
_CUDA_WORD = re.compile(r"(?:^|(?<=_)|(?<=[a-z0-9])(?=[A-Z]))(?:(?:CUDA|Cuda|cuda|NVIDIA|Nvidia|nvidia|OPTIX|OptiX|Optix|optix)"
                        r"(?=[A-Z_0-9]|$)|Cu(?=[A-Z][a-z]))")
# An AMD word at a word start: a name with both is code for both vendors.
_AMD_WORD = re.compile(r"(?:^|(?<=_)|(?<=[a-z0-9])(?=[A-Z]))(?:HIP|Hip|hip|ROCM|Rocm|ROCm|rocm|Roc(?=[A-Z])"
                       r"|roc(?=[a-z]*[A-Z_])|AMD|Amd|amd)(?=[A-Z_0-9]|$|[a-z])")
# CUDA's own spellings: `cudaMalloc`, `cuda_fp16`-style toolkit names start with lower-case cuda + a capital or `_`;
# all-caps toolkit macros and constants start with the word (`CUDA_VERSION`, `CUDART_VERSION`, `CUDA_R_32F`).
_API_SPELLING = re.compile(r"^(?:cuda[A-Z]|cuda_[a-z0-9]+$|CUDA[A-Z0-9_]*$|__)")
_BARE = frozenset({"cuda", "CUDA", "Cuda", "nvidia", "NVIDIA", "Nvidia", "optix", "OPTIX", "OptiX", "Optix"})
_ANY_WORD = re.compile(rb"cuda|CUDA|Cuda|Cu[A-Z]|nvidia|NVIDIA|Nvidia|optix|OPTIX|OptiX|Optix")
# Code built against PyTorch: there the CUDA word names PyTorch's GPU device, which ROCm PyTorch keeps (`t.is_cuda()`,
# `c10::cuda::CUDAGuard`, `getCurrentCUDAStream`, `C10_CUDA_CHECK`, a project's `check_input_cuda`): torch's extension
# builder hipifies those names itself, so they are no choice the port makes.
_TORCH_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"](?:torch|ATen|c10)/", re.MULTILINE)
# The keyword right before a name that a definition or declaration introduces (`class CudaExecutor`).
_DECLARED_BY = re.compile(rb"\b(?:class|struct|union|enum(?:[ \t]+(?:class|struct))?|namespace)[ \t]+$")
# A #define's head up to the end of the name it defines (and its parameters): the replacement list after it uses
# names (`#define castNativeType castCUDAType` under `#ifndef QMC_CUDA2HIP` is QMCPACK's choice of the CUDA caster).
_DEFINE_HEAD = re.compile(rb"[ \t]*#[ \t]*define[ \t]+[A-Za-z_]\w*(?:\([^)\n]*\))?")
# A short setting string that names NVIDIA (`elpa_set(handle, "nvidia-gpu", 1)`): one word-run, no spaces (prose
# in a message is not a setting).
_NVIDIA_SETTING = re.compile(rb'"(?P<s>[A-Za-z0-9_.:/-]{0,40}?(?:nvidia|NVIDIA|Nvidia)[A-Za-z0-9_.:/-]{0,40})"')
# An identifier on the same line with an AMD word at a word start (`DEVICE_HIP`, `HipDeviceSetup`, `setRocBlasHandle`).
_AMD_NAME = re.compile(rb"(?:\b|_|(?<=[a-z0-9])(?=[A-Z]))(?:HIP|Hip|hip|ROCM|ROCm|Rocm|rocm|Roc(?=[A-Z]))(?=[A-Z_0-9]|\b)")


def rocm_path_in(files: frozenset[str], ctx: MatchContext) -> bool:
    """Whether the repository's C/C++ files include one that is ROCm-only by its name or place (porter.portaware.scope
    .rocm_path_evidence: a `hip/` directory, `*_hip.cpp`, `.hip`), worked out once per listing."""
    memo = ctx.memo.setdefault("rocm_path_in", {})
    got = memo.get(id(files))
    if got is None or got[0] is not files:
        from porter.portaware.scope import rocm_path_evidence

        got = memo[id(files)] = (files, any(rocm_path_evidence(p) for p in files))
    return bool(got[1])


_LAYER_WORD = re.compile(r"cuda|optix|nvidia")
_PATH_AMD = re.compile(r"(?:^|[^a-z])(?:hip|rocm|amd)(?:[^a-z]|$)")


def _vendor_layer_path(path: str) -> bool:
    """Whether a path is the CUDA layer's own by name: a part holds `cuda`, `optix` or `nvidia` (`devices/cuda/`,
    `multicuda/multicudadevice.cpp`, `device/optix/queue.cpp`, `grid_Cuda.cpp`) and none names AMD (`cuda_hip/` is
    code for both)."""
    low = path.lower()
    return _LAYER_WORD.search(low) is not None and _PATH_AMD.search(low) is None


def project_cuda_name(name: str) -> bool:
    """Whether an identifier is a project's own name with the CUDA word (see the module docstring)."""
    return (name not in _BARE and _CUDA_WORD.search(name) is not None and _API_SPELLING.match(name) is None
            and _AMD_WORD.search(name) is None)


def match_cuda_named_project_name(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.language != "cuda" or not _ANY_WORD.search(sf.data):
        return ()
    files = ctx.extra.get("repository_files") or frozenset()
    if not files or not rocm_path_in(files, ctx):
        return ()
    from porter.portaware.scope import rocm_path_evidence

    if rocm_path_evidence(sf.path) or _TORCH_INCLUDE.search(sf.data):
        return ()  # the ROCm path itself; PyTorch code (see _TORCH_INCLUDE)
    if sf.path.endswith((".cu", ".cuh")) or _vendor_layer_path(sf.path):
        return ()  # the CUDA path itself (`cuda/`, `*_cuda.cpp`, CUDA sources): its own names are no choice
    code = sf.code
    kb = ctx.kb
    found: list[tuple[int, int, str]] = []
    for tok, offsets in sf.tokens().items():
        name = tok.decode("ascii", "replace")
        if not project_cuda_name(name) or kb.get(name) is not None:
            continue
        found.extend((off, off + len(tok), name) for off in offsets)
    if b"vidia" in sf.data:
        for m in _NVIDIA_SETTING.finditer(sf.data):
            if code[m.start():m.start() + 1] == b'"':  # a string literal in code, not a comment's text
                found.append((m.start("s"), m.end("s"), m.group("s").decode("ascii", "replace")))
    hits: list[Hit] = []
    last_line = -1
    for off, end, name in sorted(found):
        start = code.rfind(b"\n", 0, off) + 1
        if _DECLARED_BY.search(code, max(start, off - 40), off):
            continue  # `class CudaExecutor {`: the CUDA path's own definition, not a choice of it
        if start == last_line:
            continue  # one per line
        if code[start:off].lstrip().startswith(b"#"):
            d = _DEFINE_HEAD.match(code, start)
            if d is None or off < d.end():
                continue  # a guard (`#ifdef USE_CUDA`), an include, or the name a #define defines: not a use
        last_line = start
        stop = code.find(b"\n", off)
        if _AMD_NAME.search(code, start, len(code) if stop < 0 else stop):
            continue  # the line names the ROCm counterpart too (`{ DEVICE_CUDA, DEVICE_HIP }`): no choice made
        hits.append(Hit(off, end, name=name))
    return hits
