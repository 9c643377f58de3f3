"""Keep scan results between runs in a form that cannot execute anything: JSON entries of porter's own data types.

A CI cache is restored across trust boundaries, so an entry is data, never code: values are encoded as JSON with
tags naming porter dataclasses and enums, and decoding builds only types on an allowlist (porter.model, the rule
set, kernel-analysis values); anything else, and any entry that is unreadable, truncated or malformed, is a miss.
Entries are kept in pack files (porter.packfile), each written atomically with owner-only permissions, and a cache
directory that is not owned by the user or is writable by group or others is not used at all (another user could
plant entries there).

Well-formed is not enough: a cache key is computed from public inputs (file content, porter's version), so anyone
who can put a pack in the directory (a restored CI cache, a pack committed to the scanned repository) could plant
an entry that hides a file's findings. So every entry is authenticated with a per-installation secret (created
once, owner-only, in the user's config directory, never in a cache or scanned tree): the key a pack stores is an
HMAC of the caller's key, each entry carries an HMAC of that key and its bytes, and each pack's index carries an
HMAC of the index. Whatever does not verify is a miss (an unverified index is not even parsed). A decoded value
must also have the field types its class declares; a cache directory inside the scanned tree is not used at all
(`inside_scanned_tree`).
"""
from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import gc
import hashlib
import hmac
import json
import operator
import os
import secrets
import stat
import types
import typing
from pathlib import Path
from typing import Any, Callable, Iterator

import orjson

from porter import packfile
from porter.packfile import PackError, Span

# Entries larger than this are not read back (a planted pack must not cost memory).
MAX_ENTRY_BYTES = 256 * 1024 * 1024
FORMAT = "porter-cache-2"
# Kept entries are written out once they pass this many bytes, so a long history walk's memory stays bounded.
FLUSH_BYTES = 64 * 1024 * 1024
# More packs than this in a directory and a flush merges the smallest, up to MERGE_BYTES of them at once.
MAX_PACKS = 16
MERGE_BYTES = 256 * 1024 * 1024
# Bounds on what a directory's packs may cost to index: the newest MAX_PACKS_READ packs, MAX_INDEXED entries.
MAX_PACKS_READ = 256
MAX_INDEXED = 4_000_000
MAX_OPEN_PACKS = 64
# Index bytes one reading of a directory's packs reads in all (each index is also capped by
# packfile.MAX_INDEX_BYTES): planted packs cost at most this much reading and hashing, and memory for one index.
MAX_INDEX_TOTAL = 256 * 1024 * 1024
# The per-installation secret: its file name, and its size in bytes.
SECRET_NAME = "cache-secret"
SECRET_BYTES = 32
_TAG = 32  # bytes of an entry's HMAC-SHA256, stored before the entry


class CacheUnusable(Exception):
    """The cache directory must not be used (ownership or permissions); the reason is for the user."""


def secret_path() -> Path:
    """Where the per-installation secret lives: $XDG_CONFIG_HOME/porter (an absolute one), else ~/.config/porter.
    Not the cache directory: a cache is what may be planted or restored from elsewhere, the secret must not travel
    with it."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "porter" / SECRET_NAME


@functools.lru_cache(maxsize=8)
def installation_secret(path: Path) -> bytes:
    """The secret at `path`, created on first use: SECRET_BYTES random bytes, owner-only. Two processes creating it
    at once agree: each writes its candidate to a file of its own (O_EXCL) and publishes it with link(), which fails
    when the name exists, so the first complete file wins and the other reads it. CacheUnusable when the file is not
    a regular, owner-only file of ours of the right size (someone else could know it)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not os.path.lexists(path):
            tmp = path.with_name(f".{SECRET_NAME}-{os.getpid()}-{secrets.token_hex(8)}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(secrets.token_bytes(SECRET_BYTES))
                with contextlib.suppress(FileExistsError):
                    os.link(tmp, path)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW | _CLOEXEC)
        try:
            st = os.fstat(fd)
            data = os.read(fd, SECRET_BYTES + 1) if stat.S_ISREG(st.st_mode) else b""
        finally:
            os.close(fd)
    except OSError as e:
        raise CacheUnusable(f"cache key {path}: {e.strerror or e}; cache not used") from None
    if not stat.S_ISREG(st.st_mode) or len(data) != SECRET_BYTES:
        raise CacheUnusable(f"cache key {path} is not a {SECRET_BYTES}-byte file; cache not used")
    if hasattr(os, "getuid") and st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise CacheUnusable(f"cache key {path} is not owner-only or not the user's own; cache not used")
    return data


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _root_of(source: Any) -> Path | str | None:
    """The directory a source reads: a path as it is, a WorkTree's root, a GitTree's repository (its work tree is
    where a change is checked out), a history point's tree through its reader."""
    for _ in range(3):
        if isinstance(source, (str, Path)):
            return source
        root = getattr(source, "root", None) or getattr(source, "repo", None)
        if root is not None:
            return root
        source = getattr(source, "reader", None)
    return None


