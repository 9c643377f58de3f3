"""What a change adds and removes: two scans matched by line-independent identity into new, fixed and unchanged.

`scan --new-since REF` compares the tree of HEAD with the tree of `merge-base(REF, HEAD)`, both read from git objects;
git names the files that differ (`git diff -M`, so a renamed file keeps its identity) and only those are scanned on
either side, with the files the head reads as C/C++/CUDA through an `#include` or a build line and the base did not
(porter.pipeline.run_diff: text a change starts compiling is the change's code). A finding's identity is (rule, path through renames, enclosing function, the matched text with its
spacing normalised, occurrence index among equal ones): moving code up or down, or renaming its file, changes no
identity. A function moved to another file is caught by a second pass that drops the path for findings inside a
named function. Kernels match the same way, by qualified name; one whose verdict on a target got worse (or a new
kernel whose verdict is not `ok`) is listed as new; on an open kernel, a worse `fix` or `rewrite` counts for
`--fail-on` as a finding of KERNEL_SEVERITY (gating_kernels).

`scan --baseline FILE` compares a scan with a baseline written by `porter baseline` (the findings and kernel
verdicts of a scan, for repositories whose history is not at hand); its paths are taken as they are.

A suppression (`porter: ignore`) is the code's author speaking, and in a pull request that author is the one under
review. A finding suppressed at the head but not at the base (matched by the same identity; a baseline lists what
was suppressed when it was written) is "suppressed by this change": every diff counts them and the PR comment says
so. Under `--isolated` (CI on untrusted code) they are not honoured: such a finding counts as new (or unchanged,
where the base had it open), so `--fail-on` sees it. Without `--isolated` the repository is trusted and they are
honoured, but still shown.

The same holds for the evidence that makes a spot "handled" when the change itself supplies it. Under `--isolated` a
new finding is open again (and gates) when what handled it is only (1) its file's place or name (`rocm/x.cu` reads
ROCm-only, so a change could put CUDA-only code there), or (2) a preprocessor guard whose every other arm holds no
code (`#ifdef USE_ROCM` with nothing in it, or `#ifndef USE_ROCM` with no `#else`, around new inline PTX), or no code
that does the same job (a dummy declaration beside a whole kernel: where the finding's arm defines its function, an
arm must mention that function, its twin): such a guard gives ROCm no path, it only hides the spot, or (2b) a guard
whose ROCm macro names neither the HIP toolchain nor the base revision defines (base_vouch: `MY_HIP_BUILD`, a
renamed `__HIP_PLATFORM_AMDX__`; checked on the head's findings before matching, so unchanged code under a renamed
guard is open too), or (3) evidence in another file that the change itself adds or
modifies (a build file that makes the spot's directory a CUDA component beside a ROCm sibling, a header whose arm
handles it, a file inside the ROCm sibling directory that makes a `cuda/` directory its twin), or (4) a line of its
own C/C++ file, which the change adds or modifies, that is no preprocessor guard (a runtime `if (is_hip())`, a class
twin in the same file): the author under review would be vouching for their own code, or (5) a component pairing
(`backend/cuda/` beside `backend/rocm/`) for a file the change adds or modifies that has no counterpart in the ROCm
directory (_no_counterpart): the pairing vouches for what the ROCm side replaces, not for a feature it lacks, or (6)
a line of its own build, launch, container or packaging file (_build_file: a Dockerfile, a Bazel BUILD, a CMake or
Make file, a shell script, setup.py, a CI or compose YAML) which the change adds or modifies: a decoy ROCm stage,
a never-built hipcc genrule or an empty `"rocm": []` key is the change writing both the NVIDIA line and what excuses
it, or (7) for a file the change ADDS, a rule tagged `nvidia-build`, `nvidia-launch` or `toolkit-requirement`
(GateRules.build_unit) handled by another file (the repository's ROCm Dockerfile, CMake project or tool script
standing in for it, porter.portaware.rocmbuild): a new NVIDIA build or launch unit brings no ROCm side of its own,
whatever the ROCm build already mirrors (the honest answer is a ROCm counterpart in the same change, which then
is evidence of the change and reopens too, or a baseline entry: docs/ci.md). And (8) a finding a Python context
step lowered to info because code of its own file, which the change adds or modifies, gives ROCm an answer
(refine_python.OWN_ROCM_CONTEXT_KEYS: a dead FNUZ arm, a None return whose caller refuses ROCm) counts at its
rule's own severity. In (2)
an arm is the function's twin only when it defines it with a body that does something (_defines: not `{}`, a stub
body or a bare declaration). These findings are listed as `reopened` in the diff.

Independently of `--isolated`, a finding whose code the base had with a status that was not open (handled or
cuda-only) and that is open at the head counts as new, listed again in Diff.status_worse: a change that deletes the
ROCm guard around existing CUDA code leaves the code's text as it was, so by identity alone it would be "unchanged".
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Hashable, Iterable, TypeVar

from porter.budget import Budget
from porter.errors import UsageError
from porter.kernels.verdicts import RANK
from porter.model import Confidence, Finding, Kernel, ScanResult, Severity, Status
from porter.model.kernel import TargetVerdict
from porter.source import git
from porter.source.discover import on_disk, shown_path
from porter.source.linecode import code_words

if TYPE_CHECKING:
    from porter.rules import Rule
    from porter.source.preprocessor import Preprocessed

BASELINE_SCHEMA = "porter-baseline/1"
# A baseline is committed to the repository it judges, so it is read as hostile input: at most this many bytes (about
# 150,000 findings), a regular file only (never a FIFO or a device behind a symlink), never blocking.
MAX_BASELINE_BYTES = 64 * 1024 * 1024
# The finding fields a baseline must give as strings (None allowed for the optional ones): anything else would
# reach the matcher (sorting a list against a string) and end the scan with an internal error.
_TEXT_FIELDS = ("path", "rule", "category", "message")
_OPTIONAL_TEXT = ("snippet", "function", "kernel", "fingerprint", "replacement", "status")
# How to get a base commit a shallow CI checkout lacks; said in every error about a missing base.
FETCH_HINT = ("fetch the history first: in GitHub Actions check out with `fetch-depth: 0`, or run "
              "`git fetch --depth=1 origin <sha>` for the base commit")


@dataclass(frozen=True)
class Change:
    """What git says differs between two commits, relative to the scanned directory."""

    base: str  # full commit ids
    head: str
    base_paths: frozenset[str]  # at the base: deleted, modified, renamed-from
    head_paths: frozenset[str]  # at the head: added, modified, renamed-to
    renames: tuple[tuple[str, str], ...] = ()  # (path at base, path at head), sorted


@dataclass(frozen=True)
class GateRules:
    """What the --isolated gate reads of the scan's rule set: the ids of the rules whose lines are one build or launch
    unit's NVIDIA side (tagged porter.portaware.status's NVIDIA_BUILD_TAG, NVIDIA_LAUNCH_TAG or
    TOOLKIT_REQUIREMENT_TAG: the repository's ROCm build stands in for them), and each rule's own severity (what a
    finding a Python context step lowered counts at: _reopen)."""

    build_unit: frozenset[str] = frozenset()
    severity: tuple[tuple[str, Severity], ...] = ()  # (rule id, severity), sorted

    @classmethod
    def of(cls, rules: Iterable[Rule]) -> GateRules:
        from porter.portaware.status import NVIDIA_BUILD_TAG, NVIDIA_LAUNCH_TAG, TOOLKIT_REQUIREMENT_TAG

        rules = list(rules)
        unit = {NVIDIA_BUILD_TAG, NVIDIA_LAUNCH_TAG, TOOLKIT_REQUIREMENT_TAG}
        return cls(frozenset(r.id for r in rules if unit & set(r.tags)),
                   tuple(sorted((r.id, r.severity) for r in rules)))

    def severity_of(self, rule: str) -> Severity | None:
        return dict(self.severity).get(rule)


# What a worse verdict on an open kernel counts as for `--fail-on` (KernelChange.severity): a kernel the change adds
# or changes that the AMD build must fix (`fix`: shared memory past the target's LDS, a 32-lane assumption that gives
# wrong results on a 64-lane wavefront) or rewrite is ROCm work the change adds, as a finding of that severity is;
# `check` and `retune` are tuning, and never fail a gate.
KERNEL_SEVERITY = {"fix": Severity.MEDIUM, "rewrite": Severity.HIGH}


@dataclass(frozen=True)
class KernelChange:
    """A kernel whose verdict on one target moved; `before` is None for a kernel the change added. `status`: the
    head kernel's port status ("open", "handled", "cuda-only")."""

    name: str
    path: str  # at the head
    line: int
    target: str
    before: str | None
    after: str
    status: str = "open"

    @property
    def worse(self) -> bool:
        """Whether the change adds ROCm work here: a worse verdict on an open kernel. A kernel only the CUDA build
        compiles, or one the ROCm build has its twin of (a PR adding `cuda/scale_rows.cu` under `if(SPLA_CUDA)`
        beside `rocm/scale_rows.hip`), is no kernel the port must fix, whatever its CUDA code's verdict."""
        return self.status == "open" and RANK[self.after] > RANK[self.before or "ok"]

    @property
    def severity(self) -> Severity:
        """What `--fail-on` counts this change as (KERNEL_SEVERITY of its verdict when it is worse, else info)."""
        return KERNEL_SEVERITY.get(self.after, Severity.INFO) if self.worse else Severity.INFO

    def to_dict(self) -> dict[str, Any]:
        return {"kernel": self.name, "path": self.path, "line": self.line, "target": self.target,
                "before": self.before, "after": self.after, "worse": self.worse, "status": self.status,
                "severity": str(self.severity)}


