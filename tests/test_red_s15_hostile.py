"""Session 15's red team: attacks a hostile repository (a PR bot scans strangers' code) makes, each in a tree
generated here, with what porter must do. Fixed at the one place the mechanism lives: the preprocessor's computed
includes and the repository facts, the build-source reader, the history walk's budget."""
from __future__ import annotations

import json

import pytest

from helpers import git, make_repo, porter_here, write_files
from porter.source.preprocessor import directives, include_macros, quoted_includes

KERNEL = ("__global__ void k(float* x) { float v = x[threadIdx.x]; v += __shfl_down_sync(0xffffffff, v, 16);"
          " x[0] = v; }\n")


def _new_findings(repo, *extra):
    p = porter_here("scan", str(repo), "--no-cache", "--new-since", "HEAD~1", "--isolated", "--fail-on", "low",
                    "-f", "json", *extra)
    return p.returncode, sorted({(f["path"], f["rule"]) for f in json.loads(p.stdout)["findings"]}), p.stderr


def test_a_computed_include_reads_a_macro_another_header_defines():
    config = include_macros(directives(b'#define KERNEL "kern.gpu"\n#define ALIAS KERNEL\n#define N 4\n'
                                       b'#define KERNEL "other.gpu"\n'))
    assert config == {"KERNEL": ('"kern.gpu"', '"other.gpu"'), "ALIAS": ("KERNEL",)}
    src = b'#include "config.h"\n#include ALIAS\n#define LOCAL "mine.gpu"\n#include LOCAL\n#include NOWHERE\n'
    assert quoted_includes(directives(src), config) == [(1, "config.h"), (2, "kern.gpu"), (2, "other.gpu"),
                                                        (4, "mine.gpu")]
    assert quoted_includes(directives(src)) == [(1, "config.h"), (4, "mine.gpu")]


def test_a_kernel_behind_a_macro_of_another_header_is_scanned_and_fails_the_gate(tmp_path):
    # Before: the macro was looked up in a.cu alone, kern.gpu was never read and the gate passed (exit 0).
    repo = make_repo(tmp_path / "r", {"base.cu": "int base;\n"})
    write_files(repo, {"kern.gpu": KERNEL, "config.h": '#define KERNEL "kern.gpu"\n',
                       "a.cu": '#include "config.h"\n#include KERNEL\n'})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    code, found, err = _new_findings(repo)
    assert code == 1, err
    assert found == [("kern.gpu", "DEV002"), ("kern.gpu", "DEV011"), ("kern.gpu", "KRN001")]


def test_nvcc_x_cu_through_a_build_variable_names_its_sources():
    from porter.source.buildsources import cuda_sources

    make = "NVCC = /usr/local/cuda/bin/nvcc\nFLAGS := -O2\nFLAGS += -x cu\nall:\n\t$(NVCC) $(FLAGS) kern.txt\n"
    assert cuda_sources("Makefile", make) == ["kern.txt"]
    shell = '#!/bin/sh\nNV=nvcc\nX="-x cu"\n$NV $X src/kern.txt\n${NV} ${X} b.txt\n'
    assert cuda_sources("build.sh", shell) == ["src/kern.txt", "b.txt"]
    ci = "env:\n  XFLAGS: -x cu\nsteps:\n  - run: nvcc $XFLAGS k.txt\n"
    assert cuda_sources(".github/workflows/ci.yml", ci) == [".github/workflows/k.txt", "k.txt"]
    # A Make rule `target: deps` is no assignment outside YAML.
    assert cuda_sources("Makefile", "X: -x cu\nall:\n\tnvcc $X k.txt\n") == []


def test_variables_built_of_variables_stop_at_the_growth_cap():
    import time

    from porter.source.buildsources import MAX_EXPANDED_GROWTH, expand_variables

    bomb = "A0=x\n" + "".join(f"A{i}=$(A{i - 1})$(A{i - 1})\n" for i in range(1, 60)) + "nvcc -x cu $(A59)\n"
    t = time.process_time()
    out = expand_variables(bomb)
    assert time.process_time() - t < 0.5
    assert len(out) <= MAX_EXPANDED_GROWTH * len(bomb) + 4096


