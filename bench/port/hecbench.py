"""HeCBench: porter's dual-build port of each sampled `-cuda` benchmark, compiled for AMD and NVIDIA, beside hipify-perl.

Usage:
    python bench/port/hecbench.py --mirror /work/.mirror/zjin-lcf+HeCBench/repo --sample 150 [--stages twins,port,nvcc,hipify,close]
        [--hipify /work/.mirror/ROCm+HIPIFY/repo] [--json bench/port/data/hecbench.json]

Protocol (compile only, per file, never linked or run):
  twins   the human `-hip` twin of each benchmark, in a seeded order (random.Random(30).shuffle of the sorted
          names), compiled with Debian's hipcc 5.2.3 for gfx90a until --sample twins compile; twins that include
          hipCUB / rocPRIM / rocThrust are counted as dropped without compiling (Debian packages none of them);
          twins failing on another missing ROCm library header are counted as dropped by that library.
  port    `porter port` on a scratch copy of the `-cuda` folder (a fresh git repository holding the src/ tree the
          benchmark's -I flags read), applied, each translation unit compiled with hipcc (gfx90a).
  nvcc    the same applied dual tree compiled with nvcc (CUDA 13, sm_80), device pass and ptxas only (-cubin).
  nvcc_full  the same with a full `nvcc -c` (cudafe++ and the host compiler too): the host pass -cubin skips.
  hipify  hipify-perl (ROCm/HIPIFY bin/hipify-perl, run with perl on a scratch copy) of the `-cuda` folder,
          compiled with hipcc like the twin.
  close   changed lines between each output and the human twin, after normalising whitespace and CUDA->HIP names.
Translation units: the folder's .cu/.cpp files the Makefile names (or all when it names none) that no other file
of the benchmark #includes; flags: the Makefile's -I/-D/-std. A benchmark passes when all its units compile.
Results are cached per compile in /tmp/bench-port/cache; the scratch trees live in /tmp/bench-port.
"""
from __future__ import annotations

import argparse
import difflib
import fcntl
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compiling import HEADER_EXT, SOURCE_EXT, compile_unit  # noqa: E402
from extract import extract  # noqa: E402

SEED = 30
# the compile time limit (s) for every stage: a timeout is no verdict on the code, and at 120 s a loaded machine
# timed out big units (s3d's S3D.cu, bonds' bondsEngine.cu) whose twin then left the sample for no reason of its own
TIMEOUT = 600
WORK = Path("/tmp/bench-port")
SRC_ROOT = WORK / "hecbench"
# ROCm libraries Debian does not package (it ships the HIP runtime only): a twin including one cannot compile here
NO_DEBIAN = re.compile(r"#\s*include\s*[<\"](hipcub|rocprim|thrust|rocthrust|hipblas|hipblaslt|rocblas|hipsparse|"
                       r"rocsparse|hiprand|rocrand|rccl|hipsolver|rocsolver|hipfft|rocfft|miopen|rocwmma|hiptensor)[/.]",
                       re.M)
_INCLUDE = re.compile(r'#\s*include\s*["<]([^">]+)[">]')
_REL_INCLUDE = re.compile(r'#\s*include\s*"(\.\./[^"]+)"')
_VAR = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*[:?+]?=\s*(.*)$")


def extract_tree(mirror: Path) -> Path:
    exts = SOURCE_EXT + HEADER_EXT
    return extract(mirror, "HEAD", SRC_ROOT,
                   lambda p: p.startswith("src/") and (p.lower().endswith(exts) or p.endswith("/Makefile")))


def makefile_text(folder: Path) -> str:
    mk = folder / "Makefile"
    if not mk.is_file():
        return ""
    text = mk.read_text(errors="replace").replace("\\\n", " ")
    text = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    # flags under `ifeq ($(DEBUG),yes)` are not the default build's
    return re.sub(r"^ifeq \(\$\(DEBUG\).*?^endif", "", text, flags=re.M | re.S)


