"""Stages that ran a repository's content outside any budget, or in time that grew with its square: a .gitignore or
exclude list too big for one RE2 set, a repository's rule whose tree-sitter queries take minutes to compile, and a
file of thousands of kernels costed kernels × findings × targets. Every input is generated here."""
from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest

from helpers import REPO, porter_here, write_files
from porter.budget import Budget
from porter.estimate import cost as cost_mod
from porter.estimate.assess import assess
from porter.estimate.kernel_verdicts import KernelVerdicts, read_kernel
from porter.model import Confidence, Finding, Kernel, ScanResult, Severity
from porter.model.kernel import CheckResult, KernelFacts, TargetVerdict
from porter.model import FileResult
from porter.pipeline import scan
from porter.rules import MAX_QUERY_BYTES, RuleError, load_rules
from porter.settings import Settings
from porter.source import discover as disc
from porter.targets import load_targets, select_targets

KERNEL = "__global__ void k(int *a) { a[threadIdx.x] = 0; }\n"


# -- F5: a .gitignore or exclude list RE2's Set cannot compile ------------------------------------------------------

def _many_globs(n: int) -> list[str]:
    return [f"*n{i}*.cu" for i in range(n)]  # 2,000 of these fail RE2::Set's compile ("failed to compile Set")


def test_a_gitignore_of_2000_globs_is_honoured_not_an_internal_error(tmp_path):
    tree = tmp_path / "t"
    write_files(tree, {".gitignore": "\n".join(_many_globs(2000) + ["!keep_n7x.cu"]) + "\n",
                       "src/a.cu": KERNEL, "src/x_n1999_y.cu": KERNEL, "src/keep_n7x.cu": KERNEL})
    p = porter_here("scan", str(tree), "--isolated", "--fail-on", "low", "--format", "json", "--no-cache")
    assert p.returncode in (0, 1), p.stderr
    assert "failed to compile" not in p.stderr and "E0000" not in p.stderr  # neither the error nor RE2's log
    assert json.loads(p.stdout)["files"]["scanned"] == 2
    scanned = {c.path for c in disc.discover(tree).files}
    # The last matching line wins, as in git: the negation keeps keep_n7x.cu although *n7* ignores it.
    assert scanned == {"src/a.cu", "src/keep_n7x.cu"}


def test_a_big_gitignore_matches_as_git_does(tmp_path):
    lines = _many_globs(1500) + ["gen/", "!gen/keep.cu", "docs/**/*.cu", "!x_n3_keep.cu"]
    spec = disc.gitignore_spec(lines)
    small = disc.gitignore_spec(["*n3*.cu"] + lines[-4:])  # what one RE2 set decides on the globs that matter
    for path in ("a.cu", "x_n3_keep.cu", "x_n3.cu", "gen/a.cu", "gen/keep.cu", "docs/a/b.cu", "src/n1499.cu"):
        assert spec.match_file(path) == small.match_file(path) or path == "src/n1499.cu", path
    assert spec.match_file("src/n1499.cu") and not spec.match_file("x_n3_keep.cu") and spec.match_file("x_n3.cu")


def test_a_1_mib_gitignore_neither_fails_nor_floods_stderr(tmp_path, capfd):
    tree = tmp_path / "t"
    lines = _many_globs(40000)
    write_files(tree, {".gitignore": "\n".join(lines)[: disc.MAX_GITIGNORE_BYTES] + "\n", "a.cu": KERNEL,
                       "n123.cu": KERNEL})
    skipped: list = []
    started = time.monotonic()
    # n123.cu is among the first 5,000 globs, which are applied; the rest of the file is not compiled.
    assert disc._walk_files(tree, skipped) == [".gitignore", "a.cu"]
    assert time.monotonic() - started < 30  # 20-50 s when all 57,000 lines were compiled
    assert [(s.path, s.reason) for s in skipped] == [
        (".gitignore", f"{len(lines):,} patterns; only the first 5,000 applied (porter applies at most 5,000 "
                       ".gitignore patterns a scan)"),
        ("n123.cu", disc.IGNORED_SOURCE)]  # a CUDA file the tree's own .gitignore hides is listed (session 27)
    out, err = capfd.readouterr()
    assert err == ""  # RE2 logs "CoalesceWalker::ShortVisit called" tens of thousands of times for one such set


def test_star_heavy_globs_never_reach_pythons_backtracking_re(tmp_path):
    # Python's re backtracks polynomially on this glob (4 s on a 40-character name, far more on a longer one):
    # when the set fails each glob is still matched by RE2, on its own (or in smaller sets, for an exclude list).
    glob = "*" + "a*" * 8 + "b"
    spec = disc.gitignore_spec(_many_globs(2000) + [glob])
    t = time.monotonic()
    assert not spec.match_file("a" * 200 + ".cu")
    disc.compiled_globs.cache_clear()
    assert disc.selected("a" * 200 + ".cu", None, _many_globs(2000) + [glob])
    # On Python's re this name would take far longer than any bound (4 s at 40 characters, growing polynomially);
    # RE2 answers in milliseconds. The bound leaves room for compiling the 2,001-glob list on a loaded machine.
    assert time.monotonic() - t < 10


