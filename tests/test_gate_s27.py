"""Session 27's PR-gate evasions (a report-only attacker's): CUDA-only code a pull request adds where the build
compiles it but porter did not read it. Each test is the gate as CI runs it - `scan REPO --isolated --new-since
main --fail-on low --no-cache` on a branch adding the code - and asserts its exit status and exact findings."""
from __future__ import annotations

import json

import pytest

from helpers import git, make_repo, porter_here, write_files

KERNEL = ("__global__ void k(float* x) { unsigned m = __activemask(); x[0] = __shfl_xor_sync(0xffffffff, x[0], 16);"
          " }\n")
# What the gate finds in KERNEL wherever it is read as CUDA.
KERNEL_RULES = ["API004", "DEV002", "DEV003", "DEV011", "KRN001"]


def gate(repo, *extra: str):
    p = porter_here("scan", str(repo), "--isolated", "--new-since", "main", "--fail-on", "low", "--no-cache",
                    "-f", "json", *extra)
    assert p.returncode in (0, 1), p.stderr
    d = json.loads(p.stdout)
    return p.returncode, sorted((f["path"], f["rule"]) for f in d["findings"]), d


def pr(tmp_path, base: dict[str, str], files: dict[str, str]):
    repo = make_repo(tmp_path / "r", base)
    git(repo, "checkout", "-q", "-b", "pr")
    write_files(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    return repo


@pytest.mark.parametrize("name", ["kernels", "kernels.json", "kernels.cmake", "kernels.sh", "kernels.py",
                                  "kernels.yaml"])
def test_a_file_a_cuda_unit_includes_is_read_as_cuda_whatever_its_suffix(tmp_path, name):
    """`#include "kernels.json"` (or no suffix): the compiler reads it as C++; porter skipped names it gave another
    language or none (0 findings, exit 0). Now read as CUDA beside its own language, one path in the output."""
    repo = pr(tmp_path, {"src/main.cpp": "int main(){return 0;}\n"},
              {f"src/{name}": KERNEL, "src/k.cu": f'#include "{name}"\n'})
    code, found, d = gate(repo)
    assert code == 1
    assert sorted({r for p, r in found if p == f"src/{name}"}) == KERNEL_RULES
    assert {p for p, _ in found} == {f"src/{name}"}
    # k.cu and the included file once, not once per reading (a `.cmake` outside a CMake tree is listed by no
    # discovery: read as an unlisted include, as `kern.txt` is, which the count leaves out)
    assert d["files"]["scanned"] == (1 if name.endswith(".cmake") else 2)


def test_an_extensionless_quoted_name_found_nowhere_is_not_listed_unseen(tmp_path):
    """`#include "Eigen/Core"` through an include path: not in the tree, not a failure of the gate."""
    repo = pr(tmp_path, {"src/main.cpp": "int main(){return 0;}\n"}, {"src/k.cu": '#include "Eigen/Core"\nint k;\n'})
    code, found, d = gate(repo)
    assert (code, found, d["skipped"]) == (0, [], [])
