"""Real projects: `porter port` on a public project's pre-port tree, compared with the port the project landed.

Usage:
    python bench/port/real_projects.py [--ports bench/calibration/ports.yaml] [--ids exllama,pytorch_scatter,causal-conv1d]
        [--json bench/port/data/real_projects.json]

For each id: the pre-port commit's tree (from the mirror under /work/.mirror, `git archive`) goes into a fresh git
repository under /tmp/bench-port/real, `porter port --apply --summary` runs there, and its changed files are compared
with the files the project's port commit changed (`git diff --numstat pre port` in the mirror): files both touched,
files only porter touched, files only the project touched; the project's compat header (a file the port added whose
name says hip/compat/rocm) beside porter's; and "spots": hunks of the project's diff in C/C++/CUDA files, each
counted as covered when porter's patch changes a line within 3 lines of it in the same file. Only paths, counts and
one-line verdicts are kept, never the project's code.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hecbench import porter_cmd  # noqa: E402

WORK = Path("/tmp/bench-port/real")
CODE = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c", ".hip")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def hunks(diff: str) -> dict[str, list[tuple[int, int]]]:
    """Per file of a unified diff: the old-side line ranges its hunks change (start, end), from the hunk bodies."""
    out: dict[str, list[tuple[int, int]]] = {}
    path = None
    old = 0
    cur: list[int] = []
    def flush():
        if path and cur:
            out.setdefault(path, []).append((min(cur), max(cur)))
    for line in diff.splitlines():
        if line.startswith("--- "):
            flush(); cur = []
            p = line[4:].strip()
            path = p[2:] if p.startswith("a/") else None
        elif line.startswith("+++ ") and path is None:
            p = line[4:].strip()
            path = p[2:] if p.startswith("b/") else None
        elif (m := _HUNK.match(line)):
            flush(); cur = []
            old = int(m.group(1))
        elif path and line[:1] in "+-" and not line.startswith(("+++", "---")):
            cur.append(old)
            if line[:1] == "-":
                old += 1
        elif path and line[:1] == " ":
            if cur:
                flush(); cur = []
            old += 1
    flush()
    return out


def run_one(port: dict) -> dict:
    mirror = Path("/work/.mirror") / port["repository"].replace("/", "+") / "repo"
    pre, post = port["pre_port_commit"], port["port_commit"]
    root = WORK / port["id"]
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    tar = subprocess.run(["git", "--git-dir", str(mirror), "archive", pre], capture_output=True, check=True).stdout
    subprocess.run(["tar", "x", "-C", str(root)], input=tar, check=True)
    git = ["git", "-C", str(root), "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "pre-port"], check=True)
    summary = WORK / f"{port['id']}.summary.json"
    r = subprocess.run([*porter_cmd(), "port", str(root), "--apply", "--summary", str(summary)], capture_output=True,
                       text=True, timeout=1800)
    plan = json.loads(summary.read_text()) if summary.exists() else {}
    subprocess.run(git + ["add", "-A"], check=True)
    ours_diff = subprocess.run(git[:3] + ["diff", "--cached", "-U0", "HEAD"], capture_output=True, text=True).stdout
    ours_files = subprocess.run(git[:3] + ["diff", "--cached", "--name-status", "HEAD"], capture_output=True,
                                text=True).stdout.split("\n")
    theirs_diff = subprocess.run(["git", "--git-dir", str(mirror), "diff", "-U0", pre, post], capture_output=True,
                                 text=True).stdout
    theirs_files = subprocess.run(["git", "--git-dir", str(mirror), "diff", "--name-status", pre, post],
                                  capture_output=True, text=True).stdout.split("\n")
    ours = {ln.split("\t")[-1]: ln.split("\t")[0] for ln in ours_files if ln}
    theirs = {ln.split("\t")[-1]: ln.split("\t")[0] for ln in theirs_files if ln}
    our_h = hunks(ours_diff)
    their_h = hunks(theirs_diff)
    spots = []
    for path, ranges in sorted(their_h.items()):
        if not path.endswith(CODE):
            continue
        for lo, hi in ranges:
            covered = any(a - 3 <= hi and lo <= b + 3 for a, b in our_h.get(path, []))
            spots.append({"path": path, "lines": f"{lo}-{hi}", "covered": covered})
    compat_theirs = [p for p, s in theirs.items() if s == "A" and re.search(r"hip|compat|rocm", p, re.I)]
    compat_ours = [p for p, s in ours.items() if s == "A"]
    return {
        "id": port["id"], "repository": port["repository"], "pre_port_commit": pre, "port_commit": post,
        "porter_exit": r.returncode, "porter_stderr": r.stderr.strip().splitlines()[-2:],
        "files_porter": sorted(ours), "files_project": sorted(theirs),
        "both": sorted(set(ours) & set(theirs)), "only_porter": sorted(set(ours) - set(theirs)),
        "only_project": sorted(set(theirs) - set(ours)),
        "compat_header_project": compat_theirs, "new_files_porter": compat_ours,
        "compat_names_porter": len(plan.get("compat_names", [])),
        "open_work_porter": len(plan.get("open_work", [])), "changes_porter": len(plan.get("changes", [])),
        "spots_project": len(spots), "spots_covered": sum(s["covered"] for s in spots),
        "spots_missed": [f"{s['path']}:{s['lines']}" for s in spots if not s["covered"]],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = Path(__file__).resolve().parents[1]
    ap.add_argument("--ports", type=Path, default=here / "calibration" / "ports.yaml")
    ap.add_argument("--ids", default="exllama,pytorch_scatter,causal-conv1d")
    ap.add_argument("--json", type=Path, default=Path(__file__).resolve().parent / "data" / "real_projects.json")
    a = ap.parse_args(argv)
    ports = {p["id"]: p for p in yaml.safe_load(a.ports.read_text())["ports"]}
    rows = [run_one(ports[i]) for i in a.ids.split(",")]
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n")
    print("| project | porter files | project files | both | compat header (project / porter) | spots covered | open work |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['id']} | {len(r['files_porter'])} | {len(r['files_project'])} | {len(r['both'])} | "
              f"{', '.join(r['compat_header_project']) or '-'} / {', '.join(r['new_files_porter']) or '-'} "
              f"({r['compat_names_porter']} names) | {r['spots_covered']}/{r['spots_project']} | {r['open_work_porter']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