@dataclass(frozen=True)
class Diff:
    """New, fixed and unchanged findings and the kernel verdict changes between a base and a head."""

    base: str  # a commit id, or "baseline:<file name>"
    head: str
    new: tuple[Finding, ...]
    fixed: tuple[Finding, ...]  # as they were at the base (base paths and lines)
    unchanged: tuple[Finding, ...]  # as they are at the head, in the files that were compared
    kernels: tuple[KernelChange, ...] = ()  # worse and better, sorted by path, line, target
    renames: tuple[tuple[str, str], ...] = ()
    # Head findings a suppression hides that the base did not hide (see the module docstring), sorted; and whether
    # they were honoured (False under --isolated: they are in `new` or `unchanged` like any other finding).
    suppressed_by_change: tuple[Finding, ...] = ()
    suppressions_honoured: bool = True
    # New findings a handled status would have hidden, open again under --isolated (see the module docstring).
    reopened: tuple[Finding, ...] = ()
    # Findings handled or cuda-only at the base and open at the head (a change that deletes the ROCm guard around
    # existing CUDA code): the same code, but new ROCm work, so they are in `new` too (the gate counts them).
    status_worse: tuple[Finding, ...] = ()

    @property
    def worse_kernels(self) -> tuple[KernelChange, ...]:
        return tuple(k for k in self.kernels if k.worse)

    def counts(self) -> dict[str, Any]:
        return {"base": self.base, "head": self.head, "new": len(self.new), "fixed": len(self.fixed),
                "unchanged": len(self.unchanged), "status_worse": len(self.status_worse),
                "kernels_worse": len(self.worse_kernels)}


# ----------------------------------------------------------------------------------------------- git


def repository_of(path: Path) -> tuple[Path, str]:
    """The top of the git work tree holding `path` and `path` relative to it ('' at the top)."""
    path = Path(path)
    top = git.require_top(path.resolve(), ", so there is no history for --new-since (use --baseline FILE instead)")
    rel = path.resolve().relative_to(top.resolve()).as_posix()
    return top, "" if rel == "." else rel


def _commit(top: Path, rev: str) -> str | None:
    try:
        return git.run(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}",
                       timeout=30).decode().strip()
    except git.GitError:
        return None


def resolve(top: Path, ref: str, head: str = "HEAD") -> tuple[str, str]:
    """(merge-base of `ref` and `head`, `head`) as full commit ids; a clear UsageError when git lacks either."""
    if not ref or ref.startswith("-"):
        raise UsageError(f"--new-since needs a commit or branch name, not {ref!r}")
    head_id = _commit(top, head)
    if head_id is None:
        raise UsageError(f"{head!r}: no such commit in {top}")
    ref_id = _commit(top, ref)
    if ref_id is None:
        raise UsageError(f"--new-since {ref!r}: no such commit in {top} (if it exists upstream, this clone, shallow "
                         f"as CI clones are, lacks it): {FETCH_HINT}")
    try:
        base = git.run(top, "merge-base", ref_id, head_id, timeout=60).decode().strip()
    except git.GitError:
        base = ""
    if not base:
        raise UsageError(f"--new-since {ref!r}: {ref_id[:12]} and {head_id[:12]} have no common ancestor in this "
                         f"clone (the history between them is missing): {FETCH_HINT}")
    return base, head_id


