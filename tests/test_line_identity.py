"""A finding's identity rests on its line's code, not on a comment there (porter.source.linecode): a PR that only
adds, edits or removes a comment on a flagged line shows no new finding and no fixed one, and the fingerprint (SARIF
partialFingerprints["porter/v2"], GitLab's fingerprint, baselines) stays the same; a change to the code still shows."""
from __future__ import annotations

import json

import pytest

from helpers import git, make_repo, porter_here
from porter.source.linecode import code_words


@pytest.mark.parametrize("line, path, words", [
    ("  cudaMalloc(&p, n);  // TODO: hipMalloc", "a.cu", "cudaMalloc(&p, n);"),
    ("cudaMalloc(&p, /* bytes */ n);", "a.cu", "cudaMalloc(&p, n);"),
    ('url = "http://example.com"; // where', "a.cu", 'url = "http://example.com";'),
    ('s = "a \\" // b"; // c', "a.cu", 's = "a \\" // b";'),
    ("#include <cuda_runtime.h> // runtime", "a.h", "#include <cuda_runtime.h>"),
    ("import cupy  # GPU arrays", "m.py", "import cupy"),
    ('flag = "#cuda"  # the tag', "m.py", 'flag = "#cuda"'),
    ("find_package(CUDA) # old", "CMakeLists.txt", "find_package(CUDA)"),
    ("x = a / b;", "a.cu", "x = a / b;"),
])
def test_code_words(line, path, words):
    assert code_words(line, path) == words


BASE = """\
#include <cuda_runtime.h>
void f(float** p, int n) {
  cudaMalloc(p, n);
  cudaFree(*p);
}
"""


def _scan(repo, *args):
    p = porter_here("scan", str(repo), *args, "-f", "json", "--no-cache")
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


def _commit(repo, text):
    (repo / "a.cu").write_text(text)
    git(repo, "commit", "-qam", "change")


def test_a_comment_on_a_flagged_line_is_no_new_finding(tmp_path):
    repo = make_repo(tmp_path / "r", {"a.cu": BASE})
    base = git(repo, "rev-parse", "HEAD").strip()
    before = {(f["rule"], f["fingerprint"]) for f in _scan(repo)["findings"] if f["line"] == 3}
    _commit(repo, BASE.replace("cudaMalloc(p, n);", "cudaMalloc(p, /* bytes */ n);  // stays CUDA-only for now"))
    after = {(f["rule"], f["fingerprint"]) for f in _scan(repo)["findings"] if f["line"] == 3}
    assert before == after and any(rule == "API001" for rule, _ in before)
    doc = _scan(repo, "--new-since", base)
    assert (doc["findings"], doc["fixed"], doc["diff"]["new"], doc["diff"]["fixed"]) == ([], [], 0, 0)


def test_a_change_to_the_code_still_shows(tmp_path):
    repo = make_repo(tmp_path / "r", {"a.cu": BASE})
    base = git(repo, "rev-parse", "HEAD").strip()
    _commit(repo, BASE.replace("cudaMalloc(p, n);", "cudaMalloc(p, 2 * n);  // doubled"))
    doc = _scan(repo, "--new-since", base)
    assert [(f["line"], f["rule"]) for f in doc["findings"]] == [(3, "API001")]
    assert [(f["line"], f["rule"]) for f in doc["fixed"]] == [(3, "API001")]
