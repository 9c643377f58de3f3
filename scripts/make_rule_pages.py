"""Write docs/rules/<ID>.md for every porter rule (and docs/rules/README.md, the index) from the rule data.

    .venv/bin/python scripts/make_rule_pages.py          # write them
    .venv/bin/python scripts/make_rule_pages.py --check  # exit 1 when a page is missing, stale or left over
"""
from __future__ import annotations

import sys
from pathlib import Path

from porter.render.rule_pages import pages
from porter.rules import load_rules

OUT = Path(__file__).resolve().parent.parent / "docs" / "rules"


def main(argv: list[str]) -> int:
    want = pages(load_rules())
    if "--check" in argv:
        have = {p.name: p.read_text(encoding="utf-8") for p in OUT.glob("*.md")} if OUT.is_dir() else {}
        wrong = sorted(n for n in set(want) | set(have) if want.get(n) != have.get(n))
        for n in wrong:
            print(f"docs/rules/{n}: {'missing' if n not in have else 'left over' if n not in want else 'stale'}")
        if wrong:
            print("run: .venv/bin/python scripts/make_rule_pages.py")
        return 1 if wrong else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for p in OUT.glob("*.md"):
        if p.name not in want:
            p.unlink()
    for name, text in sorted(want.items()):
        (OUT / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(want)} pages under docs/rules/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