def _path(raw: bytes) -> str:
    """A path as git tree discovery shows it (porter.source.read.GitTree), so the two name the same file."""
    return shown_path(os.fsdecode(raw))


# The most changed paths one comparison reads (twice discovery's MAX_FILES: a change deletes and adds).
MAX_CHANGED_PATHS = 100_000


def changes(top: Path, base: str, head: str, subdir: str = "") -> Change:
    """The files that differ between two commits under `subdir`, renames paired, from one `git diff --raw -M`."""
    args = ["diff", "--raw", "-z", "-M", "--no-ext-diff", "--no-textconv"]
    if subdir:
        args.append(f"--relative={subdir.rstrip('/')}/")
    try:
        out = git.run(top, *args, base, head, "--")
    except git.GitError as e:
        raise UsageError(f"cannot compare {base[:12]} with {head[:12]}: {e}") from None
    # One record per changed path (two NUL-separated fields, three for a rename): a change past MAX_CHANGED_PATHS is
    # refused before its paths become Python strings (a 90 KB object set can list a million paths), and a refused
    # comparison fails the gate (exit 2) rather than pass what it did not compare.
    if out.count(b"\0:") + out.startswith(b":") > MAX_CHANGED_PATHS:
        raise UsageError(f"cannot compare {base[:12]} with {head[:12]}: the change touches more than "
                         f"{MAX_CHANGED_PATHS:,} paths, past what porter compares file by file; scan the head in full")
    fields = out.split(b"\0")
    base_paths: set[str] = set()
    head_paths: set[str] = set()
    renames: list[tuple[str, str]] = []
    i = 0
    while i < len(fields):
        meta = fields[i]
        if not meta.startswith(b":"):
            i += 1
            continue
        status = meta.split()[-1][:1]
        if status in (b"R", b"C"):
            old, new = _path(fields[i + 1]), _path(fields[i + 2])
            i += 3
            if status == b"R":
                base_paths.add(old)
                renames.append((old, new))
            head_paths.add(new)
            continue
        p = _path(fields[i + 1])
        i += 2
        if status != b"A":
            base_paths.add(p)
        if status != b"D":
            head_paths.add(p)
    return Change(base, head, frozenset(base_paths), frozenset(head_paths), tuple(sorted(renames)))


# ------------------------------------------------------------------------------------------ matching


def _text(f: Finding) -> str:
    """The code of the finding's line (its comments left out: a comment added to a flagged line is no new finding)."""
    return code_words(f.snippet, f.path)


Item = TypeVar("Item")


def _pair(base: list[Item], head: list[Item], key: Callable[[Item], Hashable]
          ) -> tuple[list[tuple[Item, Item]], list[Item], list[Item]]:
    """Pairs of (base, head) items with equal keys, the n-th of a key at the base with the n-th at the head (the
    occurrence index); and the unpaired items of each side, in their original order."""
    pool: dict[Hashable, list[Item]] = {}
    for b in base:
        pool.setdefault(key(b), []).append(b)
    pairs: list[tuple[Item, Item]] = []
    left_head: list[Item] = []
    for h in head:
        bucket = pool.get(key(h))
        if bucket:
            pairs.append((bucket.pop(0), h))
        else:
            left_head.append(h)
    taken = {id(b) for b, _ in pairs}
    return pairs, [b for b in base if id(b) not in taken], left_head


def match_findings(base: Iterable[Finding], head: Iterable[Finding], renames: dict[str, str] | None = None
                   ) -> tuple[list[Finding], list[Finding], list[Finding]]:
    """(new, fixed, unchanged) between two sets of findings; base paths are read through `renames` (old → new)."""
    return _match(base, head, renames)[:3]


def _match(base: Iterable[Finding], head: Iterable[Finding], renames: dict[str, str] | None = None
           ) -> tuple[list[Finding], list[Finding], list[Finding], list[Finding]]:
    """match_findings, and the new findings whose code the base had with a port status that was not open
    (Diff.status_worse)."""
    renames = renames or {}
    base = sorted(base, key=lambda f: (f.path, f.line, f.column, f.rule))
    head = sorted(head, key=lambda f: (f.path, f.line, f.column, f.rule))
    pairs, gone, added = _pair_with_paths(base, head, renames)
    # A function moved to another file keeps its findings: match the rest by what they are, not where.
    def named(fs: list[Finding]) -> list[Finding]:
        return [f for f in fs if f.function]

    moved, _, _ = _pair(named(gone), named(added), lambda f: (f.rule, f.function, _text(f)))
    moved_base = {id(b) for b, _ in moved}
    moved_head = {id(h) for _, h in moved}
    new = [f for f in added if id(f) not in moved_head]
    fixed = [f for f in gone if id(f) not in moved_base]
    followed = _followed_advice(fixed, new, renames)
    new = [f for f in new if id(f) not in followed]
    # The same code whose port status got worse (handled or cuda-only at the base, open at the head: a change that
    # only deletes or breaks the ROCm guard around it) is ROCm work the change adds: new, not unchanged.
    worse = {id(h) for b, h in (*pairs, *moved) if b.status is not Status.OPEN and h.status is Status.OPEN}
    unchanged = sorted([h for _, h in (*pairs, *moved) if id(h) not in worse] + [f for f in added if id(f) in followed])
    status_worse = sorted(h for _, h in (*pairs, *moved) if id(h) in worse)
    return sorted(new + status_worse), sorted(fixed), unchanged, status_worse


# Pairs of one spot's fixed and new findings compared at most, per file and function: the similarity test is
# quadratic, and a change that rewrites thousands of lines of one function is not "following advice" anyway.
MAX_ADVICE_PAIRS = 10_000
ADVICE_SIMILARITY = 0.7  # `(0xffffffff, v)` → `(mask, v)` in a 35-character line is 0.79


