"""Benchmark `porter scan`: files/s, lines/s, CPU-seconds and peak memory, cold and warm cache.

Usage:
    python bench/bench_scan.py                       # generate a 200k+ line CUDA corpus in a temp dir
    python bench/bench_scan.py --corpus DIR          # benchmark a real checkout (e.g. cuda-samples)
    python bench/bench_scan.py --lines 400000 --jobs 1
    python bench/bench_scan.py --corpus DIR --jobs 1 --hipify-perl /path/to/hipify-perl   # side by side

    python bench/bench_scan.py --corpus DIR --suffixes .cu,.cuh --bare-parse   # against bare tree-sitter parsing

Each run is a real `porter scan` subprocess (as a user runs it); CPU time includes its worker processes and
peak memory is the largest resident set of any of them. With --hipify-perl, the same files go through
`perl hipify-perl -examine -quiet-warnings` in the same run, twice: once per batch of files (one perl process for up
to 200 files, as hipexamine-perl.sh runs it) and once per file (one perl process per file, as a build that hipifies
each source does, and as issue 16 measured its 5-7k lines/CPU-s baseline). The report gives each rate per
CPU-second and porter's ratio to each; perl's start-up (it compiles some 10,000 substitutions) is most of the gap
between the two. porter runs from byte-compiled modules, as an installed wheel does (pip compiles them at install):
an untimed `--no-cache` scan first writes their bytecode into a temporary PYTHONPYCACHEPREFIX, even where the
environment sets PYTHONDONTWRITEBYTECODE. With --suffixes, only the corpus's files with those suffixes are copied
into a temporary tree and scanned (so porter and the bare parse see the same files). With --bare-parse, the same run
also times a subprocess that only parses each C/C++/CUDA file of the corpus with tree-sitter-cuda (start-up
included), and a cold `porter scan --no-cache`, and reports porter's CPU-seconds over the bare parse's; with
--repeat N it times N such pairs one after the other and reports the pair with the median ratio and every pair.
When the corpus is a temporary copy (--suffixes, --copy, or generated), one more cached run follows the warm one after a
comment line is appended to one file (`warm_after_one_edit`, `edit_over_cold_cpu`): the warm run answers from the
whole run's cached report, which says nothing of a re-scan after an edit. Nothing here is a test: numbers go
into notes.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KERNEL_TEMPLATE = """\
template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) reduce_{n}(const T* __restrict__ in, T* out, int count) {{
  __shared__ T partial[BLOCK / 32];
  int tid = threadIdx.x;
  int lane = tid % 32;
  int warp = tid / 32;
  T v = 0;
  for (int i = blockIdx.x * BLOCK + tid; i < count; i += gridDim.x * BLOCK) v += in[i];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {{
    v = lane < BLOCK / 32 ? partial[lane] : T(0);
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    if (lane == 0) atomicAdd(out, v);
  }}
}}

__global__ void tile_{n}(const float* a, const float* b, float* c, int m) {{
  __shared__ float ta[32][33];
  __shared__ float tb[32][33];
  int row = blockIdx.y * 32 + threadIdx.y, col = blockIdx.x * 32 + threadIdx.x;
  float acc = 0.f;
  for (int k0 = 0; k0 < m; k0 += 32) {{
    ta[threadIdx.y][threadIdx.x] = a[row * m + k0 + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * m + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 32; ++k) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }}
  c[row * m + col] = acc;  // cudaMemcpy in a comment is not a call
}}

static void run_{n}(float* h, int count, cudaStream_t stream) {{
  float *d_in = nullptr, *d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, count * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, sizeof(float)));
  CUDA_CHECK(cudaMemcpyAsync(d_in, h, count * sizeof(float), cudaMemcpyHostToDevice, stream));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int grid = prop.multiProcessorCount * 4;
  reduce_{n}<float, 256><<<grid, 256, 0, stream>>>(d_in, d_out, count);
  dim3 blocks(count / 32, count / 32), threads(32, 32);
  tile_{n}<<<blocks, threads>>>(d_in, d_in, d_out, 32);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  printf("cudaFree(%p) next\\n", (void*)d_in);
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
}}
"""

HEADER = """\
#include <cstdio>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#define CUDA_CHECK(x) do {{ cudaError_t e_ = (x); if (e_ != cudaSuccess) {{ \\
  fprintf(stderr, "%s\\n", cudaGetErrorString(e_)); }} }} while (0)
