"""Kernel analysis on fixtures/kernels: exact facts, the verdict per target written next to each kernel, nvcc builds."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from porter.settings import Settings
from porter.kernels.constfold import Unknown, build_constants, fold_text
from porter.kernels.checks import kernel_checks
from porter.kernels.launch_config import config_slots
from porter.kernels.verdicts import analyse
from porter.model.kernel import (CheckResult, InlinePtx, Kernel, KernelFacts, LaunchBounds, LaunchConfig, SharedArray,
                                 SharedMemory, TargetVerdict, Unresolved, WarpOp)
from porter.source.parse import parse
from porter.pipeline import scan

from conftest import FIXTURES, REPO
from helpers import NEEDS

KERNELS_DIR = FIXTURES / "kernels"
TARGET_IDS = ("mi300x", "mi325x", "mi350x", "mi355x", "mi455x")
_EXPECT = re.compile(r"//\s*expect:\s*(.*)$")
_REASONS = re.compile(r"//\s*reasons:\s*(.*)$")
_KERNEL_NAME = re.compile(r"__global__\s+.*?(\w+)\s*\(")


def annotated() -> dict[str, tuple[dict[str, str], set[str]]]:
    """{kernel name: ({target: verdict}, {reason ids})} from the `// expect:` / `// reasons:` comments."""
    out = {}
    for path in sorted(KERNELS_DIR.glob("*.cu")):
        pending_expect, pending_reasons = None, None
        for line in path.read_text().splitlines():
            if m := _EXPECT.search(line):
                pending_expect = dict(pair.split("=") for pair in m.group(1).split())
                continue
            if m := _REASONS.search(line):
                pending_reasons = {r.strip() for r in m.group(1).split(",") if r.strip()}
                continue
            if pending_expect is not None and "__global__" in line:
                name = _KERNEL_NAME.search(re.sub(r"__launch_bounds__\([^)]*\)", "", line)).group(1)
                out[name] = (pending_expect, pending_reasons or set())
                pending_expect, pending_reasons = None, None
    return out


EXPECTED = annotated()


@pytest.fixture(scope="module")
def analysed():
    result = scan(KERNELS_DIR, Settings(jobs=1, cache_dir=None))
    return analyse(result, ["all"])


def kernel(result, name) -> Kernel:
    (k,) = [k for k in result.kernels if k.name == name]
    return k


def test_fixtures_cover_every_verdict_on_every_target():
    assert len(EXPECTED) >= 10
    for tid in TARGET_IDS:
        seen = {exp[tid] for exp, _ in EXPECTED.values()}
        assert seen == {"ok", "check", "retune", "fix", "rewrite"}, f"{tid} lacks {set(('ok', 'check', 'retune', 'fix', 'rewrite')) - seen}"


def test_every_kernel_is_annotated(analysed):
    assert {k.name for k in analysed.kernels} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_verdicts_match_annotations(analysed, name):
    want, reasons = EXPECTED[name]
    k = kernel(analysed, name)
    got = {tid: k.verdict_on(tid).verdict for tid in TARGET_IDS}
    assert got == want
    fired = {r for tid in TARGET_IDS for r in k.verdict_on(tid).reasons}
    assert fired == reasons


def test_same_kernel_differs_by_target(analysed):
    k = kernel(analysed, "block_sum")
    # a logical 32-lane warp (down shuffles from 16, read at lane 0): the 32-bit masks are its only wave64 fault
    assert k.verdict_on("mi300x").reasons == ("wave64-full-mask",)
    # wave32: the 32 lanes are right, only the 32-bit mask type (HIP's static_assert) needs changing.
    assert (k.verdict_on("mi455x").verdict, k.verdict_on("mi455x").reasons) == ("fix", ("mask-32bit-type",))
    assert [v.target for v in k.verdicts] == list(TARGET_IDS)
    big = kernel(analysed, "big_tile")
    assert big.verdict_on("mi300x").details == (
        CheckResult("lds-over-limit", "fix", "96 KiB of shared memory > 64 KiB LDS on AMD Instinct MI300X", ()),)
    assert big.verdict_on("mi355x").verdict == "ok"


FACTS = {
    "saxpy": {"launch_sites": [("elementwise.cu", 30, None, (256, 1, 1), 0)], "shared_static": 0},
    "scale_rows": {"launch_sites": [("elementwise.cu", 32, None, (16, 6, 1), 0)]},
    "odd_block": {"launch_sites": [("elementwise.cu", 33, None, (100, 1, 1), 0)]},
    "block_sum": {
        "shared_static": 128, "device_functions": ["warp_sum"], "masks": ("0xffffffff",), "atomics": ("atomicAdd",),
        "lane": [(5, "reduction loop from 16"), (17, "% 32"), (18, "/ 32"), (24, "/ 32"), (24, "array[32] indexed by lane")],
        "launch_sites": [("warp_reduce.cu", 38, None, (512, 1, 1), 0)],
    },
    "count_positive": {"masks": ("0xffffffffu",), "lane": [(34, "& 31")], "ballot": [(33, "unsigned", "__ballot_sync")]},
    "transpose": {"shared_static": 4608, "arrays": [("tile", "float4", (16, 17), 4352), ("scales", "__half2", (64,), 256)],
                  "launch_sites": [("shared_tiles.cu", 51, None, (16, 16, 1), 0)]},
    "big_tile": {"shared_static": 0, "dynamic": ((98304,), 98304), "total": 98304},
    "huge_tile": {"dynamic": ((204800,), 204800), "total": 204800,
                  "launch_sites": [("shared_tiles.cu", 55, (1, 1, 1), (1024, 1, 1), 204800)]},
    # The launch `stage<float, 128>` binds T and N: 128 floats.
    "stage": {"shared_static": 512, "template": ["typename T", "int N"], "unknown": []},
    "persistent_copy": {"sm_count_grid": (32,)},
    "h100_persistent": {"sm_count_grid": (57,)},
    "h100_persistent_var": {"sm_count_grid": (59,)},
    "plain_grid": {"sm_count_grid": ()},
    "two_phase": {"grid_sync": (15, 18), "launch_sites": [("grid.cu", 34, None, (256, 1, 1), 0)]},
    # A shape query on this_grid() is no barrier; a held group is one wherever it is named (g.sync() is not read).
    "grid_rank_index": {"grid_sync": ()},
    "held_group_sync": {"grid_sync": (82,)},
    "bounded": {"bounds": LaunchBounds(("256", "4"), (256, 4))},
    "lane_ids": {"ptx": InlinePtx(1, ("mov %laneid",), (11,))},
    "plain_ptx": {"ptx": InlinePtx(6, ("bfe", "dp4a", "elect.sync", "ld.global.nc", "mov %laneid", "prmt", "selp"),
                                   (10, 11, 12, 13, 14, 15))},
    "staged_copy": {"ptx": InlinePtx(3, ("cp.async",), (24, 25, 26)), "async": ()},
    "any_in_const": {"masks": ("full",)},
    "shuffle_held_mask": {"masks": ("m (unsigned)",)},
    "shuffle_wide_held_mask": {"masks": ("m (unsigned long long)",)},
    "tma_prefetch": {"ptx": InlinePtx(3, ("cp.async.bulk", "mbarrier"), (23, 24, 25)),
                     "async": ("cp.async.bulk", "mbarrier"), "shared_static": 4104},
    "cluster_exchange": {"clusters": ("cluster_group", "dsmem")},
    "wmma_tile": {"tensor": ("wmma", "wmma m16n16k16")},
    "wmma_tall_tile": {"tensor": ("wmma", "wmma m8n32k16")},
    "header_sized": {"shared_static": None, "unknown": ["`kStageElems` is not a constant defined in this file"]},
}


@pytest.mark.parametrize("name", sorted(FACTS))
def test_facts(analysed, name):
    f = kernel(analysed, name).facts
    want = FACTS[name]
    sm = f.shared_memory
    if "shared_static" in want:
        assert sm.static_bytes == want["shared_static"]
    if "arrays" in want:
        assert [(a.name, a.type, a.extents, a.bytes) for a in sm.arrays] == want["arrays"]
    if "dynamic" in want:
        assert (sm.launch_bytes, sm.max_dynamic_attribute) == want["dynamic"]
    if "total" in want:
        assert sm.total_bytes == want["total"]
    if "launch_sites" in want:
        assert [(Path(s.path).name, s.line, s.grid, s.block, s.shared_bytes) for s in f.sites] == want["launch_sites"]
    if "device_functions" in want:
        assert [d.name for d in f.device_functions] == want["device_functions"]
    if "masks" in want:
        assert f.warp_masks == want["masks"]
    if "atomics" in want:
        assert f.atomics == want["atomics"]
    if "lane" in want:
        assert [(x.line, x.kind) for x in f.lane_assumptions] == want["lane"]
    if "ballot" in want:
        assert [(b.line, b.type, b.op) for b in f.ballot_32bit] == want["ballot"]
    if "template" in want:
        assert [p.text for p in f.template_parameters] == want["template"]
    if "unknown" in want:
        assert [u.reason for u in f.unresolved if u.what.startswith("__shared__")] == want["unknown"]
    if "sm_count_grid" in want:
        assert f.sm_count_grid == want["sm_count_grid"]
    if "grid_sync" in want:
        assert f.grid_sync == want["grid_sync"]
    if "bounds" in want:
        assert f.launch_bounds == want["bounds"]
    if "ptx" in want:
        assert f.inline_ptx == want["ptx"]
    if "async" in want:
        assert f.async_copies == want["async"]
    if "clusters" in want:
        assert f.clusters == want["clusters"]
    if "tensor" in want:
        assert f.tensor_cores == want["tensor"]


def test_constant_folding():
    src = b"""#define TILE 32
