"""GPU target profiles: the shipped data, the loader's errors, target selection and the predicate evaluator."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from porter import targets as T
from porter.targets import (
    Target,
    TargetError,
    applies,
    evaluate,
    load_references,
    load_targets,
    select_targets,
    validate_predicate,
)

ALL_IDS = ["mi300x", "mi325x", "mi350x", "mi355x", "mi455x"]


@pytest.fixture(scope="module")
def targets() -> dict[str, Target]:
    return load_targets()


def _profile(name: str = "mi300x") -> dict:
    return yaml.safe_load((T.TARGETS_DIR / f"{name}.yaml").read_text())


def _write(directory: Path, name: str, data: dict | str) -> Path:
    path = directory / name
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False))
    return path


# ------------------------------------------------------------------------------------------- shipped data


def test_loads_exactly_the_five_amd_targets_sorted(targets):
    assert list(targets) == ALL_IDS
    assert "nvidia" not in targets


def test_mi300x_profile(targets):
    t = targets["mi300x"]
    assert (t.gfx, t.architecture, t.wavefront_size, t.lds_kib, t.compute_units) == ("gfx942", "CDNA3", 64, 64, 304)
    assert (t.pre_release, t.matrix_unit, t.hbm_gib, t.hbm_bandwidth_tbs) == (False, "mfma", 192, 5.3)
    assert t.get("fp8_fnuz") is True and t.get("fp8_ocp") is False
    assert t.get("fp4") is False and t.get("fp6") is False and t.get("mxfp4") is False
    assert t.get("tf32") is True
    assert t.get("max_waves_per_simd") == 8 and t.get("unified_vgpr_file_per_lane") == 512
    assert t.get("peak_dense_tflops")["fp8"] == 2614.9
    assert t.source == "rules/targets/mi300x.yaml"


def test_mi325x_profile(targets):
    t = targets["mi325x"]
    assert (t.gfx, t.wavefront_size, t.lds_kib, t.compute_units, t.hbm_gib) == ("gfx942", 64, 64, 304, 256)
    assert t.get("fp8_fnuz") is True and t.get("fp8_ocp") is False


def test_mi350x_and_mi355x_profiles(targets):
    for tid, clock, fp8 in (("mi350x", 2.2, 4613.7), ("mi355x", 2.4, 5033.2)):
        t = targets[tid]
        assert (t.gfx, t.architecture, t.wavefront_size, t.lds_kib, t.compute_units) == ("gfx950", "CDNA4", 64, 160, 256)
        assert (t.hbm_gib, t.hbm_bandwidth_tbs, t.get("peak_clock_ghz")) == (288, 8.0, clock)
        assert t.get("fp8_ocp") is True and t.get("fp8_fnuz") is False
        assert t.get("fp4") is True and t.get("mxfp4") is True and t.get("fp6") is True
        assert t.get("tf32") is False and t.get("tf32_emulated") is True
        assert t.get("peak_dense_tflops")["fp8"] == fp8


def test_mi455x_is_prerelease_wave32(targets):
    t = targets["mi455x"]
    assert (t.gfx, t.wavefront_size, t.lds_kib, t.compute_units, t.pre_release) == ("gfx1250", 32, 320, 256, True)
    assert t.matrix_unit == "wmma"
    assert t.get("has_tdm") is True and t.get("has_clusters") is True and t.get("has_tma") is False
    assert t.get("fp8_ocp") is None  # unknown, not false


@pytest.mark.parametrize("tid", ALL_IDS)
def test_every_profile_is_sourced_and_has_no_nvidia_only_features(targets, tid):
    t = targets[tid]
    assert Path(t.source).stem == tid
    assert len(t.sources) >= 3
    assert t.get("nvfp4") is False
    assert (t.get("has_wgmma"), t.get("has_tcgen05"), t.get("has_tmem")) == (False, False, False)
    assert t.get("lds_kib") == t.get("lds_per_workgroup_kib") == t.lds_kib


def test_nvidia_reference_facts():
    refs = load_references()
    assert list(refs) == ["nvidia"]
    nv = refs["nvidia"]
    assert (nv.warp_size, nv.max_smem_per_block_kib, nv.smem_per_sm_kib, nv.static_smem_limit_kib) == (32, 227, 228, 48)
    assert {k: d["sms"] for k, d in nv.devices.items()} == {"h100": 132, "h200": 132, "b200": 148, "b300": 160}
    assert nv.devices["b200"]["nvfp4"] is True and nv.devices["h100"]["has_wgmma"] is True


def test_target_is_frozen_hashable_and_its_fields_read_only(targets):
    t = targets["mi300x"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.wavefront_size = 32  # type: ignore[misc]
    with pytest.raises(TypeError):
        t.fields["wavefront_size"] = 32  # type: ignore[index]
    assert {t, t} == {t}
    assert t.to_dict() == _profile("mi300x")


# -------------------------------------------------------------------------------------------- loader errors


def test_malformed_profile_names_file_and_field(tmp_path):
    data = _profile()
    data["wavefront_size"] = 48
    bad = _write(tmp_path, "odd.yaml", data)
    with pytest.raises(ValueError) as exc:
        load_targets(tmp_path)
    assert isinstance(exc.value, TargetError)
    assert (exc.value.path, exc.value.field) == (str(bad), "wavefront_size")
    assert str(exc.value).startswith(f"{bad}: wavefront_size: 48 is not one of [32, 64]")


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda d: d.pop("gfx"), "gfx"),
        (lambda d: d.update(warp_size=32), "warp_size"),
        (lambda d: d.update(fp8_ocp="yes"), "fp8_ocp"),
        (lambda d: d.update(nvfp4=True), "nvfp4"),
        (lambda d: d.update(gfx="sm_90"), "gfx"),
        (lambda d: d["peak_dense_tflops"].update(fp3=1.0), "peak_dense_tflops"),
        (lambda d: d.update(sources=[]), "sources"),
        (lambda d: d.update(xcds=7), "compute_units"),
        (lambda d: d.update(lds_per_workgroup_kib=128), "lds_per_workgroup_kib"),
    ],
)
def test_each_kind_of_bad_field_is_named(tmp_path, change, field):
    data = _profile()
    change(data)
    _write(tmp_path, "mi300x.yaml", data)
    with pytest.raises(TargetError) as exc:
        load_targets(tmp_path)
    assert exc.value.field == field
    assert exc.value.path.endswith("mi300x.yaml")


def test_bad_yaml_and_non_mapping_are_reported_with_the_file(tmp_path):
    _write(tmp_path, "a.yaml", "id: [unclosed\n")
    with pytest.raises(TargetError, match=r"a\.yaml: <file>: not valid YAML \(line 2\)"):
        load_targets(tmp_path)
    (tmp_path / "a.yaml").write_text("- just\n- a list\n")
    with pytest.raises(TargetError, match=r"a\.yaml: <file>: a profile must be a YAML mapping"):
        load_targets(tmp_path)


def test_extra_user_profile_is_added_and_duplicate_ids_rejected(tmp_path):
    data = _profile("mi300x")
    data.update(id="mi300x-lab", name="Lab MI300X", lds_per_workgroup_kib=32)
    user = _write(tmp_path, "lab.yaml", data)
    loaded = load_targets(extra=[user])
    assert list(loaded) == ["mi300x", "mi300x-lab", "mi325x", "mi350x", "mi355x", "mi455x"]
    assert loaded["mi300x-lab"].lds_kib == 32 and loaded["mi300x-lab"].source == str(user)
    assert list(load_targets(extra=[tmp_path])) == list(loaded)  # a directory of user profiles works too

    clash = _write(tmp_path, "clash.yaml", _profile("mi355x"))
    with pytest.raises(TargetError, match=r"clash\.yaml: id: 'mi355x' is already defined in .*mi355x\.yaml"):
        load_targets(extra=[clash])
    with pytest.raises(TargetError, match="no such profile file"):
        load_targets(extra=[tmp_path / "missing.yaml"])


def test_missing_directory_is_an_error(tmp_path):
    with pytest.raises(TargetError, match="no such directory"):
        load_targets(tmp_path / "nope")


# ------------------------------------------------------------------------------------------------ selection


def test_select_default_all_and_lists(targets):
    assert [t.id for t in select_targets([], targets)] == ["mi355x"]
    assert [t.id for t in select_targets(None, targets)] == ["mi355x"]
    assert [t.id for t in select_targets(["all"], targets)] == ALL_IDS
    assert [t.id for t in select_targets(["MI355X", "mi300x,mi355x"], targets)] == ["mi355x", "mi300x"]
    assert [t.id for t in select_targets(["mi455x"], targets.values())] == ["mi455x"]


def test_select_unknown_lists_valid_ids(targets):
    with pytest.raises(ValueError) as exc:
        select_targets(["mi300"], targets)
    assert str(exc.value) == "unknown target 'mi300' (valid: all, mi300x, mi325x, mi350x, mi355x, mi455x)"


# ----------------------------------------------------------------------------------------------- predicates


@pytest.mark.parametrize(
    "predicate, expected",
    [
        ("all", ALL_IDS),
        ("mi300x", ["mi300x"]),
        ("MI455X", ["mi455x"]),
        ("gfx950", ["mi350x", "mi355x"]),
        ("wavefront_size == 64", ["mi300x", "mi325x", "mi350x", "mi355x"]),
        ("wavefront_size == 32", ["mi455x"]),
        ("lds_kib < 160", ["mi300x", "mi325x"]),
        ("lds_kib >= 160", ["mi350x", "mi355x", "mi455x"]),
        ("64 < lds_kib <= 160", ["mi350x", "mi355x"]),
        ("fp8_fnuz and not fp8_ocp", ["mi300x", "mi325x"]),
        ("fp8_ocp", ["mi350x", "mi355x"]),
        ("not fp8_ocp", ["mi300x", "mi325x"]),  # unknown on mi455x stays unknown
        ("fp8_ocp is None", ["mi455x"]),
        ("fp8_ocp is not None and not fp4", ["mi300x", "mi325x"]),
        ("fp8_ocp or has_tdm", ["mi350x", "mi355x", "mi455x"]),
        ("fp6 or wavefront_size == 64", ["mi300x", "mi325x", "mi350x", "mi355x"]),
        ("architecture == 'CDNA3'", ["mi300x", "mi325x"]),
        ("architecture in ('CDNA3', 'CDNA4')", ["mi300x", "mi325x", "mi350x", "mi355x"]),
        ("gfx not in ['gfx942']", ["mi350x", "mi355x", "mi455x"]),
        ("pre_release", ["mi455x"]),
        ("compute_units > 300", ["mi300x", "mi325x"]),
        ("tf32 == False and tf32_emulated", ["mi350x", "mi355x"]),
        ("xcds == 8", ["mi300x", "mi325x", "mi350x", "mi355x"]),
    ],
)
def test_predicates(targets, predicate, expected):
    assert [tid for tid, t in targets.items() if evaluate(predicate, t)] == expected


@pytest.mark.parametrize(
    "predicate, message",
    [
        ("__import__('os')", "uses Call"),
        ("__import__('os').system('true')", "uses Call"),
        ("wavefront_size.__class__", "uses Attribute"),
        ("gfx[0] == 'g'", "uses Subscript"),
        ("lds_kib * 2 > 100", "uses BinOp"),
        ("-lds_kib < 0", "uses USub"),
        ("lambda: True", "uses Lambda"),
        ("[x for x in ()]", "uses ListComp"),
        ("warp_size == 32", "names unknown field 'warp_size'"),
        ("wavefront_size ==", "is not an expression"),
        ("wavefront_size is 64", "'is' may only test for None"),
        ("architecture < 3", "compares incompatible values"),
        ("gfx in (wavefront_size,)", "a list may hold only literals"),
        ("", "empty target predicate"),
        ("wavefront_size == 64 and " * 30 + "True", "too long"),
    ],
)
def test_bad_predicates_raise_value_error_naming_them(targets, predicate, message):
    with pytest.raises(ValueError) as exc:
        evaluate(predicate, targets["mi300x"])
    text = str(exc.value)
    assert message in text
    if predicate and len(predicate) <= T.MAX_PREDICATE_LENGTH:
        assert repr(predicate) in text


def test_unsafe_predicate_never_runs(targets, tmp_path):
    marker = tmp_path / "ran"
    with pytest.raises(ValueError, match="uses Call"):
        evaluate(f"__import__('pathlib').Path({str(marker)!r}).touch()", targets["mi300x"])
    assert not marker.exists()


def test_applies(targets):
    mi300x, mi455x = targets["mi300x"], targets["mi455x"]
    assert applies(None, mi300x) and applies([], mi300x) and applies(["all"], mi455x) and applies("all", mi455x)
    assert not applies("mi355x", mi300x)
    assert not applies(["mi455x"], mi300x)
    assert applies(["mi455x", "wavefront_size == 64"], mi300x)
    assert not applies(["wavefront_size == 64"], mi455x)
    assert [t.id for t in targets.values() if applies(["lds_kib < 160"], t)] == ["mi300x", "mi325x"]
    with pytest.raises(ValueError):
        applies(["bogus_field > 1"], mi300x)


def test_validate_predicate_catches_typos_in_target_names(targets):
    validate_predicate("mi355x", targets)
    validate_predicate("gfx942", targets)
    validate_predicate("all", targets)
    validate_predicate("wavefront_size == 64", targets)
    with pytest.raises(ValueError, match="'mi300' is neither a target id nor a gfx name"):
        validate_predicate("mi300", targets)
    with pytest.raises(ValueError, match="compares incompatible values"):
        validate_predicate("architecture > 2", targets)
