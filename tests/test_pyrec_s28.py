"""Python CUDA sides of dual projects (issue 27, Python recall, session 28): nvcc named as the compiler Python
build code runs or looks for (PYT030, info), NVIDIA SM architecture names (PYT031, info) and a compiler enum's NVCC
member chosen beside its ROCM twin (PYT022, which reads `nvcc` as a vendor word since this session). fixtures/pyrec_s28/README.md says which file holds which."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/pyrec_s28"


def test_each_pyrec_s28_finding_has_its_exact_line_severity_and_status():
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE, Settings(jobs=1, cache_dir=None)).result
    found = [(f.path, f.line, f.rule, str(f.severity), str(f.status), f.handled_by) for f in result.findings
             if f.rule in ("PYT001", "PYT020", "PYT022", "PYT030", "PYT031")]
    assert found == [
        # the CUDA arm of `if torch.version.hip:` reads the capability and strips an sm_ prefix (handled); the
        # default and the tuple (one row) have no test
        ("pkg/arch.py", 10, "PYT001", "medium", "handled", "pkg/arch.py:7"),
        ("pkg/arch.py", 12, "PYT031", "info", "handled", "pkg/arch.py:7"),
        ("pkg/arch.py", 13, "PYT031", "info", "handled", "pkg/arch.py:7"),
        ("pkg/arch.py", 18, "PYT031", "info", "open", None),
        ("pkg/arch.py", 21, "PYT031", "info", "open", None),
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


def _arch_lines(src: bytes) -> list[tuple[int, str]]:
    from porter.match.kinds.code import match_query
    from porter.rules import RULES_DIR, load_rule
    from porter.source.parse import parse

    rule = load_rule(next(RULES_DIR.glob("python/PYT031-*.yaml")))
    sf = parse("a.py", "python", src)
    return [(src[:h.start].count(b"\n") + 1, h.name) for p in rule.patterns for h in match_query(p, sf, None)]


def test_an_sm_name_is_read_once_per_spot_and_never_inside_an_nvcc_option():
    # a set of names is one spot (its first element); an f-string is read by the text before its first field
    assert _arch_lines(b"ok = arch in {'sm_80', 'sm_90'}\nname = f'sm_{major}{minor}'\n") == [(1, "sm_80"), (2, "sm_")]
    # an nvcc option spelling one is BLD006's; words that only start with sm_ are no architecture
    assert _arch_lines(b"flags = ['-arch=sm_80']\nkey = 'sm_count'\n") == []
    # a set whose first element is no sm_ name is not read (one row per spot, at the first element)
    assert _arch_lines(b"ok = arch in {'auto', 'sm_90'}\n") == []
