"""Translate a CUDA tree to HIP: pick an engine, run it over every C/C++/CUDA file as one set, and report.

`translate(root, options)` reads and translates in memory and writes nothing; `porter.translate.write` puts the
result on disk (an output tree, or in place with backups) and `porter.translate.verify` compiles it. Engines:
the built-in one (porter's knowledge base, token-accurate, on any machine) and wrappers for hipify-perl and
hipify-clang when they are installed. Whatever the engine, every CUDA name left in the output is reported with
its line and reason by the same leftover analysis, so the numbers are comparable across engines.

File names are kept (`.cu` stays `.cu`: hip-clang compiles it with `-x hip`), so no `#include` needs rewriting for
a renamed file; headers a translated file includes are translated with it, whatever their extension.
"""
from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Callable

from porter import contain
from porter.source.discover import Candidate, discover, language_of
from porter.translate.fixups import PORT_COMPAT_MARK
from porter.model import Skipped
from porter.translate.model import (BACKUP_DIR, DEFAULT_TIMEOUT, ENGINES, MAX_FILE_BYTES, EngineInfo, FileTranslation,
                                    TranslateError, TranslateOptions, TranslationResult)

__all__ = ["BACKUP_DIR", "DEFAULT_TIMEOUT", "ENGINES", "MAX_FILE_BYTES", "EngineInfo", "FileTranslation",
           "TranslateError", "TranslateOptions", "TranslationResult", "translate"]

# Files that belong to the translated set: C, C++ and CUDA sources and headers (porter language "cuda").
def _is_source(c: Candidate) -> bool:
    return c.language == "cuda"


_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


def _included_extras(root: Path, sources: dict[str, bytes], listed: set[str]) -> list[str]:
    """Project files included by a translated file that discovery did not list as sources (e.g. `.cuinc`, `.def`):
    they are part of the set, so they are translated too."""
    extra: list[str] = []
    todo = list(sources)
    seen = set(sources)
    while todo:
        rel = todo.pop()
        data = sources.get(rel)
        if data is None:
            continue
        base = (root / rel).parent
        for m in _INCLUDE.finditer(data):
            target = m.group(1).decode("utf-8", "replace")
            for cand in (base / target, root / target):
                try:
                    real = cand.resolve(strict=True)
                except (OSError, RuntimeError):
                    continue
                if not real.is_file() or not real.is_relative_to(root) or cand.is_symlink():
                    break
                r = real.relative_to(root).as_posix()
                if r not in seen and r in listed:
                    seen.add(r)
                    try:
                        data = contain.read_bytes(real, MAX_FILE_BYTES, root=root)
                    except contain.Unreadable:
                        break
                    if data.startswith(PORT_COMPAT_MARK):
                        break  # `porter port`'s header is copied as it is (see translate_tree)
                    extra.append(r)
                    sources[r] = data
                    todo.append(r)
                break
    return extra


_MAX_HOPS = 40  # symlinks followed while resolving one link's target (Linux's own limit)


def _climbs_out(root: Path, rel: str) -> str | None:
    """Why the symlink at `rel` must not be recreated in a mirror, or None: its target is walked one component at a
    time, as the kernel resolves it, with every symlink met on the way replaced by its own target, and must never
    step above `root`. The target's real location being inside the tree is not enough: `a/b/x -> ../../../r/x` in a
    tree at /w/r climbs out to /w and back in, and recreated under the output directory it climbs out of the mirror
    (`..` past the mirror's top) to whatever sits beside it; a link `d -> .` turns a later `d/..` into such a step
    that no lexical normalisation of the target shows."""
    where = rel.split("/")[:-1]  # the link's directory, as the mirror creates it (real directories)
    todo = os.readlink(root / rel).split("/")
    hops = 0
    while todo:
        part = todo.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not where:
                return "symlink not recreated: its target climbs out of the tree (it would lead out of the mirror)"
            where.pop()
            continue
        where.append(part)
        p = root.joinpath(*where)
        if p.is_symlink():
            hops += 1
            target = os.readlink(p)
            if hops > _MAX_HOPS or os.path.isabs(target):
                return "symlink not recreated: its target passes through a link that leads out of the tree"
            where.pop()
            todo = target.split("/") + todo
    return None


def _all_files(root: Path, include, exclude) -> tuple[list[str], list[tuple[str, str]], list[Skipped]]:
    """Every file of the tree (not only the languages porter scans), for a mirror; symlinks listed apart."""
    from porter.source import discover as d

    entries, skipped, _ = d.tree_entries(root, list(include) or None, list(exclude) or None)
    files, links = [], []
    for rel, raw in entries:
        if rel.split("/")[0] == BACKUP_DIR:
            continue
        rel = raw  # the mirror is written under the real names, bytes included
        p = root / rel
        if p.is_symlink():
            target = os.readlink(p)
            problem = d.link_problem(p, root)
            if problem or os.path.isabs(target):
                skipped.append(Skipped(rel, problem or "absolute symlink not recreated"))
            elif (problem := _climbs_out(root, rel)) is not None:
                skipped.append(Skipped(rel, problem))
            else:
                links.append((rel, target))
            continue
        problem = d.link_problem(p, root)  # a directory on the way may be a symlink leading out
        if problem:
            skipped.append(Skipped(rel, problem))
        elif p.is_file():
            files.append(rel)
    return files, links, skipped


