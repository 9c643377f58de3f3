"""Everything porter ships cites public sources: no data file or module points at notes outside this repository."""
from __future__ import annotations

import re

from helpers import REPO

PRIVATE = re.compile(r"shared/reference|amd-facts\.md|hipify\.md|peers\.md|ecosystem\.md")


def shipped_files():
    for top in ("porter", "rules", "scripts"):
        for p in sorted((REPO / top).rglob("*")):
            if p.is_file() and p.suffix in {".py", ".yaml", ".yml", ".json", ".tsv", ".j2", ".md", ".toml", ".txt"}:
                yield p


def test_no_shipped_file_cites_private_notes():
    hits = [f"{p.relative_to(REPO)}:{n}" for p in shipped_files()
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if PRIVATE.search(line)]
    assert hits == []


def test_kernel_checks_cite_urls():
    from porter.kernels.check_table import load_checks

    assert [name for name, c in load_checks().items() if "https://" not in c["source"]] == []


def test_the_scan_covers_rules_and_targets():
    names = {p.relative_to(REPO).as_posix() for p in shipped_files()}
    assert {"rules/kb/libraries.yaml", "rules/targets/mi300x.yaml", "porter/kernels/checks.py",
            "rules/device/DEV001-inline-ptx.yaml"} <= names
