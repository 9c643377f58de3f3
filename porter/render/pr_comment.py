"""Render what a change adds as one pull-request comment: marker, verdict line, new findings by file, fixed, kernels.

The first line is the marker `<!-- porter:pr-comment -->` by which `porter comment` finds its own comment again.
Then one verdict line, the new findings grouped by file with the HIP advice, the fixed ones struck through, and the
kernels whose verdict moved on a target. Every piece of repository text goes through porter.render.safe (a file
name or snippet can neither inject Markdown, HTML nor a mention), and the body never exceeds GitHub's 65,536
characters: what does not fit is cut at a whole line with a count and a pointer to the job summary and SARIF.
Without a diff (a plain scan) every finding counts as new.

What a reviewer reads first is what matters most: files in order of their worst open finding, each file's open
findings first and most severe first. Findings below `min_severity` (low by default: the info notes that a kernel
is defined, an include or a name hipify renames) sit behind a fold. A name hipify renames is no ROCm work: the
verdict line counts it apart ("hipify renames"), never as an open finding for ROCm. The advice shown is the rule's
advice for people (the HIP name to use), never a note about porter's own data files.
"""
from __future__ import annotations

from itertools import groupby
from typing import TYPE_CHECKING, Callable, Mapping

from porter.model import Finding, ScanResult, Severity, Status
from porter.render.ci import advice as rule_advice, spelled_already
from porter.render.ci import repository_path, rule_title
from porter.render.safe import md_code, md_text

if TYPE_CHECKING:  # porter.diff is imported by the commands that make a diff
    from porter.diff import Diff, KernelChange

MARKER = "<!-- porter:pr-comment -->"
LIMIT = 65_536  # characters GitHub accepts in a comment body
_TAIL_ROOM = 400  # kept free for the truncation note


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def is_rename(result: ScanResult | None, f: Finding) -> bool:
    """Whether the finding only says hipify renames a name (its rule's HIP equivalent is a rename to `replacement`)."""
    rule = result.rules.get(f.rule) if result is not None and result.rules is not None else None
    return bool(f.replacement) and rule is not None and rule.hip_equivalent.get("kind") == "rename"


def _kernel_phrase(worse: list[KernelChange]) -> str:
    """What the change does to kernels, in words: verdicts of kernels the base had that got worse (counted per
    target, as the table below lists them), and kernels the change adds whose verdict is not ok (counted once each:
    "makes 3 kernel verdicts worse" for three new kernels read as if working code had regressed)."""
    existing = sum(1 for k in worse if k.before is not None)
    added = len({(k.path, k.line, k.name) for k in worse if k.before is None})
    parts = ([f"makes {_plural(existing, 'kernel verdict')} worse"] if existing else []) + (
        [f"adds {_plural(added, 'kernel')} that {'needs' if added == 1 else 'need'} work"] if added else [])
    return " and ".join(parts)


def verdict_line(new: list[Finding], fixed: int, worse: list[KernelChange], result: ScanResult | None = None,
                 min_severity: Severity = Severity.LOW, unseen: int = 0) -> str:
    """The one line a reviewer reads: does this change add open work for ROCm? Notes below `min_severity` and
    names hipify renames are not ROCm work; they are counted apart. `unseen` files (Skipped.unseen: porter
    meant to read them and could not) forbid the all-clear: a change cannot pass by making porter skip its code.
    `worse`: the kernel verdict changes that are worse (a new kernel's counts when it is not ok)."""
    shown = [f for f in new if f.status == Status.OPEN and f.severity >= min_severity]
    renames = [f for f in shown if is_rename(result, f)]
    open_new = [f for f in shown if not is_rename(result, f)]
    if not open_new and not worse and unseen:
        head = f"⚠️ **porter: {_plural(unseen, 'file')} could not be scanned**"
    elif not open_new and not worse:
        head = "✅ **porter: no new CUDA-only code**"
    elif not open_new:
        head = f"⚠️ **porter: this change {_kernel_phrase(worse)}**"
    else:
        by_sev = {s: sum(1 for f in open_new if f.severity == s) for s in sorted(Severity, reverse=True)}
        parts = ", ".join(f"{n} {s}" for s, n in by_sev.items() if n)
        head = (f"⚠️ **porter: this change adds {_plural(len(open_new), 'open finding') + ' for ROCm'}**"
                + (f" ({parts})" if parts else ""))
        if worse:
            head += f" and {_kernel_phrase(worse)}"
    tail = [_plural(len(renames), "hipify rename")] if renames else []
    rest = sum(1 for f in new if f.status != Status.OPEN)
    if rest:
        tail.append(f"{rest} new already handled or kept CUDA-only")
    if fixed:
        tail.append(f"{fixed} fixed")
    if unseen and (open_new or worse):
        tail.append(f"{_plural(unseen, 'file')} not scanned")
    return head + (" · " + " · ".join(tail) if tail else "")


