"""porter history on real git repositories built here: exact counts per commit, every format, the schema, the cache,
shallow clones and bad input."""
from __future__ import annotations

import dataclasses
import datetime as dt
import json
import subprocess
from pathlib import Path

import jsonschema
import pytest

from helpers import REPO, git, make_repo, porter_here
from porter.history import trend
from porter.history.points import Point, history, summarise
from porter.model.assessment import Range
from porter.model.history import PointChange
from porter.history.walk import parse_date, select, walk
from porter.model import Status
from porter.settings import Settings

KERNEL = """#include <cuda_runtime.h>

__global__ void scale(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    v += __shfl_xor_sync(0xffffffff, v, 16);
    if (i < n) x[i] = v;
}

void run(float *host, int n) {
    float *dev;
    cudaMalloc(&dev, n * sizeof(float));
    cudaMemcpy(dev, host, n * sizeof(float), cudaMemcpyHostToDevice);
    scale<<<n / 256, 256>>>(dev, n);
    cudaFree(dev);
}
"""
GUARD_MALLOC = KERNEL.replace("    cudaMalloc(&dev, n * sizeof(float));\n",
                              "#ifdef USE_ROCM\n    hipMalloc(&dev, n * sizeof(float));\n#else\n"
                              "    cudaMalloc(&dev, n * sizeof(float));\n#endif\n")
GUARD_SHUFFLE = GUARD_MALLOC.replace("    v += __shfl_xor_sync(0xffffffff, v, 16);\n",
                                     "#if defined(__HIP_PLATFORM_AMD__)\n    v += __shfl_xor(v, 16);\n#else\n"
                                     "    v += __shfl_xor_sync(0xffffffff, v, 16);\n#endif\n")
CUBLAS_ONLY = """#include <cublas_v2.h>
void gemm(cublasHandle_t h) {
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, nullptr, nullptr, 4, nullptr, 4, nullptr, nullptr, 4);
}
"""


@dataclasses.dataclass(frozen=True)
class Step:
    """One commit of the scenario and what porter must report at it.

    `open` and `handled` count findings: the CUDA side of a ROCm guard reads handled, and so does the ROCm arm's
    own HIP code (port work already done)."""

    subject: str
    write: dict[str, str]
    delete: tuple[str, ...] = ()
    open: int = 0
    handled: int = 0


STEPS = (
    Step("docs only", {"README.md": "# demo\n"}, open=0),
    # kern.cu: API005 include, KRN001 kernel, DEV002+DEV011 shuffle (API004's "same name" on it yields to them),
    # 4× API001 runtime calls, KRN002 launch;
    # only.cu: API005 + LIB001 cuBLAS include, 4× API001 cuBLAS names.
    Step("add the CUDA code", {"src/kern.cu": KERNEL, "src/only.cu": CUBLAS_ONLY}, open=15),
    Step("guard the allocation for ROCm", {"src/kern.cu": GUARD_MALLOC}, open=14, handled=1),
    # The shuffle's two findings (DEV002, DEV011) move to handled, and the ROCm arm's `__shfl_xor` brings two more
    # (API003, DEV011) that read handled too: HIP code is the port, never open work.
    Step("guard the shuffle for ROCm", {"src/kern.cu": GUARD_SHUFFLE}, open=12, handled=5),
    Step("remove the CUDA-only cuBLAS file", {}, delete=("src/only.cu",), open=6, handled=5),
    Step("docs again", {"README.md": "# demo\n\nmore\n"}, open=6, handled=5),
)


def build(root: Path, steps=STEPS) -> list[str]:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    shas = []
    for i, s in enumerate(steps):
        for rel, text in s.write.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        for rel in s.delete:
            (root / rel).unlink()
        git(root, "add", "-A")
        date = (dt.datetime(2024, 1, 1, 12, tzinfo=dt.timezone.utc) + dt.timedelta(days=i)).isoformat()
        subprocess.run(["git", "commit", "-q", "-m", s.subject], cwd=root, check=True, env={
            "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.invalid", "GIT_COMMITTER_NAME": "Ada",
            "GIT_COMMITTER_EMAIL": "ada@example.invalid", "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date,
            "PATH": "/usr/bin:/bin", "HOME": str(root)})
        shas.append(git(root, "rev-parse", "HEAD").strip())
    return shas


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    root = tmp_path_factory.mktemp("history") / "repo"
    return root, build(root)


