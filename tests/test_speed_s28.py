"""The re-scan after one edit (issue 26, session 28): what a scan's cross-file work sends between processes and
reads again. Each answer here is the one the old code gave; the tests count the work too."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import porter.pipeline as pipeline
from porter.budget import Budget
from porter.model import Confidence, Finding, Severity

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/speed_s28"


def _finding(line: int, rule: str = "DEV001") -> Finding:
    return Finding(path="a.cu", line=line, column=1, rule=rule, end_line=line, end_column=2, category="device",
                   severity=Severity.HIGH, confidence=Confidence.HIGH, message=f"m{line}")


def test_a_pass_answers_with_positions_and_only_the_findings_it_made():
    base = [_finding(n) for n in (1, 2, 3, 4)]
    changed = dataclasses.replace(base[2], severity=Severity.INFO)
    added = _finding(9, "DEV053")

    def refine(findings: list[Finding]) -> list[Finding]:  # changes one, drops one, adds one, reorders
        return [findings[3], changed, findings[0], added]

    positions, new = pipeline._pass_delta(refine, (base,), base)
    assert list(positions) == [3, -1, 0, -1]
    assert new == [changed, added]
    assert pipeline._pass_applied(base, positions, new) == refine(base)


def test_the_asm_helper_pass_sends_back_only_the_finding_it_read_unused(monkeypatch):
    # src/lanes.cuh's laneMaskGt is never called: the pass (in its budgeted worker) reads its DEV001 at info. Its
    # answer carries that one finding and the places of the other three, not the scan's four findings again.
    seen: list[tuple[list[int], list[Finding]]] = []
    real = pipeline._pass_applied

    def applied(base, positions, new):
        seen.append((list(positions), list(new)))
        return real(base, positions, new)

    monkeypatch.setattr(pipeline, "_pass_applied", applied)
    from porter.settings import Settings

    result = pipeline.run(FIXTURE / "asmpass", Settings(jobs=1, cache_dir=None)).result
    assert [(f.path, f.line, f.rule, str(f.severity)) for f in result.findings] == [
        ("src/lanes.cuh", 7, "DEV001", "high"),
        ("src/lanes.cuh", 14, "DEV001", "info"),
        ("src/scan.cu", 3, "KRN001", "info"),
        ("src/scan.cu", 5, "DEV002", "high"),
    ]
    # the asm helper pass, then the unreferenced-functions pass (porter.match.refine_unreferenced), which changes
    # nothing here and so sends back no finding
    assert len(seen) == 2 and seen[1] == ([0, 1, 2, 3], [])
    positions, new = seen[0]
    assert positions == [0, -1, 2, 3]
    assert [(f.line, str(f.severity), "unused" in dict(f.data)) for f in new] == [(14, "info", True)]


def test_a_pass_past_its_budget_leaves_the_findings_and_says_so():
    base = [_finding(1)]
    notices: list[str] = []

    def endless(findings: list[Finding]) -> list[Finding]:
        while True:
            pass

    assert pipeline._budgeted_pass(endless, (base,), Budget(0.5, 512 << 20), notices, "a pass", "all stand",
                                   base) is None
    assert len(notices) == 1 and notices[0].startswith("a pass stopped: ") and notices[0].endswith("; all stand")


def test_commented_out_defines_are_the_line_anchored_patterns_matches():
    from porter.source import preprocessor

    texts = [b"//#define A\n", b"  // # define B 1 \n x //#define C\n", b"x //#define C\n//#define D",
             b"//#define E 12x\n", b"\t//#define F\r\n", b"//#define G\n//#define G2 //#define H\n",
             b"int x; // #define I\n\t//\t#\tdefine\tJ\t7\t\n"]
    for text in texts:
        assert [(m.start(), m.group(1)) for m in preprocessor.commented_defines(text)] == [
            (m.start(), m.group(1)) for m in preprocessor._COMMENTED_DEFINE().finditer(text)]
    assert [m.group(1) for t in texts for m in preprocessor.commented_defines(t)] == [
        b"A", b"B", b"D", b"G", b"J"]


def test_launched_words_are_the_word_patterns_matches():
    from porter.kernels.launchers import _LAUNCHED, launched_words

    bodies = [b"k<<<g, b>>>(x); ns::k2<<<1,1>>>(y); obj.k3 <<<1,1>>>(z); p->k4<<<1,1>>>(w);",
              b"  kern \n << < grid, block >>> (a);\n other<<<1, 2>>>;\n",  # no call after the second: not a launch
              b"a <<<< 1 >>> (b); c<<<1>>>(d) <<<e>>>(f); caf\xc3\xa9<<<1,1>>>(g); _x9 <<< 1 , 1 >>>(h);",
              b"x << y; if (a < b && c <<< 3) {}", b"<<<1,1>>>(k);", b"tmpl<T><<<1,1>>>(k);"]
    for body in bodies:
        assert launched_words(body) == frozenset(m.group(1) for m in _LAUNCHED.finditer(body)), body
    assert [sorted(launched_words(b)) for b in bodies] == [
        [b"k"], [b"kern"], [b"_x9", b"a", b"c"], [], [], []]


def test_a_literal_before_a_branch_is_joined_to_each_alternatives_start():
    from porter.match.prefilter import required_literals

    # BLD012's options: the parser takes the shared `-` out of the alternatives; `code`/`arch` alone were required
    # (found in most C/C++ files), where every match holds `-code`, `-arch`, ...
    arch = (r"(?<![\w-])(?P<hit>-arch(?:=|\s|$)|--gpu-architecture[= ](?:sm|compute)_|-gencode\b|--generate-code\b"
            r"|--gpu-code[= ]|-code[= ](?:sm|compute)_)")
    assert required_literals(arch) == (
        (b"--generate-code", b"--gpu-architecture", b"--gpu-code", b"-arch", b"-code", b"-gencode"), False)
    assert required_literals(r"(?i)X(?:Yz|W)") == ((b"xw", b"xyz"), True)
    assert required_literals(r"ab(?:cd|\w+)") == ((b"ab",), False)  # an alternative that may begin otherwise
    # only text right before the branch: `x` may stand between `ab` and it
    assert required_literals(r"ab(?:x)?(?:c|d)") == ((b"ab",), False)
    assert required_literals(r"abcd(?:e|)z") == ((b"abcd",), False)


def test_a_functions_template_parameters_are_read_once(monkeypatch):
    # templates/sort.cu: median calls network<unsigned, 4> and <unsigned, 2>, which call swap_lanes with and without
    # V; swap_lanes<unsigned, 4> is an explicit specialization. The callee walk asked each candidate's parameter
    # list again for every call, binding and specialization check: 49 reads of four functions' lists.
    import porter.kernels.facts as facts
    from porter.kernels.verdicts import measure
    from porter.source.parse import parse

    asked: list[int] = []
    real = facts.template_params
    monkeypatch.setattr(facts, "template_params", lambda node: asked.append(node.start_byte) or real(node))
    path = FIXTURE / "templates/sort.cu"
    kernels = list(measure(parse("sort.cu", "cuda", path.read_bytes())))
    assert [(k.name, [(d.name, d.line) for d in k.facts.device_functions]) for k in kernels] == [
        ("median", [("swap_lanes", 3), ("swap_lanes", 6), ("network", 9)])]
    assert len(asked) == 4 and len(set(asked)) == 4
