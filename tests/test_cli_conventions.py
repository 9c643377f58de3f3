"""The command line as ruff and semgrep users expect it (issue 29): -h, whole command summaries, --select/--ignore/
--min-severity, configuration errors that name the key, an unknown -o suffix refused.

Runs in this process through porter.cli.main(argv) -> int: no interpreter to start per case."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from porter.cli import main
from tests.helpers import REPO, porter_here, porter_on_a_terminal

CUDA_APP = REPO / "fixtures" / "repos" / "cuda-app"
KERNEL = "__global__ void k(float* x) { x[threadIdx.x] = 1.f; }\n"


def porter(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _plain(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("PORTER_CACHE_DIR", "/nonexistent-porter-cache")


def test_dash_h_is_help(capsys):
    for argv in ([], ["scan"], ["rules"], ["rules", "explain"]):
        code, short, _ = porter(capsys, *argv, "-h")
        assert (code, short) == (0, porter(capsys, *argv, "--help")[1])
        assert "  -h, --help " in short


def test_help_lists_every_command_summary_whole(capsys):
    code, out, _ = porter(capsys, "--help")
    assert code == 0
    assert out.split("Commands:\n")[1] == """\
  scan       Inventory everything CUDA in a repository.
  assess     Assess what it takes to run a repository on AMD Instinct GPUs:
             verdict, effort, blockers, breakdowns.
  targets    List the AMD GPU target profiles (ids for --target).
  translate  Translate CUDA to HIP (hipify when installed, porter's built-in
             engine otherwise) and report what is left.
  port       Write the minimal-footprint dual build: a compat header, portable
             fixes and ROCm build branches.
  baseline   Write the fingerprints of today's findings, so `scan --baseline
             FILE` reports only what is added later.
  comment    Create or update porter's one sticky comment on a pull request
             (GitHub) or merge request (GitLab).
  check      Scan just these files (the pre-commit hook): one line per
             finding, no translation, no assessment.
  history    The burndown of a port over the first-parent git history: open,
             handled and cuda-only work per commit.
  rules      The rule catalogue: list the rules, explain one.
  fleet      Assess and track many repositories into a database, then report
             on the estate.
"""
    assert porter(capsys, "rules", "--help")[1].split("Commands:\n")[1] == (
        "  list     List every rule with its severity, category and fixture coverage.\n"
        "  explain  Show one rule's full documentation.\n")


SCAN = ["scan", str(CUDA_APP), "--no-cache", "--jobs", "1", "-q"]


def _summary(findings: str, with_findings: int, statuses: str = "") -> str:
    """The -q line of a scan of cuda-app (11 files, 8 kernels, 8 launch sites)."""
    return (f"{findings}; 11 files scanned, {with_findings} files with findings; 8 kernels, 8 launch sites; "
            f"0 suppressed; 0 files skipped{statuses}")


@pytest.mark.parametrize("extra, line, code", [
    # 153: reduce.cu's __reduce_add_sync sits in `#if ... __CUDA_ARCH__ >= 800` with an #else HIP compiles instead,
    # so neither its 32-bit mask (DEV002) nor its same-name note (API004) is a finding (porter.match.refine);
    # histogram.cu's 96 KiB shared-memory opt-in is DEV022 (info)
    # (histogram.cu's plain cudaLaunchKernel is API001's rename at info, not a KRN003 low finding; its cuBLAS include
    # is LIB001 at info: hipify's renames are free work; the -lineinfo inside CMakeLists.txt's option() doc string is
    # prose, no BLD finding; main.cpp's include of the project's own CUDA-named header is LIB014 and its cudaDeviceProp field from ROCm 6.0 DEV032, both info)
    # (the -lineinfo the if(STENCILBENCH_LINEINFO) block adds is BLD004 at info: the option is declared OFF and the
    # block only adds the flag, a variant the user opts into; porter.match.refine_build 4g; port status reads the
    # block's lines cuda-only: porter.portaware.options.cmake_option_blocks)
    ([], _summary("153 findings (6 high, 12 medium, 3 low, 132 info)", 10, "; 151 open (6 high, 11 medium, 3 low, 131 info), 1 handled (1 medium), 1 cuda-only (1 info); 10 files with open findings"), 0),
    (["--select", "KRN"], _summary("15 findings (15 info)", 5), 0),
    (["--select", "krn001,DEV002"], _summary("10 findings (2 high, 8 info)", 6), 0),
    (["--ignore", "KRN", "--ignore", "API", "--min-severity", "medium"],
     _summary("17 findings (5 high, 12 medium)", 4, "; 16 open (5 high, 11 medium), 1 handled (1 medium), 0 cuda-only; 4 files with open findings"), 0),
    # --select narrows what --fail-on counts; --min-severity only what is shown
    (["--select", "KRN", "--fail-on", "low"], _summary("15 findings (15 info)", 5), 0),
    (["--select", "BLD", "--select", "KRN", "--fail-on", "low"],
     _summary("22 findings (5 medium, 1 low, 16 info)", 6, "; 21 open (5 medium, 1 low, 15 info), 0 handled, 1 cuda-only (1 info); 6 files with open findings"), 1),
    (["--select", "BLD", "--select", "KRN", "--fail-on", "high"],
     _summary("22 findings (5 medium, 1 low, 16 info)", 6, "; 21 open (5 medium, 1 low, 15 info), 0 handled, 1 cuda-only (1 info); 6 files with open findings"), 0),
    (["--select", "BLD", "--select", "KRN", "--min-severity", "high", "--fail-on", "low"],
     _summary("0 findings (none)", 0), 1),
])
def test_select_ignore_and_min_severity(capsys, extra, line, code):
    got, out, err = porter(capsys, *SCAN, *extra)
    assert (got, out, err) == (code, line + "\n", "")


