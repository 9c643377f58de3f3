"""Load porter's rules from YAML files and validate every one before a scan starts.

A rule is data: rules/<category>/<ID>-<slug>.yaml, checked against porter/schemas/rule.schema.json, each of its
patterns against its kind's schema in porter/schemas/pattern-kinds.json (porter.match.registry), and then for what
a schema cannot say (the id matches the file name, a pattern's kind can hit in the rule's languages, tree-sitter
queries compile, ids are unique). A bad file stops the load with a RuleError that names the file and the field.
"""
from __future__ import annotations

import difflib
import hashlib
import re
import string
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from porter import validated
from porter.datafile import DATA_DIR, check_numbers, display_path, read_data, rule_files, yaml_document
from porter.errors import DataFileError
from porter.model import Confidence, Severity
from porter.schemas import validator

if TYPE_CHECKING:
    from porter.budget import Budget

RULES_DIR = DATA_DIR


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
    external: bool = False  # from outside porter's own data (a repository's or a user's rule file)

    @property
    def has_query(self) -> bool:
        """Whether a pattern, at any depth, is a tree-sitter query."""
        def walk(v: Any) -> bool:
            if isinstance(v, dict):
                return "query" in v or any(walk(x) for x in v.values())
            return isinstance(v, list) and any(walk(x) for x in v)
        return walk(list(self.patterns))

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


def load_rule(path: Path, base: Path = RULES_DIR, *, linear: bool | None = None, budget: Budget | None = None) -> Rule:
    """Load and validate one rule file. With `linear` (the default for a file outside porter's own data) every
    regular expression must run on the linear-time engine, so a repository's rule cannot stall a scan; a file
    outside porter's own data also has its tree-sitter queries compiled in a budgeted worker (`budget`, by default
    porter.budget's per-task default)."""
    return _load_rule(path, base, linear, budget)[0]


# A tree-sitter query longer than this is refused before it is compiled: porter's own longest is under 4 KiB, and
# compiling costs grow much faster than the text (two small nested queries took 7 s).
MAX_QUERY_BYTES = 64 * 1024


def _load_rule(path: Path, base: Path, linear: bool | None, budget: Budget | None = None) -> tuple[Rule, bytes]:
    """load_rule, and the bytes it read (the rule set's digest is of them: the file is not read again for it)."""
    data = read_data(path, RuleError)
    raw = yaml_document(data, RuleError, path)
    if not isinstance(raw, dict):
        raise RuleError(path, "(top level)", "a rule file must be a mapping")
    check_numbers(raw, RuleError, path)
    # porter's own rule, byte for byte as the test suite validated it: the schema and pattern checks would pass.
    checked = validated.trusted(path)
    errors = [] if checked else sorted(validator("rule.schema.json").iter_errors(raw), key=lambda e: list(e.absolute_path))
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
    if not checked:
        external = not _is_shipped(path)
        if linear is None:
            linear = external
        queries: list[tuple[str, str, str]] = []
        for i, pat in enumerate(raw["patterns"]):
            _check_pattern(path, f"patterns.{i}", pat, raw["languages"], queries=queries)
            _check_regexes(path, f"patterns.{i}", pat, linear)
        _check_message(path, raw["message"])
        _check_queries(path, rid, queries, budget if external else None, external)
    source = display_path(path)
    rule = Rule(
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
        external=not checked and not _is_shipped(path),
    )
    return rule, data


# Pattern options whose value is a regular expression (any pattern kind, at any depth).
REGEX_OPTIONS = frozenset({"regex", "not_regex", "matches", "key_matches", "tensor_matches", "later", "not_later"})


def _is_shipped(path: Path) -> bool:
    from porter.datafile import data_relative

    try:
        return data_relative(path) is not None
    except OSError:
        return False


