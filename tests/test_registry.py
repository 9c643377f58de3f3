"""The pattern-kind registry: every kind declared once with a schema, and rules checked against it at load."""
from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from porter.kb import HEADER_STATUSES, STATUSES
from porter.match.registry import KINDS, MODIFIERS, kind_of, pattern_schema, pattern_validator
from porter.rules import RULES_DIR, RuleError, load_rule, load_rules
from porter.schemas import SCHEMA_DIR, schema
from porter.source.syntax import LAUNCH_APIS

RULES = load_rules().rules
KIND_SCHEMAS = schema("pattern-kinds.json")
GOOD = (RULES_DIR / "kernel" / "KRN001-kernel-definition.yaml").read_text()
CONTRIBUTING = (Path(__file__).resolve().parents[1] / "docs" / "CONTRIBUTING.md").read_text()


def rule_with(tmp_path, pattern: str, languages: str = "[cuda]") -> Path:
    """KRN001 with its one pattern (a YAML flow mapping) and its languages replaced, as KRN900."""
    text = GOOD.replace("id: KRN001", "id: KRN900").replace("languages: [cuda]", f"languages: {languages}")
    text = text.replace("  - kernel: {}", f"  - {pattern}")
    path = tmp_path / "kernel" / "KRN900-case.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def load_error(path: Path) -> str:
    with pytest.raises(RuleError) as e:
        load_rule(path, path.parents[1])
    return str(e.value)


def nested_patterns(pattern: dict, nested: bool = False):
    """(pattern, nested) for a pattern and every pattern inside it (feature, embedded_cuda.match)."""
    yield pattern, nested
    kind = kind_of(pattern)
    if kind == "feature":
        yield from nested_patterns({k: v for k, v in pattern["feature"].items() if k != "note"}, True)
    if kind == "embedded_cuda" and "match" in pattern["embedded_cuda"]:
        yield from nested_patterns(pattern["embedded_cuda"]["match"], True)


SHIPPED = [(r.id, i, p, nested) for r in RULES for i, top in enumerate(r.patterns) for p, nested in nested_patterns(top)]


def test_every_shipped_rule_loads():
    # DEV013 (host capability dispatch), DEV014 (NVIDIA-generation tuning), DEV015 (TF32), API007 (thrust::cuda) added
    # by issue 11; DEV016 (vanishing __CUDA_ARCH__ arm), DEV017 (wave size fixed at 64), DEV018 (half raw bit patterns)
    # API008 (CUDA_R_* compute types) and DEV019 (dependent member template without `template`) by issue 27; API009
    # (vector compound operators HIP defines), API010 (coordinate in min/max), DEV020 (texture fetch on CDNA) and
    # DEV021 (register storage class) by issue 30; DEV022 (shared memory opted in above 64 KiB) by issue 27; DEV027
    # (cache-hint loads of a non-half type) by issue 27, session 11; DEV030 (full-warp mask defined 32 bits wide),
    # DEV031 (__CUDA_ARCH__ arm with a stub #else), DEV032 (device properties HIP has from 6.0), LIB013 (cub::
    # names), LIB014 (the project's own CUDA header), LIB015 (the project's wrappers of NVIDIA libraries), PYT011
    # (Triton num_warps of 32 in a variable) and PYT012 (Triton atomics at the default acq_rel) by issue 27 point 8,
    # session 12; DEV033 (__grid_constant__ parameters) and PYT013 (Triton configs with no AMD option, info) by issue
    # 27, session 13; DEV037 (float/double atomics HIP declares, redefined), DEV038 (32-bit mask parameter), DEV039
    # (float atomic max/min through integers, info), API011 (NVIDIA driver paths) and PYT016 (NVRTC-only options) by
    # issue 27 (recall), session 14; PYT017 (the project's NVIDIA-named variant chosen) by issue 27 (recall), session 15;
    # PYT018 (the project's NVIDIA-only module imported), PYT019 (ATen's cuDNN operators by name) and PYT020 (nvcc
    # run from Python for the toolkit version, info) by issue 27 (recall), session 17; API012 (a CUDA name a prefix
    # macro pastes where HIP's name is not the same paste) by issue 27 (recall), session 18; DEV040 (a launch spelled with
    # spaces inside <<<, which clang rejects) by issue 27, session 21; DEV041 (a device-marker macro HIP defines
    # without __device__) by issue 27, session 22; LIB016 (a CUDA-only library chosen by name) and PYT021 (a shared
    # object named for the CUDA build) by issue 27 (Python recall), session 23; DEV042 (a __host__ function called in
    # the __CUDA_ARCH__ arm HIP's device pass compiles) and DEV043 (a CUDA-build arm in device code with no ROCm arm)
    # by issue 27, session 23; PYT022 (the CUDA one of a file's CUDA/ROCm twin functions chosen) and PYT023 (the CUDA
    # toolkit's location read from Python) by issue 27 (Python recall), session 25; DEV053 (a compound assignment
    # on two vector operands that cuda-samples' helper_math.h makes ambiguous with HIP's member operator) by issue 27,
    # session 26; API016 (a name for the CUDA / NVIDIA path in a repository that keeps a ROCm path) and BLD012 (an
    # NVIDIA architecture option built in C/C++) by issue 27 (C/C++ recall), session 26; PYT024 (an NVML-backed
    # torch.cuda device query, info), PYT025 (an artefact name tagged with the CUDA release, info) and PYT026 (a
    # Triton libdevice function the HIP libdevice lacks) by issue 27 (Python recall), session 26; PYT027 and PYT028
    # (CUDA-spelled half switches in Python build scripts, info) and PYT029 (the CUDA value of a backend tag with no
    # ROCm value) by issue 27 (Python recall), session 27;
    # LIB019 (a vendored copy of a drop-in library), BLD014 and BLD015 (meson's CUDA language and dependency), session 27;
    # PYT030 (nvcc named as the compiler Python code runs or looks for, info) and PYT031 (an NVIDIA SM architecture
    # name built, parsed or compared in Python, info) by issue 27 (Python recall), session 28; PYT032 (an NVIDIA
    # register cap set to a number from Python, info) and PYT033 (`half` as a name expression's C type name) by
    # issue 27 (Python recall), session 30; PYT034 (a CuPy routine NVIDIA's cuFFT/cuSOLVER/... computes, info) by
    # issue 27 (Python recall), session 31
    assert len(RULES) == 146


