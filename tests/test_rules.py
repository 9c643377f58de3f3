"""Every rule against its annotated fixture: the lines hit must equal the `ruleid:` lines, exactly.

Convention (semgrep's `--test`): `// ruleid: ID` or `# ruleid: ID` on the line above an expected hit, `ok: ID`
above a near miss that must not hit, `todoruleid: ID` above a known miss (should hit, does not yet: it must not
hit, so fixing it shows up here to be promoted to ruleid), `todook: ID` above a known false positive (should not
hit, still does: it must hit, like ruleid, until the rule is fixed and it becomes ok). Files that cannot hold
comments (JSON) list their expectations in a sibling `<file>.expected` with lines `ruleid: ID LINE`.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from porter.settings import Settings
from porter.rulecatalog import FIXTURES_DIR, fixture_for
from porter.rules import load_rules
from porter.pipeline import scan

ANNOTATION = re.compile(r"(?://|#|;|<!--)\s*(ruleid|ok|todoruleid|todook):\s*([A-Z]{3}[0-9]{3}(?:\s*,\s*[A-Z]{3}[0-9]{3})*)")
EXPECTED = re.compile(r"^\s*(ruleid|ok|todoruleid|todook):\s*([A-Z]{3}[0-9]{3})\s+(\d+)\s*$")

RULES = load_rules().rules


def expectations(path: Path, rule_id: str) -> tuple[set[int], set[int], set[int]]:
    """(lines that must be hit, lines that must not be hit, known misses) for one rule in one fixture file.

    A known false positive (`todook`) is among the lines that must be hit: the scan still reports it."""
    want, ok, todo = set(), set(), set()
    sets = {"ruleid": want, "ok": ok, "todoruleid": todo, "todook": want}
    sidecar = path.with_name(path.name + ".expected")
    if sidecar.exists():
        for line in sidecar.read_text().splitlines():
            m = EXPECTED.match(line)
            if m and m.group(2) == rule_id:
                sets[m.group(1)].add(int(m.group(3)))
        return want, ok, todo
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        return want, ok, todo
    for i, text in enumerate(lines, 1):
        for m in ANNOTATION.finditer(text):
            ids = {x.strip() for x in m.group(2).split(",")}
            if rule_id not in ids:
                continue
            target = i + 1
            # Several annotations may stack above one line.
            while target <= len(lines) and ANNOTATION.search(lines[target - 1]) and not lines[target - 1].split("//")[0].split("#")[0].strip():
                target += 1
            sets[m.group(1)].add(target)
    return want, ok, todo


def fixture_files(fixture: Path) -> list[Path]:
    if fixture.is_dir():
        return sorted(p for p in fixture.rglob("*") if p.is_file() and not p.name.endswith(".expected"))
    return [fixture]


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_hits_exactly_the_annotated_lines(rule):
    fixture = fixture_for(rule)
    assert fixture is not None, f"{rule.id} has no fixture fixtures/rules/{Path(rule.source).stem}.<ext>"
    result = scan(fixture, Settings(jobs=1, cache_dir=None))
    base = fixture if fixture.is_dir() else fixture.parent
    total_expected = 0
    for f in fixture_files(fixture):
        rel = f.relative_to(base).as_posix()
        want, ok, todo = expectations(f, rule.id)
        total_expected += len(want)
        got = {x.line for x in result.findings if x.rule == rule.id and x.path == rel}
        assert got == want, f"{rule.id} on {rel}: hit lines {sorted(got)}, annotated {sorted(want)}"
        assert not (got & ok), f"{rule.id} hit `ok` lines {sorted(got & ok)} in {rel}"
        assert not (got & todo), f"{rule.id} now hits `todoruleid` lines {sorted(got & todo)} in {rel}: promote them"
    assert total_expected > 0, f"{rule.id}: fixture {fixture.name} annotates no expected hit"


def test_annotations_follow_semgrep(tmp_path):
    fixture = tmp_path / "KRN002-x.cu"
    fixture.write_text("// ruleid: KRN002\na();\n// ok: KRN002\nb();\n// todoruleid: KRN002\nc();\n"
                       "// todook: KRN002\nd();\n// ruleid: KRN001\ne();\n")
    assert expectations(fixture, "KRN002") == ({2, 8}, {4}, {6})
    sidecar = tmp_path / "config.json"
    sidecar.write_text("{}")
    (tmp_path / "config.json.expected").write_text("ruleid: CFG001 3\ntodook: CFG001 5\ntodoruleid: CFG001 7\nok: CFG001 9\n")
    assert expectations(sidecar, "CFG001") == ({3, 5}, {9}, {7})


def test_every_annotation_names_a_rule():
    known = {r.id for r in RULES}
    for path in sorted(FIXTURES_DIR.rglob("*")):
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for m in ANNOTATION.finditer(text):
            for rid in m.group(2).split(","):
                assert rid.strip() in known, f"{path.name} annotates unknown rule {rid.strip()}"


def test_every_fixture_belongs_to_a_rule():
    stems = {Path(r.source).stem for r in RULES}
    for path in sorted(FIXTURES_DIR.iterdir()):
        stem = path.name.split(".")[0] if path.is_file() else path.name
        assert stem in stems, f"fixtures/rules/{path.name} matches no rule file"
