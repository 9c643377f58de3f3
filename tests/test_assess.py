"""porter assess: verdicts, the effort arithmetic, traceability, per-target differences, overrides and the CLI."""
from __future__ import annotations

from dataclasses import replace
import json
from pathlib import Path

import jsonschema
import pytest

from helpers import REPO, porter_here, write_files
from porter.pipeline import run
from porter.settings import Settings
from porter.estimate.assess import assess
from porter.estimate.effort_model import EffortModel, EffortModelError, Hours, load_effort_model, merge
from porter.estimate.ranges import combine, pert
from porter.model import Confidence, FileResult, Finding, Kernel, ScanResult, Severity
from porter.model.assessment import ClassCount
from porter.model.kernel import CheckResult, KernelFacts, TargetVerdict
from porter.rules import Rule, RuleSet
from porter.targets import load_targets, select_targets

TARGETS = load_targets()
# The shipped model without its calibration multipliers: the arithmetic below reads as the model's own numbers.
UNSCALED = EffortModel(merge(load_effort_model().data, {"calibration": {"scale": {"kernel": 1, "finding": 1, "one-off": 1}}}))


def rule(rid, category="api", size="xs", per="hit", kind="rename", severity="low", targets=(), title=None):
    return Rule(id=rid, title=title or f"title of {rid}", category=category, severity=Severity.parse(severity),
                confidence=Confidence.HIGH, languages=("cuda",), patterns=({"regex": "x"},), message="m",
                docs={"what": "w", "why": "y", "instead": "i"}, hip_equivalent={"kind": kind}, effort={"size": size, "per": per},
                targets=tuple(targets))


def finding(rid, path="src/a.cu", line=1, category="api", severity="low", kernel=None, data=(), n=0):
    return Finding(path=path, line=line, column=1, rule=rid, end_line=line, end_column=5, category=category,
                   severity=Severity.parse(severity), confidence=Confidence.HIGH, message=f"{rid} here",
                   snippet=f"code {line}", kernel=kernel, function=kernel, fingerprint=f"{rid}{path}{line}{n}".ljust(20, "0")[:20],
                   data=tuple(data))


def result(findings=(), kernels=(), files=("src/a.cu",)):
    return ScanResult(root="repo", findings=tuple(sorted(findings)), suppressed=(), kernels=tuple(kernels), launches=(),
                      files=tuple(FileResult(p, "cuda", 100) for p in files), skipped=())


def ts(*ids):
    return select_targets(list(ids), TARGETS)


def item(a, item_id):
    return next(i for i in a.items if i.id == item_id)


def test_nothing_to_port_is_ready_with_zero_effort():
    a = assess(result(), ts("mi355x"), rules=RuleSet((), "x"))
    assert (a.verdict, a.nothing_to_port) == ("ready", True)
    assert a.days == Hours(0, 0, 0) and a.items == ()
    assert a.headline == "Nothing to port: no CUDA found in 1 scanned file."


