"""Open the HTML assessment in a real headless browser (Debian's chromium) and check what it renders."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from helpers import REPO

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.slow,  # a real browser per test (`-m "not slow"` leaves them out; CI runs them)
              pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; "
                                                          "scripts/bootstrap.sh does it)")]
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
    return path, run.assessment, run.result


def test_browser_renders_verdict_and_charts(page, tmp_path):
    path, a, _ = page
    p = chromium(tmp_path, "--dump-dom", path.as_uri())
    assert p.returncode == 0, p.stderr[-2000:]
    dom = p.stdout
    badge = re.search(r'<span class="badge (\w+)" id="verdict-badge">(\w+)</span>', dom)
    assert badge and badge.groups() == (a.verdict, a.verdict)
    assert dom.count("<svg") >= 3  # effort by category, by directory, the kernel-verdict matrix
    assert len(re.findall(r'<rect class="bar"', dom)) >= 3
    assert len(re.findall(r'<rect class="cell (?:ok|check|retune|fix|rewrite)"', dom)) >= 2 * len(a.breakdowns.by_kernel)
    assert 'id="files"' in dom and 'class="file"' in dom


def test_browser_screenshot(page, tmp_path):
    path, _, _ = page
    shot = tmp_path / "shot.png"
    p = chromium(tmp_path, "--window-size=1200,1600", f"--screenshot={shot}", path.as_uri())
    assert p.returncode == 0, p.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a rendered page, not a blank one


PROBE = """<script>(function () {
  var d = document.documentElement, wide = [];
  document.querySelectorAll("body *").forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.right > window.innerWidth + 1 && wide.length < 5) wide.push(e.tagName + "." + e.className);
  });
  function bottom(sel) { var e = document.querySelector(sel); return e ? Math.round(e.getBoundingClientRect().bottom) : -1; }
  var row = document.querySelector("tr.file"), before = document.querySelectorAll("tr.detail").length;
  row.closest("details").open = true; row.click();
  var detail = row.nextElementSibling;
  document.body.setAttribute("data-probe", JSON.stringify({
    scroll: d.scrollWidth, viewport: window.innerWidth, wide: wide, badge: bottom("#verdict-badge"),
    effort: bottom(".effort .big"), stats: bottom("section.stats"), height: window.innerHeight,
    details_before: before, detail_rows: detail && detail.classList.contains("detail") ? detail.querySelectorAll("tr").length : -1,
    file: row.getAttribute("data-key")}));
})();</script>"""


def probe(tmp_path, page, width: int, height: int = 1000) -> dict:
    """Open the page at a viewport width with a measuring script appended (the report's CSP allows inline
    script): scroll width against the viewport, where the first screen ends, and a file's lazily built findings."""
    import json

    path = tmp_path / f"probe-{width}.html"
    path.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    p = chromium(tmp_path, f"--window-size={width},{height}", "--dump-dom", path.as_uri())
    assert p.returncode == 0, p.stderr[-2000:]
    m = re.search(r'data-probe="([^"]*)"', p.stdout)
    assert m, p.stdout[-2000:]
    import html

    return json.loads(html.unescape(m.group(1)))


@pytest.mark.parametrize("width", [1280, 1920])
def test_browser_screenshots_fit_the_viewport(page, tmp_path, width):
    """At 1280 and 1920 px: a screenshot renders, nothing is wider than the viewport, the verdict, the effort
    and the counts are in the first screen, and a file's findings are built from the inline data on click."""
    path, a, result = page
    shot = tmp_path / f"shot-{width}.png"
    p = chromium(tmp_path, f"--window-size={width},1000", "--hide-scrollbars", f"--screenshot={shot}", path.as_uri())
    assert p.returncode == 0, p.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    assert int.from_bytes(data[16:20], "big") == width  # the PNG is as wide as the viewport asked for
    m = probe(tmp_path, path, width)
    assert m["scroll"] <= m["viewport"], m
    assert m["wide"] == []
    assert 0 < m["badge"] < m["height"] and 0 < m["effort"] < m["height"] and 0 < m["stats"] < m["height"]
    assert m["details_before"] == 0  # no finding rows in the page until a file is opened
    expected = sum(1 for f in result.findings if f.path == m["file"])
    assert m["detail_rows"] == expected > 0



WIDE = """<script>(function () {
  function box(sel) { var e = document.querySelector(sel); if (!e) return null; var r = e.getBoundingClientRect();
    return [Math.round(r.left), Math.round(r.top), Math.round(r.width)]; }
  var figs = Array.prototype.map.call(document.querySelectorAll(".charts figure"), function (f) {
    var r = f.getBoundingClientRect(); return [Math.round(r.left), Math.round(r.top)]; });
  document.body.setAttribute("data-wide", JSON.stringify({main: box("main"), figs: figs,
    libraries: box("#libraries"), recommendations: box("#recommendations"), counts: box("#counts"),
    scroll: document.documentElement.scrollWidth, viewport: window.innerWidth}));
})();</script>"""


def test_a_1920_px_screen_is_used(page, tmp_path):
    """At 1920 px the page is 1880 px wide (it was fixed at 1180), the two effort charts stand side by side and the
    libraries sit beside the recommendations; nothing is wider than the screen."""
    import html
    import json

    path, _, _ = page
    probe_page = tmp_path / "wide.html"
    probe_page.write_text(path.read_text(encoding="utf-8").replace("</body>", WIDE + "</body>"), encoding="utf-8")
    p = chromium(tmp_path, "--window-size=1920,1000", "--dump-dom", probe_page.as_uri())
    assert p.returncode == 0, p.stderr[-2000:]
    m = json.loads(html.unescape(re.search(r'data-wide="([^"]*)"', p.stdout).group(1)))
    assert m["main"][2] == 1880 and 0 < m["main"][0] <= 20  # centred (a scroll bar takes some of the 40 px)
    assert m["scroll"] <= m["viewport"] == 1920
    (x1, y1), (x2, y2) = m["figs"][:2]
    assert y1 == y2 and x2 > x1 + 880  # category and directory charts in one row
    assert m["libraries"][1] == m["recommendations"][1] and m["recommendations"][0] > m["libraries"][0] + 800
    assert m["counts"] is not None
