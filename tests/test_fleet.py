"""porter fleet on 10 real git repositories (with history) plus three that fail: exact stored rows, stored keys
skipped on the next run, a new commit assessed and reported as a change, an interrupted run resumed without
duplicates, a lost worker retried, and every report format carrying the same numbers."""
from __future__ import annotations

import csv
import io
import json
import os
import re
import sys

import pytest
from typer.testing import CliRunner

from fleet_repos import KINDS, git, make_fleet, readme_recipe
from porter.cli import app
from porter.fleet import assess as fleet_assess
from porter.fleet import inventory
from porter.fleet.assess import Options
from porter.fleet.inventory import Entry
from porter.fleet.report import document
from porter.fleet.scan import scan
from porter.fleet.store import Store
from porter.errors import UsageError

COUNT = 10  # every kind at least twice (fleet_repos.ORDER in turn); more only repeats them


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleet")
    repos = make_fleet(root, COUNT)
    (root / "plain").mkdir()
    (root / "plain" / "x.cu").write_text("__global__ void k() {}\n")
    lines = [f"repos/{name}" for name in repos]
    lines += ["# failing ones, recorded and passed over", f"{root}/missing", "plain", "repos/r00-ready nope badref"]
    (root / "list.txt").write_text("\n".join(lines) + "\n")
    # One `porter assess` per kind: what the fleet must have stored for every repository of that kind.
    expected = {}
    for kind in KINDS:
        name = next(n for n, (k, _) in repos.items() if k == kind)
        doc = json.loads(cli("assess", str(root / "repos" / name), "--isolated", "--cache-dir",
                              str(root / "pcache"), "-f", "json"))
        t = doc["assessment"]["targets"][0]
        expected[kind] = (t["verdict"], t["effort"]["low"], t["effort"]["likely"], t["effort"]["high"])
    opts = ["--clone-cache", str(root / "clones"), "--cache-dir", str(root / "pcache"), "-q"]
    cron(root, opts, workers="2")  # the first run assesses everything: as many workers as this machine has cores
    return root, repos, expected, opts


def cron(root, opts, workers: str | None = None) -> None:
    """The README's weekly cron line as written (`fleet scan estate.txt --db estate.db -w 8 -q && fleet report --db
    estate.db -o estate.md`), its files in `root` and porter's caches the test's own (and `workers` for its -w)."""
    recipe = readme_recipe("The weekly cron:")
    assert [argv[:2] for argv in recipe] == [["fleet", "scan"], ["fleet", "report"]]
    files = {"estate.txt": str(root / "list.txt"), "estate.db": str(root / "fleet.db"),
             "estate.md": str(root / "estate.md")}
    for argv in recipe:
        argv = [files.get(a, a) for a in argv]
        if workers and "-w" in argv:
            argv[argv.index("-w") + 1] = workers
        cli(*argv, *(opts if argv[1] == "scan" else ()))


def test_every_assess_kind_gives_its_own_verdict(fleet):
    _, _, expected, _ = fleet
    assert {k: v[0] for k, v in expected.items()} == {k: v[2] for k, v in KINDS.items()}


