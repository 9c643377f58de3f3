"""porter's own rules are loaded once per process while their files are unchanged (porter.pipeline.load_rules_cached);
a repository's extra rules are loaded on every run."""
from __future__ import annotations

from pathlib import Path

from porter import pipeline


def _counting(monkeypatch):
    calls: list[list[Path] | None] = []
    real = pipeline.load_rules

    def load_rules(*args, **kwargs):
        calls.append(kwargs.get("extra"))
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "load_rules", load_rules)
    monkeypatch.setattr(pipeline, "_OWN_RULES", None)
    return calls


def test_own_rules_load_once_until_a_file_changes(monkeypatch):
    calls = _counting(monkeypatch)
    first = pipeline.load_rules_cached([], None)
    second = pipeline.load_rules_cached([], None)
    assert (len(calls), second is first, len(first.rules) > 100) == (1, True, True)
    # a rule file's size or modification time moves: the set is loaded again
    signature = pipeline._own_signature()
    changed = ((signature[0][0], signature[0][1] + 1, signature[0][2]),) + signature[1:]
    monkeypatch.setattr(pipeline, "_own_signature", lambda: changed)
    third = pipeline.load_rules_cached([], None)
    assert (len(calls), third is first) == (2, False)
    assert [r.id for r in third.rules] == [r.id for r in first.rules]


def test_extra_rules_load_every_time(monkeypatch, tmp_path):
    calls = _counting(monkeypatch)
    extra = tmp_path / "USR001-any-malloc.yaml"
    rule = (Path(pipeline.DATA_DIR) / "kernel" / "KRN001-kernel-definition.yaml").read_text()
    extra.write_text(rule.replace("id: KRN001", "id: USR001").replace("  - kernel: {}", "  - identifiers: [malloc]"))
    pipeline.load_rules_cached([], None)
    pipeline.load_rules_cached([extra], None)
    pipeline.load_rules_cached([extra], None)
    assert calls == [[], [extra], [extra]]