@pytest.fixture(scope="module")
def walked(scenario, tmp_path_factory):
    root, _ = scenario
    return history(walk(root), Settings(cache_dir=tmp_path_factory.mktemp("cache"), jobs=1))


def test_counts_per_commit(walked, scenario):
    _, shas = scenario
    points = walked.points
    assert [p.commit for p in points] == shas
    assert [p.subject for p in points] == [s.subject for s in STEPS]
    assert [p.open_findings for p in points] == [s.open for s in STEPS]
    assert [p.handled_findings for p in points] == [s.handled for s in STEPS]
    assert [p.cuda_only_findings for p in points] == [0] * len(STEPS)
    assert points[0].change is None
    assert [p.change.open_findings for p in points[1:] if p.change] == [15, -1, -2, -6, 0]
    assert [p.change.handled_findings for p in points[1:] if p.change] == [0, 1, 4, 0, 0]
    assert points[-1].change == PointChange(open_findings=0, handled_findings=0, cuda_only_findings=0,
                                            effort_likely=0.0, open_kernels={"mi355x": 0}, blockers=0)
    # the kernel's only problem on wave64 was the 32-bit shuffle mask; guarded, it needs no work on mi355x
    assert [p.open_kernels for p in points] == [{"mi355x": 0}] + [{"mi355x": 1}] * 2 + [{"mi355x": 0}] * 3
    assert [p.effort.likely for p in points][:1] == [0.0]
    assert all(p.commits == 1 and not p.merge and p.author == "Ada" for p in points)


def test_each_point_equals_a_scan_of_that_commit(walked, scenario):
    """The replayed tree, per-point facts and blob cache give exactly what scanning each commit afresh gives."""
    from porter.estimate.assess import assess
    from porter.pipeline import run
    from porter.source.read import GitTree

    root, shas = scenario
    for p, sha in zip(walked.points, shas):
        r = run(GitTree(root, sha), Settings()).result
        open_r = dataclasses.replace(r, findings=tuple(f for f in r.findings if f.status is Status.OPEN),
                                     kernels=tuple(k for k in r.kernels if k.status is Status.OPEN))
        days = assess(open_r, list(walked.targets)).days
        assert (p.open_findings, p.effort) == (len(open_r.findings),
                                               Range(days.low, days.likely, days.high)), sha


def test_summary_counts_by_status():
    """Counts follow finding.status, and the effort is of the open work only (built with injected statuses)."""
    from porter.estimate.assess import assess
    from porter.pipeline import run
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        Path(d, "k.cu").write_text(KERNEL)
        r = run(Path(d), Settings()).result
    targets = tuple(__import__("porter.targets", fromlist=["x"]).resolve_targets(None))
    from porter.estimate.effort_model import load_effort_model

    model = load_effort_model()
    before = summarise(r, targets, model, assess)
    # The runtime calls stay open, the kernel launch is kept NVIDIA-only, everything else (and the kernel) handled.
    status = {"API001": Status.OPEN, "KRN002": Status.CUDA_ONLY}
    marked = dataclasses.replace(r, findings=tuple(dataclasses.replace(f, status=status.get(f.rule, Status.HANDLED))
                                                   for f in r.findings),
                                 kernels=tuple(dataclasses.replace(k, status=Status.HANDLED) for k in r.kernels))
    after = summarise(marked, targets, model, assess)
    assert (before["open_findings"], before["handled_findings"], before["cuda_only_findings"]) == (9, 0, 0)
    assert (after["open_findings"], after["handled_findings"], after["cuda_only_findings"]) == (4, 4, 1)
    assert before["open_kernels"] == {"mi355x": 1} and after["open_kernels"] == {"mi355x": 0}
    # the kernel's 32-bit masks are one compatibility header (0.5-1-3 h): half a day either way at this rounding
    assert (before["verdict"], before["effort"]) == ("port", {"low": 0.0, "likely": 0.5, "high": 0.5})
    assert (after["verdict"], after["effort"]) == ("mechanical", {"low": 0.0, "likely": 0.5, "high": 0.5})


