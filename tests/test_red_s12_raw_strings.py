"""Red team, session 12: a C++11 raw string literal made porter's preprocessor reader misread the file.

The one preprocessor reader (porter.source.preprocessor) lexed comments and strings without knowing raw strings
(`R"delim( ... )delim"`), so a raw string could (a) hold a `/*` that porter took for a comment running over the
`#endif` of an `#if 0`, or (b) hold a line `#if 0` that porter took for a directive. Either way porter read the
kernel after it as dead code and dropped every finding in it, while nvcc compiles the kernel (checked: nvcc -c, rc 0,
for both files below; with `#error` in place of the kernel both nvcc and g++ stop on it, so the kernel is live):
a pull request passed `scan --new-since --fail-on low` with CUDA-only code.
"""
from __future__ import annotations

import json

import pytest

from helpers import git, make_repo, porter_here, write_files

BODY = """__global__ void k(float* x) {
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  x[0] = v;
}
"""
HIDERS = {
    # A raw string inside `#if 0` (the compiler skips it) whose `/*` porter took for a comment hiding the `#endif`.
    "comment": '#if 0\nconst char* s = R"x(" /* )x";\n#endif\n' + BODY + "// */\n",
    # A line `#if 0` inside a raw string, which is no directive to any compiler.
    "directive": 'const char* s = R"(\n#if 0\n)";\n' + BODY,
    # Prefixed raw strings, a delimiter of 15 characters (C++ allows 16; tree-sitter-cuda, 15).
    "prefixed": 'auto a = u8R"abcdefghijklmno(\n#if 0\n)abcdefghijklmno"; auto b = LR"(/*)";\n' + BODY,
}


@pytest.mark.parametrize("name", sorted(HIDERS))
def test_a_raw_string_does_not_make_a_live_kernel_dead(tmp_path, name):
    repo = make_repo(tmp_path / "r", {"a.cu": HIDERS[name]})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    found = sorted((f["rule"], f["line"]) for f in json.loads(p.stdout)["findings"])
    assert found == [("DEV002", 6), ("DEV011", 6), ("KRN001", 4)]


def test_a_pull_request_hiding_a_kernel_behind_a_raw_string_fails_the_gate(tmp_path):
    repo = make_repo(tmp_path / "r", {"base.cu": "int base;\n"})
    write_files(repo, {"new.cu": HIDERS["directive"]})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    p = porter_here("scan", str(repo), "--no-cache", "--new-since", "HEAD~1", "--fail-on", "low", "--format", "json")
    assert p.returncode == 1, p.stderr
    assert sorted(f["rule"] for f in json.loads(p.stdout)["findings"]) == ["DEV002", "DEV011", "KRN001"]


def test_a_real_if_0_after_a_raw_string_still_hides_its_body(tmp_path):
    src = 'const char* s = R"(/* not a comment )";\n#if 0\n' + BODY + "#endif\n"
    repo = make_repo(tmp_path / "r", {"a.cu": src})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    assert json.loads(p.stdout)["findings"] == []


def test_an_unterminated_raw_string_runs_to_the_end_in_linear_time():
    import time

    from porter.source import preprocessor

    data = b'R"x(\n#if 0\n' * 50_000
    start = time.perf_counter()
    assert preprocessor.directives(data) == []
    assert time.perf_counter() - start < 2.0
