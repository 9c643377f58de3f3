"""What a fleet scan assesses each repository with: the chosen targets (every target's line and blockers exactly
what `porter assess --target …` gives), the entry's ref, porter's defaults rather than the repository's own
configuration (`--isolated`), which `--trust-config` reads from the commit itself (the clone has no work tree); and
the key a stored assessment is found by (targets, settings, porter version)."""
from __future__ import annotations

import dataclasses
import json

import pytest
from typer.testing import CliRunner

from fleet_repos import git, make_repo
from porter.cli import app
from porter.fleet import scan as fleet_scan
from porter.fleet.assess import Options
from porter.fleet.inventory import Entry
from porter.fleet.store import Store

TARGETS = ("--target", "mi300x", "--target", "mi455x")  # CDNA3 (wave 64) and the pre-release CDNA5 (wave 32)


def cli(*args: str, exit_code: int = 0) -> str:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == exit_code, result.output
    return result.stdout


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleetset")
    heads = {kind: make_repo(root / kind, kind) for kind in ("port", "blocked")}
    cfg = root / "cfg"
    make_repo(cfg, "port")
    (cfg / "porter.toml").write_text('exclude = ["src/**"]\n')  # the repository's own say: nothing to scan
    git(cfg, "add", "-A")
    git(cfg, "commit", "-qm", "porter config", date="2026-01-13T10:00:00Z")
    first = git(root / "port", "rev-parse", "HEAD~1")
    (root / "estate.txt").write_text(f"{root}/port\n{root}/blocked main\n{root}/port {first} port-then\n{root}/cfg\n")
    opts = ["--clone-cache", str(root / "clones"), "--cache-dir", str(root / "pcache"), "-q"]
    cli("fleet", "scan", str(root / "estate.txt"), "--db", str(root / "f.db"), *TARGETS, *opts)
    return root, heads, first, opts


def test_every_target_line_and_its_blockers_are_what_assess_gives(repos):
    root, heads, first, _ = repos
    rows = {r["repository"]: r for r in Store.open(root / "f.db").run_rows(1)}
    assert sorted(rows) == ["blocked", "cfg", "port", "port-then"]
    assert {n: r["outcome"] for n, r in rows.items()} == dict.fromkeys(rows, "assessed")
    for kind in ("port", "blocked"):
        doc = json.loads(cli("assess", str(root / kind), "--isolated", *TARGETS, "--cache-dir", str(root / "pcache"),
                             "-f", "json"))
        want = [{"target": t["id"], "verdict": t["verdict"], "days_low": t["effort"]["low"],
                 "days_likely": t["effort"]["likely"], "days_high": t["effort"]["high"],
                 "blockers": t["deciding"] if t["verdict"] == "blocked" else []}
                for t in doc["assessment"]["targets"]]
        assert rows[kind]["targets"] == want and rows[kind]["commit_id"] == heads[kind]
    assert [(t["target"], t["verdict"], t["blockers"]) for t in rows["blocked"]["targets"]] == [
        ("mi300x", "blocked", ["TensorRT-LLM has no ROCm equivalent"]),
        ("mi455x", "blocked", ["TensorRT-LLM has no ROCm equivalent"])]
    # The entry's ref: the README commit, nothing to port yet.
    assert rows["port-then"]["commit_id"] == first
    assert [(t["target"], t["verdict"]) for t in rows["port-then"]["targets"]] == [("mi300x", "ready"),
                                                                                    ("mi455x", "ready")]
    # --isolated by default: cfg's porter.toml (exclude src/**) is not read, so its kernel is assessed as port's.
    assert [(t["verdict"], t["days_likely"]) for t in rows["cfg"]["targets"]] == \
        [(t["verdict"], t["days_likely"]) for t in rows["port"]["targets"]]


