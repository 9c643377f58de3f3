"""Session 28's PR-gate evasions (a report-only attacker's): a pull request that makes CUDA-only code pass
`scan --isolated --new-since main --fail-on medium` by deleting the ROCm guard around existing code (the findings
paired with the base's handled ones as "unchanged"), or by handing a new CUDA arm a fake ROCm arm (a dummy
declaration, a macro name only the change introduces). Each test builds the hostile repository in tmp_path and runs
the gate as CI does, asserting its exit status and exact findings in every format."""
from __future__ import annotations

import json

import jsonschema

from helpers import REPO, make_repo, porter_here, pull_request, write_files

KERN = "__global__ void k(int *p){ unsigned m = __activemask(); p[0] = __popc(m); }\n"
KERN_RULES = ["API004", "DEV003", "KRN001"]


def pr(tmp_path, base: dict[str, str], files: dict[str, str]):
    return pull_request(tmp_path / "r", base, files)


def gate(repo, fmt: str = "json", *extra: str):
    p = porter_here("scan", str(repo), "--isolated", "--new-since", "main", "--fail-on", "medium", "--no-cache",
                    "-f", fmt, *extra)
    assert p.returncode in (0, 1), p.stderr
    return p


GUARDED = {"k.cu": "#ifndef USE_ROCM\n" + KERN + "#else\nint x;\n#endif\n"}
UNGUARDED = {"k.cu": KERN}


def test_deleting_the_rocm_guard_around_existing_cuda_code_is_new_work_in_every_format(tmp_path):
    """The head reads the kernel open, the base handled; the text is the same, so the findings paired as unchanged
    ("0 new, 3 unchanged", exit 0). Now they count as new, and every format says so with the same numbers."""
    repo = pr(tmp_path, GUARDED, UNGUARDED)
    p = gate(repo)
    assert p.returncode == 1
    d = json.loads(p.stdout)
    jsonschema.validate(d, json.loads((REPO / "porter" / "schemas" / "scan.schema.json").read_text()))
    assert sorted((f["rule"], f["line"], f["status"]) for f in d["findings"]) == [(r, 1, "open") for r in KERN_RULES]
    assert {k: d["diff"][k] for k in ("new", "fixed", "unchanged", "status_worse")} == {
        "new": 3, "fixed": 0, "unchanged": 0, "status_worse": 3}
    assert sorted(f["rule"] for f in d["status_worse"]) == KERN_RULES
    assert "3 new (3 of them handled at the base, open now), 0 fixed, 0 unchanged" in p.stderr
    sarif = json.loads(gate(repo, "sarif").stdout)
    states = sorted((r["ruleId"].split("/")[-1], r["baselineState"]) for r in sarif["runs"][0]["results"])
    assert states == [("API004", "new"), ("DEV003", "new")]  # KRN001 is a note SARIF counts apart
    assert sarif["runs"][0]["properties"]["porter"]["diff"]["status_worse"] == 3
    md = gate(repo, "markdown").stdout
    assert "this change adds 2 open findings for ROCm** (1 high, 1 low)" in md and "### New (2)" in md
    assert "3 findings handled or CUDA-only at the base are open at the head (a ROCm guard removed or changed): " \
           "counted above as new" in md


def test_a_guard_kept_or_added_is_no_status_change(tmp_path):
    """The same guard at both sides (a comment added) or a guard the change adds: nothing got worse."""
    repo = pr(tmp_path, GUARDED, {"k.cu": "// note\n" + GUARDED["k.cu"]})
    p = gate(repo)
    d = json.loads(p.stdout)
    assert (p.returncode, d["findings"], d["diff"]["unchanged"], d["diff"]["status_worse"]) == (0, [], 3, 0)
    repo = pr(tmp_path / "b", UNGUARDED, GUARDED)
    d = json.loads(gate(repo).stdout)
    assert (d["findings"], d["diff"]["unchanged"], d["diff"]["status_worse"]) == ([], 3, 0)


MAIN = {"main.cpp": "int main(){return 0;}\n"}
TWIN = "__global__ void k(int *p){ p[0] = 0; }\n"  # a ROCm arm that defines the kernel: a real port
TWIN_FOUND = ("KRN001", 2, "open")  # the twin is a kernel found (info: no gate counts it)
# A real port as the gate reads it: the kernel, its twin and both arms' findings handled (the JSON lists new
# findings of every status; the gate counts the open ones).
PORTED = sorted([(r, 4, "handled") for r in KERN_RULES] + [("KRN001", 2, "handled")])


def guarded(cond: str, rocm_arm: str) -> str:
    return f"{cond}\n{rocm_arm}#else\n{KERN}#endif\n"


def found(p):
    d = json.loads(p.stdout)
    return p.returncode, sorted((f["rule"], f["line"], f["status"]) for f in d["findings"]), d


def test_a_dummy_rocm_arm_beside_a_whole_new_cuda_kernel_does_not_handle_it(tmp_path):
    """`#ifdef USE_ROCM / int porter_dummy; / #else <kernel> #endif`: the ROCm arm holds code, but none that defines
    the kernel its other arm defines; the HIP build has no such kernel. Read handled (exit 0); now open, reopened."""
    repo = pr(tmp_path, MAIN, {"k.cu": guarded("#ifdef USE_ROCM", "int porter_dummy;\n")})
    code, fs, d = found(gate(repo))
    assert (code, fs) == (1, [(r, 4, "open") for r in KERN_RULES])
    assert sorted(f["rule"] for f in d["reopened"]) == KERN_RULES
    # trusted (no --isolated): the repository's own guard stands, as before
    p = porter_here("scan", str(repo), "--new-since", "main", "--fail-on", "medium", "--no-cache", "-f", "json")
    assert (p.returncode, [f["status"] for f in json.loads(p.stdout)["findings"]]) == (0, ["handled"] * 3)