def _followed_advice(fixed: list[Finding], new: list[Finding], renames: dict[str, str]) -> set[int]:
    """ids of new findings that are what is left at a spot after the change followed porter's advice there: a
    more severe finding on a line of the same function went away and a lesser one appeared on a line that
    hardly changed (`__ballot_sync(0xffffffff, v)` → `__ballot_sync(~0ull, v)`: DEV002 high fixed, API004 low, the
    intrinsic still to review, appears). That is no new work, so it counts as unchanged."""
    from difflib import SequenceMatcher

    spots: dict[tuple[str, str], list[Finding]] = {}
    for f in fixed:
        spots.setdefault((renames.get(f.path, f.path), f.function or ""), []).append(f)
    out: set[int] = set()
    used: set[int] = set()
    by_spot: dict[tuple[str, str], list[Finding]] = {}
    for f in new:
        by_spot.setdefault((f.path, f.function or ""), []).append(f)
    for key, heads in by_spot.items():
        bases = spots.get(key, [])
        if not bases or len(bases) * len(heads) > MAX_ADVICE_PAIRS:
            continue
        for h in heads:
            best, score = None, ADVICE_SIMILARITY
            for b in bases:
                if id(b) in used or b.severity <= h.severity:
                    continue
                r = SequenceMatcher(None, _text(b), _text(h)).ratio()
                if r >= score:
                    best, score = b, r
            if best is not None:
                used.add(id(best))
                out.add(id(h))
    return out


def _pair_with_paths(base: list[Finding], head: list[Finding], renames: dict[str, str]
                     ) -> tuple[list[tuple[Finding, Finding]], list[Finding], list[Finding]]:
    """`_pair` by full identity, the base side's path read through the renames."""
    keyed_base = [((f.rule, renames.get(f.path, f.path), f.function or "", _text(f)), f) for f in base]
    keyed_head = [((f.rule, f.path, f.function or "", _text(f)), f) for f in head]
    pairs, gone, added = _pair(keyed_base, keyed_head, lambda kf: kf[0])
    return [(b[1], h[1]) for b, h in pairs], [b[1] for b in gone], [h[1] for h in added]


def kernel_changes(base: Iterable[Kernel], head: Iterable[Kernel], renames: dict[str, str] | None = None
                   ) -> list[KernelChange]:
    """Per target, every kernel whose verdict moved between base and head, and every added kernel not `ok`."""
    renames = renames or {}
    base = sorted(base)
    head = sorted(head)
    keyed_base = [((renames.get(k.path, k.path), k.qualified_name), k) for k in base]
    keyed_head = [((k.path, k.qualified_name), k) for k in head]
    pairs, gone, unpaired = _pair(keyed_base, keyed_head, lambda kk: kk[0])
    moved, _, added = _pair([k for _, k in gone], [k for _, k in unpaired], lambda k: k.qualified_name)
    out: list[KernelChange] = []
    every: list[tuple[Kernel | None, Kernel]] = [(b[1], h[1]) for b, h in pairs] + list(moved) + [(None, k) for k in added]
    for b, h in every:
        for v in h.verdicts or ():
            before = b.verdict_on(v.target) if b is not None else None
            was = before.verdict if before is not None else None
            if (was is None and v.verdict != "ok") or (was is not None and was != v.verdict):
                out.append(KernelChange(h.name, h.path, h.line, v.target, was, v.verdict, h.status.value))
    return sorted(out, key=lambda c: (c.path, c.line, c.name, c.target))


def added_suppressions(base: Iterable[Finding], head: Iterable[Finding], renames: dict[str, str] | None = None
                       ) -> list[Finding]:
    """The head's suppressed findings with no suppressed counterpart at the base: what the change suppressed."""
    return match_findings(base, head, renames)[0]


def compare(base: ScanResult, head: ScanResult, change: Change, isolated: bool = False,
            read: Callable[[str], bytes | None] | None = None, budget: Budget | None = None,
            vouch: Callable[[str, str], bool] | None = None, rules: GateRules = GateRules()) -> Diff:
    """The diff of two scans of the files `change` names; `isolated`: suppressions the change adds are not honoured,
    nor a handled status that rests on the change's own say-so (`read`: a head file's bytes by path, or None;
    `budget`: one file's, for reading the guards, porter.budget's default without it; `vouch`: base_vouch's answer
    to whether a guard's ROCm macro name is one the base or the toolchain defines; `rules`: what the gate reads of
    the rule set, GateRules)."""
    renames = dict(change.renames)
    added = added_suppressions(base.suppressed, head.suppressed, renames)
    found = [*head.findings, *added] if isolated else list(head.findings)
    renamed: list[Finding] = []
    if isolated and vouch is not None:  # a guard on a name only the change introduces: as if it were not there
        found, renamed = _unvouched(found, read, vouch, budget)
    new, fixed, unchanged, worse = _match(base.findings, found, renames)
    listing = head.stats.discovery[3].files if head.stats.discovery is not None else ()
    added_paths = change.head_paths - change.base_paths - {b for _, b in change.renames}
    new, reopened = _reopen(new, read, change.head_paths, budget, frozenset(c.path for c in listing),
                            added_paths, rules) if isolated else (new, [])
    in_new = {id(f) for f in new}  # the renamed findings that are new (the rest paired with an open base finding)
    reopened = sorted({id(f): f for f in (*reopened, *(f for f in renamed if id(f) in in_new))}.values())
    return Diff(change.base, change.head, tuple(new), tuple(fixed), tuple(unchanged),
                tuple(kernel_changes(base.kernels, head.kernels, renames)), change.renames, tuple(added),
                not isolated, tuple(reopened), tuple(worse))


def read_at(top: Path, commit: str, subdir: str) -> Callable[[str], bytes | None]:
    """A reader of the files of `commit` (paths relative to `subdir`), through git's bounded output."""
    def read(path: str) -> bytes | None:
        raw = on_disk(path)  # a path as the scan shows it: the tree's entry of that name
        full = f"{subdir.rstrip('/')}/{raw}" if subdir else raw
        try:
            return git.run(top, "cat-file", "blob", f"{commit}:{full}")
        except git.GitError:
            return None
    return read


