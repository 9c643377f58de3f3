"""The scan pipeline end to end: JSON contract, suppressions, fingerprints, cache, parallelism, configuration."""
from __future__ import annotations

import json

import jsonschema
import pytest

from porter.settings import Settings
from porter.model import Severity
from porter.pipeline import scan
from tests.helpers import REPO, make_repo, porter_here, scan_json, write_files

SCHEMA = json.loads((REPO / "porter" / "schemas" / "scan.schema.json").read_text())

TWO_KERNELS = """\
__global__ void first(float* x) { x[0] = 1.f; }
// porter: ignore[KRN001] generated code, ported separately
__global__ void second(float* x) { x[0] = 2.f; }
__global__ void third(float* x) { x[0] = 3.f; }  // porter: ignore
"""


def test_json_output_follows_the_documented_schema_on_a_fixture_repository():
    doc = scan_json("fixtures/repos/cuda-app")
    jsonschema.validate(doc, SCHEMA)
    assert doc["root"] == "fixtures/repos/cuda-app"
    assert doc["files"]["scanned"] >= 10
    assert all(not f["path"].startswith("/") for f in doc["findings"])
    keys = [(f["path"], f["line"], f["column"], f["rule"]) for f in doc["findings"]]
    assert keys == sorted(keys)


def test_suppressions_hide_findings_but_count_them(tmp_path):
    (tmp_path / "k.cu").write_text(TWO_KERNELS)
    r = scan(tmp_path, Settings(jobs=1))
    assert [(f.rule, f.line) for f in r.findings if f.rule == "KRN001"] == [("KRN001", 1)]
    assert [(f.rule, f.line) for f in r.suppressed] == [("KRN001", 3), ("KRN001", 4)]
    assert r.summary()["suppressed"] == 2
    # Kernels are facts, not findings: suppression never hides them from the inventory.
    assert [k.name for k in r.kernels] == ["first", "second", "third"]


def test_suppression_in_a_string_does_not_count(tmp_path):
    (tmp_path / "k.cu").write_text('const char* s = "porter: ignore";\n__global__ void k(float* x) { x[0] = 0; }\n')
    r = scan(tmp_path, Settings(jobs=1))
    assert [(f.rule, f.line) for f in r.findings if f.rule == "KRN001"] == [("KRN001", 2)]


def test_fingerprints_survive_lines_moving(tmp_path):
    (tmp_path / "k.cu").write_text(TWO_KERNELS)
    before = {f.line: f.fingerprint for f in scan(tmp_path, Settings(jobs=1)).findings if f.rule == "KRN001"}
    (tmp_path / "k.cu").write_text("// a new header comment\n#include <cstdio>\n\n" + TWO_KERNELS)
    after = {f.line: f.fingerprint for f in scan(tmp_path, Settings(jobs=1)).findings if f.rule == "KRN001"}
    assert before[1] == after[4]
    assert len(before[1]) == 20