def make_flags(folder: Path) -> list[str]:
    """-I/-D/-std from the Makefile, with $(VAR) of simple assignments substituted once."""
    text = makefile_text(folder)
    env: dict[str, str] = {}
    for line in text.splitlines():
        m = _VAR.match(line)
        if m and not line.lstrip().startswith(("ifeq", "ifneq")):
            env.setdefault(m.group(1), m.group(2).strip())
    text = re.sub(r"\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]", lambda m: env.get(m.group(1), m.group(0)), text)
    flags: list[str] = []
    for tok in re.findall(r"(?<!\S)(-I\s*\S+|-D\S+|-std=\S+)", text):
        tok = tok.replace(" ", "")
        if "$" in tok or tok in flags or "cuda/include" in tok:
            continue
        if re.match(r"-std=(c|gnu)\d", tok):  # a C standard for the Makefile's .c rule; clang refuses it for HIP/CUDA
            continue
        if tok.startswith("-std=") and any(f.startswith("-std=") for f in flags):
            continue
        flags.append(tok)
    return flags


_NVCC_ONLY = re.compile(r"(?<!\S)(--expt-relaxed-constexpr|--expt-extended-lambda|--extended-lambda|-rdc=true|"
                        r"--relocatable-device-code=true|-dc)(?!\S)")


def nvcc_only_flags(folder: Path) -> list[str]:
    """nvcc flags the sources need to compile at all (constexpr/lambda relaxations, separate device code)."""
    return list(dict.fromkeys(_NVCC_ONLY.findall(makefile_text(folder))))


def units(folder: Path) -> list[Path]:
    """The folder's translation units (relative paths)."""
    files = [p for p in sorted(folder.rglob("*")) if p.is_file() and p.suffix.lower() in SOURCE_EXT]
    included: set[str] = set()
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.suffix.lower() in SOURCE_EXT + HEADER_EXT:
            for inc in _INCLUDE.findall(p.read_text(errors="replace")):
                included.add(Path(inc).name)
    text = makefile_text(folder)
    named = [p for p in files if re.search(r"(?<![\w.-])" + re.escape(p.name) + r"(?![\w])", text)]
    if not named and re.search(r"\$\(wildcard[^)]*\*\.cu", text):
        named = [p for p in files if p.suffix == ".cu"]
    chosen = [p for p in (named or files) if p.name not in included and gpu_code(p)]
    return [p.relative_to(folder) for p in chosen]


_GPU = re.compile(r"__global__|__device__|<<<|\bcuda[A-Z]\w*|\bhip[A-Z]\w*|cuda_runtime|hip_runtime|\bcu[a-z]+[A-Z]\w*\(")


def gpu_code(p: Path) -> bool:
    """A unit worth compiling: GPU code or a CUDA/HIP API call (plain host C/C++ is the same on both sides)."""
    return p.suffix.lower() in (".cu", ".hip") or bool(_GPU.search(p.read_text(errors="replace")))


def compile_folder(compiler: str, folder: Path, flags: list[str], label: str, extra_roots: tuple = (),
                   nvcc_device_only: bool = True) -> dict:
    """Compile every unit of folder; the benchmark passes when all do. nvcc compiles the device pass only (a cubin)
    unless `nvcc_device_only` is False (a full `-c`)."""
    us = units(folder)
    # what the compile can read: the folder and the sibling folders its -I flags name (../x-cuda, ../include)
    roots = [folder, *extra_roots] + [(folder / f[2:]).resolve() for f in flags if f.startswith("-I")]
    if compiler == "nvcc":  # `-dc` beside -cubin (or -c) becomes -rdc=true: the same separate device code
        flags = ["-rdc=true" if f == "-dc" else f for f in flags]
    results = {str(u): compile_unit(compiler, u, folder, flags, roots, f"{label}:{folder.name}", TIMEOUT,
                                    nvcc_device_only=nvcc_device_only).as_dict() for u in us}
    status = "no-units" if not us else "compiled" if all(r["status"] == "compiled" for r in results.values()) else \
        "timeout" if any(r["status"] == "timeout" for r in results.values()) and not any(
            r["status"] == "failed" for r in results.values()) else "failed"
    first = next((f"{folder.name}/{u}: {r['first_error']}" for u, r in results.items() if r["status"] != "compiled"),
                 None)
    missing = next((r["missing_header"] for r in results.values() if r.get("missing_header")), None)
    return {"status": status, "units": results, "first_error": first, "missing_header": missing}


