"""One finding per spot (refine's last step) and the rule-precedence table it reads (rules/kb/precedence.yaml).

9. Duplicates: where two rules report the same spot, only the most specific one is kept (rules/kb/precedence.yaml: DEV007's
   "wgmma: rewrite with CK" over DEV001's "inline PTX", API006's "no drop-in" over LIB001's "drop-in", DEV002's
   "32-bit mask" over API004's "same name in HIP"), and the dropped findings' facts are merged into its `data` under
   `also` ("RULE: message", sorted), so nothing the dropped rule knew is lost.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from porter.datafile import DATA_DIR, read_yaml
from porter.errors import DataFileError
from porter.match.draft import Draft


PRECEDENCE_FILE = DATA_DIR / "kb" / "precedence.yaml"
_RULE_ID = re.compile(r"[A-Z]{3}[0-9]{3}")


class PrecedenceError(DataFileError):
    """rules/kb/precedence.yaml cannot be used."""


@functools.lru_cache(maxsize=4)
def specific(path: Path = PRECEDENCE_FILE) -> dict[str, tuple[str, ...]]:
    """General rule -> the rules that, hitting the same spot, say the same thing more specifically (the general
    one yields), in the file's order: the table rules/kb/precedence.yaml holds as data."""
    raw = read_yaml(path, PrecedenceError)
    table = raw.get("specific") if isinstance(raw, dict) else None
    if not isinstance(table, dict) or not table:
        raise PrecedenceError(path, "specific", "must be a non-empty mapping of rule id -> [more specific rule ids]")
    out: dict[str, tuple[str, ...]] = {}
    for general, rules in table.items():
        if not isinstance(general, str) or not _RULE_ID.fullmatch(general):
            raise PrecedenceError(path, f"specific.{general}", "a key is a rule id (three capitals, three digits)")
        if not isinstance(rules, list) or not all(isinstance(r, str) and _RULE_ID.fullmatch(r) for r in rules):
            raise PrecedenceError(path, f"specific.{general}", "must be a list of rule ids")
        if general in rules:
            raise PrecedenceError(path, f"specific.{general}", "a rule cannot be more specific than itself")
        out[general] = tuple(rules)
    return out


def one_per_spot(findings: list[Draft]) -> list[Draft]:
    """Drop a general rule's finding where a more specific rule (`specific()`) hit an overlapping span on the same
    lines; the kept finding records the dropped ones under data `also`. Input and output sorted."""
    by_rule: dict[str, list[Draft]] = {}
    for f in findings:
        by_rule.setdefault(f.rule, []).append(f)
    table = specific()
    if not any(r in by_rule and any(s in by_rule for s in table[r]) for r in table):
        return findings
    drop: set[int] = set()
    merged: dict[int, list[str]] = {}
    index = {id(f): i for i, f in enumerate(findings)}
    for general, specifics in table.items():
        for g in by_rule.get(general, ()):
            for rule in specifics:
                keeper = next((s for s in by_rule.get(rule, ()) if _overlap(g, s)), None)
                if keeper is not None:
                    drop.add(index[id(g)])
                    merged.setdefault(index[id(keeper)], []).append(f"{g.rule}: {g.message}")
                    break
    out = []
    for i, f in enumerate(findings):
        if i in drop:
            continue
        if i in merged:
            data = dict(f.data)
            also = sorted(set(merged[i]) | set(filter(None, str(data.get("also", "")).split("\n"))))
            data["also"] = "\n".join(also)
            f = f._replace(data=tuple(sorted(data.items())))
        out.append(f)
    return out


def _overlap(a: Draft, b: Draft) -> bool:
    """Same spot: the line ranges meet, and on a shared single line the column spans meet too."""
    if a.path != b.path or a.end_line < b.line or b.end_line < a.line:
        return False
    if a.line == a.end_line == b.line == b.end_line:
        return a.column < b.end_column and b.column < a.end_column
    return True