def test_an_exclude_list_of_2000_globs_selects_as_one_glob_would(tmp_path):
    exclude = tuple(_many_globs(2000)) + ("third_party/",)
    disc.compiled_globs.cache_clear()
    assert disc.selected("src/a.cu", None, list(exclude))
    assert not disc.selected("src/b_n1999.cu", None, list(exclude))
    assert not disc.selected("third_party/x/a.cu", None, list(exclude))
    write_files(tmp_path / "t", {"a.cu": KERNEL, "n5.cu": KERNEL, "third_party/c.cu": KERNEL})
    found = disc.discover(tmp_path / "t", exclude=list(exclude))
    assert [c.path for c in found.files] == ["a.cu"]


def test_a_porter_toml_exclude_of_2000_globs_is_not_an_internal_error(tmp_path):
    tree = tmp_path / "t"
    toml = "exclude = [" + ", ".join(f'"{g}"' for g in _many_globs(2000)) + "]\n"
    write_files(tree, {"porter.toml": toml, "a.cu": KERNEL, "n42.cu": KERNEL})
    p = porter_here("scan", str(tree), "--format", "json", "--no-cache")
    assert p.returncode in (0, 1), p.stderr
    assert "internal error" not in p.stderr


# -- F6: a repository's rule whose tree-sitter queries take long to compile -----------------------------------------

def _slow_query(depth: int) -> str:
    """Nested alternations of repeated nodes: compiling depth 5 (12 KB) takes ~3 s, each level ~3x more."""
    def level(n: int) -> str:
        if n == 0:
            return "(identifier) @x"
        inner = level(n - 1)
        return (f"[(binary_expression {inner})* (call_expression {inner})* "
                f"(parenthesized_expression {inner})?]*")
    return "(expression_statement " + level(depth) + ")"


def _rule_file(directory: Path, rid: str, queries: list[str]) -> Path:
    """A repository's rule: porter's KRN001 with `queries` as its patterns."""
    text = (REPO / "rules" / "kernel" / "KRN001-kernel-definition.yaml").read_text()
    pats = "".join(f"  - query: {json.dumps(q)}\n" for q in queries)
    text = text.replace("id: KRN001", f"id: {rid}").replace("severity: info", "severity: low")
    text = text.replace("  - kernel: {}\n", pats)
    path = directory / f"{rid}-slow.yaml"
    directory.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_repository_rule_whose_queries_compile_past_the_budget_is_a_rule_error(tmp_path):
    rules = tmp_path / "t" / "rules"
    _rule_file(rules, "USR001", [_slow_query(5), _slow_query(5).replace("@x", "@y")])
    write_files(tmp_path / "t", {"a.cu": KERNEL})
    t = time.monotonic()
    with pytest.raises(RuleError) as e:
        scan(tmp_path / "t", Settings(extra_rules=(rules,), file_seconds=0.5))
    assert time.monotonic() - t < 5
    assert e.value.field == "patterns"
    assert e.value.problem == "rule USR001: its tree-sitter query took longer than 0.5 s to compile"
    assert e.value.path.endswith("USR001-slow.yaml")


def test_one_slow_query_is_named_by_its_field(tmp_path):
    path = _rule_file(tmp_path / "r", "USR002", ["(identifier) @a", _slow_query(5)])
    with pytest.raises(RuleError) as e:
        load_rules(extra=[path], budget=Budget(0.5))
    # Both patterns' queries compile in one task (one budget for the file): the field is the rule's patterns.
    assert (e.value.field, e.value.problem) == ("patterns", "rule USR002: its tree-sitter query took longer "
                                                            "than 0.5 s to compile")
    single = _rule_file(tmp_path / "s", "USR003", [_slow_query(5)])
    with pytest.raises(RuleError) as e:
        load_rules(extra=[single], budget=Budget(0.5))
    assert e.value.field == "patterns.0.query"


def test_a_query_past_64_kib_is_refused_before_compiling(tmp_path):
    tree = tmp_path / "t"
    big = _slow_query(7)  # ~110 KB: minutes to compile
    assert len(big) > MAX_QUERY_BYTES
    _rule_file(tree / "rules", "USR004", [big])
    write_files(tree, {"porter.toml": 'rules = ["rules"]\n', "a.cu": KERNEL})
    t = time.monotonic()
    p = porter_here("scan", str(tree), "--no-cache")
    assert time.monotonic() - t < 30
    assert p.returncode == 2, p.stderr
    assert "USR004-slow.yaml: patterns.0.query: the tree-sitter query is" in p.stderr
    assert "a query may be at most 64 KiB" in p.stderr


