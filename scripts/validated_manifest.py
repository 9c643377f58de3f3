"""Write porter/schemas/validated.sha256, the digests of porter's own data files and schemas as validated in full.

Run after changing a rule, a target profile, the library map or a schema:
    .venv/bin/python scripts/validated_manifest.py          # validate everything in full, then write the manifest
    .venv/bin/python scripts/validated_manifest.py --check  # exit 1 when the manifest is not the current files'

The manifest lets a run skip validating porter's bundled files again (porter.validated); it is written only after
every bundled rule, profile and the library map passed the same checks a repository's file gets.
"""
from __future__ import annotations

import argparse
import sys

from porter import validated


def validate_all_in_full() -> None:
    """Load every bundled rule, target profile and the library map with the digest shortcut off."""
    validated.trusted = lambda path: False  # this process only: every file gets the full checks
    from porter.libraries import load_libraries
    from porter.rules import load_rules
    from porter.targets import load_targets

    load_rules()
    load_targets()
    load_libraries()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only compare; exit 1 if the manifest is out of date")
    args = ap.parse_args()
    text = validated.format_manifest(validated.current_entries())
    current = validated.MANIFEST.read_text(encoding="utf-8") if validated.MANIFEST.exists() else ""
    if args.check:
        if current != text:
            print(f"{validated.MANIFEST} is out of date: run scripts/validated_manifest.py", file=sys.stderr)
            return 1
        return 0
    validate_all_in_full()
    validated.MANIFEST.write_text(text, encoding="utf-8")
    print(f"wrote {validated.MANIFEST} ({text.count(chr(10))} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
