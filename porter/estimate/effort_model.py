"""Load porter's effort model: rules/effort/model.yaml, optionally merged with a repository's override file.

The model is data (hours per rule effort size, per kernel verdict, per repository-wide job, and what decides the
verdict); the other porter.estimate modules only apply it. An override (porter.toml / [tool.porter]
`effort = "file.yaml"`) may be partial: mappings merge key by key, `one_offs` and `advice` entries merge by `id` (a new id is appended), any
other list replaces the shipped one. The merged model is validated against porter/schemas/effort.schema.json
plus what a schema cannot say (low <= likely <= high, regexes compile, target predicates parse, ids are unique);
an error names the file and the field.
"""
from __future__ import annotations

import copy
import functools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from porter.datafile import DATA_DIR, display_path, read_yaml
from porter.errors import DataFileError
from porter.schemas import validator

MODEL_PATH = DATA_DIR / "effort" / "model.yaml"
SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schemas" / "effort.schema.json"
SIZES = ("none", "xs", "s", "m", "l", "xl")
_MERGE_BY_ID = ("one_offs", "advice")


class EffortModelError(DataFileError):
    """An effort model (or override) that cannot be used; names the file and the field."""


@dataclass(frozen=True)
class Hours:
    """An amount of work as a range of engineer-hours."""

    low: float = 0.0
    likely: float = 0.0
    high: float = 0.0

    @classmethod
    def of(cls, triple) -> "Hours":
        return cls(float(triple[0]), float(triple[1]), float(triple[2]))

    def __add__(self, other: "Hours") -> "Hours":
        return Hours(self.low + other.low, self.likely + other.likely, self.high + other.high)

    def scale(self, factor: float) -> "Hours":
        return Hours(self.low * factor, self.likely * factor, self.high * factor)

    def text(self) -> str:
        """The range as a reader sees it in a basis or an assumption: '0.05–0.1–0.25 h'."""
        return f"{round(self.low, 2):g}–{round(self.likely, 2):g}–{round(self.high, 2):g} h"

    def rounded(self, digits: int = 2) -> "Hours":
        return Hours(round(self.low, digits), round(self.likely, digits), round(self.high, digits))

    def to_dict(self) -> dict[str, float]:
        r = self.rounded()
        return {"low": r.low, "likely": r.likely, "high": r.high}


