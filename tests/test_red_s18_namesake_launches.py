"""A launch is listed under at most a few kernels: a repository of K kernels sharing one name and L launches of it
made every report K x L.

ScanResult.launches_of lists, for each kernel, the launches of its name made in files that define no kernel of that
name, so every one of K same-named kernels (one per file) listed all L launches: the JSON report's `kernels`
held K x L launch records, built in porter's own process after every budget. 10 + 10 files of 500 template
kernels named `k` and 500 launches of `k` (400 KB of source) took 183 s and passed 8 GB; 60 + 60 (2.6 MB) was
killed by the kernel's OOM killer at 22 GB. Which of that many namesakes a launch starts is not known (the
kernel analysis says so and folds none of them), so past MAX_NAMESAKES kernels of one name the launches are
listed under none; a name a few kernels share (overloads launched beside them) keeps its launches as before.
"""
from __future__ import annotations

import json

from porter.model.report import MAX_NAMESAKES
from porter.pipeline import run
from porter.render.json import render as render_json
from porter.settings import Settings


def _tree(tmp_path, kernels: int, launches: int):
    for i in range(kernels):
        (tmp_path / f"k{i}.cu").write_text(f"template <int N{i}> __global__ void k(float* p) {{ p[0] = 1; }}\n")
    (tmp_path / "go.cu").write_text("void go(float* p) {\n" + "  k<<<1, 1>>>(p);\n" * launches + "}\n")
    (tmp_path / "one.cu").write_text("__global__ void solo(float* p) { p[0] = 2; }\n"
                                     "void run_solo(float* p) { solo<<<1, 1>>>(p); }\n")


def test_launches_of_a_name_past_the_namesake_bound_are_listed_under_none(tmp_path):
    _tree(tmp_path, MAX_NAMESAKES + 1, 40)
    result = run(tmp_path, Settings(jobs=1)).result
    by_name: dict[str, list[int]] = {}
    for k in result.kernels:
        by_name.setdefault(k.name, []).append(len(result.launches_of(k)))
    assert by_name == {"k": [0] * (MAX_NAMESAKES + 1), "solo": [1]}
    doc = json.loads(render_json(result))
    assert sum(len(k["launches"]) for k in doc["kernels"]) == 1


def test_a_few_namesakes_keep_their_launches(tmp_path):
    _tree(tmp_path, 2, 3)
    result = run(tmp_path, Settings(jobs=1)).result
    assert sorted((k.path, len(result.launches_of(k))) for k in result.kernels) == [
        ("k0.cu", 3), ("k1.cu", 3), ("one.cu", 1)]