def test_stored_rows_are_exactly_what_assess_says(fleet):
    root, repos, expected, _ = fleet
    store = Store.open(root / "fleet.db")
    rows = store.run_rows(1)
    assert [r["repository"] for r in rows] == sorted([*repos, "badref", "missing", "plain"])
    got = {r["repository"]: (r["outcome"], r["commit_id"], r["verdict"],
                              [(t["target"], t["verdict"], t["days_low"], t["days_likely"], t["days_high"])
                               for t in r["targets"]]) for r in rows if r["outcome"] == "assessed"}
    assert got == {name: ("assessed", head, KINDS[kind][2], [("mi355x", *expected[kind])])
                   for name, (kind, head) in repos.items()}
    failed = {r["repository"]: r["reason"] for r in rows if r["outcome"] == "failed"}
    assert failed == {"missing": f"{root}/missing: no such directory",
                      "plain": f"{root}/plain: not a git repository (commit it first: git init && git add -A && "
                               "git commit)",
                      "badref": "no ref 'nope' in the repository"}
    blocked = [r for r in rows if r["verdict"] == "blocked"]
    assert {tuple(r["libraries"]) for r in blocked} == {("TensorRT-LLM",)}
    assert store.counts() == {"fleet_runs": 1, "fleet_assessments": COUNT, "fleet_target_results": COUNT,
                              "fleet_blockers": sum(len(r["blockers"]) for r in rows),
                              "fleet_libraries": sum(len(r["libraries"]) for r in rows),
                              "fleet_run_repositories": COUNT + 3, "fleet_history_points": 0,
                              "fleet_target_blockers": sum(len(t["blockers"]) for r in rows for t in r["targets"])}
    # TensorRT-LLM has no ROCm counterpart on any target: each blocked repository's mi355x line names it.
    assert {tuple(t["blockers"]) for r in blocked for t in r["targets"]} == {("TensorRT-LLM has no ROCm equivalent",)}
    assert all(t["blockers"] == [] for r in rows if r["verdict"] != "blocked" for t in r["targets"])
    # Clones live in porter's cache, never inside a scanned repository, and hold no checked-out file.
    clones = sorted(p.name for p in (root / "clones").iterdir())
    assert len(clones) == COUNT and all(not (root / "clones" / c / "src").exists() for c in clones)


def test_a_second_run_skips_every_stored_key_then_a_new_commit_is_assessed(fleet):
    root, repos, expected, opts = fleet
    db = str(root / "fleet.db")
    assert "## Changes\n\nNo earlier run." in (root / "estate.md").read_text()  # the first cron run's report
    cron(root, opts)
    store = Store.open(db)
    before = store.counts()
    assert before["fleet_runs"] == 2 and before["fleet_assessments"] == COUNT
    rows = store.run_rows(2)
    assert sorted({r["outcome"] for r in rows if r["repository"] in repos}) == ["stored"]
    assert [r["assessment_id"] for r in rows if r["repository"] in repos] == \
        [r["assessment_id"] for r in store.run_rows(1) if r["repository"] in repos]
    assert document(store)["changes"] == []
    report = (root / "estate.md").read_text()  # the second cron run's: nothing moved since the first
    assert report.endswith("## Changes since run 1\n\nNo change since run 1.\n")

    # r03-blocked drops TensorRT-LLM: one new assessment, the rest stored; the report says what moved.
    repo = root / "repos" / "r03-blocked"
    (repo / "src" / "serve.py").unlink()
    (repo / "src" / "m.py").write_text(KINDS["ready"][1])
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "vllm instead", date="2026-01-19T10:00:00Z")
    head = git(repo, "rev-parse", "HEAD")
    cron(root, opts)
    store = Store.open(db)
    assert store.counts()["fleet_assessments"] == COUNT + 1
    rows = {r["repository"]: r for r in store.run_rows(3)}
    assert [n for n, r in rows.items() if r["outcome"] == "assessed"] == ["r03-blocked"]
    assert rows["r03-blocked"]["commit_id"] == head
    old = repos["r03-blocked"][1]
    assert document(store)["changes"] == [
        {"repository": "r03-blocked", "target": "", "change": "commit", "before": old[:12], "after": head[:12]},
        {"repository": "r03-blocked", "target": "mi355x", "change": "verdict", "before": "blocked", "after": "ready"},
        {"repository": "r03-blocked", "target": "mi355x", "change": "effort", "before": expected["blocked"][2],
         "after": 0.0}]
    assert (root / "estate.md").read_text().endswith(  # the third cron run's report says the same
        f"## Changes since run 2\n\n| repository | target | change | before | after |\n|---|---|---|---|---|\n"
        f"| r03-blocked |  | commit | {old[:12]} | {head[:12]} |\n| r03-blocked | mi355x | verdict | blocked | ready |\n"
        f"| r03-blocked | mi355x | effort | {expected['blocked'][2]:g} | 0 |\n")