def test_second_walk_reads_the_cache_and_scans_nothing(scenario, tmp_path):
    root, _ = scenario
    settings = Settings(cache_dir=tmp_path / "c", jobs=1)
    cold = history(walk(root), settings)
    warm = history(walk(root), settings)
    assert warm.points == cold.points
    # 6 commits, one of which (docs again) changes nothing scanned; the three kern.cu versions and only.cu are the
    # blobs. only.cu going changes the repository's own files, but kern.cu includes none of them (its key names
    # the facts it reads: porter.filekey), so it is not scanned again.
    assert cold.stats == {"commits": 6, "points": 6, "points_computed": 5, "points_cached": 0,
                          "blobs_scanned": 4, "cache_hits": 0}
    assert warm.stats == {"commits": 6, "points": 6, "points_computed": 0, "points_cached": 5,
                          "blobs_scanned": 0, "cache_hits": 5}


def test_cost_grows_with_distinct_blobs(tmp_path):
    """Twenty commits that each touch one small file scan 10 + 20 blobs, not 21 × 10 files."""
    root = tmp_path / "r"
    steps = [Step("big", {f"src/f{i}.cu": KERNEL.replace("scale", f"scale{i}") for i in range(10)})]
    steps += [Step(f"touch {i}", {"src/f0.cu": KERNEL.replace("scale", f"scale0_{i}")}) for i in range(20)]
    build(root, steps)
    h = history(walk(root), Settings(jobs=1))
    assert h.stats["blobs_scanned"] == 10 + 20
    assert len(h.points) == 21


def test_every_and_window(scenario):
    root, shas = scenario
    w = walk(root)
    assert select(w.commits, "commit") == [0, 1, 2, 3, 4, 5]
    assert select(w.commits, "day") == [0, 1, 2, 3, 4, 5]
    # 2024-01-01 is a Monday: all six days are ISO week 1.
    assert select(w.commits, "week") == [5]
    assert select(w.commits, "month") == [5]
    h = history(w, Settings(jobs=1), every="week")
    assert [(p.commit, p.commits, p.change) for p in h.points] == [(shas[-1], 6, None)]
    assert [c.sha for c in walk(root, max_commits=2).commits] == shas[-2:]
    assert [c.sha for c in walk(root, since="2024-01-03", until="2024-01-04T23:00:00+00:00").commits] == shas[2:4]


def test_projection_and_sparkline():
    def pt(day: int, likely: float) -> Point:
        return Point(commit=f"{day:040x}", date=f"2024-03-{day:02d}T00:00:00+00:00", author="a", subject="s",
                     merge=False, commits=1, open_findings=0, handled_findings=0, cuda_only_findings=0,
                     effort=Range(likely, likely, likely), verdict="port", open_kernels={},
                     blockers=(), files=1)

    falling = [pt(d, 40 - 2 * d + (0.5 if d % 2 else -0.5)) for d in range(1, 11)]
    p = trend.projection(falling)
    assert (p["status"], p["date"], p["earliest"], p["latest"], p["rate_per_week"]) == \
        ("projected", "2024-03-19", "2024-03-19", "2024-03-19", -14.21)
    assert trend.projection([pt(d, 10) for d in range(1, 6)])["status"] == "flat"
    assert trend.projection([pt(d, 10 + d) for d in range(1, 6)])["status"] == "rising"
    assert trend.projection([pt(1, 5), pt(2, 4)])["status"] == "too few points"
    assert trend.projection([pt(1, 5), pt(2, 0)])["status"] == "done"
    # what the formats say of it, read from the typed report (porter.model.history) the renderers get
    from porter.history.text import projection_text
    from porter.model.history import HistoryReport

    def said(points: list[Point]) -> str:
        doc = {"about": {"name": "r", "commit": None, "branch": None, "version": "0", "date": None}, "repository": "r",
               "path": "", "every": "commit", "targets": [{"id": "mi355x", "name": "MI355X"}],
               "points": [x.to_dict() for x in points], "movers": trend.movers(points),
               "projection": trend.projection(points), "notices": []}
        return projection_text(HistoryReport.of(doc))

    assert said(falling) == ("Projected completion 2024-03-19 (range 2024-03-19 to 2024-03-19) at the burn rate of "
                             "the last 90 days (10 points): 14.21 engineer-days a week.")
    assert said([pt(d, 10) for d in range(1, 6)]) == (
        "No projected completion: the open work is flat over the last 90 days (5 points): 0 engineer-days a week.")
    assert said([pt(1, 5), pt(2, 4)]) == "No projected completion: too few points in the last 90 days (2 points)."
    assert said([pt(1, 5), pt(2, 0)]) == "No open work left."
    assert trend.sparkline([0, 1, 2, 3, 4, 5, 6, 7]) == "▁▂▃▄▅▆▇█"
    assert trend.sparkline([3, 3]) == "▄▄"
    assert trend.sparkline(range(100), width=4) == "▁▃▆█"  # the last of each bin: 24, 49, 74, 99


