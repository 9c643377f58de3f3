"""Bad and hostile input ends in bounded time and memory with a clear message (issue 16): special files named as
data, alias bombs, catastrophic regexes in repository rules, huge lines and files, a file that runs past its CPU
budget, rules that hit everything, thousands of globs. A file that trips a limit is listed under `skipped` with its
reason and the scan goes on."""
from __future__ import annotations

import json
import os
import resource
import struct
import subprocess
import time
from pathlib import Path

import pytest

from helpers import make_repo, porter_here, write_files
from porter.datafile import MAX_DATA_FILE_BYTES
from porter.errors import DataFileError
from porter.estimate.effort_model import load_effort_model
from porter.match.engine import MAX_HITS_PER_RULE
from porter.pipeline import MAX_LINES, scan
from porter.rules import RuleError, load_rule, load_rules
from porter.settings import Settings
from porter.source.discover import selected

KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n"
BOMB = "\n".join(['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
                 + [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]) + "\n"


def rule_yaml(rid: str, pattern: str, languages: str = "[cuda]") -> str:
    return f"""id: {rid}
title: a repository rule
category: api
severity: info
confidence: high
languages: {languages}
patterns:
{pattern}
message: "hit {{name}}"
docs: {{what: w, why: y, instead: i, example: e}}
hip_equivalent: {{kind: none}}
effort: {{size: none, per: hit}}
"""


def porter(*args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    """The CLI in this process, in this process's environment, with the test's timeout (SIGALRM)."""
    return porter_here(*args, timeout=timeout, replace_env=True, env=dict(os.environ))


def skipped(result) -> dict[str, str]:
    return {s.path: s.reason for s in result.skipped}


class Budget:
    """CPU seconds and peak memory of this process across a block (what a test of a bound can assert)."""

    def __enter__(self):
        self.cpu0 = time.process_time()
        return self

    def __exit__(self, *exc):
        self.cpu = time.process_time() - self.cpu0
        self.peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# -- special files, anywhere ---------------------------------------------------------------------------------------

def test_a_fifo_or_device_given_as_rules_or_effort_is_refused_without_reading(tmp_path):
    os.mkfifo(tmp_path / "XRL900-pipe.yaml")
    with pytest.raises(RuleError, match=r"XRL900-pipe.yaml: <file>: cannot read: not a regular file"):
        load_rules(extra=[tmp_path / "XRL900-pipe.yaml"])
    with pytest.raises(DataFileError, match=r"/dev/zero: <file>: cannot read: not a regular file"):
        load_effort_model(Path("/dev/zero"))


def test_a_data_file_past_the_byte_cap_is_refused(tmp_path):
    big = tmp_path / "effort.yaml"
    big.write_bytes(b"#" * (MAX_DATA_FILE_BYTES + 1))
    with pytest.raises(DataFileError, match=r"cannot read: file is 4\.0 MiB, over the 4 MiB limit"):
        load_effort_model(big)


def test_a_fifo_in_the_scanned_tree_is_skipped(tmp_path):
    write_files(tmp_path, {"k.cu": KERNEL})
    os.mkfifo(tmp_path / "pipe.cu")
    result = scan(tmp_path, Settings(jobs=1))
    assert skipped(result) == {"pipe.cu": "not a regular file"}
    assert [k.name for k in result.kernels] == ["k"]


# -- YAML aliases --------------------------------------------------------------------------------------------------

def test_a_billion_laughs_yaml_in_the_tree_is_skipped_quickly(tmp_path):
    write_files(tmp_path, {"bomb.yaml": BOMB, "k.cu": KERNEL})
    with Budget() as b:
        result = scan(tmp_path, Settings(jobs=1))
    assert skipped(result) == {
        "bomb.yaml": "YAML aliases expand to more nodes than the file could hold written out (an alias bomb?)"}
    assert [k.name for k in result.kernels] == ["k"]
    assert b.cpu < 20 and b.peak_mib < 1024


def test_ordinary_yaml_aliases_in_the_tree_still_scan(tmp_path):
    compose = "x-gpu: &gpu\n  runtime: nvidia\nservices:\n  a: *gpu\n  b: *gpu\n"
    write_files(tmp_path, {"docker-compose.yml": compose})
    assert skipped(scan(tmp_path, Settings(jobs=1))) == {}


@pytest.mark.parametrize("where", ["rule", "effort"])
def test_a_yaml_bomb_as_a_rule_or_effort_override_is_refused(tmp_path, where):
    path = tmp_path / ("XRL901-bomb.yaml" if where == "rule" else "effort.yaml")
    path.write_text(BOMB)
    message = r"<file>: uses YAML aliases \(\*name\), which data files may not \(write the value out\)"
    with pytest.raises(DataFileError, match=message):
        load_rules(extra=[path]) if where == "rule" else load_effort_model(path)


# -- regexes from outside porter -----------------------------------------------------------------------------------

def test_a_catastrophic_regex_in_a_repository_rule_runs_in_linear_time(tmp_path):
    rules = tmp_path / "rules"
    write_files(rules, {"XRL902-bad.yaml": rule_yaml("XRL902", "  - regex: '(a+)+b'")})
    write_files(tmp_path / "src", {"a.cu": "a" * 20000 + "!\n" + "aaab\n"})
    with Budget() as b:
        result = scan(tmp_path / "src", Settings(jobs=1, extra_rules=(rules,)))
    assert [(f.rule, f.line) for f in result.findings if f.rule == "XRL902"] == [("XRL902", 2)]
    assert b.cpu < 20


@pytest.mark.parametrize("pattern, problem", [
    ("  - regex: '(a+)+$'", "patterns.0.regex: uses `$` without the multiline flag"),
    ("  - regex: '(?<!x)cuda'", "patterns.0.regex: not supported by the linear-time engine (RE2): invalid perl operator: (?<!"),
    ("  - regex: '(a)\\1'", "patterns.0.regex: not supported by the linear-time engine (RE2): invalid escape sequence: \\1"),
])
def test_a_repository_rule_regex_the_linear_engine_cannot_run_is_refused_at_load(tmp_path, pattern, problem):
    path = tmp_path / "XRL903-r.yaml"
    path.write_text(rule_yaml("XRL903", pattern))
    with pytest.raises(RuleError) as e:
        load_rule(path)
    assert problem in str(e.value)


def test_a_bad_key_matches_regex_is_refused_at_rule_load(tmp_path):
    path = tmp_path / "XRL904-k.yaml"
    path.write_text(rule_yaml("XRL904", "  - key: {path: a, matches: '(unclosed'}", "[yaml]"))
    with pytest.raises(RuleError, match=r"XRL904-k.yaml: patterns.0.key.matches: bad regular expression: "
                                         r"missing \), unterminated subpattern at position 0"):
        load_rule(path)
    repo = make_repo(tmp_path / "r", {"rules/XRL904-k.yaml": path.read_text(), "porter.toml": 'rules = ["rules"]\n',
                                      "k.cu": KERNEL})
    p = porter("scan", str(repo), "--no-cache", "-q")
    assert p.returncode == 2
    assert "XRL904-k.yaml: patterns.0.key.matches: bad regular expression: missing ), unterminated" in p.stderr


def test_porters_own_rules_keep_lookaround(tmp_path):
    """Shipped rules may use what only Python's engine has; they are reviewed, and loading them stays strict."""
    assert any("(?<" in p.get("regex", "") for r in load_rules().rules for p in r.patterns)


# -- huge lines, huge files, budgets -------------------------------------------------------------------------------

def test_one_long_line_with_many_hits_is_linear_and_capped(tmp_path):
    line = "int x = cudaMalloc(a) + b; " * 40000  # ~1 MiB on one line, 40,000 hits of API001
    write_files(tmp_path, {"a.cpp": line + "\n"})
    with Budget() as b:
        result = scan(tmp_path, Settings(jobs=1))
    api = [f for f in result.findings if f.rule == "API001"]
    assert len(api) == MAX_HITS_PER_RULE + 1
    assert api[-1].message == (f"{40000 - MAX_HITS_PER_RULE} more hits of API001 in this file are not listed "
                               f"(at most {MAX_HITS_PER_RULE} per rule and file)")
    assert all(len(f.snippet) == 200 for f in api)
    assert b.cpu < 30


def test_a_rule_that_matches_every_byte_is_capped(tmp_path):
    rules = tmp_path / "rules"
    write_files(rules, {"XRL905-all.yaml": rule_yaml("XRL905", "  - regex: '.'\n    in: any")})
    write_files(tmp_path / "src", {"a.cu": ("x" * 99 + "\n") * 2000})
    result = scan(tmp_path / "src", Settings(jobs=1, extra_rules=(rules,)))
    hits = [f for f in result.findings if f.rule == "XRL905"]
    assert len(hits) == MAX_HITS_PER_RULE + 1
    assert hits[-1].message.startswith("197000 more hits of XRL905 in this file are not listed")


def test_dead_copies_do_not_use_up_the_cap_ahead_of_a_live_hit(tmp_path):
    """The cap counts hits refine keeps: 1,001 inline-PTX lines under `#if 0` ahead of one live line would fill it,
    the live line would be over it, and its "not listed" note (anchored in the dead block) dropped with the dead hits
    — a PR gate passing on live PTX (session-26 attacker)."""
    dead = "".join('asm volatile("bar.sync 0;");\n' for _ in range(1001))
    write_files(tmp_path, {"a.cu": f"#if 0\n{dead}#endif\n__global__ void evil(float *x) {{ asm volatile(\"bar.sync 0;\"); }}\n"})
    ptx = [(f.line, f.severity.name.lower(), f.message[:20]) for f in scan(tmp_path, Settings(jobs=1)).findings
           if f.rule == "DEV001"]
    assert ptx == [(1004, "high", "Inline PTX assembly:")]


def test_past_the_cap_the_note_counts_live_hits_only(tmp_path):
    dead = "".join('asm volatile("bar.sync 0;");\n' for _ in range(5))
    live = "".join(f'__device__ void f{i}() {{ asm volatile("bar.sync 0;"); }}\n' for i in range(MAX_HITS_PER_RULE + 3))
    write_files(tmp_path, {"a.cu": f"#if 0\n{dead}#endif\n{live}"})
    ptx = [f for f in scan(tmp_path, Settings(jobs=1)).findings if f.rule == "DEV001"]
    assert len(ptx) == MAX_HITS_PER_RULE + 1 and ptx[0].line == 8
    assert (ptx[-1].line, ptx[-1].message) == (8 + MAX_HITS_PER_RULE, f"3 more hits of DEV001 in this file are not "
                                               f"listed (at most {MAX_HITS_PER_RULE} per rule and file)")


def test_a_file_past_its_cpu_budget_is_skipped_and_the_scan_goes_on(tmp_path):
    write_files(tmp_path, {"big.py": "x = f(y)\n" * 200000, "k.cu": KERNEL})
    result = scan(tmp_path, Settings(jobs=1, file_seconds=1))
    assert skipped(result) == {"big.py": "took longer than 1 s to scan; skipped (a generated or pathological file?)"}
    assert [k.name for k in result.kernels] == ["k"]


@pytest.mark.parametrize("name", ["many.cu", "many.py"])
def test_many_short_lines_scan_in_linear_time(tmp_path, name):
    write_files(tmp_path, {name: "x;\n" * 300000})
    with Budget() as b:
        result = scan(tmp_path, Settings(jobs=1))
    assert skipped(result) == {} and result.files[0].lines == 300000
    assert b.cpu < 30


# -- repository config and globs -----------------------------------------------------------------------------------

def test_thousands_of_exclude_globs_match_in_one_pass():
    globs = [f"dir{i}/**" for i in range(3000)] + ["*.bak"]
    start = time.process_time()
    kept = [selected(f"src/a{i}.cu", None, globs) for i in range(3000)]
    assert all(kept) and not selected("dir7/x.cu", None, globs) and not selected("a/b.bak", None, globs)
    assert time.process_time() - start < 5


def test_pyproject_without_tool_porter_is_no_config(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL, "pyproject.toml": "[project]\nname = 'x'\n"})
    p = porter("scan", str(repo), "--format", "json", "--no-cache")
    assert p.returncode in (0, 1), p.stderr
    assert "k" in [k["name"] for k in json.loads(p.stdout)["kernels"]]


def test_a_deeply_nested_safetensors_header_is_skipped_not_an_internal_error(tmp_path):
    header = ('{"a":' * 3000 + "1" + "}" * 3000).encode()
    write_files(tmp_path, {"m.safetensors": struct.pack("<Q", len(header)) + header})
    result = scan(tmp_path, Settings(jobs=1))
    assert skipped(result) == {"m.safetensors": "malformed safetensors header: nested too deeply to read"}


def test_a_deeply_nested_toml_in_the_tree_is_not_an_internal_error(tmp_path):
    write_files(tmp_path, {"pyproject.toml": "[tool.x]\na = " + "[" * 5000 + "]" * 5000 + "\n",
                           "config.toml": "a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n"})
    result = scan(tmp_path, Settings(jobs=1))
    assert not any("internal error" in r for r in skipped(result).values()), skipped(result)


def test_huge_shared_array_sizes_are_not_an_internal_error(tmp_path):
    write_files(tmp_path, {"s.cu": "__global__ void k() { __shared__ float x[99999999999999999999999999]; "
                                   "__shared__ char y[1ull << 62][1ull << 62]; x[0] = y[0][0]; }\n"})
    result = scan(tmp_path, Settings(jobs=1))
    assert skipped(result) == {} and [k.name for k in result.kernels] == ["k"]


def test_a_file_of_more_lines_than_any_source_is_skipped_before_parsing(tmp_path):
    write_files(tmp_path, {"gen.cu": "\n" * (MAX_LINES + 1), "k.cu": KERNEL})
    with Budget() as b:
        result = scan(tmp_path, Settings(jobs=1))
    assert skipped(result) == {"gen.cu": "has more than 1,000,000 lines (generated?); skipped"}
    assert [k.name for k in result.kernels] == ["k"]
    assert b.cpu < 10


def test_many_tiny_lines_across_file_kinds_scan_in_linear_time(tmp_path):
    n = 25000
    write_files(tmp_path, {
        "a.cu": "x;\n" * n, "a.py": "x\n" * n, "CMakeLists.txt": "set(A 1)\n" * n, "Dockerfile": "FROM x\n" + "RUN a\n" * n,
        "a.yaml": "".join(f"k{i}: 1\n" for i in range(n)), "a.json": "[" + ",\n".join(["1"] * n) + "]\n",
        "a.toml": "".join(f"k{i} = 1\n" for i in range(n)), "requirements.txt": "torch\n" * n})
    with Budget() as b:
        result = scan(tmp_path, Settings(jobs=1))
    assert skipped(result) == {} and sum(f.lines for f in result.files) == 8 * n + 1
    assert b.cpu < 30


BACKTRACKING_GLOB = "*a*a*a*a*a*a*a*a*a*a*a*b"  # as a backtracking regex: 30 characters take seconds, 40 hang


def test_a_backtracking_gitignore_line_or_exclude_glob_does_not_hang_a_walk(tmp_path):
    name = "a" * 200 + ".cu"
    write_files(tmp_path, {".gitignore": BACKTRACKING_GLOB + "\n", name: KERNEL, "sub/" + name: KERNEL})
    with Budget() as b:
        result = scan(tmp_path, Settings(jobs=1, exclude=(BACKTRACKING_GLOB, "sub/" + BACKTRACKING_GLOB)))
    assert sorted(f.path for f in result.files) == [name, "sub/" + name]
    assert b.cpu < 10
