"""The fleet on 20 real git repositories (two commits each, so two weekly history points) through the local pool, on a
Dask LocalCluster started in-process on 127.0.0.1 (the README's cluster recipe, run as written but for its addresses,
while a worker is killed) and on a real PostgreSQL server started by the test: the cluster and PostgreSQL store
exactly what the local pool stores in SQLite, history points included."""
from __future__ import annotations

import dataclasses
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fleet_repos import KINDS, ORDER, make_fleet, readme_recipe
from porter.cli import app
from porter.fleet import inventory
from porter.fleet.assess import Options
from porter.fleet.report import document
from porter.fleet.scan import scan
from porter.fleet.store import SCHEMA_VERSION, Store

COUNT = 20  # the "20+ small git repositories (with history)"; kinds in turn (fleet_repos.ORDER)


def comparable(store: Store, run_id: int) -> list[tuple]:
    """A run's rows without what differs between two runs of the same work (ids, seconds)."""
    return [(r["repository"], r["outcome"], r["commit_id"], r["reason"], r["verdict"], r["days_low"],
             r["days_likely"], r["days_high"], r["files"], r["open_findings"], r["kernels"],
             tuple(tuple(sorted(t.items())) for t in r["targets"]), tuple(r["blockers"]), tuple(r["libraries"]))
            for r in store.run_rows(run_id)]


def points(store: Store, run_id: int = 1) -> list[tuple]:
    """The history points stored for a run's targets and porter version, every column."""
    info = store.run_info(run_id)
    return [tuple(v for _, v in sorted(p.items())) for p in store.history(info["targets"], info["porter_version"])]


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """20 repositories and one missing location in estate.txt, scanned by the local pool (2 workers) into SQLite."""
    root = tmp_path_factory.mktemp("fleetx")
    repos = make_fleet(root, COUNT)
    (root / "estate.txt").write_text("".join(f"repos/{n}\n" for n in sorted(repos)) + f"{root}/gone\n")
    entries = inventory.load(root / "estate.txt")
    options = Options(clone_cache=root / "clones", cache_dir=root / "pcache")
    local = Store.open(root / "local.db")
    summary = scan(local, entries, options, workers=2)
    return root, repos, entries, options, local, summary


def test_the_local_pool_stores_every_repository(fleet):
    root, repos, _, _, local, summary = fleet
    assert (summary.assessed, summary.stored, summary.failed, summary.points) == (COUNT, 0, 1, 0)
    rows = comparable(local, 1)
    assert [(r[0], r[1], r[3], r[4]) for r in rows] == \
        [("gone", "failed", f"{root}/gone: no such directory", None)] + \
        [(f"r{i:02d}-{ORDER[i % 4]}", "assessed", None, KINDS[ORDER[i % 4]][2]) for i in range(COUNT)]
    assert [r[2] for r in rows[1:]] == [repos[r[0]][1] for r in rows[1:]]