def test_formats_and_schema(scenario, tmp_path):
    root, shas = scenario
    schema = json.loads((REPO / "porter/schemas/history.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    cache = {"PORTER_CACHE_DIR": str(tmp_path / "c")}
    p = porter_here("history", str(root), "--format", "json", env=cache)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(doc)
    assert [x["commit"] for x in doc["points"]] == shas
    assert doc["schema"] == "porter-history-1" and doc["targets"] == [{"id": "mi355x", "name": "AMD Instinct MI355X"}]
    assert doc["movers"]["added"][0]["subject"] == "add the CUDA code"
    assert "history: 6 commits, 6 points" in p.stderr

    p = porter_here("history", str(root), "-o", str(tmp_path / "h.csv"), "-q", env=cache)
    assert p.returncode == 0 and p.stderr == ""
    rows = (tmp_path / "h.csv").read_text().splitlines()
    assert len(rows) == 7
    assert rows[0].split(",")[:7] == ["commit", "date", "author", "subject", "merge", "commits", "open_findings"]
    assert rows[0].endswith(",open_kernels_mi355x")
    assert rows[1].startswith(f"{shas[0]},2024-01-01T12:00:00+00:00,Ada,docs only,0,1,0,0,0,")

    p = porter_here("history", str(root), "--format", "md", "-q", env=cache)
    assert p.returncode == 0
    from porter import __version__

    assert p.stdout.startswith(f"# Port burndown: repo\n\nporter {__version__} · branch main · commit {shas[-1][:12]}\n\n"
                               "6 point(s) from 2024-01-01 to 2024-01-06")
    assert "Open likely engineer-days: `" in p.stdout and "| commit | date | open | handled |" in p.stdout

    p = porter_here("history", str(root), "-o", str(tmp_path / "h.html"), "-q", env=cache)
    page = (tmp_path / "h.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and '<polyline class="open"' in page
    assert "<script" not in page and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")

    p = porter_here("history", str(root), "-q", env=cache)
    assert p.stdout.startswith(f"Port burndown: repo · porter {__version__} · branch main · commit {shas[-1][:12]}\n"
                               "6 point(s) from 2024-01-01 to 2024-01-06")
    assert "open likely days" in p.stdout


def test_repository_text_is_escaped(tmp_path):
    root = tmp_path / "r"
    build(root, [Step("<script>alert(1)</script> | =cmd", {"a.cu": KERNEL})])
    env = {"PORTER_CACHE_DIR": str(tmp_path / "c")}
    page = porter_here("history", str(root), "-f", "html", "-q", env=env).stdout
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    md = porter_here("history", str(root), "-f", "md", "-q", env=env).stdout
    assert "<script>" not in md
    csv_out = porter_here("history", str(root), "-f", "csv", "-q", env=env).stdout
    assert ",<script>alert(1)</script> | =cmd," in csv_out  # not a formula: the cell starts with <


def test_compare(scenario):
    root, shas = scenario
    p = porter_here("history", str(root), "--compare", f"{shas[1]}..{shas[4]}", "--format", "json", "--no-cache")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["from"]["commit"] == shas[1] and doc["to"]["commit"] == shas[4]
    # 15 open at the start: the allocation and the shuffle's two findings ported (now handled), the cuBLAS file's
    # six removed, six still open; the ROCm arm's own findings read handled, so nothing was added
    assert doc["counts"] == {"ported": 3, "kept_cuda_only": 0, "removed": 6, "added": 0, "reopened": 0,
                             "still_open": 6}
    assert {r["path"] for r in doc["removed"]} == {"src/only.cu"}
    text = porter_here("history", str(root), "--compare", f"{shas[1]}..HEAD", "--no-cache").stdout
    assert text.startswith(f"{shas[1][:12]} (2024-01-02) → {shas[5][:12]} (2024-01-06): ")


def test_compare_tells_code_kept_cuda_only_from_ported(tmp_path):
    """A link the team put behind an off-by-default CMake option was not ported: no ROCm path was written for it
    (session 25's new-user trial saw a CUDA-backend-only example counted as "ported")."""
    root = tmp_path / "r"
    make_repo(root, {"k.cu": "#include <cuda_runtime.h>\nvoid f(){ void* p; cudaMalloc(&p, 4); }\n",
                     "ex/demo.cpp": "#include <cublas_v2.h>\nvoid g(){ cublasHandle_t h; cublasCreate(&h); }\n",
                     "CMakeLists.txt": "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX CUDA)\n"
                                       "add_library(core k.cu)\nadd_executable(demo ex/demo.cpp)\n"
                                       "target_link_libraries(demo CUDA::cublas core)\n"})
    (root / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX CUDA)\n"
        "option(P_CUBLAS_DEMO \"build the cuBLAS demo\" OFF)\nadd_library(core k.cu)\nif(P_CUBLAS_DEMO)\n"
        "  add_executable(demo ex/demo.cpp)\n  target_link_libraries(demo CUDA::cublas core)\nendif()\n")
    git(root, "commit", "-qam", "cuBLAS demo behind an option")
    env = {"PORTER_CACHE_DIR": str(tmp_path / "c")}
    doc = json.loads(porter_here("history", str(root), "--compare", "HEAD~1..HEAD", "-f", "json", env=env).stdout)
    assert doc["counts"] == {"ported": 0, "kept_cuda_only": 1, "removed": 0, "added": 0, "reopened": 0,
                             "still_open": 7}
    assert [(r["rule"], r["path"], r["line"], r["status"]) for r in doc["kept_cuda_only"]] == [
        ("LIB004", "CMakeLists.txt", 7, "cuda-only")]
    text = porter_here("history", str(root), "--compare", "HEAD~1..HEAD", env=env).stdout
    assert text.splitlines()[0].endswith(": 0 ported, 1 kept CUDA-only, 0 removed, 0 added, 0 reopened, 7 still open")
    assert text.splitlines()[1:] == ["  kept CUDA-only: 1 × LIB004"]
    md = porter_here("history", str(root), "--compare", "HEAD~1..HEAD", "-f", "md", env=env).stdout
    assert "## Kept CUDA-only (1)" in md and "## Ported" not in md


def test_shallow_clone_is_refused_unless_allowed(scenario, tmp_path):
    root, shas = scenario
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{root}", str(shallow)], check=True)
    p = porter_here("history", str(shallow), "--no-cache")
    assert p.returncode == 2
    assert "shallow clone" in p.stderr and "fetch-depth: 0" in p.stderr and "git fetch --unshallow" in p.stderr
    p = porter_here("history", str(shallow), "--allow-shallow", "--no-cache", "-f", "json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert [x["commit"] for x in doc["points"]] == shas[-2:]
    assert doc["points"][0]["change"] is None and doc["points"][0]["open_findings"] == STEPS[4].open
    assert any("shallow boundary" in n for n in doc["notices"])


def test_bad_input(tmp_path):
    (tmp_path / "plain").mkdir()
    p = porter_here("history", str(tmp_path / "plain"), "--no-cache")
    assert (p.returncode, "not inside a git repository" in p.stderr) == (2, True)
    p = porter_here("history", str(tmp_path / "missing"), "--no-cache")
    assert (p.returncode, "no such directory" in p.stderr) == (2, True)
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    p = porter_here("history", str(empty), "--no-cache")
    assert (p.returncode, "has no commits yet" in p.stderr) == (2, True)
    (empty / "f.cu").write_text("x")
    p = porter_here("history", str(empty / "f.cu"), "--no-cache")
    assert (p.returncode, "not a file" in p.stderr) == (2, True)
    root = tmp_path / "r"
    build(root, STEPS[:2])
    for args, message in ((["--since", "last tuesday"], "--since must be an ISO date"),
                          (["--every", "fortnight"], "--every must be one of commit, day, week, month"),
                          (["--max-commits", "0"], "--max-commits must be at least 1"),
                          (["--since", "2030-01-01"], "no first-parent commits"),
                          (["--compare", "main"], "--compare takes A..B"),
                          (["--compare", "main..nope"], "'nope': no such commit"),
                          (["--format", "sarif"], "--format must be one of console, json, csv, markdown, html")):
        p = porter_here("history", str(root), "--no-cache", *args)
        assert (p.returncode, message in p.stderr) == (2, True), (args, p.stderr)
    with pytest.raises(Exception, match="ISO date"):
        parse_date("2024-13-01", "--until")


def test_a_bare_date_is_a_whole_day_whatever_the_time_of_day(scenario):
    # git alone reads "2024-01-03" as that date at the current time of day, so the window moved with the clock
    assert parse_date("2024-01-03", "--since") == "2024-01-03T00:00:00"
    assert parse_date("2024-01-03", "--until", end_of_day=True) == "2024-01-03T23:59:59"
    root, shas = scenario  # commit i is dated 2024-01-(i+1) at 12:00 UTC
    assert [c.sha for c in walk(root, since="2024-01-03", until="2024-01-03").commits] == shas[2:3]


def test_merge_heavy_history_says_so(tmp_path):
    root = tmp_path / "r"
    build(root, STEPS[:1])
    for i in range(3):
        git(root, "checkout", "-q", "-b", f"f{i}")
        (root / f"k{i}.cu").write_text(KERNEL.replace("scale", f"s{i}"))
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"feature {i}")
        git(root, "checkout", "-q", "main")
        git(root, "merge", "-q", "--no-ff", f"f{i}", "-m", f"Merge f{i}")
    h = history(walk(root), Settings(jobs=1))
    assert [p.subject for p in h.points] == ["docs only", "Merge f0", "Merge f1", "Merge f2"]
    assert [p.merge for p in h.points] == [False, True, True, True]
    assert [p.change.open_findings for p in h.points[1:] if p.change] == [9, 9, 9]
    assert any("3 of 4 first-parent commits are merges" in n for n in h.notices)


def test_a_directory_of_the_repository_and_several_targets(tmp_path):
    root = tmp_path / "r"
    build(root, [Step("both", {"a/k.cu": KERNEL, "b/only.cu": CUBLAS_ONLY}),
                 Step("b only", {"b/only.cu": CUBLAS_ONLY + "// more\n"})])
    whole = history(walk(root), Settings(jobs=1))
    part = history(walk(root / "a"), Settings(jobs=1, targets=("mi300x", "mi355x")))
    assert [p.open_findings for p in whole.points] == [15, 15]
    assert [p.open_findings for p in part.points] == [9, 9]
    assert part.subdir == "a" and [t.id for t in part.targets] == ["mi300x", "mi355x"]
    assert part.points[0].open_kernels == {"mi300x": 1, "mi355x": 1}
    # Nothing under a/ changed in the second commit: the point repeats the first, computed once.
    assert part.stats["points_computed"] == 1 and (c := part.points[1].change) is not None and c.open_findings == 0
    p = porter_here("history", str(root / "a"), "-t", "mi300x", "-t", "mi355x", "-f", "csv", "-q", "--no-cache")
    assert p.stdout.splitlines()[0].endswith(",open_kernels_mi300x,open_kernels_mi355x")
    doc = json.loads(porter_here("history", str(root / "a"), "--compare", "HEAD~1..HEAD", "-f", "json",
                                "--no-cache").stdout)
    assert doc["path"] == "a" and doc["counts"]["still_open"] == 9
    assert {r["path"] for r in doc["still_open"]} == {"k.cu"}
