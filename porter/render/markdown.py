"""Render an assessment as Markdown a reader can paste into an issue or wiki: summary first, tables, then details.

Figures are engineer-days except where a column says hours; breakdown rows are apportioned so each table adds up
to the total above it (porter.render.figures).
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from porter.estimate import KERNEL_VERDICTS, VERDICT_MEANING, Assessment
from porter.model import Finding, ScanResult
from porter.render.figures import POINTS, apportion_points, days_range, directory_rows, num, plural, shown_rows
from porter.render.safe import html_text, md_code, md_text

BAR_WIDTH = 20


def finding_index(result: ScanResult) -> dict[str, Finding]:
    return {f.fingerprint: f for f in result.findings}


def item_locations(item: dict[str, Any], index: dict[str, Finding]) -> list[str]:
    """The `path:line` of an item's findings, each once, in path and line order."""
    where = {(index[fp].path, index[fp].line) for fp in item["findings"] if fp in index}
    return [f"{p}:{n}" for p, n in sorted(where)]


def bar(value: float, top: float, width: int = BAR_WIDTH) -> str:
    if top <= 0 or value <= 0:
        return ""
    eighths = round(value / top * width * 8)
    full, rest = divmod(max(1, eighths), 8)
    return "█" * full + ("▏▎▍▌▋▊▉"[rest - 1] if rest else "")


def _h(h: dict[str, float]) -> str:
    return f"{num(h['low'])}–{num(h['likely'])}–{num(h['high'])}"


