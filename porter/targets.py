"""GPU target profiles: load rules/targets/*.yaml, pick the targets of a run, and decide which rules apply to each.

A profile is data (one YAML file per GPU, checked against porter/schemas/target.schema.json): wave size, LDS,
CU count, native number formats, which NVIDIA features have a counterpart. Rules say where they apply with a
`targets:` list whose entries are "all", a target id (or gfx name), or a predicate on profile fields such as
`wavefront_size == 64`, `lds_kib < 160` or `fp8_fnuz and not fp8_ocp`. Predicates are parsed with `ast` and
walked by a tiny evaluator that knows comparisons, and/or/not, names and literals — nothing is ever `eval`ed.

A field may be null ("not known yet", pre-release parts). Predicates use three-valued logic: a comparison with
an unknown field is unknown, `and`/`or`/`not` follow Kleene's rules, and a predicate that ends unknown does not
apply. `field is None` tests for an unknown field explicitly.

Files with `kind: reference` (rules/targets/nvidia.yaml) hold the NVIDIA comparison facts; they are never
selectable targets and are read with `load_references`.
"""
from __future__ import annotations

import ast
import functools
import re
import types
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from porter import validated
from porter.datafile import DATA_DIR, check_numbers, display_path, read_yaml, schema_error_path
from porter.errors import DataFileError
from porter.schemas import schema, validator

if TYPE_CHECKING:  # jsonschema is imported only when a file is validated (porter.validated)
    import jsonschema

TARGETS_DIR = DATA_DIR / "targets"
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "target.schema.json"
DEFAULT_TARGETS: tuple[str, ...] = ("mi355x",)
PROFILE_SUFFIXES = (".yaml", ".yml")
# Predicate names that are not raw YAML fields but Target attributes under a shorter name.
ALIASES = {"lds_kib": "lds_per_workgroup_kib"}
MAX_PREDICATE_LENGTH = 500


class TargetError(DataFileError):
    """A profile file that cannot be used, with the file and the field that are wrong."""


@dataclass(frozen=True)
class Target:
    """One AMD GPU profile; `fields` holds every raw field (plus aliases) for predicates and reports."""

    id: str
    name: str
    gfx: str
    architecture: str
    pre_release: bool
    wavefront_size: int
    lds_kib: float
    compute_units: int
    matrix_unit: str
    hbm_gib: float
    hbm_bandwidth_tbs: float
    fields: Mapping[str, Any] = field(compare=False, hash=False, repr=False, default_factory=dict)
    source: str = field(compare=False, default="")

    def get(self, name: str, default: Any = None) -> Any:
        """A profile field by name (aliases such as `lds_kib` included); `default` when absent."""
        return self.fields.get(name, default)

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(self.fields.get("sources", ()))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: every raw field, in file order."""
        return {k: _thaw(v) for k, v in self.fields.items() if k not in ALIASES}


@dataclass(frozen=True)
class Reference:
    """Comparison facts for another vendor's GPUs (kind: reference); never a scan target."""

    id: str
    name: str
    warp_size: int
    smem_per_sm_kib: float
    max_smem_per_block_kib: float
    static_smem_limit_kib: float
    devices: Mapping[str, Mapping[str, Any]] = field(compare=False, hash=False, repr=False, default_factory=dict)
    fields: Mapping[str, Any] = field(compare=False, hash=False, repr=False, default_factory=dict)
    source: str = field(compare=False, default="")


# ---------------------------------------------------------------------------------------------------- loading


def _schema() -> dict:
    return schema(SCHEMA_PATH.name)


def _validator() -> jsonschema.protocols.Validator:
    return validator(SCHEMA_PATH.name)


@functools.lru_cache(maxsize=None)
def target_field_names() -> frozenset[str]:
    """Every field a target profile may have (schema properties plus aliases): the names predicates may use."""
    return frozenset(_schema()["$defs"]["target"]["properties"]) | frozenset(ALIASES)


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return types.MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


def _error_field(error: jsonschema.exceptions.ValidationError) -> str:
    """The dotted field an error is about, including the missing or unexpected key for object-level errors."""
    return ".".join(map(str, schema_error_path(error))) or "<file>"


def _read_profile(path: Path) -> dict[str, Any]:
    data = read_yaml(path, TargetError)
    if not isinstance(data, dict):
        raise TargetError(path, "<file>", "a profile must be a YAML mapping of fields")
    check_numbers(data, TargetError, path)  # before the schema, whose minimum passes .nan and echoes long numbers
    # porter's own profile, byte for byte as the test suite validated it, needs no schema check (porter.validated).
    errors = [] if validated.trusted(path) else list(_validator().iter_errors(data))
    if errors:
        import jsonschema.exceptions  # noqa: F811

        error = jsonschema.exceptions.best_match(errors)
        raise TargetError(path, _error_field(error), error.message)
    _check_consistency(path, data)
    return data


