"""The calibrated effort model: P10–P90 ranges, saturating repeats, kernels priced by need, the CUTLASS job, one
chip per gfx, optional and handled work, the calibration helpers and bench/calibrate.py."""
from __future__ import annotations

import csv
import dataclasses
import io
import subprocess
import sys

import pytest

from helpers import REPO
from porter.estimate.assess import assess
from porter.estimate.calibration import (HistoryError, Port, docs_table, fit, leave_one_project_out, load_history,
                                         median, ranks, reference_days, spearman, within)
from porter.estimate.effort_model import EffortModel, Hours, load_effort_model, merge
from porter.estimate.inputs import separate_extensions
from porter.estimate.ranges import Spread, combine, percentiles, pert
from porter.model import (Confidence, FileResult, Finding, Kernel, PortStatusSummary, ScanResult, Severity, Status,
                          StatusCounts)
from porter.model.kernel import CheckResult, InlinePtx, KernelFacts, TargetVerdict
from porter.rules import Rule, RuleSet
from porter.targets import load_targets, select_targets

TARGETS = load_targets()
UNSCALED = EffortModel(merge(load_effort_model().data, {"calibration": {"scale": {"kernel": 1, "finding": 1, "one-off": 1}}}))


def rule(rid, category="api", size="m", per="hit", kind="manual", severity="medium"):
    return Rule(id=rid, title=f"title of {rid}", category=category, severity=Severity.parse(severity),
                confidence=Confidence.HIGH, languages=("cuda",), patterns=({"regex": "x"},), message="m",
                docs={"what": "w", "why": "y", "instead": "i"}, hip_equivalent={"kind": kind}, effort={"size": size, "per": per})


def finding(rid, path="src/a.cu", line=1, category="api", severity="medium", kernel=None, data=(), status=Status.OPEN):
    f = Finding(path=path, line=line, column=1, rule=rid, end_line=line, end_column=5, category=category,
                severity=Severity.parse(severity), confidence=Confidence.HIGH, message=f"{rid} here", snippet="code",
                kernel=kernel, function=kernel, fingerprint=f"{rid}{path}{line}".ljust(20, "0")[:20], data=tuple(data))
    return dataclasses.replace(f, status=status)


def result(findings=(), kernels=(), files=("src/a.cu",), port_status=None):
    return ScanResult(root="repo", findings=tuple(sorted(findings)), suppressed=(), kernels=tuple(kernels), launches=(),
                      files=tuple(FileResult(p, "cuda", 100) for p in files), skipped=(), port_status=port_status)


def ts(*ids):
    return select_targets(list(ids), TARGETS)


def item(a, item_id):
    return next(i for i in a.items if i.id == item_id)


def ptx_kernel(families, tensor=(), path="src/a.cu", line=1, end=40, name="k", targets=("mi355x",), message="PTX"):
    facts = KernelFacts(end - line + 1, inline_ptx=InlinePtx(2, tuple(families), (line + 1,)), tensor_cores=tuple(tensor))
    verdicts = tuple(TargetVerdict(t, "rewrite", (CheckResult("inline-ptx", "rewrite", message, (line + 1,)),))
                     for t in targets)
    return Kernel(path=path, line=line, end_line=end, name=name, qualified_name=name, facts=facts, verdicts=verdicts)


# ------------------------------------------------------------------------------------------ ranges


def test_pert_and_the_lognormal_combination_give_exact_percentiles():
    assert pert(Hours(2, 4, 10)) == Spread(28 / 6, (8 / 6) ** 2)
    one = combine([Hours(2, 4, 10)]).rounded()
    assert one == Hours(3.13, 4.49, 6.43)  # P10, median, P90 of one item: narrower than its 2–10 range
    two = combine([Hours(2, 4, 10), Hours(2, 4, 10)]).rounded()
    assert two == Hours(7.08, 9.15, 11.82)  # independent: 7.08–11.82, not the worst-case sum 4–20
    assert percentiles(Spread()) == Hours() and combine([Hours(3, 3, 3)]) == Hours(3, 3, 3)


def test_headline_range_is_p10_to_p90_and_said_so():
    rs = RuleSet((rule("API002"),), "x")
    a = assess(result([finding("API002")]), ts("mi355x"), model=UNSCALED, rules=rs)
    assert a.hours == combine(i.hours for i in a.items)
    assert a.hours.high < sum(i.hours.high for i in a.items)
    assert a.to_dict()["effort"]["range"] == "P10–P90"
    assert any("10th to 90th percentile" in s and "independent" in s for s in a.assumptions)


