"""Build a judged set's scanned trees from bare mirrors, as each set's README describes.

For every project in ``bench/judged/<set>/projects.json`` this runs ``git archive <commit> <paths>`` in the
project's mirror (``<mirrors>/<owner>+<name>/repo``, the layout the ``fetch`` tool gives) and unpacks it into
``<root>/<tree>``. A tree that already exists is left alone; a project without a mirror is named and skipped.
git reports and skips blobs a mirror lacks, as the sets' READMEs note.

    python bench/judged/make_trees.py heldout10 /tmp/h10 [--mirrors /work/.mirror]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("set", help="judged set name, e.g. heldout10")
    ap.add_argument("root", type=Path, help="directory that receives one tree per project")
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    args = ap.parse_args(argv)
    projects = json.loads((HERE / args.set / "projects.json").read_text())
    missing = 0
    for p in projects:
        dest = args.root / p["tree"]
        if dest.is_dir() and any(dest.iterdir()):
            print(f"{p['tree']}: exists")
            continue
        mirror = args.mirrors / p["project"].replace("/", "+") / "repo"
        if not mirror.is_dir():
            print(f"{p['tree']}: no mirror at {mirror}", file=sys.stderr)
            missing += 1
            continue
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.Popen(
            ["git", "-C", str(mirror), "archive", p["commit"], *p["paths"]], stdout=subprocess.PIPE
        )
        subprocess.run(["tar", "-x", "-C", str(dest)], stdin=archive.stdout, check=False)
        archive.wait()
        print(f"{p['tree']}: {sum(1 for f in dest.rglob('*') if f.is_file())} files")
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