def render(result: ScanResult, a: Assessment, explain: bool = False) -> str:
    d = a.to_dict()
    out: list[str] = []
    w = out.append
    targets = ", ".join(f"{t['name']} ({t['gfx']})" for t in d["targets"])
    w(f"# Porting assessment: {md_code(str(result.root))}")
    w("")
    w(f"**Verdict: {a.verdict.upper()}** — {VERDICT_MEANING[a.verdict]}.  ")
    if a.nothing_to_port:
        w("**Nothing to port.**  ")
    else:
        w(f"**Effort: {days_range(d['effort'])}**  ")
    for extra in (d["handled"], d["optional"], d["scope"]["parity"], d["tuning"]):
        if extra:
            w(f"{md_text(extra['text'])}  ")
    w(f"Targets: {targets}")
    w("")
    if a.nothing_to_port:  # otherwise the headline would state the verdict and effort a second time
        w(f"> {md_text(a.headline)}")
        w("")
    if a.deciding and not a.nothing_to_port:
        w("## What decides it")
        w("")
        for r in a.deciding:
            examples = ", ".join(md_code(e) for e in r.examples)
            what = plural(r.count, "kernel") if r.key.startswith("kernels:") else plural(r.count, "finding")
            w(f"- **{md_text(r.title)}** — {what} in {plural(r.files, 'file')}; e.g. {examples}")
        others = [r for r in a.reasons if r.level != a.verdict]
        if others:
            w("")
            w("Also found: " + "; ".join(f"{md_text(r.title)} ({r.level}, {r.count})" for r in others) + ".")
        w("")
    if a.nothing_to_port:
        w("porter found no CUDA code, CUDA libraries, NVIDIA-only files or build settings here. "
          "The repository should run on the target as it is; validate it there before relying on it.")
        w("")
        _assumptions(w, d)
        return "\n".join(out).rstrip() + "\n"
    if len(d["targets"]) > 1:
        w("## Per target")
        w("")
        w("| target | gfx | verdict | effort | decided by |")
        w("|---|---|---|---|---|")
        for t in d["targets"]:
            w(f"| {md_text(t['name'])} | {t['gfx']} | {t['verdict']} | {days_range(t['effort'])} | {md_text('; '.join(t['deciding'][:2]))} |")
        w("")
    split = d["breakdowns"]["hipify"]
    w("## Summary")
    w("")
    w("| | findings | lines | files |")
    w("|---|---:|---:|---:|")
    for key, label in (("free_with_hipify", "Free with hipify"), ("needs_engineer", "Needs an engineer"),
                       ("informational", "Informational")):
        v = split[key]
        w(f"| {label} | {v['findings']} | {v['lines']} | {v['files']} |")
    s = result.summary()
    w(f"| **All findings** | {s['findings']} | | {len({f.path for f in result.findings})} |")
    w("")
    w(f"{split['free_share'] * 100:.0f}% of findings are translated by hipify without an engineer. "
      f"{plural(s['kernels'], 'kernel')}, {plural(s['launches'], 'launch site')}; "
      f"{plural(s['suppressed'], 'suppressed finding')}; {plural(len(result.skipped), 'file')} skipped.")
    w("")
    cats = d["breakdowns"]["by_category"]
    shown = shown_rows(cats, d["effort"], "category")
    top = max((r.days["likely"] for r in shown), default=0)
    w("## Effort by category")
    w("")
    w("Engineer-days; the rows add up to the total (each rounded once, at the end).")
    w("")
    w("| category | findings | engineer-days (low–likely–high) | |")
    w("|---|---:|---|---|")
    for r in shown:
        w(f"| {r.label} | {r.source['findings']} | {_h(r.days)} | {bar(r.days['likely'], top)} |")
    w(f"| **total** | {sum(c['findings'] for c in cats)} | **{_h(d['effort'])}** | |")
    w("")
    dirs = d["breakdowns"]["by_directory"]
    if len(dirs) > 1:
        w("## Effort by directory")
        w("")
        w("Rolled up the tree: a directory's figures include everything below it, and its subdirectories plus what "
          "sits directly in it add up to it; `.` includes repository-wide jobs.")
        w("")
        w("| directory | findings | files | engineer-days (low–likely–high) |")
        w("|---|---:|---:|---|")
        for r in directory_rows(dirs, d["effort"], max_depth=3):
            indent = "&nbsp;&nbsp;" * r.depth
            if r.source is None:
                w(f"| {indent}{md_text(r.label)} | | | {_h(r.days)} |")
            else:
                w(f"| {indent}{md_code(r.label)} | {r.source['findings']} | {r.source['files']} | {_h(r.days)} |")
        w("")
    kernels = d["breakdowns"]["by_kernel"]
    if kernels:
        tids = [t["id"] for t in d["targets"]]
        hpd = d["model"]["hours_per_day"]
        ordered = sorted(kernels, key=lambda r: (-KERNEL_VERDICTS.index(r["worst"]), -r["hours"]["likely"], r["path"], r["line"]))
        ktotal = {p: round(sum(k["hours"][p] for k in kernels) / hpd, 1) for p in POINTS}
        kdays = shown_rows(ordered, ktotal, "qualified_name")
        w("## Kernels")
        w("")
        w("Verdict per target: ok (hipify suffices) · check (verify numerically) · retune (tuned for NVIDIA) · "
          "fix (wrong or no compile without edits) · rewrite (no equivalent on the target).")
        w("")
        w("| kernel | location | lines | " + " | ".join(tids) + " | top reason | engineer-days (likely) |")
        w("|---|---|---:|" + "---|" * len(tids) + "---|---:|")
        for r in kdays:
            k = r.source
            worst = k["targets"][k["worst_target"]]
            reason = (worst["reasons"] or [""])[0]
            verdicts = " | ".join(k["targets"][t]["verdict"] for t in tids)
            w(f"| {md_code(k['qualified_name'])} | {md_code(str(k['path']) + ':' + str(k['line']))} | {k['lines']} | {verdicts} | {md_text(reason)} | {num(r.days['likely'])} |")
        w(f"| **all kernels** | | |" + " |" * len(tids) + f" | **{num(ktotal['likely'])}** |")
        w("")
    libs = d["breakdowns"]["by_library"]
    if libs:
        w("## Libraries")
        w("")
        w("| library | kind | ROCm replacement | findings | files | engineer-days (likely) |")
        w("|---|---|---|---:|---:|---:|")
        for lib in libs:
            w(f"| {md_text(lib['name'])} | {lib['kind']} | {md_text(', '.join(lib['rocm']) or '—')} | {lib['findings']} | {lib['files']} | {num(lib['days']['likely'])} |")
        w("")
    recs = d["recommendations"]
    if recs:
        w("## Recommendations")
        w("")
        for rec in recs:
            label = {"blocker": "Blocker", "library": "Library", "topic": "Target fact"}[rec["kind"]]
            w(f"### {label}: {md_text(rec['title'])}")
            w("")
            if rec["text"]:
                w(md_text(rec["text"]))
                w("")
            for step in rec.get("plan", []):
                w(f"Plan: **{md_text(step['title'])}** — {num(step['days']['low'])}–{num(step['days']['high'])} engineer-days "
                  f"(likely {num(step['days']['likely'])}), item `{step['item']}`.")
                w("")
            for tid, facts in rec["targets"].items():
                for fact in facts:
                    w(f"- **{tid}**: {md_text(fact)}")
            if rec["targets"]:
                w("")
    w("## How the estimate adds up")
    w("")
    w("Every hour belongs to one item; every item lists the findings it costs (`porter assess --explain` shows them "
      "all, the JSON report has their fingerprints).")
    w("")
    w("| item | category | count | hours (low–likely–high) | basis |")
    w("|---|---|---:|---|---|")
    costed = [it for it in d["items"] if it["hours"]["high"] > 0]
    free = [it for it in d["items"] if it["hours"]["high"] == 0]
    h = {p: round(d["effort"]["hours"][p], 1) for p in POINTS}
    for it, part in zip(costed, apportion_points([it["hours"] for it in costed], h)):
        where = f" ({md_code(it['path'])})" if it["path"] else ""
        w(f"| {md_text(it['title'])}{where} | {it['category']} | {it['count']} | {_h(part)} | {md_text(it['basis'])} |")
    if free:
        w(f"| {plural(len(free), 'item')} at no cost ({plural(sum(it['count'] for it in free), 'finding')} hipify handles) | | | 0 | |")
    w(f"| **Total** | | | **{_h(h)}** | {num(d['model']['hours_per_day'])} h per engineer-day → {days_range(d['effort'])} |")
    w("")
    _assumptions(w, d)
    files = d["breakdowns"]["by_file"]
    if files:
        w("## Files")
        w("")
        # Port status per file, only when the repository has ROCm work done or kept NVIDIA-only (so a plain CUDA
        # repository's report keeps its columns): open / handled / cuda-only findings.
        states: dict[str, Counter[str]] = {}
        for finding in result.findings:
            states.setdefault(finding.path, Counter())[str(finding.status)] += 1
        ported = any(c["handled"] or c["cuda-only"] for c in states.values())
        extra = " open / handled / cuda-only |" if ported else ""
        w("| file | lines | findings | free with hipify | needs an engineer | worst | hours (likely) |" + extra)
        w("|---|---:|---:|---:|---:|---|---:|" + ("---:|" if ported else ""))
        for f in sorted(files, key=lambda r: (-r["hours"]["likely"], r["path"])):
            c = states.get(f["path"], Counter())
            status = f" {c['open']} / {c['handled']} / {c['cuda-only']} |" if ported else ""
            w(f"| {md_code(f['path'])} | {f['lines']} | {f['findings']} | {f['free_with_hipify']} | {f['needs_engineer']} | {f['worst']} | {num(f['hours']['likely'])} |{status}")
        w("")
    if explain:
        _details(w, result, a)
    return "\n".join(out).rstrip() + "\n"


def _assumptions(w, d: dict[str, Any]) -> None:
    w("## Assumptions")
    w("")
    for line in d["assumptions"]:
        w(f"- {md_text(line)}")
    w("")


def _details(w, result: ScanResult, a: Assessment) -> None:
    w("## Findings behind each item")
    w("")
    index = finding_index(result)
    for it in a.items:
        if not it.findings:
            continue
        w(f"<details><summary>{html_text(it.title)}{' — ' + html_text(it.path) if it.path else ''} ({len(it.findings)})</summary>")
        w("")
        w("| location | rule | severity | message | code |")
        w("|---|---|---|---|---|")
        for f in sorted((index[fp] for fp in set(it.findings) if fp in index), key=lambda f: (f.path, f.line, f.column, f.rule)):
            w(f"| {md_code(f'{f.path}:{f.line}')} | {md_text(f.rule)} | {f.severity} | {md_text(f.message)} | {md_code(f.snippet)} |")
        w("")
        w("</details>")
        w("")
