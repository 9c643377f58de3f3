"""Red team (session 21): a finding's SARIF message carries no embedded link from the repository.

SARIF 2.1.0 section 3.11.6 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/sarif-v2.1.0-os.html#_Toc34317468):
plain-text message strings may hold embedded links, `[text](target)`, with a related location's id or a URI as the
target, which viewers render as a link; a literal bracket is written `\\[` / `\\]`. CTR006 quotes the index URL
it found up to the next space or quote, so a requirements.txt line put `[Sign in to continue](https://evil.example/)`
into the message as a live link a code-scanning viewer renders under porter's name."""
from __future__ import annotations

import json
import re

from tests.helpers import make_repo, porter_here

# An embedded link as SARIF reads one: a `[` not escaped by a backslash (itself not escaped), then `](`.
EMBEDDED_LINK = re.compile(r"(?<!\\)(?:\\\\)*\[[^\]]*(?<!\\)(?:\\\\)*\]\(")


def test_a_quoted_url_opens_no_embedded_link_in_sarif(tmp_path):
    line = "--extra-index-url https://pypi.nvidia.com/\\[x\\\\[Sign-in](https://evil.example/login)[y\\](https://e2.example)\n"
    repo = make_repo(tmp_path / "r", {"requirements.txt": line})
    p = porter_here("scan", str(repo), "-f", "sarif", "--no-cache", "-j", "1")
    assert p.returncode == 0, p.stderr
    results = json.loads(p.stdout)["runs"][0]["results"]
    texts = [r["message"]["text"] for r in results if r["ruleId"] == "CTR006"]
    assert texts == ["https://pypi.nvidia.com/\\[x\\\\[Sign-in\\](https://evil.example/login)[y\\\\\\](https://e2.example) is a "
                     "CUDA wheel index; on ROCm use https://download.pytorch.org/whl/rocm<version> for PyTorch (or AMD's "
                     "repo.radeon.com wheels) — NVIDIA's index has no ROCm packages."]
    assert not any(EMBEDDED_LINK.search(t) for t in texts)
