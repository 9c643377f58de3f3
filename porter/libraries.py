"""The CUDA-library → ROCm map: load rules/kb/libraries.yaml and look up a header, link, import or pip package.

Each entry says what replaces an NVIDIA library on ROCm and how hard the move is (`kind`: drop-in, port,
early-access, none), with its sources, plus the keys lock-in rules detect it by. The lookups normalise the
spellings build files use, so `CUDA::cublas`, `-lcublas`, `libcublas.so.12` and
`@local_config_cuda//cuda:cublas` all find cuBLAS, and `nvidia_cublas_cu12[extra]>=12.1` finds it as a package.
"""
from __future__ import annotations

import fnmatch
import functools
import re
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from porter import validated
from porter.datafile import DATA_DIR, display_path, read_yaml, schema_error_path
from porter.errors import DataFileError
from porter.schemas import validator

if TYPE_CHECKING:  # jsonschema is imported only when a file is validated (porter.validated)
    import jsonschema

LIBRARIES_PATH = DATA_DIR / "kb" / "libraries.yaml"
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "libraries.schema.json"
KINDS = ("drop-in", "port", "early-access", "none")
VENDOR_KINDS = ("cuda-library", "python-library", "serving", "binary-format")


class LibraryMapError(DataFileError):
    """The library map cannot be used; names the file and the field that is wrong."""


@dataclass(frozen=True)
class Library:
    """One NVIDIA library (or Python package, serving stack, file format) and its ROCm counterpart."""

    id: str
    name: str
    vendor_kind: str  # cuda-library | python-library | serving | binary-format
    rocm: tuple[str, ...]  # replacement names, preferred first; () when there is none
    kind: str  # drop-in | port | early-access | none
    note: str
    sources: tuple[str, ...]
    headers: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    imports: tuple[str, ...] = ()
    packages: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    # (header path inside the library's include tree, macro it defines): what marks a vendored copy of the library
    copies: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "vendor_kind": self.vendor_kind, "rocm": list(self.rocm),
            "kind": self.kind, "note": self.note, "sources": list(self.sources), "headers": list(self.headers),
            "links": list(self.links), "imports": list(self.imports), "packages": list(self.packages),
            "files": list(self.files),
        }


# ---------------------------------------------------------------------------------------------- normalising

_SHARED_LIB = re.compile(r"^(?:lib)?(?P<name>.+?)(?:\.so(?:\.[0-9]+)*|\.a|\.dylib|\.lib|\.dll)$")
_REQ_NAME = re.compile(r"^\s*(?P<name>[A-Za-z0-9*?](?:[A-Za-z0-9._*?-]*[A-Za-z0-9*?])?)")
_EGG = re.compile(r"[#&]egg=(?P<name>[A-Za-z0-9._-]+)")


def normalize_package(spec: str) -> str:
    """A requirement's distribution name in PEP 503 form ("Flash_Attn[x]>=2; python_version>'3'" → "flash-attn").

    Handles extras, version specifiers, environment markers, "name @ url" and "#egg=name" URLs; "" if none.
    """
    text = spec.strip()
    egg = _EGG.search(text)
    if egg:
        text = egg.group("name")
    match = _REQ_NAME.match(text)
    if not match:
        return ""
    return re.sub(r"[-_.]+", "-", match.group("name")).lower()


def normalize_link(name: str) -> str:
    """The bare library a link spelling names, lower-cased.

    CUDA::cublasLt → cublaslt; -lcublas → cublas; /usr/lib/libcublas.so.12 → cublas;
    @local_config_cuda//cuda:cublas → cublas; nvidia::cutlass::cutlass → cutlass.
    """
    text = name.strip().strip("\"'")
    if "::" in text:
        text = text.rsplit("::", 1)[1]
    elif text.startswith(("@", "//", ":")):  # Bazel label: the target name after ':' or the last package part
        target = text.split("//", 1)[-1]
        text = target.rsplit(":", 1)[1] if ":" in target else target.rsplit("/", 1)[-1]
    elif text.startswith("-l"):
        text = text[2:]
    else:
        text = text.replace("\\", "/").rsplit("/", 1)[-1]
        match = _SHARED_LIB.match(text)
        if match:
            text = match.group("name")
    return text.lower()


def normalize_header(path: str) -> str:
    """An #include target as written, without <> or quotes, with forward slashes and no leading ./"""
    text = path.strip().strip("<>\"'").replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return text


def _is_glob(pattern: str) -> bool:
    return any(c in pattern for c in "*?[")


def _specificity(pattern: str) -> int:
    return sum(1 for c in pattern if c not in "*?[]")


# ------------------------------------------------------------------------------------------------- loading


def _validator() -> jsonschema.protocols.Validator:
    return validator(SCHEMA_PATH.name)


