"""The scanning pipeline: discover files, parse each, run the rules, collect kernels and launches.

Files are scanned in parallel worker processes (`jobs`) and each file's result is cached by a key made of its
content hash, its path, the rule set's digest, porter's own code and data, and the repository-wide facts a file's
result depends on (macros defined in other files, the repository's own Python packages), so an unchanged
repository re-scans from the cache without starting workers. Every file that cannot be read is recorded in
`skipped` with the reason; nothing is silently lost.
"""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
import tempfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable, Iterable

from porter import __version__
from porter.datafile import DATA_DIR
from porter.source import syntax as launches
from porter.source.discover import Candidate, discover
from porter.kernels.verdicts import measure
from porter.match.engine import rule_applies_to, run_rules
from porter.match.registry import MatchContext
from porter.match.base import SkipFile
from porter.model import FileResult, ScanResult, Skipped
from porter.source.parse import harvest_macros, parse
from porter.rules import RuleSet, load_rules, rule_files
from porter.target_notes import with_target_notes

DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024
TEXT_SNIFF_BYTES = 8192
# Binary artefacts are read lazily by their matchers (ELF headers, sizes): only this much is kept in memory.
BINARY_HEAD_BYTES = 64 * 1024


@dataclass(frozen=True)
class ScanOptions:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    jobs: int = 0  # 0: one per core
    cache_dir: Path | None = None  # None: no cache
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    disabled_rules: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    extra_rules: tuple[Path, ...] = ()


@functools.lru_cache(maxsize=None)
def code_digest() -> bytes:
    """A digest of porter's own source and the data its matchers read (knowledge base, library map, schemas), so
    a cached result never outlives what computed it. Rule files have their own digest (RuleSet.digest)."""
    h = hashlib.sha256(__version__.encode())
    pkg = Path(__file__).resolve().parent
    for base, pattern in ((pkg, "*.py"), (pkg / "schemas", "*.json"), (DATA_DIR / "kb", "*")):
        for p in sorted(base.rglob(pattern)):
            if p.is_file():
                h.update(p.relative_to(base).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16].encode()


def load_rules_cached(extra: list[Path], cache_dir: Path | None) -> RuleSet:
    """The validated rule set, reused from the cache when every rule file's bytes and porter's code are unchanged
    (validating ~90 files against the schema is a fifth of a warm re-scan)."""
    if cache_dir is None:
        return load_rules(extra=extra)
    h = hashlib.sha256(code_digest())
    for p in rule_files() + [f for e in extra for f in (rule_files(e) if e.is_dir() else [e])]:
        try:
            h.update(str(p).encode() + b"\0" + p.read_bytes() + b"\0")
        except OSError:
            return load_rules(extra=extra)  # let the loader report the unreadable file
    entry = cache_dir / "rules" / f"{h.hexdigest()[:32]}.pickle"
    try:
        with open(entry, "rb") as fh:
            cached = pickle.load(fh)
        if isinstance(cached, RuleSet):
            return cached
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
        pass
    ruleset = load_rules(extra=extra)
    _store(entry, ruleset)
    return ruleset


