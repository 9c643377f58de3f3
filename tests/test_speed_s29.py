"""Issue 26, session 29: the repository-wide stages' per-file parts done once per file content (the unused-PTX-helper
pass's per-file part answered by the file's own scan and cached with its result) and port status's search for a
name skipping files that cannot hold it. Every answer here is the one the old code gave; the re-scans after an edit
are compared byte for byte with a scan without the cache."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import porter.match.refine_helpers as refine_helpers
from porter.model import Severity
from porter.model.report import AsmHelpers
from porter.portaware.scope import used_names
from tests.helpers import make_repo, porter_here

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/prec_s27/asmhelpers"


class _NoDecode(bytes):
    """A file's bytes that fail the test when decoded: the search must skip a file holding none of the names."""

    def decode(self, *args, **kwargs):  # type: ignore[override]
        raise AssertionError("a file without any of the names was decoded")


def test_used_names_decodes_and_searches_only_files_holding_a_name():
    texts = [
        ("a.h", _NoDecode(b"int unrelated;\n" * 50)),
        # the name inside its own arm (lines 2-3 of a.cu) is no use; as a word of another identifier neither
        ("a.cu", b"#if X\n#define FLAG_A 1\n#define FLAG_B 2\n#endif\nint FLAG_AB = 0;\n"),
        # invalid UTF-8 right before the name: decoding replaces the byte, the word is still there
        ("b.cu", b"\xff\xfeFLAG_B;\n// caf\xc3\xa9 FLAG_C\n"),
        ("c.cu", _NoDecode(b"FLAG_Q\n")),
    ]
    assert used_names(["FLAG_A", "FLAG_B"], iter(texts), ("a.cu", 2, 3)) == {"FLAG_B"}
    assert used_names(["FLAG_A"], iter(texts), ("a.cu", 2, 3)) == set()
    assert used_names(["FLAG_C", "FLAG_A"], iter(texts), ("a.cu", 2, 3)) == {"FLAG_C"}
    # once every name is seen the search stops: c.cu is never looked at (it would hold nothing anyway)
    assert used_names(["FLAG_B"], iter(texts[:3] + [("d.cu", _NoDecode(b"FLAG_B\n"))]), ("a.cu", 2, 3)) == {"FLAG_B"}


def _scan(root: Path, *args: str) -> dict:
    return json.loads(_scan_text(root, *args))


def _scan_text(root: Path, *args: str) -> str:
    p = porter_here("scan", str(root), "--format", "json", "--jobs", "1", *args)
    assert p.returncode in (0, 1), p.stderr
    return p.stdout


@pytest.fixture
def hits(monkeypatch) -> list[list[tuple[str, bool]]]:
    """Each scan's files as (path, answered from the cache), in the order the scan assembles them."""
    import porter.pipeline as pipeline

    seen: list[list[tuple[str, bool]]] = []
    real = pipeline.assemble

    def assemble(source, found, pairs, *args, **kwargs):
        seen.append(sorted((r.path, hit) for r, hit in pairs))
        return real(source, found, pairs, *args, **kwargs)

    monkeypatch.setattr(pipeline, "assemble", assemble)
    return seen


def _result(root: Path):
    from porter.pipeline import run
    from porter.settings import Settings

    return run(root, Settings(jobs=1, cache_dir=None)).result