#define PAD (TILE + 1)
constexpr int kRows = TILE * 2;
const unsigned kBytes = sizeof(float4) * kRows;
enum { A = 3, B, C = B << 2 };
#if FAST
#define WIDTH 128
#else
#define WIDTH 256
#endif
"""
    sf = parse("c.cu", "cuda", src)
    env = build_constants(sf.root, sf.data)
    assert [env.lookup(n) for n in ("TILE", "PAD", "kRows", "kBytes", "A", "B", "C")] == [32, 33, 64, 1024, 3, 4, 16]
    assert isinstance(env.lookup("WIDTH"), Unknown)  # both #if arms are visible: not guessed
    assert fold_text("1 << 10", env) == 1024
    assert fold_text("min(TILE, 16) * 2", env) == 32
    assert fold_text("n * 4", env).reason == "`n` is not a constant defined in this file"


def test_user_target_profile(tmp_path):
    data = yaml.safe_load((REPO / "rules" / "targets" / "mi300x.yaml").read_text())
    data.update(id="mygpu", name="My wave32 GPU", wavefront_size=32, lds_per_workgroup_kib=96, lds_per_cu_kib=96)
    profile = tmp_path / "mygpu.yaml"
    profile.write_text(yaml.safe_dump(data))
    result = analyse(scan(KERNELS_DIR, Settings(jobs=1, cache_dir=None)), ["mi300x", str(profile)])
    assert result.targets == ("mi300x", "mygpu")
    verdicts = {k.name: k.verdict_on("mygpu").verdict for k in result.kernels}
    assert verdicts["big_tile"] == "ok"          # 96 KiB fits 96 KiB
    assert verdicts["huge_tile"] == "fix"        # 200 KiB does not
    assert verdicts["block_sum"] == "fix"        # wave32: 32-lane code is right, but its 32-bit mask type is not
    assert verdicts["scale_rows"] == "ok"        # 96 threads = 3 waves of 32


def test_cli_json_and_targets_command():
    from porter.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["scan", str(KERNELS_DIR), "--target", "mi300x", "--target", "mi455x", "--format", "json", "--no-cache"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["targets"] == ["mi300x", "mi455x"]
    k = next(k for k in doc["kernels"] if k["name"] == "count_positive")
    assert k["targets"]["mi300x"]["verdict"] == "fix" and k["targets"]["mi455x"]["reasons"] == ["mask-32bit-type"]
    assert k["targets"]["mi300x"]["reasons"] == ["wave64-ballot-32bit", "wave64-full-mask", "wave64-lane-count"]
    # tma_prefetch, cluster_exchange, mma_tile, wmma_tall_tile; the plain PTX of lane_ids, plain_ptx and staged_copy
    # is a fix
    assert doc["kernel_analysis"]["verdicts"]["mi300x"]["rewrite"] == 4
    res = runner.invoke(app, ["targets", "--format", "json"])
    assert res.exit_code == 0
    assert [t["id"] for t in json.loads(res.stdout)["targets"]] == list(TARGET_IDS)
    res = runner.invoke(app, ["scan", str(KERNELS_DIR), "--target", "mi999", "--no-cache", "-q"])
    assert res.exit_code == 2


def _arch(path: Path) -> str:
    m = re.search(r"//\s*nvcc-arch:\s*(\S+)", path.read_text())
    return m.group(1) if m else "sm_90"


NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if Path("/usr/local/cuda/bin/nvcc").exists() else None)


@pytest.mark.slow
@pytest.mark.skipif(NVCC is None, reason=NEEDS["nvcc"])
@pytest.mark.parametrize("path", sorted(KERNELS_DIR.glob("*.cu")), ids=lambda p: p.name)
def test_fixture_compiles_with_nvcc(path, tmp_path):
    proc = subprocess.run([NVCC, "-c", "-std=c++17", f"-arch={_arch(path)}", "-I", str(KERNELS_DIR), str(path),
                           "-o", str(tmp_path / "out.o")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_hostile_constant_expressions_fold_safely(tmp_path):
    """Shifts beyond 64 bits and ~ on a float are unknown, casts wrap like C, and a sign inside a literal folds."""
    from porter.pipeline import scan

    (tmp_path / "c.cu").write_text(
        "#define N (1 << 0x7fffffffffff)\n#define M (~1.5)\n#define Q (-7 / 2)\n"
        "__global__ void k1(float* o) { __shared__ float s[N]; o[0] = s[0]; }\n"
        "__global__ void k2(float* o) { __shared__ float s[(int)M]; o[0] = s[0]; }\n"
        "__global__ void k3(char* o) { __shared__ char s[(unsigned char)300 * 1024]; o[0] = s[0]; }\n"
        "__global__ void k4(char* o) { __shared__ char s[Q + 20000]; o[0] = s[0]; }\n")
    r = scan(tmp_path, Settings(jobs=1))
    assert r.skipped == ()
    shared = {k.name: k.facts.shared_memory for k in r.kernels}
    assert shared["k1"].static_bytes is None and "cannot be evaluated" in shared["k1"].arrays[0].reason
    assert shared["k2"].static_bytes is None and "cannot be evaluated" in shared["k2"].arrays[0].reason
    assert shared["k3"].static_bytes == 44 * 1024
    assert shared["k4"].static_bytes == 19997


def test_a_porter_bug_on_one_file_is_reported_as_skipped_not_a_crash(tmp_path):
    from porter.source.discover import Candidate
    from porter.pipeline import INTERNAL_ERROR, _guarded

    def broken():
        raise TypeError("unsupported operand")

    result = _guarded(Candidate("a.cu", tmp_path / "a.cu", "cuda"), broken)
    assert result.skipped.path == "a.cu"
    assert result.skipped.reason == f"{INTERNAL_ERROR}: TypeError: unsupported operand); please report it"


def test_a_project_rule_with_a_verdict_decides_kernel_verdicts(tmp_path):
    """Verdicts come from the rule set the scan used, so a project's own rules (porter.toml `rules`) count too."""
    from porter.rules import RULES_DIR
    from porter.pipeline import scan

    rule = (RULES_DIR / "kernel" / "KRN001-kernel-definition.yaml").read_text()
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "USR001-vendor-intrinsic.yaml").write_text(
        rule.replace("id: KRN001", "id: USR001").replace("  - kernel: {}", "  - identifiers: [vendor_fast_exp]")
        + "verdict:\n  default: rewrite\n  by_target:\n    \"wavefront_size == 32\": check\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text(
        "__device__ float vendor_fast_exp(float x);\n"
        "__global__ void k(float* x) { x[threadIdx.x] = vendor_fast_exp(x[threadIdx.x]); }\n")
    opts = Settings(jobs=1, extra_rules=(tmp_path / "rules",))
    [k] = analyse(scan(tmp_path / "src", opts), ["mi300x", "mi455x"]).kernels
    assert (k.verdict_on("mi300x").verdict, k.verdict_on("mi455x").verdict) == ("rewrite", "check")
    assert k.verdict_on("mi300x").details == (
        CheckResult("USR001", "rewrite", "Kernel vendor_fast_exp is defined here; hipify keeps it, kernel analysis decides"
                                         " whether it needs retuning per target.", (2,)),)


