"""porter.validated: porter's own data files skip schema validation only with exactly the bytes the suite validated."""
from __future__ import annotations

import shutil

import pytest
import yaml

from porter import datafile, libraries, rules, targets, validated
from porter.datafile import DATA_DIR
from porter.rules import RuleError, load_rule

RULE = DATA_DIR / "device" / "DEV001-inline-ptx.yaml"


def _clear():
    validated._manifest.cache_clear()
    validated._schemas_validated.cache_clear()


@pytest.fixture
def full_validation(monkeypatch):
    """Every file validated as a repository's would be."""
    monkeypatch.setattr(validated, "trusted", lambda path: False)
    libraries._load.cache_clear()
    yield
    libraries._load.cache_clear()


@pytest.fixture
def fake_data(tmp_path, monkeypatch):
    """A copy of one bundled rule as the only data file, with a manifest vouching for its current bytes."""
    data = tmp_path / "data"
    (data / "device").mkdir(parents=True)
    rule = data / "device" / RULE.name
    shutil.copyfile(RULE, rule)
    manifest = tmp_path / "validated.sha256"
    monkeypatch.setattr(validated, "DATA_DIR", data)
    monkeypatch.setattr(validated, "MANIFEST", manifest)
    entries = {validated.DATA_PREFIX + "device/" + RULE.name: validated.digest(rule.read_bytes())}
    entries.update({n: d for n, d in validated.current_entries().items() if n.startswith(validated.SCHEMA_PREFIX)})
    manifest.write_text(validated.format_manifest(entries), encoding="utf-8")
    _clear()
    yield rule, manifest
    _clear()


def test_the_manifest_lists_exactly_the_current_bundled_files_and_schemas():
    text = validated.MANIFEST.read_text(encoding="utf-8")
    assert text == validated.format_manifest(validated.current_entries()), (
        "porter/schemas/validated.sha256 is out of date: run .venv/bin/python scripts/validated_manifest.py")


def test_every_bundled_rule_profile_and_the_library_map_pass_full_validation(full_validation, monkeypatch):
    seen = []
    real = rules.validator
    monkeypatch.setattr(rules, "validator", lambda name: seen.append(name) or real(name))
    ruleset = rules.load_rules()
    assert len(seen) == len(ruleset.rules) == len(rules.rule_files())
    assert set(targets.load_targets()) >= {"mi300x", "mi355x"}
    assert "cublas" in libraries.load_libraries()


def test_a_bundled_file_is_trusted_with_its_digest_and_nothing_else(tmp_path):
    assert validated.trusted(RULE) is True
    assert validated.trusted(DATA_DIR / "targets" / "mi300x.yaml") is True
    assert validated.trusted(DATA_DIR / "kb" / "libraries.yaml") is True
    copy = tmp_path / RULE.name  # the same bytes outside porter's data: a repository's rule
    shutil.copyfile(RULE, copy)
    assert validated.trusted(copy) is False
    assert validated.trusted(tmp_path / "missing.yaml") is False


def test_a_bundled_rule_with_its_digest_skips_the_schema(fake_data, monkeypatch):
    rule, _ = fake_data
    monkeypatch.setattr(rules, "validator", lambda name: pytest.fail("validated a file the manifest vouches for"))
    assert load_rule(rule, rule.parent.parent).id == "DEV001"


def test_a_modified_bundled_rule_is_validated_and_refused(fake_data):
    rule, _ = fake_data
    rule.write_text(rule.read_text(encoding="utf-8").replace("severity:", "severty:", 1), encoding="utf-8")
    assert validated.trusted(rule) is False
    with pytest.raises(RuleError) as e:
        load_rule(rule, rule.parent.parent)
    assert str(e.value).endswith("DEV001-inline-ptx.yaml: (top level): Additional properties are not allowed "
                                 "('severty' was unexpected)")


def test_a_changed_schema_withdraws_trust_from_every_file(fake_data):
    rule, manifest = fake_data
    lines = manifest.read_text(encoding="utf-8").splitlines()
    lines = [("0" * 64 + line[64:]) if line.endswith("schemas/rule.schema.json") else line for line in lines]
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _clear()
    assert validated.trusted(rule) is False


def test_a_missing_manifest_trusts_nothing(fake_data):
    rule, manifest = fake_data
    manifest.unlink()
    _clear()
    assert validated.trusted(rule) is False


