"""cuda-samples: porter's dual-build port of 0_Introduction and 2_Concepts_and_Techniques (with Common/), each file
compiled for gfx90a with Debian's hipcc, every failure attributed.

Usage:
    python bench/port/cuda_samples.py --mirror /work/.mirror/NVIDIA+cuda-samples/repo [--translate] [--json FILE]

The two sample folders and Common/ (source files only) are copied into a fresh git repository under /tmp/bench-port,
`porter port --apply` runs there, and each translation unit of the two folders (every .cu, and .cpp files holding
GPU code or CUDA API calls) is compiled like HeCBench's (hipcc --offload-arch=gfx90a --cuda-device-only -c, the
sample's folder and Common/ on -I, -std=c++17). A failure is, in this order:
  system-library  the first error is a missing header of a library this machine lacks (OpenGL/GLUT/EGL/X11, a
                  ROCm math library Debian does not package, clang's OpenMP), named. Not HIP's own headers: HIP's
                  GL interop header (ROCm 6.0) is a HIP 5.2 gap, like hip_bf16.h (`hip_gap`, counted as judged);
  predicted       `porter scan` of the ported tree has an open finding on the failing file (the brief's rule);
                  `predicted_same_line` says whether one sits on the error's line or names the identifier it quotes;
  defect          neither: a porter defect.
With --translate, `porter translate` (builtin engine) writes a HIP copy of the same tree and its units are compiled
and attributed the same way, for comparison. With --gfx gfx942,gfx950 the port is also compiled with clang 22's
device pass for those targets (Debian's hipcc knows neither), on the same HIP 5.2 headers. Compiles are cached in /tmp/bench-port/cache.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compiling import HEADER_EXT, SOURCE_EXT, compile_unit  # noqa: E402
from extract import extract  # noqa: E402
from hecbench import gpu_code, porter_cmd, porter_commit  # noqa: E402

WORK = Path("/tmp/bench-port/cuda-samples")
FOLDERS = ("Samples/2_Concepts_and_Techniques", "Samples/0_Introduction")  # compile order: the set first
SYSTEM_LIBS = [(re.compile(r"^(GL|GLES\d*|EGL|GLFW|KHR)/|^glut|^freeglut|^GL\.h$"), "OpenGL/GLUT/EGL (system GL libraries)"),
               (re.compile(r"^X11/"), "X11"),
               (re.compile(r"^(hipblas|hipfft|hiprand|rocrand|hipsparse|hipsolver|rocblas|hipcub|rocprim|thrust|"
                           r"rocthrust|rocfft|rccl|hipblaslt)"), "a ROCm math library Debian does not package"),
               (re.compile(r"^mpi\.h$"), "MPI"),
               (re.compile(r"^omp\.h$"), "OpenMP (clang's omp.h: libomp-dev is not installed)")]
_BACKEND_IMAGE = "requested image instruction is not supported on this GPU"
# Failures on a HIP feature that every ROCm release porter judges for (rules/kb/hip_versions.yaml: 6.4, 7.0, 7.2) has
# and Debian's HIP 5.2 lacks: the machine's HIP is older than any supported ROCm. Counted apart (row "hip_gap"), in
# a second rate beside the brief's; the attribution (predicted / defect) is unchanged.
HIP52_GAPS = [
    (re.compile(r"no member named 'meta_group_(?:rank|size)' in 'cooperative_groups::"),
     "thread_block_tile::meta_group_rank/size (HIP 5.7: ROCm/clr a77fb5a1d)"),
    (re.compile(r"no member named '\w+' in 'hipDeviceProp_t'"),
     "hipDeviceProp_t member (HIP 6.0's hipDeviceProp_tR0600)"),
    (re.compile(r"'hip/hip_bf16\.h' file not found"), "hip/hip_bf16.h (HIP 5.7)"),
    # HIP's GL interop header is part of HIP, not a system library (the GL/EGL/GLUT headers are installed here):
    # ROCm 6.0 added it for the AMD platform (ROCm/clr 3a8e0dd1c); HIP 5 declares the API in hip_runtime_api.h
    (re.compile(r"'hip/hip_gl_interop\.h' file not found"), "hip/hip_gl_interop.h (ROCm 6.0: ROCm/clr 3a8e0dd1c)"),
    # gfx90a has image sampling, but Debian's hipcc (clang 15) cannot emit it for gfx90a: the same HIP 5.2 headers and
    # ockl.bc compiled with clang 19 or 22 give image_sample (measured on the 12 texture units, session 12). A
    # toolchain older than any supported ROCm's, like the HIP 5.2 gaps. gfx942/gfx950 have no image instructions at
    # all (HIP's headers mark the texture API unavailable there): not a gap.
    (re.compile(re.escape(_BACKEND_IMAGE)), "gfx90a image sampling (clang 15's backend; clang 19/22 emit image_sample)"),
    # --gfx runs: HIP 5.2's own device headers call builtins clang 22 no longer has (amd_hip_fp16.h's
    # __llvm_amdgcn_rcp_f16): the machine's HIP headers under a newer clang, whatever the port wrote
    (re.compile(r"^/usr/include/hip/\S+: error: use of undeclared identifier '__llvm_amdgcn_"),
     "HIP 5.2's headers under clang 22 (a builtin clang 22 dropped)"),
]
_UNDECLARED = re.compile(r"(?:use of undeclared identifier|unknown type name|no member named) '(hip\w+)'")
MACHINE_HIP = (5, 2, 3)


def _hip_added() -> dict[str, tuple[int, ...]]:
    """HIP name -> the HIP release HIPIFY's tables say added it (porter's knowledge base)."""
    from porter.kb import load_kb

    kb = load_kb()
    out: dict[str, tuple[int, ...]] = {}
    for name in kb.names:
        e = kb.get(name)
        if e is not None and e.hip and e.hip_added and re.fullmatch(r"[\d.]+", e.hip_added):
            out.setdefault(e.hip, tuple(int(x) for x in e.hip_added.split(".")))
    return out


def hip_gap(err: str) -> str | None:
    """The HIP feature newer than this machine's HIP 5.2.3 an error stops at, or None."""
    why = next((why for rx, why in HIP52_GAPS if rx.search(err)), None)
    if why:
        return why
    m = _UNDECLARED.search(err)
    if m:
        added = _hip_added_table().get(m.group(1))
        if added and added > MACHINE_HIP:
            return f"{m.group(1)} (HIP {'.'.join(map(str, added))}, HIPIFY's table)"
    return None


