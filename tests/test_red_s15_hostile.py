"""Session 15's red team: attacks a hostile repository (a PR bot scans strangers' code) makes, each in a tree
generated here, with what porter must do. Fixed at the one place the mechanism lives: the preprocessor's computed
includes and the repository facts, the build-source reader, the history walk's budget."""
from __future__ import annotations

import json

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