def advice(result: ScanResult, f: Finding) -> str:
    """What to do on ROCm, for a person: the HIP name when the finding has one (the rule's note about where porter's
    tables come from is for the rule's page, not a review), else the rule's advice."""
    if f.replacement and not spelled_already(f):
        return f"HIP: use {f.replacement}"
    return rule_advice(result, f)


def _worst_first(findings: list[Finding]) -> list[Finding]:
    """Files in order of their worst open finding, then their worst handled one; each file's open findings first,
    most severe first."""
    def rank(f: Finding) -> tuple[bool, int]:  # the one order, used twice
        return f.status != Status.OPEN, -int(f.severity)

    worst: dict[str, tuple[bool, int]] = {}
    for f in findings:
        worst[f.path] = min(worst.get(f.path, rank(f)), rank(f))
    return sorted(findings, key=lambda f: (worst[f.path], f.path, rank(f), f.line, f.column, f.rule))


WHY_CHARS = 160  # a table cell, not the rule's page: the first reason, clipped


def why(result: ScanResult, change: KernelChange) -> str:
    """The reason behind a kernel's new verdict on the change's target: the first (deciding) reason of the head's
    kernel, with how many more there are; "" when the head scan does not hold the kernel. A reviewer seeing `fix`
    needs to know what to fix without running porter."""
    kernel = next((k for k in result.kernels if (k.path, k.line, k.name) == (change.path, change.line, change.name)),
                  None)
    verdict = kernel.verdict_on(change.target) if kernel is not None else None
    if verdict is None or not verdict.details:
        return ""
    first = " ".join(verdict.details[0].message.split())
    if len(first) > WHY_CHARS:
        first = first[:WHY_CHARS - 1].rstrip() + "…"
    more = len(verdict.details) - 1
    return first + (f" (+{more} more)" if more else "")


def _short(rev: str) -> str:
    """A commit id shortened as git shows it; a baseline name or "work tree" as it is."""
    return rev[:12] if len(rev) == 40 and all(c in "0123456789abcdef" for c in rev) else rev


def _finding_line(result: ScanResult, f: Finding, link: Callable[[str, int], str] | None = None,
                  rename: bool = False) -> str:
    """One finding as a list item; `rename` marks one the verdict line counts apart as a hipify rename, so the
    severities listed under "New" add up to the verdict line's ("1 low · 1 hipify rename" above two lows)."""
    hint = advice(result, f)
    status = "" if f.status == Status.OPEN else f" _{f.status}_"
    where = f"[L{f.line}]({link(f.path, f.line)})" if link is not None else f"L{f.line}"
    kind = f"{f.severity}, hipify rename" if rename else str(f.severity)
    return (f"- {where} **{md_text(f.rule)}** ({kind}){status}: {md_text(f.message)}"
            + (f" — {md_text(hint)}" if hint else "")
            + (f"<br>{md_code(f.snippet)}" if f.snippet else ""))