namespace cg = cooperative_groups;
// generated benchmark file {i}
"""


def generate(root: Path, lines: int, seed: int = 7) -> tuple[int, int]:
    """Write .cu files until `lines` lines exist; returns (files, lines). Deterministic for a seed."""
    rng = random.Random(seed)
    total = files = 0
    i = 0
    while total < lines:
        sub = root / f"module_{i % 20:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        parts = [HEADER.format(i=i)]
        for j in range(rng.randint(3, 8)):
            parts.append(KERNEL_TEMPLATE.format(n=f"{i}_{j}"))
        text = "\n".join(parts)
        (sub / f"kernels_{i:04d}.cu").write_text(text)
        total += text.count("\n")
        files += 1
        i += 1
    return files, total


def compiled_env(corpus: Path, pycache: Path, jobs: int, extra: list[str]) -> dict[str, str]:
    """An environment in which porter imports byte-compiled modules, as an installed one does: one untimed
    `--no-cache` scan of the corpus writes the bytecode of every module the scan imports into `pycache`."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    subprocess.run([sys.executable, "-m", "porter", "scan", str(corpus), "--format", "json", "-o", os.devnull,
                    "--no-cache", "--jobs", str(jobs), *extra], env=env, capture_output=True)
    return env


def run_scan(corpus: Path, cache: Path, jobs: int, extra: list[str], env: dict[str, str]) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    cmd = [sys.executable, "-m", "porter", "scan", str(corpus), "--format", "json", "-o", os.devnull,
           "--cache-dir", str(cache), "--jobs", str(jobs), *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"porter scan failed ({proc.returncode}): {proc.stderr}")
    return {
        "wall_s": wall,
        "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "peak_rss_mib": after.ru_maxrss / 1024,  # largest child so far (the porter process or a worker)
    }


CODE_SUFFIXES = (".cu", ".cuh", ".cpp", ".h", ".hpp", ".cc")


def code_files(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.rglob("*") if p.suffix in CODE_SUFFIXES and p.is_file())


def count_lines(corpus: Path) -> tuple[int, int]:
    files = code_files(corpus)
    return len(files), sum(p.read_bytes().count(b"\n") for p in files)


BARE_PARSE = """
import sys, tree_sitter as ts, tree_sitter_cuda
parser = ts.Parser(ts.Language(tree_sitter_cuda.language()))
n = 0
for path in sys.stdin.read().splitlines():
    with open(path, "rb") as f:
        n += parser.parse(f.read()).root_node.child_count >= 0
print(n)
"""


def run_bare_parse(files: list[Path]) -> dict:
    """CPU-seconds of one Python process that parses each file with tree-sitter-cuda and does nothing else."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", BARE_PARSE], input="\n".join(map(str, files)), text=True,
                          capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0 or int(proc.stdout) != len(files):
        raise SystemExit(f"bare parse failed: {proc.stderr}")
    return {"wall_s": wall, "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)}


def run_no_cache(corpus: Path, jobs: int, extra: list[str], env: dict[str, str]) -> dict:
    """A cold `porter scan --no-cache` (what the bare parse is compared with)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "porter", "scan", str(corpus), "--format", "json", "-o", os.devnull,
                           "--no-cache", "--jobs", str(jobs), *extra], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"porter scan failed ({proc.returncode}): {proc.stderr}")
    return {"wall_s": wall, "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "peak_rss_mib": after.ru_maxrss / 1024}


def copy_suffixes(corpus: Path, out: Path, suffixes: tuple[str, ...]) -> None:
    """The corpus's files with one of `suffixes`, copied under `out` at the same relative paths."""
    for p in sorted(corpus.rglob("*")):
        if p.is_file() and not p.is_symlink() and p.suffix in suffixes:
            dest = out / p.relative_to(corpus)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, dest)


