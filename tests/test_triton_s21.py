"""Triton kernel verdicts of issue 27 (session 21) on fixtures/kernels_s21: triton.autotune's signature change
(positional warmup/rep read as restore_value since Triton 2.2, also through a project's own wrapper in a package) and
Triton 2.x's libdevice functions in tl.math (gone in Triton 3), reached through a static method of another module.
Exact verdicts, check ids and lines, with near misses."""
from __future__ import annotations

from porter.kernels.triton_imports import ModuleIndex
from porter.model.kernel import TritonHelper

from kernels_s21_table import OK, analysed, every, verdicts


def test_autotune_with_positional_warmup_is_a_fix_directly_or_through_a_wrapper():
    got = verdicts(analysed("autotune"))
    # pkg/util/util.py's autotune(configs, key, prune, reset, warmup, rep) reached through `from pkg import util`
    # and pkg/util/__init__.py's `from .util import *`; the kernel's decorator line carries it
    assert got["k_wrapped"] == every("fix", ("triton-autotune-positional", "fix", (16,)))
    assert got["k_direct"] == every("fix", ("triton-autotune-positional", "fix", (32,)))  # five by position
    assert got["k_local"] == every("fix", ("triton-autotune-positional", "fix", (48,)))  # a same-file wrapper
    # near misses: warmup/rep by keyword, in the wrapper and at triton.autotune itself (four by position)
    assert got["k_wrapped_kw"] == OK
    assert got["k_direct_kw"] == OK
    assert got["k_other"] == OK  # triton_utils.autotune: another package's, not Triton's

def test_the_wrapper_is_exported_with_the_line_of_its_autotune_call():
    result = analysed("autotune")
    helpers = {h.name: h for f in result.files if f.path == "pkg/util/util.py" for h in f.triton_helpers}
    assert list(helpers) == ["autotune"]
    assert (helpers["autotune"].line, helpers["autotune"].end_line) == (6, 8)
    assert [(u.kind, u.name, u.line) for u in helpers["autotune"].uses] == [
        ("autotune-positional", "triton.autotune", 8)]

def test_tl_math_libdevice_functions_are_a_fix_also_through_a_static_method_of_another_module():
    got = verdicts(analysed("mathlib"))
    # language.GELU.forward -> pkg/language/__init__.py (from .act import *) -> act.py's GELU.forward: tl.math.tanh
    assert got["k_gelu"] == every("fix", ("triton-math-libdevice", "fix", (12,)))
    assert got["k_pow"] == every("fix", ("triton-math-libdevice", "fix", (29,)))
    # near miss: tl.math.exp2 / log2 are Triton 3 built-ins, and Exp.forward (tl.math.exp) is told from GELU.forward
    assert got["k_core"] == OK

def test_a_class_qualified_target_resolves_to_one_module_of_the_package():
    def file(path, *names):
        return type("R", (), {"language": "python", "path": path,
                              "triton_helpers": tuple(TritonHelper(n, 1, 2) for n in names)})()
    index = ModuleIndex([file("pkg/language/__init__.py"), file("pkg/language/act.py", "GELU.forward", "gelu"),
                         file("pkg/language/other.py", "Exp.forward"), file("pkg/language/deep/x.py", "gelu")])
    assert index.resolve("pkg/k.py", "pkg.language.GELU.forward")[0] == "pkg/language/act.py"
    assert index.resolve("pkg/k.py", "pkg.language.gelu")[0] == "pkg/language/act.py"  # deep/x.py is not direct
    assert index.resolve("pkg/k.py", "pkg.language.Missing.forward") is None
    two = ModuleIndex([file("p/__init__.py"), file("p/a.py", "f"), file("p/b.py", "f")])
    assert two.resolve("k.py", "p.f") is None  # two modules define it: which one the package binds is not read
