"""Python CUDA sides of dual projects (issue 27, Python recall, session 30): a backend chosen as a constant's member
in a nested chain (PYT029), optimum-quanto's CUDA extension (LIB008 through the library map), NVIDIA's register
cap set from Python (PYT032), a vendor-prefixed SM name (PYT031), nvcc's `-isystem=` spelling (BLD006) and
`half` as a name expression's C type name (PYT033).
fixtures/pyrec_s30/README.md says which file holds which."""
from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/pyrec_s30"


def test_each_pyrec_s30_finding_has_its_exact_line_severity_and_status():
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE, Settings(jobs=1, cache_dir=None)).result
    found = [(f.path, f.line, f.rule, str(f.severity), str(f.status), f.handled_by) for f in result.findings]
    assert found == [
        # pkg/device.py reports nothing: its hip arm sets the tag's ROCm member (gs.amdgpu)
        ("pkg/choose.py", 11, "PYT029", "low", "open", None),
        ("pkg/names.py", 9, "PYT033", "low", "handled", "pkg/names.py:6"),
        ("pkg/names.py", 15, "PYT033", "low", "open", None),
        ("pkg/options.py", 9, "PYT032", "info", "handled", "pkg/options.py:8"),
        ("pkg/options.py", 15, "PYT032", "info", "open", None),
        ("pkg/options.py", 23, "PYT031", "info", "handled", "pkg/options.py:20"),
        ("pkg/quant.py", 5, "LIB008", "medium", "handled", "pkg/quant.py:4"),
        ("pkg/quant.py", 9, "LIB008", "medium", "open", None),
        ("setup.py", 11, "BLD006", "low", "handled", "setup.py:8"),
        ("setup.py", 13, "BLD006", "low", "open", None),
    ]


def test_the_backend_tag_names_the_member_it_reads():
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE, Settings(jobs=1, cache_dir=None)).result
    tag = next(f for f in result.findings if f.rule == "PYT029")
    assert tag.message.startswith("`kernel_backend` gets the CUDA value `cuda` of the project's backend tag")


def _tag_lines(src: bytes) -> list[tuple[int, str, str]]:
    from porter.match.kinds.python import match_backend_tag
    from porter.rules import RULES_DIR, load_rule
    from porter.source.parse import parse

    rule = load_rule(next(RULES_DIR.glob("python/PYT029-*.yaml")))
    sf = parse("tag.py", "python", src)
    return [(src[:h.start].count(b"\n") + 1, h.name, dict(h.values)["value"])
            for p in rule.patterns for h in match_backend_tag(p, sf, None)]


def test_a_member_value_and_a_nested_chain_make_a_tag_but_torch_modules_do_not():
    nested = (b"if a():\n    if b():\n        backend = gs.cuda\nelif c():\n    backend = gs.metal\n"
              b"else:\n    backend = gs.cpu\n")
    # one hit, though the assignment belongs both to the nested chain and to the outer chain's first arm
    assert _tag_lines(nested) == [(3, "backend", "cuda")]
    # the ROCm member assigned anywhere in the file is the tag's ROCm value
    assert _tag_lines(nested + b"if d():\n    backend = gs.amdgpu\n") == []
    # torch.cuda is the ROCm device module too: never a tag value
    assert _tag_lines(b"if a():\n    backend = torch.cuda\nelse:\n    backend = torch.cpu\n") == []
    # a member that names no backend beside the CUDA one is no tag
    assert _tag_lines(b"if a():\n    backend = gs.cuda\nelse:\n    backend = gs.auto\n") == []


def test_clang_reads_nvcc_isystem_equals_as_a_sysroot_path(tmp_path):
    """BLD006's reason for `-isystem=DIR`: clang (hipcc's compiler) does not search DIR for `-isystem=DIR`, where
    `-isystemDIR` finds the header. Skipped where no clang-22 is installed."""
    import shutil

    import pytest

    clang = shutil.which("clang-22")
    if clang is None:
        pytest.skip("clang-22 not installed")
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "probe_s30.h").write_text("#define PROBE_S30 1\n")
    src = tmp_path / "t.hip"
    src.write_text("#include <probe_s30.h>\nint x = PROBE_S30;\n")
    base = [clang, "-x", "hip", "--cuda-host-only", "-nogpuinc", "-nogpulib", "-fsyntax-only", str(src)]
    assert subprocess.run(base + [f"-isystem{inc}"], capture_output=True).returncode == 0
    assert subprocess.run(base + [f"-isystem={inc}"], capture_output=True).returncode != 0