def translate(root: Path | str, options: TranslateOptions = TranslateOptions(),
              progress: Callable[[int, int], None] | None = None) -> TranslationResult:
    """Translate the C/C++/CUDA files under `root` (a directory or one file) in memory; nothing is written."""
    from porter.translate.engines import select_engine

    root_in = Path(root)
    if not root_in.exists():
        raise TranslateError(f"{root_in}: no such file or directory")
    if root_in.is_file() and language_of(root_in.name) != "cuda":
        raise TranslateError(f"{root_in}: not a C, C++ or CUDA source file; give one, or the directory to translate")
    if root_in.is_file():
        from porter.settings import repository_root

        top = repository_root(Path(os.path.abspath(root_in)).parent)
        if not contain.inside(root_in, top):
            raise TranslateError(f"{root_in}: leads outside {top} (a symlink?); not translated")
    found = discover(root_in, list(options.include), list(options.exclude))
    root_real = found.root
    skipped = list(found.skipped)
    sources: dict[str, bytes] = {}
    for c in found.files:
        if not _is_source(c) or c.path.split("/")[0] == BACKUP_DIR:
            continue
        # Written back under its real name: a name that is not UTF-8 keeps its bytes (c.path shows them escaped).
        c = dataclasses.replace(c, path=c.abspath.relative_to(root_real).as_posix())
        try:
            size = c.abspath.stat().st_size
            if size > MAX_FILE_BYTES:
                skipped.append(Skipped(c.path, f"file is {size / 1048576:.1f} MiB, over the {MAX_FILE_BYTES // 1048576} MiB limit"))
                continue
            sources[c.path] = contain.read_bytes(c.abspath, MAX_FILE_BYTES, root=root_real)
        except OSError as e:
            skipped.append(Skipped(c.path, f"unreadable: {e.strerror or e}"))
        except contain.Unreadable as e:
            skipped.append(Skipped(c.path, str(e)))
    # `porter port`'s compat header is written for both vendors already: translated, its HIP helpers' bodies would
    # be renamed to the helpers' own names (porter_hipDeviceSetLimit calling itself), so it is copied as it is.
    sources = {rel: data for rel, data in sources.items() if not data.startswith(PORT_COMPAT_MARK)}
    if root_in.is_file():
        copies, links = [], []
        listed = set(sources)
    else:
        all_files, links, more_skipped = _all_files(root_real, options.include, options.exclude)
        skipped.extend(s for s in more_skipped if s not in skipped)
        listed = set(all_files)
        _included_extras(root_real, sources, listed)
        copies = sorted(f for f in all_files if f not in sources)
    from porter.translate import buildfiles, fixups
    from porter.translate.buildinfo import build_info
    from porter.translate.engines.builtin import BuiltinEngine, project_header

    build = build_info(root_real, sorted(listed | set(sources)), options.include_dirs, options.defines, options.std,
                       options.compile_commands)
    engine = select_engine(options)
    # A porter_hip_compat.h from an earlier run is regenerated, not translated (a project's own file of that name is).
    ours = {fixups.COMPAT_HEADER} if fixups.is_generated_compat(root_real / fixups.COMPAT_HEADER) else set()
    srcs = dict(sorted((k, v) for k, v in sources.items() if k not in ours))
    if isinstance(engine, BuiltinEngine):
        files = engine.translate_all(root_real, srcs, options, progress, build=build)
    else:
        files = engine.translate_all(root_real, srcs, options, progress)
    if options.fixups:
        files = fixups.apply_fixups(
            root_real, list(files), lambda rel, target, quoted: project_header(root_real, rel, target, quoted, build),
            engine.info.name, options.hip_version, build=build)
    from porter.translate.byhand import left_by_hand

    # what the output still needs by hand (inline PTX, a ballot held in 32 bits), read from the output itself
    files = [dataclasses.replace(ft, by_hand=left_by_hand(ft.path, ft.output)) if ft.status in ("translated", "unchanged")
             else ft for ft in files]
    built, copies = buildfiles.migrate(root_real, copies, options)
    files = tuple(sorted([*files, *built], key=lambda f: f.path))
    copies = [c for c in copies if c not in ours]
    return TranslationResult(root_real, engine.info, files, tuple(copies), tuple(sorted(links)),
                             tuple(sorted(set(skipped))), build=build)