def test_a_repository_rule_with_fast_queries_still_loads_and_a_bad_one_says_why(tmp_path):
    good = _rule_file(tmp_path / "g", "USR005", ["(call_expression) @c"])
    rs = load_rules(extra=[good], budget=Budget(10))
    assert rs.get("USR005").external and rs.get("USR005").has_query
    assert not any(r.external for r in rs.rules if r.id != "USR005")
    bad = _rule_file(tmp_path / "b", "USR006", ["(no_such_node) @c"])
    with pytest.raises(RuleError) as e:
        load_rules(extra=[bad], budget=Budget(10))
    assert e.value.field == "patterns.0.query" and e.value.problem.startswith("does not compile for cuda")


# -- F7: costing a file of thousands of kernels -----------------------------------------------------------------------

TARGETS = select_targets(sorted(load_targets()), load_targets())  # --target all


def _file_of_kernels(n: int) -> ScanResult:
    """n five-line kernels in one file, each with four findings in its body, and a helper every kernel calls."""
    per = tuple(TargetVerdict(t.id, "fix", (CheckResult("wave64-full-mask", "fix", "why", (1,)),)) for t in TARGETS)
    helper_line = 5 * n + 10
    from porter.model.kernel import DeviceFunction

    helper = DeviceFunction(name="h", line=helper_line, end_line=helper_line + 3)
    kernels, findings = [], []
    for i in range(n):
        line = 5 * i + 1
        kernels.append(Kernel(path="src/a.cu", line=line, end_line=line + 4, name=f"k{i}", qualified_name=f"k{i}",
                              facts=replace(KernelFacts(5), device_functions=(helper,)), verdicts=per))
        for j in range(4):
            findings.append(Finding(path="src/a.cu", line=line + j, column=1, rule="DEV002", end_line=line + j,
                                    end_column=5, category="device", severity=Severity.HIGH,
                                    confidence=Confidence.HIGH, message="m", snippet="s", kernel=f"k{i}",
                                    function=f"k{i}", fingerprint=f"f{i}-{j}".ljust(20, "0")))
    findings.append(Finding(path="src/a.cu", line=helper_line + 1, column=1, rule="DEV002", end_line=helper_line + 1,
                            end_column=5, category="device", severity=Severity.HIGH, confidence=Confidence.HIGH,
                            message="m", snippet="s", kernel=None, function="h", fingerprint="helper".ljust(20, "0")))
    return ScanResult(root="repo", findings=tuple(sorted(findings)), suppressed=(), kernels=tuple(kernels),
                      launches=(), files=(FileResult("src/a.cu", "cuda", 5 * n + 20),), skipped=())


def _covers_calls(monkeypatch, n: int) -> int:
    calls = [0]
    real = KernelVerdicts.covers

    def counting(self, f):
        calls[0] += 1
        return real(self, f)

    monkeypatch.setattr(KernelVerdicts, "covers", counting)
    assess(_file_of_kernels(n), TARGETS)
    monkeypatch.setattr(KernelVerdicts, "covers", real)
    return calls[0]


def test_costing_many_kernels_in_one_file_is_linear_in_the_findings(monkeypatch):
    small, big = _covers_calls(monkeypatch, 50), _covers_calls(monkeypatch, 200)
    # Each kernel looks at its own four findings and the helper's one, per costing: 4x the kernels, ~4x the calls
    # (it was 16x: every kernel tested every finding of the file, once per costing and target).
    assert big / small < 4.5, (small, big)
    costings = small / (50 * 5)
    assert costings == int(costings) and costings <= 2 * len(TARGETS) + 4


def test_the_line_index_finds_what_covers_finds():
    res = _file_of_kernels(30)
    other = replace(res.findings[0], path="src/b.cu", fingerprint="other".ljust(20, "0"))
    stray = replace(res.findings[5], kernel=None, fingerprint="stray".ljust(20, "0"))  # in a body, no kernel name
    findings = list(res.findings) + [other, stray]
    index = cost_mod._LineIndex(findings)
    for k in res.kernels:
        kv = read_kernel(k, TARGETS, "port")
        assert index.covered(kv) == [f for f in findings if kv.covers(f)]
    # Overlapping spans (a helper inside the kernel's own lines) list a finding once.
    k = replace(res.kernels[0], facts=replace(res.kernels[0].facts, device_functions=()))
    kv = KernelVerdicts(k, read_kernel(k, TARGETS, "port").targets, ((1, 3), (2, 5)))
    assert index.covered(kv) == [f for f in findings if kv.covers(f)]
