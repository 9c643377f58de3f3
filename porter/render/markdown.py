"""Render an assessment as Markdown a reader can paste into an issue or wiki: summary first, tables, then details.

Figures are engineer-days except where a column says hours; breakdown rows are apportioned so each table adds up
to the total above it (porter.render.figures).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable

from porter.estimate import VERDICT_MEANING, Assessment
from porter.model import Finding, ScanResult
from porter.model.assessment import Range
from porter.model.totals import totals
from porter.render.figures import (KERNEL_DAYS_NOTE, narrowed_note, severity_rows, worst_first, count_rows, counts_of, directory_rows, files_line, others_line, plural, shown_rows,
                                   source_of, unlisted_kernels)
from porter.estimate.wording import days_range, effort_text, num, Points
from porter.render.safe import html_text, md_code, md_text

BAR_WIDTH = 20


def finding_index(result: ScanResult) -> dict[str, Finding]:
    return {f.fingerprint: f for f in result.findings}


def item_locations(item: Any, index: dict[str, Finding]) -> list[str]:
    """The `path:line` of an item's findings (a porter.estimate.cost.Item), each once, in path and line order."""
    where = {(index[fp].path, index[fp].line) for fp in item.findings if fp in index}
    return [f"{p}:{n}" for p, n in sorted(where)]


def bar(value: float, top: float, width: int = BAR_WIDTH) -> str:
    if top <= 0 or value <= 0:
        return ""
    eighths = round(value / top * width * 8)
    full, rest = divmod(max(1, eighths), 8)
    return "█" * full + ("▏▎▍▌▋▊▉"[rest - 1] if rest else "")


def _blank(n: int | None) -> str:
    return "" if n is None else str(n)


def _h(h: Points) -> str:
    return f"{num(h.low)}–{num(h.likely)}–{num(h.high)}"


def title_lines(about: Any, what: str = "Porting assessment") -> list[str]:
    """The title and the line under it: what the report is about (porter.render.about)."""
    out = [f"# {what}: {md_text(about.name)}", ""]
    out.append(md_text(about.line()) + (f" · scanned as {md_code(about.path)}"
                                        if not about.commit and about.path not in (about.name, "") else ""))
    out.append("")
    return out