def test_trust_config_reads_the_repositorys_own_configuration_from_the_commit(repos, tmp_path):
    root, _, _, opts = repos
    (tmp_path / "one.txt").write_text(f"{root}/cfg\n")
    cli("fleet", "scan", str(tmp_path / "one.txt"), "--db", str(tmp_path / "f.db"), *TARGETS, "--trust-config", *opts)
    (row,) = Store.open(tmp_path / "f.db").run_rows(1)
    isolated = next(r for r in Store.open(root / "f.db").run_rows(1) if r["repository"] == "cfg")
    assert (row["outcome"], row["verdict"], row["open_findings"], row["kernels"]) == ("assessed", "ready", 0, 0)
    assert (isolated["verdict"], isolated["files"] - row["files"]) == ("port", 1)  # src/k.cu, excluded
    # A configuration naming a file of the repository (not written out of the clone) fails that repository only.
    bad = root / "cfg-rules"
    make_repo(bad, "mech")
    (bad / "porter.toml").write_text('rules = ["my-rules/"]\n')
    git(bad, "add", "-A")
    git(bad, "commit", "-qm", "own rules")
    (tmp_path / "two.txt").write_text(f"{bad}\n")
    # its only repository failed, so the run exits 2 (nothing of the estate assessed)
    cli("fleet", "scan", str(tmp_path / "two.txt"), "--db", str(tmp_path / "g.db"), "--trust-config", *opts,
        exit_code=2)
    (row,) = Store.open(tmp_path / "g.db").run_rows(1)
    assert row["outcome"] == "failed" and "porter.toml: rules" in row["reason"], row["reason"]


def test_a_stored_key_is_found_by_targets_settings_and_porter_version(repos, tmp_path, monkeypatch):
    root, _, _, _ = repos
    store = Store.open(tmp_path / "k.db")
    entries = (Entry("port", str(root / "port")),)
    options = Options(targets=("mi300x",), clone_cache=root / "clones", cache_dir=root / "pcache")

    def status(o: Options) -> tuple[int, int]:
        s = fleet_scan.scan(store, entries, o)
        return s.assessed, s.stored

    assert status(options) == (1, 0)
    assert status(options) == (0, 1)  # the same key
    assert status(dataclasses.replace(options, targets=("MI300X",))) == (0, 1)  # one profile, however spelt
    assert status(dataclasses.replace(options, targets=("gfx942",))) == (1, 0)  # gfx942 is mi300x and mi325x
    assert status(dataclasses.replace(options, targets=("mi355x",))) == (1, 0)  # other targets
    assert status(dataclasses.replace(options, exclude=("docs/**",))) == (1, 0)  # other settings
    monkeypatch.setattr(fleet_scan, "porter_version", lambda: "0.0.0+another")
    assert status(options) == (1, 0)  # another porter
    assert store.counts()["fleet_assessments"] == 5 and store.counts()["fleet_runs"] == 7


def test_with_trust_config_every_history_point_uses_the_assessed_commits_configuration(tmp_path):
    # As `porter history` reads one configuration for all its points: the code commit (week of 2026-01-12), before
    # the porter.toml that excludes it (2026-01-20), is a point with the head's configuration, like the key says.
    repo = tmp_path / "later"
    make_repo(repo, "port")
    (repo / "porter.toml").write_text('exclude = ["src/**"]\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "porter config", date="2026-01-20T10:00:00Z")
    (tmp_path / "one.txt").write_text(f"{repo}\n")
    args = ["fleet", "scan", str(tmp_path / "one.txt"), "--clone-cache", str(tmp_path / "clones"), "--cache-dir",
            str(tmp_path / "pcache"), "--history", "weekly", "--since", "2026-01-01", "-q"]
    for db in ("trusted", "isolated"):
        cli(*args, "--db", str(tmp_path / f"{db}.db"), *(["--trust-config"] if db == "trusted" else []))
    verdicts = {}
    for db in ("trusted", "isolated"):
        store = Store.open(tmp_path / f"{db}.db")
        info = store.run_info(1)
        verdicts[db] = [(p["date"][:10], p["verdict"]) for p in store.history(info["targets"], info["porter_version"])]
    assert verdicts == {"trusted": [("2026-01-05", "ready"), ("2026-01-12", "ready"), ("2026-01-20", "ready")],
                        "isolated": [("2026-01-05", "ready"), ("2026-01-12", "port"), ("2026-01-20", "port")]}