def test_a_dask_cluster_stores_what_the_local_pool_stores_though_a_worker_dies_and_runs_the_readme_recipe(
        fleet, tmp_path, request):
    """On one LocalCluster of 2 worker processes: the 20 repositories while one worker is SIGKILLed holding tasks,
    stored exactly as the local pool stored them; then README's cluster recipe as written but for its addresses
    (`fleet scan --db postgresql://… --executor dask://… --history weekly --since 2026-01-01 --timeout 1800`, then
    `fleet report -o estate.html`) on three of them, with the test's own PostgreSQL (SQLite where none starts): its
    history points are exactly the local pool's."""
    distributed = pytest.importorskip("distributed", reason="needs the 'fleet-dask' extra (distributed)")
    import signal

    root, repos, entries, options, local, _ = fleet
    try:
        db = request.getfixturevalue("postgres")("recipe")
    except pytest.skip.Exception:
        db = str(tmp_path / "recipe.db")
    recipe = readme_recipe("On an existing Dask cluster")
    assert [argv[:2] for argv in recipe] == [["fleet", "scan"], ["fleet", "report"]]
    three = sorted(repos)[1:4]  # mech, port, blocked: each point of theirs differs from the one before
    (tmp_path / "estate.txt").write_text("".join(f"{root}/repos/{n}\n" for n in three))
    killed = []
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as watcher:
        address = "dask://" + cluster.scheduler_address.split("://", 1)[1]
        assert address.startswith("dask://127.0.0.1:")
        pids = watcher.run(os.getpid)

        def kill_a_busy_worker(outcome) -> None:
            # At the first outcome the other tasks are queued on the workers: one worker holding some is killed
            # (SIGKILL, as the OOM killer does); its nanny starts a new one and the scheduler reassigns its tasks.
            if killed:
                return
            busy = [(len(keys), addr) for addr, keys in watcher.processing().items() if keys and addr in pids]
            if busy:
                addr = max(busy)[1]
                killed.append(addr)
                os.kill(pids[addr], signal.SIGKILL)

        store = Store.open(tmp_path / "dask.db")
        summary = scan(store, entries, dataclasses.replace(options, clone_cache=tmp_path / "clones",
                                                           cache_dir=tmp_path / "pcache"),
                       executor=address, progress=kill_a_busy_worker)
        swap = {"estate.txt": str(tmp_path / "estate.txt"), "postgresql://porter@db.internal/porter": db,
                "dask://scheduler.internal:8786": address, "estate.html": str(tmp_path / "estate.html")}
        runs = []
        for argv in recipe:
            argv = [swap.get(a, a) for a in argv]
            if argv[1] == "scan":
                argv += ["--clone-cache", str(tmp_path / "clones"), "--cache-dir", str(tmp_path / "pcache")]
            runs.append(CliRunner().invoke(app, argv, catch_exceptions=False))
            assert runs[-1].exit_code == 0, runs[-1].output
    assert len(killed) == 1, "no worker held a task to lose"
    assert (summary.assessed, summary.stored, summary.failed) == (COUNT, 0, 1)
    assert comparable(store, 1) == comparable(local, 1)
    assert store.run_info(1)["executor"] == address
    store.close()

    # The recipe's run against the local pool's on the same three repositories with the same history options.
    assert runs[0].stderr.splitlines()[-1] == "fleet run 1: 3 assessed, 0 already stored, 0 failed; " \
                                              "6 history points computed"
    history = dataclasses.replace(options, history_every="week", history_since="2026-01-01")
    pool = Store.open(tmp_path / "pool.db")
    scan(pool, inventory.load(tmp_path / "estate.txt"), history, workers=2)
    recipe_store = Store.open(db)
    assert comparable(recipe_store, 1) == comparable(pool, 1)
    assert points(recipe_store) == points(pool)
    info = pool.run_info(1)
    assert [(p["repository"], p["date"][:10], p["verdict"]) for p in
            pool.history(info["targets"], info["porter_version"])] == [
        (n, d, "ready" if d == "2026-01-05" else KINDS[repos[n][0]][2]) for n in three
        for d in ("2026-01-05", "2026-01-12")]
    # The recipe's report is the local pool's but for the run's own line (start time, executor).
    from porter.fleet.render import render

    mine, theirs = document(recipe_store), document(pool)
    assert {k: v for k, v in mine.items() if k != "run"} == {k: v for k, v in theirs.items() if k != "run"}
    assert mine["run"]["executor"] == address and len(mine["burndown"]) == 2
    assert (tmp_path / "estate.html").read_bytes() == render("html", mine)
    recipe_store.close()
    pool.close()


