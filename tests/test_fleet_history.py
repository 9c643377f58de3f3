"""`porter fleet scan --history weekly --since DATE`: points back in time through porter.history, stored once per
commit, and the fleet's week-by-week burndown in the report; and the schema migration that added them."""
from __future__ import annotations

import json

import sqlalchemy as sa
from typer.testing import CliRunner

from fleet_repos import KINDS, make_repo
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
    cli(*args)
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
    store = Store.open(tmp_path / "old.db")
    assert sa.inspect(store.engine).has_table("fleet_history_points")
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("select version from fleet_schema")).scalars().all() == [SCHEMA_VERSION] == [2]
    assert store.run_ids() == [1]
