"""A repository's data files (rules, effort, target profiles its porter.toml names) are parsed in porter's own
process, before any budgeted stage. YAML 1.1's base-60 numbers made that unbounded: PyYAML builds `1:59:59:…` by
multiplying a big integer per part (quadratic: 40,000 parts took 2.9 s, a 4 MiB file about an hour), and the float
form `1:59:…:59.5` ended porter with an internal error (OverflowError). porter.datafile.safe_loader reads them as
strings, as YAML 1.2 does; the rule schema then refuses the field.
"""
from __future__ import annotations

import time

import yaml

from helpers import make_repo, porter_here
from porter.datafile import safe_loader


def test_the_loader_reads_base_60_as_text_and_every_other_number_as_before():
    for text, value in [("1:59:59", "1:59:59"), ("1:59:59.5", "1:59:59.5"), ("12", 12), ("-3", -3), ("0x1f", 31),
                        ("07", 7), ("1_000", 1000), ("1.5", 1.5), ("1.0e+5", 100000.0), (".inf", float("inf")),
                        ("true", True), ("null", None)]:
        assert yaml.load(f"a: {text}", Loader=safe_loader())["a"] == value, text


def _scan(tmp_path, value):
    root = make_repo(tmp_path / "r", {"porter.toml": 'rules = ["myrules"]\n', "a.cu": "int x;\n",
                                      "myrules/ZZZ001-x.yaml": f"id: ZZZ001\nx: {value}\n"})
    started = time.monotonic()
    p = porter_here("scan", str(root), "--no-cache", "-q", timeout=120)
    return p, time.monotonic() - started, root


def test_a_huge_base_60_integer_in_a_repository_rule_costs_nothing(tmp_path):
    p, took, root = _scan(tmp_path, "1" + ":59" * 300_000)  # 900 KB: minutes of big-integer arithmetic
    assert took < 30
    assert (p.returncode, p.stderr.strip()) == (2, f"error: {root}/myrules/ZZZ001-x.yaml: (top level): Additional "
                                                   "properties are not allowed ('x' was unexpected)")


def test_a_base_60_float_is_no_internal_error(tmp_path):
    p, _, root = _scan(tmp_path, "1" + ":59" * 2000 + ".5")
    assert (p.returncode, p.stderr.strip()) == (2, f"error: {root}/myrules/ZZZ001-x.yaml: (top level): Additional "
                                                   "properties are not allowed ('x' was unexpected)")
