"""Find a CI job that already runs on an AMD GPU runner: the repository's CI has its ROCm runner.

CTR007 reports a CI job on an NVIDIA GPU runner and asks for an AMD one beside it. A project that already builds for
ROCm often has both: ginkgo's .gitlab-ci.yml runs its coverage job on the `nla-gpu` (NVIDIA) runner and its
`build/amd/...` jobs on runners tagged `amd-gpus` and `amd-gpus-mi210` (defined in .gitlab/image.yml, which the CI
file includes). Then the NVIDIA job is the CUDA side of a CI that has its ROCm side: nothing is left to add.

`amd_runner_line(text)` reads one CI file (GitHub Actions `runs-on:`, GitLab `tags:`, each as an inline value or a
list below the key) and gives the first line whose runner label names AMD hardware or ROCm. Line-based on purpose:
GitLab files use tags (`!reference`) a YAML loader refuses.
"""
from __future__ import annotations

import fnmatch

from porter.lazyre import lazy_regex

# The CI files a runner label can be in (CTR007's own files, and the files GitLab CI includes from .gitlab/).
CI_GLOBS = (".github/workflows/*.yml", ".github/workflows/*.yaml", ".gitlab-ci.yml", "*.gitlab-ci.yml",
            ".gitlab/*.yml", ".gitlab/*.yaml", ".gitlab/**/*.yml", ".gitlab/**/*.yaml")
_KEY = lazy_regex(r"^(\s*)(?:-\s+)?(runs-on|tags)\s*:\s*(.*?)\s*(?:#.*)?$")
_ITEM = lazy_regex(r"^(\s*)-\s*(.*?)\s*(?:#.*)?$")
# A runner label for AMD GPUs: the vendor, ROCm, an Instinct or Radeon part, or a gfx target.
# `amd64` is a CPU architecture, not a GPU runner.
AMD_LABEL = lazy_regex(r"(?i)(?<![a-z0-9])(?:amd(?!64)|rocm|mi[1-4]\d\d[a-z]?|instinct|radeon|gfx(?:9|10|11|12)\w*)"
                       r"(?![a-z0-9])")


def is_ci_file(path: str) -> bool:
    return any(fnmatch.fnmatchcase(path, g) for g in CI_GLOBS)


def amd_runner_line(text: str) -> int | None:
    """The first line of `text` (a CI file) whose runs-on or tags value names an AMD GPU runner, or None."""
    key_indent = None
    for n, row in enumerate(text.splitlines(), 1):
        m = _KEY().match(row)
        if m:
            value = m.group(3)
            if value and AMD_LABEL().search(value):
                return n
            key_indent = len(m.group(1)) if not value else None
            continue
        if key_indent is None or not row.strip():
            continue
        item = _ITEM().match(row)
        if item is None or len(item.group(1)) < key_indent:
            key_indent = None  # the list under the key ended
            continue
        if AMD_LABEL().search(item.group(2)):
            return n
    return None