def _reopen(new: list[Finding], read: Callable[[str], bytes | None] | None,
            changed: frozenset[str] = frozenset(), budget: Budget | None = None,
            listing: frozenset[str] = frozenset(), added: frozenset[str] = frozenset(),
            rules: GateRules = GateRules()) -> tuple[list[Finding], list[Finding]]:
    """The new findings with those a change's own evidence handled made open again, and those (see the module
    docstring); `changed`: the paths the change adds or modifies (none for a baseline, which has no history).
    `budget`: one file's (porter.budget); the guards are read under a stage's budget of it. `listing`: the head's
    files, where a component's counterpart is looked for (_no_counterpart). `added`: the paths the change adds (a
    subset of `changed`); `rules`: the rules tagged for a build unit, and each rule's severity (GateRules)."""
    from porter.match.refine_python import OWN_ROCM_CONTEXT_KEYS
    from porter.portaware.scope import rocm_path_evidence

    # (8) a finding lowered to info by its own file's ROCm answer counts at its rule's severity (status as it is)
    new = [_own_context_severity(f, changed, rules, OWN_ROCM_CONTEXT_KEYS) for f in new]
    lowered = {id(f) for f in new if "gate_severity" in dict(f.data)}

    whys: list[str | None] = []
    keys: list[tuple[str, int] | None] = []  # each finding's own-file guard (_own_guard)
    guards: dict[tuple[str, int], None] = {}  # the (path, guard line) pairs to read, in order, once each
    # A directory is evidence too (a component's ROCm sibling, `tl_templates/hip/`): the change supplies it when it
    # adds or modifies a file anywhere under it.
    touched = {d + "/" for c in changed for d in _parents(c)}
    for f in new:
        why, key = None, None
        if f.status is not Status.OPEN and f.handled_by:
            evidence = f.handled_by.rsplit(":", 1)[0]
            if f.handled_by == rocm_path_evidence(f.path):
                why = "place"
            elif evidence != f.path and (evidence in changed or evidence in touched):
                why = "evidence"
            elif f.path in changed and _no_counterpart(f.path, evidence, listing):
                why = "no counterpart"
            elif f.status is Status.HANDLED and evidence == f.path and f.path in changed and _build_file(f.path):
                why = "own build file"  # (6)
            elif f.status is Status.HANDLED and evidence != f.path and f.path in added and f.rule in rules.build_unit:
                why = "new build unit"  # (7)
            elif (guard := _own_guard(f)) is not None and read:
                why, key = "check", guard
                guards[guard] = None
        whys.append(why)
        keys.append(key)
    words: dict[tuple[str, int], set[str]] = {}
    for f, key in zip(new, keys):
        if key is not None and _short(f.function):
            words.setdefault(key, set()).add(_short(f.function))
    arms = _guard_arms(read, list(guards), budget or Budget(), {k: frozenset(v) for k, v in words.items()}
                       ) if guards and read else {}
    out, reopened = [], []
    for f, why, key in zip(new, whys, keys):
        if key is not None:
            found = arms.get(key) if arms else None
            group = found[0] if found is not None else None
            # An unread guard (its check ran out of budget: arms is None) is no evidence; a guard with code in
            # another arm leaves the status standing, unless the finding's own arm defines its function and no
            # other arm mentions that function: a dummy `int unused;` beside a whole CUDA kernel is no ROCm path
            # for it (the HIP build has no such kernel, or takes the CUDA arm). A line that is no preprocessor
            # guard (a runtime `if (is_hip())`, a same-file class twin, a `#define`) in a C/C++ file the change
            # adds or modifies is the change's own say-so (4): the ROCm build compiles it either way.
            # Another arm is that twin only when it defines the function with a body that does something: an
            # empty `{}`, a body of only `return;` / `__trap();`, or a bare declaration gives the ROCm build no kernel
            # (or one that does nothing), so it is no ROCm path (_defines).
            name = _short(f.function)
            own = next((m for start, end, _, m, _d in group or () if start <= f.line <= end), frozenset())
            why = "guard" if arms is None or (group is not None and not any(
                code and (name not in own or name in d) for start, end, code, _m, d in group
                if not start <= f.line <= end)) else (
                "not a guard" if group is None and f.path in changed and _compiled(f.path) else None)
        if why is None:
            out.append(f)
        else:
            g = dataclasses.replace(f, status=Status.OPEN, handled_by=None)
            out.append(g)
            reopened.append(g)
    held = {id(g) for g in reopened}
    reopened += [f for f in out if id(f) not in held and id(f) in lowered]
    return sorted(out), sorted(reopened)


def _own_context_severity(f: Finding, changed: frozenset[str], rules: GateRules, keys: frozenset[str]) -> Finding:
    """The finding at its rule's own severity when a Python context step lowered it to info on the strength of code
    in its own file (`keys`: data keys, refine_python.OWN_ROCM_CONTEXT_KEYS) and the change adds or modifies that
    file; the severity it was read at is kept under data `gate_severity`. Any other finding as it is."""
    own = rules.severity_of(f.rule)
    if f.path not in changed or f.severity is not Severity.INFO or own is None or own <= Severity.INFO \
            or not keys & {k for k, _ in f.data}:
        return f
    return dataclasses.replace(f, severity=own,
                               data=tuple(sorted({**dict(f.data), "gate_severity": str(f.severity)}.items())))


# The languages of build, launch, container and packaging files (porter.source.discover.language_of), and the
# Python files that are packaging: an `if` in them is a real build or runtime choice, not a preprocessor guard, so
# a line of such a file that the change writes is the change's own say-so for the file's other lines (_reopen (6)).
_BUILD_LANGUAGES = frozenset({"cmake", "make", "meson", "bazel", "dockerfile", "shell", "requirements", "toml", "yaml"})
_PACKAGING_NAMES = frozenset({"setup.py", "setup.cfg"})


def _build_file(path: str) -> bool:
    """Whether a path is a build, launch, container or packaging file (not compiled source, not a Python module)."""
    from porter.source.discover import language_of

    return language_of(path) in _BUILD_LANGUAGES or path.rpartition("/")[2] in _PACKAGING_NAMES


def _no_counterpart(path: str, evidence: str, listing: frozenset[str]) -> bool:
    """Whether a file the change adds or modifies in a CUDA component whose ROCm sibling directory `evidence`
    (`backend/rocm/`) handles it has no counterpart there: no file in the same folder below the sibling with the
    same stem once vendor words are out (porter.portaware.scope.counterpart_slot), nor one of the same core stem
    anywhere in the sibling (scope.core_stem). The sibling is the ROCm build's
    replacement of what the component already had; a source the change adds beside them (`backend/cuda/topk.py`)
    is a feature the ROCm build lacks."""
    from porter.portaware.scope import core_stem, counterpart_slot

    if not evidence.endswith("/") or not listing:
        return False
    sibling = evidence.rstrip("/")
    parent = os.path.dirname(sibling)
    own = next((d for d in _parents(path) if os.path.dirname(d) == parent and d != sibling), None)
    if own is None:
        return False
    slot = counterpart_slot(path, own)
    # ... or a file of the same core stem anywhere in it (`rocsparseWellContributions.cpp` for `cuWellContributions.cu`)
    core = core_stem(path)
    return not any(counterpart_slot(p, sibling) == slot or (core and core_stem(p) == core)
                   for p in listing if p.startswith(sibling + "/"))


