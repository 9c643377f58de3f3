"""Small real git repositories for the fleet tests and bench/bench_fleet.py: four kinds whose `porter assess`
verdicts differ (ready, mechanical, port, blocked), each with two commits of history."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

# kind -> (file name, content, the verdict `porter assess` gives it on mi355x)
KINDS = {
    "ready": ("m.py", "def f(x):\n    return x + 1\n", "ready"),
    "mech": ("m.cu", "#include <cuda_runtime.h>\nvoid f(float* h, int n){ float* d; cudaMalloc(&d, n*4); "
                     "cudaMemcpy(d, h, n*4, cudaMemcpyHostToDevice); cudaFree(d); }\n", "mechanical"),
    "port": ("k.cu", "__global__ void k(float* x){ float v = x[threadIdx.x]; v += __shfl_down_sync(0xffffffff, v, 16);"
                     " unsigned m = __ballot_sync(0xffffffff, v > 0); if (m == 0xffffffffu) x[threadIdx.x] = v; }\n"
                     "void run(float* x){ k<<<1,32>>>(x); }\n", "port"),
    "blocked": ("serve.py", "import tensorrt_llm\nfrom tensorrt_llm import LLM\nllm = LLM(model=\"x\")\n", "blocked"),
}
ORDER = ("ready", "mech", "port", "blocked")

ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str, date: str = "2026-01-05T10:00:00Z") -> str:
    env = {**os.environ, **ENV, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def make_repo(repo: Path, kind: str, unique: bool = False) -> str:
    """A repository of `kind`: a README commit, then the code commit; returns the head commit. With `unique`, the
    code file names the repository in a comment, so no two repositories share a blob (porter's cache cannot help)."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text(f"# {repo.name}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "readme", date="2026-01-05T10:00:00Z")
    name, text, _ = KINDS[kind]
    (repo / "src").mkdir()
    mark = ("# " if name.endswith(".py") else "// ") + f"{repo.name}\n"
    (repo / "src" / name).write_text(mark + text if unique else text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "code", date="2026-01-12T10:00:00Z")
    return git(repo, "rev-parse", "HEAD")


def make_fleet(root: Path, count: int, unique: bool = False) -> dict[str, tuple[str, str]]:
    """`count` repositories under root/repos, kinds in turn: name -> (kind, head commit)."""
    out = {}
    for i in range(count):
        kind = ORDER[i % len(ORDER)]
        name = f"r{i:02d}-{kind}"
        out[name] = (kind, make_repo(root / "repos" / name, kind, unique))
    return out