# ------------------------------------------------------------------------------------------ repeats


def test_repeated_hits_in_one_file_saturate():
    m = UNSCALED
    assert [round(m.hit_units(n), 4) for n in (0, 1, 2, 10, 281)] == [0, 1, 1.4606, 3.3306, 4.0]
    rs = RuleSet((rule("LIB010", "library"),), "x")
    fs = [finding("LIB010", line=n, category="library") for n in range(1, 282)]  # 281 hits in one file
    a = assess(result(fs), ts("mi355x"), model=UNSCALED, rules=rs)
    it = item(a, "rule:LIB010:src/a.cu")
    assert it.hours.rounded() == Hours(4, 12, 24)  # size m (1–3–6 h) × 4 units, not 141 units
    assert it.count == 281


def test_hits_of_one_library_in_one_file_share_one_curve():
    rs = RuleSet((rule("LIB011", "library"), rule("LIB012", "library")), "x")
    cudnn = (("library", "cudnn"),)
    fs = ([finding("LIB011", line=n, category="library", data=cudnn) for n in (1, 2)]
          + [finding("LIB012", line=n, category="library", data=cudnn) for n in (3, 4)])
    a = assess(result(fs), ts("mi355x"), model=UNSCALED, rules=rs)
    first, second = item(a, "rule:LIB011:src/a.cu"), item(a, "rule:LIB012:src/a.cu")
    m = UNSCALED
    assert first.hours.likely == pytest.approx(3 * m.hit_units(2))
    assert second.hours.likely == pytest.approx(3 * (m.hit_units(4) - m.hit_units(2)))  # the 3rd and 4th cuDNN hits
    assert "after 2 earlier cuDNN hit(s) in the file" in second.basis


# ------------------------------------------------------------------------------------------ kernels by need


def test_plain_ptx_is_a_small_fix_and_tensor_core_ptx_a_rewrite():
    plain = ptx_kernel(("ld", "cvt", "st"))
    matrix = ptx_kernel(("ldmatrix", "mma.sync"), tensor=("mma.sync",), path="src/b.cu")
    a = assess(result([], [plain, matrix], files=("src/a.cu", "src/b.cu")), ts("mi355x"), model=UNSCALED,
               rules=RuleSet((), "x"))
    p, t = item(a, "kernel:src/a.cu:1:k"), item(a, "kernel:src/b.cu:1:k")
    assert p.hours == Hours(1, 2, 6) and p.basis.startswith("rewrite on mi355x, needs inline-ptx (1–2–6 h)")
    assert t.hours == Hours(16, 40, 100) and "needs inline-ptx-matrix" in t.basis


def test_an_analysis_that_splits_inline_ptx_itself_is_read_as_it_says():
    # kernel analysis may report the matrix part as its own check and keep `inline-ptx` (verdict fix) for the rest
    k = ptx_kernel(("ld", "mma.sync"), tensor=("mma.sync",))
    k = dataclasses.replace(k, verdicts=(TargetVerdict("mi355x", "rewrite", (
        CheckResult("inline-ptx-matrix", "rewrite", "mma", (2,)), CheckResult("inline-ptx", "fix", "ld", (2,)))),))
    a = assess(result([], [k]), ts("mi355x"), model=UNSCALED, rules=RuleSet((), "x"))
    # the dearer need, × complexity 1.25 for the second one: not the matrix price twice
    assert item(a, "kernel:src/a.cu:1:k").hours == Hours(20, 50, 125)


def test_a_kernel_costs_its_dearest_need():
    facts = KernelFacts(40)
    details = (CheckResult("block-not-wave-multiple", "retune", "m", ()), CheckResult("wave64-ballot-32bit", "fix", "m", ()))
    k = Kernel(path="src/a.cu", line=1, end_line=40, name="k", qualified_name="k", facts=facts,
               verdicts=(TargetVerdict("mi355x", "fix", details),))
    a = assess(result([], [k]), ts("mi355x"), model=UNSCALED, rules=RuleSet((), "x"))
    # fix 2–4–10 h (the dearer need) × complexity 1.25 for the second reason
    assert item(a, "kernel:src/a.cu:1:k").hours == Hours(2.5, 5, 12.5)


# ------------------------------------------------------------------------------------------ CUTLASS job