def test_every_report_format_shows_the_same_numbers(fleet):
    root, repos, _, _ = fleet
    db = str(root / "fleet.db")
    doc = json.loads(cli("fleet", "report", "--db", db, "--run", "1", "-f", "json"))
    t = doc["targets"][0]
    ranking = [(x["repository"], x["verdict"], x["days_likely"], x["days_low"], x["days_high"]) for x in t["ranking"]]
    assert len(ranking) == COUNT and ranking == sorted(ranking, key=lambda x: (-x[2], -x[4], x[0]))
    assert t["verdicts"] == {"blocked": 2, "port": 2, "mechanical": 3, "ready": 3}  # 10 repositories, kinds in turn
    assert t["ready_now"] == sorted(n for n, (k, _) in repos.items() if k == "ready")
    kinds = {k: sorted(n for n, (kk, _) in repos.items() if kk == k) for k in KINDS}
    assert doc["libraries"] == [
        {"library": "CUDA runtime / driver API", "count": 3, "repositories": kinds["mech"]},
        {"library": "TensorRT-LLM", "count": 2, "repositories": kinds["blocked"]}]
    assert [b["count"] for b in doc["blockers"]] and all(b["repositories"] == kinds["blocked"] for b in doc["blockers"])
    assert t["blockers"] == [{"blocker": "TensorRT-LLM has no ROCm equivalent", "count": 2,
                              "repositories": kinds["blocked"]}]
    blocked_names = ", ".join(kinds["blocked"])

    rows = list(csv.reader(io.StringIO(cli("fleet", "report", "--db", db, "--run", "1", "-f", "csv"))))
    by = {}
    for section, target, name, field, value in rows[1:]:
        by.setdefault((section, target, name), {})[field] = value
    assert [(n, by[("ranking", "mi355x", n)]["verdict"], float(by[("ranking", "mi355x", n)]["days_likely"]),
             float(by[("ranking", "mi355x", n)]["days_low"]), float(by[("ranking", "mi355x", n)]["days_high"]))
            for n, *_ in ranking] == ranking
    assert {k: int(v) for k, v in by[("verdicts", "mi355x", "")].items()} == t["verdicts"]
    assert {k: float(v) for k, v in by[("open_days", "mi355x", "")].items()} == t["open_days"]
    assert [r[4] for r in rows if r[:3] == ["target_blockers", "mi355x", "TensorRT-LLM has no ROCm equivalent"]] \
        == kinds["blocked"]
    assert {k: int(v) for k, v in by[("totals", "", "")].items()} == doc["totals"]

    md = cli("fleet", "report", "--db", db, "--run", "1", "-f", "md")
    md_rows = [tuple(c.strip().strip("`") for c in line.strip("|").split("|"))
               for line in md.splitlines() if re.match(r"^\| r\d\d-", line)]
    assert [(r[0], r[1], float(r[2]), float(r[3]), float(r[4])) for r in md_rows[:COUNT]] == ranking
    assert "Verdicts: blocked 2, port 2, mechanical 3, ready 3." in md
    assert "Blockers on mi355x (1):" in md.splitlines()
    assert f"| TensorRT-LLM has no ROCm equivalent | 2 | {blocked_names} |" in md.splitlines()

    page = cli("fleet", "report", "--db", db, "--run", "1", "-f", "html")
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr>(<td>r\d\d-.*?)</tr>", page)]
    assert [(c[0], re.sub(r"<[^>]+>", "", c[1]), float(c[2]), float(c[3]), float(c[4])) for c in cells[:COUNT]] \
        == ranking
    assert "Verdicts: blocked 2, port 2, mechanical 3, ready 3." in page and "<script" not in page
    assert ('<h3>Blockers on mi355x (1)</h3><table class="target-blockers"><thead><tr><th>blocker</th>'
            '<th>repositories</th><th>which</th></tr></thead><tbody><tr><td>TensorRT-LLM has no ROCm equivalent</td>'
            f'<td class="n">2</td><td>{blocked_names}</td></tr></tbody></table>') in page.replace("\n", "")

    text = cli("fleet", "report", "--db", db, "--run", "1")
    lines = [line.split() for line in text.splitlines() if re.match(r"^  r\d\d-", line)]
    assert [(x[0], x[1], float(x[2]), *map(float, x[3].split("–"))) for x in lines] == ranking
    assert "mi355x: open effort" in text and "blocked 2, port 2, mechanical 3, ready 3" in text
    assert f"{t['open_days']['likely']:g}" in text
    assert text.split("  blockers on mi355x (1):\n")[1].splitlines()[0] == \
        f"      2  TensorRT-LLM has no ROCm equivalent: {blocked_names}"
    tot = doc["totals"]
    assert (f"{tot['repositories']} repositories: {tot['assessed']} assessed, {tot['failed']} failed; "
            f"{tot['open_findings']} open findings, {tot['handled_findings']} handled, {tot['kernels']} kernels") \
        in text.splitlines()
    assert (f"**{tot['repositories']} repositories**: {tot['assessed']} assessed, {tot['failed']} failed; "
            f"{tot['open_findings']} open findings, {tot['handled_findings']} handled, {tot['kernels']} kernels.") \
        in md.splitlines()
    assert (f'<p id="totals"><b>{tot["repositories"]} repositories</b>: {tot["assessed"]} assessed, '
            f'{tot["failed"]} failed; {tot["open_findings"]} open findings, {tot["handled_findings"]} handled, '
            f'{tot["kernels"]} kernels.</p>') in page


