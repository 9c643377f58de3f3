"""Run rules over one parsed file and turn their hits into Findings, honouring inline suppressions.

A suppression is a comment `porter: ignore[ID1,ID2] reason` (or a bare `porter: ignore`) on the finding's line
or the line above. Suppressed findings are returned separately, never dropped, so the summary can count them.
Before fingerprints are taken, porter.match.refine drops dead-branch hits and keeps one finding per spot; until
then a finding is a Draft (porter.match.draft), built and sorted in C, and each Finding is made once, at the end.
"""
from __future__ import annotations

import bisect
import fnmatch
import hashlib
import re
from itertools import chain
from pathlib import PurePosixPath
from typing import Callable, Iterable, Iterator, NamedTuple

from porter.match.base import per_object
from porter.match.regex import Backtracked
from porter.match.registry import MATCHERS, Hit, MatchContext, Matcher, kind_of
from porter.match.kinds.code_device import in_device_code, logical_warp32, warp_dependent
from porter.match.kinds.code_regex import compile_regex, may_fire, regex_gate, register_regexes
from porter.match.refine import refine
from porter.match.refine_preprocessor import dead_lines
from porter.match.tokens import has_tokens, required_tokens
from porter.match.draft import Draft
from porter.model import Finding, Status
from porter.source.linecode import code_words
from porter.source.parse import SourceFile
from porter.source.parse_queries import register_root_query
from porter.render.safe import one_line, printable
from porter.rules import Rule

_SUPPRESS = re.compile(rb"porter:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")
# One rule hitting a file more often than this is a pattern matching everything or a generated file: the first
# MAX_HITS_PER_RULE are kept and one more finding says how many were left out (a report of a million is no report).
MAX_HITS_PER_RULE = 1000


class _Values(dict):
    """Message formatting that leaves an unknown {placeholder} visible instead of failing."""

    def __missing__(self, key):
        return "{" + key + "}"


def rule_applies_to(rule: Rule, path: str, language: str) -> bool:
    if language not in rule.languages:
        return False
    if rule.files:
        name = PurePosixPath(path).name
        return any(fnmatch.fnmatch(path, g) or fnmatch.fnmatch(name, g) for g in rule.files)
    return True


def prepare_rules(rules: Iterable[Rule]) -> None:
    """Declare every rule's whole-file tree-sitter query and regular expression before the first file: the
    combined query (porter.source.parse_queries.captures) is then compiled once with all of them instead of again as each
    rule first asks, and each file is searched for all the regexes in one pass (porter.match.kinds.code_regex)."""
    for rule in rules:
        patterns = []
        for pattern in rule.patterns:
            if "query" in pattern:
                for lang in ("cuda", "python"):
                    if lang in rule.languages:
                        register_root_query(lang, pattern["query"])
            patterns.append(pattern)
            if "feature" in pattern:  # a feature's own pattern runs through the same matchers
                patterns.append({k: v for k, v in pattern["feature"].items() if k != "note"})
        register_regexes(patterns, rule.languages)


