"""Python ROCm-guard reading, session 24 (issue 27 class 8): a variable read only in CUDA-side code is CUDA-side
where it is assigned (porter.portaware.guards._cuda_only_variables). fixtures/pyrec_s24/README.md says which file
holds which; BLD006's widened nvcc option list is asserted by its annotated fixture (tests/test_rules.py)."""
from __future__ import annotations

from pathlib import Path

from porter.portaware.guards import Span, python_spans

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures/pyrec_s24"


def test_each_pyrec_s24_finding_has_its_exact_status():
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE, Settings(jobs=1, cache_dir=None)).result
    assert [(f.path, f.line, f.rule, str(f.severity), str(f.status), f.handled_by) for f in result.findings] == [
        # a public module-level name: another module may import it
        ("pkg/build.py", 4, "BLD006", "low", "open", None),
        # a private one read only after `if torch.version.hip is not None: return`
        ("pkg/build.py", 6, "BLD006", "low", "handled", "pkg/build.py:10"),
        # a local read only under `if torch.version.cuda:`
        ("pkg/build.py", 17, "BLD006", "low", "handled", "pkg/build.py:18"),
        # setup.py's module-level name read only in the else of `if torch.version.hip:` (nested in another if)
        ("setup.py", 7, "BLD006", "low", "handled", "setup.py:16"),
        # read by both builds' flags
        ("setup.py", 9, "BLD006", "low", "open", None),
        # a function's local read only in the else
        ("setup.py", 13, "BLD006", "low", "handled", "setup.py:16"),
        # a local read before the vendor test: both builds
        ("setup.py", 14, "BLD006", "low", "open", None),
    ]


def test_a_local_read_only_in_the_cuda_branch_is_cuda_side():
    src = (b"import torch\ndef f():\n    a = [1]\n    b = [2]\n    if torch.version.hip:\n        g(b)\n"
           b"    else:\n        g(a, b)\n")
    spans = python_spans(src)
    # `a` (line 3) is read only in the else; `b` in both branches
    assert Span((3, 5), (3, 12), "cuda", 5) in spans
    assert not any(sp.start == (4, 5) for sp in spans)


def test_names_bound_elsewhere_or_declared_global_stay_as_they_are():
    src = (b"import torch\nX = [1]\n_Y = [2]\ndef f():\n    global _Z\n    _Z = 1\n    if torch.version.hip:\n"
           b"        return None\n    return X + _Y + _Z\n")
    starts = {sp.start for sp in python_spans(src) if sp.side == "cuda"}
    # the private `_Y` only: `X` is public (importable), `_Z` is declared global
    assert (3, 1) in starts and (2, 1) not in starts and (6, 5) not in starts
    # a keyword argument's name or an attribute is no read of the variable
    kw = b"import torch\ndef f():\n    a = 1\n    g(a=2)\n    if torch.version.hip:\n        pass\n    else:\n        g(a)\n"
    assert Span((3, 5), (3, 10), "cuda", 5) in python_spans(kw)


def test_a_variable_never_read_is_not_a_side():
    src = b"import torch\ndef f():\n    a = 1\n    if torch.version.hip:\n        pass\n    else:\n        pass\n"
    assert not any(sp.start == (3, 5) for sp in python_spans(src))


def test_an_assignment_that_calls_runs_on_every_build():
    # the capability query and the library load run on ROCm too, whoever reads their results
    src = (b"import torch\ndef f():\n    cap = torch.cuda.get_device_capability()[0]\n    lib = [load('x')]\n"
           b"    flags = [f'-arch=sm_{c}' for c in (80, 90)]\n    if torch.version.hip:\n        pass\n"
           b"    else:\n        g(cap, lib, flags)\n")
    starts = {sp.start for sp in python_spans(src) if sp.side == "cuda"}
    assert (5, 5) in starts and (3, 5) not in starts and (4, 5) not in starts