def _store(path: Path, value) -> None:
    """Write a cache entry atomically; an unwritable cache slows the next run, it never fails this one."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)  # atomic: a concurrent reader sees the old entry or the whole new one
    except OSError:
        pass


def default_cache_dir() -> Path:
    """Where results are cached unless told otherwise: $PORTER_CACHE_DIR, else the user's cache directory."""
    env = os.environ.get("PORTER_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "porter"


@dataclass
class _Worker:
    ruleset: RuleSet
    disabled: frozenset[str]
    cache_dir: Path | None
    max_file_bytes: int
    macros: dict[str, str] = field(default_factory=dict)  # qualifier macros defined anywhere in the repository
    local_packages: frozenset[str] = frozenset()  # the repository's own Python packages (not dependencies)
    ctx: MatchContext = field(default_factory=MatchContext)

    @property
    def repository_digest(self) -> bytes:
        """The repository-wide facts a file's result depends on, for the cache key."""
        basis = repr((sorted(self.macros.items()), sorted(self.local_packages)))
        return hashlib.sha256(basis.encode()).hexdigest()[:16].encode()


_STATE: _Worker | None = None


def _init_worker(state: _Worker) -> None:
    global _STATE
    _STATE = state


def scan(
    root: Path | str,
    options: ScanOptions = ScanOptions(),
    ruleset: RuleSet | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ScanResult:
    """Scan a directory, git work tree or single file and return the sorted result."""
    root = Path(root)
    found = discover(root, list(options.include), list(options.exclude))
    ruleset = ruleset or load_rules_cached(list(options.extra_rules), options.cache_dir)
    macros = _repository_macros(found.files, options.max_file_bytes)
    state = _Worker(ruleset, frozenset(options.disabled_rules), options.cache_dir, options.max_file_bytes, macros,
                    local_packages=local_python_packages(found.files))
    state.ctx.extra["local_packages"] = state.local_packages
    pairs = _scan_files(found.files, state, options.jobs, progress)
    results = sorted((r for r, _ in pairs), key=lambda r: r.path)
    hits = sum(1 for _, hit in pairs if hit)
    skipped = sorted(set(found.skipped) | {r.skipped for r in results if r.skipped is not None})
    findings = with_target_notes(sorted(f for r in results for f in r.findings), ruleset, options.targets)
    suppressed = sorted(f for r in results for f in r.suppressed)
    kernels = sorted(k for r in results for k in r.kernels)
    launch_list = sorted(l for r in results for l in r.launches)
    return ScanResult(
        root=str(root),  # as the user named it: the result must not depend on where it was run from
        findings=tuple(findings),
        suppressed=tuple(suppressed),
        kernels=tuple(kernels),
        launches=tuple(launch_list),
        files=tuple(results),
        skipped=tuple(skipped),
        targets=tuple(options.targets),
        stats={"cache_hits": hits, "cache_misses": len(pairs) - hits, "is_git": found.is_git},
        rules=ruleset,
    )


def _repository_macros(files: Iterable[Candidate], max_bytes: int) -> dict[str, str]:
    """Qualifier macros from every C/C++/CUDA file, so a kernel whose `__global__` hides behind a macro from
    another header is still found. Cheap: one regex over bytes the OS has just cached for the scan itself."""
    macros: dict[str, str] = {}
    for c in files:
        if c.language != "cuda":
            continue
        try:
            if c.abspath.stat().st_size > max_bytes:
                continue
            data = c.abspath.read_bytes()
        except OSError:
            continue  # reported when the file itself is scanned
        for name, body in sorted(harvest_macros(data).items()):
            macros.setdefault(name, body)
    return macros


def local_python_packages(files: Iterable[Candidate]) -> frozenset[str]:
    """Top-level packages the repository itself holds (a directory with __init__.py whose parent has none), so
    `import flash_attn.ops` inside flash-attention is the project's own code, not a dependency on flash-attn."""
    inits = {PurePosixPath(c.path).parent for c in files if PurePosixPath(c.path).name == "__init__.py"}
    return frozenset(d.name for d in inits if d.name and d.parent not in inits)


def _scan_files(files: Iterable[Candidate], state: _Worker, jobs: int, progress) -> list[tuple[FileResult, bool]]:
    files = list(files)
    total = len(files)
    jobs = jobs or os.cpu_count() or 1
    _init_worker(state)
    out: list[tuple[FileResult, bool]] = []
    if state.cache_dir is not None:
        # Cache hits are served here, so an unchanged repository never pays for starting worker processes.
        todo = []
        for c in files:
            result, hit = scan_candidate(c, compute=False)
            if result is None:
                todo.append(c)
            else:
                out.append((result, hit))
        files = todo
        if progress and out:
            progress(len(out), total)
    if jobs <= 1 or len(files) < 16:
        for c in files:
            out.append(scan_candidate(c))
            if progress:
                progress(len(out), total)
        return out
    # Chunks big enough to amortise process hand-off, small enough to balance uneven file sizes.
    size = max(1, min(64, len(files) // (jobs * 8) or 1))
    chunks = [files[i:i + size] for i in range(0, len(files), size)]
    with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker, initargs=(state,)) as pool:
        futures = [pool.submit(_scan_chunk, chunk) for chunk in chunks]
        for fut in as_completed(futures):
            out.extend(fut.result())
            if progress:
                progress(len(out), total)
    return out


def _scan_chunk(chunk: list[Candidate]) -> list[tuple[FileResult, bool]]:
    return [scan_candidate(c) for c in chunk]


def scan_candidate(c: Candidate, compute: bool = True) -> tuple[FileResult | None, bool]:
    """Read, cache-check and scan one discovered file (runs in a worker); True when it came from the cache.
    With compute=False a cache miss returns (None, False) instead of scanning."""
    assert _STATE is not None, "worker not initialised"
    st = _STATE
    try:
        size = c.abspath.stat().st_size
    except OSError as e:
        return _skip(c, f"cannot stat: {e.strerror}"), False
    if c.language == "binary":
        return _scan_binary(c, size, st, compute)
    if size > st.max_file_bytes:
        return _skip(c, f"file is {size / 1048576:.1f} MiB, over the {st.max_file_bytes / 1048576:.0f} MiB limit (generated?)"), False
    try:
        data = c.abspath.read_bytes()
    except OSError as e:
        return _skip(c, f"unreadable: {e.strerror or e}"), False
    if b"\0" in data[:TEXT_SNIFF_BYTES]:
        return _skip(c, "binary file (NUL bytes) where text was expected"), False
    return _cached(c, data, st, lambda: _guarded(c, lambda: scan_source(c.path, c.language, data, st)), compute)


def _scan_binary(c: Candidate, size: int, st: _Worker, compute: bool = True) -> tuple[FileResult | None, bool]:
    try:
        with open(c.abspath, "rb") as fh:
            head = fh.read(BINARY_HEAD_BYTES)
    except OSError as e:
        return _skip(c, f"unreadable: {e.strerror or e}"), False
    key_data = head + str(size).encode()
    return _cached(c, key_data, st,
                   lambda: _guarded(c, lambda: scan_source(c.path, "binary", head, st, abspath=c.abspath, size=size)),
                   compute)


def scan_source(path: str, language: str, data: bytes, st: _Worker | None = None, abspath: Path | None = None,
                size: int | None = None) -> FileResult:
    """Scan bytes already in memory as `language`; the single-file core used by workers and tests."""
    st = st or _STATE
    rules = [r for r in st.ruleset.rules if r.id not in st.disabled and rule_applies_to(r, path, language)]
    sf = parse(path, language, data, st.macros)
    if abspath is not None:
        sf.cache["abspath"] = str(abspath)
        sf.cache["size"] = size
    try:
        findings, suppressed = run_rules(sf, rules, st.ctx)
    except SkipFile as e:  # a matcher could not read the file (malformed JSON/YAML/TOML/Dockerfile/CMake/ELF)
        return FileResult(path, language, sf.lines if language != "binary" else 0, skipped=Skipped(path, str(e)))
    kern = tuple(measure(sf)) if language == "cuda" else ()
    launch_list = tuple(launches.launches(sf)) if language == "cuda" else ()
    return FileResult(
        path=path,
        language=language,
        lines=sf.lines if language != "binary" else 0,
        findings=tuple(findings),
        suppressed=tuple(suppressed),
        kernels=kern,
        launches=launch_list,
        parse_error_lines=sf.error_lines,
    )


INTERNAL_ERROR = "porter failed on this file (internal error"


def _guarded(c: Candidate, fn: Callable[[], FileResult]) -> FileResult:
    """One file that trips a porter bug is listed as skipped with the error, instead of ending the whole scan."""
    try:
        return fn()
    except (MemoryError, RecursionError, Exception) as e:  # noqa: BLE001 - reported, never swallowed silently
        return _skip(c, f"{INTERNAL_ERROR}: {type(e).__name__}: {e}); please report it")


def _skip(c: Candidate, reason: str) -> FileResult:
    return FileResult(c.path, c.language, 0, skipped=Skipped(c.path, reason))


def _cached(c: Candidate, data: bytes, st: _Worker, compute: Callable[[], FileResult],
            run: bool = True) -> tuple[FileResult | None, bool]:
    if st.cache_dir is None:
        return (compute() if run else None), False
    key = hashlib.sha256(
        b"\0".join((code_digest(), st.ruleset.digest.encode(), ",".join(sorted(st.disabled)).encode(), st.repository_digest,
                    c.path.encode(), c.language.encode(), data))
    ).hexdigest()
    path = st.cache_dir / key[:2] / f"{key}.pickle"
    try:
        with open(path, "rb") as fh:
            cached = pickle.load(fh)
        if isinstance(cached, FileResult):
            return cached, True
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
        pass  # a missing or unusable entry is recomputed and rewritten
    if not run:
        return None, False
    result = compute()
    if not (result.skipped and result.skipped.reason.startswith(INTERNAL_ERROR)):
        _store(path, result)  # a failure is not cached: the next porter version retries the file
    return result, False
