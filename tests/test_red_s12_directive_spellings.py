"""Red team, session 12: directive spellings the compiler reads and porter's preprocessor reader did not.

Each file holds a live kernel that porter read as dead code inside an `#if 0` (dropping every finding in it), so a
pull request adding it passed `scan --new-since --fail-on low`. Each was checked with nvcc 12 (`nvcc -c`, rc 0;
with `#error live` before the kernel nvcc stops on it, so the kernel is compiled):
- `%:endif`: `%:` is the digraph of `#` (C++ [lex.digraph]), so it closes the `#if 0`;
- `// note \\` + newline + `#if 0`: a line comment continued by a splice swallows the next line, `#if 0` and all
  (also with blanks between the backslash and the newline, which gcc, clang and nvcc take as a splice with a warning);
- `#if 0 \\  ` + newline + `|| 1`: a directive continued past blanks after its backslash is `#if 0 || 1`;
- `#` + vertical tab + `endif`, form feed + `#endif`: blanks around the `#` include those two.
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
    "digraph": "#if 0\n%:endif\n" + BODY,
    "digraph-indented": "#if 0\n  %:  endif\n" + BODY,
    "comment-splice": "// note \\\n#if 0\n" + BODY,
    "comment-splice-blanks": "// note \\  \n#if 0\n" + BODY,
    "directive-splice-blanks": "#if 0 \\  \n|| 1\n" + BODY + "#endif\n",
    # A vertical tab or form feed is horizontal blank space to the preprocessor, around the `#` too.
    "vertical-tab": "#if 0\n#\vendif\n" + BODY,
    "form-feed": "#if 0\n\f#endif\n" + BODY,
}
# (rule, line) of the kernel's findings: it starts on line 3 in each file.
FOUND = [("DEV002", 5), ("DEV011", 5), ("KRN001", 3)]


@pytest.mark.parametrize("name", sorted(HIDERS))
def test_a_directive_spelling_the_compiler_reads_does_not_make_a_live_kernel_dead(tmp_path, name):
    repo = make_repo(tmp_path / "r", {"a.cu": HIDERS[name]})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    assert sorted((f["rule"], f["line"]) for f in json.loads(p.stdout)["findings"]) == FOUND


def test_a_pull_request_hiding_a_kernel_behind_a_digraph_fails_the_gate(tmp_path):
    repo = make_repo(tmp_path / "r", {"base.cu": "int base;\n"})
    write_files(repo, {"new.cu": HIDERS["digraph"]})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    p = porter_here("scan", str(repo), "--no-cache", "--new-since", "HEAD~1", "--fail-on", "low", "--format", "json")
    assert p.returncode == 1, p.stderr
    assert sorted(f["rule"] for f in json.loads(p.stdout)["findings"]) == ["DEV002", "DEV011", "KRN001"]


@pytest.mark.parametrize("src", [
    "#if 0\n" + BODY + "%:endif\n",  # a digraph #if 0 group really hides its body
    "%:if 0\n" + BODY + "#endif\n",
    "// note\n#if 0\n" + BODY + "#endif\n",  # a comment without a splice ends at its line
    "int m = 7 %:: x;\n#if 0\n" + BODY + "#endif\n",  # `%:` not at a line's start is no directive
])
def test_what_the_compiler_does_not_compile_is_still_dead(tmp_path, src):
    repo = make_repo(tmp_path / "r", {"a.cu": src})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    assert json.loads(p.stdout)["findings"] == []
