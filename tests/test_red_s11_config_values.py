"""Red team, session 11: values in the repository's porter.toml / pyproject.toml that Python's parsers refuse with
something other than a TOML syntax error.

Python refuses to turn more than 4,300 digits into an int (CVE-2020-10735's limit) with a ValueError that
tomllib passes through. porter looks for a [tool.porter] table in every pyproject.toml on the way to the repository
top, so one long number anywhere in a repository's pyproject.toml (in any tool's table) ended every command with
"internal error" (exit 3). A configuration porter cannot read is a usage error naming the file (exit 2); a
pyproject.toml porter cannot read is not porter's configuration.
"""
from __future__ import annotations

import json

import pytest
from helpers import make_repo, porter_here

KERNEL = "__global__ void k(float* x) { x[threadIdx.x] = 0; }\n"
LONG = "9" * 5000


def test_a_pyproject_with_a_number_past_pythons_digit_limit_is_not_porters_config(tmp_path):
    repo = make_repo(tmp_path / "r", {"a.cu": KERNEL,
                                      "pyproject.toml": f'[project]\nname = "x"\n[tool.other]\nn = {LONG}\n'})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    assert p.returncode == 0, p.stderr
    assert not p.stderr.startswith("internal error")
    assert json.loads(p.stdout)["summary"]["findings"] == 1  # a.cu's kernel: the scan ran


def test_a_porter_toml_with_a_number_past_pythons_digit_limit_is_a_usage_error(tmp_path):
    repo = make_repo(tmp_path / "r", {"a.cu": KERNEL, "porter.toml": f"jobs = {LONG}\n"})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith(f"error: {repo / 'porter.toml'}: not valid TOML: Exceeds the limit (4300 digits) "
                               "for integer string conversion")
    assert "internal error" not in p.stderr


def test_a_scanned_config_file_with_a_number_past_pythons_digit_limit_is_malformed_not_an_internal_error(tmp_path):
    repo = make_repo(tmp_path / "r", {"config.json": f'{{"model_type": "llama", "hidden_size": {LONG}}}',
                                      "pyproject.toml": f'[project]\nname = "x"\n[tool.other]\nn = {LONG}\n'})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    reasons = [s["reason"] for s in json.loads(p.stdout)["skipped"]]
    assert len(reasons) == 2 and all(r.startswith("malformed ") for r in reasons), reasons


def _yaml_named_by_config(tmp_path, key: str, doc: str):
    return make_repo(tmp_path / "r", {"a.cu": KERNEL, "porter.toml": f'{key} = ["x.yaml"]\n', "x.yaml": doc})


def test_a_repository_rule_with_a_number_past_pythons_digit_limit_is_a_usage_error(tmp_path):
    repo = _yaml_named_by_config(tmp_path, "rules", f"id: USR001\ntitle: x\nseverity: low\nconfidence: {LONG}\n")
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith(f"error: {repo / 'x.yaml'}: <file>: not valid YAML: Exceeds the limit (4300 digits)")


def test_a_repository_target_profile_with_a_number_past_pythons_digit_limit_is_a_usage_error(tmp_path):
    repo = _yaml_named_by_config(tmp_path, "targets", f"id: zz\nwavefront_size: {LONG}\n")
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    assert p.returncode == 2, p.stderr
    assert "not valid YAML: Exceeds the limit (4300 digits)" in p.stderr
    assert "internal error" not in p.stderr


def test_a_repository_effort_model_with_a_number_past_pythons_digit_limit_is_a_usage_error(tmp_path):
    repo = make_repo(tmp_path / "r", {"a.cu": KERNEL, "porter.toml": 'effort = "x.yaml"\n',
                                      "x.yaml": f"version: 1\nhours: {LONG}\n"})
    p = porter_here("assess", str(repo), "--no-cache", "--format", "json")
    assert p.returncode == 2, p.stderr
    assert "not valid YAML: Exceeds the limit (4300 digits)" in p.stderr
    assert "internal error" not in p.stderr


# -- a target profile's numbers: YAML's .nan passes every `minimum` of the schema (no comparison with NaN is true),
#    .inf passes them all too, and a 4,000-digit integer is an integer; the kernel checks then crashed (exit 3).

def _profile(tmp_path, field: str, value: str):
    from conftest import REPO

    text = (REPO / "rules" / "targets" / "mi355x.yaml").read_text().replace("id: mi355x", "id: zz")
    lines = [f"{field}: {value}" if line.startswith(f"{field}:") else line for line in text.splitlines()]
    kernel = ("__global__ void big(float* x) { __shared__ float s[4000]; s[threadIdx.x] = x[0]; __syncthreads(); "
              "x[1] = s[5]; }\nvoid f(float* x) { big<<<1024, 256>>>(x); }\n")
    return make_repo(tmp_path / "r", {"a.cu": kernel, "porter.toml": 'targets = ["t.yaml"]\n',
                                      "t.yaml": "\n".join(lines) + "\n"})


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"])
def test_a_repository_target_profile_with_a_number_that_is_not_finite_is_a_usage_error(tmp_path, value):
    repo = _profile(tmp_path, "lds_per_workgroup_kib", value)
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    assert p.returncode == 2, p.stderr
    shown = {".nan": "nan", ".inf": "inf", "-.inf": "-inf"}[value]
    # porter.cli names the configuration key that led to the profile (targets), as for any profile it cannot use.
    assert p.stderr == f"error: {repo / 'porter.toml'}: targets: {shown} is not a finite number\n"
    assert "internal error" not in p.stderr


def test_a_repository_target_profile_with_an_integer_past_64_bits_is_a_usage_error(tmp_path):
    repo = _profile(tmp_path, "max_workgroup_size", "9" * 4000)
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    assert p.returncode == 2, p.stderr
    assert p.stderr == f"error: {repo / 'porter.toml'}: targets: an integer of 4000 digits is past 64 bits\n"