def test_cutlass_components_are_one_job_sized_from_the_kernels_it_covers():
    rs = RuleSet((rule("LIB020", "library"),), "x")
    f = finding("LIB020", path="attn/fmha.cu", line=1, category="library", data=(("library", "cutlass"),))
    k1 = ptx_kernel(("mma.sync",), tensor=("mma.sync",), path="attn/fmha.cu", line=10, end=169, name="fwd")  # 160 lines
    k2 = ptx_kernel(("ld",), path="attn/fmha.cu", line=200, end=239, name="bwd")  # 40 lines
    other = ptx_kernel(("ld",), path="src/a.cu", name="other")
    a = assess(result([f], [k1, k2, other], files=("attn/fmha.cu", "src/a.cu")), ts("mi355x"), model=UNSCALED, rules=rs)
    job = item(a, "one-off:reimplement-cutlass")
    # 8–16–40 h + 8–20–50 h per distinct kernel, size-scaled: (160/40)^0.5 = 2 and 1; + 0.5–1–3 h for the
    # one API name the finding says (the API surface the job re-implements)
    assert job.hours == Hours(32.5, 77, 193)
    assert "the 2 distinct of 2 kernel(s) it re-implements" in job.basis and f.fingerprint in job.findings
    assert "0.5–1–3 h × 1 (the API surface used" in job.basis
    ids = {i.id for i in a.items}
    assert "kernel:src/a.cu:1:other" in ids and not any(i.startswith("kernel:attn/") for i in ids)
    rows = {r.name: r.item for r in a.breakdowns.by_kernel}
    assert rows == {"fwd": "one-off:reimplement-cutlass", "bwd": "one-off:reimplement-cutlass",
                    "other": "kernel:src/a.cu:1:other"}


# ------------------------------------------------------------------------------------------ targets


def test_targets_sharing_a_gfx_are_costed_once_and_all_never_exceeds_the_costliest_chip():
    ids = list(TARGETS)
    k = ptx_kernel(("ld",), targets=ids)
    # the messages name the target, so the reasons differ in words although the chip is the same
    k = dataclasses.replace(k, verdicts=tuple(dataclasses.replace(v, details=(CheckResult(
        "inline-ptx", "rewrite", f"PTX on {v.target}", (2,)),)) for v in k.verdicts))
    rs = RuleSet((rule("API002"),), "x")
    r = result([finding("API002")], [k])

    def hours(*targets):
        return assess(r, ts(*targets), model=UNSCALED, rules=rs).hours

    assert hours("mi300x", "mi325x") == hours("mi300x")
    everything = assess(r, ts(*ids), model=UNSCALED, rules=rs)
    chips = {}
    for t in TARGETS.values():
        chips.setdefault(t.gfx, []).append(t.id)
    assert everything.hours.likely <= max(hours(*group).likely for group in chips.values()) + 1e-9
    assert everything.costed_target is not None


# ------------------------------------------------------------------------------------------ optional and handled


def test_optional_work_is_on_its_own_line_never_in_the_headline_or_the_verdict():
    rs = RuleSet((rule("LIB009", "library", "l", "hit", "none", "blocker"), rule("API002")), "x")
    blocker = finding("LIB009", path="apex/contrib/x.cu", category="library", severity="blocker")
    kept = finding("API002", path="src/nv_only.cu", status=Status.CUDA_ONLY)
    main = finding("API002", path="src/a.cu")
    files = ("apex/contrib/x.cu", "src/nv_only.cu", "src/a.cu")
    a = assess(result([blocker, kept, main], files=files), ts("mi355x"), model=UNSCALED, rules=rs)
    assert a.verdict == "port"  # not blocked: the blocker is in contrib/
    assert a.finding_item.keys() == {main.fingerprint}
    opt = a.optional
    assert opt is not None and (opt.findings, opt.kernels, opt.files) == (2, 0, 2)
    assert opt.text.startswith("Optional (not in the headline or the verdict): ")
    # its own jobs only: CI and validation are already in the headline
    assert {i["id"] for i in opt.items} == {"rule:LIB009:apex/contrib/x.cu", "rule:API002:src/nv_only.cu"}
    alone = assess(result([main], files=files), ts("mi355x"), model=UNSCALED, rules=rs)
    assert a.hours == alone.hours


