"""Show a translation: per-file and total statistics as rich tables, every unconverted name, what is left to do by
hand, and verification.

Renders onto a Console the caller owns (cli.py decides where it goes); `to_json` gives the JSON document. A note
that repeats (the same rule and message at several places) is printed once, with where it occurs and in how many
files. "Unconverted" counts CUDA names left in the output; "by hand" counts what the output still needs a person for
(inline PTX, a 64-bit ballot held in 32 bits: porter.translate.byhand), so a tree whose every name was converted does
not read as done.
"""
from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table

from porter.render.figures import plural
from porter.render.safe import literal, literal_name

from porter.translate.model import TranslationResult
from porter.translate.write import UndoReport


def to_json(result: TranslationResult) -> str:
    return json.dumps(result.to_dict(), indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def _engine_line(result: TranslationResult) -> str:
    e = result.engine
    parts = [f"engine: {e.name}"]
    if e.version:
        parts.append(f"version {e.version}")
    if e.path:
        parts.append(e.path)
    line = ", ".join(parts)
    return line + (f" ({e.note})" if e.note else "")


def render_console(result: TranslationResult, out: Console, verbose: bool = False) -> None:
    out.print(literal(_engine_line(result)))
    t = Table(title=literal_name(f"Translation of {result.root}"), title_justify="left")
    t.add_column("file", overflow="fold", ratio=1)
    for col in ("status", "lines", "converted", "unconverted", "by hand", "warnings"):
        t.add_column(col, justify="left" if col == "status" else "right", no_wrap=True)
    for ft in result.files:
        if not verbose and ft.status == "unchanged" and not ft.unconverted and not ft.warnings and not ft.by_hand:
            continue
        t.add_row(literal_name(ft.path), ft.status, str(ft.lines), str(ft.converted_total), str(len(ft.unconverted)),
                  str(len(ft.by_hand)), str(len(ft.warnings)))
    tot = result.totals()
    t.add_section()
    t.add_row(f"total: {tot['files']} files", "", str(tot["lines"]), str(tot["converted"]), str(tot["unconverted"]),
              str(tot["by_hand"]), str(tot["warnings"]))
    out.print(t)
    out.print("files: " + ", ".join(f"{k} {v}" for k, v in tot["files_by_status"].items())
              + "; converted by kind: " + (", ".join(f"{k} {n}" for k, n in tot["converted_by_kind"].items()) or "none"),
              markup=False)
    unconverted = [f for ft in result.files for f in ft.unconverted]
    if unconverted:
        u = Table(title=f"Unconverted CUDA references ({len(unconverted)})", title_justify="left")
        for col in ("where", "rule", "name", "reason"):
            u.add_column(col, overflow="fold")
        for (rule, name, message), fs in grouped(unconverted, lambda f: (f.rule, dict(f.data).get("name", ""), f.message)):
            u.add_row(literal_name(places(fs)), literal(rule), literal_name(name), literal(message))
        out.print(u)
    by_hand = [f for ft in result.files for f in ft.by_hand]
    if by_hand:
        h = Table(title=f"Left to do by hand ({len(by_hand)} in {plural(len({f.path for f in by_hand}), 'file')})",
                  title_justify="left")
        for col in ("where", "rule", "what"):
            h.add_column(col, overflow="fold")
        for (rule, message), fs in grouped(by_hand, lambda f: (f.rule, f.message)):
            h.add_row(literal_name(places(fs)), literal(rule), literal(message))
        out.print(h)
    if not unconverted and not by_hand and result.files:
        out.print("Every CUDA name was converted and porter's device rules find nothing left to do by hand in the "
                  "output; compile it (--verify) and test it on the target.", markup=False)
    warnings = [f for ft in result.files for f in ft.warnings]
    if warnings:
        if verbose:
            w = Table(title=f"Warnings ({len(warnings)})", title_justify="left")
            for col in ("where", "rule", "message"):
                w.add_column(col, overflow="fold")
            for (rule, message), fs in grouped(warnings, lambda f: (f.rule, f.message)):
                w.add_row(literal_name(places(fs)), literal(rule), literal(message))
            out.print(w)
        else:
            by = ", ".join(f"{k} {v}" for k, v in tot["warnings_by_rule"].items())
            out.print(literal(f"{len(warnings)} warnings ({by}); -v lists them"))
    if result.skipped:
        out.print(literal_name(f"skipped {len(result.skipped)}: " + "; ".join(f"{s.path} ({s.reason})" for s in result.skipped)))
    write = result.extra.get("write")
    if write:
        if write["mode"] == "outdir":
            out.print(literal_name(f"wrote {len(write['written'])} translated and {write['copied']} unchanged files, "
                               f"{len(write['links'])} symlinks to {write['target']}"))
        elif write["written"]:
            out.print(literal_name(f"rewrote {len(write['written'])} files in place; originals backed up in {write['backup']}"))
        else:
            out.print("nothing to rewrite in place", markup=False)
        for s in write["skipped"]:
            out.print(literal_name(f"  {s['path']}: {s['reason']}"))
    ver = result.extra.get("verify")
    if ver:
        render_verification(ver, out)


def grouped(findings, key) -> list[tuple[tuple, list]]:
    """Findings with the same key (rule and message, say) together, in the order of their first place."""
    groups: dict[tuple, list] = {}
    for f in findings:
        groups.setdefault(key(f), []).append(f)
    return list(groups.items())


def places(fs, shown: int = 3) -> str:
    """'src/a.cu:48' for one place; 'src/a.cu:48 (2×)' for one line twice; '5 places in 2 files: a.cu:11, a.cu:25,
    b.cu:3 +2' for a note that repeats."""
    where = list(dict.fromkeys(f"{f.path}:{f.line}" for f in fs))
    if len(where) == 1:
        return where[0] + (f" ({len(fs)}×)" if len(fs) > 1 else "")
    files = len({f.path for f in fs})
    head = ", ".join(where[:shown]) + (f" +{len(where) - shown}" if len(where) > shown else "")
    return f"{len(where)} places in {plural(files, 'file')}: {head}"


def render_verification(ver: dict, out: Console) -> None:
    c = ver.get("compiler")
    if c is None:
        out.print(literal(f"verify: skipped: {ver.get('note')}"))
        return
    out.print(literal(f"verify: {c['kind']} {c['path']} --offload-arch={c['arch']} ({c['version']}"
                      + (f", HIP {c['hip_version']}" if c.get("hip_version") else "") + f"): {c['note']}"))
    t = Table(title="Compile check", title_justify="left")
    for col in ("file", "result", "first error", "predicted by porter"):
        t.add_column(col, overflow="fold")
    for f in ver["files"]:
        pred = "" if f["status"] == "compiled" else ("yes: " + "; ".join(f["predicted_by"]) if f["predicted"]
                                                     else f"no — environment: {f['environment']}" if f.get("environment")
                                                     else "no — translation defect")
        t.add_row(literal_name(f["path"]), f["status"], literal(f["error"] or ""), literal(pred))
    out.print(t)
    s = ver["summary"]
    rate = f"; compile rate {s['compile_rate']:.0%} of the units this machine can build" if s.get("compile_rate") is not None else ""
    out.print(f"{s['compiled']} compiled, {s['failed']} failed ({s.get('predicted', s['failed_predicted'])} predicted by a "
              f"porter finding, {s.get('environment', 0)} environment, {s.get('defect', s['failed_unpredicted'])} "
              f"translation defects){rate}", markup=False)


def render_undo(report: UndoReport, out: Console) -> None:
    """What `porter translate --undo` put back, file by file."""
    out.print(literal_name(f"restored {len(report.restored) + len(report.overwritten)} file(s) from {report.backup}"))
    for rel in report.restored:
        out.print(literal_name(f"  restored {rel}"))
    for rel in report.overwritten:
        out.print(literal_name(f"  restored {rel} (over edits made since porter wrote it: --force)"))
    for rel in report.unchanged:
        out.print(literal_name(f"  {rel}: already the original"))
