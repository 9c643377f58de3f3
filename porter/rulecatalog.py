"""Describe the rule catalogue for people: the list with fixture coverage, and one rule's documentation."""
from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from porter.datafile import DATA_DIR, DATA_DISPLAY_ROOT, rule_files

if TYPE_CHECKING:  # porter.rules (its schema validator) is loaded by what loads rules, not by every `scan`
    from porter.rules import Rule, RuleSet

# Fixtures live in a checkout beside rules/ and are not installed: from a wheel, coverage is unknown (None). The
# data directory's real location decides: a git worktree whose porter/data is a symlink to ../rules (so that its own
# rules are read) is a checkout too.
_DATA_REAL = Path(os.path.realpath(DATA_DIR))
CHECKOUT_DIR = _DATA_REAL.parent if _DATA_REAL.name == "rules" else None
FIXTURES_DIR = CHECKOUT_DIR / "fixtures" / "rules" if CHECKOUT_DIR is not None else None


def rule_ids(extra: Iterable[Path] = ()) -> frozenset[str]:
    """The ids of porter's rules and of the extra rule files given, from their file names (`<ID>-<slug>.yaml`: the
    loader refuses a file whose id differs), without loading a rule."""
    return frozenset(p.name.split("-", 1)[0] for p in (*rule_files(), *extra) if "-" in p.name)


def fixture_for(rule: Rule, fixtures: Path | None = None) -> Path | None:
    """The annotated sample for a rule: fixtures/rules/<ID>-<slug>.<ext> or a directory of that name (in
    `fixtures`, by default FIXTURES_DIR; None from a wheel)."""
    fixtures = fixtures if fixtures is not None else FIXTURES_DIR
    if fixtures is None or not fixtures.is_dir():
        return None
    stem = Path(rule.source).stem
    hits = sorted(fixtures.glob(stem + ".*")) + sorted(p for p in fixtures.glob(stem) if p.is_dir())
    return hits[0] if hits else None


def catalogue(rs: RuleSet, category: str | None = None) -> dict:
    rules = [r for r in rs.rules if category is None or r.category == category]
    rows = []
    cats: dict[str, dict[str, int]] = {}
    for r in rules:
        fx = fixture_for(r)
        rows.append({**r.to_dict(), "fixture": fx.relative_to(CHECKOUT_DIR).as_posix() if fx else None})
        c = cats.setdefault(r.category, {"rules": 0, "with_fixture": 0})
        c["rules"] += 1
        c["with_fixture"] += 1 if fx else 0
    return {"rules": rows, "categories": dict(sorted(cats.items())), "total": len(rows)}


# The rule files' effort sizes and units (rules/effort/model.yaml `sizes` and `per`) as a person says them.
SIZE_WORDS = {"none": "no", "xs": "extra-small", "s": "small", "m": "medium", "l": "large", "xl": "extra-large"}
PER_WORDS = {"hit": "per occurrence", "file": "per file with an occurrence", "kernel": "per kernel with an occurrence",
             "repo": "once per repository"}


def effort_words(effort: dict) -> str:
    """`{"size": "m", "per": "hit"}` as "medium effort per occurrence"."""
    if effort["size"] == "none":
        return "no effort (a note)"
    return f"{SIZE_WORDS.get(effort['size'], effort['size'])} effort {PER_WORDS.get(effort['per'], 'per ' + effort['per'])}"


def rule_file(rule: Rule) -> Path:
    """The file a rule was loaded from, as a path that exists wherever porter is installed (rule.source says
    `rules/...` for porter's own rules, which is only a path inside a checkout)."""
    prefix = DATA_DISPLAY_ROOT + "/"
    if rule.source.startswith(prefix):
        return _DATA_REAL / rule.source[len(prefix):]
    return Path(rule.source)


def explain(rule: Rule) -> str:
    """ruff-style documentation: what it does, why it matters, what to use instead."""
    hip = rule.hip_equivalent
    lines = [
        f"{rule.id}: {rule.title}",
        f"category {rule.category} · severity {rule.severity} · confidence {rule.confidence} · languages {', '.join(rule.languages)}",
        "",
        "What it does",
        f"  {rule.docs['what']}",
        "",
        "Why is this bad",
        f"  {rule.docs['why']}",
        "",
        "Use instead",
        f"  {rule.docs['instead']}",
    ]
    if rule.docs.get("example"):
        lines += ["", "Example", *("  " + l for l in rule.docs["example"].splitlines())]
    lines += ["", f"ROCm/HIP equivalent: {hip['kind']}" + (f" — {hip['name']}" if hip.get("name") else "")]
    if hip.get("note"):
        lines.append(f"  {hip['note']}")
    lines.append(f"Effort: {effort_words(rule.effort)}")
    if rule.targets:
        lines.append(f"Applies to targets: {', '.join(rule.targets)}")
    if rule.references:
        lines += ["", "References", *(f"  {u}" for u in rule.references)]
    lines += ["", f"Defined in {rule_file(rule)}"]
    return "\n".join(lines)