def benchmarks(src: Path) -> list[str]:
    return sorted(p.name[:-5] for p in src.iterdir() if p.is_dir() and p.name.endswith("-cuda"))


def seeded_order(names: list[str]) -> list[str]:
    order = list(names)
    random.Random(SEED).shuffle(order)
    return order


def dropped_for_libraries(src: Path, names: list[str]) -> dict[str, list[str]]:
    """Twins that include a ROCm library's headers (hipCUB, rocThrust, hipBLAS, ...): Debian packages none of them."""
    dropped: dict[str, list[str]] = {}
    for n in names:
        twin = src / f"{n}-hip"
        hits = {m.group(1) for p in twin.rglob("*") if p.is_file() and p.suffix.lower() in SOURCE_EXT + HEADER_EXT
                for m in NO_DEBIAN.finditer(p.read_text(errors="replace"))}
        if hits:
            dropped[n] = sorted(hits)
    return dropped


def run_pipeline(src: Path, want: int, state: dict, stages: list[str], jobs: int, hipify: Path,
                 limit: int | None, only: list[str] | None = None, save=lambda: None) -> list[str]:
    """In the seeded order: compile the twin; when it compiles (and the sample is not full) the benchmark joins the
    sample and its other stages run at once, so a run cut short still has whole rows."""
    names = benchmarks(src)
    with_twin = [n for n in names if (src / f"{n}-hip").is_dir()]
    order = seeded_order(with_twin)
    dropped = dropped_for_libraries(src, with_twin)
    state.update({"benchmarks": len(names), "with_hip_twin": len(with_twin), "seed": SEED, "order": order,
                  "dropped_rocm_libraries": dropped,
                  "dropped_hipcub_rocthrust": sorted(n for n, libs in dropped.items() if set(libs) & {"hipcub", "rocprim", "thrust", "rocthrust"})})
    twins = state["twins"] = {}  # every row is recomputed (from the compile cache) by this run
    per = state["per_benchmark"] = {}
    todo = only or [n for n in order if n not in dropped][:limit]
    hipify_script = WORK / "tools" / "hipify-perl"
    if not hipify_script.exists():
        hipify_script.parent.mkdir(parents=True, exist_ok=True)
        hipify_script.write_bytes(subprocess.run(["git", "--git-dir", str(hipify), "show", "HEAD:bin/hipify-perl"],
                                                 capture_output=True, check=True).stdout)
    lock = threading.Lock()
    sample: list[str] = []

    def one(name: str) -> None:
        with lock:
            if len([n for n in sample]) >= want:
                return
        twin = src / f"{name}-hip"
        res = compile_folder("hipcc", twin, make_flags(twin), "twin")
        if any(u["status"] == "not-run" for u in res["units"].values()):
            return  # a report-only pass (BENCH_CACHED_ONLY=1) stops where the measured run stopped
        with lock:
            twins[name] = res
            print(f"twin {name}: {res['status']} {res['first_error'] or ''}"[:300], flush=True)
            if res["status"] != "compiled" or len(sample) >= want:
                return
            sample.append(name)
        row = stage_row(src, name, stages, hipify_script, hipify=True, original=True)
        if any(v.get("status") == "not-run" or any(u["status"] == "not-run" for u in v.get("units", {}).values())
               for v in row.values() if isinstance(v, dict) and "units" in v):
            with lock:
                sample.remove(name)
            return
        with lock:
            per[name] = row
            state["sample"] = [n for n in order if n in sample and n in per]
            state["examined"] = [n for n in todo if n in twins]
            save()
            bits = [f"{k}={v['status']}" for k, v in row.items() if isinstance(v, dict) and "status" in v]
            print(f"{name}: {' '.join(bits)}", flush=True)

    with ThreadPoolExecutor(jobs) as ex:
        list(ex.map(one, todo))
    state["examined"] = [n for n in todo if n in twins]
    state["sample"] = [n for n in order if n in sample]
    return state["sample"]