@pytest.mark.parametrize("rid,i,pattern,nested", SHIPPED, ids=[f"{s[0]}-{s[1]}-{kind_of(s[2])}" for s in SHIPPED])
def test_each_kind_schema_accepts_the_shipped_patterns(rid, i, pattern, nested):
    assert [e.message for e in pattern_validator(kind_of(pattern), nested).iter_errors(pattern)] == []


def test_every_kind_is_used_or_known_unused():
    # A kind no shipped rule uses has only test_matchers to keep it honest; say so here when one is added.
    used = {kind_of(p) for _, _, p, _ in SHIPPED}
    assert set(KINDS) - used == {"import"}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_schema_is_a_valid_json_schema(kind):
    for nested in (False, True):
        doc = pattern_schema(kind, nested)
        jsonschema.validators.validator_for(doc).check_schema(doc)
    assert "not_regex" in pattern_schema(kind)["properties"]
    assert "not_regex" not in pattern_schema(kind, nested=True)["properties"]


def test_registry_and_schema_declare_the_same_kinds():
    assert sorted(KINDS) == sorted(KIND_SCHEMAS["kinds"])
    assert MODIFIERS == ("not_regex", "inside_kernel", "in_device_code", "warp_dependent", "not_logical_warp", "rocm")
    assert KINDS["regex"].options == ("in", "flags", "later", "not_later")


def test_schema_enums_agree_with_the_code():
    kinds = KIND_SCHEMAS["kinds"]
    defs = KIND_SCHEMAS["$defs"]
    assert kinds["launch"]["value"]["properties"]["kinds"]["items"]["enum"] == ["chevron", *LAUNCH_APIS]
    assert tuple(defs["kb_status"]["enum"]) == STATUSES
    assert tuple(defs["header_status"]["enum"]) == HEADER_STATUSES
    libraries = json.loads((SCHEMA_DIR / "libraries.schema.json").read_text())
    assert (kinds["library"]["value"]["properties"]["kinds"]["items"]["enum"]
            == libraries["$defs"]["library"]["properties"]["kind"]["enum"])


def test_contributing_documents_every_kind_and_modifier():
    documented = set(re.findall(r"`([a-z_]+)(?::|`)", CONTRIBUTING))
    assert set(KINDS) | set(MODIFIERS) | {"in", "flags"} <= documented


def test_typo_in_a_kind_value_names_the_key_meant(tmp_path):
    path = rule_with(tmp_path, "launch: {kind: [chevron]}")
    assert load_error(path) == f"{path}: patterns.0.launch: unknown key 'kind' (did you mean 'kinds'?)"


