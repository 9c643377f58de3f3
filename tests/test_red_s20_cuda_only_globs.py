"""Red team, session 20: a repository's `cuda_only` globs cost every finding a compile of each glob.

porter.portaware.scope.cuda_only_match tested a path against the globs one at a time, each as a list of its own
(porter.source.discover.selected), and PortAware.decide asks it once per finding. discover's compiled-glob cache
keeps 64 lists, so a porter.toml of 1,000 globs (MAX_CONFIG_LIST allows that many) compiled all 1,000 again for
every finding, after the scan's per-file budgets, in porter's own process: one file of 101 warp-shuffle findings
took `porter scan` 77 s against 1.8 s with one glob (2,000 findings ran past 10 minutes). The list is now compiled
once as one set (one linear pass answers "none of them", the usual answer) and each glob once, to name the first
that holds a path.
"""
from __future__ import annotations

import json

from helpers import porter_here, write_files
from porter.portaware import scope
from porter.portaware.scope import cuda_only_match
from porter.source import discover

GLOBS = tuple(f"nomatch{i}/*.cu" for i in range(998)) + ("vendor/**", "vendor/nv/*.cu")


def test_a_thousand_globs_are_compiled_once_for_many_paths(monkeypatch):
    discover.compiled_globs.cache_clear()
    scope._all_globs.cache_clear()
    scope._each_glob.cache_clear()
    compiled = []
    real = discover._linear_spec
    monkeypatch.setattr(discover, "_linear_spec", lambda cls, patterns: compiled.append(len(patterns)) or
                        real(cls, patterns))
    paths = [f"src/k{i}.cu" for i in range(300)] + ["vendor/nv/a.cu", "vendor/b.cu"]
    answers = [cuda_only_match(p, GLOBS) for p in paths for _ in range(3)]
    assert answers == [None] * 900 + ["vendor/**"] * 6
    # One set of every glob, then each glob alone once (to name the first match), however many paths and calls.
    assert len(compiled) == 1 + len(GLOBS)
    assert compiled[0] == len(GLOBS)


def test_the_first_glob_holding_a_path_is_the_one_named():
    assert cuda_only_match("vendor/nv/a.cu", ("x/*.cu", "vendor/nv/*.cu", "vendor/**")) == "vendor/nv/*.cu"
    assert cuda_only_match("vendor/nv/a.cu", ("!vendor/**", "vendor/**")) == "vendor/**"
    assert cuda_only_match("src/a.cu", ("vendor/**",)) is None
    assert cuda_only_match("src/a.cu", ()) is None


def test_a_scan_with_a_thousand_globs_marks_the_same_findings(tmp_path):
    kernel = "__global__ void k(float* p) {\n" + "".join(
        f"  p[{i}] = __shfl_down_sync(0xffffffff, p[0], 1);\n" for i in range(10)) + "}\n"
    toml = "cuda_only = [" + ", ".join(f'"{g}"' for g in GLOBS) + "]\n"
    write_files(tmp_path / "r", {"porter.toml": toml, "src/k.cu": kernel, "vendor/nv/k.cu": kernel})
    r = porter_here("scan", str(tmp_path / "r"), "--no-cache", "-j", "1", "-f", "json", timeout=120)
    assert r.returncode in (0, 1), r.stderr
    rows = sorted({(f["path"], f["status"]) for f in json.loads(r.stdout)["findings"]})
    assert rows == [("src/k.cu", "open"), ("vendor/nv/k.cu", "cuda-only")]