def _short(function: str | None) -> str:
    """A function's own name (`ns::K<T>::run` -> `run`), or ''."""
    import re

    name, prev = function or "", None
    while prev != name:  # template arguments out, innermost first
        prev, name = name, re.sub(r"<[^<>]*>", "", name)
    return name.rsplit("::", 1)[-1].strip()


def _unvouched(head: Iterable[Finding], read: Callable[[str], bytes | None] | None,
               vouch: Callable[[str, str], bool], budget: Budget | None = None) -> tuple[list[Finding], list[Finding]]:
    """The head's findings with those handled by a same-file guard that tests only ROCm names nobody but the change
    vouches for made open again, and those (--isolated, before matching: a guard the change renamed from
    `__HIP_PLATFORM_AMD__` to `__HIP_PLATFORM_AMDX__` around unchanged code must read as the guard removed).
    `vouch(name, path)`: whether the toolchain or the base revision defines or already used `name` (base_vouch)."""
    guards = {key: None for f in head if (key := _own_guard(f)) is not None}
    if not guards or read is None:
        return list(head), []
    arms = _guard_arms(read, list(guards), budget or Budget())
    out, reopened = [], []
    for f in head:
        key = _own_guard(f)
        found = arms.get(key) if arms is not None and key is not None else None
        # An unread guard (past its budget) vouches for nothing; a guard testing no ROCm name is left to _reopen.
        if key is not None and (arms is None or (found is not None and found[1]
                                                 and not any(vouch(n, f.path) for n in found[1]))):
            g = dataclasses.replace(f, status=Status.OPEN, handled_by=None)
            out.append(g)
            reopened.append(g)
        else:
            out.append(f)
    return out, reopened


def _own_guard(f: Finding) -> tuple[str, int] | None:
    """(path, line) of the guard in the finding's own file that handles it (`handled_by` "path:N"), or None."""
    if f.status is Status.OPEN or not f.handled_by or not f.handled_by.startswith(f.path + ":"):
        return None
    line = f.handled_by[len(f.path) + 1:]
    return (f.path, int(line)) if line.isdigit() else None


# Names the HIP toolchain defines (hip-clang/hipcc, the HIP headers, PyTorch's extension builder: porter's
# BUILTIN_ROCM), which vouch for a ROCm arm whatever the change is.
def _toolchain_name(name: str) -> bool:
    from porter.source.preprocessor import BUILTIN_ROCM, HIP_COMPILER_MACROS, ROCM_SOMETIMES

    return name in BUILTIN_ROCM or name in HIP_COMPILER_MACROS or bool(ROCM_SOMETIMES.match(name))


# Build files whose mention of a macro name is the build defining it (`add_definitions(-DMY_HIP)`, `option(...)`,
# `-DMY_HIP` in a Makefile, `define_macros` in setup.py), read at the base revision by `git grep`.
BUILD_PATHSPECS = tuple(f":(glob,icase)**/{g}" for g in (
    "CMakeLists.txt", "*.cmake", "Makefile", "makefile", "GNUmakefile", "*.mk", "*.mak", "setup.py", "setup.cfg",
    "pyproject.toml", "meson.build", "meson_options.txt", "configure.ac", "configure.in", "*.bzl", "BUILD",
    "BUILD.bazel", "SConstruct", "SConscript", "*.gn", "*.gni", "build.rs", "*.vcxproj", "*.props"))


def base_vouch(top: Path, base: str, subdir: str, renames: Iterable[tuple[str, str]] = ()
               ) -> Callable[[str, str], bool]:
    """Whether a ROCm macro name may vouch for a guard of a file at the head (path as the scan shows it), under
    --isolated: the HIP toolchain defines it, or the BASE revision does: a build file of it mentions the name, a file
    of it `#define`s it, or the file's own base version already tests it. A name only the change itself introduces
    (`MY_HIP_BUILD`, `__HIP_PLATFORM_AMDX__`) vouches for nothing: the HIP build never defines it, so it compiles the
    CUDA arm. Answers are remembered; a git failure or timeout answers no (the gate fails rather than pass)."""
    import re

    back = {new: old for old, new in renames}
    read = read_at(top, base, subdir)
    texts: dict[str, bytes] = {}
    repo_wide: dict[str, bool] = {}

    def in_repository(name: str) -> bool:
        if name not in repo_wide:
            found = False
            # a word of its own, or after a compiler's -D (`-DMY_HIP`: no word boundary there)
            word = rf"(^|[^[:alnum:]_]|[-/]D){name}($|[^[:alnum:]_])"
            for args in (("-E", "-e", word, base, "--", *BUILD_PATHSPECS),
                         ("-E", "-e", rf"^[[:space:]]*#[[:space:]]*define[[:space:]]+{name}\b", base, "--")):
                try:
                    found = bool(git.run(top, "grep", "-l", "-I", "--no-color", *args, timeout=60, check=False))
                except git.GitError:
                    found = False
                if found:
                    break
            repo_wide[name] = found
        return repo_wide[name]

    def vouch(name: str, path: str) -> bool:
        if _toolchain_name(name):
            return True
        if not re.fullmatch(r"[A-Za-z_]\w*", name):
            return False
        was = back.get(path, path)
        if was not in texts:
            texts[was] = read(was) or b""
        return bool(re.search(rb"\b" + name.encode() + rb"\b", texts[was])) or in_repository(name)
    return vouch


def _compiled(path: str) -> bool:
    """Whether a path is C/C++/CUDA text a compiler reads (by name, or with no language porter knows: a quoted or
    angle include of `kern/x.txt`), not a build or Python file whose `if` is a real build or runtime choice."""
    from porter.source.discover import language_of

    return language_of(path) in ("cuda", None)


# One guard as _guard_arms reads it: its arms (first body line, last body line, whether it holds code, which of the
# asked-for words its body mentions, which it defines as a function with a body that does something: _defines) and
# the ROCm-side macro names its own condition tests (is_rocm_name).
GuardArms = tuple[list[tuple[int, int, bool, frozenset[str], frozenset[str]]], tuple[str, ...]]


def _guard_arms(read: Callable[[str], bytes | None], guards: list[tuple[str, int]], budget: Budget,
                words: dict[tuple[str, int], frozenset[str]] | None = None
                ) -> dict[tuple[str, int], GuardArms | None] | None:
    """The arms of each (path, guard line) (_arms), read and lexed in a budgeted worker (porter.budget: this reads
    repository content after the scan's workers are done, and the lexer is superlinear on nested conditionals);
    None when the worker ran out of its budget or the run's deadline. `words`: per guard, the names whose mention in
    each arm's body is reported (the functions its findings sit in)."""
    from porter.budget import Overrun, run_inherited, stage_budget

    answer = run_inherited(_guard_arms_task, (read, guards, words or {}),
                           stage_budget(budget, len({p for p, _ in guards})))
    return None if isinstance(answer, Overrun) else answer