def test_a_rocm_arm_defining_the_kernel_still_handles_it(tmp_path):
    repo = pr(tmp_path, MAIN, {"k.cu": guarded("#ifdef USE_ROCM", TWIN)})
    code, fs, d = found(gate(repo))
    assert (code, fs, d.get("reopened")) == (0, PORTED, None)


def test_a_rocm_name_only_the_change_introduces_vouches_for_nothing(tmp_path):
    """`#if defined(MY_HIP_BUILD)` with a real twin: no HIP toolchain and no build file of the base defines
    MY_HIP_BUILD, so the HIP build compiles the CUDA arm. Read handled by the name's HIP component (exit 0)."""
    repo = pr(tmp_path, MAIN, {"k.cu": guarded("#if defined(MY_HIP_BUILD)", TWIN)})
    code, fs, d = found(gate(repo))
    assert (code, fs) == (1, sorted([TWIN_FOUND] + [(r, 4, "open") for r in KERN_RULES]))
    assert sorted((f["rule"], f["line"]) for f in d["reopened"]) == sorted([("KRN001", 2)] + [(r, 4) for r in KERN_RULES])


def test_a_rocm_name_the_base_defines_vouches(tmp_path):
    """The same guard, where the base's CMakeLists defines MY_HIP_BUILD, or the base's version of the file already
    tests it: the project's own switch, not the change's say-so."""
    cmake = {"CMakeLists.txt": "project(x LANGUAGES CXX)\nif(HIP)\n  add_definitions(-DMY_HIP_BUILD)\nendif()\n"}
    repo = pr(tmp_path, {**MAIN, **cmake}, {"k.cu": guarded("#if defined(MY_HIP_BUILD)", TWIN)})
    assert found(gate(repo))[:2] == (0, PORTED)
    repo = pr(tmp_path / "b", {"k.cu": "#ifdef MY_HIP_BUILD\nint a;\n#endif\n"},
              {"k.cu": "#ifdef MY_HIP_BUILD\nint a;\n#endif\n" + guarded("#if defined(MY_HIP_BUILD)", TWIN)})
    assert found(gate(repo))[:2] == (0, [(r, ln + 3, st) for r, ln, st in PORTED])


def test_renaming_the_platform_macro_of_an_existing_guard_is_the_guard_removed(tmp_path):
    """`#ifndef __HIP_PLATFORM_AMD__` -> `#ifndef __HIP_PLATFORM_AMDX__` around unchanged CUDA code: hip-clang
    defines the first, nobody the second, so the HIP build now compiles the kernel. Read as 3 unchanged handled
    findings (exit 0); now 3 new, their status worse than at the base."""
    repo = pr(tmp_path, {"k.cu": "#ifndef __HIP_PLATFORM_AMD__\n" + KERN + "#endif\n"},
              {"k.cu": "#ifndef __HIP_PLATFORM_AMDX__\n" + KERN + "#endif\n"})
    code, fs, d = found(gate(repo))
    assert (code, fs) == (1, [(r, 2, "open") for r in KERN_RULES])
    assert (d["diff"]["status_worse"], d["diff"]["unchanged"]) == (3, 0)


def test_a_baseline_remembers_the_status_so_a_guard_removed_since_counts(tmp_path):
    """`porter baseline` wrote no port status, so every baseline finding read open and one whose guard was removed
    since matched as unchanged. The baseline now keeps the status (an older one without it reads open)."""
    repo = make_repo(tmp_path / "r", GUARDED)
    base_file = tmp_path / "porter-baseline.json"
    p = porter_here("baseline", str(repo), "-o", str(base_file), "--no-cache")
    assert p.returncode == 0, p.stderr
    doc = json.loads(base_file.read_text())
    assert sorted((f["rule"], f["status"]) for f in doc["findings"]) == [(r, "handled") for r in KERN_RULES]
    write_files(repo, UNGUARDED)
    p = porter_here("scan", str(repo), "--baseline", str(base_file), "--fail-on", "medium", "--no-cache", "-f", "json")
    d = json.loads(p.stdout)
    assert (p.returncode, d["diff"]["new"], d["diff"]["status_worse"], d["diff"]["unchanged"]) == (1, 3, 3, 0)
    for f in doc["findings"]:
        del f["status"]
    base_file.write_text(json.dumps(doc))
    p = porter_here("scan", str(repo), "--baseline", str(base_file), "--fail-on", "medium", "--no-cache", "-f", "json")
    d = json.loads(p.stdout)
    assert (d["diff"]["new"], d["diff"]["unchanged"]) == (0, 3)
    # the findings read unchanged; the kernel, `ok` in the baseline (its checks were handled) and `fix` now, is worse
    # on an open kernel, which the gate counts since session 29 (porter.diff.KERNEL_SEVERITY): exit 1 all the same
    assert (p.returncode, [(k["kernel"], k["before"], k["after"], k["severity"]) for k in d["kernel_changes"]]) == (
        1, [("k", "ok", "fix", "medium")])
