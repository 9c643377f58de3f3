"""The fleet's database: every run, every repository's outcome in it, and each assessment once per key, through
SQLAlchemy Core on SQLite (a file, the default) or PostgreSQL (a URL).

An assessment is keyed by repository, commit, targets, porter version and settings hash: a key already stored is
not assessed again (a weekly cron does only new work), and every run keeps its own row per repository (assessed,
stored — the key was already there — or failed with the reason), so the trend and "what changed" read runs.

Schema versions: `fleet_schema` holds the version a database is at, and MIGRATIONS the steps from each version to
the next, applied in order inside one transaction at open (why not Alembic: docs/fleet.md).
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from porter.errors import UsageError
from porter.fleet.assess import ASSESSED, FAILED, STORED, Outcome

meta = sa.MetaData()

schema_table = sa.Table("fleet_schema", meta, sa.Column("version", sa.Integer, nullable=False))

runs = sa.Table(
    "fleet_runs", meta,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("started", sa.String(32), nullable=False),
    sa.Column("finished", sa.String(32)),
    sa.Column("porter_version", sa.String(64), nullable=False),
    sa.Column("targets", sa.String(400), nullable=False),
    sa.Column("executor", sa.String(200), nullable=False),
    sa.Column("repositories", sa.Integer, nullable=False),
)

assessments = sa.Table(
    "fleet_assessments", meta,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("repository", sa.String(200), nullable=False),
    sa.Column("commit_id", sa.String(64), nullable=False),
    sa.Column("targets", sa.String(400), nullable=False),
    sa.Column("porter_version", sa.String(64), nullable=False),
    sa.Column("settings_hash", sa.String(64), nullable=False),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("fleet_runs.id"), nullable=False),  # the run that computed it
    sa.Column("verdict", sa.String(20), nullable=False),
    sa.Column("days_low", sa.Float, nullable=False),
    sa.Column("days_likely", sa.Float, nullable=False),
    sa.Column("days_high", sa.Float, nullable=False),
    sa.Column("files", sa.Integer, nullable=False),
    sa.Column("open_findings", sa.Integer, nullable=False),
    sa.Column("kernels", sa.Integer, nullable=False),
    # Version 4: the findings the repository's ROCm path already handles (work done beside the open work). NULL on
    # assessments a version-3 database stored: the report says "-" for them rather than a made-up 0.
    sa.Column("handled_findings", sa.Integer),
    sa.UniqueConstraint("repository", "commit_id", "targets", "porter_version", "settings_hash",
                        name="fleet_assessment_key"),
)

target_results = sa.Table(
    "fleet_target_results", meta,
    sa.Column("assessment_id", sa.Integer, sa.ForeignKey("fleet_assessments.id"), primary_key=True),
    sa.Column("target", sa.String(100), primary_key=True),
    sa.Column("verdict", sa.String(20), nullable=False),
    sa.Column("days_low", sa.Float, nullable=False),
    sa.Column("days_likely", sa.Float, nullable=False),
    sa.Column("days_high", sa.Float, nullable=False),
)

blockers = sa.Table(
    "fleet_blockers", meta,
    sa.Column("assessment_id", sa.Integer, sa.ForeignKey("fleet_assessments.id"), primary_key=True),
    sa.Column("title", sa.String(500), primary_key=True),
)

libraries = sa.Table(
    "fleet_libraries", meta,
    sa.Column("assessment_id", sa.Integer, sa.ForeignKey("fleet_assessments.id"), primary_key=True),
    sa.Column("library", sa.String(200), primary_key=True),
)

run_repositories = sa.Table(
    "fleet_run_repositories", meta,
    sa.Column("run_id", sa.Integer, sa.ForeignKey("fleet_runs.id"), primary_key=True),
    sa.Column("repository", sa.String(200), primary_key=True),
    sa.Column("location", sa.String(2000), nullable=False),
    sa.Column("ref", sa.String(400)),
    sa.Column("outcome", sa.String(20), nullable=False),  # assessed | stored | failed
    sa.Column("commit_id", sa.String(64)),
    sa.Column("reason", sa.String(2000)),
    sa.Column("assessment_id", sa.Integer, sa.ForeignKey("fleet_assessments.id")),
    sa.Column("seconds", sa.Float, nullable=False),
)


history_points = sa.Table(
    "fleet_history_points", meta,
    sa.Column("repository", sa.String(200), primary_key=True),
    sa.Column("commit_id", sa.String(64), primary_key=True),
    sa.Column("targets", sa.String(400), primary_key=True),
    sa.Column("porter_version", sa.String(64), primary_key=True),
    sa.Column("settings_hash", sa.String(64), primary_key=True),
    sa.Column("date", sa.String(40), nullable=False),
    sa.Column("verdict", sa.String(20), nullable=False),
    sa.Column("days_low", sa.Float, nullable=False),
    sa.Column("days_likely", sa.Float, nullable=False),
    sa.Column("days_high", sa.Float, nullable=False),
    sa.Column("open_findings", sa.Integer, nullable=False),
)


target_blockers = sa.Table(
    "fleet_target_blockers", meta,
    sa.Column("assessment_id", sa.Integer, sa.ForeignKey("fleet_assessments.id"), primary_key=True),
    sa.Column("target", sa.String(100), primary_key=True),
    sa.Column("title", sa.String(500), primary_key=True),
)


def _create_v1(conn: Connection) -> None:
    meta.create_all(conn, tables=[runs, assessments, target_results, blockers, libraries, run_repositories])


def _history_v2(conn: Connection) -> None:
    meta.create_all(conn, tables=[history_points])


def _target_blockers_v3(conn: Connection) -> None:
    # Assessments stored before version 3 keep their fleet-wide blockers and have no per-target ones: the next
    # porter version (a new key) assesses them again anyway.
    meta.create_all(conn, tables=[target_blockers])


def _handled_v4(conn: Connection) -> None:
    # A database created at version 4 or later already has the column (_create_v1 creates today's tables); one
    # created earlier gets it added, NULL for the assessments it holds.
    if "handled_findings" not in {c["name"] for c in sa.inspect(conn).get_columns(assessments.name)}:
        conn.execute(sa.text(f"ALTER TABLE {assessments.name} ADD COLUMN handled_findings INTEGER"))


# MIGRATIONS[n] takes a database from version n to n + 1; version 0 is an empty database.
MIGRATIONS: list[Callable[[Connection], None]] = [_create_v1, _history_v2, _target_blockers_v3, _handled_v4]
SCHEMA_VERSION = len(MIGRATIONS)


def engine_for(db: str | Path) -> Engine:
    """An engine for a database URL (postgresql://…, sqlite:///…) or a path to a SQLite file."""
    text = str(db)
    if "://" not in text:
        Path(text).parent.mkdir(parents=True, exist_ok=True)
        return sa.create_engine(f"sqlite:///{Path(text).resolve()}")
    if text.startswith("postgresql://") or text.startswith("postgres://"):
        # psycopg (3) ships binary wheels; SQLAlchemy's bare postgresql:// means psycopg2.
        text = "postgresql+psycopg://" + text.split("://", 1)[1]
    try:
        return sa.create_engine(text)
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError) as e:
        raise UsageError(f"--db {db}: {e} (PostgreSQL needs the 'fleet' extra: pip install 'porter-rocm[fleet]')") from None