def render(result: ScanResult, a: Assessment, explain: bool = False, about: Any = None) -> str:
    if about is None:
        from porter.render.about import about as about_of

        about = about_of(result.root, use_git=False)
    by = a.breakdowns
    effort = Range.of(a.days.to_dict())
    out: list[str] = title_lines(about)
    w = out.append
    targets = ", ".join(f"{t.name} ({t.gfx})" for t in a.targets)
    w(f"**Verdict: {a.verdict.upper()}** — {VERDICT_MEANING[a.verdict]}.  ")
    if a.nothing_to_port:
        w("**Nothing to port.**  ")
    else:
        w(f"**Effort: {effort_text(effort, a.hours)}**  ")
    for extra in (a.handled, a.optional, a.parity, a.tuning):
        if extra:
            w(f"{md_text(extra.text)}  ")
    w(f"Targets: {targets}")
    w("")
    if a.nothing_to_port:  # otherwise the headline would state the verdict and effort a second time
        w(f"> {md_text(a.headline)}")
        w("")
    if a.deciding and not a.nothing_to_port:
        w("## What decides it")
        w("")
        for reason in a.deciding:
            examples = ", ".join(md_code(e) for e in reason.examples)
            what = plural(reason.count, "kernel") if reason.key.startswith("kernels:") else plural(reason.count, "finding")
            w(f"- **{md_text(reason.title)}** — {what} in {plural(reason.files, 'file')}; e.g. {examples}")
        others = [o for o in a.reasons if o.level != a.verdict]
        if others:
            w("")
            w("Also found: " + "; ".join(f"{md_text(o.title)} ({o.level}, {o.count})" for o in others) + ".")
        w("")
    if a.nothing_to_port:
        w("porter found no CUDA code, CUDA libraries, NVIDIA-only files or build settings here. "
          "The repository should run on the target as it is; validate it there before relying on it.")
        w("")
        _counts(w, a, result)
        _assumptions(w, a)
        return "\n".join(out).rstrip() + "\n"
    if len(a.targets) > 1:
        w("## Per target")
        w("")
        w("| target | gfx | verdict | effort | decided by |")
        w("|---|---|---|---|---|")
        for t in a.targets:
            w(f"| {md_text(t.name)} | {t.gfx} | {t.verdict} | {days_range(t.effort)} | {md_text('; '.join(t.deciding[:2]))} |")
        w("")
    _counts(w, a, result)
    shown = shown_rows(by.by_category, effort)
    top = max((r.days.likely for r in shown), default=0)
    w("## Effort by category")
    w("")
    w("Engineer-days: each category's share of the headline; the rows add up to the total.")
    w("")
    w("| category | findings | engineer-days (low–likely–high) | |")
    w("|---|---:|---|---|")
    for r in shown:
        w(f"| {r.label} | {source_of(r).findings} | {_h(r.days)} | {bar(r.days.likely, top)} |")
    w(f"| **total** | {counts_of(a).estimated} | **{_h(effort)}** | |")
    w("")
    dirs = by.by_directory
    if len(dirs) > 1:
        w("## Effort by directory")
        w("")
        w("Rolled up the tree: a directory's figures include everything below it, and its subdirectories plus what "
          "sits directly in it add up to it; `.` includes repository-wide jobs.")
        w("")
        w("| directory | findings | files | engineer-days (low–likely–high) |")
        w("|---|---:|---:|---|")
        for d in directory_rows(dirs, effort, max_depth=3):
            indent = "&nbsp;&nbsp;" * d.depth
            if d.source is None:
                w(f"| {indent}{md_text(d.label)} | {_blank(d.findings)} | {_blank(d.files)} | {_h(d.days)} |")
            else:
                w(f"| {indent}{md_code(d.label)} | {d.source.findings} | {d.source.files} | {_h(d.days)} |")
        w("")
    kernels = by.by_kernel
    if kernels:
        tids = [t.id for t in a.targets]
        ktotal = by.totals.kernel_days
        ordered = worst_first(kernels)
        w("## Kernels")
        w("")
        w("Verdict per target: ok (hipify suffices) · check (verify numerically) · retune (tuned for NVIDIA) · "
          "fix (wrong or no compile without edits) · rewrite (no equivalent on the target).")
        w("")
        w(KERNEL_DAYS_NOTE)
        w("")
        w("| kernel | location | lines | " + " | ".join(tids) + " | top reason | engineer-days (likely) |")
        w("|---|---|---:|" + "---|" * len(tids) + "---|---:|")
        for k in ordered:
            top_reason = (k.deciding.reasons or ("",))[0]
            verdicts = " | ".join(k.targets[t].verdict for t in tids)
            w(f"| {md_code(k.qualified_name)} | {md_code(str(k.path) + ':' + str(k.line))} | {k.lines} | {verdicts} | {md_text(top_reason)} | {num(k.share.likely)} |")
        w("| **all kernels** | | |" + " |" * len(tids) + f" | **{num(ktotal.likely)}** |")
        w("")
        unlisted = unlisted_kernels(result.kernels, kernels)
        if unlisted:
            w(md_text(unlisted))
            w("")
    libs = by.by_library
    recs = a.recommendations
    if libs:
        w("## Libraries")
        w("")
        w("| library | kind | ROCm replacement | findings | files | engineer-days (likely, on its own) |")
        w("|---|---|---|---:|---:|---:|")
        for lib in libs:
            w(f"| {md_text(lib.name)} | {lib.kind} | {md_text(', '.join(lib.rocm) or '—')} | {lib.findings} | {lib.files} | {num(lib.days.likely)} |")
        w("")
    if recs:
        w("## Recommendations")
        w("")
        for rec in a.recommendations:
            label = {"blocker": "Blocker", "library": "Library", "topic": "Target fact"}[rec.kind]
            w(f"### {label}: {md_text(rec.title)}")
            w("")
            if rec.text:
                w(md_text(rec.text))
                w("")
            for step in rec.plan:
                w(f"Plan: **{md_text(step.title)}** — {num(step.days.low)}–{num(step.days.high)} engineer-days "
                  f"(likely {num(step.days.likely)}), item `{step.item}`.")
                w("")
            for tid, facts in rec.targets.items():
                for fact in facts:
                    w(f"- **{tid}**: {md_text(fact)}")
            if rec.targets:
                w("")
    w("## How the estimate adds up")
    w("")
    w("Every hour belongs to one item; every item lists the findings it costs (`porter assess --explain` shows them "
      "all, the JSON report has their fingerprints). An item's own estimate is its range alone, as its basis works it "
      "out (the JSON report's `items[].hours`). The total's P10–P90 is narrower than the items' ranges summed, since "
      "they do not all come out low or high at once; each item's share of it is apportioned so that column adds up "
      "to the total.")
    w("")
    w("| item | category | count | own estimate, h (low–likely–high) | share of the total, h (P10–likely–P90) | basis |")
    w("|---|---|---:|---|---|---|")
    shares = by.totals.item_hours
    costed = [it for it in a.items if it.hours.high > 0]
    free = [it for it in a.items if it.hours.high == 0]
    h = by.totals.hours
    for it in costed:
        where = f" ({md_code(it.path)})" if it.path else ""
        w(f"| {md_text(it.title)}{where} | {it.category} | {it.count} | {_h(it.hours)} | {_h(shares[it.id])} | "
          f"{md_text(it.basis)} |")
    if free:
        w(f"| {plural(len(free), 'item')} at no cost ({plural(sum(it.count for it in free), 'finding')} hipify handles) | | | 0 | 0 | |")
    w(f"| **Total** | | | | **{_h(h)}** | {num(a.model.hours_per_day)} h per engineer-day → {days_range(effort)} |")
    w("")
    _assumptions(w, a)
    files = by.by_file
    if files:
        w("## Files")
        w("")
        # Port status per file, only when the repository has ROCm work done or kept NVIDIA-only (so a plain CUDA
        # repository's report keeps its columns): open / handled / cuda-only findings.
        states: dict[str, Counter[str]] = {}
        for finding in result.findings:
            states.setdefault(finding.path, Counter())[str(finding.status)] += 1
        ported = bool(counts_of(a).handled or counts_of(a).cuda_only)
        by_status = " open / handled / cuda-only |" if ported else ""
        w("| file | lines | findings in the estimate | free with hipify | needs an engineer | worst | hours (likely) |" + by_status)
        w("|---|---:|---:|---:|---:|---|---:|" + ("---:|" if ported else ""))
        for f in sorted(files, key=lambda r: (-r.hours.likely, r.path)):
            c = states.get(f.path, Counter())
            status = f" {c['open']} / {c['handled']} / {c['cuda-only']} |" if ported else ""
            w(f"| {md_code(f.path)} | {f.lines} | {f.findings} | {f.free_with_hipify} | {f.needs_engineer} | {f.worst} | {num(f.hours.likely)} |{status}")
        w("")
    if explain:
        _details(w, result, a)
    return "\n".join(out).rstrip() + "\n"