def stage_row(src: Path, name: str, stages: list[str], hipify_script: Path, *, hipify: bool, original: bool) -> dict:
    """One benchmark's verdicts for the chosen stages: the port compiled with hipcc (and nvcc), hipify-perl's
    translation with hipcc (when `hipify`), and with `original` the CUDA original with nvcc where the dual tree
    failed it (whose failure it is)."""
    row: dict = {}
    cuda = src / f"{name}-cuda"
    flags = make_flags(cuda)
    row["flags"] = flags
    if "port" in stages:
        folder, doc = port_tree(src, name)
        row["port"] = doc
        # the port's root holds the compat header: its bytes are part of what the compile reads
        row["port_hipcc"] = compile_folder("hipcc", folder, flags, "port-hipcc", (folder.parent.parent,))
        if "nvcc" in stages:
            nv = flags + nvcc_only_flags(cuda)
            row["port_nvcc"] = compile_folder("nvcc", folder, nv, "port-nvcc", (folder.parent.parent,))
            if original and row["port_nvcc"]["status"] != "compiled":
                row["nvcc_original"] = compile_folder("nvcc", cuda, nv, "nvcc-orig")
        if "nvcc_full" in stages:
            nv = flags + nvcc_only_flags(cuda)
            row["port_nvcc_full"] = compile_folder("nvcc", folder, nv, "port-nvcc-full", (folder.parent.parent,),
                                                   nvcc_device_only=False)
            if original and row["port_nvcc_full"]["status"] != "compiled":
                row["nvcc_full_original"] = compile_folder("nvcc", cuda, nv, "nvcc-full-orig", nvcc_device_only=False)
    if "hipify" in stages and hipify:
        folder = hipify_tree(src, name, hipify_script)
        row["hipify_hipcc"] = compile_folder("hipcc", folder, flags, "hipify-hipcc")
    return row


def run_stages(src: Path, sample: list[str], state: dict, stages: list[str], jobs: int, save=lambda: None) -> None:
    """Run `hipify` (and/or `port`/`nvcc`) over a sample already chosen, merging into its rows: the twins and the
    other stages keep their verdicts, so a short run can add hipify-perl after the port and nvcc stages."""
    per = state.setdefault("per_benchmark", {})
    lock = threading.Lock()
    hipify_script = WORK / "tools" / "hipify-perl"

    def one(name: str) -> None:
        row = stage_row(src, name, stages, hipify_script,
                        hipify=hipify_done(name) or not os.environ.get("BENCH_CACHED_ONLY"), original=True)
        del row["flags"]  # merged into a row that has them
        if any(any(u["status"] == "not-run" for u in v.get("units", {}).values())
               for v in row.values() if isinstance(v, dict) and "units" in v):
            return  # a report-only pass keeps the row as the measured run left it
        with lock:
            per.setdefault(name, {}).update(row)
            save()
            bits = [f"{k}={v['status']}" for k, v in row.items() if isinstance(v, dict) and "status" in v]
            print(f"{name}: {' '.join(bits)}", flush=True)

    with ThreadPoolExecutor(jobs) as ex:
        list(ex.map(one, sample))


def sibling_dirs(src: Path, name: str, flags: list[str]) -> list[str]:
    """The src/ folders a benchmark's compile reads besides its own: ../include, those its -I flags name and those
    a quoted include reaches by a relative path (diamond-cuda/masking.cu reads ../diamond-sycl/src/basic/masking.h)."""
    out = ["include"]
    for f in flags:
        if f.startswith("-I../") and "/" not in f[5:].rstrip("/"):
            out.append(f[5:].rstrip("/"))
    root = src.resolve()
    for p in sorted((src / f"{name}-cuda").rglob("*")):
        if not (p.is_file() and p.suffix.lower() in SOURCE_EXT + HEADER_EXT):
            continue
        for inc in _REL_INCLUDE.findall(p.read_text(errors="replace")):
            rel = os.path.relpath(os.path.normpath(p.parent.resolve() / inc), root)
            if not rel.startswith(".."):
                out.append(rel.split(os.sep, 1)[0])
    return [d for d in dict.fromkeys(out) if (src / d).is_dir() and d != f"{name}-cuda"]


