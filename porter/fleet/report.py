"""The fleet document: what the database says about one run (default: the latest) and what changed since the run
before it — repositories ranked by open effort per target, verdict counts, blockers and libraries across the fleet
with the repositories each touches, the ready-now list and the failures. Every format renders this one document.
"""
from __future__ import annotations

import datetime as dt
from typing import Any

from porter.errors import UsageError
from porter.fleet.store import Store

VERDICTS = ("blocked", "port", "mechanical", "ready")  # worst first, as porter.estimate.assess orders them
OK = ("assessed", "stored")


def document(store: Store, run_id: int | None = None) -> dict[str, Any]:
    """The report of `run_id` (default: the latest run) as plain data, deterministic for one database."""
    ids = store.run_ids()
    if not ids:
        raise UsageError("the fleet database holds no run yet (run `porter fleet scan` first)")
    if run_id is None:
        run_id = ids[-1]
    if run_id not in ids:
        raise UsageError(f"--run {run_id}: no such run (runs: {ids[0]}–{ids[-1]})")
    info = store.run_info(run_id)
    rows = store.run_rows(run_id)
    earlier = [i for i in ids if i < run_id]
    previous = earlier[-1] if earlier else None
    ok = [r for r in rows if r["outcome"] in OK]
    targets = sorted({t["target"] for r in ok for t in r["targets"]} | set(filter(None, info["targets"].split(","))))
    per_target = []
    for target in targets:
        ranked = []
        blocking: dict[str, list[str]] = {}
        for r in ok:
            line = next((t for t in r["targets"] if t["target"] == target), None)
            if line is not None:
                ranked.append({"repository": r["repository"], "commit": r["commit_id"][:12], "verdict": line["verdict"],
                               "days_low": line["days_low"], "days_likely": line["days_likely"],
                               "days_high": line["days_high"], "open_findings": r["open_findings"] or 0,
                               "handled_findings": r["handled_findings"]})
                for b in line.get("blockers", ()):
                    blocking.setdefault(b, []).append(r["repository"])
        ranked.sort(key=lambda x: (-x["days_likely"], -x["days_high"], x["repository"]))
        per_target.append({
            "target": target,
            "verdicts": {v: sum(1 for x in ranked if x["verdict"] == v) for v in VERDICTS},
            "open_days": {k: round(sum(x[f"days_{k}"] for x in ranked), 1) for k in ("low", "likely", "high")},
            "ranking": ranked,
            "ready_now": [x["repository"] for x in ranked if x["verdict"] == "ready"],
            # what blocks this target, with the repositories it blocks there (most first): one decision each
            "blockers": [{"blocker": b, "count": len(repos), "repositories": sorted(repos)}
                         for b, repos in sorted(blocking.items(), key=lambda kv: (-len(kv[1]), kv[0]))],
        })
    return {
        "run": {k: info[k] for k in ("id", "started", "finished", "porter_version", "targets", "executor")},
        "previous_run": previous,
        "totals": {"repositories": len(rows), "assessed": len(ok), "failed": len(rows) - len(ok),
                   "open_findings": sum(r["open_findings"] or 0 for r in ok),
                   # None when an assessment stored by an older porter has no count: a sum would understate it
                   "handled_findings": None if any(r["handled_findings"] is None for r in ok)
                   else sum(r["handled_findings"] for r in ok),
                   "kernels": sum(r["kernels"] or 0 for r in ok)},
        "targets": per_target,
        "blockers": _across(ok, "blockers", "blocker"),
        "libraries": _across(ok, "libraries", "library"),
        "failed": [{"repository": r["repository"], "reason": r["reason"]} for r in rows if r["outcome"] not in OK],
        "changes": _changes(store.run_rows(previous), rows) if previous is not None else [],
        "burndown": burndown([p for p in store.history(info["targets"], info["porter_version"])
                              if p["repository"] in {r["repository"] for r in ok}]),
    }


