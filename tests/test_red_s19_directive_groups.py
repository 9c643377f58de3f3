"""Valid C++ whose `#if` groups made the refinements quadratic: the file took the whole per-file budget.

Found by shape, not by rule: porter.match.refine_preprocessor read the lines of every group (nested ones again for
each group around them), recomputed the file's directive lines and searched the whole file for "rint" once per
group, and the per-finding refinements (feature_defines, introspection, optional_dropin, profiling_switch,
Preprocessed.enclosing, vanishing_arms) each passed over every group of the file for every finding. On the base
(wall clock, 60 s budget, a loaded 2-core machine): 6,000 nested `#if 1` (84 KB) took 54 s; 10,000 one-line
`#if X` groups (620 KB, a generated file's shape) and 4,000 `#if __CUDA_ARCH__ >= 700` groups with a finding each
(500 KB) were skipped. Now each file's groups are indexed once (preprocessor.groups_around: a finding asks only
the groups around its line) and the per-file facts are computed once.
"""
from __future__ import annotations

import collections
import random

from porter.pipeline import scan
from porter.settings import Settings
from porter.source.parse import parse
from porter.source.preprocessor import groups_around, preprocessed


def _scan(tmp_path, name: str, text: str):
    src = tmp_path / "src"
    src.mkdir()
    (src / name).write_text(text)
    return scan(src, Settings(jobs=1, cache_dir=None, file_seconds=120))


def test_deeply_nested_groups_are_scanned(tmp_path):
    n = 6000
    result = _scan(tmp_path, "d.cu", "#if 1\n" * n + "void g(){cudaMalloc(0,0);}\n" + "#endif\n" * n)
    assert [s.path for s in result.skipped] == []
    assert [(f.rule, f.line) for f in result.findings] == [("API001", n + 1)]


def test_many_groups_in_a_file_that_mentions_printing_are_scanned(tmp_path):
    n = 10_000
    text = "".join(f"#if X{i}\nvoid f{i}(){{cudaMalloc(0,0);}} // NVTX printf\n#endif\n" for i in range(n))
    result = _scan(tmp_path, "e.cu", text)
    assert [s.path for s in result.skipped] == []
    api = [f for f in result.findings if f.rule == "API001"]
    assert len(api) == 1001 and api[0].line == 2  # 1,000 hits and the one that says how many more


def test_a_finding_in_each_of_many_groups_is_refined_per_group_around_it(tmp_path):
    n = 4000
    text = "__global__ void k(float* p){\n" + "".join(
        f"#if __CUDA_ARCH__ >= 700 && CUDA_VERSION >= 11000 && defined(NVTX_{i})\n"
        f"  p[{i}] = __shfl_sync(0xffffffff, p[0], 3);\n#endif\n" for i in range(n)) + "}\n"
    result = _scan(tmp_path, "f.cu", text)
    assert [s.path for s in result.skipped] == []
    counts = collections.Counter((f.rule, str(f.severity)) for f in result.findings)
    # each rule's 1,000 hits and its "N more" finding, refined as the same file of a few groups is
    assert counts == {("DEV016", "high"): 1001, ("DEV010", "medium"): 1001, ("DEV002", "info"): 1001,
                      ("KRN001", "info"): 1}


def _random_nesting(seed: int) -> str:
    rng = random.Random(seed)
    out, depth = [], 0
    for i in range(400):
        r = rng.random()
        if r < 0.3:
            out.append(f"#if A{i}")
            depth += 1
        elif r < 0.4 and depth:
            out.append("#else" if rng.random() < 0.5 else f"#elif B{i}")
        elif r < 0.65 and depth:
            out.append("#endif")
            depth -= 1
        else:
            out.append(f"int x{i};")
    return "\n".join(out + ["#endif"] * depth) + "\n"


def test_groups_around_and_enclosing_answer_as_a_pass_over_every_group():
    for seed in range(20):
        sf = parse("r.cu", "cuda", _random_nesting(seed).encode())
        pre = preprocessed(sf)
        around = groups_around(pre.groups)
        for line in range(1, pre.total + 2):
            every = tuple(g for g in pre.groups if g.arms[0].line <= line <= g.endif)
            assert around(line) == every, (seed, line)
            old = []
            for g in pre.groups:
                if not g.arms[0].end_line < line < g.endif:
                    continue
                i = max(j for j, a in enumerate(g.arms) if a.line <= line)
                if line > g.arms[i].end_line:
                    old.append((g, i))
            old.sort(key=lambda gi: gi[0].arms[0].line)
            assert pre.enclosing(line) == old, (seed, line)
