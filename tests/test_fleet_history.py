"""`porter fleet scan --history weekly --since DATE`: points back in time through porter.history, stored once per
commit, and the fleet's week-by-week burndown in the report; and the schema migration that added them."""
from __future__ import annotations

import json

import sqlalchemy as sa
from typer.testing import CliRunner

from fleet_repos import KINDS, git, make_repo
from porter.cli import app
from porter.fleet import store as fleet_store
from porter.fleet.store import SCHEMA_VERSION, Store


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_weekly_history_points_and_the_burndown(tmp_path):
    heads = {}
    for kind in ("ready", "mech", "blocked"):
        heads[kind] = make_repo(tmp_path / "repos" / kind, kind)  # commits on 2026-01-05 (README) and 2026-01-12
    db = str(tmp_path / "f.db")
    args = ["fleet", "scan", str(tmp_path / "repos"), "--db", db, "--clone-cache", str(tmp_path / "clones"),
            "--cache-dir", str(tmp_path / "pcache"), "--history", "weekly", "--since", "2026-01-01", "-q"]
    first = CliRunner().invoke(app, args, catch_exceptions=False)
    assert (first.exit_code, first.stderr) == (0, "fleet run 1: 3 assessed, 0 already stored, 0 failed; "
                                                  "6 history points computed\n")
    store = Store.open(db)
    info = store.run_info(1)
    points = store.history(info["targets"], info["porter_version"])
    assert [(p["repository"], p["date"][:10], p["verdict"]) for p in points] == [
        ("blocked", "2026-01-05", "ready"), ("blocked", "2026-01-12", "blocked"),
        ("mech", "2026-01-05", "ready"), ("mech", "2026-01-12", "mechanical"),
        ("ready", "2026-01-05", "ready"), ("ready", "2026-01-12", "ready")]
    assessed = {r["repository"]: r for r in store.run_rows(1)}
    # The last point is the assessed commit, with the assessment's open work.
    for p in points[1::2]:
        assert p["commit_id"] == heads[p["repository"]]
        assert p["days_likely"] == assessed[p["repository"]]["days_likely"]
    doc = json.loads(cli("fleet", "report", "--db", db, "-f", "json"))
    likely = round(sum(r["days_likely"] for r in assessed.values()), 1)
    assert [(b["week"], b["repositories"], b["days_likely"]) for b in doc["burndown"]] == [
        ("2026-01-05", 3, 0.0), ("2026-01-12", 3, likely)]
    assert likely > 0 and {KINDS[k][2] for k in heads} == {"ready", "mechanical", "blocked"}
    md = cli("fleet", "report", "--db", db, "-f", "md")
    assert f"| 2026-01-12 | 3 | {likely:g} |" in md
    page = cli("fleet", "report", "--db", db, "-f", "html")
    assert page.count('<circle class="point"') == 2
    assert f'<td>2026-01-12</td><td class="n">3</td><td class="n">{likely:g}</td>' in page
    csv_text = cli("fleet", "report", "--db", db, "-f", "csv")
    assert f"burndown,,2026-01-12,days_likely,{likely:g}" in csv_text.splitlines()
    week = doc["burndown"][1]
    span = f"{week['days_low']:g}–{week['days_high']:g}"
    text = cli("fleet", "report", "--db", db).splitlines()
    assert text[text.index("Burndown (open engineer-days of the fleet, week by week):") + 2:] == [
        f"  2026-01-05  {3:>5}  {0:>7}  {'0–0':>13}  {doc['burndown'][0]['open_findings']:>13}",
        f"  2026-01-12  {3:>5}  {likely:>7g}  {span:>13}  {week['open_findings']:>13}"]
    # Points are stored once per commit: a second run adds none.
    cli(*args)
    assert Store.open(db).counts()["fleet_history_points"] == 6


def test_a_version_1_database_is_migrated_and_keeps_its_rows(tmp_path):
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    with engine.begin() as conn:
        fleet_store.schema_table.create(conn)
        conn.execute(fleet_store.schema_table.insert().values(version=1))
        fleet_store.MIGRATIONS[0](conn)
        conn.execute(fleet_store.runs.insert().values(started="2026-01-01T00:00:00Z", porter_version="0.1.0",
                                                      targets="mi355x", executor="local:1", repositories=0))
    assert not sa.inspect(engine).has_table("fleet_history_points")
    assert not sa.inspect(engine).has_table("fleet_target_blockers")
    store = Store.open(tmp_path / "old.db")
    assert sa.inspect(store.engine).has_table("fleet_history_points")
    assert sa.inspect(store.engine).has_table("fleet_target_blockers")
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("select version from fleet_schema")).scalars().all() == [SCHEMA_VERSION] == [4]
    assert store.run_ids() == [1]