def _guard_arms_task(read: Callable[[str], bytes | None], guards: list[tuple[str, int]],
                     words: dict[tuple[str, int], frozenset[str]]) -> dict[tuple[str, int], GuardArms | None]:
    import re

    from porter.source.preprocessor import blank_comments, is_rocm_name, preprocess

    texts: dict[str, tuple[Preprocessed, list[bytes]] | None] = {}
    out: dict[tuple[str, int], GuardArms | None] = {}
    for path, guard in guards:
        if path not in texts:  # each file read and lexed once
            data = read(path)
            texts[path] = None if data is None else (preprocess(data), data.split(b"\n"))
        known = texts[path]
        arms = None if known is None else _arms(known[0], guard)
        if known is None or arms is None:
            out[(path, guard)] = None
            continue
        lines = known[1]
        wanted = [(w, re.compile(rb"\b" + re.escape(w.encode()) + rb"\b")) for w in sorted(words.get((path, guard), ()))
                  if w.isidentifier()]
        mentions = [frozenset(w for w, rx in wanted if any(rx.search(ln) for ln in lines[start - 1:end]))
                    for start, end, _ in arms]
        bodies = [blank_comments(b"\n".join(lines[start - 1:end])).decode("utf-8", "replace") if m else ""
                  for (start, end, _), m in zip(arms, mentions)]
        defined = [frozenset(w for w in m if _defines(body, w)) for m, body in zip(mentions, bodies)]
        text = next((a.text for g in known[0].groups for a in g.arms if a.line == guard), "")
        names = tuple(dict.fromkeys(n for n in re.findall(r"[A-Za-z_]\w*", text) if n != "defined" and is_rocm_name(n)))
        out[(path, guard)] = ([(a, b, c, m, d) for (a, b, c), m, d in zip(arms, mentions, defined)], names)
    return out


# A statement that does nothing a caller could use (a stub's body): `return;`, a trap or abort, an `assert(false)`,
# a throw, a cast to void of an unused parameter, an empty statement.
_STUB_STATEMENT = re.compile(r"(?:return|(?:std::)?abort\s*\(\s*\)|__trap\s*\(\s*\)|__builtin_trap\s*\(\s*\)"
                             r"|assert\s*\(\s*(?:false|0)\b.*|throw\b.*|\(\s*void\s*\)\s*[A-Za-z_]\w*|)", re.S)
# What may stand between a function's parameter list and its body (qualifiers, a trailing return type).
_BEFORE_BODY = re.compile(r"[^;{}()]*")


def _defines(text: str, name: str) -> bool:
    """Whether `text` (comments blanked) defines a function `name` with a body that does something: its parameter
    list followed by `{`, and in the braces a statement other than _STUB_STATEMENT. A declaration (`...);`), a call
    and an empty or stub body (`{}`, `{ return; }`, `{ __trap(); }`) are not: they give a build no working function."""
    for m in re.finditer(r"(?<![\w.])" + re.escape(name) + r"\s*(?:<[^;{}()]*>\s*)?\(", text):
        close = _balanced(text, m.end() - 1, "(", ")")
        if close is None:
            continue
        gap = _BEFORE_BODY.match(text, close + 1)
        at = gap.end() if gap else close + 1
        if at >= len(text) or text[at] != "{":
            continue
        end = _balanced(text, at, "{", "}")
        body = text[at + 1:end if end is not None else len(text)]
        if any(not _STUB_STATEMENT.fullmatch(s.strip()) for s in re.split(r"[;{}]", body)):
            return True
    return False


def _balanced(text: str, at: int, opening: str, closing: str) -> int | None:
    """The index of the `closing` that balances the `opening` at `at`, or None when the text ends first."""
    depth = 0
    for i in range(at, len(text)):
        c = text[i]
        if c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return i
    return None


def _parents(path: str) -> Iterable[str]:
    """Every directory above a relative path, nearest first (`a/b/c.cu` -> `a/b`, `a`)."""
    d = os.path.dirname(path)
    while d:
        yield d
        d = os.path.dirname(d)


def _arms(pre: Preprocessed, guard: int) -> list[tuple[int, int, bool]] | None:
    """The arms of the #if group with a directive at line `guard` (porter.source.preprocessor): (first body line,
    last body line, whether it holds code). None when no such group is found (the status then stands)."""
    for g in pre.groups:
        if any(a.line == guard for a in g.arms):
            return [(a.end_line + 1, a.last, a.line not in pre.empty_arms) for a in g.arms]
    return None


def apply(head: ScanResult, diff: Diff) -> ScanResult:
    """The head's scan reporting only what the change added: `findings` the new ones, and the diff in `change`."""
    extra: dict[str, Any] = {"diff": diff.counts(), "fixed": [f.to_dict() for f in diff.fixed],
                             "kernel_changes": [k.to_dict() for k in diff.kernels]}
    if diff.renames:
        extra["renames"] = [{"from": a, "to": b} for a, b in diff.renames]
    if diff.reopened:
        extra["reopened"] = [f.to_dict() for f in diff.reopened]
    if diff.status_worse:
        extra["status_worse"] = [f.to_dict() for f in diff.status_worse]
    if diff.suppressed_by_change:
        extra["suppressed_by_change"] = {"honoured": diff.suppressions_honoured,
                                         "findings": [f.to_dict() for f in diff.suppressed_by_change]}
    return dataclasses.replace(head, findings=diff.new, change=extra)


# ------------------------------------------------------------------------------------------ baseline


def baseline_document(result: ScanResult) -> dict[str, Any]:
    """What `porter baseline` writes: every finding's identity (and what a PR comment shows of a fixed one) and
    every kernel's verdict per target; sorted, no line-dependent key beyond what is shown."""
    keep = ("rule", "category", "severity", "confidence", "path", "line", "column", "end_line", "end_column",
            "message", "snippet", "function", "kernel", "fingerprint", "replacement", "status")
    doc = {
        "schema": BASELINE_SCHEMA,
        "targets": list(result.targets),
        "findings": [{k: f.to_dict()[k] for k in keep} for f in result.findings],
        "kernels": [{"path": k.path, "line": k.line, "end_line": k.end_line, "name": k.name,
                     "qualified_name": k.qualified_name,
                     "verdicts": {v.target: v.verdict for v in k.verdicts or ()}} for k in result.kernels],
    }
    if result.suppressed:  # what the source suppressed when the baseline was written (suppressions added later count)
        doc["suppressed"] = [{k: f.to_dict()[k] for k in keep} for f in result.suppressed]
    return doc


