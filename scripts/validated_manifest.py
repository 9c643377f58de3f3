"""Write porter/schemas/validated.sha256, the digests of porter's own data files and schemas as validated in full,
and porter/schemas/validated.parsed.tsv, each bundled YAML file's parsed document by its digest.

Run after changing a rule, a target profile, the library map or a schema:
    .venv/bin/python scripts/validated_manifest.py          # validate everything in full, then write the manifest
    .venv/bin/python scripts/validated_manifest.py --check  # exit 1 when the manifest is not the current files'

The manifest lets a run skip validating porter's bundled files again (porter.validated); it is written only after
every bundled rule, profile and the library map passed the same checks a repository's file gets. The parsed
documents let a run skip parsing those bytes again (porter.datafile.read_yaml).
"""
from __future__ import annotations

import argparse
import sys

from porter import datafile, validated


def validate_all_in_full() -> None:
    """Load every bundled rule, target profile, the library map and the kernel checks with the digest shortcut off."""
    validated.trusted = lambda path: False  # this process only: every file gets the full checks
    from porter.kernels.check_table import load_checks
    from porter.libraries import load_libraries
    from porter.rules import load_rules
    from porter.targets import load_targets

    load_rules()
    load_targets()
    load_libraries()
    load_checks()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only compare; exit 1 if the manifest is out of date")
    args = ap.parse_args()
    text = validated.format_manifest(validated.current_entries())
    current = validated.MANIFEST.read_text(encoding="utf-8") if validated.MANIFEST.exists() else ""
    parsed = datafile.format_parsed(datafile.parsed_entries())
    current_parsed = datafile.PARSED.read_bytes() if datafile.PARSED.exists() else b""
    if args.check:
        stale = [p for p, ok in ((validated.MANIFEST, current == text), (datafile.PARSED, current_parsed == parsed))
                 if not ok]
        for p in stale:
            print(f"{p} is out of date: run scripts/validated_manifest.py", file=sys.stderr)
        return 1 if stale else 0
    validate_all_in_full()
    validated.MANIFEST.write_text(text, encoding="utf-8")
    datafile.PARSED.write_bytes(parsed)
    print(f"wrote {validated.MANIFEST} ({text.count(chr(10))} files) and {datafile.PARSED} "
          f"({parsed.count(chr(10).encode())} documents)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
