"""Python CUDA sides of dual projects (issue 27, Python recall, session 26): an NVML-backed torch.cuda query
(PYT024), a per-CUDA-release artefact name (PYT025), a Triton libdevice function the HIP libdevice lacks (PYT026)
and the CUDA member of a class that also defines a HIP member, handed on as a value (PYT022).
fixtures/pyrec_s26/README.md says which file holds which."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/pyrec_s26"


def test_each_pyrec_s26_finding_has_its_exact_line_severity_and_status():
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE, Settings(jobs=1, cache_dir=None)).result
    assert [(f.path, f.line, f.rule, str(f.severity), str(f.status), f.handled_by) for f in result.findings] == [
        # the else of `if IS_HIP:` (IS_HIP = torch.version.hip is not None), then the unguarded helper
        ("pkg/kernels.py", 15, "PYT026", "low", "handled", "pkg/kernels.py:8"),
        ("pkg/kernels.py", 20, "PYT026", "low", "open", None),
        ("pkg/loader.py", 9, "PYT025", "info", "handled", "pkg/loader.py:7"),
        ("pkg/loader.py", 13, "PYT025", "info", "open", None),
        ("pkg/memory.py", 8, "PYT024", "info", "handled", "pkg/memory.py:5"),
        ("pkg/memory.py", 12, "PYT024", "info", "open", None),
        # `return Target.CUDA` beside `return Target.HIP` in the same if chain (line 11) is chosen already, and
        # `target == Target.CUDA` (line 19) tests the member: only default_gpu's return is a choice to make
        ("pkg/target.py", 15, "PYT022", "low", "open", None),
    ]


def test_a_member_is_a_twin_only_when_its_own_class_defines_the_other_vendor():
    from porter.match.kinds.python import _twin_members, _variant_spec
    from porter.source.parse import parse

    spec = {"vendor_variant": {"vendors": ["cuda"], "twins": ["rocm", "hip", "amd"]}}
    shape, _, predicates, others, twins, vendors = _variant_spec(spec)
    src = (b"class Backend:\n    CUDA = 1\n    ROCM = 2\n\n\nclass Device:\n    CUDA = 'cuda'\n\n\n"
           b"def pick():\n    a = Device.CUDA\n    return Backend.CUDA\n")
    sf = parse("pick.py", "python", src)
    from porter.match.kinds.python import _file_identifiers, _is_variant_name
    candidates = [n for n, text in _file_identifiers(sf)
                  if _is_variant_name(text.decode(), shape, predicates, others)]
    hits = list(_twin_members(sf, candidates, vendors, twins))
    assert [(src[:h.start].count(b"\n") + 1, h.name) for h in hits] == [(12, "Backend.CUDA")]