def test_the_scan_answers_each_files_part_of_the_asm_helper_pass():
    # What unused_helpers would parse each file for, from the scan's own parse: every DEV001 line looked at, and the
    # on-demand helpers among them that nothing else in the file names (laneMaskLt and laneId are called from
    # scan.cu, warpId through a macro there: the cross-file part decides those). pack64 ("=l") and archOnly (inside
    # `#ifdef __CUDA_ARCH__`) are none; scan.cu's nclock is a plain __device__ function.
    files = {r.path: r.asm_helpers for r in _result(FIXTURE).files}
    data = (FIXTURE / "src/lanes.cuh").read_bytes()
    assert data.index(b"__device__ __forceinline__ unsigned laneMaskLt") == 98
    assert data.index(b"static __device__ unsigned smId") == 382
    assert files == {
        "src/CMakeLists.txt": None,
        "src/lanes.cuh": AsmHelpers(lines=(7, 14, 21, 29, 36, 44, 52, 60, 69), helpers=(
            (7, "laneMaskLt", 98, 238), (14, "laneMaskGt", 240, 380), (21, "smId", 382, 503), (29, "laneId", 522, 635),
            (36, "warpId", 637, 753), (44, "laneMaskGe", 830, 970), (52, "laneMaskLe", 1055, 1195))),
        "src/scan.cu": AsmHelpers(lines=(7,), helpers=()),
    }


