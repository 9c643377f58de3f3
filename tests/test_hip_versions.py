"""Issue 27 class 7: HIP facts carry a ROCm release (rules/kb/hip_versions.yaml, porter.rocm), `--rocm` / config
`rocm` choose it, and the claims are compiled against the HIP headers this machine has (Debian's HIP 5.2)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from porter import rocm
from tests.helpers import porter_here

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "rocm"
HIP_INCLUDE = Path("/usr/include/hip")  # Debian libamdhip64-dev (HIP 5.2)


def scan(path: Path, *extra: str) -> list[tuple[int, str, str]]:
    res = porter_here("scan", str(path), "--format", "json", "--no-cache", "--isolated", "-j", "1", *extra)
    assert res.returncode == 0, res.stderr
    return [(f["line"], f["rule"], f["message"]) for f in json.loads(res.stdout)["findings"]]


def test_the_releases_and_facts_are_read_with_versions_and_public_sources():
    v = rocm.load_versions()
    assert v.releases == ("6.4", "7.0", "7.2") and rocm.default_release() == "7.2"
    assert {k: (f.since, f.until) for k, f in v.facts.items()} == {
        "warp_sync_builtins": ("6.2", None), "warp_sync_on_by_default": ("7.0", None),
        "warp_reduce_builtins": ("7.0", None), "coordinates_unsigned": ("6.1", None),
        "warpsize_constexpr": (None, "7.0"), "cg_reduce": ("7.13", None), "cg_scan": ("10.0", None)}
    assert all(f.source.startswith("https://") for f in v.facts.values())
    # 6.4 has the *_sync builtins only behind HIP_ENABLE_WARP_SYNC_BUILTINS; 7.0 turned them on.
    sync = v.fact("warp_sync_builtins")
    assert sync.needs_opt_in("6.4") and not sync.needs_opt_in("7.0") and sync.opt_in == "HIP_ENABLE_WARP_SYNC_BUILTINS"
    assert [rocm.has("warpsize_constexpr", r) for r in v.releases] == [True, False, False]
    assert [rocm.has("warp_reduce_builtins", r) for r in v.releases] == [False, True, True]
    assert rocm.release_key("7.13") > rocm.release_key("7.2")


def test_the_chosen_release_decides_which_findings_a_kernel_gets():
    by_release = {r: [(line, rule) for line, rule, _ in scan(FIXTURE, "--rocm", r) if rule in ("DEV004", "DEV008")]
                  for r in ("6.4", "7.0", "7.2")}
    assert by_release["6.4"] == [(11, "DEV008"), (13, "DEV008")]  # warpSize still constexpr on 6.4
    assert by_release["7.0"] == [(9, "DEV004"), (11, "DEV008"), (13, "DEV008")]
    assert by_release["7.2"] == by_release["7.0"]
    assert scan(FIXTURE) == scan(FIXTURE, "--rocm", "7.2")  # the default is the newest release listed
    messages = {(line, rule): m for line, rule, m in scan(FIXTURE, "--rocm", "7.0")}
    assert messages[(11, "DEV008")].startswith("reduce: HIP in ROCm 7.0 has no cg::reduce (it arrives in ROCm 7.13)")
    assert messages[(13, "DEV008")].startswith("inclusive_scan: HIP in ROCm 7.0 has no cooperative-groups scans "
                                               "(they arrive in ROCm 10.0)")
    assert messages[(9, "DEV004")] == ("warpSize is used in an array extent; in HIP from ROCm 7.0 (this run: ROCm "
                                       "7.0) warpSize is not constexpr, so this stops compiling.")


def test_warp_intrinsics_read_by_release():
    warp = FIXTURE / "warp.cu"
    got = {r: [(line, rule) for line, rule, _ in scan(warp, "--rocm", r) if rule.startswith("API")]
           for r in ("6.4", "7.0", "7.2")}
    assert got["6.4"] == [(6, "API004"), (8, "API002"), (10, "API002")]
    assert got["7.0"] == got["7.2"] == [(6, "API004"), (8, "API004"), (10, "API004")]  # __syncwarp: same name from 7.0
    old = {line: m for line, rule, m in scan(warp, "--rocm", "6.4")}
    assert old[6].endswith("declared in HIP before ROCm 7.0 (this run: ROCm 6.4) only with "
                           "-DHIP_ENABLE_WARP_SYNC_BUILTINS, with a 64-bit mask; half-precision shuffles are not "
                           "supported.")
    assert old[10] == ("__reduce_add_sync (CUDA device) has no HIP equivalent: no warp-reduce intrinsic in HIP before "
                       "ROCm 7.0 (this run: ROCm 6.4): use a __shfl_xor reduction over warpSize lanes or rocPRIM/"
                       "hipCUB WarpReduce.")
    new = {line: m for line, rule, m in scan(warp, "--rocm", "7.2") if rule == "API004"}
    assert new[10] == ("__reduce_add_sync (CUDA device): HIP has it under the same name (HIP ≥ 7.0); check it on AMD: "
                       "in HIP from ROCm 7.0, with a 64-bit mask.")


def test_configuration_chooses_the_release_and_a_wrong_one_is_a_usage_error(tmp_path):
    (tmp_path / "k.cu").write_bytes((FIXTURE / "versions.cu").read_bytes())
    (tmp_path / "porter.toml").write_text('rocm = "6.4"\n')
    res = porter_here("scan", str(tmp_path), "--format", "json", "--no-cache", "-j", "1")
    assert res.returncode == 0, res.stderr
    assert [f["line"] for f in json.loads(res.stdout)["findings"] if f["rule"] == "DEV004"] == []
    # The command line wins over the configuration.
    res = porter_here("scan", str(tmp_path), "--format", "json", "--no-cache", "-j", "1", "--rocm", "7.0")
    assert [f["line"] for f in json.loads(res.stdout)["findings"] if f["rule"] == "DEV004"] == [9]
    res = porter_here("scan", str(tmp_path), "--no-cache", "--rocm", "9.9")
    assert res.returncode == 2 and "--rocm: unknown ROCm release '9.9' (known: 6.4, 7.0, 7.2)" in res.stderr
    (tmp_path / "porter.toml").write_text('rocm = "5.7"\n')
    res = porter_here("scan", str(tmp_path), "--no-cache")
    assert res.returncode == 2 and "rocm: unknown ROCm release '5.7' (known: 6.4, 7.0, 7.2)" in res.stderr


def installed_hip_release() -> str:
    text = (HIP_INCLUDE / "hip_version.h").read_text()
    major = re.search(r"#define HIP_VERSION_MAJOR (\d+)", text)
    minor = re.search(r"#define HIP_VERSION_MINOR (\d+)", text)
    assert major and minor
    return f"{major.group(1)}.{minor.group(1)}"


def compile_probe(tmp_path: Path, name: str, probe: dict[str, str]) -> subprocess.CompletedProcess:
    clang = shutil.which("clang++-19")
    if clang is None or not (HIP_INCLUDE / "hip_runtime.h").exists():
        pytest.skip("needs clang++-19 (Debian clang-19) and HIP's headers in /usr/include/hip (libamdhip64-dev)")
    src = tmp_path / f"{name}.hip"
    includes = (probe.get("prelude", "") + "#include <hip/hip_runtime.h>\n"
                + (f"#include <{probe['include']}>\n" if "include" in probe else ""))
    src.write_text(includes + probe["code"] + "\n")
    return subprocess.run([clang, "-x", "hip", "--offload-arch=gfx942", "--cuda-device-only", "-nogpulib",
                           "-fsyntax-only", str(src)], capture_output=True, text=True, timeout=300, cwd=tmp_path)


@pytest.mark.parametrize("fact_id", sorted(rocm.load_versions().facts))
def test_each_claim_holds_against_the_machines_hip_headers(tmp_path, fact_id):
    """What Debian's HIP 5.2 headers can say: the facts that arrived later (the *_sync builtins, __reduce_*_sync,
    cg::reduce and the scans) are absent there, and warpSize is still a constant expression (it stopped being one
    in 7.0). A header release from a fact's `since` on must compile its probe."""
    fact = rocm.fact(fact_id)
    probe = dict(fact.probe)
    release = installed_hip_release() if HIP_INCLUDE.exists() else "0.0"
    res = compile_probe(tmp_path, fact_id, probe)
    if fact.holds_in(release):
        assert res.returncode == 0, res.stderr
    else:
        assert res.returncode != 0 and probe["error"] in res.stderr, res.stderr


def test_64_bit_masks_are_enforced_by_static_assert_where_the_headers_have_the_sync_builtins(tmp_path):
    """The claim DEV002 rests on (a 32-bit mask type fails HIP's static_assert) needs headers from ROCm 6.2 on,
    where the *_sync builtins exist; Debian's HIP 5.2 has none, so this machine cannot test it."""
    release = installed_hip_release() if HIP_INCLUDE.exists() else "0.0"
    if not rocm.has("warp_sync_builtins", release):
        pytest.skip(f"needs HIP >= 6.2 headers in {HIP_INCLUDE} (this machine has HIP {release}, without the "
                    "*_sync warp builtins)")
    res = compile_probe(tmp_path, "mask32", {"prelude": "#define HIP_ENABLE_WARP_SYNC_BUILTINS 1\n",
                                             "code": "__global__ void k(float* o) { unsigned m = 0xffffffffu; "
                                                     "o[0] = __shfl_sync(m, o[1], 0); }"})
    assert res.returncode != 0 and "The mask must be a 64-bit integer" in res.stderr