def test_hipify_renames_are_mechanical_and_priced_per_hit_with_repeats():
    rs = RuleSet((rule("API001"),), "x")
    fs = [finding("API001", line=n) for n in (1, 2, 3)]
    a = assess(result(fs), ts("mi355x"), model=UNSCALED, rules=rs)
    assert a.verdict == "mechanical"
    it = item(a, "rule:API001:src/a.cu")
    # xs is 0.05–0.1–0.25 h; further hits in the file follow the saturating curve 1 + 3 (1 − e^(−(n−1) × 0.5 / 3)):
    # 3 hits are 1.846 units, not 1 + 2 × 0.5
    assert it.hours.rounded() == Hours(0.09, 0.19, 0.46)
    assert it.klass == "free_with_hipify"
    assert a.breakdowns.hipify.free_with_hipify == ClassCount(findings=3, lines=3, files=1)
    # repository-wide jobs the api finding triggers: toolchain/CI (0.5–1–4, no build file with a finding) and
    # validation (0.25–0.5–2, no kernels): floors that scale with the project, so a one-file port is not days of it;
    # and, with no PyTorch header included (no torch build to hipify it), the map of the one CUDA name it uses
    assert {i.id for i in a.items if i.kind == "one-off"} == {"one-off:rocm-build-and-ci", "one-off:validate-on-target",
                                                              "one-off:map-cuda-names"}
    assert item(a, "one-off:rocm-build-and-ci").hours == Hours(0.5, 1, 4)
    assert item(a, "one-off:map-cuda-names").hours.rounded() == Hours(0.3, 0.6, 2.25)  # 0.25–0.5–2 + 0.05–0.1–0.25 × 1
    assert item(a, "one-off:validate-on-target").hours == Hours(0.25, 0.5, 2)
    # The total is P10–median–P90 of the items as independent PERT ranges, not the sum of the worst cases (9.46 h)
    assert a.hours.rounded(6) == combine(i.hours for i in a.items).rounded(6)
    assert a.hours.rounded() == Hours(2.3, 3.08, 4.13)  # with the name map
    assert round(a.mean_hours, 2) == round(sum(pert(i.hours).mean for i in a.items), 2) == 3.17
    assert a.days == Hours(0, 0.5, 1.0)  # 6 h days; low rounded down, high up, to 0.5


def test_per_file_and_per_repo_units():
    rs = RuleSet((rule("BLD001", "build", "s", "file", "replace"), rule("CNT001", "container", "m", "repo", "replace")), "x")
    fs = [finding("BLD001", "scripts/build.sh", 2, "build"), finding("BLD001", "scripts/build.sh", 9, "build"),
          finding("CNT001", "Dockerfile", 1, "container"), finding("CNT001", "ci/Dockerfile", 1, "container")]
    a = assess(result(fs), ts("mi355x"), model=UNSCALED, rules=rs)
    assert item(a, "rule:BLD001:scripts/build.sh").hours == Hours(0.25, 0.5, 1.5)  # once per file
    repo = item(a, "rule:CNT001:*")
    assert repo.hours == Hours(1, 3, 6) and repo.path is None and repo.count == 2  # once per repository


def test_a_build_files_own_build_findings_are_its_per_file_term_of_the_build_job():
    rs = RuleSet((rule("BLD001", "build", "s", "file", "replace"),), "x")
    fs = [finding("BLD001", "CMakeLists.txt", 2, "build"), finding("BLD001", "CMakeLists.txt", 9, "build"),
          finding("BLD001", "scripts/build.sh", 4, "build")]
    a = assess(result(fs), ts("mi355x"), model=UNSCALED, rules=rs)
    job = item(a, "one-off:rocm-build-and-ci")
    # 0.5–1–4 h + 0.25–0.5–2 h for the one build file; CMakeLists.txt's two findings are that file's work, the
    # script's finding (neither a build target nor a CI recipe: tests/test_effort_scope.py) is costed on its own
    assert job.hours == Hours(0.75, 1.5, 6)
    assert set(job.findings) == {fs[0].fingerprint, fs[1].fingerprint}
    assert [i.id for i in a.items if i.kind == "finding"] == ["rule:BLD001:scripts/build.sh"]


def test_library_with_no_rocm_equivalent_blocks_and_its_replacement_absorbs_the_findings():
    rs = RuleSet((rule("LIB009", "library", "l", "hit", "none", "blocker"),), "x")
    fs = [finding("LIB009", "server/serve.py", n, "library", "blocker", data=(("library", "tensorrt-llm"),)) for n in (3, 4)]
    a = assess(result(fs, files=("server/serve.py",)), ts("mi355x"), model=UNSCALED, rules=rs)
    assert a.verdict == "blocked"
    assert [r.title for r in a.deciding] == ["TensorRT-LLM has no ROCm equivalent"]
    job = item(a, "one-off:replace-tensorrt-llm")
    assert job.hours == Hours(24, 60, 160) and set(job.findings) == {f.fingerprint for f in fs}
    assert not any(i.kind == "finding" for i in a.items)  # absorbed: no double counting
    rec = next(r for r in a.recommendations if r.kind == "blocker")
    assert rec.replacement == "vLLM (ROCm), SGLang (ROCm)" and rec.plan[0].item == "one-off:replace-tensorrt-llm"
    assert a.breakdowns.by_library[0].id == "tensorrt-llm"


