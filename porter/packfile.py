"""The cache's pack file: many cache entries in one file, found through an index at its end.

A scan writes all its new entries as one pack instead of one file per entry. Creating a file cost more than
encoding the entry in it: a cold scan of cuda-samples spent about 9% of its CPU time creating and renaming 227
entry files.

Layout:
- MAGIC;
- the entries' bytes, one after another;
- the index: JSON `[[key, offset, length], ...]`, offsets counted from the file's start;
- the trailer: the index's offset and length (8 bytes each, little-endian), the index's seal (an HMAC the
  writer's caller computes: porter.cache keys it with the installation's secret), then END.

Each pack is written whole under a temporary name and then renamed into place, so a reader sees all of it or none.
A pack is never changed afterwards; it is only deleted once merged into a newer one. A pack is data from a cache
that may have been planted, since a CI cache crosses trust boundaries. So every read is bounded and checked: a pack
is rejected as a whole if it is a symlink, is not a regular file, has an index past its own bounds or larger than
MAX_INDEX_BYTES (sized from the trailer, never read), whose seal does not verify (checked before the index is
parsed), or is malformed.
"""
from __future__ import annotations

import contextlib
import hmac
import json
import os
import stat
import struct
import time
from collections.abc import Callable, Iterable

import orjson

MAGIC = b"porter-pack-2\n\0\0"  # 2: the trailer carries the index's seal; a pack-1 file is not a pack
END = b"\0packend"
SEAL_BYTES = 32
_TRAILER = struct.Struct("<QQ32s8s")
SUFFIX = ".pack"
# An index larger than this is not read (a planted pack must not cost memory); a real one is ~60 bytes per entry,
# so this holds a million entries.
MAX_INDEX_BYTES = 64 * 1024 * 1024
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)

Span = tuple[str, int, int]  # an entry's key, offset and length in its pack
Seal = Callable[[bytes], bytes]  # an index's bytes → its SEAL_BYTES-byte seal


class PackError(Exception):
    """Not a readable pack (malformed, out of bounds, or not a regular file): all of its entries are misses."""


def open_pack(path: str) -> int:
    """A read-only descriptor of the pack at `path`. Never a symlink, FIFO or device: such a name opens nothing."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as e:
        raise PackError(str(e)) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise PackError("not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _trailer(fd: int) -> tuple[int, int, bytes]:
    """(index offset, index length, seal) from a pack's trailer, checked against the file's own size."""
    try:
        size = os.fstat(fd).st_size
        if size < len(MAGIC) + _TRAILER.size or os.pread(fd, len(MAGIC), 0) != MAGIC:
            raise PackError("not a pack")
        offset, length, seal, end = _TRAILER.unpack(os.pread(fd, _TRAILER.size, size - _TRAILER.size))
    except (OSError, struct.error) as e:
        raise PackError(str(e)) from None
    if end != END or length > MAX_INDEX_BYTES or offset < len(MAGIC) or offset + length != size - _TRAILER.size:
        raise PackError("malformed pack trailer")
    return offset, length, seal


def index_length(fd: int) -> int:
    """How many bytes reading the pack's index would read (from the trailer alone)."""
    return _trailer(fd)[1]


def read_index(fd: int, seal: Seal) -> list[Span]:
    """The spans a pack's index lists, each checked to lie inside the entries' part of the file. The index's bytes
    are verified against the trailer's seal (`seal` computes the expected one) before they are parsed."""
    offset, length, expected = _trailer(fd)
    try:
        raw = os.pread(fd, length, offset)
    except OSError as e:
        raise PackError(str(e)) from None
    if len(raw) != length or not hmac.compare_digest(seal(raw), expected):
        raise PackError("pack index does not verify")
    try:
        spans = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise PackError("malformed pack index") from None
    if type(spans) is not list:
        raise PackError("malformed pack index")
    out: list[Span] = []
    for span in spans:
        if type(span) is not list or len(span) != 3:
            raise PackError("malformed pack index")
        key, start, n = span
        if type(key) is not str or type(start) is not int or type(n) is not int \
                or not (len(MAGIC) <= start and 0 <= n and start + n <= offset):
            raise PackError("malformed pack index")
        out.append((key, start, n))
    return out


def read_entry(fd: int, span: Span) -> bytes | None:
    """One entry's bytes, or None where the pack no longer holds them whole."""
    _, offset, length = span
    try:
        raw = os.pread(fd, length, offset)
    except OSError:
        return None
    return raw if len(raw) == length else None


def write(directory: str, stem: str, entries: Iterable[tuple[str, bytes]], seal: Seal) -> tuple[str, list[Span]]:
    """Write `entries` as the pack `stem + SUFFIX` in `directory` (owner-only, atomically), its index sealed with
    `seal`, and return its name and spans. Raises OSError, leaving no partial pack behind. The entries are written as they come, so a merge of
    packs streams through here without holding every entry at once."""
    fd, tmp = _temporary(directory, stem)
    spans: list[Span] = []
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(MAGIC)
            at = len(MAGIC)
            for key, raw in entries:
                fh.write(raw)
                spans.append((key, at, len(raw)))
                at += len(raw)
            try:
                index = orjson.dumps(spans)
            except TypeError:  # a key with a lone surrogate: json escapes it, as cache.dumps does for entries
                index = json.dumps(spans, ensure_ascii=True, separators=(",", ":")).encode("ascii")
            fh.write(index)
            fh.write(_TRAILER.pack(at, len(index), seal(index), END))
        name = stem + SUFFIX
        os.replace(tmp, os.path.join(directory, name))  # atomic: a reader sees the whole pack or none
    except BaseException:
        with contextlib.suppress(OSError):  # the write's own failure is the one to report
            os.unlink(tmp)
        raise
    return name, spans


def new_stem(count: int) -> str:
    """A pack name that sorts after every earlier pack of this machine's clock (a newer entry wins), unique by
    process and count."""
    return f"{time.time_ns():020d}-{os.getpid()}-{count}"


def _temporary(directory: str, stem: str) -> tuple[int, str]:
    """A new owner-only file to write a pack into. A name already taken (a crashed run with a recycled pid, or a
    planted symlink) is never opened; mkstemp then picks another."""
    tmp = os.path.join(directory, f".tmp-{stem}")
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        return os.open(tmp, flags, 0o600), tmp
    except FileExistsError:
        import tempfile  # here: tempfile imports random, and this is the rare path

        return tempfile.mkstemp(dir=directory, prefix=".tmp-")  # mkstemp creates it 0600
