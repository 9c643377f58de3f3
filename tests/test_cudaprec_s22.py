"""Session 22 (cudaprec4) refine steps on CUDA-only projects: ndk-build files (4f), flags of OFF options (4g), the
Windows step's file test (4c), wheels a pinned CUDA torch brings (5u), the configure-time capability probe's one
open finding (8g), and the drop-in library rules' flash-attn readings (LIB007, LIB010)."""
from __future__ import annotations

from porter.pipeline import scan
from porter.settings import Settings


def _findings(tmp_path, files: dict[str, str]) -> list[tuple[str, str, int, str, str | None]]:
    """(path, rule, line, severity, the data key a refine step set or None) of every finding, in order."""
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    keys = ("android_only", "opt_in", "windows_only", "torch_closure", "probe", "amd_answers")
    r = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    return [(f.path, f.rule, f.line, str(f.severity), next((k for k in keys if k in dict(f.data)), None))
            for f in r.findings]


def test_flash_attn_imports_and_open_ended_requirements_are_drop_in(tmp_path):
    got = _findings(tmp_path, {
        "m.py": "from flash_attn import flash_attn_varlen_func\nimport xformers.ops\n",
        "setup.py": "from setuptools import setup\nsetup(name='x', install_requires=['flash-attn>=2.6.3'])\n",
        "install.sh": "pip install flash_attn==2.6.3\npip install 'flash-attn<2.7'\n",
    })
    assert [g[:4] for g in got] == [("install.sh", "LIB010", 1, "low"), ("install.sh", "LIB010", 2, "low"),
                                    ("m.py", "LIB007", 2, "low")]