def run_rules(sf: SourceFile, rules: Iterable[Rule], ctx: MatchContext) -> tuple[list[Finding], list[Finding]]:
    """(findings, suppressed findings) for one file, sorted by position then rule id."""
    drafts: list[Draft] = []
    suppressions = _suppressions(sf)
    draft = _drafter(sf, _worded_memo(ctx))
    add = drafts.append
    language = sf.language
    dead: frozenset[int] | None = None  # the file's dead lines, read only when a rule passes the cap
    for rule in rules:
        fixed, steps, languages, gate = _plans(rule)
        # rule_applies_to, its language test read from the plan (the test is asked for every rule and file)
        if language not in languages or rule.files and not rule_applies_to(rule, sf.path, language):
            continue
        if gate is not None and not _may_fire(gate, sf):
            continue  # none of the rule's patterns can hit here: not a matcher call per pattern
        seen: set[tuple[int, int]] = set()
        over: Hit | None = None
        first = len(drafts)  # this rule's drafts start here
        live = -1  # this rule's hits on live lines, counted once the cap is reached (-1: not yet)
        left_out = 0
        try:
            for hit in _rule_hits(steps, sf, ctx):
                span = (hit.start, hit.end)
                if span in seen:
                    continue
                seen.add(span)
                if len(seen) <= MAX_HITS_PER_RULE:
                    add(draft(fixed, hit))
                    continue
                # Past the cap, only hits refine keeps count: hits in dead code (`#if 0`) are dropped there, and 1,001
                # dead copies ahead of one live line must not crowd it out (nor carry the "not listed" note, which
                # refine would drop with them). Dead lines are asked only here, for a file this full.
                if dead is None:
                    dead = dead_lines(sf)
                if live < 0:
                    kept = [d for d in drafts[first:] if d.line not in dead]
                    drafts[first:] = kept
                    live = len(kept)
                made = draft(fixed, hit)
                if made.line in dead:
                    continue
                if live < MAX_HITS_PER_RULE:
                    add(made)
                    live += 1
                else:
                    over = over or hit
                    left_out += 1
        except Backtracked as e:
            # Said, not dropped: the rule may hold hits past the point its pattern stopped (a gate counts this).
            add(draft(fixed, Hit(0, 0, name="", message=(
                f"{rule.id} was not checked to the end of this file: one of its patterns runs on Python's "
                f"backtracking regex engine and ran past its {e.seconds:.1f} s slice here (a very long line?); "
                f"its hits after that point are not listed"))))
        if over is not None:
            add(draft(fixed, Hit(over.start, over.end, name=over.name, message=(
                f"{left_out} more hits of {rule.id} in this file are not listed (at most {MAX_HITS_PER_RULE} "
                f"per rule and file)"))))
    drafts.sort()
    findings = _fingerprinted(refine(drafts, sf, ctx.extra.get("rocm_names", ()),
                                           ctx.extra.get("trust_toolkit_copies", True)))
    if not suppressions:
        return findings, []
    kept, hidden = [], []
    for f in findings:
        ids = suppressions.get(f.line, set())
        (hidden if ("*" in ids or f.rule in ids) else kept).append(f)
    return kept, hidden


# Messages worded for the scan; past this many (one per hit of a matcher that makes fresh values per hit) it starts
# again, so the values it keeps alive stay bounded.
_WORDED_LIMIT = 65536


def _worded_memo(ctx: MatchContext) -> dict:
    """The scan's memo of worded messages (see _draft), started again at _WORDED_LIMIT entries."""
    memo = ctx.memo.get("engine.worded")
    if memo is None or len(memo) > _WORDED_LIMIT:
        memo = ctx.memo["engine.worded"] = {}
    return memo


class _Step(NamedTuple):
    """One pattern of a rule with what the engine reads from it resolved once, not per file."""

    pattern: dict
    matcher: Matcher
    needs: tuple[frozenset[bytes], ...]  # porter.match.tokens.required_tokens
    query: str | None
    not_regex: str | None
    inside_kernel: bool
    in_device_code: bool
    warp_dependent: bool
    rocm: tuple[str, bool] | None  # (HIP fact, whether the release must have it): the `rocm` modifier
    not_logical_warp: bool

    @property
    def plain(self) -> bool:
        """Whether every hit of its matcher is kept (no modifier filters or adds to them)."""
        return not (self.not_regex is not None or self.inside_kernel or self.in_device_code or self.warp_dependent
                    or self.rocm is not None or self.not_logical_warp)


def _plan(rule: Rule) -> tuple[_Fixed, tuple[tuple, ...], frozenset[str], tuple | None]:
    """The rule's draft fields, its steps (each unpacked for _step_hits: matcher, pattern, needs, query, plain,
    the step), its languages and its _gate."""
    steps = tuple(_Step(p, MATCHERS[kind_of(p)], required_tokens(p), p.get("query"), p.get("not_regex"),
                        bool(p.get("inside_kernel")), bool(p.get("in_device_code")), bool(p.get("warp_dependent")),
                        _rocm_condition(p), bool(p.get("not_logical_warp")))
                  for p in rule.patterns)
    return (_fixed(rule), tuple((s.matcher, s.pattern, s.needs, s.query, s.plain, s) for s in steps),
            frozenset(rule.languages), _gate(rule))


def _gate(rule: Rule) -> tuple[tuple, frozenset[bytes]] | None:
    """For a rule whose every pattern (or the pattern a `feature` wraps) is a `regex` or an `identifiers` of exact
    names: its regexes' regex_gate and the names; None for any other rule. See _may_fire."""
    regexes: list[dict] = []
    names: set[bytes] = set()
    for pattern in rule.patterns:
        if "feature" in pattern:
            pattern = {k: v for k, v in pattern["feature"].items() if k != "note"}
        kind = kind_of(pattern)
        if kind == "regex":
            regexes.append(pattern)
        elif kind == "identifiers" and not any(c in n for n in pattern["identifiers"] for c in "*?["):
            names.update(n.encode() for n in pattern["identifiers"])
        else:
            return None
    return (regex_gate(regexes) or ()), frozenset(names)


