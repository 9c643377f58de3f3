"""A C/C++/CUDA file's cache key names the repository facts that file reads (porter.filekey): a new header nobody
includes or names keeps every other file's entry; a header a file includes, a macro it uses or a constant it names
re-scans that file alone. Real scans of a real tree with porter's cache."""
from __future__ import annotations

from porter.filekey import FactsView, uses_of
from porter.pipeline import run
from porter.settings import Settings

from helpers import make_repo

FILES = {
    "include/qual.cuh": "#pragma once\n#define TILE 128\n",
    "src/k.cu": ('#include "../include/qual.cuh"\n#include "extra/helpers.h"\n'
                 "KERNEL void k(float* x) { __shared__ float s[TILE]; s[threadIdx.x] = x[0]; }\n"
                 "void host(float* p) { k<<<1, 32>>>(p); }\n"),
    "src/u.cu": "__global__ void u(int* p) { p[0] = 1; }\n",
}


def _scan(repo, settings):
    result = run(repo, settings).result
    return result, (result.stats.cache_hits, result.stats.cache_misses)


def test_a_file_is_scanned_again_only_when_a_fact_it_reads_changes(tmp_path):
    repo = make_repo(tmp_path / "r", FILES)
    settings = Settings(jobs=1, cache_dir=tmp_path / "cache", targets=("mi300x",))
    result, counts = _scan(repo, settings)
    assert counts == (0, 3)
    assert [k.name for k in result.kernels] == ["u"]  # KERNEL is no macro porter knows yet
    assert _scan(repo, settings)[1] == (3, 0)

    # A header no file includes, defining names no file uses: only it is scanned.
    (repo / "include" / "unrelated.h").write_text("#pragma once\n#define UNRELATED 7\n#define HOSTONLY __host__\n")
    assert _scan(repo, settings)[1] == (3, 1)

    # The header k.cu includes as "extra/helpers.h" now is one of the repository's files: k.cu and it are scanned.
    (repo / "src" / "extra").mkdir()
    (repo / "src" / "extra" / "helpers.h").write_text("#pragma once\n")
    assert _scan(repo, settings)[1] == (3, 2)

    # A qualifier macro k.cu uses: k.cu is scanned again and its kernel found; u.cu and the headers are kept.
    (repo / "include" / "kernel.h").write_text("#pragma once\n#define KERNEL __global__\n")
    result, counts = _scan(repo, settings)
    assert counts == (4, 2)
    assert [k.name for k in result.kernels] == ["k", "u"]
    k = next(k for k in result.kernels if k.name == "k")
    assert [(a.name, a.bytes) for a in k.facts.shared_memory.arrays] == [("s", 512)]

    # A constant k.cu names changes value: qual.cuh (its bytes) and k.cu (the constant) are scanned, u.cu kept.
    (repo / "include" / "qual.cuh").write_text("#pragma once\n#define TILE 64\n")
    result, counts = _scan(repo, settings)
    assert counts == (4, 2)
    k = next(k for k in result.kernels if k.name == "k")
    assert [(a.name, a.bytes) for a in k.facts.shared_memory.arrays] == [("s", 256)]
    assert _scan(repo, settings)[1] == (6, 0)


def test_the_digest_takes_the_facts_a_files_bytes_name_and_no_other():
    base = dict(macros={"KERNEL": "__global__", "DEFINE_K()": "0"}, headers=frozenset({"a/b/util.h", "x.cu"}),
                constants={"TILE": 128, "OTHER": 4}, build_names=(frozenset({"USE_ROCM"}), frozenset({"PTX_OK"})),
                alternatives={"kWarp": (32, 64)})
    uses = uses_of(b'#include "b/util.h"\nKERNEL void k() { int s[TILE]; }\n#ifdef USE_ROCM_X\n#endif\n')
    assert uses == "KERNEL TILE USE_ROCM_X b endif ifdef include int k s util.h void"
    digest = FactsView(**base).digest(uses)

    def changed(**what) -> bool:
        return FactsView(**{**base, **what}).digest(uses) != digest

    assert not changed(constants={"TILE": 128, "OTHER": 8})  # OTHER is not named
    assert changed(constants={"TILE": 64, "OTHER": 4})
    assert not changed(macros={"KERNEL": "__global__", "DEFINE_K()": "1"})  # DEFINE_K does not stand in the file
    assert changed(macros={"KERNEL": "__device__", "DEFINE_K()": "0"})
    assert not changed(headers=frozenset({"a/b/util.h", "x.cu", "y.h"}))  # no file named y.h is included
    assert changed(headers=frozenset({"a/b/util.h", "x.cu", "c/util.h"}))  # another util.h may be the one
    assert not changed(alternatives={"kWarp": (32, 64, 16)})  # kWarp is not named
    # USE_ROCM stands in the file (inside USE_ROCM_X), as the build-side tests search for it; PTX_OK does not.
    assert changed(build_names=(frozenset(), frozenset({"PTX_OK"})))
    assert not changed(build_names=(frozenset({"USE_ROCM"}), frozenset()))


def test_repository_files_named_in_a_file_are_found_as_substrings_with_or_without_re2(monkeypatch):
    import porter.filekey as filekey

    # Names inside longer runs (a.h in ba.h, x.cuh in x.cuh.in), regex characters taken literally (c++.h, $v.h,
    # a-b.h), a non-ASCII name (its UTF-8 bytes as uses_of spells them) and names that do not stand in the file.
    headers = frozenset({"a.h", "ba.h", "x.cuh", "d/c++.h", "$v.h", "a-b.h", "é.h", "n.h", "cxx.h", "a.b.h"})
    uses = uses_of("#include <ba.h>\n#include \"x.cuh.in\"\n#include <c++.h>\nint $v.h;\n#include \"a-b.h\"\n"
                   "#include \"é.h\"\n// aXb.h\n".encode())
    found = FactsView({}, headers, {}, (frozenset(), frozenset()), {})._named_headers(uses)
    assert sorted(found) == sorted(["a.h", "ba.h", "x.cuh", "c++.h", "$v.h", "a-b.h", "é.h".encode().decode("latin-1")])
    monkeypatch.setattr(filekey, "_re2", None)  # one search per name: the same answer
    alone = FactsView({}, headers, {}, (frozenset(), frozenset()), {})
    assert sorted(alone._named_headers(uses)) == sorted(found) and alone._header_set is False