def _check_consistency(path: Path, data: dict[str, Any]) -> None:
    """What the schema cannot say: fields that must agree with each other."""
    if data.get("kind", "target") != "target":
        return
    lds_wg, lds_cu = data.get("lds_per_workgroup_kib"), data.get("lds_per_cu_kib")
    if lds_cu is not None and lds_wg > lds_cu:
        raise TargetError(path, "lds_per_workgroup_kib", f"{lds_wg} exceeds lds_per_cu_kib {lds_cu}")
    xcds, per_xcd = data.get("xcds"), data.get("cus_per_xcd")
    if xcds is not None and per_xcd is not None and xcds * per_xcd != data["compute_units"]:
        raise TargetError(path, "compute_units",
                          f"{data['compute_units']} is not xcds × cus_per_xcd = {xcds} × {per_xcd}")


def _profile_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.is_file() and p.suffix in PROFILE_SUFFIXES)


def _collect(directory: Path | None, extra: Iterable[Path | str]) -> list[tuple[Path, dict[str, Any]]]:
    base = Path(directory) if directory is not None else TARGETS_DIR
    if not base.is_dir():
        raise TargetError(base, "<directory>", "no such directory of target profiles")
    files = _profile_files(base)
    for item in extra:
        item = Path(item)
        if item.is_dir():
            files.extend(_profile_files(item))
        elif item.is_file():
            files.append(item)
        else:
            raise TargetError(item, "<file>", "no such profile file")
    loaded: list[tuple[Path, dict[str, Any]]] = []
    seen: dict[str, Path] = {}
    for path in files:
        data = _read_profile(path)
        if data["id"] in seen:
            raise TargetError(path, "id", f"{data['id']!r} is already defined in {seen[data['id']]}; "
                                          "give a user profile its own id")
        seen[data["id"]] = path
        loaded.append((path, data))
    return loaded


def _make_target(path: Path, data: dict[str, Any]) -> Target:
    fields = dict(data)
    fields.setdefault("kind", "target")
    for alias, raw in ALIASES.items():
        fields[alias] = data[raw]
    return Target(
        id=data["id"], name=data["name"], gfx=data["gfx"], architecture=data["architecture"],
        pre_release=data["pre_release"], wavefront_size=data["wavefront_size"],
        lds_kib=data["lds_per_workgroup_kib"], compute_units=data["compute_units"],
        matrix_unit=data["matrix_unit"], hbm_gib=data["hbm_gib"], hbm_bandwidth_tbs=data["hbm_bandwidth_tbs"],
        fields=_freeze(fields), source=display_path(path),
    )


def load_targets(directory: Path | None = None, extra: Iterable[Path | str] = ()) -> dict[str, Target]:
    """All selectable target profiles by id, sorted by id.

    `directory` defaults to <repo>/rules/targets; `extra` adds user profile files (or directories of them).
    A file that fails the schema, or repeats an id, raises TargetError (a ValueError) naming file and field.
    """
    targets = [_make_target(p, d) for p, d in _collect(directory, extra) if d.get("kind", "target") == "target"]
    return {t.id: t for t in sorted(targets, key=lambda t: t.id)}


def load_references(directory: Path | None = None, extra: Iterable[Path | str] = ()) -> dict[str, Reference]:
    """The comparison profiles (kind: reference) by id — e.g. `load_references()["nvidia"].max_smem_per_block_kib`."""
    refs: dict[str, Reference] = {}
    for path, data in _collect(directory, extra):
        if data.get("kind") != "reference":
            continue
        refs[data["id"]] = Reference(
            id=data["id"], name=data["name"], warp_size=data["warp_size"],
            smem_per_sm_kib=data["smem_per_sm_kib"], max_smem_per_block_kib=data["max_smem_per_block_kib"],
            static_smem_limit_kib=data["static_smem_limit_kib"], devices=_freeze(data["devices"]),
            fields=_freeze(data), source=display_path(path),
        )
    return dict(sorted(refs.items()))


# -------------------------------------------------------------------------------------------------- selecting


def _as_mapping(available: Mapping[str, Target] | Iterable[Target]) -> dict[str, Target]:
    if isinstance(available, Mapping):
        return dict(available)
    return {t.id: t for t in available}