def test_a_separately_built_extension_is_optional():
    assert separate_extensions(["setup.py", "csrc/ln/setup.py", "csrc/ln/ln.cu", "hopper/setup.py"]) == ("csrc/ln/", "hopper/")
    assert separate_extensions(["faiss/python/setup.py", "CMakeLists.txt"]) == ()  # no root package: not optional
    rs = RuleSet((rule("API002"),), "x")
    r = result([finding("API002", path="csrc/ln/ln.cu"), finding("API002", path="src/a.cu")],
               files=("setup.py", "csrc/ln/setup.py", "csrc/ln/ln.cu", "src/a.cu"))
    a = assess(r, ts("mi355x"), model=UNSCALED, rules=rs)
    assert a.optional is not None and a.optional.findings == 1 and "rule:API002:csrc/ln/ln.cu" not in {i.id for i in a.items}


def test_handled_findings_are_counted_not_costed():
    rs = RuleSet((rule("API002"),), "x")
    fs = [finding("API002", line=n, status=Status.HANDLED if n <= 3 else Status.OPEN) for n in (1, 2, 3, 4)]
    a = assess(result(fs), ts("mi355x"), model=UNSCALED, rules=rs)
    assert a.handled is not None and a.handled.text == "3 of 4 spots handled (75%); 1 open."
    assert item(a, "rule:API002:src/a.cu").count == 1
    assert any("3 finding(s) already have a ROCm path" in s for s in a.assumptions)
    given = PortStatusSummary(StatusCounts(open=118, handled=412))
    b = assess(result(fs, port_status=given), ts("mi355x"), model=UNSCALED, rules=rs)
    assert b.handled is not None and b.handled.text == "412 of 530 spots handled (78%); 118 open."
    everything = [dataclasses.replace(f, status=Status.HANDLED) for f in fs]
    c = assess(result(everything), ts("mi355x"), model=UNSCALED, rules=rs)
    assert c.nothing_to_port and c.headline == "Nothing left to port: every one of the 4 CUDA spot(s) is handled."


# ------------------------------------------------------------------------------------------ calibration


def test_spearman_and_ranks_handle_ties():
    assert ranks([10, 20, 20, 5]) == [2, 3.5, 3.5, 1]
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) == pytest.approx(0.8)
    with pytest.raises(ValueError):
        spearman([1], [1])


def test_reference_days_prefer_booked_effort_and_cap_by_calendar():
    p = Port("x", "o/x", "abc", lines_changed=300, calendar_days=1, people=1)
    assert reference_days(p, 100) == 1  # 3 days of lines, but one person had one day
    assert reference_days(dataclasses.replace(p, calendar_days=10), 100) == 3
    assert reference_days(dataclasses.replace(p, effort_days=7.5), 100) == 7.5


def test_a_tied_fit_is_one_multiplier_and_ridge_pulls_towards_one():
    rows = [({"kernel": 10, "finding": 0, "one-off": 0}, 20), ({"kernel": 0, "finding": 10, "one-off": 0}, 20)]
    assert fit(rows, tied=True) == {"kernel": 2.0, "finding": 2.0, "one-off": 2.0}
    free, pulled = fit(rows), fit(rows, ridge=1.0)
    assert free["kernel"] == 2.0 and 1.0 < pulled["kernel"] < 2.0


def test_fit_recovers_known_multipliers():
    truth = {"kernel": 2.0, "finding": 0.5, "one-off": 1.0}
    rows = []
    for k, f, o in [(10, 1, 5), (1, 20, 5), (30, 2, 5), (5, 5, 10), (2, 40, 3)]:
        by = {"kernel": k, "finding": f, "one-off": o}
        rows.append((by, sum(truth[n] * h for n, h in by.items())))
    assert fit(rows) == truth


def test_the_shipped_calibration_set_has_thirty_cited_ports_split_by_project():
    h = load_history(REPO / "bench" / "calibration" / "ports.yaml")
    assert len(h.ports) >= 30 and h.lines_per_day == 100
    for p in h.ports:
        assert len(p.pre_port_commit) == 40 and p.size in ("small", "medium", "big")
        assert p.lines_changed == p.data["lines_added"] + p.data["lines_deleted"]
        assert any(c.startswith(f"https://github.com/{p.repository}/") for c in p.data["citations"])
        assert p.author_days is not None and p.author_days >= 1
    assert {p.size for p in h.ports} >= {"small", "big"}
    fit_projects = {p.project for p in h.ports if p.set == "fit"}
    held = {p.project for p in h.ports if p.set == "held-out"}
    assert len(held) >= 8 and not fit_projects & held  # split by project: none in both
    # a held-out port whose miss was studied (and the model changed for it) is fit data from then on
    assert all(p.set == "fit" for p in h.ports if p.data.get("studied"))


