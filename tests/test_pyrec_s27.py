"""Python CUDA sides of dual projects (issue 27, Python recall, session 27): CUDA-spelled half switches in an
extension build (PYT027 `-U`, PYT028 `-D`), the CUDA value of a backend tag whose chain has no ROCm arm (PYT029),
and a helper used only in ROCm arms read as ROCm-side code (porter.portaware.guards._cuda_only_helpers).
fixtures/pyrec_s27/README.md says which file holds which."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/pyrec_s27"


def test_each_pyrec_s27_finding_has_its_exact_line_severity_and_status():
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE, Settings(jobs=1, cache_dir=None)).result
    found = [(f.path, f.line, f.rule, str(f.severity), str(f.status), f.handled_by) for f in result.findings
             if f.rule in ("PYT027", "PYT028", "PYT029")]
    assert found == [
        # build_for_rocm(), used only in the torch.version.hip arm, is the port's own code (session 27's ROCm-only
        # helper reading); build_for_cuda() the CUDA side; common_flags() is used nowhere, so nothing confines it
        ("pkg/build.py", 5, "PYT027", "info", "handled", "pkg/build.py:13"),
        ("pkg/build.py", 9, "PYT027", "info", "handled", "pkg/build.py:8"),
        ("pkg/build.py", 19, "PYT027", "info", "open", None),
        # "cuda" beside "ipex" and "cpu", no "rocm": platform_ported.py (its hip arm sets "rocm") and devices.py
        # (torch device names) report nothing
        ("pkg/platform_cuda_only.py", 12, "PYT029", "low", "open", None),
        # the else of `if torch.version.hip is not None:`, then the unguarded flag list
        ("setup.py", 8, "PYT027", "info", "handled", "setup.py:5"),
        ("setup.py", 12, "PYT027", "info", "open", None),
        ("setup.py", 13, "PYT028", "info", "open", None),
    ]


def _tag_lines(src: bytes) -> list[tuple[int, str]]:
    from porter.match.kinds.python import match_backend_tag
    from porter.rules import RULES_DIR, load_rule
    from porter.source.parse import parse

    rule = load_rule(next(RULES_DIR.glob("python/PYT029-*.yaml")))
    sf = parse("tag.py", "python", src)
    return [(src[:h.start].count(b"\n") + 1, h.name) for p in rule.patterns for h in match_backend_tag(p, sf, None)]


def test_a_backend_tag_needs_a_backend_beside_it_and_no_rocm_value_in_the_file():
    chain = b"if a():\n    BACKEND = 'cuda'\nelif b():\n    BACKEND = 'xpu'\nelse:\n    BACKEND = 'cpu'\n"
    assert _tag_lines(chain) == [(2, "BACKEND")]
    # a ROCm value anywhere in the file (a later override) gives ROCm its own tag
    assert _tag_lines(chain + b"if c():\n    BACKEND = 'rocm'\n") == []
    # "cuda" alone, or beside a value that is no backend, is no tag
    assert _tag_lines(b"if a():\n    BACKEND = 'cuda'\nelse:\n    BACKEND = 'auto'\n") == []
    # torch device types under a name without a backend word, or any name with `device`, are devices
    assert _tag_lines(b"if a():\n    where = 'cuda'\nelse:\n    where = 'cpu'\n") == []
    assert _tag_lines(b"if a():\n    device_type = 'cuda'\nelif b():\n    device_type = 'ipex'\n") == []
    # an f-string with a field is not a plain value
    assert _tag_lines(b"if a():\n    BACKEND = f'{x}cuda'\nelse:\n    BACKEND = 'cpu'\n") == []