def load_baseline(path: Path, targets: Iterable[str] | None = None) -> tuple[list[Finding], list[Kernel]]:
    """The findings and kernels of a baseline file; a UsageError naming the file for anything malformed, or when
    its kernel verdicts are for other `targets` than the scan's (every kernel would read as changed)."""
    findings, _, kernels = load_baseline_with_suppressed(path, targets)
    return findings, kernels


def load_baseline_with_suppressed(path: Path, targets: Iterable[str] | None = None
                                  ) -> tuple[list[Finding], list[Finding], list[Kernel]]:
    """load_baseline, with the findings the source suppressed when the baseline was written (none in a baseline
    written before porter recorded them)."""
    from porter.settings import read_regular

    data = read_regular(Path(path), MAX_BASELINE_BYTES, "--baseline")  # a ConfigError: exit 2, naming the option
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise UsageError(f"{path}: cannot read the baseline: {e}") from None
    except RecursionError:
        # The decoder's own depth guard (about a thousand levels): a baseline is four deep.
        raise UsageError(f"{path}: cannot read the baseline: JSON nested too deeply to be a porter baseline") from None
    if not isinstance(doc, dict) or doc.get("schema") != BASELINE_SCHEMA:
        raise UsageError(f"{path}: not a porter baseline (expected \"schema\": \"{BASELINE_SCHEMA}\"; "
                         "write one with `porter baseline PATH -o FILE`)")
    if not isinstance(doc.get("targets", []), list) or not all(isinstance(t, str) for t in doc.get("targets", [])):
        raise UsageError(f"{path}: malformed baseline: \"targets\" must be a list of target ids")
    if targets is not None and sorted(doc.get("targets") or []) != sorted(targets):
        had = ", ".join(doc.get("targets") or []) or "none"
        raise UsageError(f"{path}: the baseline's kernel verdicts are for targets {had}, this scan's for "
                         f"{', '.join(targets) or 'none'}: scan with the same --target, or write the baseline again")
    listed = [doc.get(k, []) for k in ("findings", "suppressed")]
    for d in [d for x in listed for d in x] if all(isinstance(x, list) for x in listed) else [None]:
        if not isinstance(d, dict) or not all(type(d.get(k)) is str for k in _TEXT_FIELDS) \
                or not all(d.get(k) is None or type(d.get(k)) is str for k in _OPTIONAL_TEXT):
            raise UsageError(f"{path}: malformed baseline entry: each finding needs {', '.join(_TEXT_FIELDS)} as "
                             f"strings (and {', '.join(_OPTIONAL_TEXT)} as strings or null)")
    for d in doc.get("kernels", []) if isinstance(doc.get("kernels", []), list) else [None]:
        if not isinstance(d, dict) or not all(type(d.get(k)) is str for k in ("path", "name", "qualified_name")) \
                or not isinstance(d.get("verdicts", {}), dict):
            raise UsageError(f"{path}: malformed baseline entry: each kernel needs path, name and qualified_name as "
                             "strings and verdicts as an object")
    try:
        findings, suppressed = ([Finding(path=d["path"], line=int(d["line"]), column=int(d["column"]), rule=d["rule"],
                                         end_line=int(d["end_line"]), end_column=int(d["end_column"]),
                                         category=d["category"], severity=Severity.parse(d["severity"]),
                                         confidence=Confidence.parse(d["confidence"]), message=d["message"],
                                         snippet=d.get("snippet") or "", function=d.get("function"),
                                         kernel=d.get("kernel"), fingerprint=d.get("fingerprint") or "",
                                         replacement=d.get("replacement"),
                                         # the port status when it was written (none before session 28: open), so
                                         # a guard removed since counts as new (Diff.status_worse)
                                         status=Status.parse(d.get("status") or "open")) for d in doc.get(key, [])]
                                for key in ("findings", "suppressed"))
        kernels = [Kernel(path=d["path"], line=int(d["line"]), end_line=int(d["end_line"]), name=d["name"],
                          qualified_name=d["qualified_name"],
                          verdicts=tuple(TargetVerdict(t, v) for t, v in sorted(d.get("verdicts", {}).items())))
                   for d in doc.get("kernels", [])]
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise UsageError(f"{path}: malformed baseline entry: {e}") from None
    for k in kernels:
        for v in k.verdicts or ():
            if v.verdict not in RANK:
                raise UsageError(f"{path}: kernel {k.name}: unknown verdict {v.verdict!r}")
    return findings, suppressed, kernels


def compare_baseline(path: Path, head: ScanResult, isolated: bool = False,
                     read: Callable[[str], bytes | None] | None = None, budget: Budget | None = None) -> Diff:
    """The diff of a scan against a baseline file (no renames: a baseline has no history); `isolated`: suppressions
    added since the baseline was written are not honoured, nor a handled status resting on the change (compare)."""
    findings, suppressed, kernels = load_baseline_with_suppressed(path, head.targets)
    added = added_suppressions(suppressed, head.suppressed)
    new, fixed, unchanged, worse = _match(findings, (*head.findings, *added) if isolated else head.findings)
    new, reopened = _reopen(new, read, budget=budget) if isolated else (new, [])
    return Diff(f"baseline:{Path(path).name}", "work tree", tuple(new), tuple(fixed), tuple(unchanged),
                tuple(kernel_changes(kernels, head.kernels)), (), tuple(added), not isolated, tuple(reopened),
                tuple(worse))


def gating_kernels(kernels: Iterable[KernelChange], threshold: Severity | None) -> list[KernelChange]:
    """The kernel verdict changes that fail a `--fail-on threshold` check on a change: worse verdicts on open
    kernels whose KERNEL_SEVERITY is at or above it."""
    if threshold is None:
        return []
    return [k for k in kernels if k.worse and k.severity > Severity.INFO and k.severity >= threshold]


def gating(findings: Iterable[Finding], threshold: Severity | None) -> list[Finding]:
    """The findings that fail a `--fail-on threshold` check on a change: open ones at or above it (a spot a ROCm
    path already handles, or one kept CUDA-only on purpose, never fails it)."""
    if threshold is None:
        return []
    return [f for f in findings if f.severity >= threshold and f.status == Status.OPEN]
