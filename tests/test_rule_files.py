"""The rule catalogue lints itself: every rule file is complete, documented, sourced and consistent."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from porter.rulecatalog import FIXTURES_DIR, fixture_for
from porter.rules import RULES_DIR, RuleError, load_rule, load_rules, rule_files
from porter.targets import load_targets, validate_predicate

RULES = load_rules().rules
TARGETS = load_targets()


def test_every_rule_file_loads_and_ids_are_unique():
    files = rule_files()
    assert len(files) == len(RULES) >= 80
    assert len({r.id for r in RULES}) == len(RULES)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_is_documented_and_sourced(rule):
    assert not re.match(r"(?i)^(use|replace|prefer|switch)\b", rule.title), "a title names the bad pattern, not the fix"
    for heading in ("what", "why", "instead"):
        assert len(rule.docs[heading]) >= 20, f"docs.{heading} is too thin to act on"
    assert rule.references, "every rule cites where its facts come from"
    assert all(re.match(r"^(https://|[\w.-]+/[\w.-]+:|reference/|\.\./shared/)", ref) or " " in ref for ref in rule.references)
    assert fixture_for(rule) is not None
    prefix = {"kernel": "KRN", "api": "API", "device": "DEV", "library": "LIB", "tensorrt": "TRT", "quantization": "QNT",
              "binary": "BIN", "build": "BLD", "python": "PYT", "container": "CTR", "config": "CFG"}[rule.category]
    assert rule.id.startswith(prefix), f"{rule.category} rules use the {prefix} prefix"
    for predicate in rule.targets:
        validate_predicate(predicate, TARGETS)
    if rule.severity.name in ("HIGH", "BLOCKER"):
        assert rule.hip_equivalent["kind"] in ("manual", "replace", "none"), "a serious finding is not a rename"


@pytest.mark.parametrize("broken,field", [
    ("id: KRN999\n", "(top level)"),
    ("id: KRN999\ntitle: x\n", "(top level)"),
])
def test_incomplete_rule_names_file_and_field(tmp_path, broken, field):
    p = tmp_path / "kernel" / "KRN999-broken.yaml"
    p.parent.mkdir()
    p.write_text(broken)
    with pytest.raises(RuleError) as e:
        load_rule(p, tmp_path)
    assert str(e.value).startswith(f"{p}: {field}: ")


def test_rule_errors_name_the_field(tmp_path):
    good = (RULES_DIR / "kernel" / "KRN001-kernel-definition.yaml").read_text()
    d = tmp_path / "kernel"
    d.mkdir()
    cases = {
        "KRN998-sev.yaml": (good.replace("id: KRN001", "id: KRN998").replace("severity: info", "severity: severe"),
                            "severity: 'severe' is not one of"),
        "KRN997-regex.yaml": (good.replace("id: KRN001", "id: KRN997").replace("  - kernel: {}", "  - regex: '(unclosed'"),
                              "patterns.0.regex: bad regular expression"),
        "KRN996-query.yaml": (good.replace("id: KRN001", "id: KRN996").replace("  - kernel: {}", "  - query: '(no_such_node) @hit'"),
                              "patterns.0.query: does not compile for cuda"),
        "KRN995-kind.yaml": (good.replace("id: KRN001", "id: KRN995").replace("  - kernel: {}", "  - telepathy: [x]"),
                             "patterns.0: unknown pattern key(s) ['telepathy']"),
        "KRN994-name.yaml": (good.replace("id: KRN001", "id: KRN990"), "id: 'KRN990' does not match the file name"),
        "KRN993-yaml.yaml": ("id: [unclosed\n", "not valid YAML"),
        "KRN992-feature.yaml": (good.replace("id: KRN001", "id: KRN992").replace(
            "  - kernel: {}", "  - feature: {regex: 'cuda(Malloc', note: x}"), "patterns.0.feature.regex: bad regular expression"),
        "KRN991-message.yaml": (good.replace("id: KRN001", "id: KRN991").replace(
            "message: \"Kernel {name}", "message: \"dim3{} Kernel {name}"), "message: {} is not a named field"),
    }
    for name, (text, expected) in cases.items():
        (d / name).write_text(text)
        with pytest.raises(RuleError) as e:
            load_rule(d / name, tmp_path)
        assert expected in str(e.value) and name in str(e.value), str(e.value)


def test_category_must_match_directory(tmp_path):
    good = (RULES_DIR / "kernel" / "KRN001-kernel-definition.yaml").read_text()
    d = tmp_path / "device"
    d.mkdir()
    (d / "KRN001-kernel-definition.yaml").write_text(good)
    with pytest.raises(RuleError, match=r"category: 'kernel' but the file is in rules/device/"):
        load_rule(d / "KRN001-kernel-definition.yaml", tmp_path)


def test_fixture_files_are_not_orphaned():
    stems = {Path(r.source).stem for r in RULES}
    fixtures = FIXTURES_DIR  # the checkout's fixtures/rules, however porter/data reaches the rules
    assert fixtures is not None
    orphans = sorted(p.name for p in fixtures.iterdir() if (p.name.split(".")[0] if p.is_file() else p.name) not in stems)
    assert orphans == []


# A plain YAML scalar ends at ` #`: the rest of the line is a comment. Rule text that quotes a directive
# unquoted (`title: __CUDA_ARCH__ arm whose #else, ...`) silently lost everything from the directive on — DEV031's
# title read "__CUDA_ARCH__ arm whose" in every report, DEV043's advice stopped at "at least `#else".
_SWALLOWED = re.compile(r"\s#(?:if|ifdef|ifndef|elif|else|endif|error|include|define|undef|pragma|warning)\b")


def test_no_plain_rule_text_loses_a_directive_to_a_yaml_comment():
    import yaml

    lost = []
    for path in rule_files(RULES_DIR):
        text = path.read_text()
        lines = text.splitlines()
        for event in yaml.parse(text):
            if isinstance(event, yaml.ScalarEvent) and event.style is None:
                rest = lines[event.end_mark.line][event.end_mark.column:] if event.end_mark.line < len(lines) else ""
                if _SWALLOWED.match(rest):
                    lost.append(f"{path.name}:{event.end_mark.line + 1}: {event.value[-30:]!r} then {rest.strip()[:20]!r}")
    assert lost == []