@dataclass(frozen=True)
class EffortModel:
    """The validated, merged effort model; `data` follows porter/schemas/effort.schema.json."""

    data: dict[str, Any] = field(compare=False)
    source: str = "rules/effort/model.yaml"
    override: str | None = None

    @property
    def hours_per_day(self) -> float:
        return float(self.data["hours_per_day"])

    @property
    def round_days_to(self) -> float:
        return float(self.data.get("round_days_to", 0.5))

    def size(self, name: str) -> Hours:
        return Hours.of(self.data["sizes"].get(name, self.data["sizes"]["s"]))

    def verdict_hours(self, verdict: str) -> Hours:
        return Hours.of(self.data["kernels"]["verdicts"][verdict])

    @property
    def kernels(self) -> dict[str, Any]:
        return self.data["kernels"]

    @property
    def one_offs(self) -> list[dict[str, Any]]:
        return self.data["one_offs"]

    @property
    def advice(self) -> list[dict[str, Any]]:
        return self.data.get("advice", [])

    @property
    def verdict(self) -> dict[str, Any]:
        return self.data["verdict"]

    @property
    def repeat_factor(self) -> float:
        return float(self.data["per"]["hit"].get("repeat_factor", 1.0))

    @property
    def saturation(self) -> float | None:
        """The most units any number of hits of one rule or library in one file add up to (None: no limit)."""
        value = self.data["per"]["hit"].get("saturation")
        return float(value) if value is not None else None

    def hit_units(self, n: int) -> float:
        """Units of work for `n` hits of one rule or library in one file: the first costs 1, each further one
        `repeat_factor` at first and less as the fix becomes routine, approaching `saturation`."""
        if n <= 0:
            return 0.0
        cap = self.saturation
        if cap is None or cap <= 1:
            return 1 + (n - 1) * self.repeat_factor if cap is None else 1.0
        return 1 + (cap - 1) * (1 - math.exp(-(n - 1) * self.repeat_factor / (cap - 1)))

    def file_units(self, n: int) -> float:
        """Units for a per-file rule firing in `n` files: each further file repeats a known fix (the per.file
        `repeat_factor`, 1 when not given), approaching `saturation` (no limit when not given)."""
        spec = self.data["per"].get("file") or {}
        r, cap = float(spec.get("repeat_factor", 1.0)), spec.get("saturation")
        if n <= 0:
            return 0.0
        if cap is None or cap <= 1:
            return 1 + (n - 1) * r if cap is None else 1.0
        cap = float(cap)
        return 1 + (cap - 1) * (1 - math.exp(-(n - 1) * r / (cap - 1)))

    def need_hours(self, need: str, verdict: str) -> Hours:
        """Hours for what a kernel needs on a target (a `kernels.needs` entry), else for the verdict it gave."""
        needs = self.kernels.get("needs", {})
        return Hours.of(needs[need]) if need in needs else self.verdict_hours(verdict)

    @property
    def matrix_ptx_families(self) -> tuple[str, ...]:
        return tuple(self.kernels.get("matrix_ptx_families", ()))

    def scale(self, kind: str) -> float:
        """The calibration's multiplier for items of one kind (kernel, finding, one-off)."""
        return float(self.data.get("calibration", {}).get("scale", {}).get(kind, 1.0))

    @functools.cached_property
    def _optional_spec(self):
        import pathspec

        return pathspec.GitIgnoreSpec.from_lines(self.data.get("optional", {}).get("paths", []))

    @property
    def separate_extensions(self) -> bool:
        """Whether separately built Python extensions (a nested setup.py) count as optional work."""
        return bool(self.data.get("optional", {}).get("separate_extensions", False))

    def optional_path(self, path: str | None) -> bool:
        """Whether work at `path` is optional (contrib/, extensions the model lists): never in the headline."""
        return path is not None and self._optional_spec.match_file(path)

    def days_to_tenth(self, hours: Hours) -> dict[str, float]:
        """Days for breakdown rows, to one decimal instead of `round_days_to`, so small items stay visible."""
        per = self.hours_per_day
        return {"low": round(hours.low / per, 1), "likely": round(hours.likely / per, 1),
                "high": round(hours.high / per, 1)}

    def days(self, hours: Hours) -> Hours:
        """Hours as engineer-days, low rounded down and high rounded up to `round_days_to` (likely to nearest)."""
        import math

        step = self.round_days_to
        per = self.hours_per_day

        def down(h):
            return math.floor(h / per / step + 1e-9) * step

        def up(h):
            return math.ceil(h / per / step - 1e-9) * step

        def near(h):
            return math.floor(h / per / step + 0.5) * step

        low, high = down(hours.low), up(hours.high)
        likely = max(low, min(near(hours.likely), high))
        if hours.likely > 0 and likely == 0:
            likely = step  # a nonzero job never reads as "0 days"
        return Hours(low, likely, max(high, likely))


def _validator() -> jsonschema.protocols.Validator:
    return validator(SCHEMA_PATH.name)


def _read(path: Path) -> dict[str, Any]:
    shown = display_path(path)
    doc = read_yaml(path, EffortModelError, shown)
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise EffortModelError(shown, "<file>", "an effort model must be a mapping")
    return doc


def merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """`override` merged over `base` (see the module docstring); neither input is changed."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        if key in _MERGE_BY_ID and isinstance(value, list) and isinstance(out.get(key), list):
            by_id = {e.get("id"): i for i, e in enumerate(out[key]) if isinstance(e, dict)}
            for entry in value:
                if isinstance(entry, dict) and entry.get("id") in by_id:
                    i = by_id[entry["id"]]
                    out[key][i] = merge(out[key][i], entry)
                else:
                    out[key].append(copy.deepcopy(entry))
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


# The largest number any field of the model may hold: 10^6 hours is ~500 engineer-years, more than any port; a
# bigger value is a typo or an attack, and sums of such values overflow to inf. A nonzero value below 10^-6 (a
# denormal like 1e-320 among them) is as absurd: as a divisor (hours_per_day, round_days_to) it makes inf.
_MAX_NUMBER = 1e6
_MIN_NONZERO = 1e-6


def _check_numbers(value: Any, where: str, shown: str) -> None:
    """Every number in the document is finite, not negative, and 0 or within [_MIN_NONZERO, _MAX_NUMBER]: YAML
    writes nan and inf as `.nan` and `.inf`, and JSON Schema's bounds do not reject nan (every comparison with it
    is false), so this runs before the schema."""
    if isinstance(value, dict):
        for k, v in value.items():
            _check_numbers(v, f"{where}.{k}" if where else str(k), shown)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            key = f"[{v['id']}]" if isinstance(v, dict) and isinstance(v.get("id"), str) else f".{i}"
            _check_numbers(v, f"{where}{key}", shown)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        # repr: the number as written (1e-320, not the 9.99989e-321 that %g makes of a denormal)
        if not math.isfinite(value):
            raise EffortModelError(shown, where or "<file>", f"{value!r} is not a finite number")
        if value < 0:
            raise EffortModelError(shown, where or "<file>", f"{value!r} is negative")
        if value > _MAX_NUMBER:
            raise EffortModelError(shown, where or "<file>", f"{value!r} is more than {_MAX_NUMBER:g}")
        if 0 < value < _MIN_NONZERO:
            raise EffortModelError(shown, where or "<file>", f"{value!r} is neither 0 nor at least {_MIN_NONZERO:g}")


def _check(doc: dict[str, Any], shown: str) -> None:
    _check_numbers(doc, "", shown)
    errors = sorted(_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        e = jsonschema.exceptions.best_match(errors)
        where = ".".join(str(p) for p in e.absolute_path) or "<file>"
        raise EffortModelError(shown, where, e.message)

    def ordered(where: str, triple) -> None:
        if not triple[0] <= triple[1] <= triple[2]:
            raise EffortModelError(shown, where, f"{list(triple)} is not low <= likely <= high")

    for name, triple in doc["sizes"].items():
        ordered(f"sizes.{name}", triple)
    for name, triple in doc["kernels"]["verdicts"].items():
        ordered(f"kernels.verdicts.{name}", triple)
    size = doc["kernels"]["size"]
    if size["min_factor"] > size["max_factor"]:
        raise EffortModelError(shown, "kernels.size", "min_factor is above max_factor")
    from porter.targets import load_targets, validate_predicate

    available = load_targets()
    for group in ("one_offs", "advice"):
        seen: set[str] = set()
        for i, entry in enumerate(doc.get(group, [])):
            label = f"{group}[{entry['id']}]"
            if entry["id"] in seen:
                raise EffortModelError(shown, label, "duplicate id")
            seen.add(entry["id"])
            if "hours" in entry:
                ordered(f"{label}.hours", entry["hours"])
            for j, alt in enumerate(entry["when"]):
                if "text" in alt:
                    try:
                        re.compile(alt["text"])
                    except re.error as e:
                        raise EffortModelError(shown, f"{label}.when.{j}.text", f"bad regular expression: {e}") from None
            names = (entry.get("per_file") or {}).get("names")
            if names:
                try:
                    re.compile(names)
                except re.error as e:
                    raise EffortModelError(shown, f"{label}.per_file.names", f"bad regular expression: {e}") from None
            predicates = list(entry.get("targets", [])) + [p["if"] for p in entry.get("per_target", [])]
            for pred in predicates:
                try:
                    validate_predicate(pred, available)
                except ValueError as e:
                    raise EffortModelError(shown, label, str(e)) from None
    ids = {e["id"] for e in doc["one_offs"]}
    for entry in doc["one_offs"]:
        unknown = [c for c in entry.get("covered_by", []) if c not in ids]
        if unknown:
            raise EffortModelError(shown, f"one_offs[{entry['id']}].covered_by", f"unknown one-off id(s) {unknown}")


def load_effort_model(override: Path | str | None = None, base: Path | str | None = None) -> EffortModel:
    """The shipped model (or `base`), with `override` merged over it, validated."""
    base_path = Path(base) if base is not None else MODEL_PATH
    doc = _read(base_path)
    shown = display_path(base_path)
    over_shown = None
    if override is not None:
        over_path = Path(override)
        over_shown = display_path(over_path)
        doc = merge(doc, _read(over_path))
        shown = f"{over_shown} (merged over {shown})"
    _check(doc, shown)
    return EffortModel(doc, display_path(base_path), over_shown)