def _three_files(tmp_path, second_definition: bool):
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "a.cu").write_text("__global__ void k(float* x) { x[0] = 1; }\n")
    if second_definition:
        (tmp_path / "b.cu").write_text("__global__ void k(int* x) { x[0] = 2; }\n")
    (tmp_path / "host.cu").write_text("#define N 8\n__global__ void k(float* x);\n"
                                      "void run(float* x) {\n  k<<<4, 96, 512>>>(x);\n  k<<<N, 64>>>(x);\n}\n")
    return scan(tmp_path, Settings(jobs=1, cache_dir=None))


def test_remote_launches_are_folded_from_literals_only(tmp_path):
    r = analyse(_three_files(tmp_path, second_definition=False), ["mi300x"])
    (k,) = r.kernels
    assert k.facts.launch_sites == ()
    assert k.facts.remote_launch_sites == (
        LaunchConfig("host.cu", 4, "chevron", ("4", "96", "512"), (4, 1, 1), (96, 1, 1), 512, remote=True),
        LaunchConfig("host.cu", 5, "chevron", ("N", "64"), None, (64, 1, 1), None, remote=True),
    )
    assert k.facts.remote_unknown == (
        Unresolved("grid of launch at host.cu:5",
                   "`N` is not a constant defined in this file (constants of another file are not folded)"),)
    assert [s.threads for s in k.facts.sites] == [96, 64]
    assert k.to_dict()["launch_sites"][1] == {"path": "host.cu", "line": 5, "kind": "chevron", "config": ["N", "64"],
                                              "grid": None, "block": [64, 1, 1], "shared_bytes": None, "remote": True,
                                              "threads": 64}
    # 96 threads are one and a half waves of 64: the remote block size is checked like a local one
    assert k.verdict_on("mi300x").details == (
        CheckResult("block-not-wave-multiple", "retune", "block of 96 threads is not a multiple of 64", (4,)),)


