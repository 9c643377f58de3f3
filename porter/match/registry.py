"""The registry of pattern kinds: each key a rule's pattern may use, declared once with the function that matches
it, the languages it can hit in, and the JSON Schema of its value (porter/schemas/pattern-kinds.json).

A matcher is `fn(pattern: dict, source: SourceFile, ctx: MatchContext) -> Iterable[Hit]`. Adding a new kind of
pattern means writing one such function in a module under porter/match/kinds/, describing its value in
pattern-kinds.json and declaring it below; adding a rule needs no code. porter.rules checks every pattern of every
rule against these declarations when the rules load, so a matcher may trust the shape of its pattern.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable

from porter.match.base import Hit, MatchContext, Matcher, per_object
from porter.match.kinds import (arms, binary, buildfiles, code, code_constants, code_kb, code_lanes, code_masks,
                                code_members, code_pasted, code_redefined, code_shared, code_vectors, code_vendor_names,
                                config, embedded, host_arms, includes, library, python, templates)
from porter.schemas import schema
from porter.source.parse import SourceFile

if TYPE_CHECKING:  # jsonschema is imported only when a rule is validated (porter.validated)
    import jsonschema

SCHEMA = "pattern-kinds.json"

# The languages a kind can hit in (porter.source.discover's names).
TEXT = frozenset({"cuda", "python", "cmake", "make", "meson", "bazel", "dockerfile", "shell", "json", "yaml", "toml",
                  "requirements", "text"})
ANY = TEXT | {"binary"}
CUDA = frozenset({"cuda"})
PYTHON = frozenset({"python"})
BINARY = frozenset({"binary"})
CONFIG = frozenset({"json", "yaml", "toml"})
PACKAGE_LISTS = frozenset({"requirements", "toml", "python", "dockerfile", "shell", "make", "yaml"})
LIBRARY_EVIDENCE = PACKAGE_LISTS | {"cuda", "cmake", "bazel", "meson"}  # headers, link lines, imports, package lists


@dataclass(frozen=True)
class PatternKind:
    """One pattern kind: its key, the function that matches it, and the languages it can hit in."""

    name: str
    matcher: Matcher
    languages: frozenset[str]

    @property
    def description(self) -> str:
        return _declared()[self.name].get("description", "")

    @property
    def options(self) -> tuple[str, ...]:
        """The other keys of the pattern object this kind reads (e.g. regex's `in` and `flags`)."""
        return tuple(_declared()[self.name].get("options", {}))


def match_pattern(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """Hits of one pattern object by its kind's matcher (modifiers such as not_regex are the engine's to apply)."""
    return _matcher_of(pattern)(pattern, sf, ctx)


def kind_of(pattern: dict) -> str:
    """The pattern's kind: its one key that names a kind (the loader has checked there is exactly one)."""
    return next(k for k in pattern if k in KINDS)


def _declare(*kinds: PatternKind) -> dict[str, PatternKind]:
    declared = {k.name: k for k in kinds}
    described = set(_declared())
    if set(declared) != described:
        raise RuntimeError(f"{SCHEMA} and porter.match.registry disagree on kinds: "
                           f"{sorted(set(declared) ^ described)}")
    return declared


def _declared() -> dict[str, Any]:
    return schema(SCHEMA)["kinds"]


# feature and embedded_cuda run another pattern: they get this registry's dispatch instead of importing it.
KINDS: dict[str, PatternKind] = _declare(
    PatternKind("identifiers", code.match_identifiers, TEXT),
    PatternKind("regex", code.match_regex, TEXT),
    PatternKind("include", code.match_include, CUDA),
    PatternKind("cuda_project_include", includes.match_cuda_project_include, CUDA),
    PatternKind("call", code.match_call, CUDA | PYTHON),
    PatternKind("import", python.match_import, PYTHON),
    PatternKind("vendor_variant", python.match_vendor_variant, PYTHON),
    PatternKind("vendor_module", python.match_vendor_module, PYTHON),
    PatternKind("backend_tag", python.match_backend_tag, PYTHON),
    PatternKind("query", code.match_query, CUDA | PYTHON),
    PatternKind("kb", code_kb.match_kb, CUDA),
    PatternKind("kb_header", code_kb.match_kb_header, CUDA),
    PatternKind("kernel", code.match_kernel, CUDA),
    PatternKind("launch", code.match_launch, CUDA),
    PatternKind("vanishing_arm", arms.match_vanishing_arm, CUDA),
    PatternKind("stub_arm", arms.match_stub_arm, CUDA),
    PatternKind("vanishing_build_arm", arms.match_vanishing_build_arm, CUDA),
    PatternKind("host_only_marker", arms.match_host_only_marker, CUDA),
    PatternKind("host_arm_call", host_arms.match_host_arm_call, CUDA),
    PatternKind("wave_constant", arms.match_wave_constant, CUDA | arms.BUILD_DEFINITION_LANGUAGES),
    PatternKind("feature", functools.partial(code.match_feature, inner=match_pattern), CUDA),
    PatternKind("member_call", code_members.match_member_call, CUDA),
    PatternKind("constant_context", code_constants.match_constant_context, CUDA),
    PatternKind("lane_mask", code_lanes.match_lane_mask, CUDA),
    PatternKind("mask_parameter", code_masks.match_mask_parameter, CUDA),
    PatternKind("hip_declared_definition", code_redefined.match_hip_declared_definition, CUDA),
    PatternKind("vector_compound_use", code_vectors.match_vector_compound_use, CUDA),
    PatternKind("pasted_name", code_pasted.match_pasted_name, CUDA),
    PatternKind("cuda_named_project_name", code_vendor_names.match_cuda_named_project_name, CUDA),
    PatternKind("shared_opt_in", code_shared.match_shared_opt_in, CUDA),
    PatternKind("dependent_template_call", templates.match_dependent_template_call, CUDA),
    PatternKind("key", config.match_key, CONFIG),
    PatternKind("dockerfile", buildfiles.match_dockerfile, frozenset({"dockerfile"})),
    PatternKind("cmake", buildfiles.match_cmake, frozenset({"cmake"})),
    PatternKind("library", library.match_library, LIBRARY_EVIDENCE),
    PatternKind("vendored_copy", library.match_vendored_copy, CUDA),
    PatternKind("requirement", library.match_requirement, PACKAGE_LISTS),
    PatternKind("module_call", library.match_module_call, PYTHON),
    PatternKind("command", library.match_command, TEXT),
    PatternKind("file", binary.match_file, ANY),
    PatternKind("elf", binary.match_elf, BINARY),
    PatternKind("wheel", binary.match_wheel, BINARY),
    PatternKind("safetensors", binary.match_safetensors, BINARY),
    PatternKind("embedded_cuda", functools.partial(embedded.match_embedded_cuda, inner=match_pattern), PYTHON),
    PatternKind("embedded_binary", embedded.match_embedded_binary, CUDA),
)
MATCHERS: dict[str, Matcher] = {name: k.matcher for name, k in KINDS.items()}
# Each pattern object's matcher, found once: feature and embedded_cuda ask for their wrapped pattern's per file.
_matcher_of = per_object(lambda pattern: MATCHERS[kind_of(pattern)])
MODIFIERS: tuple[str, ...] = tuple(schema(SCHEMA)["modifiers"])


def pattern_schema(kind: str, nested: bool = False) -> dict[str, Any]:
    """The JSON Schema of a whole pattern object of `kind`: the kind's key, its options and, unless the pattern is
    nested in another (feature, embedded_cuda, where the engine does not apply them), the modifiers."""
    doc = schema(SCHEMA)
    spec = doc["kinds"][kind]
    properties = {kind: spec["value"], **spec.get("options", {})}
    if not nested:
        properties.update(doc["modifiers"])
    return {"$schema": doc["$schema"], "$defs": doc["$defs"], "type": "object", "required": [kind],
            "properties": properties, "additionalProperties": False}


@functools.lru_cache(maxsize=1)
def _formats() -> jsonschema.FormatChecker:
    import jsonschema

    checker = jsonschema.FormatChecker(formats=())
    checker.checks("regex", raises=re.error)(_compiles)
    return checker


def _compiles(value: object) -> bool:
    # Matchers run patterns over bytes, a few over decoded text: a regex must compile both ways.
    if isinstance(value, str):
        re.compile(value)
        re.compile(value.encode())
    return True


@functools.lru_cache(maxsize=None)
def pattern_validator(kind: str, nested: bool = False) -> jsonschema.protocols.Validator:
    """A reusable validator for pattern objects of one kind (see pattern_schema). The schemas are shipped, not
    user data, so tests/test_registry.py checks them against the metaschema instead of every load (~60 ms)."""
    import jsonschema

    doc = pattern_schema(kind, nested)
    return jsonschema.validators.validator_for(doc)(doc, format_checker=_formats())


__all__ = ["Hit", "KINDS", "MATCHERS", "MODIFIERS", "MatchContext", "Matcher", "PatternKind", "kind_of",
           "match_pattern", "pattern_schema", "pattern_validator"]