def test_a_finding_from_its_fields_is_the_one_its_constructor_makes():
    import copy
    import dataclasses
    import pickle

    from porter.model import Confidence, Finding, Status

    values = ("a.cu", 3, 5, "API001", 3, 15, "api", Severity.INFO, Confidence.HIGH, "cudaMalloc: rename", "x;",
              "f", "k", "0123456789abcdef0123", "hipMalloc", (("hip", "hipMalloc"),), Status.HANDLED, "a.cu:1")
    made, built = Finding(*values), Finding.from_fields(values)
    assert vars(built) == vars(made) and built == made and hash(built) == hash(made)
    assert [getattr(built, f.name) for f in dataclasses.fields(Finding)] == list(values)
    assert pickle.loads(pickle.dumps(built)) == made and copy.copy(built) == made
    assert dataclasses.replace(built, line=4) == dataclasses.replace(made, line=4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.line = 4


def test_warm_rescan_is_served_from_the_cache_and_identical(tmp_path):
    cache = tmp_path / "cache"
    src = REPO / "fixtures" / "repos" / "cuda-app"
    cold = scan(src, Settings(jobs=1, cache_dir=cache))
    warm = scan(src, Settings(jobs=1, cache_dir=cache))
    n = len(cold.files)
    assert cold.stats.cache_misses == n and cold.stats.cache_hits == 0
    assert warm.stats.cache_hits == n and warm.stats.cache_misses == 0
    assert warm.to_dict() == cold.to_dict()


def test_cache_reruns_only_changed_files_and_survives_corruption(tmp_path):
    cache = tmp_path / "cache"
    write_files(tmp_path / "src", {"a.cu": "__global__ void a(int* p) { *p = 1; }\n", "b.cu": "__global__ void b(int* p) { *p = 2; }\n"})
    scan(tmp_path / "src", Settings(jobs=1, cache_dir=cache))
    (tmp_path / "src" / "b.cu").write_text("__global__ void b2(int* p) { *p = 3; }\n")
    r = scan(tmp_path / "src", Settings(jobs=1, cache_dir=cache))
    assert (r.stats.cache_hits, r.stats.cache_misses) == (1, 1)
    assert [k.name for k in r.kernels] == ["a", "b2"]
    packs = sorted(cache.glob("*.pack"))
    assert len(packs) == 2  # one per scan that had misses: the first (two files), the second (b.cu)
    for pack in packs:
        pack.write_bytes(b"corrupt")
    r2 = scan(tmp_path / "src", Settings(jobs=1, cache_dir=cache))
    assert r2.stats.cache_misses == 2 and [k.name for k in r2.kernels] == ["a", "b2"]


def test_parallel_and_serial_scans_agree(monkeypatch):
    import porter.pipeline as pipeline
    from porter.budget import Pool

    src = REPO / "fixtures" / "repos"
    serial = scan(src, Settings(jobs=1))
    # The fixtures are too small for a second worker to pay for its fork (pipeline.pool_size): every byte is
    # made enough work for one here, so the facts and the scan really run in two workers each.
    monkeypatch.setattr(pipeline, "SCAN_BYTES_PER_WORKER", 1)
    monkeypatch.setattr(pipeline, "FACTS_BYTES_PER_WORKER", 1)
    sizes = []
    real = Pool.map
    monkeypatch.setattr(Pool, "map", lambda self, fn, *a, **k: sizes.append((fn.__name__, self.workers))
                        or real(self, fn, *a, **k))
    parallel = scan(src, Settings(jobs=2))
    assert len(serial.files) >= 16
    assert [s for s in sizes if s[0] in ("_facts_task", "_scan_one")] == [("_facts_task", 2), ("_scan_one", 2)]
    assert serial.to_dict() == parallel.to_dict()


def test_a_small_tree_is_scanned_by_one_worker_per_pool_whatever_the_cores(tmp_path, monkeypatch):
    from porter.budget import Pool

    write_files(tmp_path, {"a.cu": "__global__ void a(float* x) { x[0] = 1; }\n",
                           "b.cu": "__global__ void b(float* x) { x[0] = 2; }\n", "c.py": "import torch\n"})
    starts = []
    real = Pool._start
    monkeypatch.setattr(Pool, "_start", lambda self: starts.append(self.workers) or real(self))
    result = scan(tmp_path, Settings(jobs=4, cache_dir=None))
    assert [k.name for k in result.kernels] == ["a", "b"]
    assert starts == [1, 1]  # the repository facts' pool and the scan's, one worker each (it was two each)


def test_which_sources_cmake_compiles_as_cuda_is_answered_by_the_facts_worker(tmp_path, monkeypatch):
    from porter.budget import Pool

    write_files(tmp_path, {"a.cu": "__global__ void a(float* x) { x[0] = 1; }\n",
                           "k.kern": "__global__ void kern(float* x) { x[0] = 2; }\n",
                           "CMakeLists.txt": "project(x LANGUAGES CXX CUDA)\n"
                                             "set_source_files_properties(k.kern PROPERTIES LANGUAGE CUDA)\n"
                                             "add_library(k STATIC a.cu k.kern)\n"})
    starts, tasks = [], []
    real_start, real_map = Pool._start, Pool.map
    monkeypatch.setattr(Pool, "_start", lambda self: starts.append(1) or real_start(self))
    # the pools themselves are kept (not their ids: a closed pool's id may be a later pool's)
    monkeypatch.setattr(Pool, "map", lambda self, fn, *a, **k: tasks.append((fn.__name__, self))
                        or real_map(self, fn, *a, **k))
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    assert [k.name for k in result.kernels] == ["a", "kern"]  # k.kern read as CUDA: the CMake stage's answer
    # the first facts and the CMake stage in one pool (one worker); then k.kern's facts, and the facts again with
    # it among the files, in pools of their own, and the scan
    # (then the unreferenced-functions pass, porter.match.refine_unreferenced, in an inherited worker of its own)
    assert [name for name, _ in tasks] == ["_facts_task", "_cmake_task", "_facts_task", "_facts_task", "_scan_one",
                                           "_inherited_task"]
    pools = [pool for _, pool in tasks]
    assert pools[0] is pools[1] and len({id(pool) for pool in pools[1:]}) == 5
    assert len(starts) == 5  # 4 before the unreferenced pass (it was 5: the CMake stage forked a worker of its own)


def test_pool_size_gives_a_worker_per_share_of_the_work():
    from porter.pipeline import pool_size

    assert pool_size(8, [100] * 10, 1000) == 1  # 1,000 bytes: one worker's share
    assert pool_size(8, [100] * 30, 1000) == 3
    assert pool_size(2, [100] * 30, 1000) == 2  # never more than --jobs
    assert pool_size(8, [5000] * 2, 1000) == 2  # never more than the tasks
    assert pool_size(8, [], 1000) == 1


def test_fail_on_sets_exit_code_1_only_at_or_above_threshold(tmp_path):
    (tmp_path / "k.cu").write_text("__global__ void k(float* x) { x[0] = 0; }\n")
    assert porter_here("scan", str(tmp_path), "--no-cache", "-q", "--fail-on", "info").returncode == 1
    assert porter_here("scan", str(tmp_path), "--no-cache", "-q", "--fail-on", "blocker").returncode == 0
    bad = porter_here("scan", str(tmp_path), "--no-cache", "--fail-on", "severe")
    assert bad.returncode == 2 and "unknown severity 'severe'" in bad.stderr


def test_quiet_prints_one_summary_line(tmp_path):
    (tmp_path / "k.cu").write_text("__global__ void k(float* x) { x[0] = 0; }\n")
    p = porter_here("scan", str(tmp_path), "--no-cache", "-q")
    assert p.returncode == 0
    assert p.stdout.strip().splitlines()[-1].startswith("1 finding (1 info); 1 file scanned, 1 file with findings; 1 kernel, 0 launch sites")


def test_config_from_closest_porter_toml_wins_over_pyproject(tmp_path):
    repo = make_repo(tmp_path / "r", {
        "pyproject.toml": '[tool.porter]\nexclude = ["vendor/"]\n',
        "vendor/v.cu": "__global__ void v(int* p) {}\n",
        "sub/porter.toml": 'exclude = ["skip/"]\n',
        "sub/skip/s.cu": "__global__ void s(int* p) {}\n",
        "sub/vendor/w.cu": "__global__ void w(int* p) {}\n",
    })
    top = scan_json(str(repo))
    # gitignore semantics: `vendor/` excludes a vendor directory at any depth
    assert [k["name"] for k in top["kernels"]] == ["s"]
    sub = scan_json(str(repo / "sub"))
    assert [k["name"] for k in sub["kernels"]] == ["w"]


def test_malformed_config_is_a_usage_error_naming_file_and_key(tmp_path):
    write_files(tmp_path, {"porter.toml": "exclude = 3\n", "k.cu": "__global__ void k(int* p) {}\n"})
    p = porter_here("scan", str(tmp_path), "--no-cache")
    assert p.returncode == 2
    assert "porter.toml: exclude must be a list, not int" in p.stderr
    (tmp_path / "porter.toml").write_text("colour = 'red'\n")
    p = porter_here("scan", str(tmp_path), "--no-cache")
    assert p.returncode == 2 and "unknown key 'colour'" in p.stderr
    (tmp_path / "porter.toml").write_text("exclude = [\n")
    p = porter_here("scan", str(tmp_path), "--no-cache")
    assert p.returncode == 2 and "not valid TOML" in p.stderr


def test_malformed_rule_file_stops_with_file_and_field(tmp_path):
    rules = tmp_path / "myrules"
    rules.mkdir()
    (rules / "XYZ001-bad.yaml").write_text("id: XYZ001\ntitle: a bad rule\ncategory: kernel\nseverity: severe\n")
    write_files(tmp_path, {"porter.toml": 'rules = ["myrules"]\n', "k.cu": "int x;\n"})
    p = porter_here("scan", str(tmp_path), "--no-cache")
    assert p.returncode == 2
    assert "XYZ001-bad.yaml: (top level): 'confidence' is a required property" in " ".join(p.stderr.split())


def test_extra_rules_from_config_are_used(tmp_path):
    rule = (REPO / "rules" / "kernel" / "KRN001-kernel-definition.yaml").read_text()
    rules = tmp_path / "myrules"
    rules.mkdir()
    (rules / "USR001-any-malloc.yaml").write_text(
        rule.replace("id: KRN001", "id: USR001").replace("  - kernel: {}", "  - identifiers: [malloc]")
        .replace("Kernel {name} is defined here", "malloc call {name}"))
    write_files(tmp_path, {"porter.toml": 'rules = ["myrules"]\n', "k.cu": "void f() { void* p = malloc(4); }\n"})
    doc = scan_json(str(tmp_path))
    assert [(f["rule"], f["line"], f["message"][:13]) for f in doc["findings"]] == [("USR001", 1, "malloc call m")]


def test_rules_explain_and_list():
    p = porter_here("rules", "explain", "krn001")
    assert p.returncode == 0
    out = p.stdout
    for heading in ("KRN001: CUDA kernel definition (__global__)", "What it does", "Why is this bad", "Use instead",
                    f"Defined in {REPO / 'rules' / 'kernel' / 'KRN001-kernel-definition.yaml'}"):
        assert heading in out
    assert porter_here("rules", "explain", "NOP999").returncode == 2
    listing = json.loads(porter_here("rules", "list", "--format", "json").stdout)
    ids = [r["id"] for r in listing["rules"]]
    assert ids == sorted(ids) and "KRN001" in ids
    assert listing["categories"]["kernel"]["with_fixture"] == listing["categories"]["kernel"]["rules"]


def test_severity_threshold_order():
    assert Severity.parse("Blocker") > Severity.HIGH > Severity.MEDIUM > Severity.LOW > Severity.INFO


def test_kernel_hidden_by_a_macro_from_another_header_is_found(tmp_path):
    write_files(tmp_path, {
        "include/macros.cuh": "#pragma once\n#define KERNEL_ENTRY __global__ __launch_bounds__(256)\n#define DEV __device__\n",
        "src/k.cu": '#include "../include/macros.cuh"\nDEV float twice(float v) { return 2 * v; }\n'
                    "KERNEL_ENTRY void saxpy(float a, float* x) { x[threadIdx.x] *= twice(a); }\n",
    })
    r = scan(tmp_path, Settings(jobs=1))
    assert [(k.path, k.line, k.name, k.via_macro) for k in r.kernels] == [("src/k.cu", 3, "saxpy", "KERNEL_ENTRY")]


def test_attributes_tree_sitter_cannot_parse_do_not_hide_kernels(tmp_path):
    (tmp_path / "k.cu").write_text(
        "__global__ void __cluster_dims__(2, 1, 1) clustered(float* x) { x[0] = 1; }\n"
        "struct __align__(16) V { float a, b, c, d; };\n"
        "__global__ void plain(V* v) { v[0].a = 0; }\n")
    r = scan(tmp_path, Settings(jobs=1))
    assert [(k.name, k.line) for k in r.kernels] == [("clustered", 1), ("plain", 3)]


def test_cache_key_follows_porters_own_code():
    from porter.pipeline import code_digest

    assert len(code_digest()) == 16 and code_digest() == code_digest()


def test_hash_comment_suppressions_in_python_dockerfile_and_cmake(tmp_path):
    write_files(tmp_path, {
        "tool.py": 'import subprocess\n# porter: ignore[PYT006] only on NVIDIA CI\nsubprocess.run(["nvidia-smi"])\n'
                   'subprocess.run(["nvidia-smi", "-L"])\n',
        "Dockerfile": "# porter: ignore[CTR001] the CUDA image is for the NVIDIA lane\n"
                      "FROM nvidia/cuda:12.4.0-devel-ubuntu22.04\nFROM nvidia/cuda:12.4.0-runtime-ubuntu22.04 AS run\n",
        # A trailing suppression covers its own line only, never the finding on the next line.
        "CMakeLists.txt": "cmake_minimum_required(VERSION 3.24)\nproject(x LANGUAGES CXX CUDA) # porter: ignore[BLD001]\n"
                          "enable_language(CUDA)\n",
    })
    r = scan(tmp_path, Settings(jobs=1))
    assert [(f.rule, f.path, f.line) for f in r.findings] == [
        ("BLD001", "CMakeLists.txt", 3), ("CTR001", "Dockerfile", 3), ("PYT006", "tool.py", 4)]
    assert [(f.rule, f.path, f.line) for f in r.suppressed] == [
        ("BLD001", "CMakeLists.txt", 2), ("CTR001", "Dockerfile", 2), ("PYT006", "tool.py", 3)]


def test_huge_embedded_byte_table_is_cheap_and_still_reported(tmp_path):
    rows = ",".join(f"0x{(i * 37) % 256:02x}" for i in range(12)) + ",\n"
    text = "// generated\nstatic const unsigned char kernel_sm80_cubin[] = {\n" + rows * 20_000 + "0x00};\nint after = 1;\n"
    (tmp_path / "blob.cpp").write_text(text)
    r = scan(tmp_path, Settings(jobs=1))
    assert [(f.rule, f.line) for f in r.findings] == [("BIN003", 2)]
    assert r.files[0].lines == 20_004 and r.files[0].parse_error_lines == 0


def test_the_repositorys_own_python_package_is_not_a_library_dependency(tmp_path):
    write_files(tmp_path, {
        "xformers/__init__.py": "", "xformers/ops/__init__.py": "",
        "xformers/a.py": "from xformers.ops import x\nimport xformers.cute\nimport pycuda\n",
        "bench.py": "import xformers\n",
    })
    r = scan(tmp_path, Settings(jobs=1))
    assert [(f.rule, f.path, f.line) for f in r.findings] == [("LIB008", "xformers/a.py", 3)]
    # Elsewhere xformers is a dependency with a ROCm build.
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "use.py").write_text("import xformers\n")
    r = scan(tmp_path / "other", Settings(jobs=1))
    assert [(f.rule, f.line) for f in r.findings] == [("LIB007", 1)]