def test_typo_in_a_modifier_names_the_modifier_meant(tmp_path):
    path = rule_with(tmp_path, "{regex: 'cudaMalloc', not_regx: 'x'}")
    assert load_error(path) == f"{path}: patterns.0: unknown key 'not_regx' (did you mean 'not_regex'?)"


def test_unknown_key_without_a_close_match_lists_the_known_ones(tmp_path):
    path = rule_with(tmp_path, "launch: {zzz: 1}")
    assert load_error(path) == f"{path}: patterns.0.launch: unknown key 'zzz' (known: in_device_code, kinds)"


def test_value_of_the_wrong_shape_is_refused(tmp_path):
    path = rule_with(tmp_path, "launch: {kinds: [chevrons]}")
    assert load_error(path).startswith(f"{path}: patterns.0.launch.kinds.0: 'chevrons' is not one of ['chevron', ")
    path = rule_with(tmp_path, "identifiers: cudaMalloc")
    assert load_error(path) == f"{path}: patterns.0.identifiers: 'cudaMalloc' is not of type 'array'"


def test_option_of_another_kind_is_refused(tmp_path):
    path = rule_with(tmp_path, "{identifiers: [cudaMalloc], in: string}")
    assert load_error(path) == (f"{path}: patterns.0: unknown key 'in' "
                                f"(known: identifiers, in_device_code, inside_kernel, not_logical_warp, not_regex, rocm, warp_dependent)")


def test_feature_around_a_python_kind_is_refused(tmp_path):
    path = rule_with(tmp_path, "feature: {import: [torch], note: PyTorch}", "[python]")
    assert load_error(path) == (f"{path}: patterns.0.feature: wraps 'import', which does not match C/C++/CUDA code; "
                                f"feature takes a CUDA kind such as regex or identifiers")


def test_feature_takes_no_modifiers_inside(tmp_path):
    # The engine applies not_regex / inside_kernel to the outer pattern only: inside feature they would do nothing.
    path = rule_with(tmp_path, "feature: {regex: 'tma', note: TMA, inside_kernel: true}")
    assert load_error(path) == f"{path}: patterns.0.feature: unknown key 'inside_kernel' (known: flags, in, later, not_later, regex)"


def test_feature_needs_a_note(tmp_path):
    path = rule_with(tmp_path, "feature: {regex: 'tma'}")
    assert load_error(path) == f"{path}: patterns.0.feature: 'note' is a required property"


def test_nested_embedded_pattern_is_checked(tmp_path):
    path = rule_with(tmp_path, "embedded_cuda: {match: {launch: {kind: [chevron]}}}", "[python]")
    assert load_error(path) == (f"{path}: patterns.0.embedded_cuda.match.launch: unknown key 'kind' "
                                f"(did you mean 'kinds'?)")


def test_kind_that_cannot_hit_in_the_rule_languages_is_refused(tmp_path):
    path = rule_with(tmp_path, "import: [torch]")
    assert load_error(path) == f"{path}: patterns.0.import: matches only python files, none of the languages it runs on (cuda)"


def test_regex_inside_a_kind_value_must_compile(tmp_path):
    path = rule_with(tmp_path, "cmake: {command: [project], regex: 'CUDA('}", "[cmake]")
    assert load_error(path) == (f"{path}: patterns.0.cmake.regex: bad regular expression: "
                                f"missing ), unterminated subpattern at position 4")


def test_two_kinds_in_one_pattern_are_refused(tmp_path):
    path = rule_with(tmp_path, "{regex: 'a', identifiers: [b]}")
    assert load_error(path) == f"{path}: patterns.0: exactly one pattern kind per entry, found ['regex', 'identifiers']"


def test_feature_dispatches_to_the_wrapped_kind():
    from porter.match.registry import match_pattern
    from porter.match.base import MatchContext
    from porter.source.parse import parse

    sf = parse("k.cu", "cuda", b"__global__ void k() { cp_async_bulk(); }\n")
    hits = list(match_pattern({"feature": {"identifiers": ["cp_async_bulk"], "note": "TMA"}}, sf, MatchContext()))
    assert [(h.start, h.end, h.name, h.values) for h in hits] == [(22, 35, "cp_async_bulk", (("note", "TMA"),))]


def test_shipped_rule_files_keep_the_kind_keys_they_are_written_with():
    # The loader keeps a rule's patterns as written (matchers read them): loading changes nothing.
    raw = yaml.safe_load((RULES_DIR / "device" / "DEV007-hopper-blackwell-features.yaml").read_text())
    assert list(next(r for r in RULES if r.id == "DEV007").patterns) == raw["patterns"]