def test_analysing_twice_gives_the_same_result(tmp_path):
    """Regression: a second analysis appended the 'launch sites' unknown again (and re-added remote launches)."""
    for second in (False, True):
        root = tmp_path / str(second)
        # two separate scans: the old dict facts were shared, so analysing again also changed the first result
        once = analyse(_three_files(root, second), ["mi300x"])
        assert analyse(analyse(_three_files(root, second), ["mi300x"]), ["mi300x"]) == once
    ks = analyse(analyse(_three_files(tmp_path / "again", True), ["mi300x"]), ["mi300x"]).kernels
    assert [k.facts.unresolved for k in ks] == [
        (Unresolved("launch sites", "2 launches of a kernel named k in other files, and 2 kernels have that name"),)] * 2
    assert [k.facts.remote_launch_sites for k in ks] == [(), ()]


def test_analyse_returns_new_kernels_and_leaves_the_scan_alone(tmp_path):
    scanned = _three_files(tmp_path, second_definition=False)
    (before,) = scanned.kernels
    (after,) = analyse(scanned, ["mi300x", "mi455x"]).kernels
    assert scanned.kernels == (before,) and before.verdicts is None and before.facts.remote_launch_sites == ()
    assert [v.target for v in after.verdicts] == ["mi300x", "mi455x"]
    assert after.facts.launch_sites == before.facts.launch_sites and after.facts.unknown == before.facts.unknown


def test_kernel_json_keeps_the_contract_key_order(analysed):
    d = kernel(analysed, "bounded").to_dict()
    assert list(d) == ["name", "qualified_name", "path", "line", "end_line", "is_template", "via_macro", "launch_bounds",
                       "launches", "status", "handled_by", "async_copies", "atomics", "ballot_32bit", "clusters", "device_functions",
                       "device_launches", "grid_sync", "indexed_block", "inline_ptx", "lane_assumptions", "launch_bounds_values",
                       "launch_sites", "lines", "partial_syncwarp", "shared_memory", "sm_count_grid", "targets",
                       "template_parameters", "tensor_cores", "unknown", "warp_masks", "warp_ops", "warpsize_constant"]
    assert d["launch_bounds_values"] == {"text": ["256", "4"], "max_threads": 256, "min_blocks": 4}
    assert list(d["shared_memory"]) == ["arrays", "static_bytes", "static_bytes_min", "dynamic", "total_bytes",
                                        "total_bytes_min"]
    assert "targets" not in Kernel("a.cu", 1, 2, "k", "k", facts=KernelFacts(2)).to_dict()