def kernel_with(verdicts, line=10, end=49):
    per = tuple(TargetVerdict(tid, v, (CheckResult(r, v, f"{r} says why", (20,)),) if r else ())
                for tid, (v, r) in verdicts.items())
    return Kernel(path="src/a.cu", line=line, end_line=end, name="k", qualified_name="k", facts=KernelFacts(end - line + 1),
                  verdicts=per)


def test_kernel_verdicts_differ_per_target_and_absorb_the_findings_they_name():
    rs = RuleSet((rule("DEV002", "device", "xs", "hit", "manual", "high", title="32-bit full lane mask"),), "x")
    k = kernel_with({"mi300x": ("fix", "wave64-ballot-32bit"), "mi455x": ("ok", None)})
    f = finding("DEV002", line=20, category="device", severity="high", kernel="k")
    a = assess(result([f], [k]), ts("mi300x", "mi455x"), model=UNSCALED, rules=rs)
    per = {t.id: t.verdict for t in a.targets}
    assert per == {"mi300x": "port", "mi455x": "mechanical"}
    kern = item(a, "kernel:src/a.cu:10:k")
    # fix 2–4–10 h on the hardest target, × size (40 lines / 40)^0.5 = 1, × complexity 1
    assert kern.hours == Hours(2, 4, 10)
    assert kern.findings == (f.fingerprint,) and a.finding_item[f.fingerprint] == kern.id
    row = a.breakdowns.by_kernel[0]
    assert row.targets["mi300x"].reasons == ("wave64-ballot-32bit: wave64-ballot-32bit says why",)
    assert (row.worst, row.worst_target) == ("fix", "mi300x")
    assert any("64-lane" in " ".join(v) for r in a.recommendations for v in r.targets.values())


def test_kernel_size_and_further_targets_scale_the_cost():
    k = kernel_with({"mi300x": ("rewrite", "tma"), "mi355x": ("retune", "smem-tile")}, line=1, end=160)  # 160 lines
    a = assess(result([], [k]), ts("mi300x", "mi355x"), model=UNSCALED, rules=RuleSet((), "x"))
    # Two chips (gfx942, gfx950): the headline costs the costlier one's work, not the two added up
    assert a.costed_target == "mi300x"
    kern = item(a, "kernel:src/a.cu:1:k")
    # rewrite 16–40–100 × (160/40)^0.5 = 2
    assert kern.hours.rounded() == Hours(32, 80, 200)
    assert any(s.startswith("Several targets: the headline costs the work for AMD Instinct MI300X (gfx942), the costliest chip") for s in a.assumptions)


def test_unanalysed_kernels_are_costed_as_check_and_said_so():
    k = Kernel(path="src/a.cu", line=1, end_line=40, name="k", qualified_name="k")
    a = assess(result([], [k]), ts("mi355x"), model=UNSCALED, rules=RuleSet((), "x"))
    assert item(a, "kernel:src/a.cu:1:k").hours == Hours(0.25, 0.5, 1.5)
    assert any("no kernel analysis" in s for s in a.assumptions)


def test_a_rule_that_does_not_apply_to_the_target_is_not_costed():
    rs = RuleSet((rule("DEV011", "device", "s", "hit", "manual", "medium", targets=["wavefront_size == 64"]),), "x")
    f = finding("DEV011", category="device", severity="medium")
    assert assess(result([f]), ts("mi300x"), rules=rs).verdict == "mechanical"
    a = assess(result([f]), ts("mi455x"), rules=rs)
    assert a.nothing_to_port and a.items == ()
    assert "1 finding does not apply" in a.headline


