"""`nvcc -x cu kern.txt` in a script, Makefile, Dockerfile or CI file compiles kern.txt as CUDA; porter scanned only
files whose names give a language (and those CMake's LANGUAGE CUDA or a quoted #include name), so a pull request
could put its kernel in kern.txt, build it that way and pass the gate (porter.source.buildsources.cuda_sources).
"""
from __future__ import annotations

import json
import random
import re
import time

from helpers import git, make_repo, porter_here, write_files
from porter.source.buildsources import cuda_sources

KERNEL = ("__global__ void k(float* x) { float v = x[threadIdx.x]; v += __shfl_down_sync(0xffffffff, v, 16);"
          " x[0] = v; }\n")


def test_the_inputs_of_an_nvcc_x_cu_line_are_named_relative_to_the_file_and_the_top():
    script = "set -e\nnvcc -O3 -x cu ../src/k.gpu other.txt -o $OUT \\\n  more.txt\nnvcc a.cu\ng++ -x cu z.txt\n"
    assert cuda_sources("scripts/build.sh", script) == [
        "src/k.gpu", "scripts/other.txt", "other.txt", "scripts/more.txt", "more.txt"]
    assert cuda_sources("Makefile", "all:\n\tnvcc -xcu kern.txt -o k\n\tnvcc --x=cu b.txt\n") == ["kern.txt", "k", "b.txt"]
    assert cuda_sources("ci.sh", "nvcc -arch=sm_80 kern.txt\n") == []  # without -x cu nvcc goes by the suffix


def test_a_kernel_built_with_nvcc_x_cu_is_scanned_and_fails_the_gate(tmp_path):
    repo = make_repo(tmp_path / "r", {"base.cu": "int base;\n"})
    write_files(repo, {"kern.txt": KERNEL, "build.sh": "#!/bin/sh\nnvcc -x cu kern.txt -o k\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    p = porter_here("scan", str(repo), "--no-cache", "--new-since", "HEAD~1", "--isolated", "--fail-on", "low",
                    "-f", "json")
    assert p.returncode == 1, p.stderr
    assert sorted((f["path"], f["rule"]) for f in json.loads(p.stdout)["findings"]) == [
        ("build.sh", "BLD007"), ("kern.txt", "DEV002"), ("kern.txt", "DEV011"), ("kern.txt", "KRN001")]


# The whole-text pattern the lines were first found with; _nvcc_x_cu_lines must find the very same matches.
_PATTERN = re.compile(r"(?m)^.*\bnvcc\b.*?(?:\s-{1,2}x\s*=?\s*cu\b).*$")


def test_nvcc_x_cu_lines_are_the_patterns_matches_on_random_texts():
    from porter.source.buildsources import _nvcc_x_cu_lines

    rng = random.Random(11)
    tokens = ["nvcc", "xnvcc", "nvcc_", "-", "--", "x", "cu", "cux", " ", "\t", "\n", "\r", "=", "-x", "-xcu",
              " -x cu", " --x=cu", "a.txt", "k.cu", "$V", ";", "\n\n"]
    matched = 0
    for _ in range(20000):
        text = "".join(rng.choice(tokens) for _ in range(rng.randint(0, 20)))
        want = [m.group(0) for m in _PATTERN.finditer(text)]
        assert list(_nvcc_x_cu_lines(text)) == want, repr(text)
        matched += bool(want)
    assert matched > 500


def test_a_line_of_many_nvcc_without_x_cu_costs_linear_time():
    """The pattern backtracked over every `nvcc` of such a line (a 40 KB line took 4 CPU-s, past the stage's budget,
    and then no CMake LANGUAGE CUDA source was read): 8 times the line must cost about 8 times as much, not 64."""
    from porter.source.buildsources import cuda_sources

    def cost(words: int) -> float:
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            cuda_sources("build.sh", "nvcc -o " * words + "\n" + "nvcc -x cu a.txt" + " nvcc -o" * words + "\n")
            best = min(best, time.process_time() - start)
        return best

    small, big = cost(1000), cost(8000)
    assert big < 24 * max(small, 1e-4), (small, big)
