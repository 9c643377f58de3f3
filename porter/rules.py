"""Load porter's rules from YAML files and validate every one before a scan starts.

A rule is data: rules/<category>/<ID>-<slug>.yaml, checked against porter/schemas/rule.schema.json and then
for what a schema cannot say (the id matches the file name, regexes and tree-sitter queries compile, ids are
unique). A bad file stops the load with a RuleError that names the file and the field.
"""
from __future__ import annotations

import hashlib
import re
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any


from porter.datafile import DATA_DIR, display_path, read_yaml
from porter.errors import DataFileError
from porter.model import Confidence, Severity
from porter.schemas import validator

RULES_DIR = DATA_DIR
# Directories under rules/ that hold data other than rules.
NON_RULE_DIRS = frozenset({"kb", "targets", "effort"})




class RuleError(DataFileError):
    """A rule file that cannot be used, with the file and field that are wrong."""


@dataclass(frozen=True)
class Rule:
    """One validated rule."""

    id: str
    title: str
    category: str
    severity: Severity
    confidence: Confidence
    languages: tuple[str, ...]
    patterns: tuple[dict[str, Any], ...]
    message: str
    docs: dict[str, str]
    hip_equivalent: dict[str, str]
    effort: dict[str, str]
    files: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    verdict: dict[str, Any] | None = None  # kernel-verdict contribution: {default, by_target} (porter.kernels.verdicts)
    source: str = ""  # the rule file, relative to the repository
    target_notes: tuple[tuple[str, str], ...] = ()  # (target predicate, note); see porter.target_notes

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "category": self.category,
            "severity": str(self.severity),
            "confidence": str(self.confidence),
            "languages": list(self.languages),
            "message": self.message,
            "docs": dict(self.docs),
            "hip_equivalent": dict(self.hip_equivalent),
            "effort": dict(self.effort),
            "targets": list(self.targets),
            "references": list(self.references),
            "source": self.source,
        }


def rule_files(directory: Path = RULES_DIR) -> list[Path]:
    return sorted(
        p for p in directory.rglob("*.yaml")
        if p.relative_to(directory).parts[0] not in NON_RULE_DIRS
    )


def load_rule(path: Path, base: Path = RULES_DIR) -> Rule:
    """Load and validate one rule file."""
    raw = read_yaml(path, RuleError)
    if not isinstance(raw, dict):
        raise RuleError(path, "(top level)", "a rule file must be a mapping")
    errors = sorted(validator("rule.schema.json").iter_errors(raw), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        field = ".".join(str(p) for p in e.absolute_path) or "(top level)"
        raise RuleError(path, field, e.message)
    rid = raw["id"]
    if not path.name.startswith(rid + "-"):
        raise RuleError(path, "id", f"{rid!r} does not match the file name (expected {rid}-<slug>.yaml)")
    try:
        rel_parts = path.relative_to(base).parts
    except ValueError:
        rel_parts = ()
    if len(rel_parts) == 2 and rel_parts[0] != raw["category"]:
        raise RuleError(path, "category", f"{raw['category']!r} but the file is in rules/{rel_parts[0]}/")
    for i, pat in enumerate(raw["patterns"]):
        _check_pattern(path, i, pat, raw["languages"])
    _check_message(path, raw["message"])
    source = display_path(path)
    return Rule(
        id=rid,
        title=raw["title"],
        category=raw["category"],
        severity=Severity.parse(raw["severity"]),
        confidence=Confidence.parse(raw["confidence"]),
        languages=tuple(raw["languages"]),
        patterns=tuple(raw["patterns"]),
        message=raw["message"].strip(),
        docs={k: str(v).strip() for k, v in raw["docs"].items()},
        hip_equivalent=dict(raw["hip_equivalent"]),
        effort=dict(raw["effort"]),
        files=tuple(raw.get("files", ())),
        targets=tuple(raw.get("targets", ())),
        references=tuple(raw.get("references", ())),
        tags=tuple(raw.get("tags", ())),
        verdict=raw.get("verdict"),
        source=source,
        target_notes=tuple((n["when"], " ".join(n["note"].split())) for n in raw.get("target_notes", ())),
    )


def _check_message(path: Path, message: str) -> None:
    """A message is filled with str.format_map: only named fields, no positional ones or format specs."""
    try:
        fields = list(string.Formatter().parse(message))
    except ValueError as e:
        raise RuleError(path, "message", f"not a valid template: {e}") from None
    for _, name, spec, conv in fields:
        if name is None:
            continue
        if not name.isidentifier():
            raise RuleError(path, "message", f"{{{name}}} is not a named field (use names such as {{name}}, {{hip}})")
        if spec or conv:
            raise RuleError(path, "message", f"{{{name}}} uses a format spec or conversion, which messages do not take")


def _check_pattern(path: Path, i: int | str, pat: dict, languages: list[str]) -> None:
    from porter.match.registry import MATCHERS

    if isinstance(pat.get("feature"), dict):
        # `feature: {<one pattern kind>, note: ...}` wraps a pattern that must be as valid as a top-level one.
        inner = {k: v for k, v in pat["feature"].items() if k != "note"}
        _check_pattern(path, f"{i}.feature", inner, languages)
    kinds = [k for k in pat if k in MATCHERS]
    unknown = [k for k in pat if k not in MATCHERS and k not in ("in", "not_regex", "flags", "inside_kernel")]
    if unknown:
        raise RuleError(path, f"patterns.{i}", f"unknown pattern key(s) {unknown}; known kinds: {sorted(MATCHERS)}")
    if len(kinds) != 1:
        raise RuleError(path, f"patterns.{i}", f"exactly one pattern kind per entry, found {kinds or 'none'}")
    for key in ("regex", "not_regex"):
        if key in pat:
            try:
                re.compile(pat[key].encode())
            except re.error as e:
                raise RuleError(path, f"patterns.{i}.{key}", f"bad regular expression: {e}") from None
    if "query" in pat:
        from porter.source.parse import query

        for lang in languages:
            if lang not in ("cuda", "python"):
                continue
            try:
                query(lang, pat["query"])
            except Exception as e:  # tree-sitter raises QueryError subclasses with the position
                raise RuleError(path, f"patterns.{i}.query", f"does not compile for {lang}: {e}") from None


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[Rule, ...]
    digest: str  # changes whenever any rule file changes; part of the cache key

    def get(self, rid: str) -> Rule | None:
        return next((r for r in self.rules if r.id == rid), None)


def load_rules(directory: Path = RULES_DIR, extra: list[Path] | None = None) -> RuleSet:
    """Every rule under `directory` (plus extra rule files or directories), validated, sorted by id."""
    paths = rule_files(directory)
    for p in extra or []:
        paths.extend(rule_files(p) if p.is_dir() else [p])
    rules: dict[str, Rule] = {}
    h = hashlib.sha256()
    for p in paths:
        rule = load_rule(p, directory)
        if rule.id in rules:
            raise RuleError(p, "id", f"{rule.id} is already defined in {rules[rule.id].source}")
        rules[rule.id] = rule
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    if not rules:
        # An install without its data (or a wrong directory) must fail loudly, never scan with nothing to find.
        raise RuleError(directory, "<directory>", "no rule files found; porter's data (porter.data) is missing")
    return RuleSet(tuple(sorted(rules.values(), key=lambda r: r.id)), h.hexdigest()[:16])