def test_on_dask_the_timeout_holds_and_a_dying_task_is_retried_then_recorded(fleet, tmp_path, monkeypatch):
    """Dask runs tasks in threads, where no timer interrupts Python: each task runs in a forked child held to the
    repository's timeout. The cluster here is in this process (threads), so the forked children inherit the patch."""
    distributed = pytest.importorskip("distributed", reason="needs the 'fleet-dask' extra (distributed)")
    from porter.fleet import assess as fleet_assess

    root, _, entries, options, local, _ = fleet
    rows = comparable(local, 1)
    names = [e.name for e in entries[:4]]
    marker = tmp_path / "died-once"
    real = fleet_assess.checkout

    def slow_or_dying(entry, cache, timeout=600.0):
        if entry.name == names[0]:
            import time

            time.sleep(120)  # a task no Python timer can stop in a Dask worker thread
        if entry.name == names[1] and not marker.exists():
            marker.write_text("x")
            os._exit(9)  # its child dies once: run again
        if entry.name == names[2]:
            os._exit(9)  # dies every time: recorded, the fleet goes on
        return real(entry, cache, timeout)

    monkeypatch.setattr(fleet_assess, "checkout", slow_or_dying)
    import time

    quick = dataclasses.replace(options, timeout=8.0)
    from porter.fleet.execute import shutdown

    try:
        with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
                                      host="127.0.0.1", dashboard_address=None) as cluster:
            store = Store.open(tmp_path / "dask.db")
            start = time.monotonic()
            scan(store, [e for e in entries if e.name in names], quick,
                 executor="dask://" + cluster.scheduler_address.split("://", 1)[1])
            took = time.monotonic() - start
    finally:
        shutdown()  # the worker's pool lives in this process here: its forked process ends with the test
    got = {r["repository"]: (r["outcome"], r["reason"]) for r in store.run_rows(1)}
    assert got == {names[0]: ("failed", "took longer than 8 s"), names[1]: ("assessed", None),
                   names[2]: ("failed", "its worker process died 3 times while assessing it (out of memory? a crash?)"),
                   names[3]: ("assessed", None)}
    assert marker.exists() and took < 100, took  # not the 120 s the task would have slept
    assert [r for r in comparable(store, 1) if r[0] in (names[1], names[3])] == \
        [r for r in rows if r[0] in (names[1], names[3])]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pg_bin() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(os.path.realpath(found)).parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return versions[-1].parent if versions else None


@pytest.fixture(scope="module")
def postgres():
    """A PostgreSQL server on 127.0.0.1 in a temporary directory, as the current user (as `nobody` when root: the
    server refuses to run as root), started once for the module; a function giving the URL of a new database."""
    pytest.importorskip("psycopg", reason="needs the 'fleet' extra (psycopg)")
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("needs PostgreSQL's server programs (Debian package postgresql: initdb, pg_ctl)")
    user = None
    if os.geteuid() == 0:
        try:
            import pwd

            pwd.getpwnam("nobody")
            user = "nobody"
        except KeyError:
            pytest.skip("running as root needs the unprivileged user 'nobody' to start PostgreSQL")
    base = Path(tempfile.mkdtemp(prefix="porter-pg-"))
    if user:
        shutil.chown(base, user)
    data, port = base / "data", _free_port()

    def run(*cmd: str) -> None:
        subprocess.run([str(bindir / cmd[0]), *cmd[1:]], check=True, capture_output=True, user=user, timeout=120)

    try:
        run("initdb", "-D", str(data), "-U", "fleet", "--auth=trust", "-E", "UTF8", "--no-sync")
        run("pg_ctl", "-D", str(data), "-l", str(base / "log"), "-w", "-t", "60",
            "-o", f"-h 127.0.0.1 -p {port} -k {base} -F", "start")
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        shutil.rmtree(base, ignore_errors=True)
        pytest.skip(f"PostgreSQL could not start: {getattr(e, 'stderr', b'') or e}")
    def database(name: str) -> str:
        import sqlalchemy as sa

        admin = sa.create_engine(f"postgresql+psycopg://fleet@127.0.0.1:{port}/postgres", isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        admin.dispose()
        return f"postgresql://fleet@127.0.0.1:{port}/{name}"

    try:
        yield database
    finally:
        subprocess.run([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], capture_output=True,
                       user=user, timeout=60)
        shutil.rmtree(base, ignore_errors=True)


def test_postgresql_stores_what_sqlite_stores_and_skips_stored_keys(fleet, postgres):
    root, _, entries, options, local, _ = fleet
    url = postgres("pool")
    store = Store.open(url)
    some = entries[:8] + entries[-1:]  # every kind twice and the missing one: what SQLite holds for them
    scan(store, some, options, workers=2)
    assert comparable(store, 1) == [r for r in comparable(local, 1) if r[0] in {e.name for e in some}]
    again = scan(store, some, options, workers=2)
    assert (again.run_id, again.assessed, again.stored, again.failed) == (2, 0, 8, 1)
    counts = store.counts()
    assert (counts["fleet_runs"], counts["fleet_assessments"], counts["fleet_run_repositories"]) == (2, 8, 18)
    store.close()
    # Opening again migrates nothing: the schema version is stored.
    import sqlalchemy as sa

    store = Store.open(url)
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("select version from fleet_schema")).scalars().all() == [SCHEMA_VERSION]
    store.close()