def test_a_kernel_compiled_through_make_variables_is_scanned_and_fails_the_gate(tmp_path):
    # Before: `$(NVCC) $(NVFLAGS) kern.txt` named no `nvcc -x cu` line, kern.txt was never read, exit 0.
    repo = make_repo(tmp_path / "r", {"base.cu": "int base;\n"})
    write_files(repo, {"kern.txt": KERNEL,
                       "Makefile": "NVCC ?= nvcc\nNVFLAGS = -O3 -x cu\nk.o: kern.txt\n\t$(NVCC) $(NVFLAGS) -c kern.txt\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    code, found, err = _new_findings(repo)
    assert code == 1, err
    assert ("kern.txt", "DEV002") in found and ("kern.txt", "KRN001") in found


def test_thinning_a_walk_keeps_the_last_point_and_what_dropped_points_changed():
    from porter.history.points import Planned, thinned

    plan = [Planned(0, ("a",), 5), Planned(1, None, 5), Planned(2, ("b",), 6), Planned(3, None, 6),
            Planned(4, None, 7)]
    assert thinned(plan) == [Planned(1, ("a",), 5), Planned(3, ("b",), 6), Planned(4, None, 7)]
    assert thinned([Planned(0, ("a",), 1)]) == [Planned(0, ("a",), 1)]


def test_a_history_of_more_files_than_the_walk_budget_is_thinned_with_a_notice(tmp_path, monkeypatch):
    # 1,000 commits of a 20,000-file tree ran past 10 minutes and 2 GB in the walk's own process (each point's tree
    # listed and summarised there); the walk now sums the files over its points and keeps one point in 2, 4, ...
    import porter.history.points as points

    files = {f"src/f{j}.cu": f"__global__ void k{j}(float* x) {{ x[0] = {j}; }}\n" for j in range(10)}
    repo = make_repo(tmp_path / "r", files)
    for i in range(8):
        write_files(repo, {f"src/f{i}.cu": KERNEL.replace("void k(", f"void k{i}(")})
        git(repo, "commit", "-q", "-am", f"c{i}")
    full = json.loads(porter_here("history", str(repo), "--no-cache", "-q", "-f", "json").stdout)
    monkeypatch.setattr(points, "MAX_WALK_FILES", 35)
    p = porter_here("history", str(repo), "--no-cache", "-q", "-f", "json")
    assert p.returncode == 0, p.stderr
    thin = json.loads(p.stdout)
    assert len(full["points"]) == 9 and full["notices"] == []
    assert [pt["subject"] for pt in thin["points"]] == ["c2", "c6", "c7"]
    assert [pt["commits"] for pt in thin["points"]] == [4, 4, 1]
    assert thin["notices"] == ["history: 3 of 9 points kept (one in 4): a walk summarises at most 35 files over its "
                               "points, and the last tree holds 10"]
    assert thin["points"][-1]["open_findings"] == full["points"][-1]["open_findings"] == 26
    assert thin["points"][0]["open_findings"] == full["points"][3]["open_findings"]


def test_patch_paths_are_quoted_as_git_quotes_them():
    from porter.render.safe import patch_path

    assert patch_path(b"a/", "src/k.cu") == b"a/src/k.cu"
    assert patch_path(b"b/", 'x\n+++ b/y"\\\t.cu') == b'"b/x\\n+++ b/y\\"\\\\\\t.cu"'
    assert patch_path(b"a/", "\u00e9.cu") == b'"a/\\303\\251.cu"'


def test_a_file_name_holding_patch_headers_cannot_add_hunks_to_ports_patch(tmp_path):
    # Before: the name went into `diff --git`, `---` and `+++` raw, so its newlines started header and hunk lines of
    # the repository's choosing (`+++ b/<another file>`, `@@ -0,0 +1 @@`, `+pwned`) in the patch a user applies.
    import subprocess

    name = "x\n+++ b/victim.txt\n@@ -0,0 +1 @@\n+pwned\n--- a/y.cu"  # directories x..., victim.txt..., then y.cu
    repo = make_repo(tmp_path / "r", {"victim.txt": "safe\n"})
    (repo / "sub" / name).parent.mkdir(parents=True)
    (repo / "sub" / name).write_text(KERNEL)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    out = tmp_path / "port.patch"
    p = porter_here("port", str(repo), "-o", str(out))
    assert p.returncode == 0, p.stderr
    patch = out.read_bytes()
    quoted = b'"a/sub/x\\n+++ b/victim.txt\\n@@ -0,0 +1 @@\\n+pwned\\n--- a/y.cu"'
    assert b"\n--- " + quoted + b"\n" in patch
    assert b"\n+pwned" not in patch and b"\n+++ b/victim.txt" not in patch
    subprocess.run(["git", "apply"], input=patch, cwd=repo, check=True)
    assert (repo / "victim.txt").read_text() == "safe\n"
    assert b"lane_mask_t" in (repo / "sub" / name).read_bytes()


@pytest.mark.xfail(strict=True, reason="a vendor-prefix macro's paste (`CUDA(x) cuda##x`, line 6) is API012's to "
                                       "judge and is not expanded (session 27 reads `CAT(cuda, Free)` and "
                                       "`CAT(__glo, bal__)`: porter.source.preprocessor.pasted_names)")
def test_cuda_names_built_by_token_pasting_are_found(tmp_path):
    # Today porter reports nothing at all for this file: the kernel, cudaMalloc and cudaFree are all pasted.
    (tmp_path / "a.cu").write_text(
        "#define CAT(a, b) a##b\n#define CUDA(x) cuda##x\n#define GLOBAL CAT(__glo, bal__)\n"
        "GLOBAL void k(float* x) { x[0] = 1.0f; }\n"
        "void host(float** p, int n) {\n  CUDA(Malloc)((void**)p, n);\n  CAT(cuda, Free)(*p);\n}\n")
    p = porter_here("scan", str(tmp_path), "--no-cache", "--isolated", "-f", "json")
    found = sorted({(f["line"], f["rule"]) for f in json.loads(p.stdout)["findings"]})
    assert (4, "KRN001") in found and (6, "API001") in found and (7, "API001") in found
