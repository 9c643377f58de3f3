"""Small real git repositories for the fleet tests and bench/bench_fleet.py: four kinds whose `porter assess`
verdicts differ (ready, mechanical, port, blocked), each with two commits of history."""
from __future__ import annotations

import datetime as _dt
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
    name, text, _ = KINDS[kind]
    mark = ("# " if name.endswith(".py") else "// ") + f"{repo.name}\n"
    readme, code = f"# {repo.name}\n".encode(), (mark + text if unique else text).encode()

    def commit(message: str, date: str, files: dict[str, bytes]) -> bytes:
        message += "\n"  # as `git commit -m` stores it
        when = int(_dt.datetime.fromisoformat(date.replace("Z", "+00:00")).timestamp())
        out = [b"commit refs/heads/main", b"author t <t@example.com> %d +0000" % when,
               b"committer t <t@example.com> %d +0000" % when, b"data %d" % len(message), message.encode()]
        for path, data in files.items():
            out += [b"M 100644 inline " + path.encode(), b"data %d" % len(data), data]
        return b"\n".join(out) + b"\n"

    # The two commits `git add`/`git commit` would make (same trees, authors and dates; fast-import gives the
    # second the first as its parent), in one git process rather than five: the fleet tests build 20+ repositories.
    stream = commit("readme", "2026-01-05T10:00:00Z", {"README.md": readme}) + \
        commit("code", "2026-01-12T10:00:00Z", {f"src/{name}": code})
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input=stream, check=True, capture_output=True,
                   env={**os.environ, **ENV})
    # A work tree as `git commit` leaves it (tests change files and commit again).
    git(repo, "reset", "-q", "--hard", "main")
    return git(repo, "rev-parse", "HEAD")


def make_fleet(root: Path, count: int, unique: bool = False) -> dict[str, tuple[str, str]]:
    """`count` repositories under root/repos, kinds in turn: name -> (kind, head commit)."""
    out = {}
    for i in range(count):
        kind = ORDER[i % len(ORDER)]
        name = f"r{i:02d}-{kind}"
        out[name] = (kind, make_repo(root / "repos" / name, kind, unique))
    return out


def readme_recipe(after: str) -> list[list[str]]:
    """The porter commands of README.md's first ```sh block after the line holding `after`, each as its arguments
    (`fleet scan …`): continuation lines joined, comments, a crontab line's schedule and `cd` left out."""
    import shlex

    text = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    start = text.index("```sh\n", text.index(after)) + len("```sh\n")
    block = text[start:text.index("```", start)].replace("\\\n", " ")
    out: list[list[str]] = []
    for line in block.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        words = shlex.split(line)
        parts: list[list[str]] = [[]]
        for w in words:
            if w == "&&":
                parts.append([])
            else:
                parts[-1].append(w)
        out += [p[1:] for p in parts if p and p[0].rsplit("/", 1)[-1] == "porter"]
    return out