def _check_regexes(path: Path, field: str, value: Any, linear: bool) -> None:
    """Every regex option compiles (the schema's `format: regex` covers only some of them) and, for a rule from
    outside porter, runs on the linear-time engine."""
    from porter.match.regex import linear_problem

    if isinstance(value, list):
        for i, v in enumerate(value):
            _check_regexes(path, f"{field}.{i}", v, linear)
        return
    if not isinstance(value, dict):
        return
    for key, v in value.items():
        where = f"{field}.{key}"
        if key in REGEX_OPTIONS and isinstance(v, str):
            flags = tuple(value.get("flags", ())) + (("ignorecase",) if value.get("ignorecase") else ())
            try:
                compiled = re.compile(v)
            except (re.error, RecursionError, OverflowError) as e:
                raise RuleError(path, where, f"bad regular expression: {e}") from None
            if key in ("later", "not_later") and "name" not in compiled.groupindex:
                raise RuleError(path, where, "needs a `name` group (the text compared with each match's `hit`)")
            problem = linear_problem(v, flags) if linear else None
            if problem:
                raise RuleError(path, where, problem)
        else:
            _check_regexes(path, where, v, linear)


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


def _check_pattern(path: Path, field: str, pat: dict, languages: list[str], nested: bool = False,
                   queries: list[tuple[str, str, str]] | None = None) -> None:
    """One pattern object against its kind's declaration in porter.match.registry: exactly one kind, a value and
    options its schema accepts, a kind that can hit in one of `languages`, and regexes and queries that compile
    (with `queries`, each tree-sitter query is added there as (field, language, query) for _check_queries to
    compile, instead of compiled here). A nested pattern (inside feature or embedded_cuda) takes no modifiers and
    runs on CUDA only."""
    from porter.match.registry import KINDS, MODIFIERS, pattern_validator

    kinds = [k for k in pat if k in KINDS]
    if not kinds:
        known_keys = set(MODIFIERS).union(*(k.options for k in KINDS.values()))
        unknown = [k for k in pat if k not in known_keys]
        problem = f"unknown pattern key(s) {unknown}" if unknown else f"no pattern kind among {sorted(pat)}"
        raise RuleError(path, field, f"{problem}; known kinds: {sorted(KINDS)}")
    if len(kinds) != 1:
        raise RuleError(path, field, f"exactly one pattern kind per entry, found {kinds}")
    kind = KINDS[kinds[0]]
    errors = sorted(pattern_validator(kind.name, nested).iter_errors(pat), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        e = errors[0]
        where = ".".join([field, *(str(p) for p in e.absolute_path)])
        raise RuleError(path, where, _schema_problem(e))
    if "rocm" in pat:
        from porter.rocm import load_versions

        fact = next(iter(pat["rocm"].values()))
        if fact not in load_versions().facts:
            raise RuleError(path, f"{field}.rocm", f"no HIP fact {fact!r} in rules/kb/hip_versions.yaml (known: "
                                                   f"{', '.join(sorted(load_versions().facts))})")
    if kind.name == "feature":
        inner = {k: v for k, v in pat["feature"].items() if k != "note"}
        wrapped = [k for k in inner if k in KINDS]
        if len(wrapped) == 1 and "cuda" not in KINDS[wrapped[0]].languages:
            raise RuleError(path, f"{field}.feature", f"wraps {wrapped[0]!r}, which does not match C/C++/CUDA code; "
                                                      f"feature takes a CUDA kind such as regex or identifiers")
        _check_pattern(path, f"{field}.feature", inner, ["cuda"], nested=True, queries=queries)
    if not kind.languages & set(languages):
        raise RuleError(path, f"{field}.{kind.name}", f"matches only {', '.join(sorted(kind.languages))} files, "
                                                      f"none of the languages it runs on ({', '.join(languages)})")
    if kind.name == "embedded_cuda" and "match" in pat["embedded_cuda"]:
        _check_pattern(path, f"{field}.embedded_cuda.match", pat["embedded_cuda"]["match"], ["cuda"], nested=True,
                       queries=queries)
    if kind.name == "query":
        compile_here = queries is None
        queries = [] if queries is None else queries
        for lang in languages:
            if lang in ("cuda", "python"):
                queries.append((f"{field}.query", lang, pat["query"]))
        if compile_here:
            _check_queries(path, "", queries, None, False)


def _compile_queries(queries: list[tuple[str, str, str]]) -> tuple[str, str] | None:
    """Compile each (field, language, query); the first that does not compile as (field, problem), else None."""
    from porter.source.parse_queries import query

    for field, lang, source in queries:
        try:
            query(lang, source)
        except Exception as e:  # noqa: BLE001 - tree-sitter raises QueryError subclasses with the position
            return field, f"does not compile for {lang}: {e}"
    return None


def _check_queries(path: Path, rid: str, queries: list[tuple[str, str, str]], budget: Budget | None,
                   external: bool) -> None:
    """Every tree-sitter query of a rule compiles. A query's text is bounded; a rule from outside porter's own
    data (a repository's or a user's) has its queries compiled in one budgeted worker (porter.budget), all of them
    within one task's time, since compiling a nested query can take minutes and no Python timer stops it."""
    if not queries:
        return
    for field, _, source in queries:
        size = len(source.encode("utf-8", "surrogatepass"))
        if size > MAX_QUERY_BYTES:
            raise RuleError(path, field, f"the tree-sitter query is {size // 1024} KiB; a query may be at most "
                                         f"{MAX_QUERY_BYTES // 1024} KiB")
    if not external:
        failed = _compile_queries(queries)
    else:
        from porter.budget import Budget, Overrun, run_stage

        answer = run_stage(_compile_queries, (queries,), budget or Budget())
        if isinstance(answer, Overrun):
            field = queries[0][0] if len({q[0] for q in queries}) == 1 else "patterns"
            what = f"rule {rid}: its tree-sitter query"
            if answer.kind == "died":
                raise RuleError(path, field, f"{what} could not be compiled: {answer.reason}")
            raise RuleError(path, field, f"{what} {answer.reason} to compile")
        failed = answer
    if failed is not None:
        raise RuleError(path, failed[0], failed[1])


def _schema_problem(error) -> str:
    """A schema error as a rule author can act on it: an unknown key names the closest known one."""
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted(error.schema.get("properties", {}))
        problems = []
        for key in sorted(k for k in error.instance if k not in allowed):
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(allowed)}"
            problems.append(f"unknown key {key!r} ({hint})")
        return "; ".join(problems)
    if error.validator == "format" and error.validator_value == "regex":
        return f"bad regular expression: {error.cause}"
    return error.message