@pytest.mark.parametrize("extra, message", [
    (["--select", "KRX"], "error: --select: no rule id or prefix 'KRX' (`porter rules list` shows them)"),
    (["--ignore", "KRN001,NOPE"], "error: --ignore: no rule id or prefix 'NOPE' (`porter rules list` shows them)"),
    (["--min-severity", "huge"], "error: --min-severity: unknown severity 'huge' (expected one of: info, low, "
                                 "medium, high, blocker)"),
])
def test_unknown_rule_or_severity_is_a_usage_error(capsys, extra, message):
    assert porter(capsys, *SCAN, *extra) == (2, "", message + "\n")


@pytest.mark.parametrize("toml, message", [
    ('disable = ["KRN01"]', "disable: no rule 'KRN01' (did you mean KRN001? `porter rules list` shows them)"),
    ('disable = ["XYZ001"]', "disable: no rule 'XYZ001' (`porter rules list` shows them)"),
    ('targets = ["mi999"]', "targets: unknown target 'mi999' (valid: all, mi300x, mi325x, mi350x, mi355x, mi455x)"),
])
def test_configuration_errors_name_the_key(capsys, tmp_path, toml, message):
    (tmp_path / "k.cu").write_text(KERNEL)
    (tmp_path / "porter.toml").write_text(toml + "\n")
    code, out, err = porter(capsys, "scan", str(tmp_path), "--no-cache", "-q")
    assert (code, out, err) == (2, "", f"error: {tmp_path / 'porter.toml'}: {message}\n")


def test_a_rule_the_configuration_adds_may_be_disabled(capsys, tmp_path):
    (tmp_path / "k.cu").write_text(KERNEL)
    (tmp_path / "porter.toml").write_text('disable = ["KRN001"]\ntargets = ["gfx942"]\n')
    code, out, err = porter(capsys, "scan", str(tmp_path), "--no-cache", "-q")
    assert (code, out) == (0, "0 findings (none); 2 files scanned, 0 files with findings; 1 kernel, 0 launch sites; "
                              "0 suppressed; 0 files skipped\n")
    assert err == "note: repository porter.toml disables 1 rule(s): KRN001\n"