def test_kernels_declared_through_a_function_like_macro_are_found(tmp_path):
    write_files(tmp_path, {
        "kernel_traits.h": "#define DEFINE_FLASH_FORWARD_KERNEL(kernelName, ...) \\\n"
                           "template<typename Kernel_traits, __VA_ARGS__> \\\n"
                           "__global__ void kernelName(const Flash_fwd_params params)\n",
        "fwd.cu": '#include "kernel_traits.h"\n'
                  "DEFINE_FLASH_FORWARD_KERNEL(flash_fwd_kernel, bool Is_dropout, bool Is_causal) {\n"
                  "    int lane = threadIdx.x % 32; unsigned v = __ballot_sync(0xffffffff, lane == 0);\n}\n"  # warp work: % 32 counts
                  "void run(Flash_fwd_params p) { flash_fwd_kernel<<<1, 128>>>(p); }\n",
    })
    r = scan(tmp_path, Settings(jobs=1))
    assert [(k.path, k.name, k.line, k.end_line, k.via_macro) for k in r.kernels] == [
        ("fwd.cu", "flash_fwd_kernel", 2, 4, "DEFINE_FLASH_FORWARD_KERNEL")]
    assert [(f.rule, f.line, f.kernel) for f in r.findings if f.rule in ("KRN001", "DEV011")] == [
        ("KRN001", 2, "flash_fwd_kernel"), ("DEV011", 3, "flash_fwd_kernel")]
    assert [l.kernel for l in r.launches_of(r.kernels[0])] == ["flash_fwd_kernel"]