def test_config_slots_pick_grid_block_and_shared_memory():
    assert config_slots("chevron", ["g", "b", "s", "stream"]) == ["g", "b", "s"]
    assert config_slots("cudaLaunchKernel", ["g", "b", "args", "s", "stream"]) == ["g", "b", "s"]
    assert config_slots("cuLaunchKernel", ["gx", "gy", "gz", "bx"]) == []


def test_named_checks_on_hand_built_facts():
    from porter.targets import load_targets

    mi300x = load_targets()["mi300x"]
    facts = KernelFacts(
        lines=10,
        warp_ops=(WarpOp("__shfl_down_sync", 5, "0xffffffff", "full32"),),
        shared_memory=SharedMemory((SharedArray("s", "float", 3, (32768,), 4, 131072),)),
        launch_bounds=LaunchBounds(("96",), (96,)),
    )
    assert kernel_checks(facts, mi300x) == [
        CheckResult("wave64-full-mask", "fix", "0xffffffff mask in 1 warp operation(s) covers 32 of 64 lanes", (5,)),
        CheckResult("lds-over-limit", "fix", "128 KiB of shared memory > 64 KiB LDS on AMD Instinct MI300X", ()),
        CheckResult("block-not-wave-multiple", "retune", "block of 96 threads is not a multiple of 64", ()),
    ]


def test_inline_ptx_reason_names_mnemonics_not_operands(tmp_path):
    """An instruction split over lines leaves its operand list on a line of its own; the reason names only
    `ld.global.nc`."""
    (tmp_path / "k.cu").write_text(
        "__global__ void k2(unsigned* out, const unsigned* in) {\n"
        "  unsigned a, b, c, d;\n"
        '  asm volatile("ld.global.nc.v4.u32 \\n {%0,%1,%2,%3}, [%4];\\n"\n'
        '               "mma.sync.aligned.m16n8k16 \\n {%0,%1}, {%2}, {%3};" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(in));\n'
        "  out[0] = a + b + c + d;\n}\n")
    [k] = analyse(scan(tmp_path, Settings(jobs=1, cache_dir=None)), ["mi300x"]).kernels
    assert k.facts.inline_ptx.families == ("ld.global.nc", "mma.sync")
    # plain loads are a fix with their HIP replacement; the MMA is the rewrite (issue 11), each naming mnemonics only
    details = {d.id: d.message for d in k.verdict_on("mi300x").details if d.id.startswith("inline-ptx")}
    assert details == {
        "inline-ptx": "1 inline PTX statement (ld.global.nc): ld.global.nc → __ldg (or a plain load of a const"
                      " __restrict__ pointer)",
        "inline-ptx-matrix": "1 inline PTX statement (mma.sync): MFMA (CDNA) / WMMA (gfx12) through rocWMMA, Composable"
                             " Kernel or __builtin_amdgcn_mfma_*, with AMD's fragment layouts"}


def test_ptx_with_a_plain_hip_equivalent_is_a_fix_that_names_it(analysed):
    """Issue 27 class 1: elect.sync, %laneid, bfe, prmt, dp4a, ld.global.nc and cp.async are fixes (rules/kb/ptx.yaml
    names the replacement); mma.sync beside a %laneid read stays a rewrite, and says what replaces it."""
    plain = kernel(analysed, "plain_ptx").verdict_on("mi300x")
    assert plain.verdict == "fix" and plain.reasons == ("inline-ptx",)
    message = plain.details[0].message
    for hint in ("elect.sync → `__lane_id() == __ffsll(__ballot(1)) - 1`", "mov %laneid → __lane_id()",
                 "bfe → __bitextract_u32", "prmt → __byte_perm", "dp4a → __builtin_amdgcn_sdot4",
                 "ld.global.nc → __ldg", "selp → c ? a : b"):
        assert hint in message
    assert plain.details[0].lines == (10, 11, 12, 13, 14, 15)
    copy = kernel(analysed, "staged_copy").verdict_on("mi355x")
    assert (copy.verdict, copy.reasons) == ("fix", ("inline-ptx",))
    assert "cp.async → a synchronous global->LDS copy" in copy.details[0].message
    mma = kernel(analysed, "mma_tile").verdict_on("mi455x")
    assert [(d.id, d.verdict, d.lines) for d in mma.details] == [("inline-ptx-matrix", "rewrite", (36, 37)),
                                                                   ("inline-ptx", "fix", (36, 37))]


