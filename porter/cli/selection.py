"""--select, --ignore and --min-severity: which findings `scan` shows, as ruff's --select/--ignore and semgrep's
--severity narrow theirs.

--select and --ignore take rule ids or prefixes (KRN001, KRN); a rule they leave out does not run (as in ruff), so
no format, assessment or gate sees its findings. --min-severity narrows only what is shown: the gate has its own
threshold, --fail-on.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import TYPE_CHECKING

from porter.errors import UsageError

if TYPE_CHECKING:
    from porter.model import Finding, Severity


@dataclasses.dataclass(frozen=True)
class Selection:
    select: tuple[str, ...] = ()  # empty: every rule
    ignore: tuple[str, ...] = ()
    min_severity: Severity | None = None

    def picks_rule(self, rule: str) -> bool:
        return (not self.select or rule.startswith(self.select)) and not (self.ignore and rule.startswith(self.ignore))


def rule_patterns(values: Iterable[str] | None) -> tuple[str, ...]:
    """The ids and prefixes of repeated and comma-separated option values, upper-cased (ids are)."""
    return tuple(p.strip().upper() for v in values or () for p in v.split(",") if p.strip())


def selection(select: Iterable[str] | None, ignore: Iterable[str] | None, min_severity: str | None,
              known: Iterable[str]) -> Selection:
    """The options checked: every pattern is a rule id or the prefix of one (of `known`), the severity a severity."""
    from porter.model import Severity

    known = sorted(known)
    chosen = {}
    for option, values in (("--select", select), ("--ignore", ignore)):
        patterns = rule_patterns(values)
        for p in patterns:
            if not any(k.startswith(p) for k in known):
                raise UsageError(f"{option}: no rule id or prefix {p[:64]!r} (`porter rules list` shows them)")
        chosen[option] = patterns
    try:
        threshold = Severity.parse(min_severity) if min_severity is not None else None
    except ValueError as e:
        raise UsageError(f"--min-severity: {e}") from None
    return Selection(chosen["--select"], chosen["--ignore"], threshold)


def unselected(disabled: Iterable[str], known: Iterable[str], sel: Selection) -> tuple[str, ...]:
    """The rules a run turns off: those already disabled and every known rule the selection leaves out."""
    return tuple(sorted(set(disabled) | {r for r in known if not sel.picks_rule(r)}))


def narrow_severity(run, sel: Selection):
    """The run with only findings at or above --min-severity (what is shown; the gate has already counted)."""
    if sel.min_severity is None:
        return run

    def keep(findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
        return tuple(f for f in findings if f.severity >= sel.min_severity)

    diff = run.diff
    if diff is not None:
        diff = dataclasses.replace(diff, new=keep(diff.new), fixed=keep(diff.fixed), unchanged=keep(diff.unchanged),
                                   status_worse=keep(diff.status_worse))
    return dataclasses.replace(run, result=dataclasses.replace(run.result, findings=keep(run.result.findings)), diff=diff)