def test_every_figure_traces_to_findings_and_totals_add_up():
    from porter.kernels.verdicts import analyse
    from porter.pipeline import scan

    targets = ts("mi300x", "mi355x")
    r = analyse(scan(REPO / "fixtures/repos/cuda-app", Settings(jobs=1, targets=("mi300x", "mi355x"))),
                ["mi300x", "mi355x"])
    a = assess(r, targets)
    assert a.hours.rounded(6) == combine(it.hours for it in a.items).rounded(6)
    assert round(a.mean_hours, 6) == round(sum(pert(it.hours).mean for it in a.items), 6)
    covered = [fp for it in a.items for fp in it.findings]
    assert sorted(covered) == sorted(f.fingerprint for f in r.findings)  # each finding in exactly one item
    d = a.to_dict()
    # Breakdown rows add up item by item (their likely hours; the headline is a percentile of the combination)
    items_likely = sum(it.hours.likely for it in a.items)
    cat_total = sum(c["hours"]["likely"] for c in d["breakdowns"]["by_category"])
    assert cat_total == pytest.approx(items_likely, abs=0.05)  # rows carry rounded hours
    root = d["breakdowns"]["by_directory"][0]
    assert root["path"] == "." and root["hours"]["likely"] == pytest.approx(items_likely, abs=0.05)