def test_median_within_and_leave_one_project_out():
    assert median([3, 1, 2]) == 2 and median([4, 1, 3, 2]) == 2.5
    assert within([1.0, 1.9, 2.1, 0.5, 0.49], 2.0) == 0.6
    rows = [("a", {"kernel": 10, "finding": 0, "one-off": 0}, 20), ("b", {"kernel": 10, "finding": 0, "one-off": 0}, 40),
            ("b", {"kernel": 5, "finding": 0, "one-off": 0}, 20)]
    out = leave_one_project_out(rows, tied=True)
    # a is priced by b's fit (x4), b's ports by a's fit (x2): never by their own project
    assert out == {0: 40.0, 1: 20.0, 2: 10.0}


def test_the_docs_calibration_table_is_rendered_from_a_run_of_the_model_as_it_ships():
    import importlib.util

    import yaml

    spec = importlib.util.spec_from_file_location("calibrate", REPO / "bench" / "calibrate.py")
    calibrate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(calibrate)
    model_fingerprint = calibrate.model_fingerprint
    rec = yaml.safe_load((REPO / "bench" / "calibration" / "results.yaml").read_text(encoding="utf-8"))
    # A model or estimate change after the recorded run makes this fail: re-run
    # `python bench/calibrate.py --mirrors <dir> --record bench/calibration/results.yaml --docs`.
    assert rec["model_fingerprint"] == model_fingerprint(REPO)
    assert docs_table(rec) in (REPO / "docs" / "effort-model.md").read_text(encoding="utf-8")
    assert len(rec["ports"]) >= 30 and {s["label"] for s in rec["summaries"]} >= {
        "fit set", "held-out set", "all ports, leave-one-project-out"}


def test_candidate_ports_are_held_out_apart_from_the_table_and_merge_with_it_by_id():
    import importlib.util

    spec = importlib.util.spec_from_file_location("calibrate", REPO / "bench" / "calibrate.py")
    calibrate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(calibrate)
    table = load_history(REPO / "bench" / "calibration" / "ports.yaml")
    cand = load_history(REPO / "bench" / "calibration" / "candidates.yaml")
    # measured after the fit, so held out; none of their projects is in the table (the split is by project)
    assert [(p.id, p.set, p.lines_changed) for p in cand.ports] == [
        ("deepmd-kit", "held-out", 3235), ("cupy", "held-out", 1025), ("tgi", "held-out", 213), ("gpt-neox", "held-out", 135)]
    assert not {p.project for p in cand.ports} & {p.project for p in table.ports}
    both = calibrate.merge_histories([table, cand])
    assert len(both.ports) == len(table.ports) + 4 and both.lines_per_day == 100
    with pytest.raises(HistoryError) as e:
        calibrate.merge_histories([cand, cand])
    assert e.value.problem == "an id is in more than one history file"


