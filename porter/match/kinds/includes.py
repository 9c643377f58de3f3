"""The `cuda_project_include` pattern kind: a quoted `#include` of one of the repository's own headers whose path
names CUDA (`"cuda/base/config.hpp"`, `"gpu_cuda.h"`, `"ops/cuda/cuda_kernels.h"`), from a file outside that CUDA
layer: the spot a dual project puts a ROCm arm to include its HIP twin instead (ginkgo, horovod, deepmd-kit)."""
from __future__ import annotations

import re
from typing import Iterable

from porter.match.base import Hit, MatchContext
from porter.model.finding import PROJECT_HEADER
from porter.source.parse import SourceFile
from porter.source.syntax import index

_TOKEN = re.compile(r"[/_.\-]+")
# CamelCase words inside one token (`CUDAWrapper` → CUDA, Wrapper; `cudaUtils` → cuda, Utils).
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# The quick test for a file that may include one: the word in any case (STRUMPACK's "dense/CUDAWrapper.hpp").
_ANY_CUDA = re.compile(rb"cuda|CUDA|Cuda")
_AMD = frozenset({"hip", "rocm", "amd", "hipify", "hipified"})


def _names_cuda_only(path: str) -> bool:
    """Whether a path's words (split at / _ . - and at CamelCase humps) include `cuda` and no AMD word (`cuda_hip/` is
    shared code)."""
    words = {w.lower() for token in _TOKEN.split(path) for w in [token, *_CAMEL.findall(token)]}
    return "cuda" in words and words.isdisjoint(_AMD)


def match_cuda_project_include(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """Quoted includes of the repository's own CUDA-named headers, from a C/C++ file (not .cu/.cuh) whose own path
    does not name CUDA only (a file inside the CUDA layer including its siblings is that layer's business, not a
    port spot)."""
    if (sf.language != "cuda" or sf.root is None or not _ANY_CUDA.search(sf.data) or _names_cuda_only(sf.path)
            or sf.path.endswith((".cu", ".cuh"))):
        return  # a .cu/.cuh file is CUDA code itself: it is compiled (and ported) with the headers it includes
    from porter.source.includes import project_header_path

    own = ctx.extra.get("repository_files") or frozenset()
    if not own:
        return
    for node, header in index(sf).includes:
        if node.type != "string_literal" or not _names_cuda_only(header):
            continue
        path = project_header_path(sf.path, header, True, own)
        if path is not None:  # port status follows that header's own open work (PROJECT_HEADER)
            yield Hit(node.start_byte, node.end_byte, name=header, values=((PROJECT_HEADER, path),))