@dataclass
class Store:
    """An open fleet database (migrated to SCHEMA_VERSION)."""

    engine: Engine

    @classmethod
    def open(cls, db: str | Path) -> "Store":
        engine = engine_for(db)
        try:
            with engine.begin() as conn:
                migrate(conn)
        except sa.exc.OperationalError as e:
            raise UsageError(f"--db {db}: cannot open the database: {str(e.orig).strip()}") from None
        return cls(engine)

    def close(self) -> None:
        self.engine.dispose()

    def start_run(self, porter_version: str, targets: str, executor: str, count: int, *,
                  resume: bool = True) -> tuple[int, set[str]]:
        """A run to record into, and the repositories it already holds: the last run when it was interrupted
        (unfinished, same version and targets) and `resume`, else a new one."""
        with self.engine.begin() as conn:
            last = conn.execute(sa.select(runs).order_by(runs.c.id.desc()).limit(1)).mappings().first()
            if resume and last is not None and last["finished"] is None and last["porter_version"] == porter_version \
                    and last["targets"] == targets:
                done = {r for (r,) in conn.execute(sa.select(run_repositories.c.repository)
                                                   .where(run_repositories.c.run_id == last["id"]))}
                return last["id"], done
            run_id = conn.execute(runs.insert().values(started=_now(), porter_version=porter_version,
                                                       targets=targets, executor=executor,
                                                       repositories=count)).inserted_primary_key
            assert run_id is not None
            return run_id[0], set()

    def finish_run(self, run_id: int) -> None:
        with self.engine.begin() as conn:
            conn.execute(runs.update().where(runs.c.id == run_id).values(finished=_now()))

    def stored_keys(self, targets: str, porter_version: str) -> dict[str, frozenset[str]]:
        """Per repository, the "commit settings-hash" keys stored for these targets and this porter version."""
        out: dict[str, set[str]] = {}
        with self.engine.connect() as conn:
            q = sa.select(assessments.c.repository, assessments.c.commit_id, assessments.c.settings_hash).where(
                assessments.c.targets == targets, assessments.c.porter_version == porter_version)
            for repo, commit, sh in conn.execute(q):
                out.setdefault(repo, set()).add(f"{commit} {sh}")
        return {k: frozenset(v) for k, v in out.items()}

    def stored_points(self, targets: str, porter_version: str) -> dict[str, frozenset[str]]:
        """Per repository, the "commit settings-hash" of the history points stored for these targets and version."""
        out: dict[str, set[str]] = {}
        with self.engine.connect() as conn:
            q = sa.select(history_points.c.repository, history_points.c.commit_id, history_points.c.settings_hash
                          ).where(history_points.c.targets == targets, history_points.c.porter_version == porter_version)
            for repo, commit, sh in conn.execute(q):
                out.setdefault(repo, set()).add(f"{commit} {sh}")
        return {k: frozenset(v) for k, v in out.items()}

    def record(self, run_id: int, o: Outcome, targets: str, porter_version: str) -> None:
        """One repository's outcome in `run_id`, in one transaction (an interrupted fleet keeps every finished one)."""
        with self.engine.begin() as conn:
            assessment_id = None
            if o.status in (ASSESSED, STORED):
                assessment_id = self._find(conn, o, targets, porter_version)
                if assessment_id is None and o.status == ASSESSED:
                    assessment_id = self._insert(conn, run_id, o, targets, porter_version)
            status = o.status
            reason: str | None
            if status == STORED and assessment_id is None:
                status, reason = FAILED, "its stored assessment is gone from the database"
            else:
                reason = o.reason
            if o.history and o.settings_hash:
                self._points(conn, o, targets, porter_version)
            conn.execute(run_repositories.insert().values(
                run_id=run_id, repository=o.name, location=o.location, ref=o.ref, outcome=status,
                commit_id=o.commit, reason=reason, assessment_id=assessment_id, seconds=round(o.seconds, 3)))

    def _points(self, conn: Connection, o: Outcome, targets: str, porter_version: str) -> None:
        key = {"repository": o.name, "targets": targets, "porter_version": porter_version,
               "settings_hash": o.settings_hash}
        have = {c for (c,) in conn.execute(sa.select(history_points.c.commit_id).where(
            *(history_points.c[k] == v for k, v in key.items())))}
        new = [{**key, "commit_id": p.commit, "date": p.date, "verdict": p.verdict, "days_low": p.days_low,
                "days_likely": p.days_likely, "days_high": p.days_high, "open_findings": p.open_findings}
               for p in o.history if p.commit not in have]
        if new:
            conn.execute(history_points.insert(), new)

    def history(self, targets: str, porter_version: str) -> list[dict]:
        """Every stored history point for these targets and this porter version, by repository then date."""
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(
                sa.select(history_points).where(history_points.c.targets == targets,
                                                history_points.c.porter_version == porter_version)
                .order_by(history_points.c.repository, history_points.c.date, history_points.c.commit_id)).mappings()]

    def _find(self, conn: Connection, o: Outcome, targets: str, porter_version: str) -> int | None:
        return conn.execute(sa.select(assessments.c.id).where(
            assessments.c.repository == o.name, assessments.c.commit_id == o.commit,
            assessments.c.targets == targets, assessments.c.porter_version == porter_version,
            assessments.c.settings_hash == o.settings_hash)).scalar()

    def _insert(self, conn: Connection, run_id: int, o: Outcome, targets: str, porter_version: str) -> int:
        pk = conn.execute(assessments.insert().values(
            repository=o.name, commit_id=o.commit, targets=targets, porter_version=porter_version,
            settings_hash=o.settings_hash, run_id=run_id, verdict=o.verdict, days_low=o.days_low,
            days_likely=o.days_likely, days_high=o.days_high, files=o.files, open_findings=o.open_findings,
            kernels=o.kernels, handled_findings=o.handled_findings)).inserted_primary_key
        assert pk is not None
        aid: int = pk[0]
        if o.targets:
            conn.execute(target_results.insert(), [
                {"assessment_id": aid, "target": t.target, "verdict": t.verdict, "days_low": t.days_low,
                 "days_likely": t.days_likely, "days_high": t.days_high} for t in o.targets])
        if o.blockers:
            conn.execute(blockers.insert(), [{"assessment_id": aid, "title": b} for b in o.blockers])
        per_target = sorted({(t, b) for t, titles in o.target_blockers for b in titles})
        if per_target:
            conn.execute(target_blockers.insert(), [{"assessment_id": aid, "target": t, "title": b}
                                                    for t, b in per_target])
        if o.libraries:
            conn.execute(libraries.insert(), [{"assessment_id": aid, "library": x} for x in o.libraries])
        return aid

    # -- reading, for reports and tests ------------------------------------------------------------------------------

    def run_ids(self) -> list[int]:
        with self.engine.connect() as conn:
            return [r for (r,) in conn.execute(sa.select(runs.c.id).order_by(runs.c.id))]

    def run_info(self, run_id: int) -> dict:
        with self.engine.connect() as conn:
            return dict(conn.execute(sa.select(runs).where(runs.c.id == run_id)).mappings().one())

    def run_rows(self, run_id: int) -> list[dict]:
        """One dict per repository of a run (sorted by name): its outcome and, when it has one, its assessment with
        per-target lines, blockers and libraries."""
        with self.engine.connect() as conn:
            rows = [dict(r) for r in conn.execute(
                sa.select(run_repositories, assessments.c.verdict, assessments.c.days_low,
                          assessments.c.days_likely, assessments.c.days_high, assessments.c.files,
                          assessments.c.open_findings, assessments.c.handled_findings, assessments.c.kernels)
                .select_from(run_repositories.outerjoin(assessments,
                                                        run_repositories.c.assessment_id == assessments.c.id))
                .where(run_repositories.c.run_id == run_id).order_by(run_repositories.c.repository)).mappings()]
            ids = [r["assessment_id"] for r in rows if r["assessment_id"] is not None]
            per_target: dict[int, list[dict]] = {}
            blocks: dict[int, list[str]] = {}
            libs: dict[int, list[str]] = {}
            tblocks: dict[int, dict[str, list[str]]] = {}
            if ids:
                for t in conn.execute(sa.select(target_results).where(target_results.c.assessment_id.in_(ids))
                                      .order_by(target_results.c.target)).mappings():
                    per_target.setdefault(t["assessment_id"], []).append(
                        {k: t[k] for k in ("target", "verdict", "days_low", "days_likely", "days_high")})
                for aid, title in conn.execute(sa.select(blockers.c.assessment_id, blockers.c.title)
                                               .where(blockers.c.assessment_id.in_(ids)).order_by(blockers.c.title)):
                    blocks.setdefault(aid, []).append(title)
                for aid, target, title in conn.execute(
                        sa.select(target_blockers.c.assessment_id, target_blockers.c.target, target_blockers.c.title)
                        .where(target_blockers.c.assessment_id.in_(ids))
                        .order_by(target_blockers.c.target, target_blockers.c.title)):
                    tblocks.setdefault(aid, {}).setdefault(target, []).append(title)
                for aid, lib in conn.execute(sa.select(libraries.c.assessment_id, libraries.c.library)
                                             .where(libraries.c.assessment_id.in_(ids)).order_by(libraries.c.library)):
                    libs.setdefault(aid, []).append(lib)
        for r in rows:
            aid = r["assessment_id"]
            r["targets"] = [{**t, "blockers": tblocks.get(aid, {}).get(t["target"], [])}
                            for t in per_target.get(aid, [])]
            r["blockers"] = blocks.get(aid, [])
            r["libraries"] = libs.get(aid, [])
        return rows

    def counts(self) -> dict[str, int]:
        """Rows per table (tests assert no duplicates after a resumed run)."""
        with self.engine.connect() as conn:
            return {t.name: conn.execute(sa.select(sa.func.count()).select_from(t)).scalar() or 0
                    for t in (runs, assessments, target_results, blockers, libraries, run_repositories,
                              history_points, target_blockers)}


def migrate(conn: Connection) -> int:
    """Bring the database to SCHEMA_VERSION; the version it was at. A newer database than this porter is refused."""
    schema_table.create(conn, checkfirst=True)
    version = conn.execute(sa.select(schema_table.c.version)).scalar()
    if version is None:
        conn.execute(schema_table.insert().values(version=0))
        version = 0
    if version > SCHEMA_VERSION:
        raise UsageError(f"the fleet database is at schema version {version}; this porter knows up to "
                         f"{SCHEMA_VERSION} (upgrade porter)")
    for step in MIGRATIONS[version:]:
        step(conn)
    conn.execute(schema_table.update().values(version=SCHEMA_VERSION))
    return version


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