def github_server(env: Mapping[str, str]) -> str:
    """The GitHub web origin of a workflow run (GITHUB_SERVER_URL), github.com by default."""
    return (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")


def line_links(result: ScanResult, diff: Diff | None, server: str, repository: str) -> Callable[[str, int], str] | None:
    """Links that open a finding's line on the pull request's head commit (`server`/`repository`/blob/<head>/…),
    or None when the head is not a commit (a baseline diff of a work tree) or the repository is unknown."""
    from porter.render.sarif import artifact_uri

    head = getattr(diff, "head", "")
    if not (len(head) == 40 and all(c in "0123456789abcdef" for c in head)) or repository.count("/") != 1:
        return None
    base = f"{server.rstrip('/')}/{repository}/blob/{head}/"
    return lambda path, line: f"{base}{artifact_uri(repository_path(result, path))}#L{line}"


def render(result: ScanResult, diff: Diff | None = None, limit: int = LIMIT, min_severity: Severity = Severity.LOW,
           link: Callable[[str, int], str] | None = None) -> str:
    """The comment; `link` (line_links) makes each finding's line a link to it on the pull request's head."""
    every = list(diff.new if diff is not None else result.findings)
    new = _worst_first([f for f in every if f.severity >= min_severity])
    notes = _worst_first([f for f in every if f.severity < min_severity])
    fixed = sorted(diff.fixed if diff is not None else (), key=lambda f: (-int(f.severity), f.path, f.line, f.column,
                                                                           f.rule))
    kernels = list(diff.kernels) if diff is not None else []
    worse = [k for k in kernels if k.worse]
    missed = result.unseen
    lines = [MARKER, verdict_line(every, len(fixed), worse, result, min_severity, len(missed))]
    added = diff.suppressed_by_change if diff is not None else ()
    if diff is not None and added:  # `porter: ignore` the change itself adds: never unseen
        n = len(added)
        lines.append(f"{_plural(n, 'finding')} suppressed by this change"
                     + (" (a reviewer should confirm each `porter: ignore`)" if diff.suppressions_honoured
                        else " (not honoured under --isolated: counted above as new or unchanged)"))
    if diff is not None and diff.status_worse:  # the same code, no longer handled: new ROCm work, counted as new
        lines.append(f"{_plural(len(diff.status_worse), 'finding')} handled or CUDA-only at the base "
                     f"{'is' if len(diff.status_worse) == 1 else 'are'} open at the head (a ROCm guard removed or "
                     "changed): counted above as new")
    if diff is not None:
        lines.append(f"<sub>compared {md_code(_short(diff.base))} → {md_code(_short(diff.head))}"
                     + (f" · targets: {md_text(', '.join(result.targets))}" if result.targets else "") + "</sub>")
    body: list[tuple[str, str]] = []  # (line, what it counts as when cut)
    if missed:  # first: what porter did not see decides more than any finding below
        body.append(("", ""))
        body.append((f"### Not scanned ({len(missed)})", ""))
        body.extend((f"- {md_code(repository_path(result, s.path))}: {md_text(s.reason)}", "file not scanned")
                    for s in missed)
    if new:
        body.append(("", ""))
        body.append((f"### New ({len(new)})", ""))
        for path, group in groupby(new, key=lambda f: f.path):
            body.append(("", ""))
            body.append((f"**{md_code(repository_path(result, path))}**", ""))
            body.extend((_finding_line(result, f, link, f.status == Status.OPEN and is_rename(result, f)),
                         "new finding") for f in group)
    if notes:
        body.append(("", ""))
        body.append((f"<details><summary>{_plural(len(notes), 'note')} below {min_severity} (hipify renames, "
                     "kernels and includes found)</summary>", ""))
        for path, group in groupby(notes, key=lambda f: f.path):
            body.append(("", ""))
            body.append((f"**{md_code(repository_path(result, path))}**", ""))
            body.extend((_finding_line(result, f, link), "note") for f in group)
        body.append(("", ""))
        body.append(("</details>", ""))
    if fixed:
        body.append(("", ""))
        body.append((f"### Fixed ({len(fixed)})", ""))
        body.extend((f"- ~~{md_code(repository_path(result, f.path))} L{f.line} {md_text(f.rule)}: "
                     f"{md_text(rule_title(result, f.rule))}~~", "fixed finding") for f in fixed)
    if kernels:
        body.append(("", ""))
        body.append(("### Kernel verdicts", ""))
        body.append(("| kernel | file | target | before | after | why |", ""))
        body.append(("|---|---|---|---|---|---|", ""))
        body.extend((f"| {md_code(k.name)} | {md_code(repository_path(result, k.path))}:{k.line} | {md_text(k.target)} "
                     f"| {k.before or 'new'} | {'**' + k.after + '**' if k.worse else k.after}"
                     f"{'' if k.status == 'open' else ' _' + k.status + '_'} "
                     f"| {md_text(why(result, k))} |", "kernel change")
                    for k in kernels)
    text = "\n".join(lines)
    cut: dict[str, int] = {}
    for i, (line, kind) in enumerate(body):
        if len(text) + 1 + len(line) > limit - _TAIL_ROOM:
            for _, k in body[i:]:
                if k:
                    cut[k] = cut.get(k, 0) + 1
            break
        text += "\n" + line
    if text.count("\n<details>") > text.count("\n</details>"):
        text += "\n\n</details>"  # cut inside the fold: close it, or the note below would be folded too
    if cut:
        what = ", ".join(_plural(n, k) for k, n in sorted(cut.items()))
        text += (f"\n\n_… {what} not shown (comment size limit): the job summary and the SARIF upload "
                 "(code scanning) list them all._")
    return text + "\n"