def inside_scanned_tree(cache_dir: Path, source: Any) -> str | None:
    """Why the cache directory must not serve a scan of `source` (see _root_of; None when it may): it resolves inside the scanned tree, or inside the git work tree holding it, where a
    change under review could have committed packs. The caller scans without a cache and shows the reason."""
    from porter.settings import repository_root

    root = _root_of(source)
    if root is None:
        return None
    try:
        cache = Path(cache_dir).resolve()
        start = Path(root).resolve()
    except (OSError, RuntimeError):
        return None
    for top in dict.fromkeys((start, repository_root(start))):
        if cache == top or cache.is_relative_to(top):
            return (f"cache directory {cache_dir} is inside the scanned tree ({top}); a change could plant entries "
                    "there, so this scan runs without a cache")
    return None


def _allowed_types() -> dict[str, type]:
    """Every type an entry may name: porter's frozen data classes and enums that results and rule sets hold."""
    import porter.model as model
    from porter import rules
    from porter.kernels import constfold

    out: dict[str, type] = {}
    for module in (model, rules, constfold, *_model_modules()):
        for name in dir(module):
            obj = getattr(module, name)
            if isinstance(obj, type) and (dataclasses.is_dataclass(obj) or issubclass(obj, enum.Enum)) \
                    and obj.__module__.startswith("porter."):
                out[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return out


def _model_modules():
    import importlib
    import pkgutil

    import porter.model as model

    return [importlib.import_module(f"porter.model.{m.name}") for m in pkgutil.iter_modules(model.__path__)]


_TYPES: dict[str, type] | None = None


def _types() -> dict[str, type]:
    global _TYPES
    if _TYPES is None:
        _TYPES = _allowed_types()
    return _TYPES


# Types JSON holds as they are: each value of these is its own encoding (checked inline below: a scan result is
# millions of them, and a call per value cost more than the rest of encoding).
_SCALARS = frozenset({str, int, bool, float, type(None)})
# Whether every type an iterable gives is one of _SCALARS (asked in C: a list of scalars decodes to its tuple).
_ALL_SCALARS = _SCALARS.issuperset
_TUPLE, _TWO = frozenset({tuple}), frozenset({2})  # see _check_of's key/value pairs


def encode(value: Any) -> Any:
    """A JSON-ready form of `value` that `decode` turns back into an equal value (tuples stay tuples)."""
    # The common types first, by exact type (a scan result is millions of strings, ints and tuples); anything
    # else goes the general way below. Enums before plain strings: Status is a str enum.
    t = type(value)
    if t in _SCALARS:
        return value
    if t is tuple:
        return [v if type(v) in _SCALARS else encode(v) for v in value]
    encoder = _ENCODERS.get(t)
    if encoder is not None:
        return encoder(value)
    members = _ENUMS.get(t)
    if members is not None and value in members:
        return members[value]
    return _encode_other(value)


def _encode_other(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        cls = type(value)
        found = _ENUMS.setdefault(cls, {})[value] = {"e": _name(cls), "v": value.value}  # shared, read only
        return found
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, tuple):
        return [encode(v) for v in value]
    if isinstance(value, list):
        return {"l": [encode(v) for v in value]}
    if isinstance(value, dict):
        if type(value) is not dict:  # a dict subclass of porter's (e.g. target notes) keeps its type
            return {"m": [[encode(k), encode(v)] for k, v in value.items()], "c": _name(type(value))}
        return {"m": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, (set, frozenset)):
        return {"f" if isinstance(value, frozenset) else "s": [encode(v) for v in sorted(value, key=repr)]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        _ENCODERS[cls] = _dataclass_encoder(_name(cls), tuple(f.name for f in dataclasses.fields(value) if f.init))
        return _ENCODERS[cls](value)
    raise TypeError(f"cannot cache a {type(value).__name__}")


def _dataclass_encoder(name: str, fields: tuple[str, ...]):
    """The encoder of one dataclass: `{"c": name, "a": [each init field's encoded value, in order]}` (positional:
    an entry is read back only by the code that wrote it, since the code digest names it; field names in every
    object were half of an entry's bytes), written out per field as the dataclasses module writes __init__ (a loop
    with getattr per field cost twice as much). Only porter's own allowlisted class name and its field names
    (identifiers) go into the generated source."""
    if not all(f.isidentifier() for f in fields):
        return lambda value: {"c": name, "a": [encode(getattr(value, f)) for f in fields]}
    body = ", ".join(f"(x if type(x := value.{f}) in S else E(x))" for f in fields)
    namespace = {"S": _SCALARS, "E": encode, "NAME": name}
    exec(f"def encode_dataclass(value):\n    return {{'c': NAME, 'a': [{body}]}}\n", namespace)  # noqa: S102
    return namespace["encode_dataclass"]


# Per dataclass seen: its encoder (dataclasses.fields costs more than encoding a field).
_ENCODERS: dict[type, Any] = {}
# Per enum seen: each member's encoding.
_ENUMS: dict[type, dict[Any, dict[str, Any]]] = {}


def _name(cls: type) -> str:
    name = f"{cls.__module__}.{cls.__qualname__}"
    if name not in _types():
        raise TypeError(f"{name} is not a cacheable porter type")
    return name


def decode(data: Any) -> Any:
    """The value `encode` made; raises ValueError on anything that is not such a value (the entry is a miss)."""
    t = type(data)
    if t in _SCALARS:
        return data
    if t is list:
        # Most lists are of scalars alone (a finding's key/value pairs, positions): their types checked in C.
        if _ALL_SCALARS(map(type, data)):
            return tuple(data)
        # An item that is such a list is made a tuple here, without a call of decode per item (pairs in a list).
        return tuple([v if type(v) in _SCALARS else tuple(v) if type(v) is list and _ALL_SCALARS(map(type, v))
                      else decode(v) for v in data])
    if t is dict and "c" in data and "a" in data and len(data) == 2:
        name, values = data["c"], data["a"]
        known = _DATACLASSES.get(name) if type(name) is str else None
        if known is None:
            cls = _type(name, object)
            if not dataclasses.is_dataclass(cls):
                raise ValueError("not a cache value")
            fields = tuple(f.name for f in dataclasses.fields(cls) if f.init)
            plain, checks = _plain_fields(cls), _field_checks(cls)
            known = _DATACLASSES[name] = (cls, fields, plain, checks,
                                          _dataclass_decoder(name, cls, fields, plain, checks))
        cls, fields, plain, checks, fast = known
        if fast is not None:
            return fast(values)
        if type(values) is not list or len(values) != len(fields):
            raise ValueError("not a cache value")
        args = [v if type(v) in _SCALARS else tuple(v) if type(v) is list and _ALL_SCALARS(map(type, v))
                else decode(v) for v in values]
        for i, exact, check in checks:
            if type(args[i]) not in exact and not check(args[i]):
                raise ValueError(f"{name}.{fields[i]}: not of its declared type")
        if plain:
            # Exactly the fields a generated __init__ would only store: stored without calling it (a frozen
            # dataclass's __init__ sets each field through object.__setattr__, most of decoding's cost).
            obj = object.__new__(cls)
            obj.__dict__.update(zip(fields, args))
            return obj
        return cls(**dict(zip(fields, args)))
    if t is dict and "e" in data and "v" in data and len(data) == 2 and type(data["e"]) is str:
        members = _ENUM_MEMBERS.get(data["e"])
        if members is None:
            cls = _type(data["e"], enum.Enum)
            members = _ENUM_MEMBERS[data["e"]] = {m.value: m for m in cls.__members__.values()}
        value = data["v"]
        if type(value) in _SCALARS and value in members:
            return members[value]
        return _type(data["e"], enum.Enum)(value)
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return tuple(decode(v) for v in data)
    if not isinstance(data, dict):
        raise ValueError("not a cache value")
    if "l" in data:
        return [decode(v) for v in data["l"]]
    if "m" in data:
        items = {decode(k): decode(v) for k, v in data["m"]}
        if "c" in data:
            return _type(data["c"], dict)(items)
        return items
    if "f" in data:
        return frozenset(decode(v) for v in data["f"])
    if "s" in data:
        return {decode(v) for v in data["s"]}
    if "e" in data:
        return _type(data["e"], enum.Enum)(data["v"])
    raise ValueError("not a cache value")


# Allowlisted dataclasses by the name entries give them, as decode has checked them: the class, its init fields in
# order, whether decode may store them itself (_plain_fields), its fields' type checks (_field_checks) and its
# decoder (_dataclass_decoder; None: decode's general steps).
_DATACLASSES: dict[str, tuple[type, tuple[str, ...], bool, tuple[tuple[int, frozenset, Callable[[Any], bool]], ...],
                              Callable[[Any], Any] | None]] = {}


def _dataclass_decoder(name: str, cls: type, fields: tuple[str, ...], plain: bool,
                       checks: tuple[tuple[int, frozenset, Callable[[Any], bool]], ...]) -> Callable[[Any], Any] | None:
    """decode's steps for one dataclass's `{"c": name, "a": values}` written out per field, as _dataclass_encoder
    writes its encoder: the same checks in the same order, raising the same errors, without a loop, a zip or a
    list per object (a warm scan decodes a hundred thousand of them; the loops were half of decoding). Only field
    names (identifiers) go into the generated source; the class, its checks and its name are passed in."""
    if not fields or not all(f.isidentifier() for f in fields):
        return None
    n = len(fields)
    args = ", ".join(f"a{i}" for i in range(n))
    lines = ["def decode_dataclass(values):",
             f"    if type(values) is not list or len(values) != {n}:",
             "        raise ValueError('not a cache value')",
             f"    {args}, = values"]
    lines += [f"    if type(a{i}) not in S:\n"
              f"        a{i} = tuple(a{i}) if type(a{i}) is list and A(map(type, a{i})) else D(a{i})" for i in range(n)]
    namespace: dict[str, Any] = {"S": _SCALARS, "A": _ALL_SCALARS, "D": decode, "CLS": cls, "NEW": object.__new__}
    for i, exact, check in checks:
        namespace[f"X{i}"], namespace[f"C{i}"] = exact, check
        namespace[f"M{i}"] = f"{name}.{fields[i]}: not of its declared type"
        lines.append(f"    if type(a{i}) not in X{i} and not C{i}(a{i}):\n        raise ValueError(M{i})")
    if plain:
        # Exactly the fields a generated __init__ would only store: stored without calling it (see decode).
        lines += ["    obj = NEW(CLS)",
                  "    obj.__dict__.update({" + ", ".join(f"{f!r}: a{i}" for i, f in enumerate(fields)) + "})",
                  "    return obj"]
    else:
        lines.append("    return CLS(" + ", ".join(f"{f}=a{i}" for i, f in enumerate(fields)) + ")")
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102
    return namespace["decode_dataclass"]


def _field_checks(cls: type) -> tuple[tuple[int, frozenset, Callable[[Any], bool]], ...]:
    """(position, exact types, check) for each init field whose declared type can be checked: a decoded value must
    have it (a FileResult whose findings are strings, or a line number that is a string, is a miss, never a crash
    later). A value whose exact type is in the set passes at the cost of one lookup (a warm scan decodes millions);
    any other is asked `check`. Nested values were checked when they were decoded, so a container's check looks
    only at its items' types."""
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - an annotation that does not resolve is simply not checked
        return ()
    out = []
    for i, f in enumerate(f for f in dataclasses.fields(cls) if f.init):
        check = _check_of(hints.get(f.name, Any))
        if check is not None:
            out.append((i, _exact_types(hints.get(f.name, Any)), check))
    return tuple(out)


def _exact_types(hint: Any) -> frozenset:
    """The types whose values are of type `hint` without looking inside them (none for a container)."""
    if hint in (str, int, bool, type(None)):
        return frozenset({hint})
    if hint is float:
        return frozenset({float, int})
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return frozenset().union(*(_exact_types(a) for a in typing.get_args(hint)))
    if isinstance(hint, type) and hint.__module__.startswith("porter.") and typing.get_origin(hint) is None:
        return frozenset({hint})
    return frozenset()


def _check_of(hint: Any) -> Callable[[Any], bool] | None:
    """A predicate for values of the type `hint`, or None where any value passes (Any, or a form not handled)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return None
    if hint is type(None):
        return lambda v: v is None
    if hint is bool:
        return lambda v: type(v) is bool
    if hint is int:
        return lambda v: isinstance(v, int) and type(v) is not bool
    if hint is float:
        return lambda v: type(v) is float or isinstance(v, int) and type(v) is not bool
    if hint is str:
        return lambda v: isinstance(v, str)
    if origin in (typing.Union, types.UnionType):
        checks = [_check_of(a) for a in args]
        if any(c is None for c in checks):
            return None
        return lambda v: any(c(v) for c in checks)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item, exact = _check_of(args[0]), _exact_types(args[0])
            pair = typing.get_args(args[0])
            if item is not None and typing.get_origin(args[0]) is tuple and len(pair) == 2 and Ellipsis not in pair:
                # Key/value pairs (Finding.data: a warm scan checks ~40k): every pair a tuple of two, and their keys'
                # and values' types each one set, all in C; each pair asked alone only where that does not settle it.
                e0, e1 = _exact_types(pair[0]), _exact_types(pair[1])
                any0, any1 = _check_of(pair[0]) is None, _check_of(pair[1]) is None
                first, second = operator.itemgetter(0), operator.itemgetter(1)
                return lambda v: type(v) is tuple and (
                    (set(map(type, v)) <= _TUPLE and set(map(len, v)) <= _TWO
                     and (any0 or set(map(type, map(first, v))) <= e0)
                     and (any1 or set(map(type, map(second, v))) <= e1))
                    or all(map(item, v)))
            # the types of the items as one set first (in C); each item asked only where one is not exact
            return (lambda v: type(v) is tuple) if item is None else \
                (lambda v: type(v) is tuple and (set(map(type, v)) <= exact or all(map(item, v))))
        if args and args != ((),):
            items = [_check_of(a) for a in args]
            if len(items) == 2:  # a key/value pair (Finding.data holds many): spelled out, no generator per pair
                (c0, c1), e0, e1 = items, _exact_types(args[0]), _exact_types(args[1])
                return lambda v: type(v) is tuple and len(v) == 2 \
                    and (c0 is None or type(v[0]) in e0 or c0(v[0])) and (c1 is None or type(v[1]) in e1 or c1(v[1]))
            return lambda v: type(v) is tuple and len(v) == len(items) and \
                all(c is None or c(x) for c, x in zip(items, v))
        return lambda v: type(v) is tuple
    if origin in (dict, frozenset, set, list) or hint in (dict, frozenset, set, list):
        container = origin or hint
        return lambda v: isinstance(v, container)
    if isinstance(hint, type) and hint.__module__.startswith("porter.") and origin is None:
        return lambda v: isinstance(v, hint)
    return None
# Allowlisted enums' members by value, by the name entries give the enum.
_ENUM_MEMBERS: dict[str, dict[Any, enum.Enum]] = {}


def _plain_fields(cls: type) -> bool:
    """Whether a dataclass's generated __init__ only stores its arguments (every field an init field, no
    __post_init__, no __slots__), so decode may store them itself."""
    fields = dataclasses.fields(cls)
    return not (hasattr(cls, "__post_init__") or "__slots__" in cls.__dict__ or not all(f.init for f in fields)
                or getattr(getattr(cls.__dict__.get("__init__"), "__code__", None), "co_filename", None) != "<string>")


def _type(name: Any, base: type) -> type:
    cls = _types().get(name) if isinstance(name, str) else None
    if cls is None or not issubclass(cls, base):
        raise ValueError(f"{name!r} is not a cacheable porter type")
    return cls


def dumps(value: Any) -> bytes:
    doc = {"format": FORMAT, "value": encode(value)}
    try:
        return orjson.dumps(doc)
    except TypeError:
        # orjson refuses lone surrogates (non-UTF-8 file names read with surrogateescape); json escapes them.
        return json.dumps(doc, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def loads(raw: bytes) -> Any:
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        doc = json.loads(raw)  # the ensure_ascii form with escaped surrogates
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError("not a porter cache entry")
    return decode(doc["value"])


# Whether this process keeps what it decodes to its end (porter.cli's scan command run as the `porter` program,
# which ends with its one command): see collector_paused's `kept`.
_KEPT = {"to_exit": False}


def keep_decoded_to_exit(on: bool = True) -> None:
    """Say that this process ends with the command that decodes (or, with False, that it goes on)."""
    _KEPT["to_exit"] = on


@contextlib.contextmanager
def collector_paused(kept: bool = False):
    """No cycle collection inside: for work that builds thousands of acyclic containers (freed by reference
    counting, or kept as the result) which the collector would only walk again and again: coding a cache entry
    (a third of decoding a warm scan's entries) or rendering a report (porter.cli).

    `kept`: what is built inside lives as long as the command (a warm scan's decoded results). In a process that
    ends with its command (keep_decoded_to_exit) it is then exempted from the collector (gc.freeze): otherwise the
    next young collection walked all of it (every object decoded with the collector off waits in the youngest
    generation) and the one after promoted it walked it again, ~0.11 CPU-s of a warm FasterTransformer re-scan
    that freed nothing; and a forked worker's collections wrote to its pages, copying them. Still freed by
    reference counting when dropped; a cycle left unreachable before the freeze stays until the process ends."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if kept and _KEPT["to_exit"]:
            gc.freeze()
        gc.enable()


class Cache:
    """A directory of pack files (porter.packfile) holding entries by key; every failure to read is a miss.

    `put` keeps an entry in memory until `flush` writes every kept entry as one new pack: a scan flushes once, at
    the end of its stage (and whenever the kept entries pass FLUSH_BYTES, which bounds memory). Reading entries
    the same process put before flushing finds them too. When a flush leaves more than MAX_PACKS packs, it merges
    the smallest into one, so the count stays bounded however many scans share the directory. Two processes may
    use one directory at once. Packs are only ever added whole or deleted after a merge. A reader whose pack was
    merged away since it read the index gets a miss.
    """

    def __init__(self, directory: Path, secret: bytes | None = None):
        self.directory = Path(directory)
        self._checked = False
        self._count = 0  # packs this process has written (names them)
        self._secret = secret  # None: the installation's, read at first use (installation_secret)
        self._reset()

    def _reset(self) -> None:
        self._pending: dict[str, bytes] = {}  # put, not yet flushed
        self._pending_bytes = 0
        self._index: dict[str, tuple[str, Span]] | None = None  # key → (pack name, span), read at the first get
        self._fds: dict[str, int] = {}  # pack name → open descriptor (closed at each flush)

    def __getstate__(self) -> dict[str, Any]:
        # A worker process gets the directory and the secret (its entries must verify in the parent), never this
        # process's descriptors or unflushed entries.
        return {"directory": self.directory, "_checked": self._checked, "_count": self._count,
                "_secret": self._secret}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._reset()

    def in_worker(self) -> None:
        """Forget what this process's parent kept (a forked worker inherits it): the worker hands back only what it
        puts (`take`), and reads the packs afresh."""
        self._reset()

    def check(self) -> None:
        """Create the directory (owner-only) or refuse one another user could write to."""
        if self._checked:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            st = os.stat(self.directory)
        except OSError as e:
            raise CacheUnusable(f"cache directory {self.directory}: {e.strerror or e}") from None
        if not stat.S_ISDIR(st.st_mode):
            raise CacheUnusable(f"cache directory {self.directory} is not a directory")
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            raise CacheUnusable(f"cache directory {self.directory} is owned by another user; not used")
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            raise CacheUnusable(f"cache directory {self.directory} is writable by group or others; not used")
        self._key()
        self._checked = True

    def _key(self) -> bytes:
        """The secret entries are authenticated with; CacheUnusable when there is none to be had."""
        if self._secret is None:
            self._secret = installation_secret(secret_path())
        return self._secret

    def _name(self, key: str) -> str:
        """The name a pack stores for the caller's `key`: unguessable without the secret."""
        return hmac.new(self._key(), key.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:40]

    def _tag(self, name: str, *parts: bytes | memoryview) -> bytes:
        """The HMAC an entry carries: of its name and its bytes (given in parts: the same tag as of them joined)."""
        h = hmac.new(self._key(), b"entry\0" + name.encode("ascii") + b"\0", hashlib.sha256)
        for part in parts:
            h.update(part)
        return h.digest()

    def _seal(self, index: bytes) -> bytes:
        """The HMAC a pack's index carries (packfile.write and read_index)."""
        h = hmac.new(self._key(), b"index\0", hashlib.sha256)
        h.update(index)  # not `prefix + index`: that copy would double a 64 MiB index's cost
        return h.digest()

    # ------------------------------------------------------------------------------------------------ reading

    def get(self, key: str) -> Any | None:
        raw = self.get_raw(key)
        if raw is None:
            return None
        try:
            with collector_paused():
                return loads(raw)
        except (ValueError, TypeError, KeyError, RecursionError):
            return None  # corrupt, truncated, foreign or planted: recomputed and rewritten

    def get_raw(self, key: str) -> memoryview | None:
        """The bytes `put_raw` kept under `key` (authenticated as every entry is), or None: for a value that is
        bytes already (a rendered report, porter.runcache), which a JSON entry would escape and copy again. A view,
        not a copy (a report is megabytes): the caller copies what it keeps."""
        try:
            name = self._name(key)
        except CacheUnusable:
            return None  # no secret, so nothing could be verified
        sealed = self._pending.get(name)
        if sealed is None:
            sealed = self._read(name)
            if sealed is None:
                return None
        raw = memoryview(sealed)[_TAG:]
        if len(sealed) < _TAG or not hmac.compare_digest(sealed[:_TAG], self._tag(name, raw)):
            return None  # not written with this installation's secret (planted, copied or damaged)
        return raw

    def _read(self, key: str) -> bytes | None:
        found = self._indexed().get(key)
        if found is None:
            return None
        name, span = found
        if span[2] > MAX_ENTRY_BYTES:
            return None
        fd = self._fd(name)
        return packfile.read_entry(fd, span) if fd is not None else None

    def _indexed(self) -> dict[str, tuple[str, Span]]:
        """Every entry the directory's packs hold (read once; the newest pack's entry wins a key two hold)."""
        if self._index is None:
            self._index = {}
            for name, spans in self._indexes(self._packs()[-MAX_PACKS_READ:]):
                for span in spans:
                    self._index[span[0]] = (name, span)
                if len(self._index) > MAX_INDEXED:
                    break
        return self._index

    def _indexes(self, names: list[str], unread: set[str] | None = None) -> Iterator[tuple[str, list[Span]]]:
        """Each pack's name and index, in the order of `names`; a pack that does not open, whose index is malformed
        or does not verify is left out (all of its entries are misses), and so is every index past MAX_INDEX_TOTAL
        bytes read by this call (named in `unread`). An index is sized from its trailer before a byte of it is
        read, so planted packs cost bounded reading and hashing, and memory for one index at a time."""
        budget = MAX_INDEX_TOTAL
        for name in names:
            fd = self._fd(name)
            if fd is None:
                continue
            try:
                length = packfile.index_length(fd)
                if length > budget:
                    if unread is not None:
                        unread.add(name)
                    continue
                budget -= length
                spans = packfile.read_index(fd, self._seal)
            except (PackError, CacheUnusable):
                continue
            yield name, spans

    def _packs(self) -> list[str]:
        """The names of the directory's packs, oldest first (their names sort by the time they were written)."""
        try:
            with os.scandir(self.directory) as it:
                return sorted(e.name for e in it if e.name.endswith(packfile.SUFFIX) and not e.name.startswith("."))
        except OSError:
            return []

    def _fd(self, name: str) -> int | None:
        fd = self._fds.get(name)
        if fd is None:
            try:
                fd = packfile.open_pack(os.path.join(self.directory, name))
            except PackError:
                return None  # gone (merged by another process), swapped for a symlink, or never a file
            if len(self._fds) >= MAX_OPEN_PACKS:
                self._close()
            self._fds[name] = fd
        return fd

    def _close(self) -> None:
        for fd in self._fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()

    # ------------------------------------------------------------------------------------------------ writing

    def put(self, key: str, value: Any) -> None:
        """Keep an entry for the next flush; an unwritable cache slows the next run, it never fails this one."""
        try:
            with collector_paused():
                raw = dumps(value)
            name = self._name(key)
        except (TypeError, ValueError, RecursionError, CacheUnusable):
            return  # a value porter cannot encode (or no secret to seal it with) is simply not cached
        self.adopt({name: self._tag(name, raw) + raw})

    def put_raw(self, key: str, *parts: bytes) -> None:
        """Keep the bytes `parts` make together under `key` for the next flush, as they are (get_raw reads them back
        joined); never code, like any entry. In parts, so a report is copied once into its sealed entry."""
        try:
            name = self._name(key)
        except CacheUnusable:
            return
        self.adopt({name: b"".join((self._tag(name, *parts), *parts))})

    def take(self) -> dict[str, bytes]:
        """The entries put here since the last flush, sealed, handed over instead of written (a worker process
        gives its entries to the scan's own process, which writes one pack for the whole scan)."""
        out = self._pending
        self._pending, self._pending_bytes = {}, 0
        return out

    def adopt(self, entries: dict[str, bytes]) -> None:
        """Keep entries another process encoded (`take`) as if put here."""
        for key, raw in entries.items():
            self._pending_bytes += len(raw) - len(self._pending.get(key, b""))
            self._pending[key] = raw
        if self._pending_bytes >= FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        """Write every kept entry as one pack (merging small packs when there are too many), and close the packs
        read so far: the end of a stage that used the cache."""
        entries = self.take()
        if entries:
            try:
                self.check()
                name, spans = packfile.write(str(self.directory), self._stem(), entries.items(), self._seal)
            except (OSError, CacheUnusable):
                spans = []
            if spans and self._index is not None:
                for span in spans:
                    self._index[span[0]] = (name, span)
            if spans:
                with contextlib.suppress(OSError):
                    self._merge()
        self._close()

    def _stem(self) -> str:
        self._count += 1
        return packfile.new_stem(self._count)

    def _merge(self) -> None:
        """Where more than MAX_PACKS packs exist, rewrite the smallest (up to MERGE_BYTES together) as one. An
        entry is carried over only where no newer pack holds its key, so a merge never brings back an entry that a
        later scan rewrote. The old packs are deleted only after the new one is in place."""
        packs = self._packs()
        if len(packs) <= MAX_PACKS:
            return
        sizes = {}
        for name in packs:
            with contextlib.suppress(OSError):
                sizes[name] = os.lstat(os.path.join(self.directory, name)).st_size
        chosen: set[str] = set()
        total = 0
        for name in sorted(sizes, key=lambda n: (sizes[n], n)):
            if total + sizes[name] > MERGE_BYTES:
                break
            chosen.add(name)
            total += sizes[name]
        if len(chosen) < 2:
            return
        # Oldest first: a later pack's span of a key replaces an earlier one's. Only the packs a read would index
        # (the newest MAX_PACKS_READ, within MAX_INDEX_TOTAL), so planted packs cost a merge no more than a read.
        newest: dict[str, tuple[str, Span]] = {}
        unread = set(packs[:-MAX_PACKS_READ])
        for name, spans in self._indexes(packs[-MAX_PACKS_READ:], unread):
            for span in spans:
                newest[span[0]] = (name, span)
        # A pack whose index was not read keeps its entries: never deleted unmerged. One that was read, or that was
        # rejected (malformed, unverified: another installation's or planted), is gone after the merge.
        chosen -= unread
        if len(chosen) < 2:
            return
        carried = [(name, span) for name, span in newest.values() if name in chosen]

        def entries():
            for name, span in carried:
                fd = self._fd(name)
                raw = packfile.read_entry(fd, span) if fd is not None else None
                if raw is not None:
                    yield span[0], raw

        merged, spans = packfile.write(str(self.directory), self._stem(), entries(), self._seal)
        for name in chosen:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(self.directory, name))
        if self._index is not None:
            for key in [k for k, (name, _) in self._index.items() if name in chosen]:
                del self._index[key]
            for span in spans:
                self._index[span[0]] = (merged, span)