def select_targets(spec: Iterable[str] | None, available: Mapping[str, Target] | Iterable[Target]) -> list[Target]:
    """The targets a run is about, in the order asked for.

    `spec` holds ids ("mi300x"), comma-separated lists ("mi300x,mi355x") or "all" (every available profile,
    sorted by id); ids are case-insensitive and repeats are dropped. An empty spec means DEFAULT_TARGETS.
    An unknown id raises ValueError listing the valid ids.
    """
    pool = _as_mapping(available)
    by_lower = {k.lower(): t for k, t in pool.items()}
    wanted = [part.strip().lower() for item in (spec or ()) for part in str(item).split(",") if part.strip()]
    if not wanted:
        wanted = list(DEFAULT_TARGETS)
    chosen: list[Target] = []
    for name in wanted:
        if name == "all":
            picked = [pool[k] for k in sorted(pool)]
        elif name in by_lower:
            picked = [by_lower[name]]
        else:
            valid = ", ".join(["all", *sorted(pool)])
            raise ValueError(f"unknown target {name!r} (valid: {valid})")
        chosen.extend(t for t in picked if t not in chosen)
    return chosen


def resolve_targets(spec: Iterable[str] | None, default: Iterable[str] = DEFAULT_TARGETS) -> list[Target]:
    """The one place a run's targets are decided: the profiles `spec` names, in the order asked for.

    Each entry is a target id ("mi300x", any case), a gfx name ("gfx942": every profile of that chip), "all", a
    comma-separated list of those, or the path of a user profile file (*.yaml/*.yml, or any entry with a "/"),
    which is loaded and selected. An empty spec means `default`. Anything else raises TargetError naming the entry
    and the valid ids.
    """
    ids: list[str] = []
    files: list[str] = []
    for item in spec or ():
        for part in str(item).split(","):
            part = part.strip()
            if part.endswith(PROFILE_SUFFIXES) or "/" in part:
                files.append(part)
            elif part:
                ids.append(part)
    for f in files:
        if not Path(f).is_file():
            raise TargetError(f, "<file>", "no such profile file (a --target that is a path must name a .yaml profile)")
    available = load_targets(extra=files)
    if files:
        # A user profile may not reuse a shipped id (load_targets refuses), so the new ids are exactly the user's.
        ids += sorted(set(available) - set(load_targets()))
    by_gfx: dict[str, list[str]] = {}
    for t in available.values():
        by_gfx.setdefault(t.gfx.lower(), []).append(t.id)
    expanded = [i for name in ids for i in (by_gfx.get(name.lower(), [name]) if name.lower() not in available else [name])]
    try:
        return select_targets(expanded or list(default), available)
    except ValueError as e:
        raise TargetError("--target", "value", str(e)) from None


def gfx_of(spec: str) -> str:
    """The gfx name a target id or gfx name stands for (what a compiler's --offload-arch takes)."""
    if spec.lower().startswith("gfx"):
        return spec.lower()
    return resolve_targets([spec])[0].gfx


# ------------------------------------------------------------------------------------------------- predicates

_BARE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")  # the shape of target ids and gfx names
_ALLOWED_NODES = (
    ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.Compare, ast.Name, ast.Load,
    ast.Constant, ast.Tuple, ast.List,
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Is, ast.IsNot,
)
_CONSTANT_TYPES = (bool, int, float, str, type(None))
_COMPARE = {
    ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}


@functools.lru_cache(maxsize=1024)
def _parse(predicate: str) -> ast.Expression:
    """Parse and vet a predicate once; every node is checked, not only the ones a short circuit reaches."""
    if len(predicate) > MAX_PREDICATE_LENGTH:
        raise ValueError(f"target predicate too long ({len(predicate)} > {MAX_PREDICATE_LENGTH}): {predicate[:60]!r}…")
    try:
        tree = ast.parse(predicate.strip(), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"target predicate {predicate!r} is not an expression: {exc.msg}") from None
    known = target_field_names()
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise ValueError(f"target predicate {predicate!r} uses {type(node).__name__}, which is not allowed "
                             "(only comparisons, and/or/not, field names and literals)")
        if isinstance(node, ast.Constant) and not isinstance(node.value, _CONSTANT_TYPES):
            raise ValueError(f"target predicate {predicate!r} has an unsupported literal {node.value!r}")
        if isinstance(node, ast.Name) and node.id not in known:
            raise ValueError(f"target predicate {predicate!r} names unknown field {node.id!r}")
        if isinstance(node, (ast.Tuple, ast.List)) and not all(isinstance(e, ast.Constant) for e in node.elts):
            raise ValueError(f"target predicate {predicate!r}: a list may hold only literals")
        if isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators):
                if isinstance(op, (ast.Is, ast.IsNot)) and not (isinstance(right, ast.Constant) and right.value is None):
                    raise ValueError(f"target predicate {predicate!r}: 'is' may only test for None (unknown)")
    return tree