def scratch_tree(src: Path, name: str, dest: Path, link_siblings: bool) -> Path:
    """A copy of src/<name>-cuda under dest/src, with the sibling folders it reads copied (or symlinked)."""
    folder = f"{name}-cuda"
    flags = make_flags(src / folder)
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "src").mkdir(parents=True)
    shutil.copytree(src / folder, dest / "src" / folder, symlinks=False)
    for d in sibling_dirs(src, name, flags):
        if link_siblings:
            (dest / "src" / d).symlink_to(src / d)
        else:
            shutil.copytree(src / d, dest / "src" / d)
    return dest / "src" / folder


def hipify_tree(src: Path, name: str, hipify: Path) -> Path:
    """hipify-perl (run with perl) over a scratch copy of the -cuda folder."""
    return hipify_trees(src, [name], hipify)[name]


def hipify_done(name: str) -> bool:
    """hipify-perl finished this benchmark's tree (a run cut short leaves half-translated trees without the mark)."""
    return (WORK / "hipify" / f"{name}.done").exists() and (WORK / "hipify" / name / "src" / f"{name}-cuda").is_dir()


def hipify_trees(src: Path, names: list[str], hipify: Path, chunk: int = 4) -> dict[str, Path]:
    """hipify-perl over scratch copies of several -cuda folders in ONE perl process: perl compiling hipify-perl's
    tables costs ~9 s of CPU per process, which a niced process on the loaded machine stretched to ~6 minutes."""
    script_id = hashlib.sha256(hipify.read_bytes()).hexdigest()
    out = {name: WORK / "hipify" / name / "src" / f"{name}-cuda" for name in names}
    todo = [n for n in names if not ((WORK / "hipify" / f"{n}.done").exists() and out[n].is_dir()
                                     and (WORK / "hipify" / f"{n}.done").read_text() == script_id)]
    for i in range(0, len(todo), chunk):  # a few benchmarks per process: a run cut short keeps what it finished
        part = todo[i:i + chunk]
        files: list[str] = []
        for name in part:
            scratch_tree(src, name, WORK / "hipify" / name, link_siblings=True)
            files += [str(p) for p in sorted(out[name].rglob("*"))
                      if p.is_file() and p.suffix.lower() in SOURCE_EXT + HEADER_EXT]
        if files:
            subprocess.run(["nice", "-n", "10", "perl", str(hipify), "-inplace", *files], capture_output=True,
                           timeout=3600)
        for name in part:
            for p in out[name].rglob("*.prehip"):
                p.unlink()
            (WORK / "hipify" / f"{name}.done").write_text(script_id)
    return out


def porter_cmd() -> list[str]:
    here = Path(__file__).resolve().parents[2]
    py = here / ".venv" / "bin" / "python"
    return [str(py if py.exists() else sys.executable), "-m", "porter"]