def _load_shared(path: Path, directory: Path, budget: Budget | None, spent: list[float]) -> tuple[Rule, bytes]:
    """_load_rule, a rule from outside porter's data given what is left of one budget shared by all of them: a
    repository may name thousands of rule files, and one budget each would let them hold a scan for hours."""
    if budget is None or not budget.seconds or _is_shipped(path):
        return _load_rule(path, directory, None, budget)
    import dataclasses
    import time

    # Spent already: a rule with queries gets a moment, overruns and is named by its field as any overrun is (one
    # without queries compiles nothing and still loads).
    left = max(budget.seconds - spent[0], 0.001)
    started = time.monotonic()
    try:
        return _load_rule(path, directory, None, dataclasses.replace(budget, seconds=left))
    except RuleError as e:
        if left < budget.seconds and time.monotonic() - started >= left:
            raise RuleError(path, e.field, f"rule {path.name.split('-')[0]}: the tree-sitter queries of the rules "
                                           f"from outside porter's data took longer than {budget.seconds:g} s in "
                                           "all to compile") from None
        raise
    finally:
        spent[0] += time.monotonic() - started


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[Rule, ...]
    digest: str  # changes whenever any rule file changes; part of the cache key

    def get(self, rid: str) -> Rule | None:
        return next((r for r in self.rules if r.id == rid), None)


def load_rules(directory: Path = RULES_DIR, extra: list[Path] | None = None, budget: Budget | None = None) -> RuleSet:
    """Every rule under `directory` (plus extra rule files or directories), validated, sorted by id; `budget` is
    what compiling the tree-sitter queries of one rule from outside porter's data may take."""
    paths = rule_files(directory)
    for p in extra or []:
        paths.extend(rule_files(p) if p.is_dir() else [p])
    rules: dict[str, Rule] = {}
    h = hashlib.sha256()
    spent = [0.0]  # seconds the rules from outside porter's data took, all of them within one budget
    for p in paths:
        rule, data = _load_shared(p, directory, budget, spent)
        if rule.id in rules:
            raise RuleError(p, "id", f"{rule.id} is already defined in {rules[rule.id].source}")
        rules[rule.id] = rule
        h.update(p.name.encode() + b"\0" + data)
    if not rules:
        # An install without its data (or a wrong directory) must fail loudly, never scan with nothing to find.
        raise RuleError(directory, "<directory>", "no rule files found; porter's data (porter.data) is missing")
    return RuleSet(tuple(sorted(rules.values(), key=lambda r: r.id)), h.hexdigest()[:16])