def test_the_ptx_table_is_data_with_a_verdict_replacement_and_public_source_per_family(tmp_path):
    from porter.kernels import ptx

    table = ptx.load_table()
    assert {f for f, e in table.items() if e.verdict == "rewrite"} >= {
        "mma.sync", "wgmma", "tcgen05", "cp.async.bulk", "cp.async.bulk.tensor", "mbarrier", "barrier.cluster", "mapa"}
    assert {f for f, e in table.items() if e.verdict == "fix"} >= {
        "elect.sync", "mov %laneid", "bfe", "prmt", "dp4a", "ld.global.nc", "cp.async"}
    assert all(e.source.startswith("https://") for e in table.values())
    bad = tmp_path / "ptx.yaml"
    bad.write_text("families:\n  elect.sync: {verdict: maybe, hip: x, source: 'https://x'}\n")
    with pytest.raises(ptx.PtxTableError, match="families.elect.sync.verdict"):
        ptx.load_table(bad)


def test_a_helper_declared_with_a_library_qualifier_macro_is_device_code(tmp_path):
    """`CUTLASS_DEVICE` / `CUTE_HOST_DEVICE` come from CUTLASS's and CuTe's headers, which a checkout often lacks (a
    submodule left out, as in xformers): the helper is still device code, so its facts reach the kernel; and a
    macro defined per compiler keeps its nvcc arm (CUTLASS: `__forceinline__ __device__`, else `inline`)."""
    (tmp_path / "k.cu").write_text(
        "CUTLASS_DEVICE float sum32(float v) {\n"
        "  for (int o = 1; o < warpSize; o <<= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n"
        "  return v;\n"
        "}\n"
        "__global__ void k(float* x) { x[threadIdx.x] = sum32(x[threadIdx.x]); }\n")
    (tmp_path / "h.cuh").write_text(
        "#if defined(__NVCC__)\n#define MY_DEVICE __forceinline__ __device__\n#else\n#define MY_DEVICE inline\n#endif\n"
        "MY_DEVICE unsigned lanes(unsigned v) { return __ballot_sync(0xffffffff, v != 0); }\n")
    result = analyse(scan(tmp_path, Settings(jobs=1, cache_dir=None)), ["mi300x"])
    k = kernel(result, "k")
    assert [(w.op, w.line, w.mask_kind) for w in k.facts.warp_ops] == [("__shfl_xor_sync", 2, "full32")]
    assert k.verdict_on("mi300x").verdict == "fix"
    from porter.source.parse_input import harvest_macros

    assert harvest_macros((tmp_path / "h.cuh").read_bytes()) == {"MY_DEVICE": "__forceinline__ __device__"}


def test_shuffle_width_is_folded_from_a_constant():
    sf = parse("w.cu", "cuda", b"constexpr int W = 32;\n__global__ void k(float* x) {\n"
                                b"  float v = __shfl_down_sync(~0ull, x[0], 1, W);\n  v += __shfl_xor(v, 2, 16);\n"
                                b"  v += __shfl_up_sync(~0ull, v, 1);\n  x[0] = v;\n}\n")
    from porter.kernels.verdicts import measure

    (k,) = measure(sf)
    assert [(w.op, w.width) for w in k.facts.warp_ops] == [
        ("__shfl_down_sync", 32), ("__shfl_xor", 16), ("__shfl_up_sync", None)]


def test_warp_size_constants_of_the_project_are_lane_assumptions(analysed):
    k = kernel(analysed, "named_warp_reduce")
    assert [(x.line, x.kind) for x in k.facts.lane_assumptions] == [
        (11, "% WARP_SIZE (= 32)"), (12, "/ kWarp (= 32)"), (14, "reduction loop from WARP_SIZE / 2 (= 16)")]
    # the down reduction from 16 is a logical 32-lane warp (ok); the up-shuffle scan is not, and reads the constant
    scan = kernel(analysed, "named_warp_scan")
    assert [(x.line, x.kind) for x in scan.facts.lane_assumptions] == [(25, "% WARP_SIZE (= 32)")]
    assert scan.verdict_on("mi300x").details[0].lines == (25,)


def test_name_detectors_see_only_their_names_and_do_nothing_with_any_other():
    """porter.kernels.facts calls a detector registered with `names` only for nodes with one of those texts; the
    contract that makes this exact is that such a detector does nothing with any other name. Checked on every name
    node of a kernel that uses each detector's names and others."""
    import porter.kernels.facts as facts
    import porter.kernels.facts_detectors as detectors
    from porter.kernels.facts_walk import Walk
    from porter.source.parse import parse
    from porter.source.parse_queries import descendants

    src = (b"using namespace cute;\n__global__ void k(float* p) {\n"
           b"  auto g = cooperative_groups::this_grid(); int w = warpSize; nvcuda::wmma::fragment<int> f;\n"
           b"  auto t = make_tensor(p); cuda::barrier<int> b; auto c = cooperative_groups::this_cluster();\n"
           b"  cutlass::half_t h; int other = foo(bar); g.sync(); int a[warpSize];\n}\n")
    sf = parse("k.cu", "cuda", src)
    ctx = facts.FileContext(sf, build_constants(sf.root, sf.data))
    names = descendants(sf.root, detectors.NAMES)
    assert detectors._WANTED and {b"warpSize", b"this_grid", b"wmma", b"cute", b"make_tensor"} <= set().union(*detectors._WANTED.values())
    called = 0
    for n in names:
        for d in detectors.DETECTORS[n.type]:
            wanted = detectors._WANTED.get(d)
            assert (d in detectors.detectors_of(n.type, n.text)) == (wanted is None or n.text in wanted)
            if wanted is not None and n.text not in wanted:
                w = Walk()
                d(ctx, n, w)
                assert w == Walk(), (d.__name__, n.text)
                called += 1
    assert called > 50


