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
from porter.portaware.scope import vendor_key

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


# A CI job's name with its vendor word: `build-cuda` / `build-rocm`, `test_nvidia` / `test_amd`, `cuda-11` / `hip-11`
# (porter.portaware.scope.vendor_key, with these words read as their platform's).
_JOB_WORDS = (("amd", "hip"), ("nvcc", "cuda"), ("nvidia", "cuda"))
_JOB_KEY = lazy_regex(r"^(\s*)([A-Za-z0-9_.-][^:#\s]*|\"[^\"]+\"|'[^']+')\s*:\s*(?:#.*)?$")
# GitLab CI's top-level keywords, which are not jobs (https://docs.gitlab.com/ci/yaml/)
_GITLAB_KEYWORDS = frozenset({"default", "include", "stages", "variables", "workflow", "image", "services", "cache",
                              "before_script", "after_script", "spec", "pages"})


def _job_key(name: str) -> tuple[str, str | None]:
    """(the job name's vendor_key; "cuda", "rocm" or None: the one side it names)."""
    key, cuda, rocm = vendor_key(name.strip("\"'"), _JOB_WORDS)
    return key, ("cuda" if cuda and not rocm else "rocm" if rocm and not cuda else None)


def ci_job_twins(text: str) -> list[tuple[int, int, int]]:
    """(first line, last line, the twin's line) of each CI job named for CUDA whose ROCm twin the same file defines:
    spla's .github/workflows/ci.yml runs `build-cuda` in the nvidia/cuda container beside `build-rocm`, which installs
    hip-dev and rocblas-dev. The CUDA job is the CUDA side of a CI that has its ROCm side: its NVIDIA image is no work
    left. Jobs are the keys under GitHub Actions' `jobs:`, or a GitLab file's top-level keys other than its keywords;
    a job spans from its key to the next key at its indent (or less). Line-based, as amd_runner_line."""
    rows = text.splitlines()
    jobs: list[tuple[int, str]] = []  # (line, name)
    indent: int | None = None
    github = any(r.rstrip() == "jobs:" for r in rows)
    in_jobs = not github
    for n, row in enumerate(rows, 1):
        if not row.strip() or row.lstrip().startswith("#"):
            continue
        lead = len(row) - len(row.lstrip())
        if github and lead == 0:
            in_jobs = row.rstrip() == "jobs:"
            indent = None
            continue
        if not in_jobs:
            continue
        m = _JOB_KEY().match(row)
        if indent is None and m is not None and (github or lead == 0):
            indent = lead
        if m is not None and lead == indent and not (not github and m.group(2) in _GITLAB_KEYWORDS):
            jobs.append((n, m.group(2)))
        elif lead <= (indent if indent is not None else -1) and m is None:
            jobs.append((n, ""))  # something else at the jobs' indent ends the job above
    ends = [b for b, _ in jobs[1:]] + [len(rows) + 1]
    keyed = [(a, e - 1, *_job_key(name)) for (a, name), e in zip(jobs, ends) if name]
    rocm = {k: a for a, _e, k, s in keyed if s == "rocm"}
    return [(a, e, rocm[k]) for a, e, k, s in keyed if s == "cuda" and k in rocm]
