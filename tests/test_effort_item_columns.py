"""The "How the estimate adds up" table names its two numbers (session 25's new-user trial): an item's own range
(what its basis works out; JSON items[].hours) and its share of the total's P10-likely-P90 (apportioned so the column
adds up). The one column headed "hours" showed the share next to a basis that worked out the own range."""
from __future__ import annotations

import json

from helpers import REPO, porter_here


def test_markdown_shows_each_items_own_range_and_its_share_of_the_total():
    args = ("assess", str(REPO / "fixtures/repos/cuda-app"), "--target", "mi300x", "--no-cache")
    md = porter_here(*args, "-f", "markdown").stdout.splitlines()
    doc = json.loads(porter_here(*args, "-f", "json").stdout)["assessment"]
    head = md.index("| item | category | count | own estimate, h (low–likely–high) | share of the total, h "
                    "(P10–likely–P90) | basis |")
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in md[head + 2:] if line.startswith("| ")]
    rows = [c for c in cells if c[0].startswith("Kernel histogram_kernel ")]
    assert [(r[3], r[4]) for r in rows] == [("0.8–1.6–4", "1.8–1.9–2.1")]
    own = next(it["hours"] for it in doc["items"] if it["title"] == "Kernel histogram_kernel")
    assert own == {"low": 0.8, "likely": 1.61, "high": 4.02}
    total = next(c for c in cells if c[0] == "**Total**")
    assert total[3:5] == ["", "**14.9–16.8–19.1**"]  # the share column adds up; the own ranges have no sum
    assert doc["effort"]["hours"] == {"low": 14.89, "likely": 16.85, "high": 19.06}


def test_the_kernel_table_says_its_total_is_the_kernels_own_estimates():
    """"all kernels" (each kernel's own likely, summed) and the kernel row of the effort by category (fix-once sites
    too, a share of the total's range) are different figures; the reports now say so where the kernel table is."""
    from porter.render.figures import KERNEL_DAYS_NOTE

    args = ("assess", str(REPO / "fixtures/repos/cuda-app"), "--target", "mi300x", "--no-cache")
    md = porter_here(*args, "-f", "markdown").stdout.splitlines()
    at = md.index("## Kernels")
    assert md[at + 4] == KERNEL_DAYS_NOTE
    end = next(i for i in range(at, len(md)) if md[i].startswith("| **all kernels**"))
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in md[at:end] if line.startswith("| `")]
    total = md[end]
    assert total.endswith(f"| **{round(sum(float(r[-1]) for r in rows), 1):g}** |")
    html = porter_here(*args, "-f", "html").stdout
    assert "Days are each kernel&#39;s own likely estimate; &#34;all kernels&#34; adds them up." in html