def test_a_symlink_into_porter_data_from_outside_is_judged_by_its_target(tmp_path):
    link = tmp_path / RULE.name
    link.symlink_to(RULE)
    assert validated.trusted(link) is True  # the bytes read are the bundled file's own


def test_the_parsed_documents_are_current_and_cover_every_rule_profile_and_the_library_map():
    entries = datafile.parsed_entries()
    assert datafile.PARSED.read_bytes() == datafile.format_parsed(entries), (
        "porter/schemas/validated.parsed.tsv is out of date: run .venv/bin/python scripts/validated_manifest.py")
    names = {p.relative_to(DATA_DIR).as_posix() for p in rules.rule_files()}
    assert names | {"targets/mi300x.yaml", "targets/mi355x.yaml", "kb/libraries.yaml"} <= set(entries)


def test_a_listed_file_is_read_from_its_json_and_equals_its_yaml_parse(monkeypatch):
    def no_parse(*args, **kwargs):
        raise AssertionError("parsed a file whose digest is listed")

    expected = yaml.load(RULE.read_text(encoding="utf-8"), Loader=datafile.safe_loader())
    monkeypatch.setattr(yaml, "load", no_parse)  # the module datafile imports when it parses
    first = datafile.read_yaml(RULE, RuleError)
    second = datafile.read_yaml(RULE, RuleError)
    assert first == expected and first["id"] == "DEV001"
    assert first is not second and first["patterns"] is not second["patterns"]  # fresh, as a parse gives


def test_other_bytes_are_parsed_even_from_porter_data(tmp_path):
    rule = tmp_path / RULE.name
    rule.write_text(RULE.read_text(encoding="utf-8").replace("title: ", "title: Changed ", 1), encoding="utf-8")
    assert datafile.read_yaml(rule, RuleError)["title"].startswith("Changed ")
    rule.write_text("id: [unclosed\n", encoding="utf-8")
    with pytest.raises(RuleError, match=r"not valid YAML \(line 2\)"):
        datafile.read_yaml(rule, RuleError)


def test_a_missing_or_garbled_parsed_file_means_every_file_is_parsed(tmp_path, monkeypatch):
    garbled = tmp_path / "validated.parsed.tsv"
    garbled.write_bytes(b"device/" + RULE.name.encode() + b"\tnot-a-digest\t{}\n\x00\xff\n")
    for path in (garbled, tmp_path / "missing.tsv"):
        monkeypatch.setattr(datafile, "PARSED", path)
        datafile._parsed.cache_clear()
        try:
            assert datafile._parsed() == {}
            assert datafile.read_yaml(RULE, RuleError)["id"] == "DEV001"
        finally:
            datafile._parsed.cache_clear()


def test_only_documents_json_carries_exactly_are_listed(tmp_path):
    (tmp_path / "plain.yaml").write_text("a: 1\nb: [1.5, true, null, x]\n", encoding="utf-8")
    (tmp_path / "date.yaml").write_text("when: 2024-01-01\n", encoding="utf-8")  # a date, not a string
    (tmp_path / "intkey.yaml").write_text("1: one\n", encoding="utf-8")
    assert sorted(datafile.parsed_entries(tmp_path)) == ["plain.yaml"]


def test_data_relative_says_what_resolve_and_relative_to_say(tmp_path):
    data = tmp_path / "data"
    (data / "device").mkdir(parents=True)
    real = data / "device" / "a.yaml"
    real.write_text("x", encoding="utf-8")
    outside = tmp_path / "outside.yaml"
    outside.write_text("x", encoding="utf-8")
    (data / "device" / "out.yaml").symlink_to(outside)
    (data / "device" / "in.yaml").symlink_to(real)
    (tmp_path / "alias").symlink_to(data, target_is_directory=True)
    cases = [real, data / "device" / "out.yaml", data / "device" / "in.yaml", tmp_path / "alias" / "device" / "a.yaml",
             data / "device" / "missing.yaml", outside, data / "device" / ".." / "device" / "a.yaml", data]
    got = [datafile.data_relative(p, data) for p in cases]
    assert got == ["device/a.yaml", None, "device/a.yaml", "device/a.yaml", "device/missing.yaml", None, "device/a.yaml", "."]
    for p, rel in zip(cases, got):  # a symlink anywhere on the way is followed, as resolve() follows it
        assert datafile.resolved_file(p) == p.resolve()
        try:
            assert rel == p.resolve().relative_to(data.resolve()).as_posix()
        except ValueError:
            assert rel is None