def porter_commit() -> str:
    here = Path(__file__).resolve().parents[2]
    return subprocess.run(["git", "-C", str(here), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()


def port_tree(src: Path, name: str) -> tuple[Path, dict]:
    """`porter port --apply` on a fresh git repository holding the -cuda folder and the siblings it reads."""
    root = WORK / "port" / name
    root.parent.mkdir(parents=True, exist_ok=True)
    # one process at a time per benchmark: a second bench process (porting ahead of the compiles) waits, then
    # finds the memo
    with open(root.parent / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _port_tree(src, name, root)


def _port_tree(src: Path, name: str, root: Path) -> tuple[Path, dict]:
    memo = root.parent / f"{name}.doc.json"
    key = porter_tree_key()
    if memo.exists() and (root / "src" / f"{name}-cuda").is_dir():  # same porter code and same input: same tree
        prev = json.loads(memo.read_text())
        if prev.get("key") == key and key:
            return root / "src" / f"{name}-cuda", prev["doc"]
    folder = scratch_tree(src, name, root, link_siblings=False)
    git = ["git", "-C", str(root), "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "pre-port"], check=True)
    summary = root.parent / f"{name}.summary.json"
    r = subprocess.run([*porter_cmd(), "port", str(root), "--apply", "--summary", str(summary)], capture_output=True,
                       text=True, timeout=600, cwd=str(Path(__file__).resolve().parents[2]))
    doc: dict = {"exit": r.returncode, "stderr": r.stderr.strip().splitlines()[-3:], "porter_commit": porter_commit()}
    if summary.exists():
        try:
            plan = json.loads(summary.read_text())
            doc["files_changed"] = len(plan.get("files", []) or [])
            doc["open"] = [f"{o['rule']} {o['path']}:{o['line']}" for o in plan.get("open_work", [])]
            doc["changes"] = len(plan.get("changes", []))
        except ValueError:
            pass
    diff = subprocess.run(git[:3] + ["diff", "--numstat"], capture_output=True, text=True).stdout
    doc["numstat"] = [line.split("\t") for line in diff.splitlines()]
    untracked = subprocess.run(git[:3] + ["ls-files", "--others", "--exclude-standard"], capture_output=True,
                               text=True).stdout.split()
    doc["new_files"] = untracked
    memo.write_text(json.dumps({"key": key, "doc": doc}))
    return folder, doc


def porter_tree_key() -> str:
    """The git tree ids of porter/ and rules/ at HEAD, or '' when the work tree has uncommitted changes there (then
    `porter port` always re-runs). The HeCBench mirror is fixed, so this decides whether a port tree is stale."""
    here = Path(__file__).resolve().parents[2]
    dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--", "porter", "rules"],
                           capture_output=True, text=True).stdout.strip()
    if dirty:
        return ""
    return subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD:porter", "HEAD:rules"], capture_output=True,
                          text=True).stdout.replace("\n", " ").strip()


_NAME_MAP = [(re.compile(r"#\s*include\s*[<\"](cuda_runtime|cuda_runtime_api|cuda|hip/hip_runtime|"
                         r"hip/hip_runtime_api)\.h[>\"]"), "#include <hip/hip_runtime.h>"),
             (re.compile(r"\bcuda"), "hip"), (re.compile(r"\bCUDA"), "HIP"), (re.compile(r"\bCuda"), "Hip"),
             (re.compile(r"\bcu(blas|fft|rand|sparse|solver)"), r"hip\1"), (re.compile(r"\bcub::"), "hipcub::"),
             (re.compile(r"\bcub/"), "hipcub/")]


def normalise(text: str) -> list[str]:
    """Lines with whitespace collapsed, blank lines dropped, CUDA names mapped to their HIP spelling."""
    out = []
    for line in text.splitlines():
        line = " ".join(line.split())
        if not line:
            continue
        for pat, rep in _NAME_MAP:
            line = pat.sub(rep, line)
        out.append(line)
    return out


def changed_lines(a: list[str], b: list[str]) -> int:
    return sum(1 for d in difflib.ndiff(a, b) if d[:1] in "+-") if a != b else 0


def counterpart(twin: Path, rel: Path, folder: Path) -> Path | None:
    for cand in (rel, rel.with_suffix(".cu"), rel.with_suffix(".cpp"), rel.with_suffix(".cuh"), rel.with_suffix(".h")):
        if (folder / cand).is_file():
            return folder / cand
    return None


def stage_close(src: Path, sample: list[str], state: dict) -> None:
    """Changed lines to the human twin: of the CUDA original, porter's port and hipify-perl's translation (run here
    when the hipify stage did not, which costs no compile)."""
    per = state.setdefault("per_benchmark", {})
    if os.environ.get("BENCH_HIPIFY_CLOSE") and (WORK / "tools" / "hipify-perl").exists():
        hipify_trees(src, sample, WORK / "tools" / "hipify-perl")
    for name in sample:
        twin = src / f"{name}-hip"
        sides = {"cuda_original": src / f"{name}-cuda", "porter_port": WORK / "port" / name / "src" / f"{name}-cuda",
                 "hipify": WORK / "hipify" / name / "src" / f"{name}-cuda" if hipify_done(name) else WORK / "absent"}
        row = {k: 0 for k in sides}
        row["human_lines"] = 0
        row["files"] = 0
        for t in sorted(twin.rglob("*")):
            if not (t.is_file() and t.suffix.lower() in SOURCE_EXT + HEADER_EXT):
                continue
            rel = t.relative_to(twin)
            if counterpart(twin, rel, sides["cuda_original"]) is None:
                continue
            human = normalise(t.read_text(errors="replace"))
            row["human_lines"] += len(human)
            row["files"] += 1
            for side, folder in sides.items():
                c = counterpart(twin, rel, folder)
                if c is None or not folder.is_dir():
                    row[side] = None if not folder.is_dir() else row[side]
                    continue
                if row[side] is not None:
                    row[side] += changed_lines(normalise(c.read_text(errors="replace")), human)
        per.setdefault(name, {})["close"] = row


_LOC = re.compile(r"^(?P<path>[^:\s]+):(?P<line>\d+):(?:\d+:)? (?:fatal )?error: (?P<msg>.*)$")
_LOC_NV = re.compile(r"^(?P<path>[^(\s]+)\((?P<line>\d+)\): error: (?P<msg>.*)$")
SYSTEM_HEADERS = [(re.compile(r"^(hipcub|rocprim|thrust|rocthrust|hipblas|rocblas|hipsparse|rocsparse|hiprand|rocrand|"
                              r"rccl|hipsolver|rocsolver|hipfft|rocfft|miopen|rocwmma|hiptensor|cub|cublas|cusparse|"
                              r"curand|cufft|cusolver|nccl)"), "ROCm/CUDA math library"),
                  (re.compile(r"^omp\.h$"), "OpenMP (libomp-dev not installed)"),
                  (re.compile(r"^mpi\.h$"), "MPI"),
                  (re.compile(r"^(GL|GLES\d*|EGL|GLFW|KHR)/|^glut"), "OpenGL/GLUT")]
# HIP headers every supported ROCm (6.x) ships and Debian's HIP 5.2 lacks: the port is right for ROCm 6, wrong here
HIP_GAP_HEADERS = re.compile(r"^hip/(hip_bf16|hip_fp8)\.h$")


def attribute(src: Path, name: str, row: dict, key: str) -> list[dict]:
    """Each failing unit of row[key] judged: a missing system library (named), predicted by an open-work finding of
    the port on or within 3 lines of the error, or a porter defect (open items elsewhere in the file are listed, not
    counted as a prediction)."""
    out = []
    opens = []
    for o in row.get("port", {}).get("open", []):
        rule, _, loc = o.partition(" ")
        path, _, line = loc.rpartition(":")
        opens.append((rule, path, int(line) if line.isdigit() else 0, o))
    for unit, res in sorted(row.get(key, {}).get("units", {}).items()):
        if res["status"] == "compiled":
            continue
        err = res.get("first_error") or ""
        j = {"benchmark": name, "stage": key, "unit": unit, "status": res["status"], "first_error": err}
        header = res.get("missing_header")
        lib = next((f"{lab}: {header}" for pat, lab in SYSTEM_HEADERS if header and pat.search(header)), None)
        m = _LOC.match(err) or _LOC_NV.match(err)
        err_file, err_line = f"src/{name}-cuda/{unit}", 0
        if m:
            path = m.group("path")
            path = path[2:] if path.startswith("./") else path
            err_file = path if path.startswith("src/") else os.path.normpath(f"src/{name}-cuda/{path}")
            err_line = int(m.group("line"))
        j["error_at"] = f"{err_file}:{err_line}" if err_line else err_file
        unit_file = f"src/{name}-cuda/{unit}"
        # open work names lines of the pre-port file; the error names the ported one (the port adds lines): map the
        # error's line back to the original line with the same text nearest above it
        orig_line = err_line
        ported, original = WORK / "port" / name / err_file, src / err_file[4:]
        if err_line and key.startswith("port") and ported.is_file() and original.is_file():
            text = (ported.read_text(errors="replace").splitlines()[err_line - 1:err_line] or [""])[0].strip()
            same = [i + 1 for i, ln in enumerate(original.read_text(errors="replace").splitlines())
                    if ln.strip() == text and text]
            orig_line = min(same, key=lambda i: (abs(err_line - i), i)) if same else err_line
            j["error_at_original"] = f"{err_file}:{orig_line}"
        near = [o for r, p, ln, o in opens if p == err_file and err_line and abs(ln - orig_line) <= 3]
        on_file = [o for r, p, ln, o in opens if p in (err_file, unit_file)]
        if res["status"] == "timeout":
            j["cause"] = "timeout"
        elif lib:
            j["cause"], j["library"] = "system-library", lib
        elif header and HIP_GAP_HEADERS.search(header):
            j["cause"] = "hip-5.2-gap"
        elif near:
            j["cause"], j["predicted_by"] = "predicted", near[:3]
        else:  # an open item elsewhere in the file does not predict this error (the line rule of issue 30)
            j["cause"] = "defect"
            if on_file:
                j["open_elsewhere_in_file"] = on_file[:3]
        out.append(j)
    return out


def attribute_all(src: Path, state: dict) -> None:
    rows = state.get("per_benchmark", {})
    state["failures"] = [j for n in state.get("sample", []) for key in ("port_hipcc", "port_nvcc", "port_nvcc_full",
                                                                        "hipify_hipcc")
                         if key in rows.get(n, {}) for j in attribute(src, n, rows[n], key)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, required=True)
    ap.add_argument("--sample", type=int, default=150)
    ap.add_argument("--stages", default="twins,port,nvcc,hipify,close")
    ap.add_argument("--hipify", type=Path, default=Path("/work/.mirror/ROCm+HIPIFY/repo"))
    ap.add_argument("--json", type=Path, default=Path(__file__).resolve().parent / "data" / "hecbench.json")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, help="examine at most this many twins (in the seeded order)")
    ap.add_argument("--only", help="comma-separated benchmark names instead of the sample (a trial run; no JSON)")
    ap.add_argument("--first", help="comma-separated sampled benchmarks the later stages take first (a run that "
                                    "may be cut short measures those)")
    a = ap.parse_args(argv)
    tree = extract_tree(a.mirror)
    src = tree / "src"
    state: dict = {}
    stages = a.stages.split(",")
    if a.json.exists():
        state = json.loads(a.json.read_text())
    if a.only:
        a.json = WORK / "only.json"
    a.json.parent.mkdir(parents=True, exist_ok=True)

    def save() -> None:  # after every benchmark, so a run cut short keeps its rows
        a.json.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")

    if "twins" not in stages and state.get("sample"):  # later stages over the sample a run left in the JSON
        sample = state["sample"]
        first = [n for n in (a.first or "").split(",") if n in sample]
        run_stages(src, first + [n for n in sample if n not in first], state, [s for s in stages if s != "close"],
                   a.jobs, save)
    else:
        sample = run_pipeline(src, a.sample, state, stages, a.jobs, a.hipify, a.limit,
                              a.only.split(",") if a.only else None, save)
    if "close" in stages:
        stage_close(src, sample, state)
    attribute_all(src, state)
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")
    a.json.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")
    if a.only:
        print(json.dumps({n: state.get("per_benchmark", {}).get(n) for n in sample}, indent=1))
        return 0
    print(f"sample {len(sample)} of {len(state['examined'])} examined twins; "
          f"{len(state['dropped_rocm_libraries'])} twins need a ROCm library Debian lacks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
