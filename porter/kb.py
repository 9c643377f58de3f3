"""Answer "what is this CUDA name or header on HIP?" from the knowledge base in rules/kb/.

rules/kb/api/<library>.tsv is generated from HIPIFY's tables by scripts/build_kb.py (never edit it by hand);
rules/kb/headers.tsv is written by hand. A CUDA name listed by several libraries (e.g. ``CUstream_st`` in both
the runtime and the driver tables) resolves to the first library in LIBRARY_ORDER, so lookups are deterministic.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from porter.datafile import DATA_DIR

DEFAULT_DIR = DATA_DIR / "kb"

STATUSES = ("rename", "unsupported", "deprecated", "removed", "same_name")
HEADER_STATUSES = ("rename", "drop", "unsupported", "none")

# Must equal scripts/build_kb.py COLUMNS (tests/test_kb.py checks).
API_COLUMNS = (
    "cuda", "hip", "status", "section",
    "cuda_added", "cuda_deprecated", "cuda_removed", "hip_added", "experimental",
    "roc", "hip_deprecated", "hip_removed",
)
HEADER_COLUMNS = ("cuda", "hip", "status", "library", "note")

# Lookup precedence when a CUDA name appears in several libraries; libraries not listed follow alphabetically.
LIBRARY_ORDER = (
    "runtime", "driver", "device", "rtc", "cucomplex",
    "cublas", "cusparse", "cusolver", "cufft", "curand", "cudnn", "cub",
)


@dataclass(frozen=True)
class ApiEntry:
    """One CUDA API name and what HIPIFY knows about it."""

    cuda: str
    hip: str | None
    status: str  # rename | unsupported | deprecated | removed | same_name
    library: str
    section: str
    roc: str | None = None  # the rocBLAS/rocSPARSE/.../MIOpen name, for libraries that have one
    cuda_added: str | None = None
    cuda_deprecated: str | None = None
    cuda_removed: str | None = None
    hip_added: str | None = None
    experimental: bool = False
    hip_deprecated: str | None = None  # the HIP replacement is itself deprecated since this HIP version

    @property
    def identity(self) -> bool:
        """True when HIP spells the name the same way (the "rename" is a no-op)."""
        return self.hip == self.cuda


@dataclass(frozen=True)
class HeaderEntry:
    """A CUDA header and the HIP header to include instead (status: rename | drop | unsupported | none)."""

    cuda: str
    hip: str | None
    status: str
    library: str
    note: str = ""


class KnowledgeBase:
    """CUDA API names and headers; build with load_kb()."""

    def __init__(self, rows: dict[str, tuple[str, list[str]]], headers: list[HeaderEntry]):
        # name -> (library, TSV fields); ApiEntry objects are made on first get() since most names are never asked.
        self._rows = rows
        self._entries: dict[str, ApiEntry] = {}
        self.names: frozenset[str] = frozenset(rows)
        self.header_entries: tuple[HeaderEntry, ...] = tuple(headers)
        self._exact_headers = {h.cuda: h for h in headers if "*" not in h.cuda}
        globs = [h for h in headers if "*" in h.cuda]
        # The longest pattern is the most specific (thrust/system/cuda/* before thrust/*); ties keep file order.
        globs.sort(key=lambda h: -len(h.cuda))
        self._header_globs = [(h, _glob_regex(h.cuda)) for h in globs]

    def __contains__(self, name: object) -> bool:
        return name in self._rows

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, name: str) -> ApiEntry | None:
        entry = self._entries.get(name)
        if entry is None:
            row = self._rows.get(name)
            if row is None:
                return None
            entry = self._entries[name] = _api_entry(*row)
        return entry

    def header(self, path: str) -> HeaderEntry | None:
        """The entry for an #include target; a glob match is returned with cuda=path and hip's '*' filled in."""
        path = normalise_header(path)
        found = self._exact_headers.get(path)
        if found is not None:
            return found
        for entry, regex in self._header_globs:
            m = regex.fullmatch(path)
            if m is None:
                continue
            hip = entry.hip
            if hip and "*" in hip:
                for part in m.groups():
                    hip = hip.replace("*", part, 1)
            return HeaderEntry(path, hip, entry.status, entry.library, entry.note)
        return None

    def stats(self) -> dict[str, int]:
        """Number of distinct CUDA names per status."""
        counts = Counter(fields[2] for _library, fields in self._rows.values())
        return {status: counts.get(status, 0) for status in STATUSES}