def _error_field(error: jsonschema.exceptions.ValidationError, doc: Any) -> str:
    parts = schema_error_path(error)
    # Name an entry by its id, not its index: "libraries[cublas].kind" survives reordering.
    if len(parts) >= 2 and parts[0] == "libraries" and isinstance(parts[1], int):
        entry = doc["libraries"][parts[1]]
        label = entry.get("id") if isinstance(entry, dict) and isinstance(entry.get("id"), str) else parts[1]
        head = f"libraries[{label}]"
        return ".".join([head, *map(str, parts[2:])])
    return ".".join(map(str, parts)) or "<file>"


def _check_unique(path: str, libraries: list[Library]) -> None:
    """A detection key may point at one library only, or lookups would depend on file order."""
    ids: set[str] = set()
    for lib in libraries:
        if lib.id in ids:
            raise LibraryMapError(path, f"libraries[{lib.id}].id", f"duplicate id {lib.id!r}")
        ids.add(lib.id)
    owners: dict[tuple[str, str], str] = {}
    keyed = {
        "headers": lambda lib: list(lib.headers),
        "links": lambda lib: [normalize_link(x) for x in lib.links],
        "imports": lambda lib: list(lib.imports),
        "packages": lambda lib: [normalize_package(x) for x in lib.packages],
        "files": lambda lib: list(lib.files),
    }
    for lib in libraries:
        for field_name, keys_of in keyed.items():
            for key in set(keys_of(lib)):
                owner = owners.setdefault((field_name, key), lib.id)
                if owner != lib.id:
                    raise LibraryMapError(path, f"libraries[{lib.id}].{field_name}",
                                          f"{key!r} is already claimed by {owner!r}")


@functools.lru_cache(maxsize=8)
def _load(path: Path) -> types.MappingProxyType:
    shown = display_path(path)
    doc = read_yaml(path, LibraryMapError, shown)
    # porter's own map, byte for byte as the test suite validated it, needs no schema check (porter.validated).
    errors = [] if validated.trusted(path) else list(_validator().iter_errors(doc))
    if errors:
        import jsonschema.exceptions  # noqa: F811

        error = jsonschema.exceptions.best_match(errors)
        raise LibraryMapError(shown, _error_field(error, doc), error.message)
    libraries = [
        Library(
            id=e["id"], name=e["name"], vendor_kind=e["vendor_kind"], rocm=tuple(e["rocm"]), kind=e["kind"],
            note=" ".join(e["note"].split()), sources=tuple(e["sources"]),
            headers=tuple(e.get("headers", ())), links=tuple(e.get("links", ())),
            imports=tuple(e.get("imports", ())), packages=tuple(e.get("packages", ())),
            files=tuple(e.get("files", ())),
            copies=tuple((c["file"], c["defines"]) for c in e.get("copies", ())),
        )
        for e in doc["libraries"]
    ]
    _check_unique(shown, libraries)
    return types.MappingProxyType({lib.id: lib for lib in libraries})


@functools.lru_cache(maxsize=8)
def _vendor_folders(path: Path) -> frozenset[str]:
    doc = read_yaml(path, LibraryMapError, display_path(path))  # validated by _load first
    return frozenset(str(name).lower() for name in doc.get("vendor_folders", ()))


def vendor_folders(map_path: Path | str | None = None) -> frozenset[str]:
    """The map's folder names that hold other projects' code (third_party, 3rdparty, vendor ...), lower case."""
    path = _resolve(map_path)
    _load(path)
    return _vendor_folders(path)


@dataclass(frozen=True)
class VendoredCopy:
    """A copy of a library's own source tree inside a repository's vendor folder: `root` is its folder
    (`src/3rdparty/cub`), recognised by `marker`, the library's own header there that defines its macro."""

    root: str
    marker: str
    library: Library


def vendored_copy(path: str, code: bytes, map_path: Path | str | None = None) -> VendoredCopy | None:
    """The vendored copy whose marker `path` is: the header of a library's `copies` entry (`.../cub/version.cuh`)
    below a vendor folder (a folder above the copy's own, `src/3rdparty/cub`), whose text #defines the entry's
    macro. None for any other file, and for the library's own repository (no vendor folder above it)."""
    resolved = _resolve(map_path)
    libraries = _load(resolved)
    folders = _vendor_folders(resolved)
    for lib in libraries.values():
        for file, macro in lib.copies:
            if not path.endswith("/" + file):
                continue
            root = path[: -len(file)] + file.split("/", 1)[0]
            if not any(part.lower() in folders for part in root.split("/")[:-1]):
                continue
            if re.search(rb"^[ \t]*#[ \t]*define[ \t]+" + re.escape(macro.encode()) + rb"\b", code, re.M):
                return VendoredCopy(root=root, marker=path, library=lib)
    return None


def load_libraries(path: Path | str | None = None) -> dict[str, Library]:
    """Every library in the map by id, in file order; LibraryMapError (a ValueError) names file and field."""
    return dict(_load(Path(path).resolve() if path is not None else LIBRARIES_PATH))


# ------------------------------------------------------------------------------------------------- lookups


