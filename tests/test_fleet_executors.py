"""The fleet on a Dask LocalCluster started in-process on 127.0.0.1 and on a real PostgreSQL server started by the
test: both store exactly what the local pool stores in SQLite."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

from fleet_repos import make_fleet
from porter.fleet.assess import Options
from porter.fleet.inventory import Entry
from porter.fleet.scan import scan
from porter.fleet.store import SCHEMA_VERSION, Store

COUNT = 8


def comparable(store: Store, run_id: int) -> list[tuple]:
    """A run's rows without what differs between two runs of the same work (ids, seconds)."""
    return [(r["repository"], r["outcome"], r["commit_id"], r["reason"], r["verdict"], r["days_low"],
             r["days_likely"], r["days_high"], r["files"], r["open_findings"], r["kernels"],
             tuple(tuple(sorted(t.items())) for t in r["targets"]), tuple(r["blockers"]), tuple(r["libraries"]))
            for r in store.run_rows(run_id)]


@pytest.fixture(scope="module")
def small_fleet(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleetx")
    repos = make_fleet(root, COUNT)
    entries = tuple(Entry(n, str(root / "repos" / n)) for n in sorted(repos)) + (Entry("gone", str(root / "gone")),)
    options = Options(clone_cache=root / "clones", cache_dir=root / "pcache")
    local = Store.open(root / "local.db")
    scan(local, entries, options, workers=2)
    return root, entries, options, comparable(local, 1)


def test_the_local_pool_stores_every_repository(small_fleet):
    _, _, _, rows = small_fleet
    assert [(r[0], r[1]) for r in rows] == [("gone", "failed")] + [(f"r{i:02d}-{k}", "assessed") for i, k in
                                                                   enumerate(["ready", "mech", "port", "blocked"] * 2)]


def test_a_dask_cluster_stores_what_the_local_pool_stores_though_a_worker_dies(small_fleet, tmp_path):
    distributed = pytest.importorskip("distributed", reason="needs the 'fleet-dask' extra (distributed)")
    import signal

    root, entries, options, rows = small_fleet
    killed = []
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as watcher:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
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
        summary = scan(store, entries, options, executor="dask://" + address.split("://", 1)[1],
                       progress=kill_a_busy_worker)
    assert len(killed) == 1, "no worker held a task to lose"
    assert (summary.assessed, summary.stored, summary.failed) == (COUNT, 0, 1)
    assert comparable(store, 1) == rows
    assert store.run_info(1)["executor"] == "dask://" + address.split("://", 1)[1]


def test_on_dask_the_timeout_holds_and_a_dying_task_is_retried_then_recorded(small_fleet, tmp_path, monkeypatch):
    """Dask runs tasks in threads, where no timer interrupts Python: each task runs in a forked child held to the
    repository's timeout. The cluster here is in this process (threads), so the forked children inherit the patch."""
    distributed = pytest.importorskip("distributed", reason="needs the 'fleet-dask' extra (distributed)")
    from porter.fleet import assess as fleet_assess

    root, entries, options, rows = small_fleet
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
    import dataclasses
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


def test_history_points_on_dask_are_what_the_local_pool_stores(tmp_path):
    distributed = pytest.importorskip("distributed", reason="needs the 'fleet-dask' extra (distributed)")
    import dataclasses

    made = make_fleet(tmp_path, 2)
    entries = [Entry(n, str(tmp_path / "repos" / n)) for n in sorted(made)]
    options = Options(clone_cache=tmp_path / "clones", cache_dir=tmp_path / "pcache", history_every="week",
                      history_since="2026-01-01")
    local = Store.open(tmp_path / "local.db")
    scan(local, entries, options, workers=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        store = Store.open(tmp_path / "dask.db")
        summary = scan(store, entries, dataclasses.replace(options, clone_cache=tmp_path / "clones-dask"),
                       executor="dask://" + cluster.scheduler_address.split("://", 1)[1])
    assert (summary.assessed, summary.points, summary.points_failed) == (2, 4, 0)

    def points(s: Store) -> list[tuple]:
        info = s.run_info(1)
        return [tuple(v for k, v in sorted(p.items())) for p in s.history(info["targets"], info["porter_version"])]

    assert len(points(local)) == 4 and points(store) == points(local)
    assert comparable(store, 1) == comparable(local, 1)


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


@pytest.fixture
def postgres():
    """A PostgreSQL server on 127.0.0.1 in a temporary directory, as the current user (as `nobody` when root: the
    server refuses to run as root); its URL."""
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
    try:
        yield f"postgresql://fleet@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], capture_output=True,
                       user=user, timeout=60)
        shutil.rmtree(base, ignore_errors=True)


def test_postgresql_stores_what_sqlite_stores_and_skips_stored_keys(small_fleet, postgres):
    root, entries, options, rows = small_fleet
    store = Store.open(postgres)
    scan(store, entries, options, workers=2)
    assert comparable(store, 1) == rows
    again = scan(store, entries, options, workers=2)
    assert (again.run_id, again.assessed, again.stored, again.failed) == (2, 0, COUNT, 1)
    counts = store.counts()
    assert (counts["fleet_runs"], counts["fleet_assessments"], counts["fleet_run_repositories"]) == \
        (2, COUNT, 2 * (COUNT + 1))
    store.close()
    # Opening again migrates nothing: the schema version is stored.
    import sqlalchemy as sa

    store = Store.open(postgres)
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("select version from fleet_schema")).scalars().all() == [SCHEMA_VERSION]
    store.close()