def normalise_header(path: str) -> str:
    """'<cuda_runtime.h>', '"./cub/cub.cuh"' -> 'cuda_runtime.h', 'cub/cub.cuh'."""
    path = path.strip()
    if len(path) >= 2 and (path[0], path[-1]) in (("<", ">"), ('"', '"')):
        path = path[1:-1].strip()
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _glob_regex(pattern: str) -> re.Pattern[str]:
    return re.compile("(.*)".join(re.escape(part) for part in pattern.split("*")), re.DOTALL)


def _api_entry(library: str, f: list[str]) -> ApiEntry:
    return ApiEntry(
        cuda=f[0], hip=f[1] or None, status=f[2], library=library, section=f[3],
        roc=f[9] or None, cuda_added=f[4] or None, cuda_deprecated=f[5] or None, cuda_removed=f[6] or None,
        hip_added=f[7] or None, experimental=bool(f[8]), hip_deprecated=f[10] or None,
    )


def _library_key(path: Path) -> tuple[int, str]:
    stem = path.stem
    return (LIBRARY_ORDER.index(stem) if stem in LIBRARY_ORDER else len(LIBRARY_ORDER), stem)


def _data_lines(path: Path, columns: tuple[str, ...], require_comment: bool):
    """(line number, fields) of a TSV after its '#' comment lines and its column header line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines) and lines[i].startswith("#"):
        i += 1
    if require_comment and i == 0:
        raise ValueError(f"{path}:1: missing '#' comment line naming the source tables and licence")
    if i >= len(lines) or lines[i] != "\t".join(columns):
        raise ValueError(f"{path}:{i + 1}: expected the column header line {chr(9).join(columns)!r}")
    width = len(columns)
    for lineno, line in enumerate(lines[i + 1:], start=i + 2):
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != width:
            raise ValueError(f"{path}:{lineno}: expected {width} tab-separated fields, got {len(fields)}")
        yield lineno, fields


def _load_api(api_dir: Path) -> dict[str, tuple[str, list[str]]]:
    files = sorted(api_dir.glob("*.tsv"), key=_library_key)
    if not files:
        raise ValueError(f"{api_dir}: no <library>.tsv files (run scripts/build_kb.py)")
    rows: dict[str, tuple[str, list[str]]] = {}
    statuses = frozenset(STATUSES)
    for path in files:
        library = path.stem
        # Every run loads ~9,000 lines: the whole file is checked at once (widths, names, statuses) and only a
        # file that fails is walked line by line, for the message naming the line.
        data = _api_fields(path)
        if data is not None:
            for fields in data:
                if fields[0] not in rows:
                    rows[fields[0]] = (library, fields)
            continue
        seen: set[str] = set()
        for lineno, fields in _data_lines(path, API_COLUMNS, require_comment=True):
            name = fields[0]
            if not name or name in seen or fields[2] not in statuses:
                problem = ("empty CUDA name" if not name else f"{name} listed twice" if name in seen
                           else f"unknown status {fields[2]!r}")
                raise ValueError(f"{path}:{lineno}: {problem}")
            seen.add(name)
            if name not in rows:
                rows[name] = (library, fields)
    return rows


def _api_fields(path: Path) -> list[list[str]] | None:
    """The fields of every data line of an api/*.tsv, or None when a line is malformed (a wrong field count, an
    empty or repeated name, an unknown status) or the comment or column header line is missing."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines) and lines[i].startswith("#"):
        i += 1
    if i == 0 or i >= len(lines) or lines[i] != "\t".join(API_COLUMNS):
        return None
    data = [line.split("\t") for line in lines[i + 1:] if line and not line.startswith("#")]
    names = {fields[0] for fields in data}
    if (set(map(len, data)) - {len(API_COLUMNS)} or len(names) != len(data) or "" in names
            or {fields[2] for fields in data} - set(STATUSES)):
        return None
    return data


def _load_headers(path: Path) -> list[HeaderEntry]:
    entries = []
    seen: set[str] = set()
    for lineno, (cuda, hip, status, library, note) in _data_lines(path, HEADER_COLUMNS, require_comment=False):
        cuda = normalise_header(cuda)
        problem = None
        if not cuda or cuda in seen:
            problem = "empty CUDA header" if not cuda else f"{cuda} listed twice"
        elif status not in HEADER_STATUSES:
            problem = f"unknown status {status!r} (expected one of {', '.join(HEADER_STATUSES)})"
        elif status == "rename" and not hip:
            problem = "status rename needs a HIP header"
        elif hip.count("*") > cuda.count("*"):
            problem = f"HIP header {hip!r} has more '*' than {cuda!r}"
        if problem:
            raise ValueError(f"{path}:{lineno}: {problem}")
        seen.add(cuda)
        entries.append(HeaderEntry(cuda, hip or None, status, library, note))
    return entries


@functools.lru_cache(maxsize=None)
def load_kb(directory: Path | None = None) -> KnowledgeBase:
    """Load rules/kb (or `directory`): api/*.tsv and headers.tsv. Raises ValueError naming file:line if malformed."""
    directory = Path(directory) if directory is not None else DEFAULT_DIR
    return KnowledgeBase(_load_api(directory / "api"), _load_headers(directory / "headers.tsv"))


HIP_NAME_COLUMNS = ("cuda", "first_hip", "checked_up_to", "hip_spelling")


@dataclass(frozen=True)
class HipName:
    """Whether HIP's own headers declare a CUDA name (rules/kb/hip_names.tsv, generated by
    scripts/build_hip_names.py from real HIP headers): the first version that does, or HIP's other spelling."""

    cuda: str
    first_hip: str  # "" when no checked version declares it
    checked_up_to: str
    hip_spelling: str  # HIP's name for it when first_hip is "" (`__nv_bfloat162` -> `__hip_bfloat162`)

    @property
    def state(self) -> str:
        return "declared" if self.first_hip else "renamed" if self.hip_spelling else "missing"


@functools.lru_cache(maxsize=4)
def hip_names(path: Path | None = None) -> dict[str, HipName]:
    """{CUDA name: HipName} for the names rule API004 may call same-name in HIP."""
    path = path or DEFAULT_DIR / "hip_names.tsv"
    return {f[0]: HipName(*f) for _, f in _data_lines(path, HIP_NAME_COLUMNS, require_comment=True)}


HIP_PASTE_COLUMNS = ("cuda", "pasted", "first_hip", "checked_up_to")


@dataclass(frozen=True)
class HipPaste:
    """A CUDA name HIP renames beyond its prefix (rules/kb/hip_pasted.tsv, generated by scripts/build_hip_pasted.py
    from real HIP headers): the name a ROCm twin of a prefix-pasting macro builds instead (`cudaPointerAttributes`
    -> `hipPointerAttributes`) and the first HIP version whose headers declare that paste, "" when none does."""

    cuda: str
    pasted: str
    first_hip: str
    checked_up_to: str


@functools.lru_cache(maxsize=4)
def hip_pastes(path: Path | None = None) -> dict[str, HipPaste]:
    """{CUDA name: HipPaste} for the knowledge base's renames a prefix paste gets wrong (rule API012)."""
    path = path or DEFAULT_DIR / "hip_pasted.tsv"
    return {f[0]: HipPaste(*f) for _, f in _data_lines(path, HIP_PASTE_COLUMNS, require_comment=True)}