def _truth(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _eval(node: ast.AST, fields: Mapping[str, Any], predicate: str) -> Any:
    if isinstance(node, ast.Expression):
        return _eval(node.body, fields, predicate)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return fields.get(node.id)
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(e.value for e in node.elts)  # type: ignore[attr-defined]  # vetted in _parse
    if isinstance(node, ast.UnaryOp):  # only Not passes _parse
        value = _truth(_eval(node.operand, fields, predicate))
        return None if value is None else not value
    if isinstance(node, ast.BoolOp):
        decisive = isinstance(node.op, ast.Or)  # True decides an `or`, False decides an `and`
        result: bool | None = not decisive
        for operand in node.values:
            value = _truth(_eval(operand, fields, predicate))
            if value is decisive:
                return decisive
            if value is None:
                result = None
        return result
    if isinstance(node, ast.Compare):
        result = True
        left = _eval(node.left, fields, predicate)
        for op, comparator in zip(node.ops, node.comparators):
            right = _eval(comparator, fields, predicate)
            if isinstance(op, (ast.Is, ast.IsNot)):
                outcome: bool | None = (left is None) == isinstance(op, ast.Is)
            elif left is None or right is None:
                outcome = None
            else:
                try:
                    outcome = bool(_COMPARE[type(op)](left, right))
                except TypeError as exc:
                    raise ValueError(f"target predicate {predicate!r} compares incompatible values: {exc}") from None
            if outcome is False:
                return False
            if outcome is None:
                result = None
            left = right
        return result
    raise ValueError(f"target predicate {predicate!r} uses {type(node).__name__}")  # unreachable after _parse


def _is_bare(text: str) -> bool:
    return bool(_BARE.fullmatch(text)) and text not in target_field_names()


def evaluate(predicate: str, target: Target) -> bool:
    """Whether one entry of a rule's `targets:` list holds for `target`.

    "all" holds everywhere; a bare word that is not a field name is a target id or gfx name (case-insensitive);
    anything else is a predicate on profile fields. A malformed or unsafe predicate raises ValueError naming it.
    An unknown (null) field makes a comparison unknown, and an unknown result counts as False.
    """
    if not isinstance(predicate, str):
        raise ValueError(f"target predicate must be a string, not {type(predicate).__name__}: {predicate!r}")
    text = predicate.strip()
    if not text:
        raise ValueError("empty target predicate")
    if text.lower() == "all":
        return True
    if _is_bare(text):
        return text.lower() in (target.id.lower(), target.gfx.lower())
    return _eval(_parse(text), target.fields, text) is True


def _entries(targets_field: Iterable[str] | str | None) -> list[str]:
    if isinstance(targets_field, str):  # `targets: all` written without brackets
        return [targets_field]
    return list(targets_field or ())


def applies(targets_field: Iterable[str] | str | None, target: Target) -> bool:
    """Whether a rule with this `targets:` list applies to `target`: no list, an empty one or "all" → True."""
    entries = _entries(targets_field)
    if not entries:
        return True
    return any(evaluate(entry, target) for entry in entries)


def validate_predicate(predicate: str, available: Mapping[str, Target] | Iterable[Target]) -> None:
    """Lint one `targets:` entry against the loaded profiles (for the rules meta-test).

    Beyond what `evaluate` checks, a bare word must name an available target id or gfx, so a typo such as
    "mi300" is caught instead of silently never applying. Raises ValueError naming the entry.
    """
    pool = _as_mapping(available)
    text = predicate.strip() if isinstance(predicate, str) else predicate
    if not isinstance(text, str) or not text:
        raise ValueError(f"empty or non-string target predicate: {predicate!r}")
    if text.lower() == "all":
        return
    if _is_bare(text):
        names = {t.id.lower() for t in pool.values()} | {t.gfx.lower() for t in pool.values()}
        if text.lower() not in names:
            raise ValueError(f"target {text!r} is neither a target id nor a gfx name (valid: {', '.join(sorted(names))})")
        return
    _parse(text)
    for target in pool.values():  # surface type errors such as `architecture < 3` now, not mid-scan
        evaluate(text, target)
