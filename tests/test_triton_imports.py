"""Triton kernels calling jit functions of other modules of the project (porter.kernels.triton_imports) on
fixtures/triton_imports: absolute, module-alias and relative imports resolved to the exact helper and lines, the
helper's features judged at the kernel's calling line, a module outside the scanned root never read, an import
cycle walked once, and the resolution rules one by one."""
from __future__ import annotations

import pytest

from porter.kernels.triton_imports import ModuleIndex, imported_helpers
from porter.kernels.verdicts import analyse
from porter.model.kernel import Kernel, KernelFacts, TritonFacts, TritonHelper, TritonUse
from porter.model.report import FileResult
from porter.pipeline import scan
from porter.settings import Settings

from conftest import FIXTURES

PROJ = FIXTURES / "triton_imports" / "proj"


@pytest.fixture(scope="module")
def analysed():
    return analyse(scan(PROJ, Settings(jobs=1, cache_dir=None)), ["mi300x"])


def kernel(result, name):
    return next(k for k in result.kernels if k.name == name)


def reached(result, name):
    return [(h.where, h.call_line, h.spans) for h in kernel(result, name).facts.triton.imported]


def checks(result, name):
    return {(d.id, d.verdict, d.lines) for v in kernel(result, name).verdicts for d in v.details}


def test_absolute_import_brings_the_helpers_cuda_extra_to_the_calling_line(analysed):
    assert reached(analysed, "k_absolute") == [
        ("pkg.ops.activations.fast_exp (pkg/ops/activations.py:8)", 19, ((8, 10),))]
    assert kernel(analysed, "k_absolute").facts.triton.all_uses == (TritonUse("cuda-extra", "libdevice.exp", 19),)
    assert kernel(analysed, "k_absolute").facts.triton.uses == ()  # its own body uses nothing
    assert checks(analysed, "k_absolute") == {("triton-cuda-extra", "fix", (19,))}
    assert [v.verdict for v in kernel(analysed, "k_absolute").verdicts] == ["fix"]


def test_module_alias_call_resolves_and_a_plain_helper_keeps_ok(analysed):
    assert reached(analysed, "k_module") == [("pkg.ops.activations.relu (pkg/ops/activations.py:13)", 26, ((13, 15),))]
    assert [v.verdict for v in kernel(analysed, "k_module").verdicts] == ["ok"]


def test_relative_imports_reach_a_module_and_a_package_init_with_their_same_file_helpers(analysed):
    # more.deep calls _asm_square in its own file: both spans count, the PTX asm of line 9 lands on line 33
    assert reached(analysed, "k_relative") == [
        (".ops.more.deep (pkg/ops/more.py:12)", 33, ((12, 14), (7, 9))),
        (".ops.clamp01 (pkg/ops/__init__.py:6)", 34, ((6, 8),)),
    ]
    assert checks(analysed, "k_relative") == {("triton-inline-asm", "fix", (33,))}


def test_a_module_outside_the_scanned_root_is_never_followed(analysed):
    k = kernel(analysed, "k_outside")
    assert k.facts.triton.calls == (("badmod.bad", 41),)  # the call is seen ...
    assert k.facts.triton.imported == ()  # ... but ../outside/badmod.py (PTX asm) is not the project's
    assert [v.verdict for v in k.verdicts] == ["ok"]


def test_an_import_cycle_is_walked_once(analysed):
    assert reached(analysed, "k_cycle") == [
        ("pkg.ops.activations.ping (pkg/ops/activations.py:18)", 48, ((18, 22),)),
        ("pkg.ops.activations.ping → .more.pong (pkg/ops/more.py:17)", 48, ((17, 21),)),
    ]


def test_analysing_twice_replaces_the_imported_helpers(analysed):
    assert analyse(analysed, ["mi300x"]).kernels == analysed.kernels


def _files(*paths: str, helpers: dict[str, tuple[TritonHelper, ...]] | None = None) -> list[FileResult]:
    return [FileResult(p, "python", 10, triton_helpers=(helpers or {}).get(p, ())) for p in paths]


def test_an_absolute_module_two_files_could_be_is_the_callers_neighbour_or_nothing():
    index = ModuleIndex(_files("a/util.py", "b/util.py", "b/k.py", "c/k.py"))
    assert index.module_file("b/k.py", "util") == "b/util.py"  # a script's own directory is first on sys.path
    assert index.module_file("c/k.py", "util") is None  # a/ and b/ are as near: ambiguous, not a guess
    assert index.module_file("c/k.py", "a.util") == "a/util.py"  # the path's tail at a directory boundary
    assert index.module_file("c/k.py", "xa.util") is None


def test_relative_imports_name_exactly_one_path_and_never_climb_above_the_root():
    index = ModuleIndex(_files("src/pkg/__init__.py", "src/pkg/sub/m.py", "src/pkg/n.py", "src/pkg/sub/k.py"))
    assert index.module_file("src/pkg/sub/k.py", "src/pkg/sub:.m") == "src/pkg/sub/m.py"
    assert index.module_file("src/pkg/sub/k.py", "src/pkg/sub:..n") == "src/pkg/n.py"
    assert index.module_file("src/pkg/sub/k.py", "src/pkg/sub:..") == "src/pkg/__init__.py"
    assert index.module_file("src/pkg/sub/k.py", "src/pkg/sub:.....n") is None


def test_the_walk_stops_at_the_depth_limit():
    # a chain m0.f -> m1.f -> ... -> m9.f: the kernel takes four of them (MAX_DEPTH)
    helpers = {f"m{i}.py": (TritonHelper("f", 1, 3, ((1, 3),), calls=((f"m{i + 1}.f", 2),) if i < 9 else ()),)
               for i in range(10)}
    index = ModuleIndex(_files(*helpers, "k.py", helpers=helpers))
    k = Kernel("k.py", 1, 5, "k", "k", facts=KernelFacts(lines=5, triton=TritonFacts(calls=(("m0.f", 3),))),
               language="triton")
    assert [h.path for h in imported_helpers(k, index)] == ["m0.py", "m1.py", "m2.py", "m3.py"]


def test_a_module_helpers_legacy_libdevice_makes_the_kernel_a_fix_at_its_call(analysed):
    # the kernl shape (issue 27, heldout14): `act.gelu(acc)` with gelu calling Triton 2.0's tl.libdevice.erf
    assert reached(analysed, "k_gelu") == [("pkg.ops.activations.gelu (pkg/ops/activations.py:25)", 56, ((25, 27),))]
    assert kernel(analysed, "k_gelu").facts.triton.all_uses == (TritonUse("legacy-libdevice", "tl.libdevice.erf", 56),)
    assert checks(analysed, "k_gelu") == {("triton-legacy-libdevice", "fix", (56,))}


def test_a_helper_its_module_defines_twice_under_a_condition_is_not_followed(analysed):
    # safe_dot is PTX asm under `if IS_BLACKWELL:` and a plain tl.dot otherwise (fla's ops/utils/op.py shape)
    k = kernel(analysed, "k_safe_dot")
    assert k.facts.triton.calls == (("pkg.ops.activations.safe_dot", 64),)
    assert k.facts.triton.imported == ()
    assert [v.verdict for v in k.verdicts] == ["ok"]
