"""Skip an unchanged scan: the report a run rendered, kept under a digest of every input it was made from.

A warm re-scan of an unchanged tree used to decode every file's cached result, run the cross-file stages again
(kernel analysis, port status, the estimate) and render the report again, only to write the same bytes. Here the
rendered report, the run's exit code and its notices are one cache entry (porter.cache: authenticated with the
installation's secret, in the user's cache directory, never one inside the scanned tree) named by a digest of
everything the report is a function of: porter's own code and data, the interpreter, the settings (configuration
and options, and the bytes of every rule, profile or effort file they name), how the report was asked for (format,
detail, --status, --select), the source (its label, real root, prefix, kind) and discovery's listing with each
file's content identity. A changed file, rule, option or porter version names another entry: a miss, and the full
pipeline (whose per-file cache still spares every unchanged file).

A file's content identity is its git blob id, else the SHA-256 of its bytes (read bounded and non-blocking, as the
scan reads them). A work-tree file is not read again when its stat signature (device, inode, size, mtime and ctime
in ns, mode) equals the one recorded when it was last hashed, as git's index does; a signature is recorded only for
a file whose mtime and ctime are more than RACY_NS older than the moment it was hashed (git's "racily clean" rule),
so a write within one timestamp tick after the hash can never pass for unchanged, and a symlink is always read.

Only formats that are a function of the run and the request alone are kept (not console text for a terminal, whose
colours follow the terminal's kind; markdown's and html's subject, read from git, is part of the request), and only
runs whose output would be the same again: nothing unseen, no notice beyond the configuration's own, no deep mode
(libclang reads headers outside the tree).
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import stat
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

import orjson

from porter import __version__

if TYPE_CHECKING:
    from porter.cache import Cache
    from porter.settings import Settings
    from porter.source.discover import Candidate, Discovery
    from porter.source.read import GitTree, WorkTree

FORMAT = b"porter-run-1"
# Formats whose bytes are a function of the run and the render options (Request.render: with the console's width,
# markdown's and html's subject as git names it) alone: the ones a warm re-scan may take from here. Not console text
# for a terminal (its colours follow the terminal's kind), nor the PR comment (its links follow the environment).
REUSABLE_FORMATS = frozenset({"json", "sarif", "csv", "github", "rdjsonl", "gitlab", "console", "markdown", "html"})
# A file changed this close (ns) before it was hashed may change again within the same timestamp tick: its stat
# signature is not recorded (2 s: FAT's mtime granularity, the coarsest a checkout may sit on).
RACY_NS = 2_000_000_000
# Settings fields a report does not depend on (the worker count, where the cache is).
NOT_INPUTS = frozenset({"jobs", "cache_dir"})
# Bytes of one file named by the settings (rule, profile, effort model) that are hashed; past it, its size and mtime.
MAX_NAMED_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Request:
    """How the report was asked for, beyond the settings: the format and the render options a report of that format
    reads (explain, verbose, quiet, command, date, min_severity, width, and what the report is about as a dict),
    --status, the --select/--ignore/--min-severity selection (as text: its fields are plain values), and whether
    console text goes to a terminal."""

    format: str
    render: tuple[Any, ...]
    status: str
    selection: str
    terminal: bool = False  # console text for a terminal: colours that follow the terminal's kind, never kept

    @property
    def reusable(self) -> bool:
        return self.format in REUSABLE_FORMATS and not self.terminal


@dataclass(frozen=True)
class Outcome:
    """What a run gave the command line: the rendered report, the exit code and the notices shown after it."""

    report: bytes
    code: int
    notices: tuple[str, ...]


# A work-tree file's stat signature and the SHA-256 of its bytes when it had it (see the module docstring): a plain
# tuple, since an index holds one per file and is read whole on every warm re-scan.
Signature = tuple[tuple[int, ...], str]


def signature_of(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)


# The libraries whose version can change a report (parsers, regex engine, YAML and ELF readers, templates, rich's
# console text, discovery's globs): each named by the stat signature of the file it is imported from.
LIBRARIES = ("tree_sitter", "tree_sitter_cuda", "tree_sitter_python", "re2", "yaml", "elftools", "jinja2", "rich",
             "pathspec", "orjson")


@functools.lru_cache(maxsize=1)
def porter_digest() -> bytes:
    """porter's code and data as installed, by each file's path and stat signature (the installation is the
    user's, not the scanned repository's: its files are not read), with porter's version, the interpreter and the
    libraries that shape a report (LIBRARIES: found, not imported)."""
    import importlib.util

    from porter.datafile import DATA_DIR

    h = hashlib.sha256(_utf8(f"{__version__}\0{sys.version}\0{sys.executable}\0"))
    pkg = Path(__file__).resolve().parent
    for base in dict.fromkeys((pkg, DATA_DIR.resolve())):
        for rel, st in sorted(_files(str(base), "")):
            h.update(_utf8(f"{rel}\0{signature_of(st)}\0"))
    for name in LIBRARIES:
        try:
            spec = importlib.util.find_spec(name)
            origin = spec.origin if spec is not None else None
            h.update(_utf8(f"{name}\0{origin}\0{signature_of(os.stat(origin)) if origin else ''}\0"))
        except (ImportError, ValueError, OSError):
            h.update(_utf8(f"{name}\0missing\0"))
    return h.hexdigest().encode()


def _files(top: str, rel: str) -> Iterable[tuple[str, os.stat_result]]:
    with os.scandir(os.path.join(top, rel)) as it:
        for e in it:
            if e.name == "__pycache__" or e.name.startswith("."):
                continue
            path = f"{rel}/{e.name}" if rel else e.name
            if e.is_dir(follow_symlinks=False):
                yield from _files(top, path)
            elif e.is_file():
                yield path, e.stat()


def _canon(value: Any) -> Any:
    """A settings value in a form whose JSON is the same in every process (no set order, no object reprs)."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (tuple, list)):
        return [_canon(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_canon(v) for v in value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def named_files(settings: Settings) -> list[Path]:
    """The files beyond the tree a run's report depends on: the configuration, extra rule files (every file under
    a named directory), the effort model and target profiles named by path."""
    out: list[Path] = []
    named = [settings.config_path, *settings.extra_rules, settings.effort,
             *(Path(t) for t in settings.targets if t.endswith((".yaml", ".yml")))]
    for p in named:
        if p is None:
            continue
        p = Path(p)
        if p.is_dir():
            out.extend(sorted(q for q in p.rglob("*") if q.is_file()))
        else:
            out.append(p)
    return out


def _named_digest(paths: list[Path]) -> bytes:
    from porter.contain import Unreadable, read_bytes

    h = hashlib.sha256()
    for p in paths:
        try:
            data = read_bytes(p, MAX_NAMED_BYTES, truncate=True)
            h.update(_utf8(f"{p}\0{len(data)}\0") + data)
        except Unreadable as e:
            h.update(_utf8(f"{p}\0unreadable: {e}\0"))
    return h.digest()


class StatIndex:
    """The recorded signatures of one work tree's files (one cache entry per tree and size limit): a file whose
    signature is unchanged is not read to be hashed again."""

    def __init__(self, cache: Cache, key: str):
        self.cache, self.key = cache, key
        self.known: dict[str, Signature] = {}
        self.changed = False
        raw = cache.get_raw(key)
        if raw is not None:
            try:
                doc = orjson.loads(raw)
            except orjson.JSONDecodeError:
                doc = None
            if isinstance(doc, dict):
                ints = {int}
                for path, v in doc.items():  # [device, inode, size, mtime_ns, ctime_ns, mode, digest]
                    if type(v) is list and len(v) == 7 and type(v[6]) is str and set(map(type, v[:6])) <= ints:
                        self.known[path] = (tuple(v[:6]), v[6])

    def save(self) -> None:
        if self.changed:
            # A name that is not UTF-8 (lone surrogates) is left out: orjson reads no such JSON back, so it would
            # cost the whole index. That file is hashed on every run instead.
            self.cache.put_raw(self.key, orjson.dumps({p: [*sig, digest] for p, (sig, digest) in self.known.items()
                                                       if _is_utf8(p)}))
            self.changed = False


def content_ids(source: WorkTree | GitTree, files: Iterable[Candidate], max_bytes: int,
                index: StatIndex | None) -> list[bytes]:
    """Each file's content identity (module docstring), in order: its blob id, else the digest of its bytes as the
    scan reads them (a binary file's first max_bytes; an unreadable one's reason), from `index` where its stat
    signature is the recorded one."""
    from porter.contain import Unreadable, read_bytes

    out = []
    now = time.time_ns()
    real_root = getattr(source, "real_root", None)
    for c in files:
        if c.blob is not None:
            out.append(b"blob " + c.blob.encode())
            continue
        try:
            lst = os.lstat(c.abspath)
            st = os.stat(c.abspath) if stat.S_ISLNK(lst.st_mode) else lst
        except OSError as e:
            out.append(_utf8(f"stat: {e.strerror}"))
            continue
        sig = signature_of(st)
        known = index.known.get(c.path) if index is not None else None
        if known is not None and known[0] == sig and not stat.S_ISLNK(lst.st_mode):
            out.append(known[1].encode())
            continue
        try:
            data = read_bytes(c.abspath, max_bytes, root=real_root, truncate=True)
        except Unreadable as e:
            out.append(_utf8(f"unreadable: {e}"))
            continue
        digest = f"{hashlib.sha256(data).hexdigest()} {st.st_size}"
        out.append(digest.encode())
        # Recorded when the bytes read are as long as the signature says (else the file changed while it was
        # read) and it last changed well before now (RACY_NS).
        if (index is not None and stat.S_ISREG(lst.st_mode) and len(data) == min(st.st_size, max_bytes)
                and max(st.st_mtime_ns, st.st_ctime_ns) < now - RACY_NS):
            index.known[c.path] = (sig, digest)
            index.changed = True
    return out


class RunCache:
    """One run's entry: `get` the outcome kept for the run's inputs, or `put` it after the pipeline ran.

    The entry is named by the run's slot (where the tree is: a work tree's real root, a git repository and the
    subdirectory scanned; the working directory, the settings and the request) and holds the digest of all its
    inputs (the tree's label and commit among them): a re-run after a change, or of another commit, replaces the
    slot's report instead of adding one more, so the cache keeps one report per place and way of asking."""

    def __init__(self, cache: Cache, key: str, inputs: str, index: StatIndex | None, found: Discovery):
        self.cache, self.key, self.inputs, self.index, self.found = cache, key, inputs, index, found

    @classmethod
    def open(cls, source: WorkTree | GitTree, settings: Settings, request: Request) -> RunCache | None:
        """The entry of a run of `source` with `settings` asked for as `request`, or None when such a run is not
        kept (no cache, a format or mode whose output is not a function of the inputs alone)."""
        if settings.cache_dir is None or settings.deep or not request.reusable:
            return None
        from porter.cache import Cache, CacheUnusable, inside_scanned_tree

        if inside_scanned_tree(settings.cache_dir, source):
            return None
        cache = Cache(settings.cache_dir)
        try:
            cache.check()
            here = os.getcwd()  # a relative path in the settings or the label means another tree elsewhere
        except (CacheUnusable, OSError):
            return None
        found = source.discover(settings.include, settings.exclude)
        real_root = getattr(source, "real_root", None)
        # The slot names the place, not the state: a git tree's commit (and the label naming it) is an input, so a
        # scan of each new commit replaces the last one's report instead of adding one per commit.
        place = f"git {source.repo} {source.subdir}" if real_root is None else f"tree {real_root}"  # type: ignore[union-attr]
        fields = {f.name: _canon(getattr(settings, f.name)) for f in dataclasses.fields(settings)
                  if f.name not in NOT_INPUTS}
        slot = hashlib.sha256(FORMAT + b"\0" + _json([fields, _canon(dataclasses.astuple(request)), place, here]))
        index = None
        if real_root is not None:
            where = hashlib.sha256(_utf8(f"{real_root}\0{settings.max_file_bytes}")).hexdigest()[:40]
            index = StatIndex(cache, "stat-" + where)
        ids = content_ids(source, found.files, settings.max_file_bytes, index)
        h = slot.copy()
        h.update(porter_digest())
        h.update(_json([source.label, getattr(source, "commit", None), found.is_git, source.prefix(),
                        [[s.path, s.reason] for s in found.skipped]]))
        h.update(_named_digest(named_files(settings)))
        for c, content in zip(found.files, ids):
            h.update(_utf8(f"\0{c.path}\0{c.language}\0") + content)
        return cls(cache, "run-" + slot.hexdigest()[:40], h.hexdigest(), index, found)

    def get(self) -> Outcome | None:
        raw = self.cache.get_raw(self.key)
        if raw is None or len(raw) < 8:
            return None
        size = int.from_bytes(raw[:8], "big")  # the header's length, then the header, then the report
        try:
            doc = orjson.loads(raw[8:8 + size])
        except orjson.JSONDecodeError:
            return None
        if not (isinstance(doc, dict) and doc.get("inputs") == self.inputs and type(doc.get("code")) is int
                and isinstance(doc.get("notices"), list) and all(type(n) is str for n in doc["notices"])):
            return None  # another state of the tree (or of porter, or its settings) had this slot
        return Outcome(bytes(raw[8 + size:]), doc["code"], tuple(doc["notices"]))

    def put(self, outcome: Outcome) -> None:
        """Keep `outcome` (and the stat signatures recorded while the key was made), written at once; not a report
        the cache would refuse to read back (porter.cache.MAX_ENTRY_BYTES), which would only be written again."""
        from porter.cache import MAX_ENTRY_BYTES

        head = _json({"inputs": self.inputs, "code": outcome.code, "notices": list(outcome.notices)})
        if 8 + len(head) + len(outcome.report) + 64 <= MAX_ENTRY_BYTES:  # 64: the entry's HMAC, with room
            self.cache.put_raw(self.key, len(head).to_bytes(8, "big"), head, outcome.report)
        self.save_index()

    def save_index(self) -> None:
        if self.index is not None:
            self.index.save()
        self.cache.flush()


def _utf8(text: str) -> bytes:
    """`text` as bytes, a file name's undecodable bytes (lone surrogates) included."""
    return text.encode("utf-8", "surrogatepass")


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _json(value: Any) -> bytes:
    """JSON of plain values, any string included (orjson refuses lone surrogates: json escapes them)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=True).encode("ascii")