def test_a_version_3_database_gets_the_handled_column_and_old_assessments_read_unknown(tmp_path):
    """Assessments a version-3 database stored have no handled count: the migration adds the column, the old rows
    read NULL and the report says "-" (and no fleet total) rather than a made-up 0."""
    from porter.fleet.render import render
    from porter.fleet.report import document

    engine = sa.create_engine(f"sqlite:///{tmp_path / 'v3.db'}")
    with engine.begin() as conn:
        fleet_store.schema_table.create(conn)
        conn.execute(fleet_store.schema_table.insert().values(version=3))
        for step in fleet_store.MIGRATIONS[:3]:
            step(conn)
        conn.execute(sa.text("ALTER TABLE fleet_assessments DROP COLUMN handled_findings"))  # as version 3 made it
        conn.execute(fleet_store.runs.insert().values(started="2026-01-01T00:00:00Z", porter_version="0.1.0",
                                                      targets="mi355x", executor="local:1", repositories=1))
        conn.execute(sa.text(
            "INSERT INTO fleet_assessments (repository, commit_id, targets, porter_version, settings_hash, run_id, "
            "verdict, days_low, days_likely, days_high, files, open_findings, kernels) VALUES ('old', 'c0ffee', "
            "'mi355x', '0.1.0', 'h', 1, 'port', 1, 2, 3, 4, 5, 6)"))
        conn.execute(fleet_store.target_results.insert().values(assessment_id=1, target="mi355x", verdict="port",
                                                                days_low=1, days_likely=2, days_high=3))
        conn.execute(fleet_store.run_repositories.insert().values(
            run_id=1, repository="old", location="old", outcome="assessed", commit_id="c0ffee", assessment_id=1,
            seconds=1.0))
    store = Store.open(tmp_path / "v3.db")
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("select version from fleet_schema")).scalars().all() == [4]
    doc = document(store)
    assert doc["totals"]["handled_findings"] is None
    assert [(x["repository"], x["open_findings"], x["handled_findings"]) for x in doc["targets"][0]["ranking"]] \
        == [("old", 5, None)]
    assert "| old | port | 2 | 1 | 3 | 5 | - | `c0ffee` |" in render("markdown", doc).decode().splitlines()
    assert "1 repositories: 1 assessed, 0 failed; 5 open findings, - handled, 6 kernels" in \
        render("console", doc).decode().splitlines()


def test_each_history_point_is_a_task_of_its_own_and_a_stored_point_is_not_redone(tmp_path, monkeypatch):
    from porter.fleet import scan as fleet_scan
    from porter.fleet.assess import Options, PointOutcome, PointTask
    from porter.fleet.inventory import Entry

    heads = {kind: make_repo(tmp_path / "repos" / kind, kind) for kind in ("mech", "blocked")}
    seen: list[tuple[str, str, str]] = []  # (what came back, repository, commit or status), in the parent
    real = fleet_scan.execute

    def spying(tasks, done, **how):
        def watch(o):
            follow = done(o)
            seen.append(("point", o.name, o.commit) if isinstance(o, PointOutcome) else ("repository", o.name, o.status))
            seen.extend(("task", t.entry.name, t.commit) for t in follow if isinstance(t, PointTask))
            return follow
        return real(tasks, watch, **how)

    monkeypatch.setattr(fleet_scan, "execute", spying)
    entries = [Entry(k, str(tmp_path / "repos" / k)) for k in sorted(heads)]
    options = Options(clone_cache=tmp_path / "clones", cache_dir=tmp_path / "pcache", history_every="week",
                      history_since="2026-01-01")
    store = Store.open(tmp_path / "f.db")
    first = fleet_scan.scan(store, entries, options, workers=2)
    readme = {k: git(tmp_path / "repos" / k, "rev-parse", "HEAD~1") for k in heads}
    # Each repository task comes back first and names its two weekly points; each point comes back on its own.
    for k in heads:
        mine = [x for x in seen if x[1] == k]
        assert mine[0] == ("repository", k, "assessed")
        assert sorted(mine[1:3]) == sorted([("task", k, heads[k]), ("task", k, readme[k])])
        assert sorted(mine[3:]) == sorted([("point", k, heads[k]), ("point", k, readme[k])])
    assert (first.assessed, first.points, first.points_failed) == (2, 4, 0)
    assert store.counts()["fleet_history_points"] == 4
    # A later run plans no point already stored: no point task at all.
    seen.clear()
    second = fleet_scan.scan(store, entries, options, workers=2)
    assert (second.stored, second.points) == (2, 0) and [x[0] for x in seen] == ["repository", "repository"]


def test_a_point_whose_commit_the_clone_holds_is_computed_without_a_fetch(tmp_path, monkeypatch):
    from porter.fleet import assess as fleet_assess
    from porter.fleet.assess import Options, PointTask, Task, run_point, run_task
    from porter.fleet.checkout import clone_dir, holding
    from porter.fleet.inventory import Entry

    head = make_repo(tmp_path / "repos" / "mech", "mech")
    entry = Entry("mech", str(tmp_path / "repos" / "mech"))
    options = Options(clone_cache=tmp_path / "clones", cache_dir=tmp_path / "pcache", history_every="week",
                      history_since="2026-01-01")
    assert holding(entry, options.clone_cache, head) is None  # no clone yet
    task = run_task(Task(entry, options))
    assert [c for c, _ in task.planned][-1] == head
    clone = clone_dir(options.clone_cache, entry)
    assert holding(entry, options.clone_cache, head) == clone
    assert holding(entry, options.clone_cache, "0" * 40) is None  # a commit the clone lacks: fetched first
    assert holding(entry, options.clone_cache, "HEAD") is None  # only a full commit id is taken as it is

    def no_fetch(*args, **kw):
        raise AssertionError("the point fetched although the clone holds its commit")

    monkeypatch.setattr(fleet_assess, "checkout", no_fetch)
    got = run_point(PointTask(entry, options, head, "2026-01-12T10:00:00+00:00"))
    assert got.reason is None and got.point is not None
    assert (got.point.commit, got.point.verdict, got.point.days_likely) == (head, "mechanical", task.days_likely)
