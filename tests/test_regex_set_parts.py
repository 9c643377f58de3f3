"""porter.match.regex: a RegexSet's members searched in parts of at most _SET_MEMBERS (each part's DFA is built with
fewer states) answer exactly what one set of all of them answers, and a part whose search fails makes the answer
unknown."""
from __future__ import annotations

from pathlib import Path

from porter.match import regex
from porter.rules import load_rules
from porter.source.discover import language_of
from porter.source.parse import parse


def _rule_sources() -> list[bytes]:
    rs = regex.RegexSet()
    for rule in load_rules().rules:
        for p in rule.patterns:
            for q in (p, p.get("feature") or {}):
                if "regex" in q:
                    rs.add(q["regex"], tuple(q.get("flags", ())))
    return rs._sources["utf8"] + rs._sources["latin1"]


def _texts() -> list[bytes]:
    root = Path(__file__).resolve().parent.parent / "fixtures" / "rules"
    texts = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        texts.append(data)
        if language_of(path.name) == "cuda":
            texts.append(parse(path.name, "cuda", data).code)
    return texts


def test_the_parts_answer_as_one_set_of_every_member():
    sources = _rule_sources()
    assert len(sources) > 3 * regex._SET_MEMBERS  # more than three parts
    parts = regex._compile_set(sources, "latin1")
    assert len(parts._parts) == -(-len(sources) // regex._SET_MEMBERS)
    whole = regex._compile_part(sources, "latin1")
    hits = 0
    for text in _texts():
        got, want = parts.Match(text), whole.Match(text)
        assert 0 in got and 0 in want
        assert sorted(got) == sorted(want), text[:80]
        hits += len(want) - 1
    assert hits > 200  # the fixtures hit members, not only the sentinel
    assert {i for text in _texts() for i in parts.Match(text)} >= {1, len(sources)}


def test_a_part_that_does_not_finish_makes_the_answer_unknown():
    sources = _rule_sources()
    parts = regex._compile_set(sources, "latin1")

    class Failing:  # RE2's answer when its DFA runs out of memory: not even the sentinel
        def Match(self, text):
            return []

    text = b"cudaMalloc(&p, n); __shfl_down_sync(0xffffffff, v, 1);"
    assert 0 in parts.Match(text)
    parts._parts[-1] = (parts._parts[-1][0], Failing())
    assert parts.Match(text) == []
