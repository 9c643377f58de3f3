"""Python CUDA sides of dual projects (issue 27, Python recall, session 28): nvcc named as the compiler Python
build code runs or looks for (PYT030, info) and a compiler enum's NVCC member chosen beside its ROCM twin (PYT022,
which reads `nvcc` as a vendor word since this session). fixtures/pyrec_s28/README.md says which file holds which."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/pyrec_s28"


def test_each_pyrec_s28_finding_has_its_exact_line_severity_and_status():
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE, Settings(jobs=1, cache_dir=None)).result
    found = [(f.path, f.line, f.rule, str(f.severity), str(f.status), f.handled_by) for f in result.findings
             if f.rule in ("PYT020", "PYT022", "PYT030")]
    assert found == [
        # the nvcc arm of `if IS_ROCM:` (its hipcc twin blanked or not), then the unguarded lookup: two strings,
        # two rows; the flag-dict keys (lines 21-22), the name test (26) and the version probe (PYT020's) are not
        ("pkg/build_ext.py", 12, "PYT030", "info", "handled", "pkg/build_ext.py:9"),
        ("pkg/build_ext.py", 16, "PYT030", "info", "open", None),
        ("pkg/build_ext.py", 16, "PYT030", "info", "open", None),
        ("pkg/build_ext.py", 31, "PYT020", "info", "open", None),
        # NVCC in the else of the vendor test has its ROCM twin beside it (nothing); returned bare it is the choice
        ("pkg/compilers.py", 20, "PYT022", "low", "open", None),
    ]


def _member_lines(src: bytes) -> list[tuple[int, str]]:
    from porter.match.kinds.python import match_vendor_variant
    from porter.rules import RULES_DIR, load_rule
    from porter.source.parse import parse

    rule = load_rule(next(RULES_DIR.glob("python/PYT022-*.yaml")))
    sf = parse("c.py", "python", src)
    return [(src[:h.start].count(b"\n") + 1, h.name) for p in rule.patterns for h in match_vendor_variant(p, sf, None)]


def test_an_nvcc_member_is_a_vendor_choice_only_beside_a_rocm_twin_member():
    enum = b"class C:\n    NVCC = 'nvcc'\n    ROCM = 'rocm'\n\n\ndef f():\n    return C.NVCC\n"
    assert _member_lines(enum) == [(7, "C.NVCC")]
    # the twin may be HIP or HIPCC too
    assert _member_lines(enum.replace(b"ROCM", b"HIPCC")) == [(7, "C.NVCC")]
    # no ROCm member: a compiler name, not a vendor choice
    assert _member_lines(enum.replace(b"ROCM", b"CLANG")) == []
    # a comparison tests the member
    assert _member_lines(enum.replace(b"return C.NVCC", b"return x == C.NVCC")) == []
    # an nvcc/hipcc twin function pair: the call of the nvcc one is the choice
    funcs = b"def build_nvcc(s):\n    return s\n\n\ndef build_hipcc(s):\n    return s\n\n\nobj = build_nvcc('k.cu')\n"
    assert _member_lines(funcs) == [(9, "build_nvcc")]