def test_cached_rule_set_follows_every_rule_file(tmp_path):
    from porter.pipeline import load_rules_cached

    rule = (REPO / "rules" / "kernel" / "KRN001-kernel-definition.yaml").read_text()
    extra = tmp_path / "USR001-mine.yaml"
    extra.write_text(rule.replace("id: KRN001", "id: USR001").replace("severity: info", "severity: low"))
    from porter.cache import Cache

    cache = Cache(tmp_path / "cache")
    cache.check()
    first = load_rules_cached([extra], cache)
    assert first.get("USR001").severity == Severity.LOW
    assert load_rules_cached([extra], cache).digest == first.digest  # served from the cache
    extra.write_text(rule.replace("id: KRN001", "id: USR001").replace("severity: info", "severity: high"))
    assert load_rules_cached([extra], cache).get("USR001").severity == Severity.HIGH
    extra.write_text(rule.replace("id: KRN001", "id: USR001").replace("severity: info", "severity: severe"))
    from porter.rules import RuleError

    with pytest.raises(RuleError, match="severity"):
        load_rules_cached([extra], cache)


def test_warm_parallel_scan_is_served_entirely_from_the_cache(tmp_path):
    src = REPO / "fixtures" / "repos"
    cache = tmp_path / "cache"
    scan(src, Settings(jobs=2, cache_dir=cache))
    warm = scan(src, Settings(jobs=2, cache_dir=cache))
    assert warm.stats.cache_misses == 0 and warm.stats.cache_hits == len(warm.files)


