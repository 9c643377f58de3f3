"""Print the tables of bench/port/README.md from the JSON the three harnesses wrote (bench/port/data/)."""
from __future__ import annotations

import json
import statistics
import sys
from collections import Counter
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


def pct(a: int, b: int) -> str:
    return f"{a}/{b} ({a / b:.1%})" if b else f"{a}/0"


def hecbench() -> list[str]:
    d = json.loads((DATA / "hecbench.json").read_text())
    per, sample = d.get("per_benchmark", {}), d.get("sample", [])
    twins = d.get("twins", {})
    examined = d.get("examined", [])
    tw = Counter(twins[n]["status"] for n in examined if n in twins)
    out = [f"benchmarks with a -cuda folder: {d['benchmarks']}; with a human -hip twin: {d['with_hip_twin']}",
           f"twins dropped for a ROCm library Debian lacks (no compile): {len(d['dropped_rocm_libraries'])} "
           f"(hipCUB/rocPRIM/rocThrust among them: {len(d['dropped_hipcub_rocthrust'])})",
           f"twins compiled in the seeded order (random.Random({d['seed']})): {len(examined)} examined: "
           + ", ".join(f"{k} {v}" for k, v in sorted(tw.items())),
           f"sample (twin compiles): {len(sample)}", ""]
    rows = [per[n] for n in sample if n in per]
    out.append("| measure | compiled | failed | timeout (120 s, loaded machine) | rate over verdicts |")
    out.append("|---|---|---|---|---|")
    for key, label in (("port_hipcc", "porter port, hipcc gfx90a"), ("port_nvcc", "porter port dual tree, nvcc sm_80"),
                       ("hipify_hipcc", "hipify-perl, hipcc gfx90a")):
        st = Counter(r[key]["status"] for r in rows if key in r)
        verdicts = st["compiled"] + st["failed"]
        if not sum(st.values()):
            continue
        out.append(f"| {label} | {st['compiled']} | {st['failed']} | {st['timeout'] + st['killed']} | "
                   f"{pct(st['compiled'], verdicts)} |")
    nv = [r for r in rows if r.get("port_nvcc", {}).get("status") == "failed"]
    if nv:
        orig_fail = sum(1 for r in nv if r.get("nvcc_original", {}).get("status") == "failed")
        out.append(f"\nnvcc failures of the dual tree whose CUDA original also fails with nvcc 13: {orig_fail}/{len(nv)}")
    close = [r["close"] for r in rows if r.get("close") and r["close"].get("files")]
    if close:
        out += ["", "| closeness to the human HIP twin (changed lines after normalising) | total | median per benchmark |",
                "|---|---|---|"]
        for side, label in (("cuda_original", "CUDA original (no port)"), ("porter_port", "porter port"),
                            ("hipify", "hipify-perl")):
            vals = [c[side] for c in close if c.get(side) is not None]
            if vals:
                out.append(f"| {label} | {sum(vals)} over {len(vals)} benchmarks | {statistics.median(vals)} |")
        out.append(f"| (human twin lines, same files) | {sum(c['human_lines'] for c in close)} | |")
    fails = Counter()
    examples: dict[str, str] = {}
    for n in sample:
        r = per.get(n, {})
        for key in ("port_hipcc", "port_nvcc"):
            if r.get(key, {}).get("status") == "failed":
                fails[key] += 1
                examples.setdefault(f"{key} {n}", r[key]["first_error"] or "")
    if examples:
        out += ["", "failures (benchmark: first error):"]
        out += [f"- {k}: {v[:220]}" for k, v in sorted(examples.items())]
    return out


def of_units(key: str, recorded: int) -> int:
    """Units of the whole set under today's rules (NVRTC kernel sources out), from the scratch tree when it is there."""
    from cuda_samples import WORK, unit_list
    tree = WORK / ("port" if key == "port" else "translated")
    return len(unit_list(tree)) if tree.is_dir() else recorded


def cuda_samples() -> list[str]:
    d = json.loads((DATA / "cuda_samples.json").read_text())
    out = ["| tree | units done (of all) | compiled | system library | predicted (line/name) | predicted (file only) | "
           "defect | timeout | compile rate (excl. system library, timeouts) | unpredicted (brief's file rule) | "
           "unpredicted (strict) |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from cuda_samples import nvrtc_source, summarise
    for key in ("port", "translate"):  # re-summarised without NVRTC kernel sources (a run may predate that rule)
        if d.get(key):
            d[key] = {**summarise([r for r in d[key]["rows"] if not nvrtc_source(r["unit"])]),
                      "of_units": of_units(key, d[key]["of_units"])}
    for key in ("port", "translate"):
        p = d.get(key)
        if not p:
            continue
        c = p["counts"]
        strict = p.get("unpredicted_rate_strict")
        out.append(f"| {key} | {p['units']}/{p['of_units']} | {c.get('compiled', 0)} | {c.get('system-library', 0)} | "
                   f"{c.get('predicted', 0)} | {c.get('predicted-file', 0)} | {c.get('defect', 0)} | "
                   f"{c.get('timeout', 0)} | {p['compile_rate']:.1%} | {p['unpredicted_rate']:.1%} | "
                   f"{'-' if strict is None else f'{strict:.1%}'} |")
    for key in ("port", "translate"):
        p = d.get(key)
        if not p:
            continue
        out.append(f"\n{key} failures:")
        for r in p["rows"]:
            if r["status"] != "compiled":
                by = f" [{r.get('predicted_by', [''])[0]}{' same line' if r.get('predicted_same_line') else ''}]" \
                    if r.get("predicted_by") else ""
                lib = f" ({r['library']})" if r.get("library") else ""
                out.append(f"- {r['cause']}{lib}{by}: {r['unit']}: {r['first_error'][:200]}")
    return out


def main() -> int:
    which = sys.argv[1:] or ["hecbench", "cuda_samples"]
    for w in which:
        if (DATA / f"{w}.json").exists():
            print(f"## {w}\n")
            print("\n".join(globals()[w]()))
            print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