def run_hipify_perl(script: Path, files: list[Path], batch: int = 200) -> dict:
    """CPU-seconds of hipify-perl examining `files` (no output written), `batch` files per perl process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    for i in range(0, len(files), batch):
        cmd = ["perl", str(script), "-examine", "-quiet-warnings", *map(str, files[i:i + batch])]
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if proc.returncode != 0:
            raise SystemExit(f"hipify-perl failed ({proc.returncode}) on batch {i // batch}")
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"wall_s": wall, "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, help="scan this directory instead of a generated corpus")
    ap.add_argument("--lines", type=int, default=200_000, help="size of the generated corpus")
    ap.add_argument("--jobs", type=int, default=0, help="porter --jobs (0: all cores)")
    ap.add_argument("--extra", default="", help="extra porter scan arguments, e.g. '--target all'")
    ap.add_argument("--hipify-perl", type=Path, help="also run this hipify-perl script on the same files")
    ap.add_argument("--suffixes", default="", help="scan only the corpus's files with these suffixes (.cu,.cuh)")
    ap.add_argument("--copy", action="store_true",
                    help="scan a copy of the whole corpus, so the re-scan after one edit is measured on it too")
    ap.add_argument("--bare-parse", action="store_true", help="also time bare tree-sitter parsing of the same files")
    ap.add_argument("--repeat", type=int, default=1,
                    help="with --bare-parse: this many (bare parse, --no-cache scan) pairs, alternated; the median "
                         "pair is reported, every pair listed (a loaded machine moves one pair's ratio by a third)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="porter-bench-") as tmp:
        tmp_path = Path(tmp)
        if args.corpus and args.suffixes:
            corpus = tmp_path / "corpus"
            copy_suffixes(args.corpus, corpus, tuple(args.suffixes.split(",")))
            files, lines = count_lines(corpus)
        elif args.corpus and args.copy:
            corpus = tmp_path / "corpus"
            shutil.copytree(args.corpus, corpus, symlinks=True)
            files, lines = count_lines(corpus)
        elif args.corpus:
            corpus = args.corpus
            files, lines = count_lines(corpus)
        else:
            corpus = tmp_path / "corpus"
            files, lines = generate(corpus, args.lines)
        cache = tmp_path / "cache"
        extra = args.extra.split()
        env = compiled_env(corpus, tmp_path / "pycache", args.jobs, extra)
        cold = run_scan(corpus, cache, args.jobs, extra, env)
        warm = run_scan(corpus, cache, args.jobs, extra, env)
        edited = None
        if corpus.is_relative_to(tmp_path):  # a copy (--suffixes) or a generated corpus: one file may be edited
            # A re-scan after an edit of one file (a comment line appended): the whole run's cached report no
            # longer applies, so this is what a developer's second scan costs (every other file a cache hit).
            target = code_files(corpus)[len(code_files(corpus)) // 2]
            with open(target, "a") as fh:
                fh.write("// porter-bench: one line added\n")
            edited = run_scan(corpus, cache, args.jobs, extra, env)
            edited["file"] = str(target.relative_to(corpus))
        report = {
            "corpus": str(args.corpus or "generated"),
            "files": files,
            "lines": lines,
            "jobs": args.jobs or os.cpu_count(),
            "cold": {**cold, "files_per_s": files / cold["wall_s"], "lines_per_s": lines / cold["wall_s"],
                     "lines_per_cpu_s": lines / cold["cpu_s"]},
            "warm": {**warm, "files_per_s": files / warm["wall_s"], "lines_per_s": lines / warm["wall_s"]},
            "warm_over_cold_cpu": warm["cpu_s"] / cold["cpu_s"],
        }
        if edited is not None:
            report["warm_after_one_edit"] = edited
            report["edit_over_cold_cpu"] = edited["cpu_s"] / cold["cpu_s"]
        if args.bare_parse:
            pairs = []
            for _ in range(max(1, args.repeat)):  # alternated, so a change of load reaches both sides of a pair
                bare = run_bare_parse(code_files(corpus))
                bare["lines_per_cpu_s"] = lines / bare["cpu_s"]
                no_cache = run_no_cache(corpus, args.jobs, extra, env)
                no_cache["lines_per_cpu_s"] = lines / no_cache["cpu_s"]
                pairs.append((bare, no_cache))
            ratios = [n["cpu_s"] / b["cpu_s"] for b, n in pairs]
            bare, no_cache = pairs[sorted(range(len(ratios)), key=ratios.__getitem__)[len(ratios) // 2]]
            report["bare_parse"] = bare
            report["cold_no_cache"] = no_cache
            report["cold_no_cache_over_bare_parse_cpu"] = no_cache["cpu_s"] / bare["cpu_s"]
            if len(pairs) > 1:  # the pair above is the median one; every pair's CPU-s and ratio, in run order
                report["bare_parse_pairs"] = [{"bare_cpu_s": round(b["cpu_s"], 3), "no_cache_cpu_s": round(n["cpu_s"], 3),
                                               "ratio": round(r, 3)} for (b, n), r in zip(pairs, ratios)]
        if args.hipify_perl:
            for mode, batch in (("batched", 200), ("per_file", 1)):
                hp = run_hipify_perl(args.hipify_perl, code_files(corpus), batch)
                hp["lines_per_cpu_s"] = lines / hp["cpu_s"]
                report[f"hipify_perl_{mode}"] = hp
                report[f"porter_over_hipify_{mode}_per_cpu_s"] = report["cold"]["lines_per_cpu_s"] / hp["lines_per_cpu_s"]
        print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
