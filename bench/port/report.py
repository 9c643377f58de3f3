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


LIB_ORDER = ("hipcub", "rocprim", "thrust", "rocthrust")  # the named dropouts take a twin first


def dropouts_by_library(dropped: dict[str, list[str]]) -> list[tuple[str, int]]:
    """Each dropped twin counted once: under hipCUB/rocPRIM/rocThrust when it includes one, else its first library
    in the order of how many twins need it."""
    need = Counter(lib for libs in dropped.values() for lib in libs)
    by = Counter()
    for libs in dropped.values():
        named = [lib for lib in LIB_ORDER if lib in libs]
        by["hipCUB/rocPRIM/rocThrust" if named else max(libs, key=lambda lib: (need[lib], lib))] += 1
    return sorted(by.items(), key=lambda kv: (-kv[1], kv[0]))


def hecbench() -> list[str]:
    d = json.loads((DATA / "hecbench.json").read_text())
    per, sample = d.get("per_benchmark", {}), d.get("sample", [])
    twins = d.get("twins", {})
    examined = d.get("examined", [])
    if sample:  # a run cut short: twins past its last sampled benchmark were compiled ahead, not examined for it
        pos = {n: i for i, n in enumerate(d["order"])}
        examined = [n for n in examined if pos[n] <= max(pos[n2] for n2 in sample)]
    tw = Counter(twins[n]["status"] for n in examined if n in twins)
    dropped = d["dropped_rocm_libraries"]
    out = [f"benchmarks with a -cuda folder: {d['benchmarks']}; with a human -hip twin: {d['with_hip_twin']}",
           f"twins dropped for a ROCm library Debian lacks (no compile): {len(dropped)} "
           f"(hipCUB/rocPRIM/rocThrust among them: {len(d['dropped_hipcub_rocthrust'])})",
           f"twins compiled in the seeded order (random.Random({d['seed']})): {len(examined)} examined: "
           + ", ".join(f"{k} {v}" for k, v in sorted(tw.items())),
           f"sample (twin compiles): {len(sample)}", "",
           "| dropped twins, by library (each twin once) | twins |", "|---|---|"]
    out += [f"| {lib} | {n} |" for lib, n in dropouts_by_library(dropped)]
    bad = [n for n in examined if n in twins and twins[n]["status"] != "compiled"]
    if bad:
        why = Counter("timeout" if twins[n]["status"] == "timeout" else
                      f"missing {twins[n]['missing_header']}" if twins[n].get("missing_header") else "other error"
                      for n in bad)
        out += ["", "| twins examined that do not compile here, by cause | twins |", "|---|---|"]
        out += [f"| {k} | {v} |" for k, v in sorted(why.items(), key=lambda kv: (-kv[1], kv[0]))]
        out += ["", "twins examined that do not compile here (out of the sample):"]
        out += [f"- {n}: {(twins[n]['first_error'] or twins[n]['status'])[:200]}" for n in bad]
    # hipify-perl does not depend on porter: where this run has no verdict of its own, session 10's (same HeCBench
    # and hipify-perl commits, same hipcc protocol; data/hecbench_hipify_s10.json) stands in, and is counted apart
    s10 = json.loads((DATA / "hecbench_hipify_s10.json").read_text()) if (DATA / "hecbench_hipify_s10.json").exists() \
        else {"hipify_hipcc": {}, "close_hipify": {}}
    rows, carried = [], 0
    for n in sample:
        if n not in per:
            continue
        r = dict(per[n])
        if "hipify_hipcc" not in r and n in s10["hipify_hipcc"]:
            r["hipify_hipcc"], carried = s10["hipify_hipcc"][n], carried + 1
            if r.get("close") and r["close"].get("hipify") is None:
                r["close"] = {**r["close"], "hipify": s10["close_hipify"].get(n)}
        rows.append(r)
    out += ["", "| measure | benchmarks run | compiled | failed | timeout (600 s) | rate over verdicts |",
            "|---|---|---|---|---|---|"]
    for key, label in (("port_hipcc", "porter port, hipcc gfx90a"),
                       ("port_nvcc", "porter port dual tree, nvcc sm_80 (-cubin: device pass)"),
                       ("port_nvcc_full", "porter port dual tree, nvcc sm_80 (full -c)"),
                       ("hipify_hipcc", "hipify-perl, hipcc gfx90a")):
        st = Counter(r[key]["status"] for r in rows if key in r)
        verdicts = st["compiled"] + st["failed"]
        if not sum(st.values()):
            continue
        out.append(f"| {label} | {sum(st.values())} | {st['compiled']} | {st['failed']} | "
                   f"{st['timeout'] + st['killed']} | {pct(st['compiled'], verdicts)} |")
    if carried:
        out.append(f"\nhipify-perl verdicts carried from session 10 (porter-independent): {carried} of "
                   f"{sum(1 for r in rows if 'hipify_hipcc' in r)}")
    both = [r for r in rows if "hipify_hipcc" in r and "port_hipcc" in r]
    if both:
        pc = sum(1 for r in both if r["port_hipcc"]["status"] == "compiled")
        hc = sum(1 for r in both if r["hipify_hipcc"]["status"] == "compiled")
        out.append(f"\non the {len(both)} benchmarks both ran: porter port compiles {pc}, hipify-perl {hc}")
    for key, orig_key, how in (("port_nvcc", "nvcc_original", "-cubin"), ("port_nvcc_full", "nvcc_full_original", "-c")):
        nv = [r for r in rows if r.get(key, {}).get("status") in ("failed", "timeout")]
        if nv:
            orig = Counter(r.get(orig_key, {}).get("status", "not run") for r in nv)
            out.append(f"\nnvcc {how} non-compiles of the dual tree: {len(nv)}; the CUDA original with nvcc 13 {how} on "
                       "those: " + ", ".join(f"{k} {v}" for k, v in sorted(orig.items())))
    close = [r["close"] for r in rows if r.get("close") and r["close"].get("files")]
    if close:
        out += ["", "| closeness to the human HIP twin (changed lines after normalising) | benchmarks | total | "
                "median per benchmark |", "|---|---|---|---|"]
        for side, label in (("cuda_original", "CUDA original (no port)"), ("porter_port", "porter port"),
                            ("hipify", "hipify-perl")):
            vals = [c[side] for c in close if c.get(side) is not None]
            if vals:
                out.append(f"| {label} | {len(vals)} | {sum(vals)} | {statistics.median(vals)} |")
        out.append(f"| (human twin lines, same files) | {len(close)} | {sum(c['human_lines'] for c in close)} | |")
    fails = d.get("failures", [])
    if fails:
        causes = Counter((f["stage"], f["cause"]) for f in fails)
        out += ["", "| failing units by stage and attribution | unit count |", "|---|---|"]
        out += [f"| {stage} {cause} | {n} |" for (stage, cause), n in sorted(causes.items())]
        out += ["", "failures (stage benchmark unit: attribution; first error):"]
        for f in fails:
            why = f["cause"] + (f" ({f['library']})" if f.get("library") else "") + \
                (f" by {', '.join(f['predicted_by'][:2])}" if f.get("predicted_by") else "")
            out.append(f"- {f['stage']} {f['benchmark']} {f['unit']}: {why}; {f['first_error'][:200]}")
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
           "unpredicted (strict) | toolchain/HIP 5.2 gaps | rate without them |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from cuda_samples import nvrtc_source, summarise
    for key in ("port", "translate"):  # re-summarised without NVRTC kernel sources (a run may predate that rule)
        if d.get(key):
            d[key] = {**summarise([r for r in d[key]["rows"] if not nvrtc_source(r["unit"])]),
                      "of_units": of_units(key, d[key]["of_units"])}
    trees = ("port", "port_gfx942", "port_gfx950", "translate")  # gfx942/gfx950: clang 22's device pass (--gfx)
    for key in trees:
        p = d.get(key)
        if not p:
            continue
        c = p["counts"]
        strict = p.get("unpredicted_rate_strict")
        gap_rate = p.get("compile_rate_supported_hip")
        out.append(f"| {key} | {p['units']}/{p['of_units']} | {c.get('compiled', 0)} | {c.get('system-library', 0)} | "
                   f"{c.get('predicted', 0)} | {c.get('predicted-file', 0)} | {c.get('defect', 0)} | "
                   f"{c.get('timeout', 0)} | {p['compile_rate']:.1%} | {p['unpredicted_rate']:.1%} | "
                   f"{'-' if strict is None else f'{strict:.1%}'} | {p.get('hip52_gaps', '-')} | "
                   f"{'-' if gap_rate is None else f'{gap_rate:.1%}'} |")
    for key in trees:
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