@pytest.mark.parametrize("cmd, suffixes", [
    ("scan", ".txt, .json, .md, .markdown, .html, .htm, .sarif, .csv, .rdjsonl, .jsonl"),
    ("assess", ".txt, .json, .md, .markdown, .html, .htm, .sarif, .csv, .rdjsonl, .jsonl"),
    ("history", ".txt, .json, .csv, .md, .markdown, .html, .htm"),
])
def test_an_output_suffix_no_format_has_is_refused(capsys, tmp_path, cmd, suffixes):
    (tmp_path / "k.cu").write_text(KERNEL)
    out_file = tmp_path / "report.docx"
    code, out, err = porter(capsys, cmd, str(tmp_path), "--no-cache", "-o", str(out_file))
    assert (code, out) == (2, "")
    assert err == f"error: -o {out_file}: no format writes .docx files (suffixes: {suffixes}); name one with --format\n"
    assert not out_file.exists()
    # --format says what to write, whatever the name
    assert porter(capsys, "scan", str(tmp_path), "--no-cache", "-f", "json", "-o", str(out_file))[0] == 0
    assert out_file.read_text().startswith("{")


def _on_a_terminal(*argv: str, env: dict[str, str]) -> bytes:
    """porter on a real pseudo-terminal (porter_on_a_terminal), as a person runs it: what the terminal received."""
    import os

    full_env = {**os.environ, "COLUMNS": "80", "PORTER_CACHE_DIR": "/nonexistent-porter-cache", **env}
    full_env.pop("NO_COLOR", None) if "NO_COLOR" not in env else None
    code, out = porter_on_a_terminal(*argv, env=full_env)
    assert code in (0, 1, 2)
    return out


# An SGR sequence: colour or another text style (a progress bar's cursor control is no colour).
COLOUR = re.compile(rb"\x1b\[[0-9;]*m")


def test_no_color_and_the_no_color_option_are_honoured_on_a_terminal(tmp_path):
    (tmp_path / "k.cu").write_text(KERNEL)
    scan = ["scan", str(tmp_path), "--no-cache", "--jobs", "1"]
    assert COLOUR.search(_on_a_terminal(*scan, env={}))  # colour by default on a terminal
    for argv, env in ((scan, {"NO_COLOR": "1"}), ([*scan, "--no-color"], {}), (["--no-color", *scan], {}),
                      (["targets", "--no-color"], {}), (["scan", "/nonexistent-porter-path"], {"NO_COLOR": "1"})):
        out = _on_a_terminal(*argv, env=env)
        assert not COLOUR.search(out), (argv, env, out[:200])
    assert COLOUR.search(_on_a_terminal("scan", "/nonexistent-porter-path", env={}))  # the red "error:"
    assert _on_a_terminal("scan", "/nonexistent-porter-path", env={"NO_COLOR": "1"}) == (
        b"error: /nonexistent-porter-path: no such file or directory\r\n")


def test_progress_in_a_log_is_a_plain_line_every_period():
    from porter.cli.output import PlainProgress

    lines: list[str] = []
    now = [100.0]
    progress = PlainProgress("scanning files", lines.append, period=10, clock=lambda: now[0])
    for t, done in ((101, 5), (109.9, 40), (110, 41), (115, 60), (121, 90), (140, 100)):
        now[0] = t
        progress(done, 100)
    assert lines == ["scanning files: 41/100\n", "scanning files: 90/100\n", "scanning files: 100/100\n"]


def test_scan_progress_is_plain_lines_when_stderr_is_no_terminal(monkeypatch):
    from porter.cli.output import PlainProgress, scan_progress

    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    bar, callback = scan_progress(True)
    assert bar is None and isinstance(callback, PlainProgress) and callback.period == 10
    assert scan_progress(False) == (None, None)  # -q


def test_rules_list_from_a_wheel_has_no_fixture_column(capsys, monkeypatch):
    from porter import rulecatalog

    code, checkout, _ = porter(capsys, "rules", "list", "--category", "python")
    assert code == 0 and "fixture" in checkout.splitlines()[2]
    monkeypatch.setattr(rulecatalog, "FIXTURES_DIR", None)  # what an installed wheel has: no fixtures/ beside it
    code, wheel, _ = porter(capsys, "rules", "list", "--category", "python")
    assert code == 0
    assert "n/a" not in wheel and "fixture" not in wheel.splitlines()[2]
    assert wheel.splitlines()[-1] == ("Fixture coverage is listed from a checkout of porter (the fixtures are not "
                                      "installed).")