def test_call_detectors_see_only_their_callees_and_do_nothing_with_any_other_call():
    """porter.kernels.facts hands a call detector registered with `calls` only the calls whose callee name it
    accepts; the contract that makes this exact is that such a detector does nothing with any other call. Checked
    on every call of a kernel that calls each detector's names and others (member calls included)."""
    import porter.kernels.facts as facts
    import porter.kernels.facts_detectors as detectors
    from porter.kernels.facts_walk import Walk
    from porter.source.parse_queries import descendants

    src = (b"__global__ void k(int* p, unsigned m) {\n"
           b"  auto g = cooperative_groups::this_grid(); g.sync(); grid_sync(); sync(g); foo(p);\n"
           b"  p[0] = __shfl_sync(m, p[1], 0, 16); atomicAdd(p, 1); atomic_ref(p); __syncwarp(m); obj.bar(1);\n"
           b"  auto t = cooperative_groups::tiled_partition<32>(g); ns::atomicMax(p, 2); sub<<<1, 32>>>(p);\n}\n")
    sf = parse("k.cu", "cuda", src)
    ctx = facts.FileContext(sf, build_constants(sf.root, sf.data))
    gated = [d for d in detectors.DETECTORS["call_expression"] if d in detectors._CALL_WANTED]
    assert {d.__name__ for d in gated} >= {"warp_operations", "atomics", "grid_sync_calls", "tiled_partition_32"}
    called = fired = 0
    for n in descendants(sf.root, ("call_expression",)):
        _, name = detectors.call_target(n)
        assert detectors.call_detectors(name) == tuple(
            d for d in detectors.DETECTORS["call_expression"] if d not in detectors._CALL_WANTED or detectors._CALL_WANTED[d](name))
        for d in gated:
            w = Walk()
            d(ctx, n, w)
            if detectors._CALL_WANTED[d](name):
                fired += w != Walk()
            else:
                assert w == Walk(), (d.__name__, name)
                called += 1
    assert called > 30 and fired >= 6


def test_a_helpers_lane_indexed_32_array_leaves_out_the_lines_only_the_cuda_build_compiles():
    """lane_array_index reads a body's subscripts itself (only when it declares a 32-wide array) and leaves out
    the lines the helper walk skips, as the walk leaves their other nodes: `s[lane]` in the `#else` arm of a HIP
    test is CUDA-only, `s[lane + 1]` after it is portable."""
    from porter.kernels.facts import measure_helpers

    src = (b"__device__ float pick(float v) {\n  __shared__ float s[32];\n  int lane = threadIdx.x % 32;\n"
           b"#ifdef __HIP_PLATFORM_AMD__\n  s[0] = v;\n#else\n  s[lane] = v;\n#endif\n  return s[lane + 1];\n}\n")
    (h,) = measure_helpers(parse("h.cuh", "cuda", src))
    assert [(x.line, x.kind) for x in h.facts.lane_assumptions] == [(3, "% 32"), (9, "array[32] indexed by lane")]


def test_sm_derived_grids_follow_assignments_in_any_order_and_not_a_printed_sm_count():
    """A grid is SM-derived through a few assignments whatever their order in the host (`blocks = grid * 2` reads
    `grid` before `grid = sms * 3` makes it SM-derived); a host that only prints the SM count derives nothing, and
    SM count x the occupancy API's blocks per SM is the device's own (not an NVIDIA tuning)."""
    from porter.kernels.verdicts import measure

    src = (b"__global__ void k(float* p) { p[0] = 1; }\n"
           b"void chain(float* p, cudaDeviceProp prop) {\n  int grid = 4;\n  int blocks = 0;\n"
           b"  blocks = grid * 2;\n  int sms = prop.multiProcessorCount;\n  grid = sms * 3;\n  int g2 = blocks;\n"
           b"  k<<<grid, 256>>>(p);\n  k<<<g2, 256>>>(p);\n}\n"
           b"void printed(float* p, cudaDeviceProp prop) {\n  printf(\"%d\", prop.multiProcessorCount);\n  int n = 8;\n"
           b"  k<<<n, 256>>>(p);\n}\n"
           b"void occupied(float* p, int sms) {\n  int per = 0;\n"
           b"  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);\n"
           b"  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, 256, 0);\n  k<<<sms * per, 256>>>(p);\n"
           b"  k<<<sms * 4, 256>>>(p);\n}\n")
    (kern,) = measure(parse("k.cu", "cuda", src))
    assert [(s.line, s.sm_count_grid) for s in kern.facts.launch_sites] == [
        (9, True), (10, True), (15, False), (21, False), (22, True)]