def test_columns_count_characters_not_bytes(tmp_path):
    (tmp_path / "u.cu").write_text('void f(){ const char* s = "é"; int é2 = 0; cudaMalloc(0, 4); }\n', encoding="utf-8")
    r = scan(tmp_path, Settings(jobs=1))
    [f] = [f for f in r.findings if f.rule == "API001"]
    line = (tmp_path / "u.cu").read_text(encoding="utf-8")
    assert (f.column, f.end_column) == (line.index("cudaMalloc") + 1, line.index("cudaMalloc") + 1 + len("cudaMalloc"))


def test_launches_link_to_the_kernel_of_their_own_file_and_all_are_listed(tmp_path):
    write_files(tmp_path, {
        "a.cu": "__global__ void k(int* p) { *p = 1; }\nvoid run_a(int* p) { k<<<1, 1>>>(p); }\n",
        "b.cu": "__global__ void k(int* p) { *p = 2; }\nvoid run_b(int* p) { k<<<2, 2>>>(p); }\n",
        "c.cu": "void run_c(int* p) { k<<<3, 3>>>(p); other_kernel<<<1, 64>>>(p); }\n",
    })
    doc = scan(tmp_path, Settings(jobs=1)).to_dict()
    jsonschema.validate(doc, SCHEMA)
    linked = {(k["path"], k["name"]): [(l["path"], l["line"]) for l in k["launches"]] for k in doc["kernels"]}
    # c.cu defines no `k`, so its launch may be either definition's; a.cu's and b.cu's launches are their own.
    assert linked == {("a.cu", "k"): [("a.cu", 2), ("c.cu", 1)], ("b.cu", "k"): [("b.cu", 2), ("c.cu", 1)]}
    assert [(l["path"], l["kernel"]) for l in doc["launches"]] == [
        ("a.cu", "k"), ("b.cu", "k"), ("c.cu", "k"), ("c.cu", "other_kernel")]