def test_the_results_cache_is_keyed_on_porters_scanning_code_not_on_the_effort_model(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("calibrate", REPO / "bench" / "calibrate.py")
    calibrate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(calibrate)
    files = {"porter/scan.py": "a\n", "porter/estimate/cost.py": "b\n", "rules/kernel/K1.yaml": "c\n",
             "rules/effort/model.yaml": "d\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    fp = calibrate.scan_fingerprint
    assert fp(tmp_path) == "65a36ee7f57c" and fp(tmp_path, ("mi300x",)) == "b9dd900ccd31"
    # the effort model and the estimate modules are re-applied to a cached scan: they keep its name
    (tmp_path / "porter/estimate/cost.py").write_text("b2\n")
    (tmp_path / "rules/effort/model.yaml").write_text("d2\n")
    assert fp(tmp_path) == "65a36ee7f57c"
    # a change to the scan, the kernel analysis, port status or a rule names another scan: a cache miss
    (tmp_path / "porter/scan.py").write_text("a2\n")
    assert fp(tmp_path) != "65a36ee7f57c"
    (tmp_path / "porter/scan.py").write_text("a\n")
    (tmp_path / "rules/kernel/K1.yaml").write_text("c2\n")
    assert fp(tmp_path) != "65a36ee7f57c"


def test_a_bad_history_names_the_field(tmp_path):
    (tmp_path / "h.yaml").write_text("ports:\n  - {id: a, repository: o/a, pre_port_commit: abc}\n")
    with pytest.raises(HistoryError) as e:
        load_history(tmp_path / "h.yaml")
    assert e.value.field == "ports[0].lines_changed"


def calibrate(*argv: str) -> subprocess.CompletedProcess:
    """bench/calibrate.py's main(argv) in this process, its exit status and printed text returned as a subprocess's
    would be: the script's behaviour is its arguments, output and status, none of which needs a process of its own,
    and three interpreters each importing porter cost about two CPU-seconds of the test's three (measured)."""
    import contextlib
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_calibrate", REPO / "bench" / "calibrate.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = script.main(list(argv))
        except SystemExit as e:  # as the interpreter ends on it: a message goes to stderr with status 1
            code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
            if not isinstance(e.code, int | None):
                print(e.code, file=sys.stderr)
    return subprocess.CompletedProcess(["calibrate.py", *argv], code, out.getvalue(), err.getvalue())


def test_calibrate_script_reruns_porter_on_given_trees_and_fits(tmp_path):
    (tmp_path / "h.yaml").write_text(
        "lines_per_day: 100\nports:\n"
        "  - {id: small, repository: o/small, pre_port_commit: 'x', lines_changed: 100, size: small,"
        " calendar_days: 1, people: 1}\n"
        "  - {id: big, repository: o/big, pre_port_commit: 'y', lines_changed: 3000, size: big, effort_days: 6}\n")
    out = tmp_path / "fit.yaml"
    p = calibrate("--history", str(tmp_path / "h.yaml"), "--tree", f"small={REPO / 'fixtures/repos/torch-ext'}",
                  "--tree", f"big={REPO / 'fixtures/repos/cuda-app'}", "--cache-dir", str(tmp_path / "c"),
                  "--jobs", "1", "--fit", str(out))
    # the big port's reference is its 6 booked days, the small one's 1 (100 lines): ranked the same as porter's
    assert "fit set                            n= 2  rho 1.000" in p.stdout
    # left out in turn, each of two projects is priced by the other's multiplier: both land within 2x, every bar
    # holds (exit 0); 1.16 since session 27 (torch-ext's -U__CUDA_NO_HALF_* list is a PYT027 note, xs per file)
    assert "all ports, leave-one-project-out   n= 2  rho 1.000  median est/ref 1.16  within 2x 100%" in p.stdout
    assert p.returncode == 0, p.stderr
    assert "one-person one-day port(s) at most 3 likely days: yes (small " in p.stdout
    fitted = load_effort_model(out)
    scale = fitted.data["calibration"]["scale"]
    assert set(scale) == {"kernel", "finding", "one-off"} and len(set(scale.values())) == 1  # one tied multiplier
    assert "fitted multipliers: " in p.stdout
    # a third project whose port wrote 5,000 lines where porter reads the small fixture's half day: left out, it is
    # far from 2x of its reference, and the bars fail (exit 1)
    (tmp_path / "h3.yaml").write_text((tmp_path / "h.yaml").read_text() + "  - {id: odd, repository: o/odd, "
                                      "pre_port_commit: 'z', lines_changed: 5000, size: big, effort_days: 50}\n")
    p3 = calibrate("--history", str(tmp_path / "h3.yaml"), "--tree", f"small={REPO / 'fixtures/repos/torch-ext'}",
                   "--tree", f"odd={REPO / 'fixtures/repos/torch-ext'}", "--tree",
                   f"big={REPO / 'fixtures/repos/cuda-app'}", "--cache-dir", str(tmp_path / "c"), "--jobs", "1")
    assert p3.returncode == 1, p3.stderr
    assert "all ports, leave-one-project-out   n= 3  rho -0.500  median est/ref 3.15  within 2x 0%" in p3.stdout
    missing = calibrate("--history", str(tmp_path / "h.yaml"), "--mirrors", str(tmp_path))
    assert missing.returncode != 0 and "no tree for small (o/small at x)" in missing.stderr


# ------------------------------------------------------------------------------------------ CSV


def test_csv_carries_hours_per_item_and_per_file():
    from porter.render.csv import render

    rs = RuleSet((rule("API002"),), "x")
    fs = [finding("API002", line=1), finding("API002", line=2)]
    r = result(fs)
    a = assess(r, ts("mi355x"), model=UNSCALED, rules=rs)
    rows = list(csv.DictReader(io.StringIO(render(r, a))))
    it = item(a, "rule:API002:src/a.cu")
    assert [(row["effort_item"], float(row["item_likely_h"]), int(row["item_findings"])) for row in rows] == \
        [(it.id, round(it.hours.likely, 2), 2)] * 2
    assert float(rows[0]["file_likely_h"]) == a.breakdowns.by_file[0].hours.likely