def test_an_interrupted_run_resumes_without_duplicates(fleet, tmp_path):
    root, repos, _, _ = fleet
    entries = tuple(Entry(n, str(root / "repos" / n)) for n in sorted(repos)[:6])
    options = Options(clone_cache=root / "clones", cache_dir=root / "pcache")
    store = Store.open(tmp_path / "f.db")
    seen = []

    def stop_after_two(o) -> None:
        seen.append(o.name)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        scan(store, entries, options, workers=2, progress=stop_after_two)
    assert store.counts()["fleet_run_repositories"] == 2 and store.run_info(1)["finished"] is None
    summary = scan(store, entries, options, workers=2)
    assert (summary.run_id, summary.resumed, summary.assessed + summary.stored, summary.failed) == (1, 2, 4, 0)
    assert store.run_info(1)["finished"] is not None
    counts = store.counts()
    assert (counts["fleet_runs"], counts["fleet_assessments"], counts["fleet_run_repositories"]) == (1, 6, 6)
    assert sorted(r["repository"] for r in store.run_rows(1)) == [e.name for e in entries]


def test_a_lost_worker_is_retried_and_a_repository_that_always_kills_it_is_recorded(fleet, tmp_path, monkeypatch):
    root, repos, _, _ = fleet
    names = sorted(repos)[:4]
    marker = tmp_path / "died-once"
    real = fleet_assess.checkout

    def dying(entry, cache, timeout=600.0):
        # Forked pool workers inherit this patch: one repository kills its worker once, another every time.
        if entry.name == names[1] and not marker.exists():
            marker.write_text("x")
            os._exit(9)
        if entry.name == names[2]:
            os._exit(9)
        return real(entry, cache, timeout)

    monkeypatch.setattr(fleet_assess, "checkout", dying)
    store = Store.open(tmp_path / "f.db")
    entries = tuple(Entry(n, str(root / "repos" / n)) for n in names)
    scan(store, entries, Options(clone_cache=root / "clones", cache_dir=root / "pcache"), workers=2)
    got = {r["repository"]: (r["outcome"], r["reason"]) for r in store.run_rows(1)}
    assert got == {names[0]: ("assessed", None), names[1]: ("assessed", None), names[3]: ("assessed", None),
                   names[2]: ("failed", "its worker process died 3 times while assessing it (out of memory? a crash?)")}
    assert marker.exists()


def test_a_repository_past_its_timeout_is_recorded_and_the_fleet_goes_on(fleet, tmp_path):
    root, repos, _, _ = fleet
    store = Store.open(tmp_path / "f.db")
    name = sorted(repos)[0]
    scan(store, (Entry(name, str(root / "repos" / name)),),
         Options(clone_cache=tmp_path / "clones", cache_dir=root / "pcache", timeout=0.001))
    (row,) = store.run_rows(1)
    assert (row["outcome"], row["commit_id"], row["reason"]) == ("failed", None, "took longer than 0.001 s")


