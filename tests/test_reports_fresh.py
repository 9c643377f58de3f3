"""reports/ holds example assessments of fixtures/repos/*; this fails when they are stale.

Regenerate with `python scripts/make_reports.py` (and commit the result)."""
from __future__ import annotations

import subprocess
import sys

from helpers import REPO


def test_reports_are_fresh():
    p = subprocess.run([sys.executable, str(REPO / "scripts/make_reports.py"), "--check"], cwd=REPO,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, (
        "reports/ is stale; run `python scripts/make_reports.py` and commit reports/\n" + p.stdout + p.stderr)


def test_reports_cover_every_fixture_repository_in_every_format():
    sys.path.insert(0, str(REPO / "scripts"))
    from make_reports import FORMATS_FILES

    for repo in sorted(p.name for p in (REPO / "fixtures/repos").iterdir() if p.is_dir()):
        for fname in FORMATS_FILES.values():
            assert (REPO / "reports" / repo / fname).is_file(), f"reports/{repo}/{fname} missing"