_HIP_ADDED: dict[str, tuple[int, ...]] = {}


def _hip_added_table() -> dict[str, tuple[int, ...]]:
    if not _HIP_ADDED:
        _HIP_ADDED.update(_hip_added())
    return _HIP_ADDED
_LOC = re.compile(r"^(?P<path>[^:\s]+):(?P<line>\d+):(?:\d+:)? (?:fatal )?error: (?P<msg>.*)$")
_QUOTED = re.compile(r"'([^']+)'")


def system_library(header: str | None) -> str | None:
    if not header:
        return None
    for pat, lib in SYSTEM_LIBS:
        if pat.search(header):
            return f"{lib}: {header}"
    return None


def prepare(mirror: Path, dest: Path) -> Path:
    exts = SOURCE_EXT + HEADER_EXT
    pristine = extract(mirror, "HEAD", WORK / "pristine",
                       lambda p: (p.startswith(FOLDERS) or (p.startswith("Common/") and not p.startswith("Common/lib")))
                       and p.lower().endswith(exts))
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(pristine, dest, ignore=shutil.ignore_patterns(".extracted-*"))
    git = ["git", "-C", str(dest), "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "pre-port"], check=True)
    return dest


def scan_open(root: Path) -> dict[str, list[dict]]:
    r = subprocess.run([*porter_cmd(), "scan", str(root), "-f", "json", "-j", "1", "--no-cache"], capture_output=True,
                       text=True, timeout=1800)
    doc = json.loads(r.stdout)
    out: dict[str, list[dict]] = {}
    for f in doc.get("findings", []):
        if f.get("status", "open") == "open":
            out.setdefault(f["path"], []).append(f)
    return out


def nvrtc_source(unit: str) -> bool:
    """A *_nvrtc sample's .cu file is kernel source its program hands to NVRTC at run time, not a translation unit."""
    parts = unit.split("/")
    return unit.endswith(".cu") and any(part.endswith("_nvrtc") for part in parts[:-1])


def unit_list(root: Path) -> list[Path]:
    out = []
    for folder in FOLDERS:
        for p in sorted((root / folder).rglob("*")):
            if p.is_file() and p.suffix.lower() in (".cu", ".cpp", ".cc", ".cxx", ".hip") and gpu_code(p) \
                    and not nvrtc_source(p.relative_to(root).as_posix()):
                out.append(p)
    return out


def attribute(root: Path, unit: Path, res: dict, findings: dict[str, list[dict]]) -> dict:
    rel_unit = unit.relative_to(root).as_posix()
    err = res.get("first_error") or ""
    row = {"unit": rel_unit, "status": res["status"], "first_error": err}
    if res["status"] == "compiled":
        return row
    gap = hip_gap(err)
    if gap:
        row["hip_gap"] = gap
    lib = system_library(res.get("missing_header"))
    if lib:
        row["cause"], row["library"] = "system-library", lib
        return row
    m = _LOC.match(err)
    err_file, err_line = rel_unit, None
    if m:
        # the compiler names the file relative to the compile's folder, or (via -I) absolute, which
        # compiling.first_error shortened to below <root>/Samples
        cands = [unit.parent / m.group("path"), root / "Samples" / m.group("path"), root / m.group("path")]
        p = next((c.resolve() for c in cands if c.is_file()), cands[0].resolve())
        try:
            err_file = p.relative_to(root.resolve()).as_posix()
        except ValueError:
            err_file = m.group("path")
        err_line = int(m.group("line"))
    on_file = findings.get(err_file, []) + (findings.get(rel_unit, []) if err_file != rel_unit else [])
    quoted = set(_QUOTED.findall(err))
    same = [f for f in on_file if (f["path"] == err_file and f["line"] == err_line)
            or any(q and (q in (f.get("snippet") or "") or q in f.get("message", "")) for q in quoted)]
    if not m and _BACKEND_IMAGE in err:
        # the backend names no line: a texture-fetch finding (DEV020) in the unit or a header beside it names the
        # cause itself, so it counts as on the line; on_file widens to the unit's folder for it
        folder = rel_unit.rsplit("/", 1)[0] + "/"
        on_file = on_file + [f for p, fs in findings.items() if p.startswith(folder) and p not in (err_file, rel_unit)
                             for f in fs if f["rule"] == "DEV020"]
        same = [f for f in on_file if f["rule"] == "DEV020"]
    row["error_at"] = f"{err_file}:{err_line}" if err_line else err_file
    if on_file:
        # the brief's rule: an open finding on the failing file predicts it; "predicted-file" marks the ones where
        # no finding sits on the error's line or names what the error quotes (a looser prediction)
        row["cause"] = "predicted" if same else "predicted-file"
        row["predicted_by"] = sorted({f"{f['rule']} {f['path']}:{f['line']}" for f in (same or on_file)})[:5]
        row["predicted_same_line"] = bool(same)
    else:
        row["cause"] = "timeout" if res["status"] == "timeout" else "defect"
    return row


def summarise(rows: list[dict]) -> dict:
    counts: dict[str, int] = {}
    for r in rows:
        key = "compiled" if r["status"] == "compiled" else r["cause"]
        counts[key] = counts.get(key, 0) + 1
    judged = len(rows) - counts.get("system-library", 0) - counts.get("timeout", 0)
    gaps = sum(1 for r in rows if r.get("hip_gap") and r.get("cause") != "system-library")
    return {"units": len(rows), "counts": counts, "judged": judged, "hip52_gaps": gaps,
            "compile_rate_supported_hip": round(counts.get("compiled", 0) / (judged - gaps), 4) if judged > gaps
            else None,
            "compile_rate": round(counts.get("compiled", 0) / judged, 4) if judged else None,
            "unpredicted_rate": round(counts.get("defect", 0) / judged, 4) if judged else None,
            "unpredicted_rate_strict": round((counts.get("defect", 0) + counts.get("predicted-file", 0)) / judged, 4)
            if judged else None,
            "rows": sorted(rows, key=lambda r: r["unit"])}


def measure(root: Path, label: str, jobs: int, save=lambda doc: None, compiler: str = "hipcc",
            findings: dict[str, list[dict]] | None = None) -> dict:
    findings = scan_open(root) if findings is None else findings
    units = unit_list(root)
    common = root / "Common"

    def one(u: Path) -> dict:
        flags = ["-std=c++17", f"-I{common}", f"-I{u.parent}"]
        # the root holds the compat header (port) - what the compile reads
        res = compile_unit(compiler, Path(u.name), u.parent, flags, [u.parent, common, *sorted(root.glob("*.h"))],
                           label).as_dict()
        return attribute(root, u, res, findings)

    rows: list[dict] = []
    with ThreadPoolExecutor(jobs) as ex:
        for row in ex.map(one, units):
            if row["status"] == "not-run":
                continue
            rows.append(row)
            save({**summarise(rows), "of_units": len(units)})  # a run cut short keeps its rows
    return {**summarise(rows), "of_units": len(units)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, required=True)
    ap.add_argument("--translate", action="store_true", help="also measure `porter translate`'s HIP copy")
    ap.add_argument("--json", type=Path, default=Path(__file__).resolve().parent / "data" / "cuda_samples.json")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--gfx", default="", help="also compile the port for these gfx (comma-separated, e.g. gfx942,gfx950)"
                                                " with clang 22's device pass (compiling.CLANG)")
    ap.add_argument("--skip-gfx90a", action="store_true", help="with --gfx: keep the JSON's gfx90a rows (no hipcc run)")
    a = ap.parse_args(argv)
    out: dict = {}
    root = prepare(a.mirror, WORK / "port")
    r = subprocess.run([*porter_cmd(), "port", str(root), "--apply", "--summary", str(WORK / "port-summary.json")],
                       capture_output=True, text=True, timeout=1800)
    out["port_exit"] = r.returncode
    out["porter_commit"] = porter_commit()
    a.json.parent.mkdir(parents=True, exist_ok=True)

    def saver(key):
        def save(doc):
            out[key] = doc
            a.json.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
        return save

    findings = scan_open(root)
    if a.skip_gfx90a and a.json.exists():
        out["port"] = json.loads(a.json.read_text())["port"]
    else:
        out["port"] = measure(root, "cs-port", a.jobs, saver("port"), findings=findings)
    for gfx in [g for g in a.gfx.split(",") if g]:
        out[f"port_{gfx}"] = measure(root, f"cs-port-{gfx}", a.jobs, saver(f"port_{gfx}"), f"clang:{gfx}", findings)
        print(f"port {gfx}: {out[f'port_{gfx}']['counts']} rate {out[f'port_{gfx}']['compile_rate']}", flush=True)
    print(f"port: {out['port']['counts']} rate {out['port']['compile_rate']} unpredicted {out['port']['unpredicted_rate']}"
          f" (HIP 5.2 gaps {out['port']['hip52_gaps']}, rate without them {out['port']['compile_rate_supported_hip']})",
          flush=True)
    if a.translate:
        pre = prepare(a.mirror, WORK / "pre")
        tr = WORK / "translated"
        if tr.exists():
            shutil.rmtree(tr)
        r = subprocess.run([*porter_cmd(), "translate", str(pre), "-o", str(tr)], capture_output=True, text=True,
                           timeout=1800)
        out["translate_exit"] = r.returncode
        subprocess.run(["git", "-C", str(tr), "init", "-q"], check=False)
        out["translate"] = measure(tr, "cs-translate", a.jobs, saver("translate"))
        print(f"translate: {out['translate']['counts']} rate {out['translate']['compile_rate']}", flush=True)
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
