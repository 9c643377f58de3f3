"""Open the HTML assessment in a real headless browser (Debian's chromium) and check what it renders."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from helpers import REPO

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; "
                                                          "scripts/bootstrap.sh does it)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium(tmp_path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "profile"
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                          timeout=120)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    import sys

    sys.path.insert(0, str(REPO / "scripts"))
    from make_reports import assess_repo

    from porter.render import render

    run = assess_repo("fixtures/repos/cuda-app", ("mi300x", "mi355x"))
    d = tmp_path_factory.mktemp("html")
    path = d / "report.html"
    path.write_bytes(render("html", run))
    return path, run.assessment


def test_browser_renders_verdict_and_charts(page, tmp_path):
    path, a = page
    p = chromium(tmp_path, "--dump-dom", path.as_uri())
    assert p.returncode == 0, p.stderr[-2000:]
    dom = p.stdout
    badge = re.search(r'<span class="badge (\w+)" id="verdict-badge">(\w+)</span>', dom)
    assert badge and badge.groups() == (a.verdict, a.verdict)
    assert dom.count("<svg") >= 3  # effort by category, by directory, the kernel-verdict matrix
    assert len(re.findall(r'<rect class="bar"', dom)) >= 3
    assert len(re.findall(r'<rect class="cell (?:ok|check|retune|fix|rewrite)"', dom)) >= 2 * len(a.breakdowns["by_kernel"])
    assert 'id="files"' in dom and 'class="file"' in dom


def test_browser_screenshot(page, tmp_path):
    path, _ = page
    shot = tmp_path / "shot.png"
    p = chromium(tmp_path, "--window-size=1200,1600", f"--screenshot={shot}", path.as_uri())
    assert p.returncode == 0, p.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a rendered page, not a blank one