def _across(rows: list[dict], key: str, name: str) -> list[dict[str, Any]]:
    """Each blocker or library with the repositories it touches, most repositories first."""
    touched: dict[str, list[str]] = {}
    for r in rows:
        for x in r[key]:
            touched.setdefault(x, []).append(r["repository"])
    return [{name: x, "count": len(repos), "repositories": sorted(repos)}
            for x, repos in sorted(touched.items(), key=lambda kv: (-len(kv[1]), kv[0]))]


def _changes(before: list[dict], after: list[dict]) -> list[dict[str, Any]]:
    """What differs per repository between two runs: added, gone, failing, recovered, a new commit, and each
    target's verdict or likely effort that moved."""
    old = {r["repository"]: r for r in before}
    new = {r["repository"]: r for r in after}
    out: list[dict[str, Any]] = []

    def add(repo: str, what: str, was: Any, now: Any, target: str = "") -> None:
        out.append({"repository": repo, "target": target, "change": what, "before": was, "after": now})

    for repo in sorted(set(old) | set(new)):
        a, b = old.get(repo), new.get(repo)
        # A repository that joins or leaves the list says where it stood, not the store's outcome word ("removed
        # stored -> -" read as if its results had gone): "removed: assessed at <commit> -> not in this run's list".
        if a is None:
            assert b is not None
            add(repo, "added", "not in the previous run's list", _standing(b))
            continue
        if b is None:
            add(repo, "removed", _standing(a), "not in this run's list (its stored results stay)")
            continue
        a_ok, b_ok = a["outcome"] in OK, b["outcome"] in OK
        if a_ok != b_ok:
            add(repo, "recovered" if b_ok else "failing", a["reason"] if not a_ok else a["outcome"],
                b["reason"] if not b_ok else b["outcome"])
            continue
        if not b_ok:
            continue
        if a["commit_id"] != b["commit_id"]:
            add(repo, "commit", a["commit_id"][:12], b["commit_id"][:12])
        ta = {t["target"]: t for t in a["targets"]}
        for t in b["targets"]:
            p = ta.get(t["target"])
            if p is None:
                continue
            if p["verdict"] != t["verdict"]:
                add(repo, "verdict", p["verdict"], t["verdict"], t["target"])
            if p["days_likely"] != t["days_likely"]:
                add(repo, "effort", p["days_likely"], t["days_likely"], t["target"])
    return out


def _standing(r: dict) -> str:
    """Where a repository stood in a run: assessed at its commit (fresh or from the store), or failed."""
    if r["outcome"] in OK:
        return f"assessed at {r['commit_id'][:12]}" if r.get("commit_id") else "assessed"
    return f"failed: {r['reason']}" if r.get("reason") else "failed"


def burndown(points: list[dict]) -> list[dict[str, Any]]:
    """The fleet's open work week by week (weeks starting Monday): each repository counts with its last history
    point on or before the week's end, from its first point on."""
    if not points:
        return []
    by_repo: dict[str, list[dict]] = {}
    for p in sorted(points, key=lambda p: (p["repository"], p["date"], p["commit_id"])):
        by_repo.setdefault(p["repository"], []).append(p)
    days = sorted({dt.date.fromisoformat(p["date"][:10]) for p in points})
    week = days[0] - dt.timedelta(days=days[0].weekday())
    out = []
    while week <= days[-1]:
        end = (week + dt.timedelta(days=6)).isoformat()
        latest = [p for p in (max((p for p in ps if p["date"][:10] <= end), key=lambda p: p["date"], default=None)
                              for ps in by_repo.values()) if p is not None]
        out.append({"week": week.isoformat(), "repositories": len(latest),
                    **{f"days_{k}": round(sum(p[f"days_{k}"] for p in latest), 1) for k in ("low", "likely", "high")},
                    "open_findings": sum(p["open_findings"] for p in latest)})
        week += dt.timedelta(days=7)
    return out
