"""A computed include (`#define KERNEL "kern.gpu"` then `#include KERNEL`) reads the file its macro names, as the
compiler does: porter scanned files a `#include "..."` names whatever their extension (kern.gpu is C++ to a
compiler), but not one named through a macro, so a pull request could hide its kernel behind one
(porter.source.preprocessor.quoted_includes, which the scan's unlisted-include pass and port status both use).
"""
from __future__ import annotations

import json

from helpers import git, make_repo, porter_here, write_files
from porter.source.preprocessor import directives, quoted_includes

KERNEL = ("__global__ void k(float* x) { float v = x[threadIdx.x]; v += __shfl_down_sync(0xffffffff, v, 16);"
          " x[0] = v; }\n")


def test_quoted_includes_follow_object_like_macros_defined_before_the_include():
    src = (b'#define KERNEL "kern.gpu"\n#include KERNEL\n#define A B\n#define B "b.gpu"\n#include A\n'
           b'#define F(x) "f.gpu"\n#include F\n#include LATER\n#define LATER "later.gpu"\n#include <cuda.h>\n'
           b'#define SYS <sys.gpu>\n#include SYS\n#define LOOP LOOP\n#include LOOP\n')
    assert quoted_includes(directives(src)) == [(2, "kern.gpu"), (5, "b.gpu")]


def test_a_kernel_behind_a_computed_include_is_scanned_and_fails_the_gate(tmp_path):
    repo = make_repo(tmp_path / "r", {"base.cu": "int base;\n"})
    write_files(repo, {"kern.gpu": KERNEL, "a.cu": '#define KERNEL "kern.gpu"\n#include KERNEL\n'})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    p = porter_here("scan", str(repo), "--no-cache", "--new-since", "HEAD~1", "--isolated", "--fail-on", "low",
                    "-f", "json")
    assert p.returncode == 1, p.stderr
    assert sorted((f["path"], f["rule"]) for f in json.loads(p.stdout)["findings"]) == [
        ("kern.gpu", "DEV002"), ("kern.gpu", "DEV011"), ("kern.gpu", "KRN001")]