def test_the_asm_helper_pass_parses_no_file_its_scan_answered(monkeypatch):
    result = _result(FIXTURE)
    findings = list(result.findings)
    sources = {"src/lanes.cuh": "cuda", "src/scan.cu": "cuda"}
    read = {p: (FIXTURE / p).read_bytes() for p in sources}.get
    known = {r.path: (frozenset(r.asm_helpers.lines), r.asm_helpers.helpers) for r in result.files
             if r.asm_helpers is not None}
    opened = [dataclasses.replace(f, severity=Severity.HIGH, data=()) if f.rule == refine_helpers.RULE else f
              for f in findings]
    parsed = refine_helpers.unused_helpers(opened, sources, read)
    severities = [(f.path, f.line, str(f.severity)) for f in parsed if f.rule == refine_helpers.RULE]
    assert severities == [
        ("src/lanes.cuh", 7, "high"), ("src/lanes.cuh", 14, "info"), ("src/lanes.cuh", 21, "info"),
        ("src/lanes.cuh", 29, "high"), ("src/lanes.cuh", 36, "high"), ("src/lanes.cuh", 44, "info"),
        ("src/lanes.cuh", 52, "info"), ("src/lanes.cuh", 60, "high"), ("src/lanes.cuh", 69, "high"),
        ("src/scan.cu", 7, "high")]

    calls: list[str] = []

    def counted(path, language, data, *rest):
        calls.append(path)
        return real_parse(path, language, data, *rest)

    real_parse = refine_helpers.parse
    monkeypatch.setattr(refine_helpers, "parse", counted)
    assert refine_helpers.unused_helpers(opened, sources, read, known) == parsed
    assert calls == []
    # a DEV001 line the scan did not look at (a finding a later pass would have added): that file is parsed again
    moved = [dataclasses.replace(f, line=8, end_line=8) if (f.path, f.line) == ("src/scan.cu", 7) else f
             for f in opened]
    assert [f.line for f in refine_helpers.unused_helpers(moved, sources, read, known) if f.path == "src/scan.cu"
            and f.rule == refine_helpers.RULE] == [8]
    assert calls == ["src/scan.cu"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real git repository holding the asm-helper fixture (a header of PTX helpers and the .cu that includes it)."""
    files = {str(p.relative_to(FIXTURE)): p.read_bytes() for p in sorted(FIXTURE.rglob("*")) if p.is_file()}
    return make_repo(tmp_path / "repo", files)


def test_a_rescan_after_an_edit_is_the_cold_scan_byte_for_byte(repo: Path, tmp_path: Path, hits):
    cache = tmp_path / "cache"
    first = _scan_text(repo, "--cache-dir", str(cache))
    assert first == _scan_text(repo, "--no-cache")
    unused = [(f["path"], f["line"], f["severity"]) for f in json.loads(first)["findings"] if f["rule"] == "DEV001"]
    assert ("src/lanes.cuh", 14, "info") in unused
    # scan.cu now calls laneMaskGt: its own result changes, and through the pass so does the header's finding,
    # though the header's result comes from the cache
    with open(repo / "src/scan.cu", "a") as fh:
        fh.write("\n__global__ void gt(unsigned *out) { out[threadIdx.x] = laneMaskGt(); }\n")
    warm = _scan_text(repo, "--cache-dir", str(cache))
    assert warm == _scan_text(repo, "--no-cache")
    assert hits[2] == [("src/CMakeLists.txt", True), ("src/lanes.cuh", True), ("src/scan.cu", False)]
    assert [(f["path"], f["line"], f["severity"]) for f in json.loads(warm)["findings"] if f["rule"] == "DEV001"] == [
        ("src/lanes.cuh", 7, "high"), ("src/lanes.cuh", 14, "high"), ("src/lanes.cuh", 21, "info"),
        ("src/lanes.cuh", 29, "high"), ("src/lanes.cuh", 36, "high"), ("src/lanes.cuh", 44, "info"),
        ("src/lanes.cuh", 52, "info"), ("src/lanes.cuh", 60, "high"), ("src/lanes.cuh", 69, "high"),
        ("src/scan.cu", 7, "high")]


def test_a_header_edit_reaches_the_kernel_of_the_file_including_it(repo: Path, tmp_path: Path, hits):
    # laneMaskLt (src/lanes.cuh) gains a full-mask shuffle: scan.cu's kernel `scan`, which calls it, takes the
    # wave64 full-mask reason on a wave64 target, though scan.cu's own result is the cached one
    cache = tmp_path / "cache"

    def reasons(report: str) -> list[str]:
        (kernel,) = [k for k in json.loads(report)["kernels"] if k["name"] == "scan"]
        return kernel["targets"]["mi355x"]["reasons"]

    assert reasons(_scan_text(repo, "--cache-dir", str(cache))) == ["inline-ptx"]
    header = repo / "src/lanes.cuh"
    text = header.read_text()
    header.write_text(text.replace('    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));\n',
                                   '    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));\n'
                                   '    mask = __shfl_sync(0xffffffff, mask, 0);\n', 1))
    assert header.read_text() != text
    warm = _scan_text(repo, "--cache-dir", str(cache))
    assert warm == _scan_text(repo, "--no-cache")
    assert hits[1] == [("src/CMakeLists.txt", True), ("src/lanes.cuh", False), ("src/scan.cu", True)]
    assert reasons(warm) == ["inline-ptx", "wave64-full-mask"]


def test_a_calls_template_arguments_are_resolved_once_for_all_candidates(monkeypatch):
    # fixtures/speed_s28/templates/sort.cu: `swap_lanes` has two candidates (the primary template and the
    # <unsigned, 4> specialization). The callee walk resolved each call's arguments again for every candidate it
    # tried: 16 resolutions; once per called name and binding, 9. The same device functions are reached.
    import porter.kernels.facts as facts
    from porter.kernels.verdicts import measure
    from porter.source.parse import parse

    resolved: list[tuple[list[str], tuple[tuple[str, str], ...]]] = []
    real = facts._resolve_arguments

    def counted(args, env, cands):
        resolved.append((list(args), tuple(sorted(env.items()))))
        return real(args, env, cands)

    monkeypatch.setattr(facts, "_resolve_arguments", counted)
    path = Path(__file__).resolve().parent.parent / "fixtures/speed_s28/templates/sort.cu"
    kernels = list(measure(parse("sort.cu", "cuda", path.read_bytes())))
    assert [(k.name, [(d.name, d.line) for d in k.facts.device_functions]) for k in kernels] == [
        ("median", [("swap_lanes", 3), ("swap_lanes", 6), ("network", 9)])]
    # median's three calls, and network's three calls of swap_lanes once per binding of network (V = 4, V = 2), in
    # the order of a set of names (sorted here)
    u4, u2 = (("T", "unsigned"), ("V", "4")), (("T", "unsigned"), ("V", "2"))
    assert sorted(resolved) == sorted([
        (["unsigned", "4"], ()), (["unsigned", "2"], ()), ([], ()),
        (["T", "V"], u4), (["T"], u4), (["T", "V"], u4),
        (["T", "V"], u2), (["T"], u2), (["T", "V"], u2)])