def test_the_constant_table_reads_defines_enumerators_and_const_declarations_only():
    """build_constants skips, in C, every declaration whose text holds no `const` (they declare no constant):
    the table still has each #define (two different ones are a conflict; outside any `#if` arm, one the CUDA build
    compiles both of), enumerator, namespace-, struct- and function-scope const/constexpr integer, and no plain
    variable or float."""
    src = (b"#define TILE 16\nint plain = 3;\nconst int kA = TILE * 2;\nstatic constexpr unsigned kB = 8;\n"
           b"struct S { static constexpr int kC = 4; int f; };\nenum { E0, E1 = 5, E2 };\n"
           b"void f() { int local = 1; const int kD = kA + 1; constexpr int kE = 2; float const kF = 1; }\n"
           b"#define TILE 32\n")
    sf = parse("c.cu", "cuda", src)
    env = build_constants(sf.root, sf.data)
    assert sorted((k, v if isinstance(v, (str, int)) else v.text.decode()) for k, v in env.sources.items()) == [
        ("E0", 0), ("E1", "5"), ("E2", "(E1) + 1"), ("TILE", "__porter_conflict_one_build__"),
        ("kA", "TILE * 2"),
        ("kB", "8"), ("kC", "4"), ("kD", "kA + 1"), ("kE", "2")]


def test_the_walk_parts_a_helper_is_judged_by_are_exactly_what_makes_its_helper_facts():
    """A helper's facts are made only when one of its walks holds a part of HELPER_WALK_KEYS (porter.kernels.facts_walk): each such part
    alone gives some HELPER_FACT_KEYS fact (inline_ptx from "ptx"), every HELPER_FACT_KEYS fact comes from one of
    them, and a walk holding only the other parts (calls, shared declarations, identifiers) gives none."""
    import porter.kernels.facts_walk as f
    from porter.model.kernel import HELPER_FACT_KEYS, Ballot32, LaneAssumption, WarpOp, WarpSizeConstant, WaveName

    sample = {"warp_ops": [WarpOp("__shfl_sync", 1)], "lane": [LaneAssumption(1, "% 32", "t % 32")],
              "ballot32": [Ballot32(1, "int", "__ballot_sync")], "warpsize_const": [WarpSizeConstant(1, "x")],
              "wave_names": [WaveName(1, "WARP_SIZE")], "tensor": {"wmma"}, "ptx": [{"line": 1, "families": ["mma.sync"], "text": "mma.sync"}],
              "async_copies": {"pipeline"}, "clusters": {"dsmem"}, "atomics": ["atomicAdd"], "grid_sync": [1],
              "device_launches": [1], "partial_syncwarp": [1], "libraries": {"cute"}, "cute": {"make_tensor"},
              "clang_differs": [("restrict-value-type", 1)], "typed_products": [("amp_t", 1)]}
    assert set(sample) == set(f.HELPER_WALK_KEYS)
    # typed_products is passed on unserialised: kernel analysis resolves it into clang_differs (complex_types)
    keys = HELPER_FACT_KEYS + ("typed_products",)

    def helper_facts(w):
        bf = f.body_facts(w)
        return {k for k in keys if (bf[k].statements if k == "inline_ptx" else bf[k])}

    made = set()
    for key in f.HELPER_WALK_KEYS:
        w = f.Walk(**{key: sample[key]})
        assert helper_facts(w), key
        made |= helper_facts(w)
    assert made == set(keys)
    other = f.Walk(calls={"g"}, call_sites=[("g", 1)], identifiers={"tile"}, shared_decls=[object()])
    assert helper_facts(other) == set()


def test_the_sm_count_substring_search_is_the_sm_count_pattern():
    """_sm_derived asks a host's body for the SM count by substring search: SM_COUNT must stay an alternation of
    plain literals for that to find what the regex finds."""
    import porter.kernels.facts_launches as launches
    import porter.kernels.facts_vocabulary as f

    assert all(re.escape(w.decode()) == w.decode() for w in f.SM_COUNT_WORDS)
    assert b"|".join(f.SM_COUNT_WORDS).decode() == f.SM_COUNT.pattern
    for text in (b"p.multiProcessorCount", b"cudaDevAttrMultiProcessorCount", b"int n = 4;",
                 b"cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n)", b"CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"):
        assert launches._names_sm_count(text) == (f.SM_COUNT_BYTES.search(text) is not None)


def test_a_compat_header_redefining_global_for_the_host_build_hides_no_kernel(tmp_path):
    """A project that also builds its kernels as host code (CMS pixeltrack's cudaCompat.h) redefines `__global__`
    under `#ifndef __CUDA_ARCH__`; nvcc and hip-clang never take that arm. Harvesting it as a repository macro made
    every kernel of the repository a host function (0 of pixeltrack's 176 kernels found)."""
    (tmp_path / "compat.h").write_text(
        "#ifndef __CUDA_RUNTIME_H__\n#define __host__\n#define __device__\n#define __global__\n#endif\n"
        "#ifndef __CUDA_ARCH__\n#undef __global__\n#define __global__ inline __attribute__((always_inline))\n"
        "#undef __forceinline__\n#define __forceinline__ inline __attribute__((always_inline))\n#endif\n")
    (tmp_path / "k.cu").write_text(
        '#include "compat.h"\n'
        "__forceinline__ __device__ float twice(float v) { return 2 * v; }\n"
        "__global__ void scale(float* x) { x[threadIdx.x] = twice(x[threadIdx.x]); }\n")
    from porter.source.parse_input import harvest_macros

    assert harvest_macros((tmp_path / "compat.h").read_bytes()) == {}
    result = analyse(scan(tmp_path, Settings(jobs=1, cache_dir=None)), ["mi300x"])
    assert [(k.name, k.line) for k in result.kernels] == [("scale", 3)]
