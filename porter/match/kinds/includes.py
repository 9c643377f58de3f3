"""The `cuda_project_include` pattern kind: a quoted `#include` of one of the repository's own headers whose path
names CUDA (`"cuda/base/config.hpp"`, `"gpu_cuda.h"`, `"ops/cuda/cuda_kernels.h"`), from a file outside that CUDA
layer: the spot a dual project puts a ROCm arm to include its HIP twin instead (ginkgo, horovod, deepmd-kit).

A header whose path does not name CUDA is one too when the repository holds its HIP twin (session 26): GROMACS
includes `gputraits.cuh` where its ROCm arm includes `gputraits_hip.h`, `devicebuffer.cuh` beside
`devicebuffer_hip.h`, `cudautils.cuh` beside `hiputils.h`. The twin of a `.cuh` header is its name with the CUDA
word spelt for HIP or a HIP word added (`hiputils`, `devicebuffer_hip`), or its name as a `.hip` file
(sppark's `mont_t.cuh` beside `mont_t.hip`); the twin of any header is the same name in
its directory spelt for HIP or with a HIP word added (`cuda/x.hpp` -> `hip/x.hpp`, `gpuistl/` -> `gpuistl_hip/`), in
any extension. A quoted or an angle-bracket include of the project's own header alike."""
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
_ANY_CUDA = re.compile(rb"cuda|CUDA|Cuda|\.cuh\b")
_AMD = frozenset({"hip", "rocm", "amd", "hipify", "hipified"})


def _names_cuda_only(path: str) -> bool:
    """Whether a path's words (split at / _ . - and at CamelCase humps) include `cuda` and no AMD word (`cuda_hip/` is
    shared code)."""
    words = _words(path)
    return "cuda" in words and words.isdisjoint(_AMD)


# A header's name without its extensions (`complex_ops.cu.hpp` -> `complex_ops`) and the directory it is in.
def _stem_key(path: str) -> tuple[str, str]:
    head, _, name = path.rpartition("/")
    return head, name.split(".", 1)[0]


_CUDA_SPELLINGS = (("cuda", "hip"), ("CUDA", "HIP"), ("Cuda", "Hip"))
_HIP_SUFFIXES = ("_hip", "-hip", "Hip", "_HIP", "_rocm")


def _twin_keys(path: str) -> set[tuple[str, str]]:
    """The (directory, stem) a HIP twin of the header at `path` would have (see the module docstring). A HIP word
    added to the name counts only for a `.cuh` header: `devicebuffer.h` beside `devicebuffer_hip.h` is the
    vendor-neutral header that picks one, `devicebuffer.cuh` the CUDA side."""
    head, stem = _stem_key(path)
    keys: set[tuple[str, str]] = set()
    if path.endswith(".cuh"):
        keys.add((head, stem))  # `mont_t.cuh` beside `mont_t.hip` (sppark)
        keys.update((head, stem + suffix) for suffix in _HIP_SUFFIXES)
        keys.update((head, stem.replace(cuda, hip)) for cuda, hip in _CUDA_SPELLINGS if cuda in stem)
    for cuda, hip in _CUDA_SPELLINGS:
        if cuda in head:
            keys.add((head.replace(cuda, hip), stem))
            keys.add((head.replace(cuda, hip), stem.replace(cuda, hip)))
    if head:
        keys.update((head + suffix, stem) for suffix in ("_hip", "-hip", "_rocm"))
    return keys


def _hip_twin(path: str, own: frozenset[str], ctx: MatchContext) -> bool:
    """Whether the repository holds a HIP twin of the header at `path`: a file at one of its _twin_keys, other than
    itself; at its own (directory, stem) only a file whose path has an AMD word (`mont_t.hip`)."""
    memo = ctx.memo.setdefault("hip_twin_stems", {})
    got = memo.get(id(own))
    if got is None or got[0] is not own:
        stems: dict[tuple[str, str], list[str]] = {}
        for p in own:
            stems.setdefault(_stem_key(p), []).append(p)
        got = memo[id(own)] = (own, stems)
    stems = got[1]
    mine = _stem_key(path)
    for key in _twin_keys(path):
        for other in stems.get(key, ()):
            if other != path and (key != mine or not _AMD.isdisjoint(_words(other))):
                return True
    return False


def _words(path: str) -> set[str]:
    return {w.lower() for token in _TOKEN.split(path) for w in [token, *_CAMEL.findall(token)]}


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
        quoted = node.type == "string_literal"
        if quoted and _names_cuda_only(header):
            path = project_header_path(sf.path, header, True, own)
        elif _words(header).isdisjoint(_AMD):
            # A header named for no vendor: the project's CUDA side when its HIP twin is beside it.
            path = project_header_path(sf.path, header, quoted, own)
            if path is None or not _hip_twin(path, own, ctx):
                continue
        else:
            continue
        if path is not None:  # port status follows that header's own open work (PROJECT_HEADER)
            yield Hit(node.start_byte, node.end_byte, name=header, values=((PROJECT_HEADER, path),))
