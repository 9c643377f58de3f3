"""Benchmark `porter translate --verify` on a real CUDA project, engine beside engine, in one run.

Usage:
    python bench/bench_translate.py --corpus DIR [--hipify /path/to/hipify-perl] [--target gfx90a] [--json]

DIR is a copy of the project outside any repository (for NVIDIA/cuda-samples: `Samples/0_Introduction`,
`Samples/6_Performance` and `Common/` in their places). Each engine is a real `porter translate DIR -o OUT
--verify --format json` subprocess: porter's built-in engine; and, when a hipify-perl is given, hipify-perl with
porter's post-pass (`--engine hipify-perl`) and hipify-perl alone (`--no-fixups`: what the tool does by itself).
The table counts translation units: compiled, failed for the machine's environment (a library this machine lacks,
a toolchain limit), failed as a porter finding predicted, failed unexplained (a translation defect), and the
compile rate over the units whose failure is not the environment. Nothing here is a test: numbers go into notes.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_engine(corpus: Path, label: str, args: list[str], target: str | None) -> dict:
    with tempfile.TemporaryDirectory(prefix="porter-bench-translate-") as tmp:
        cmd = [sys.executable, "-m", "porter", "translate", str(corpus), "-o", str(Path(tmp) / "out"), "--verify",
               "--format", "json", *args]
        if target:
            cmd += ["--target", target]
        start = time.monotonic()
        r = subprocess.run(cmd, capture_output=True, text=True)
        seconds = time.monotonic() - start
    if r.returncode not in (0, 1):
        raise SystemExit(f"{label}: porter exited {r.returncode}: {r.stderr.strip()[-500:]}")
    doc = json.loads(r.stdout)
    ver = doc.get("verify") or {}
    s = ver.get("summary") or {}
    files = ver.get("files") or []
    return {
        "engine": label, "units": len(files), "compiled": s.get("compiled", 0), "environment": s.get("environment", 0),
        "predicted": s.get("predicted", 0), "unexplained": s.get("defect", 0), "compile_rate": s.get("compile_rate"),
        "seconds": round(seconds, 1), "compiler": (ver.get("compiler") or {}).get("version"),
        "failures": [{"path": f["path"], "cause": f.get("cause"), "error": f.get("error"),
                      "predicted_by": f.get("predicted_by", []), "environment": f.get("environment")}
                     for f in files if f["status"] != "compiled"],
    }


def table(rows: list[dict]) -> str:
    head = ("engine", "files", "compiled", "environment", "predicted", "unexplained", "compile rate")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        rate = f"{r['compile_rate']:.1%}" if r["compile_rate"] is not None else "-"
        lines.append(f"| {r['engine']} | {r['units']} | {r['compiled']} | {r['environment']} | {r['predicted']} | "
                     f"{r['unexplained']} | {rate} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, required=True, help="the project copy to translate (outside any repository)")
    ap.add_argument("--hipify", type=Path, help="a hipify-perl script to run beside porter's engine")
    ap.add_argument("--target", help="--verify target (default gfx90a)")
    ap.add_argument("--json", action="store_true", help="print the rows, failures included, as JSON")
    a = ap.parse_args(argv)
    runs = [("porter builtin", ["--engine", "builtin"])]
    if a.hipify:
        runs += [("hipify-perl + porter post-pass", ["--engine", "hipify-perl", "--hipify", str(a.hipify)]),
                 ("hipify-perl alone", ["--engine", "hipify-perl", "--hipify", str(a.hipify), "--no-fixups"])]
    rows = [run_engine(a.corpus, label, args, a.target) for label, args in runs]
    if a.json:
        print(json.dumps(rows, indent=2))
    else:
        print(table(rows))
        if len(rows) == 3 and rows[2]["compiled"]:
            print(f"\nporter builtin compiles {rows[0]['compiled'] / rows[2]['compiled']:.1f}x hipify-perl alone")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