def _counts(w: Callable[[str], None], a: Assessment, result: ScanResult) -> None:
    """The counts, defined once (porter.estimate.counts), in the order and words of every format, then the findings
    shown by status and severity (porter.model.totals: the totals every format prints)."""
    c = counts_of(a)
    w("## Counts")
    w("")
    w("| findings | |")
    w("|---|---:|")
    for label, value, depth in count_rows(c):
        name = ("&nbsp;&nbsp;" * depth) + label
        w(f"| {'**' + name + '**' if label == 'all findings' else name} | {value} |")
    w("")
    free = c.free_with_hipify / c.estimated if c.estimated else 0.0
    w(f"{files_line(c)}. {others_line(c)}."
      + (f" hipify translates {free * 100:.0f}% of the open findings in the estimate." if c.estimated else ""))
    w("")
    t = totals(result)
    sevs, rows = severity_rows(t)
    if (note := narrowed_note(t, c)) is not None:
        w(note)
        w("")
    w("| status | " + " | ".join(sevs) + " | total |")
    w("|---|" + "---:|" * (len(sevs) + 1))
    for label, values, total in rows:
        cells = [label, *map(str, values), str(total)]
        w("| " + " | ".join(f"**{x}**" if label == "all findings" else x for x in cells) + " |")
    w("")


def _assumptions(w: Callable[[str], None], a: Assessment) -> None:
    w("## Assumptions")
    w("")
    for line in a.assumptions:
        w(f"- {md_text(line)}")
    w("")


def _details(w: Callable[[str], None], result: ScanResult, a: Assessment) -> None:
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