def test_rules_explain_names_a_file_that_exists_and_says_the_effort_in_words(capsys):
    from porter.datafile import DATA_DIR

    code, out, _ = porter(capsys, "rules", "explain", "dev002")
    assert code == 0
    lines = out.splitlines()
    assert "Effort: extra-small effort per occurrence" in lines
    assert lines[-1] == f"Defined in {DATA_DIR / 'device' / 'DEV002-32bit-lane-mask.yaml'}"
    assert Path(lines[-1].removeprefix("Defined in ")).is_file()
    # at 80 columns: no line longer unless it is one word (a URL), and no word cut
    assert [x for x in lines if len(x) > 80] == [
        "  https://github.com/ROCm/HIP/blob/docs/develop/docs/reference/cpp_language_extensions.rst"]
    assert "  (warp cross-lane functions: __ballot and masks are 64-bit)" in lines
    assert porter(capsys, "rules", "explain", "API001")[1].splitlines().count("Effort: no effort (a note)") == 1
    from porter.rulecatalog import effort_words

    assert [effort_words({"size": s, "per": p}) for s, p in (("m", "hit"), ("l", "kernel"), ("xl", "repo"),
                                                              ("s", "file"))] == [
        "medium effort per occurrence", "large effort per kernel with an occurrence",
        "extra-large effort once per repository", "small effort per file with an occurrence"]


def test_targets_fit_80_columns(capsys):
    code, out, _ = porter(capsys, "targets")
    assert code == 0
    assert [line.rstrip() for line in out.splitlines()] == [
        "5 targets",
        "id       name                    gfx       arch    wave   LDS KiB   CUs   matrix",
        "─" * 80,
        "mi300x   AMD Instinct MI300X     gfx942    CDNA3   64     64        304   mfma",
        "mi325x   AMD Instinct MI325X     gfx942    CDNA3   64     64        304   mfma",
        "mi350x   AMD Instinct MI350X     gfx950    CDNA4   64     160       256   mfma",
        "mi355x   AMD Instinct MI355X     gfx950    CDNA4   64     160       256   mfma",
        "mi455x   AMD Instinct MI455X     gfx1250   CDNA5   32     320       256   wmma",
        "         (pre-release)",
        "(wider terminal shows: HBM GiB)",
    ]


def test_the_exit_gate_counts_open_findings_at_or_above_the_threshold():
    from porter.cli.gate import gate
    from porter.model import Confidence, Finding, Severity, Status

    def f(sev, status):
        return Finding(path="a.cu", line=1, column=1, rule="DEV002", end_line=1, end_column=2, category="device",
                       severity=sev, confidence=Confidence.HIGH, message="m", status=status)

    open_high, handled_high, open_low = f(Severity.HIGH, Status.OPEN), f(Severity.HIGH, Status.HANDLED), \
        f(Severity.LOW, Status.OPEN)
    assert [gate([open_high], None), gate([open_high], Severity.HIGH), gate([open_high], Severity.BLOCKER),
            gate([handled_high], Severity.HIGH), gate([handled_high], Severity.HIGH, "handled"),
            gate([handled_high], Severity.HIGH, "all"), gate([open_low, handled_high], Severity.MEDIUM),
            gate([open_low], Severity.INFO)] == [0, 1, 0, 0, 1, 1, 0, 1]


def test_a_rule_left_out_by_select_does_not_run(capsys):
    import json

    code, out, _ = porter(capsys, "scan", str(CUDA_APP), "--no-cache", "--jobs", "1", "-f", "json", "--select", "KRN",
                          "--ignore", "KRN002")
    doc = json.loads(out)
    assert code == 0
    # (cuda-app's only KRN003 spot was a plain cudaLaunchKernel: API001's rename since session 11)
    assert sorted({f["rule"] for f in doc["findings"]}) == ["KRN001"] and len(doc["findings"]) == 8
    from porter.cli.selection import Selection, unselected

    assert unselected(["API001"], ["API001", "DEV002", "KRN001", "KRN002"], Selection(("KRN",), ("KRN002",))) == (
        "API001", "DEV002", "KRN002")
