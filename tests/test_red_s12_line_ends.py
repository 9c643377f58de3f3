"""Red team, session 12: a C/C++/CUDA file whose lines end in a lone carriage return.

gcc, clang and nvcc end a line at LF, CR LF or a lone CR (nvcc -c of the file below: rc 0, and `#error live` on its
second CR-ended line stops nvcc at line 2). porter ended lines only at LF, so a file with CR-only line ends was one
line to it, and when that line began with `//` the whole file was a comment: no finding, and a pull request adding
the kernel passed `scan --new-since --fail-on low`. A lone CR is now read as the line end it is to the compiler (at
the same length, so offsets stay; line numbers are the compiler's).
"""
from __future__ import annotations

import json

from helpers import git, make_repo, porter_here, write_files

CR_KERNEL = ("// a file with CR line ends\r__global__ void k(float* x) {\r  float v = x[threadIdx.x];\r"
             "  v += __shfl_down_sync(0xffffffff, v, 16);\r  x[0] = v;\r}\r")


def test_a_file_with_lone_carriage_returns_is_read_line_by_line(tmp_path):
    repo = make_repo(tmp_path / "r", {"a.cu": CR_KERNEL.encode()})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    assert sorted((f["rule"], f["line"]) for f in json.loads(p.stdout)["findings"]) == [
        ("DEV002", 4), ("DEV011", 4), ("KRN001", 2)]


def test_a_pull_request_adding_a_cr_only_kernel_fails_the_gate(tmp_path):
    repo = make_repo(tmp_path / "r", {"base.cu": "int base;\n"})
    write_files(repo, {"new.cu": CR_KERNEL.encode()})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    p = porter_here("scan", str(repo), "--no-cache", "--new-since", "HEAD~1", "--fail-on", "low", "--format", "json")
    assert p.returncode == 1, p.stderr
    assert sorted(f["rule"] for f in json.loads(p.stdout)["findings"]) == ["DEV002", "DEV011", "KRN001"]


def test_crlf_line_ends_are_still_one_line_end_each(tmp_path):
    repo = make_repo(tmp_path / "r", {"a.cu": CR_KERNEL.replace("\r", "\r\n").encode()})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    assert sorted((f["rule"], f["line"]) for f in json.loads(p.stdout)["findings"]) == [
        ("DEV002", 4), ("DEV011", 4), ("KRN001", 2)]


def test_a_python_file_with_lone_carriage_returns_is_read_line_by_line(tmp_path):
    # CPython reads CR, LF and CR LF alike (universal newlines): the CR-only file is the same program.
    text = "# helper\nimport torch\nx = torch.cuda.get_device_capability()\nimport pycuda.autoinit\n"
    repo = make_repo(tmp_path / "r", {"a.py": text.replace("\n", "\r").encode(), "b.py": text})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    found = sorted((f["path"], f["rule"], f["line"]) for f in json.loads(p.stdout)["findings"])
    assert found == [("a.py", "LIB008", 4), ("a.py", "PYT001", 3), ("b.py", "LIB008", 4), ("b.py", "PYT001", 3)]


def test_requirements_and_yaml_with_lone_carriage_returns_are_read_line_by_line(tmp_path):
    # pip reads a requirements file with str.splitlines (CR is a line end), YAML counts CR as a line break: the
    # CR-only files install and mean what the LF ones do.
    req = "# deps\nnvidia-cublas-cu12==12.1\ntensorrt==10.0\n"
    yml = "name: x\n# c\nimage: nvcr.io/nvidia/pytorch:24.01-py3\n"
    repo = make_repo(tmp_path / "r", {"requirements.txt": req.replace("\n", "\r").encode(),
                                      "ci.yaml": yml.replace("\n", "\r").encode()})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    found = sorted((f["path"], f["rule"], f["line"]) for f in json.loads(p.stdout)["findings"])
    assert found == [("ci.yaml", "CTR008", 3), ("requirements.txt", "LIB010", 2), ("requirements.txt", "TRT003", 3)]