def _may_fire(gate: tuple[tuple, frozenset[bytes]], sf: SourceFile) -> bool:
    """False only when no pattern of a gated rule (_gate) can hit in the file: none of its names is a code token
    (an identifiers pattern hits only such tokens) and the file's one regex-set search says none of its regexes can
    match (code_regex.may_fire, the answer may_run gives each of them)."""
    regexes, names = gate
    return bool(names) and not sf.tokens().keys().isdisjoint(names) or bool(regexes) and may_fire(regexes, sf)


def _rocm_condition(pattern: dict) -> tuple[str, bool] | None:
    cond = pattern.get("rocm")
    if not cond:
        return None
    wanted, fact = next(iter(cond.items()))
    return fact, wanted == "has"


def _release(ctx: MatchContext) -> str:
    """The ROCm release the scan judges HIP for (porter.rocm's newest when the caller set none)."""
    from porter.rocm import default_release

    return ctx.extra.get("rocm") or default_release()


# Each rule's draft fields and steps; rule sets loaded again and again (tests, history walks) start it again at
# 4,096 rules.
_plans = per_object(_plan, limit=4096)


def _rule_hits(steps: tuple[tuple, ...], sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """The kept hits of a rule's steps (see _plan), one step after the other. A step without modifiers hands its
    matcher's hits straight through (chained in C), the others through _kept."""
    return chain.from_iterable(_step_hits(steps, sf, ctx))


def _step_hits(steps: tuple[tuple, ...], sf: SourceFile, ctx: MatchContext) -> Iterator[Iterable[Hit]]:
    code_file = sf.language in ("cuda", "python")
    for matcher, pattern, needs, query, plain, step in steps:
        if needs and code_file and not has_tokens(needs, sf):
            continue  # a token the pattern needs is not in the file: its matcher could not hit
        if step.rocm is not None:
            from porter.rocm import has

            fact, wanted = step.rocm
            if has(fact, _release(ctx)) != wanted:
                continue  # the chosen ROCm release decides this pattern away (rules/kb/hip_versions.yaml)
        if query is not None and code_file:
            register_root_query(sf.language, query)  # from the next file on, run with the others
        hits = matcher(pattern, sf, ctx)
        yield hits if plain else _kept(step, hits, sf, ctx)


def _kept(step: _Step, hits: Iterable[Hit], sf: SourceFile, ctx: MatchContext) -> Iterator[Hit]:
    """The hits its modifiers (not_regex, inside_kernel, in_device_code, warp_dependent) keep, with the `rocm`
    modifier's values ({rocm}, {hip_since}, {hip_until}) added."""
    not_memo = sf.cache.setdefault("engine.not_regex", {})
    not_rx = compile_regex(step.not_regex) if step.not_regex is not None else None
    versioned: tuple[tuple[str, str], ...] = ()
    if step.rocm is not None:
        from porter.rocm import fact

        known = fact(step.rocm[0])
        versioned = (("rocm", _release(ctx)), ("hip_since", known.since or ""), ("hip_until", known.until or ""))
    for hit in hits:
        if not_rx is not None:
            line, _ = sf.position(hit.start)
            key = (step.not_regex, line)  # once per line: a long line may carry many hits
            if key not in not_memo:
                not_memo[key] = not_rx.search(sf.line_text(line).encode("utf-8", "replace")) is not None
            if not_memo[key]:
                continue
        if step.inside_kernel:
            f = sf.enclosing(hit.start)
            if f is None or not f.is_kernel:
                continue
        if step.in_device_code and not in_device_code(sf, hit.start):
            continue
        if step.warp_dependent and not warp_dependent(sf, hit.start, hit.end):
            continue
        if step.not_logical_warp and logical_warp32(sf, hit.start):
            continue
        if versioned:
            # A feature's note may name the release too ("... in ROCm {rocm}; HIP has it from {hip_since}").
            values = tuple((k, v.format_map(_Values(versioned)) if k == "note" and "{" in v else v)
                           for k, v in hit.values)
            hit = hit._replace(values=values + versioned)
        yield hit


def _char_column(sf: SourceFile, line: int, offset: int) -> int:
    """1-based column in characters (Unicode code points, as SARIF's default columnKind), not bytes."""
    start = sf.line_starts[line - 1]
    if _line_is_ascii(sf, line):  # asked per finding: a long line must not be decoded once per hit on it
        return offset - start + 1
    return len(sf.data[start:offset].decode("utf-8", "replace")) + 1


def _ascii_file(sf: SourceFile) -> bool:
    """Whether the whole file is ASCII: most are, and one C-level check then stands for every line's."""
    ascii_file = sf.cache.get("engine.ascii_file")
    if ascii_file is None:
        ascii_file = sf.cache["engine.ascii_file"] = sf.data.isascii()
    return ascii_file


def _line_is_ascii(sf: SourceFile, line: int) -> bool:
    if _ascii_file(sf):
        return True
    memo = sf.cache.setdefault("engine.ascii_lines", {})
    if line not in memo:
        start = sf.line_starts[line - 1]
        end = sf.line_starts[line] if line < len(sf.line_starts) else len(sf.data)
        memo[line] = sf.data[start:end].isascii()
    return memo[line]


def _snippet(sf: SourceFile, line: int) -> str:
    """The finding's line, stripped and cut to 200 characters; decoded once per line, however many hits it has."""
    memo = sf.cache.setdefault("engine.snippets", {})
    if line not in memo:
        start = sf.line_starts[line - 1]
        # Only the head of a very long line can end up in a snippet; decode no more of it than that.
        end = sf.data.find(b"\n", start, start + 4096)
        text = sf.data[start: end if end >= 0 else min(len(sf.data), start + 4096)].decode("utf-8", "replace")
        text = text.strip()  # white space includes the \r of a CRLF line
        memo[line] = text if len(text) <= 200 else text[:197] + "..."
    return memo[line]


def make_finding(rule: Rule, sf: SourceFile, hit: Hit) -> Finding:
    """The finding of one hit (without its fingerprint, which depends on the file's other findings)."""
    return Finding(*_drafter(sf, {})(_fixed(rule), hit))


class _Fixed(NamedTuple):
    """What a draft takes from its rule, read once per rule and file instead of once per hit."""

    id: str
    category: str
    severity: object
    confidence: object
    message: str
    hip: str  # hip_equivalent's name, "" without one


def _fixed(rule: Rule) -> _Fixed:
    return _Fixed(rule.id, rule.category, rule.severity, rule.confidence, rule.message,
                  rule.hip_equivalent.get("name", ""))


def _drafter(sf: SourceFile, memo: dict) -> Callable[[_Fixed, Hit], Draft]:
    """`draft(fixed, hit)`: the Draft of one hit in `sf`, with what is the same for the whole file (its line starts,
    whether it is ASCII, its snippets) looked up once; `memo` holds worded messages (see _worded_memo)."""
    starts = sf.line_starts
    count = len(starts)
    ascii_file = _ascii_file(sf)
    enclosing = sf.enclosing
    path = sf.path
    snippets = sf.cache.setdefault("engine.snippets", {})
    bisect_right = bisect.bisect_right
    new = tuple.__new__
    OPEN = Status.OPEN

    def draft(fixed: _Fixed, hit: Hit) -> Draft:
        start, end, name, replacement, values, message = hit
        rule_id, category, severity, confidence, template, hip = fixed
        line = bisect_right(starts, start)  # 1-based, as sf.position's
        last = end - 1 if end - 1 > start else start
        # Most hits end on the line they start on: no second search for it.
        end_line = line if line == count or last < starts[line] else bisect_right(starts, last)
        if ascii_file:  # a character is a byte: the columns without a call per hit
            col, end_col = start - starts[line - 1] + 1, last - starts[end_line - 1] + 2
        else:
            col = _char_column(sf, line, start)
            end_col = _char_column(sf, end_line, last) + 1  # exclusive end column, as in SARIF
        # The same name hits many times in a scan (cudaMalloc, cudaMemcpy, ...), with the very same values (the kb
        # matcher's per-name tuple, kept for the scan): its message is worded once, in `memo` (the scan's, from
        # _worded_memo). Keyed by the values' identity, not equality (1 and True are equal); each entry keeps its
        # values, so their id cannot be another tuple's while the entry lives.
        if message:
            template = message
        key = (template, name, replacement, hip, id(values))
        worded = memo.get(key)
        if worded is None or worded[0] is not values:
            worded = memo[key] = (values, *_worded(template, name, replacement, hip, values))
        snippet = snippets.get(line)
        if snippet is None:
            snippet = _snippet(sf, line)
        func = enclosing(start)
        if func is None:
            function = kernel = None
        else:
            function = func.name
            kernel = function if func.is_kernel else None
        # Finding's fields in Finding's order (porter.match.draft); the fingerprint comes after refining.
        return new(Draft, (path, line, col, rule_id, end_line, end_col, category, severity, confidence, worded[1],
                           snippet, function, kernel, "", replacement or hip or None, worded[2], OPEN, None))

    return draft


def _worded(template: str, name: str, replacement: str | None, hip: str | None, values: tuple) -> tuple[str, tuple]:
    """A hit's message (the template filled from its values, name and HIP name) and its data (the non-empty
    values, sorted). The values are the repository's text (an image name, a runner label, a requirement) and a
    repository's own rule writes the template: control characters and bidi marks are shown as escapes here, once,
    so no format carries them (rdjsonl and SARIF messages reach PR comments and code scanning verbatim). A value
    is put on one line (porter.render.safe.one_line: a line break or tab shown as an escape): a wheel member or
    safetensors tensor name holding newlines would otherwise start lines of its own in the message (a Markdown
    heading or table where reviewdog posts it)."""
    filled = _Values({k: one_line(v) if isinstance(v, str) else v for k, v in values})
    filled.setdefault("name", one_line(name))
    filled.setdefault("match", one_line(name))
    hip_name = replacement or hip
    filled.setdefault("hip", one_line(hip_name) if hip_name else hip_name)
    return printable(template.format_map(filled)), tuple(sorted((k, v) for k, v in values if v != ""))


def with_fingerprints(findings: list[Finding]) -> list[Finding]:
    """A fingerprint from rule, path, enclosing function and the matched line's code (not its number, nor a comment
    on it), plus an occurrence counter, so a finding keeps its identity when code above it moves or a comment is
    added to its line."""
    counts: dict[str, int] = {}
    # The constructor with every field as it is (half the cost of dataclasses.replace, asked per finding).
    return [Finding(**{**vars(f), "fingerprint": _fingerprint(counts, _basis(f, code_words(f.snippet, f.path)))})
            for f in findings]


def _fingerprinted(drafts: list[Draft]) -> list[Finding]:
    """with_fingerprints for drafts: each Finding built once, fingerprint included."""
    counts: dict[str, int] = {}
    spaced: dict[str, str] = {}  # snippet -> its words joined by one space (a line's hits share its snippet)
    out = []
    make = Finding.from_fields
    for d in drafts:
        words = spaced.get(d.snippet)
        if words is None:
            words = spaced[d.snippet] = code_words(d.snippet, d.path)
        f = make(d)
        vars(f)["fingerprint"] = _fingerprint(counts, _basis(d, words))  # a fresh object, not yet seen by anyone
        out.append(f)
    return out


def _basis(f: Finding | Draft, words: str) -> str:
    """What a fingerprint identifies: rule, path, enclosing function and the line's words (`words`: the snippet's
    words joined by one space)."""
    return "\0".join((f.rule, f.path, f.function or "", words))


def _fingerprint(counts: dict[str, int], basis: str) -> str:
    """The fingerprint of the next occurrence of `basis` (`counts`: occurrences so far, per basis, in the file)."""
    n = counts.get(basis, 0)
    counts[basis] = n + 1
    # surrogateescape: translate scans a file under its name on disk, which need not be UTF-8 (a\udcff.cu)
    return hashlib.sha256(f"{basis}\0{n}".encode("utf-8", "surrogateescape")).digest()[:10].hex()  # first 20 hex digits


def _suppressions(sf: SourceFile) -> dict[int, set[str]]:
    """{line: rule ids hidden there}. A comment on a line of its own also covers the next line; one trailing code
    covers only its own line, so it never hides an unrelated finding below it."""
    out: dict[int, set[str]] = {}
    if b"porter:" not in sf.data:
        return out
    for m in _SUPPRESS.finditer(sf.data):
        if sf.tree is not None and not sf.in_comment(m.start()):
            continue  # only a comment suppresses; the words in a string literal are data
        line, _ = sf.position(m.start())
        ids = {i.strip() for i in (m.group(1) or b"").decode().split(",") if i.strip()} if m.group(1) is not None else {"*"}
        ids = ids or {"*"}
        out.setdefault(line, set()).update(ids)
        before = sf.data[sf.line_starts[line - 1]:m.start()]
        if not before.strip(b" \t/*#-;!<"):
            out.setdefault(line + 1, set()).update(ids)
    return out
