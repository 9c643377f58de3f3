"""The `porter translate` flow as one library call: check options, translate, write or diff, verify.

cli.py only parses options, calls `run_translate` and prints what it returns.
"""
from __future__ import annotations

import dataclasses
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from porter.budget import Budget, Overrun, Pool, run_stage, stage_budget
from porter.model import Skipped
from porter.translate import TranslateError, TranslateOptions, TranslationResult, translate

# What the translate worker reads (set before it forks: it inherits them, nothing is pickled but the answer).
_INPUT: tuple = ()


def _budgeted_translate(path: Path, options: TranslateOptions, progress, budget: Budget) -> TranslationResult:
    """translate() in a budgeted worker (porter.budget: it reads, lexes and parses repository content); nothing is
    written there, so a worker killed at its budget leaves no half-written file.

    The tree is translated as one set (headers and sources inform each other) under a stage's budget. When that
    runs out, each file translate would read (C/C++/CUDA sources, build files) is tried alone under the per-file
    budget, and the set is translated again without the files that ran out: those are listed as skipped, the rest
    is translated. Past the budget still (the set's cost is not one file's): TranslateError."""
    from porter.source.discover import discover

    files = len(discover(path, list(options.include), list(options.exclude)).files) if path.is_dir() else 1
    answer = _run(path, options, progress, stage_budget(budget, files))
    over: list[tuple[str, str]] = []
    if isinstance(answer, Overrun) and path.is_dir():
        over = _over_budget_files(path, options, budget)
        if over:
            fewer = dataclasses.replace(options, exclude=(*options.exclude, *(_literal_glob(rel) for rel, _ in over)))
            answer = _run(path, fewer, progress, stage_budget(budget, files))
    if isinstance(answer, Overrun):
        raise TranslateError(f"{path}: translating it {answer.reason}; nothing was written (a generated or "
                             "pathological file? --exclude it)")
    if over:
        skipped = {*answer.skipped, *(Skipped(rel, f"translating it alone {why}; not translated (kept as it is)")
                                      for rel, why in over)}
        # Kept as it is: an output tree gets it copied, as any file translate does not change.
        answer = dataclasses.replace(answer, skipped=tuple(sorted(skipped)),
                                     copies=tuple(sorted({*answer.copies, *(rel for rel, _ in over)})))
    return answer


def _run(path: Path, options: TranslateOptions, progress, budget: Budget) -> TranslationResult | Overrun:
    global _INPUT
    _INPUT = (path, options, progress)
    try:
        return run_stage(_translate_task, (), budget)
    finally:
        _INPUT = ()


def _translate_task() -> TranslationResult:
    path, options, progress = _INPUT
    return translate(path, options, progress)


def _over_budget_files(root: Path, options: TranslateOptions, budget: Budget) -> list[tuple[str, str]]:
    """(path, why) of each file translate reads (C/C++/CUDA sources, build files) that runs out of the per-file
    `budget` translated alone, in budgeted workers."""
    from porter.source.discover import language_of, tree_entries
    from porter.translate import BACKUP_DIR
    from porter.translate.buildfiles import kind_of

    global _PROBE
    real = root.resolve()
    entries, _, _ = tree_entries(real, list(options.include) or None, list(options.exclude) or None)
    todo = [rel for rel, _ in entries if rel.split("/")[0] != BACKUP_DIR and (language_of(rel) == "cuda" or kind_of(rel))]
    _PROBE = (real, options)
    out = []
    try:
        with Pool(budget, max(1, min(os.cpu_count() or 1, len(todo)))) as pool:
            for i, answer in pool.map(_probe_task, [(rel,) for rel in todo]):
                if isinstance(answer, Overrun):
                    out.append((todo[i], answer.reason))
    finally:
        _PROBE = ()
    return sorted(out)


# What the probe workers read (set before they fork).
_PROBE: tuple = ()


def _probe_task(rel: str) -> bool:
    """One file translated alone (its own answer is not kept: only whether it finished within the budget)."""
    root, options = _PROBE
    try:
        translate(root, dataclasses.replace(options, include=(_literal_glob(rel),)))
    except TranslateError:
        pass  # an error is the whole run's to report; this probe is about time and memory only
    return True


def _literal_glob(rel: str) -> str:
    """A gitignore-style glob matching exactly the path `rel` (relative to the translated root)."""
    return "/" + re.sub(r"([\\*?\[\]!#])", r"\\\1", rel)


@dataclass(frozen=True)
class TranslateRun:
    result: TranslationResult
    diff: bytes | None  # --diff: the unified diff; nothing was written
    failed: bool  # a file the engine failed on, or one that did not compile under --verify


def run_translate(path: Path, options: TranslateOptions, output: Path | None = None, in_place: bool = False,
                  force: bool = False, diff: bool = False, overwrite: bool = False, verify: bool = False,
                  target: str | None = None, progress: Callable[[int, int], None] | None = None,
                  budget: Budget = Budget()) -> TranslateRun:
    from porter.translate import verify as verify_mod
    from porter.translate import write

    modes = [m for m, on in (("-o/--output", output is not None), ("--in-place", in_place), ("--diff", diff)) if on]
    if len(modes) != 1:
        raise TranslateError("choose exactly one of -o OUTDIR, --in-place or --diff" if not modes
                             else f"{' and '.join(modes)} cannot be combined")
    if force and not in_place:
        raise TranslateError("--force only applies to --in-place")
    if overwrite and output is None:
        raise TranslateError("--overwrite only applies to -o OUTDIR")
    path = Path(path)
    if not path.exists():
        raise TranslateError(f"{path}: no such file or directory")
    if in_place and path.is_file():
        path_root = path.parent
    else:
        path_root = path
    if output is not None:
        write.check_outdir(path_root.resolve() if path.is_dir() else path.parent.resolve(), output, overwrite)

    compiler, note = (None, "")
    if verify:
        arch = verify_mod.arch_for_target(target)
        compiler, note = verify_mod.find_compiler(arch)
        if compiler is not None and compiler.hip_version and options.hip_version is None:
            options = dataclasses.replace(options, hip_version=compiler.hip_version)

    result = _budgeted_translate(path, options, progress, budget)
    extra = dict(result.extra)
    patch = None
    if diff:
        patch = write.unified_diff(result)
    elif in_place:
        extra["write"] = write.write_in_place(result, force=force).to_dict()
    else:
        extra["write"] = write.write_tree(result, output, overwrite=overwrite).to_dict()
    result = dataclasses.replace(result, extra=extra)

    # A file the engine failed on, or one that could not be written, leaves a half-translated tree: exit 1.
    failed = any(ft.status == "failed" for ft in result.files) or bool(extra.get("write", {}).get("skipped"))
    if verify:
        if compiler is None:
            extra["verify"] = {"compiler": None, "note": note, "summary": {}, "files": []}
        elif diff:
            with tempfile.TemporaryDirectory(prefix="porter-translate-") as tmp:
                write.write_tree(result, Path(tmp) / "tree")
                ver = verify_mod.verify(result, Path(tmp) / "tree", compiler, timeout=options.timeout)
            extra["verify"] = ver.to_dict()
        else:
            root = Path(extra["write"]["target"])
            ver = verify_mod.verify(result, root, compiler, timeout=options.timeout)
            extra["verify"] = ver.to_dict()
        if extra["verify"].get("summary", {}).get("failed"):
            failed = True
    return TranslateRun(dataclasses.replace(result, extra=extra), patch, failed)