@dataclass(frozen=True)
class _Index:
    exact: Mapping[str, Library] = field(default_factory=dict)
    globs: tuple[tuple[str, Library], ...] = ()  # most specific first

    memo: dict = field(default_factory=dict, compare=False, repr=False)  # key -> answer (bounded, see find)

    def find(self, key: str) -> Library | None:
        if key in self.exact:
            return self.exact[key]
        # A requirements file or CMake list names the same package thousands of times; the glob walk runs once.
        if key in self.memo:
            return self.memo[key]
        found = None
        for pattern, lib in self.globs:
            if fnmatch.fnmatchcase(key, pattern):
                found = lib
                break
        if len(self.memo) < 65536:
            self.memo[key] = found
        return found


def _index(pairs: list[tuple[str, Library]]) -> _Index:
    exact = {k: lib for k, lib in pairs if not _is_glob(k)}
    globs = sorted(((k, lib) for k, lib in pairs if _is_glob(k)), key=lambda kl: -_specificity(kl[0]))
    return _Index(exact=types.MappingProxyType(exact), globs=tuple(globs))


@functools.lru_cache(maxsize=8)
def _indexes(path: Path) -> dict[str, _Index]:
    libs = _load(path).values()
    return {
        "name_headers": _index([(h, lib) for lib in libs for h in lib.headers if "/" not in h]),
        "path_headers": _index([(h, lib) for lib in libs for h in lib.headers if "/" in h]),
        "links": _index([(normalize_link(x), lib) for lib in libs for x in lib.links]),
        "packages": _index([(normalize_package(x), lib) for lib in libs for x in lib.packages]),
        "files": _index([(f.lower(), lib) for lib in libs for f in lib.files]),
    }


def _resolve(map_path: Path | str | None) -> Path:
    """Lookups read the shipped map unless given another map file."""
    return Path(map_path).resolve() if map_path is not None else LIBRARIES_PATH


def by_header(header: str, map_path: Path | str | None = None) -> Library | None:
    """The library an #include belongs to: "cublas_v2.h", "<cub/cub.cuh>", "third_party/x/cutlass/gemm.h".

    Patterns with a "/" match the whole include path (so a project's own "src/cuda/x.h" is not libcu++);
    patterns without one match the file name. Exact names beat globs; among globs the most specific
    (most literal characters) wins.
    """
    text = normalize_header(header)
    if not text:
        return None
    indexes = _indexes(_resolve(map_path))
    by_path, by_name = indexes["path_headers"], indexes["name_headers"]
    basename = text.rsplit("/", 1)[-1]
    exact = by_path.exact.get(text) or by_name.exact.get(basename)
    if exact is not None:
        return exact
    # "cuda/include/cudnn_version.h" is cuDNN, not libcu++: the most specific glob wins across both kinds.
    candidates = [(p, lib) for p, lib in by_path.globs if fnmatch.fnmatchcase(text, p)]
    candidates += [(p, lib) for p, lib in by_name.globs if fnmatch.fnmatchcase(basename, p)]
    return max(candidates, key=lambda pl: _specificity(pl[0]))[1] if candidates else None


def by_link(name: str, map_path: Path | str | None = None) -> Library | None:
    """The library a link spelling names (CMake target, -l flag, library file or Bazel label); see normalize_link."""
    key = normalize_link(name)
    if not key:
        return None
    links = _indexes(_resolve(map_path))["links"]
    found = links.find(key)
    if found is None and key.endswith("_static"):
        found = links.find(key[: -len("_static")])
    return found


def by_import(module: str, map_path: Path | str | None = None) -> Library | None:
    """The library a Python import belongs to; the longest listed module that is `module` or a parent wins."""
    module = module.strip().lstrip(".")
    if not module:
        return None
    return _by_import(module, _resolve(map_path))


# Asked for each import and imported name of every Python file (the same modules again and again: 2.4k asks on
# FasterTransformer, 135k prefix tests), and each answer walks every library's imports: worked out once per
# (module, map), as _indexes is for the other lookups.
@functools.lru_cache(maxsize=4096)
def _by_import(module: str, path: Path) -> Library | None:
    best: tuple[int, Library] | None = None
    for lib in _load(path).values():
        for listed in lib.imports:
            if (module == listed or module.startswith(listed + ".")) and (best is None or len(listed) > best[0]):
                best = (len(listed), lib)
    return best[1] if best else None


def by_package(spec: str, map_path: Path | str | None = None) -> Library | None:
    """The library a pip requirement installs ("nvidia-cublas-cu12==12.4", "TensorRT_LLM[all]"); see normalize_package."""
    key = normalize_package(spec)
    return _indexes(_resolve(map_path))["packages"].find(key) if key else None


def by_file(filename: str, map_path: Path | str | None = None) -> Library | None:
    """The NVIDIA-only artefact a file name is (model.engine, kernels.cubin); case-insensitive."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return _indexes(_resolve(map_path))["files"].find(base) if base else None
