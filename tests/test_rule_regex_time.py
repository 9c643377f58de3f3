"""porter's own rule patterns that run on Python's backtracking engine stay (near-)linear on crafted input: files
that made one pattern take the whole per-file budget (the file then skipped, its findings hidden from a gate) are
scanned well inside a small budget, with exactly the findings of the one real hit each holds."""
from __future__ import annotations

import time

from helpers import write_files
from porter.match.regex import compile_regex
from porter.pipeline import scan
from porter.rules import RULES_DIR, load_rule
from porter.settings import Settings

KB256 = 256 * 1024


def _scan(tmp_path, files: dict[str, str], rule: str) -> list[tuple[str, int, str]]:
    write_files(tmp_path, files)
    t = time.monotonic()
    result = scan(tmp_path, Settings(jobs=1, file_seconds=10))
    assert time.monotonic() - t < 60
    assert [(s.path, s.reason) for s in result.skipped] == []
    return sorted((f.path, f.line, f.snippet) for f in result.findings if f.rule == rule)


def test_dev030_many_unused_mask_defines_are_one_pass_not_one_scan_of_the_file_each(tmp_path):
    # The lookaheads "not passed to a *_sync later" / "used later" rescanned the rest of the file per #define:
    # 8,000 unused ones took the whole budget on `re`. Now `later` / `not_later` look names up in one pass.
    n = KB256 // 32
    defines = "".join(f"#define WARP_MASK_{i} 0xffffffff\n" for i in range(n))
    decls = "".join(f"unsigned lane_mask_{i} = 0xffffffffu;\n" for i in range(n))
    tail = ("#define FULL_WARP_MASK 0xffffffff\n"
            "#define SHFL_FULL_MASK 0xffffffff\n"
            "__device__ unsigned lanes() { return FULL_WARP_MASK; }\n"
            "__device__ int s(int v) { return __shfl_sync(SHFL_FULL_MASK, v, 0); }\n")
    found = _scan(tmp_path, {"d.cu": defines + tail, "u.cu": decls + "unsigned full_warp_mask = ~0u;\n"
                             "__device__ unsigned f() { return full_warp_mask; }\n"}, "DEV030")
    # Only the used names that no intrinsic takes straight: SHFL_FULL_MASK is DEV002's, at the call.
    assert found == [("d.cu", n + 1, "#define FULL_WARP_MASK 0xffffffff"),
                     ("u.cu", n + 1, "unsigned full_warp_mask = ~0u;")]


def test_dev039_a_long_parameter_list_is_not_rescanned_from_every_float_pointer(tmp_path):
    # `float *a, ` x 26,000 with no `;{}`: each `float *p` scanned to the end of the list and back (43 s on `re`).
    params = "float *a, " * (KB256 // 10)
    real = ("inline __device__ float atomicMaxBits(float* address, float val)\n{\n"
            "  int old = atomicMax((int*)address, __float_as_int(val));\n  return old;\n}\n")
    found = _scan(tmp_path, {"p.cu": "void f(" + params + "\n" + real}, "DEV039")
    assert found == [("p.cu", 4, "int old = atomicMax((int*)address, __float_as_int(val));")]


def test_triton_config_lists_after_blank_lines_are_not_quadratic():
    # `^\s*\w+` tried every blank line after each line start: 16 KB of them took 5-6 s per pattern (DEV014,
    # PYT013), 256 KB about 24 minutes. Asked of the rules' patterns themselves (porter.kernels.triton's own
    # `^\s*from triton import` search had the same problem until session 19: test_red_s19_multiline_blank_runs).
    text = ("configs = [triton.Config({'BLOCK': 128}, num_warps=32)]\n" + "\n" * KB256 + "x = 1\n").encode()
    for path, index in (("device/DEV014-nvidia-generation-tuning.yaml", 5),
                        ("python/PYT013-triton-configs-without-amd-options.yaml", 0)):
        pattern = load_rule(RULES_DIR / path).patterns[index]
        rx = compile_regex(pattern["regex"], tuple(pattern.get("flags", ())))
        t = time.monotonic()
        spans = [m.span("hit") for m in rx.finditer(text)]
        assert time.monotonic() - t < 2, path
        assert spans == [(11, 24)], path


# DEV030's first two patterns as they were, with the look-aheads over the rest of the file, on `re`.
_TAIL = (r"(?![\s\S]*\b__(?:shfl\w*|ballot|any|all|uni|match_\w+|reduce_\w+)_sync\s*\(\s*(?P=hit)\b)"
         r"(?=[\s\S]*?\b(?P=hit)\b)")


def test_dev030_later_and_not_later_hit_what_the_look_aheads_hit():
    import random
    import re

    from porter.match.base import MatchContext
    from porter.match.kinds.code import match_regex
    from porter.source.parse import parse

    rng = random.Random(30)
    patterns = load_rule(RULES_DIR / "device/DEV030-named-32bit-warp-mask.yaml").patterns[:2]
    olds = [re.compile((p["regex"] + _TAIL).encode()) for p in patterns]
    names = ["FULL_MASK", "WARP_MASK", "kLaneMaskAll", "full_warp_mask", "MASK_ALL"]
    lines = [lambda n: f"#define {n} 0xffffffff\n", lambda n: f"#define {n} (~0u)  // all\n",
             lambda n: f"unsigned int {n} = 0xFFFFFFFFu;\n", lambda n: f"auto {n}{{UINT32_MAX}};\n",
             lambda n: f"x = {n};\n", lambda n: f"y = __shfl_sync({n}, v, 0);\n", lambda n: f"__ballot_sync( {n} , p);\n",
             lambda n: f"int {n}x = 1;\n", lambda n: "z = 0;\n"]
    hits = 0
    for _ in range(400):
        text = "".join(rng.choice(lines)(rng.choice(names)) for _ in range(rng.randint(1, 8)))
        f = parse("k.cu", "cuda", text.encode())
        for p, old in zip(patterns, olds):
            want = [m.span("hit") for m in old.finditer(f.code)]
            got = [(h.start, h.end) for h in match_regex(p, f, MatchContext())]
            assert got == want, text
            hits += len(want)
    assert hits > 100  # the shapes hit often enough to compare something


def test_a_later_option_without_a_name_group_is_refused_at_load(tmp_path):
    import pytest

    from porter.rules import RuleError

    text = (RULES_DIR / "device/DEV030-named-32bit-warp-mask.yaml").read_text()
    bad = tmp_path / "DEV030-named-32bit-warp-mask.yaml"
    bad.write_text(text.replace(r"later: '\b(?P<name>\w+)\b'", r"later: '\b(\w+)\b'"))
    with pytest.raises(RuleError, match=r"patterns\.0\.later.*needs a `name` group"):
        load_rule(bad, tmp_path)