def test_git_past_its_own_timeout_reads_as_the_repository_past_its_timeout(fleet, tmp_path):
    """The clone gets the repository's timeout too: when git's own check stops it before the task's timer does (a
    loaded machine), the stored reason is the same one."""
    from porter.fleet.checkout import CheckoutTimeout, checkout

    root, repos, _, _ = fleet
    name = sorted(repos)[0]
    location = str(root / "repos" / name)
    with pytest.raises(CheckoutTimeout) as e:
        checkout(Entry(name, location), tmp_path / "clones", timeout=1e-9)
    assert str(e.value) == f"git cannot clone or fetch {location}: git clone took longer than 1e-09 s"
    assert fleet_assess._reason(e.value, 1e-9) == "took longer than 1e-09 s"
    assert not list((tmp_path / "clones").iterdir())  # the half-made clone is not left to be taken for one


def test_a_directory_of_clones_is_a_fleet(fleet):
    root, repos, _, _ = fleet
    found = inventory.load(root / "repos")
    assert [(e.name, e.location, e.ref) for e in found] == [(n, str(root / "repos" / n), None) for n in sorted(repos)]


def test_a_directory_of_plain_trees_says_how_to_make_it_a_fleet(tmp_path):
    """Dev trees unpacked from tarballs (no .git): the error says what fleet needs and what to do instead."""
    (tmp_path / "crystal" / "src").mkdir(parents=True)
    with pytest.raises(UsageError) as e:
        inventory.load(tmp_path)
    assert str(e.value) == (f"{tmp_path}: no git repositories directly under this directory (fleet reads every "
                            "repository from git: make each subdirectory one with `git init && git add -A && git "
                            "commit -m import`, or assess a plain tree with `porter assess DIR`)")


def test_the_list_format(tmp_path):
    text = ("# the estate\n"
            "https://github.com/ROCm/rocm-examples.git\n"
            "git@github.com:NVIDIA/cuda-samples.git v12.8 samples   # pinned\n"
            "../lib/kernels - kernels\n"
            "\n")
    assert inventory.parse(text, tmp_path / "x") == (
        Entry("rocm-examples", "https://github.com/ROCm/rocm-examples.git", None),
        Entry("samples", "git@github.com:NVIDIA/cuda-samples.git", "v12.8"),
        Entry("kernels", str((tmp_path / "lib" / "kernels").resolve()), None))
    with pytest.raises(ValueError, match=r"list:2: the name 'a' is already used on line 1"):
        inventory.parse("x/a\ny/a\n")
    with pytest.raises(ValueError, match=r"list:1: expected LOCATION \[REF \[NAME\]\], found 4 fields"):
        inventory.parse("a b c d\n")
    with pytest.raises(ValueError, match=r"list:1: '--upload-pack=x' is not a ref"):
        inventory.parse("a --upload-pack=x\n")


def test_the_html_report_renders_in_a_real_browser(fleet, tmp_path):
    import shutil
    import subprocess

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (apt-get install chromium; scripts/bootstrap.sh does it)")
    root, repos, _, _ = fleet
    page = tmp_path / "fleet.html"
    cli("fleet", "report", "--db", str(root / "fleet.db"), "--run", "1", "-o", str(page))
    p = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    dom = p.stdout
    assert len(re.findall(r'<table class="ranking">', dom)) == 1
    assert len(re.findall(r'<span class="blocked">blocked</span>', dom)) == 2
    assert len(re.findall(r'<span class="ready">ready</span>', dom)) == 3
    assert len(re.findall(r'<table class="target-blockers">', dom)) == 1
    assert ('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; '
            'img-src data:">') in page.read_text(encoding="utf-8")


def test_usage_errors_exit_2_with_the_reason(tmp_path):
    (tmp_path / "list.txt").write_text("a\n")
    runner = CliRunner()
    r = runner.invoke(app, ["fleet", "scan", str(tmp_path / "list.txt"), "--db", str(tmp_path / "f.db"),
                            "--executor", "ray://127.0.0.1:10001"])
    assert (r.exit_code, r.stderr.strip()) == (2, "error: --executor ray://127.0.0.1:10001: expected "
                                                  "dask://HOST:PORT (or leave it out for the local pool)")
    r = runner.invoke(app, ["fleet", "report", "--db", str(tmp_path / "empty.db")])
    assert (r.exit_code, r.stderr.strip()) == (2, "error: the fleet database holds no run yet (run `porter fleet "
                                                  "scan` first)")
    r = runner.invoke(app, ["fleet", "scan", str(tmp_path / "list.txt"), "--since", "2026-01-01"])
    assert (r.exit_code, r.stderr.strip()) == (2, "error: --since needs --history")