@pytest.mark.parametrize("name,verdicts", [
    ("cuda-app", {"port"}),
    ("torch-ext", {"port", "mechanical"}),
    ("llm-serving", {"blocked"}),
    ("no-cuda", {"ready"}),
])
def test_fixture_repositories(name, verdicts):
    p = porter_here("assess", f"fixtures/repos/{name}", "--format", "json", "--no-cache", "-t", "mi300x", "-t", "mi355x")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    schema = json.loads((REPO / "porter/schemas/scan.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(doc)
    a = doc["assessment"]
    assert a["verdict"] in verdicts
    assert a["nothing_to_port"] == (name == "no-cuda")
    assert a["effort"]["unit"] == "engineer-days"
    assert a["effort"]["low"] <= a["effort"]["likely"] <= a["effort"]["high"]
    if name == "llm-serving":
        titles = " ".join(r["title"] for r in a["reasons"] if r["decides"])
        assert "TensorRT-LLM" in titles
        jobs = {i["id"] for i in a["items"] if i["kind"] == "one-off"}
        assert {"one-off:replace-tensorrt-llm", "one-off:requantize-checkpoint"} <= jobs
        facts: dict[str, str] = {}
        for r in a["recommendations"]:
            for t, f in r["targets"].items():
                facts[t] = facts.get(t, "") + " ".join(f)
        assert "MXFP4" in facts["mi355x"] and "no FP4" in facts["mi300x"]


def test_cli_no_cuda_repository_says_nothing_to_port(tmp_path):
    write_files(tmp_path, {"app.py": "print('hello')\n", "README.md": "# hi\n"})
    p = porter_here("assess", str(tmp_path), "--no-cache")
    assert p.returncode == 0, p.stderr
    assert "Nothing to port" in p.stdout and "READY" in p.stdout


def test_cli_errors_exit_2(tmp_path):
    assert porter_here("assess", str(tmp_path), "--target", "h100").returncode == 2
    assert porter_here("assess", str(tmp_path), "--format", "pdf").returncode == 2
    assert porter_here("assess", str(tmp_path / "missing")).returncode == 2
    write_files(tmp_path, {"porter.toml": 'effort = "effort.yaml"\n', "effort.yaml": "sizes: {xs: [3, 2, 1]}\n"})
    p = porter_here("assess", str(tmp_path), "--no-cache")
    assert p.returncode == 2 and "sizes.xs" in p.stderr and "low <= likely <= high" in p.stderr


def test_cli_explain_shows_items_and_findings():
    p = porter_here("assess", "fixtures/repos/cuda-app", "--no-cache", "--explain", "-t", "mi300x")
    assert p.returncode == 0, p.stderr
    assert "How the estimate adds up" in p.stdout and "Assumptions" in p.stdout
    assert "src/kernels/reduce.cu:" in p.stdout


def test_effort_override_merges_over_the_shipped_model(tmp_path):
    (tmp_path / "e.yaml").write_text("hours_per_day: 8\none_offs:\n  - id: validate-on-target\n    hours: [0, 0, 0]\n"
                                     "  - id: port-custom-allocator\n    title: Port our allocator\n    category: api\n"
                                     "    hours: [1, 2, 3]\n    when: [{rules: [API001]}]\n")
    m = load_effort_model(tmp_path / "e.yaml")
    assert m.hours_per_day == 8 and m.override.endswith("e.yaml")
    ids = [j["id"] for j in m.one_offs]
    assert ids[-1] == "port-custom-allocator" and ids.count("validate-on-target") == 1
    rs = RuleSet((rule("API001"),), "x")
    a = assess(result([finding("API001")]), ts("mi355x"), model=m, rules=rs)
    assert item(a, "one-off:port-custom-allocator").hours.rounded() == Hours(0.53, 1.06, 1.59)  # × the calibration 0.53
    assert item(a, "one-off:validate-on-target").hours == Hours(0, 0, 0)


@pytest.mark.parametrize("text,field", [
    ("sizes: {m: [1, 2]}\n", "sizes.m"),
    ("one_offs: [{id: x, title: bad regex, category: api, hours: [1, 2, 3], when: [{text: '('}]}]\n", "one_offs[x].when.0.text"),
    ("advice: [{id: y, when: [{}], per_target: [{if: 'wave_size == 64', say: z}]}]\n", "advice[y]"),
    ("verdict: {port_min_size: huge}\n", "verdict.port_min_size"),
])
def test_bad_effort_model_names_the_field(tmp_path, text, field):
    (tmp_path / "e.yaml").write_text(text)
    with pytest.raises(EffortModelError) as e:
        load_effort_model(tmp_path / "e.yaml")
    assert e.value.field == field


def test_shipped_model_matches_its_schema():
    m = load_effort_model()
    assert m.source == "rules/effort/model.yaml"
    assert [j["id"] for j in m.one_offs][:3] == ["reimplement-cutlass", "replace-tensorrt-llm", "rebuild-tensorrt-models"]


def test_assess_console_to_a_directory_is_a_usage_error(tmp_path):
    from tests.helpers import porter_here

    p = porter_here("assess", "fixtures/repos/no-cuda", "--no-cache", "-o", str(tmp_path))
    assert p.returncode == 2 and f"{tmp_path}: cannot write: Is a directory" in " ".join(p.stderr.split())
    p = porter_here("assess", "fixtures/repos/no-cuda", "--no-cache", "-q", "-o", str(tmp_path / "h.txt"))
    assert p.returncode == 0 and p.stdout == ""
    assert (tmp_path / "h.txt").read_text() == "Nothing to port: no CUDA found in 6 scanned files.\n"


def test_targets_needing_the_same_work_are_costed_once(tmp_path):
    (tmp_path / "k.cu").write_text(
        "__global__ void red(float* x) { float v = x[threadIdx.x]; v += __shfl_down_sync(0xffffffff, v, 16); "
        "x[threadIdx.x] = v; }\nvoid run(float* x) { red<<<1, 256>>>(x); }\n")

    def effort(*ids):
        return run(tmp_path, Settings(jobs=1, targets=tuple(ids)), assess=True).assessment.hours

    # MI300X and MI325X (both gfx942) need the same fix for the same reason: one cost, not two.
    assert effort("mi300x", "mi325x") == effort("mi300x")


HELPER_SHUFFLE = (
    "__device__ float warp_sum(float v) {\n"
    "  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);\n"
    "  return v;\n"
    "}\n"
    "__global__ void reduce(float* x) {\n"
    "  float v = warp_sum(x[threadIdx.x]);\n"
    "  x[threadIdx.x] = v;\n"
    "}\n"
)


def assess_dir(path, *ids):
    r = run(path, Settings(jobs=1, targets=tuple(ids)), assess=True)
    return r.result, r.assessment


def test_a_device_helpers_shuffle_mask_is_costed_once_by_the_kernel_that_calls_it(tmp_path):
    (tmp_path / "k.cu").write_text(HELPER_SHUFFLE + "void run(float* x) { reduce<<<1, 256>>>(x); }\n")
    result, a = assess_dir(tmp_path, "mi300x")
    helper = {f.rule: f.fingerprint for f in result.findings if f.line == 2}
    # One spot, one finding: API004's "same name in HIP" on the shuffle is merged into DEV002's 32-bit-mask finding.
    assert sorted(helper) == ["DEV002", "DEV011"]
    assert dict(next(f for f in result.findings if f.rule == "DEV002").data)["also"].startswith("API004: __shfl_xor_sync")
    # The kernel's fix verdict comes from the helper's 0xffffffff mask and its 16-lane loop (line 2): the fix is made
    # once, in the helper (the fix site), with a review per kernel that reaches it; the kernel has no item of its own.
    site = item(a, "site:repository:compat")
    assert site.title == "Fix once at one compatibility header for the repository (1 kernel(s) reach it)"
    assert site.basis == ("wave64-full-mask fixed once (0.5–1–3 h) + 0.1–0.25–0.5 h review × 1 kernel(s)"
                          " × calibration 0.53")
    # (the header's 0.5–1–3 + 0.1–0.25–0.5) × 0.53; it takes the helper's DEV002 and DEV011 findings (API004's
    # "same name" on that shuffle yields to DEV002).
    assert site.hours.rounded() == Hours(0.32, 0.66, 1.85)
    assert site.findings == tuple(sorted((helper["DEV002"], helper["DEV011"])))
    assert sorted((i.id, i.hours.rounded()) for i in a.items) == [
        ("one-off:rocm-build-and-ci", Hours(0.27, 0.53, 2.12)),  # 0.5–1–4 × 0.53 (no build file)
        ("one-off:validate-on-target", Hours(0.17, 0.36, 1.34)),  # (0.25–0.5–2 + 0.1–0.25–0.75 × 0.5^0.5) × 0.53
        ("rule:KRN001:k.cu", Hours(0, 0, 0)),
        ("rule:KRN002:k.cu", Hours(0, 0, 0)),
        ("site:repository:compat", Hours(0.32, 0.66, 1.85)),
    ]
    assert a.hours.rounded() == Hours(1.52, 2.0, 2.63)  # P10–likely–P90 of the items combined as independent
    assert [(s.label, s.need, s.kernels) for s in a.fix_sites] == [
        ("one compatibility header for the repository", "wave64-full-mask", 1)]
    row = a.breakdowns.by_kernel[0]
    assert (row.item, row.findings) == ("site:repository:compat", 1)  # findings written in the kernel's own body


def test_a_port_that_maps_cuda_names_in_a_header_writes_the_mask_fix_there(tmp_path):
    # whisper.cpp's port: 44 #defines under GGML_USE_HIPBLAS map its CUDA names and __shfl_xor_sync over __shfl_xor
    # alike; the repository-wide mask fix costs only its review per kernel when the name map is in the port
    (tmp_path / "k.cu").write_text(HELPER_SHUFFLE + "void run(float* x) { float* y; cudaMalloc(&y, 4); "
                                   "reduce<<<1, 256>>>(y); cudaFree(y); }\n")
    result, a = assess_dir(tmp_path, "mi300x")
    site = item(a, "site:repository:compat")
    assert site.basis == ("wave64-full-mask fixed once (0–0–0 h) (its definitions are in 'Map the CUDA names the "
                          "project uses to HIP's (a compatibility header or a hipify step in the build)') + 0.1–0.25–0.5 h "
                          "review × 1 kernel(s) × calibration 0.53")
    assert site.hours.rounded() == Hours(0.05, 0.13, 0.27)  # the review only: 0.1–0.25–0.5 × 0.53
    # the map: 0.25–0.5–2 + 0.05–0.1–0.25 × 2 names (cudaMalloc, cudaFree), × 0.53
    assert item(a, "one-off:map-cuda-names").hours.rounded() == Hours(0.19, 0.37, 1.33)


def test_a_helper_two_kernels_call_is_fixed_once_at_the_helper(tmp_path):
    second = "__global__ void reduce2(float* x) { x[0] = warp_sum(x[1]); }\n"
    (tmp_path / "k.cu").write_text(HELPER_SHUFFLE + second)
    result, a = assess_dir(tmp_path, "mi300x")
    helper = sorted(f.fingerprint for f in result.findings if f.line == 2 and f.rule in ("DEV002", "DEV011"))
    site = item(a, "site:repository:compat")
    assert site.findings == tuple(helper) and site.count == 2
    # the header once (0.5–1–3) + a review for each of the two kernels (2 × 0.1–0.25–0.5), × 0.53: not two kernels'
    # fixes
    assert site.hours.rounded() == Hours(0.37, 0.8, 2.12)
    assert not any(i.id.startswith("kernel:") for i in a.items)
    assert {a.finding_item[fp] for fp in helper} == {"site:repository:compat"}
    assert not any(i.rule in ("DEV002", "DEV011") for i in a.items)


def test_cuda_names_are_mapped_once_per_distinct_name_unless_a_torch_build_hipifies_them():
    # kaldi's port wrote src/hip/hipify.h, a #define per CUDA name it uses: a project built outside PyTorch's
    # extension machinery pays the map once, per distinct name (two names here, one of them twice), not per call site
    rs = RuleSet((rule("API001"),), "x")
    fs = [finding("API001", line=1, data=(("name", "cudaMalloc"),)), finding("API001", line=2, data=(("name", "cudaFree"),)),
          finding("API001", path="src/b.cu", line=3, data=(("name", "cudaMalloc"),))]
    plain = result(fs, files=("src/a.cu", "src/b.cu"))
    a = assess(plain, ts("mi355x"), model=UNSCALED, rules=rs)
    job = item(a, "one-off:map-cuda-names")
    assert job.hours.rounded() == Hours(0.35, 0.7, 2.5)  # 0.25–0.5–2 + 0.05–0.1–0.25 × 2
    assert "× 2 (the API surface used" in job.basis
    assert item(a, "rule:API001:src/a.cu").findings  # the renames stay their own (free) items: hipify does the sites
    # a PyTorch extension (a source includes torch/extension.h) is hipified by torch.utils.cpp_extension: no map
    torch_files = (FileResult("src/a.cu", "cuda", 100, includes=(("torch/extension.h", False),)),
                   FileResult("src/b.cu", "cuda", 100))
    b = assess(replace(plain, files=torch_files), ts("mi355x"), model=UNSCALED, rules=rs)
    assert "one-off:map-cuda-names" not in {i.id for i in b.items}


def test_runtime_compilation_is_one_job_that_takes_its_findings():
    # tutel's port: the JIT path (NVRTC, cuModuleLoad, cuLaunchKernel) moved to hipRTC and hipModule as one piece
    rs = RuleSet((rule("KRN003"), rule("API002")), "x")
    fs = [replace(finding("KRN003", line=1, category="kernel"), message="kernel launched through cuLaunchKernel"),
          replace(finding("API002", line=2), message="nvrtcCompileProgram has no drop-in"),
          finding("API002", line=3)]
    a = assess(result(fs), ts("mi355x"), model=UNSCALED, rules=rs)
    job = item(a, "one-off:port-runtime-compilation")
    assert job.hours == Hours(2, 4, 10)
    assert job.count == 2  # the two run-time compilation findings, not the unrelated API002 on line 3
    assert "rule:KRN003:src/a.cu" not in {i.id for i in a.items}
