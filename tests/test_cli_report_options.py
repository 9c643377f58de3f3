"""Issue 29's command-line points beyond `scan`: `check` takes --select/--ignore/--min-severity as `scan` does,
`assess` takes --select/--ignore, `--date` puts a date in the titles of assess, scan and history reports only when
asked, the assess JSON carries the `about` block the other formats' titles show, and a configuration error names the
configuration key, never a command-line flag.

Runs in this process through porter.cli.main(argv) -> int."""
from __future__ import annotations

import datetime as dt
import json
import os
import subprocess

import pytest

from porter.cli import main
from tests.helpers import REPO

CUDA_APP = REPO / "fixtures" / "repos" / "cuda-app"
FILES = ["src/kernels/warp_utils.cuh", "src/kernels/reduce.cu"]
KERNEL = "__global__ void k(float* x) { x[threadIdx.x] = 1.f; }\n"
ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


def porter(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _plain(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("PORTER_CACHE_DIR", "/nonexistent-porter-cache")


# reduce.cu:49's __reduce_add_sync(0xffffffff, ...) sits in `#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800` with an
# #else: HIP compiles the #else, so its mask is no finding (porter.match.refine).
HIGH_DEV = [
    "src/kernels/reduce.cu:36:13: DEV008 [high] reduce: HIP in ROCm 7.2 has no cg::reduce (it arrives in ROCm "
    "7.13); rewrite with tile.shfl_down/shfl_xor or hipCUB WarpReduce, or require ROCm ≥ 7.13.",
    "src/kernels/warp_utils.cuh:19:5: DEV001 [high] Inline PTX assembly: HIP cannot compile PTX; replace it with a HIP "
    "intrinsic or AMDGCN code.",
    "src/kernels/warp_utils.cuh:25:14: DEV002 [high] __shfl_down_sync gets the 32-bit mask 0xffffffff: HIP's *_sync "
    "intrinsics require a 64-bit mask type (on every AMD GPU), and on a 64-lane wavefront (CDNA: MI300X-MI355X) it "
    "names lanes 0-31 only.",
    "src/kernels/warp_utils.cuh:51:5: DEV003 [high] The 64-bit result of __ballot_sync is truncated to 32 bits here "
    "(unsigned int): lanes 32-63 of a wave64 wavefront are lost.",
    "src/kernels/warp_utils.cuh:51:26: DEV002 [high] __ballot_sync gets the 32-bit mask 0xffffffff: HIP's *_sync "
    "intrinsics require a 64-bit mask type (on every AMD GPU), and on a 64-lane wavefront (CDNA: MI300X-MI355X) it "
    "names lanes 0-31 only.",
]
DEV011 = [f"src/kernels/warp_utils.cuh:{where}: DEV011 [medium] Lane arithmetic with `{what}` assumes 32-lane warps; "
          "AMD wave64 GPUs have 64 lanes: derive it from warpSize (or a per-arch constant)."
          for where, what in (("10:27", "32"), ("24:23", "16"), ("33:34", "% 32"), ("34:34", "/ 32"),
                              ("42:35", "/ 32"))]


@pytest.mark.parametrize("extra, lines, code", [
    (["--select", "DEV", "--ignore", "DEV011", "--min-severity", "high"], HIGH_DEV, 1),
    (["--select", "DEV011", "--fail-on", "medium"], DEV011, 1),
    # --min-severity narrows what is shown, not what --fail-on counts (as in `scan`)
    (["--select", "DEV011", "--fail-on", "medium", "--min-severity", "high"], [], 1),
    # a rule --ignore names does not run: the gate does not count it either
    (["--select", "DEV011", "--ignore", "dev011,KRN", "--fail-on", "info"], [], 0),
    (["--select", "DEV002", "--min-severity", "high"], [HIGH_DEV[2], HIGH_DEV[4]], 1),
])
def test_check_selects_ignores_and_narrows_as_scan_does(capsys, monkeypatch, extra, lines, code):
    monkeypatch.chdir(CUDA_APP)
    assert porter(capsys, "check", *FILES, *extra) == (code, "".join(x + "\n" for x in lines), "")


def test_check_refuses_an_unknown_rule_or_severity(capsys, monkeypatch):
    monkeypatch.chdir(CUDA_APP)
    assert porter(capsys, "check", FILES[1], "--select", "NOPE") == (
        2, "", "error: --select: no rule id or prefix 'NOPE' (`porter rules list` shows them)\n")
    assert porter(capsys, "check", FILES[1], "--min-severity", "huge") == (
        2, "", "error: --min-severity: unknown severity 'huge' (expected one of: info, low, medium, high, blocker)\n")


def test_assess_select_and_ignore_run_only_the_rules_chosen(capsys):
    args = ["assess", str(CUDA_APP), "--no-cache", "--jobs", "1", "-f", "json"]
    code, out, _ = porter(capsys, *args, "--select", "DEV011")
    assert code == 0
    doc = json.loads(out)
    assert {f["rule"] for f in doc["findings"]} == {"DEV011"} and len(doc["findings"]) == 5
    code, out, _ = porter(capsys, *args, "--ignore", "DEV,API,KRN")
    assert code == 0 and not {f["rule"][:3] for f in json.loads(out)["findings"]} & {"DEV", "API", "KRN"}


@pytest.fixture
def repo(tmp_path):
    """A git repository on branch `main` with one kernel: its path and head commit."""
    r = tmp_path / "proj"
    r.mkdir()
    (r / "k.cu").write_text(KERNEL.replace("1.f", "__shfl_down_sync(0xffffffff, 1.f, 16)"))
    env = {**os.environ, **ENV, "GIT_AUTHOR_DATE": "2026-01-05T10:00:00Z", "GIT_COMMITTER_DATE": "2026-01-05T10:00:00Z"}
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "k"]):
        subprocess.run(["git", "-C", str(r), *cmd], check=True, capture_output=True, env=env)
    head = subprocess.run(["git", "-C", str(r), "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()
    return r, head


def test_date_is_in_the_titles_only_when_asked(capsys, repo):
    r, head = repo
    line = f"porter 0.1.0 · branch main · commit {head[:12]}"
    base = ["--no-cache", "--jobs", "1"]
    code, md, _ = porter(capsys, "assess", str(r), *base, "-f", "md", "--date", "2026-12-01")
    assert code == 0 and md.splitlines()[:3] == ["# Porting assessment: proj", "", f"{line} · 2026-12-01"]
    code, md, _ = porter(capsys, "assess", str(r), *base, "-f", "md")
    assert md.splitlines()[2] == line  # no date unless asked: the same tree renders the same bytes
    code, page, _ = porter(capsys, "assess", str(r), *base, "-f", "html", "--date", "2026-12-01")
    assert f"<title>Porting assessment: proj — port · {line} · 2026-12-01</title>" in page
    assert f'<div class="meta" id="about">{line} · 2026-12-01</div>' in page
    code, text, _ = porter(capsys, "assess", str(r), *base, "--date", "2026-12-01")
    assert f"{line} · 2026-12-01" in text.splitlines()
    code, scan_md, _ = porter(capsys, "scan", str(r), *base, "-f", "md", "--date", "2026-12-01")
    assert code == 0 and scan_md.splitlines()[2] == f"{line} · 2026-12-01"
    code, hist, _ = porter(capsys, "history", str(r), *base, "-f", "md", "-q", "--date", "2026-12-01")
    assert code == 0 and hist.splitlines()[:3] == ["# Port burndown: proj", "", f"{line} · 2026-12-01"]
    before = dt.datetime.now(dt.timezone.utc).date().isoformat()
    code, md, _ = porter(capsys, "assess", str(r), *base, "-f", "md", "--date", "today")
    after = dt.datetime.now(dt.timezone.utc).date().isoformat()  # a run across midnight UTC may say either day
    assert md.splitlines()[2] in (f"{line} · {before}", f"{line} · {after}")
    assert porter(capsys, "assess", str(r), *base, "--date", "2026-13-01") == (
        2, "", "error: --date '2026-13-01': expected YYYY-MM-DD or 'today'\n")


def test_the_assess_json_carries_the_about_block_the_titles_show(capsys, repo):
    r, head = repo
    code, out, _ = porter(capsys, "assess", str(r), "--no-cache", "--jobs", "1", "-f", "json", "--date", "2026-12-01")
    assert code == 0
    doc = json.loads(out)
    assert list(doc)[:3] == ["schema", "tool", "about"]
    assert doc["about"] == {"name": "proj", "path": str(r), "commit": head, "branch": "main", "subdir": "",
                            "dirty": False, "version": "0.1.0", "date": "2026-12-01"}
    code, md, _ = porter(capsys, "assess", str(r), "--no-cache", "--jobs", "1", "-f", "md", "--date", "2026-12-01")
    a = doc["about"]
    assert md.splitlines()[2] == f"porter {a['version']} · branch {a['branch']} · commit {a['commit'][:12]} · {a['date']}"
    # scan's JSON is the findings contract: no assessment, no title, no about block
    code, out, _ = porter(capsys, "scan", str(r), "--no-cache", "--jobs", "1", "-f", "json")
    assert code == 0 and "about" not in json.loads(out)


@pytest.mark.parametrize("toml, message", [
    ('fail_on = "huge"', "fail_on: unknown severity 'huge' (expected one of: info, low, medium, high, blocker)"),
    ("max_file_size_mb = 0", "max_file_size_mb must be from 0.000001 to 4096, not 0"),
    ("jobs = -1", "jobs must be 0 (all cores) to 1024, not -1"),
    ('exclude = "vendor/"', "exclude must be a list, not str"),
    ('targetz = ["mi300x"]', "unknown key 'targetz' (known: cache, cuda_only, disable, effort, exclude, fail_on, "
                             "include, jobs, max_file_size_mb, rocm, rocm_macros, rules, targets)"),
])
def test_configuration_errors_name_the_key_not_a_flag(capsys, tmp_path, toml, message):
    (tmp_path / "k.cu").write_text(KERNEL)
    (tmp_path / "porter.toml").write_text(toml + "\n")
    code, out, err = porter(capsys, "scan", str(tmp_path), "--no-cache", "-q")
    assert (code, out, err) == (2, "", f"error: {tmp_path / 'porter.toml'}: {message}\n")
    assert "--" not in err


def test_quiet_is_one_line_whatever_the_width(capsys):
    # At 80 columns a -q line longer than the terminal stays one line: a script reads it with `head -1`.
    code, out, err = porter(capsys, "assess", str(CUDA_APP), "--no-cache", "--jobs", "1", "-q", "--target", "all")
    assert (code, err) == (0, "")
    assert out == ("Port (manual porting and retuning work): 2–3.5 engineer-days (likely 3), for AMD Instinct MI300X, "
                   "AMD Instinct MI325X, AMD Instinct MI350X, AMD Instinct MI355X, AMD Instinct MI455X "
                   "(pre-release).\n")
    code, out, err = porter(capsys, "scan", str(CUDA_APP), "--no-cache", "--jobs", "1", "-q")
    assert (code, err) == (0, "")
    assert out == ("153 findings (6 high, 12 medium, 3 low, 132 info); 11 files scanned, 10 files with findings; "
                   "8 kernels, 8 launch sites; 0 suppressed; 0 files skipped; 151 open (6 high, 11 medium, 3 low, 131 info), "
                   "1 handled (1 medium), 1 cuda-only (1 info); 10 files with open findings\n")
