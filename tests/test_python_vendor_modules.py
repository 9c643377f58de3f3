"""PYT018 (the project's NVIDIA-only module imported) and PYT017's twin rule, on small trees: the exact lines and the
module each finding names, a platform switch that imports both vendors' modules, and the same switch with its ROCm
arm blanked (how bench/score_judged.py measures recall on dual projects)."""
from __future__ import annotations

from pathlib import Path

from porter.pipeline import scan
from porter.settings import Settings

SWITCH = """\
import torch

if torch.version.cuda:
    from proj.layers.nvidia.tp_mlp import TP_MLP
    PLATFORM = "nvidia"
elif torch.version.hip:
    from proj.layers.amd.tp_mlp import TP_MLP
    PLATFORM = "amd"
"""

BLANKED = """\
import torch

if _guard_blanked_3:
    from proj.layers.nvidia.tp_mlp import TP_MLP
    PLATFORM = "nvidia"
elif _guard_blanked_6:
    pass
"""


def _pyt018(tree: Path) -> list[tuple[str, int, str]]:
    result = scan(tree, Settings(jobs=1, cache_dir=None))
    return sorted((f.path, f.line, f.message.split("`")[1]) for f in result.findings if f.rule == "PYT018")


def _write(tree: Path, rel: str, text: str) -> None:
    path = tree / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_switch_that_imports_both_vendors_modules_already_chooses(tmp_path):
    # Triton-distributed's models/dense.py: the ROCm arm imports the `amd` twin, so the import chooses per platform
    _write(tmp_path, "proj/models/dense.py", SWITCH)
    assert _pyt018(tmp_path) == []


def test_the_nvidia_import_is_found_once_the_rocm_arm_is_gone(tmp_path):
    # the same file with its ROCm arm blanked (a project before its port): the import is the port spot; `proj` has
    # no __init__.py (a namespace package), and is the project's own because the file sits under it
    _write(tmp_path, "proj/models/dense.py", BLANKED)
    assert _pyt018(tmp_path) == [("proj/models/dense.py", 4, "proj.layers.nvidia.tp_mlp")]


def test_the_variants_own_files_and_libraries_are_not_choices(tmp_path):
    _write(tmp_path, "proj/__init__.py", "")
    _write(tmp_path, "proj/layers/nvidia/tp_mlp.py", "from proj.layers.nvidia.common import barrier\n")
    _write(tmp_path, "proj/run.py", "import nvidia.cublas\nfrom cuda.bindings import driver\n"
                                    "from proj.layers.nvidia.common import barrier\n")
    assert _pyt018(tmp_path) == [("proj/run.py", 3, "proj.layers.nvidia.common")]


def test_both_variants_joined_in_one_expression_are_no_choice(tmp_path):
    # Triton-distributed's setup.py `DEPS = DEPS_NVIDIA + DEPS_HIP` (judged false): each list is filled per platform
    _write(tmp_path, "setup.py", 'DEPS_NVIDIA = ["nvshmem"]\nDEPS_HIP = ["hip-python"]\nDEPS = DEPS_NVIDIA + DEPS_HIP\n'
                                 'ONLY = DEPS_NVIDIA + ["ninja"]\n')
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    assert sorted(f.line for f in result.findings if f.rule == "PYT017") == [4]