def test_a_run_where_every_repository_failed_exits_2_and_stores_the_failures(tmp_path):
    """A cron line `fleet scan LIST && fleet report` must not report an empty estate as a good run; one repository
    assessed (or already stored) keeps the exit 0 a partly failing estate has."""
    (tmp_path / "plain" / "src").mkdir(parents=True)
    (tmp_path / "list.txt").write_text("plain\nmissing\n")
    r = CliRunner().invoke(app, ["fleet", "scan", str(tmp_path / "list.txt"), "--db", str(tmp_path / "f.db"), "-q",
                                 "--no-cache", "--clone-cache", str(tmp_path / "clones")])
    assert r.exit_code == 2
    assert r.stderr.splitlines() == ["fleet run 1: 0 assessed, 0 already stored, 2 failed",
                                     "error: every repository failed; `porter fleet report` lists why"]
    rows = Store.open(tmp_path / "f.db").run_rows(1)
    assert sorted((row["repository"], row["outcome"]) for row in rows) == [("missing", "failed"), ("plain", "failed")]


def test_the_default_database_is_one_sqlite_file_in_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["fleet", "report"])
    assert (r.exit_code, r.stderr.strip()) == (2, "error: the fleet database holds no run yet (run `porter fleet "
                                                  "scan` first)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["porter-fleet.db"]
    assert (tmp_path / "porter-fleet.db").read_bytes()[:16] == b"SQLite format 3\0"


def test_the_engine_and_postgresql_extras_are_optional(tmp_path, monkeypatch):
    # As on a machine with porter's plain install: no `distributed`, no `psycopg` (None in sys.modules: import fails).
    monkeypatch.setitem(sys.modules, "distributed", None)
    monkeypatch.setitem(sys.modules, "psycopg", None)
    (tmp_path / "list.txt").write_text("a\n")
    runner = CliRunner()
    r = runner.invoke(app, ["fleet", "scan", str(tmp_path / "list.txt"), "--db", str(tmp_path / "f.db"),
                            "--executor", "dask://127.0.0.1:8786"])
    assert (r.exit_code, r.stderr.strip()) == (2, "error: --executor dask://127.0.0.1:8786: Dask is not installed "
                                                  "(pip install 'porter-rocm[fleet-dask]')")
    assert Store.open(tmp_path / "f.db").run_ids() == []  # refused before a run was started
    r = runner.invoke(app, ["fleet", "report", "--db", "postgresql://porter@127.0.0.1:1/porter"])
    assert r.exit_code == 2 and r.stderr.startswith("error: --db postgresql://porter@127.0.0.1:1/porter: ")
    assert r.stderr.rstrip().endswith("(PostgreSQL needs the 'fleet' extra: pip install 'porter-rocm[fleet]')")


def test_text_a_repository_controls_is_escaped_in_every_format(fleet):
    from porter.fleet.render import render

    root, _, _, _ = fleet
    doc = document(Store.open(root / "fleet.db"), 1)
    doc["failed"] = [{"repository": "evil", "reason": "remote: \x1b[2Jpwned\n| x | <b>"}]
    console = render("console", doc).decode()
    assert "  evil: remote: \\x1b[2Jpwned\\x0a| x | <b>" in console.splitlines() and "\x1b" not in console
    assert "| evil | remote: \\\\x1b\\[2Jpwned \\| x \\| &lt;b> |" in render("markdown", doc).decode().splitlines()
    assert "<td>remote: \x1b[2Jpwned\n| x | &lt;b&gt;</td>" in render("html", doc).decode()


def test_a_local_repository_whose_objects_are_another_repositorys_is_refused(fleet, tmp_path):
    # `git clone` copies every object an alternates file or an objects symlink reaches: a bare repository borrowing
    # another one's store would have that repository's code assessed (and copied into the clone cache) under its name.
    root, repos, _, _ = fleet
    other = root / "repos" / sorted(repos)[0]
    head = git(other, "rev-parse", "HEAD").strip()
    borrowing = tmp_path / "borrowing"
    git(tmp_path, "init", "-q", "--bare", str(borrowing))
    (borrowing / "objects" / "info" / "alternates").write_text(f"{other}/.git/objects\n")
    git(borrowing, "update-ref", "refs/heads/main", head)
    linked = tmp_path / "linked"
    git(tmp_path, "init", "-q", "--bare", str(linked))
    import shutil

    shutil.rmtree(linked / "objects")
    (linked / "objects").symlink_to(other / ".git" / "objects")
    own = tmp_path / "own.git"
    git(tmp_path, "clone", "-q", "--bare", str(other), str(own))
    store = Store.open(tmp_path / "f.db")
    scan(store, (Entry("borrowing", str(borrowing), "main"), Entry("linked", str(linked), "main"),
                 Entry("own", str(own))),
         Options(clone_cache=tmp_path / "clones", cache_dir=root / "pcache"))
    rows = {r["repository"]: r for r in store.run_rows(1)}
    assert rows["own"]["outcome"] == "assessed"
    assert rows["borrowing"]["outcome"] == rows["linked"]["outcome"] == "failed"
    assert rows["borrowing"]["reason"].startswith(
        f"{borrowing}: {borrowing}/objects/info/alternates (alternates) leads to the object store {other}/.git/objects,"
        " outside the repository")
    assert rows["linked"]["reason"] == (f"{linked}: {linked}/objects leads to {other}/.git/objects, outside the "
                                        "repository (a symlink?)")
    assert not (tmp_path / "clones").exists() or all("own" in p.name for p in (tmp_path / "clones").iterdir())


def test_blockers_are_listed_per_target_with_the_repositories_they_block_there(tmp_path):
    from porter.fleet.assess import ASSESSED, Outcome, TargetResult
    from porter.fleet.render import render

    # Outcomes as a worker returns them: a blocker that holds on one target only (a wave-32 target, say) is listed
    # under that target and not under the other, and the fleet-wide list still names it once.
    store = Store.open(tmp_path / "f.db")
    run_id, _ = store.start_run("v", "mi300x,mi455x", "local:1", 3)

    def outcome(name, verdicts, per_target):
        return Outcome(name, f"/r/{name}", None, ASSESSED, name * 8, "s", verdict="blocked", days_low=1.0,
                       days_likely=2.0, days_high=3.0,
                       targets=tuple(TargetResult(t, v, 1.0, 2.0, 3.0) for t, v in verdicts),
                       blockers=tuple(sorted({b for _, bs in per_target for b in bs})), target_blockers=per_target)

    store.record(run_id, outcome("a", [("mi300x", "blocked"), ("mi455x", "blocked")],
                                 (("mi300x", ("NVFP4 checkpoint",)), ("mi455x", ("NVFP4 checkpoint", "wave32 only")))),
                 "mi300x,mi455x", "v")
    store.record(run_id, outcome("b", [("mi300x", "port"), ("mi455x", "blocked")],
                                 (("mi455x", ("wave32 only",)),)), "mi300x,mi455x", "v")
    store.record(run_id, outcome("c", [("mi300x", "ready"), ("mi455x", "ready")], ()), "mi300x,mi455x", "v")
    store.finish_run(run_id)
    doc = document(store)
    assert {t["target"]: t["blockers"] for t in doc["targets"]} == {
        "mi300x": [{"blocker": "NVFP4 checkpoint", "count": 1, "repositories": ["a"]}],
        "mi455x": [{"blocker": "wave32 only", "count": 2, "repositories": ["a", "b"]},
                   {"blocker": "NVFP4 checkpoint", "count": 1, "repositories": ["a"]}]}
    assert doc["blockers"] == [{"blocker": "wave32 only", "count": 2, "repositories": ["a", "b"]},
                               {"blocker": "NVFP4 checkpoint", "count": 1, "repositories": ["a"]}]
    text = render("console", doc).decode().splitlines()
    at = text.index("  blockers on mi455x (2):")
    assert text[at + 1:at + 3] == ["      2  wave32 only: a, b", "      1  NVFP4 checkpoint: a"]
    assert text[text.index("  blockers on mi300x (1):") + 1] == "      1  NVFP4 checkpoint: a"
    md = render("markdown", doc).decode().splitlines()
    at = md.index("Blockers on mi455x (2):")
    assert md[at + 2:at + 6] == ["| blocker | repositories | which |", "|---|---:|---|", "| wave32 only | 2 | a, b |",
                                 "| NVFP4 checkpoint | 1 | a |"]
    rows = list(csv.reader(io.StringIO(render("csv", doc).decode())))
    assert [r for r in rows if r[0] == "target_blockers"] == [
        ["target_blockers", "mi300x", "NVFP4 checkpoint", "repository", "a"],
        ["target_blockers", "mi455x", "wave32 only", "repository", "a"],
        ["target_blockers", "mi455x", "wave32 only", "repository", "b"],
        ["target_blockers", "mi455x", "NVFP4 checkpoint", "repository", "a"]]
    assert json.loads(render("json", doc))["targets"][1]["blockers"] == doc["targets"][1]["blockers"]
    assert ('<h3>Blockers on mi455x (2)</h3><table class="target-blockers"><thead><tr><th>blocker</th>'
            '<th>repositories</th><th>which</th></tr></thead><tbody><tr><td>wave32 only</td><td class="n">2</td>'
            '<td>a, b</td></tr><tr><td>NVFP4 checkpoint</td><td class="n">1</td><td>a</td></tr></tbody></table>'
            ) in render("html", doc).decode().replace("\n", "")


PARTLY_PORTED = """\
#include <cuda_runtime.h>
__device__ unsigned vote(float v) {
#ifdef __HIP_PLATFORM_AMD__
  return __ballot(v > 0);
#else
  return __ballot_sync(0xffffffff, v > 0);
#endif
}
void f(float* h, int n) { float* d; cudaMalloc(&d, n * 4); cudaFree(d); }
"""


def test_each_format_shows_the_work_a_repository_already_did(tmp_path):
    """A partly ported repository's handled findings (its ROCm arm answers them) are stored beside its open ones and
    shown per repository and in the totals, the same number in every format and the same as `porter scan` counts."""
    from helpers import make_repo

    repo = make_repo(tmp_path / "repos" / "partly", {"src/v.cu": PARTLY_PORTED})
    scanned = json.loads(cli("scan", str(repo), "-f", "json", "--no-cache"))
    handled = sum(1 for f in scanned["findings"] if f["status"] == "handled")
    opened = sum(1 for f in scanned["findings"] if f["status"] == "open")
    assert handled == 1 and opened >= 1  # the 32-bit mask under the CUDA arm; the runtime calls are open
    (tmp_path / "list.txt").write_text("repos/partly\n")
    db = str(tmp_path / "f.db")
    cli("fleet", "scan", str(tmp_path / "list.txt"), "--db", db, "-q", "--no-cache",
        "--clone-cache", str(tmp_path / "clones"))
    doc = json.loads(cli("fleet", "report", "--db", db, "-f", "json"))
    assert doc["totals"]["handled_findings"] == handled and doc["totals"]["open_findings"] == opened
    assert [(x["repository"], x["open_findings"], x["handled_findings"]) for x in doc["targets"][0]["ranking"]] \
        == [("partly", opened, handled)]
    text = cli("fleet", "report", "--db", db).splitlines()
    row = next(line.split() for line in text if line.startswith("  partly "))
    assert (int(row[4]), int(row[5])) == (opened, handled)
    md = cli("fleet", "report", "--db", db, "-f", "md")
    cells = next(line.strip("|").split("|") for line in md.splitlines() if line.startswith("| partly |"))
    assert (int(cells[5]), int(cells[6])) == (opened, handled)
    page = cli("fleet", "report", "--db", db, "-f", "html")
    tds = re.findall(r"<td[^>]*>(.*?)</td>", re.search(r"<tr><td>partly</td>.*?</tr>", page).group(0))
    assert (int(tds[5]), int(tds[6])) == (opened, handled)
    rows = list(csv.reader(io.StringIO(cli("fleet", "report", "--db", db, "-f", "csv"))))
    assert [r[4] for r in rows if r[0] == "ranking" and r[3] == "handled_findings"] == [str(handled)]
    assert [r[4] for r in rows if r[0] == "totals" and r[3] == "handled_findings"] == [str(handled)]
