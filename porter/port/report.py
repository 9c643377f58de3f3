"""Say what a port did and what it leaves: the changes by kind and every open item with the finding behind it."""
from __future__ import annotations

from collections import Counter

from porter.port.model import PortPlan

# Open items the console lists without -v (the JSON summary always has all of them).
MAX_OPEN_SHOWN = 20


def render_text(plan: PortPlan, console, verbose: bool = False) -> None:
    """A short account on the console (stderr beside a patch on stdout)."""
    kinds = Counter(c.kind for c in plan.changes)
    what = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "nothing to change"
    console.print(f"porter port: {len(plan.files)} file(s), {len(plan.changes)} change(s) ({what}); "
                  f"{len(plan.open_work)} open item(s)", markup=False, highlight=False)
    if verbose:
        for c in plan.changes:
            console.print(f"  changed {c.path}:{c.line} [{c.kind}] {c.note}"
                          + (f" (answers {c.finding})" if c.finding else ""), markup=False, highlight=False)
    shown = plan.open_work if verbose else plan.open_work[:MAX_OPEN_SHOWN]
    for o in shown:
        console.print(f"  open {o.path}:{o.line} {o.rule}: {o.reason}", markup=False, highlight=False)
    if len(shown) < len(plan.open_work):
        by_rule = Counter(o.rule for o in plan.open_work[len(shown):])
        console.print(f"  ... and {len(plan.open_work) - len(shown)} more open item(s) ("
                      + ", ".join(f"{n} {r}" for r, n in sorted(by_rule.items()))
                      + "): -v or --summary FILE lists them all", markup=False, highlight=False)
    for p, why in plan.skipped:
        console.print(f"  skipped {p}: {why}", markup=False, highlight=False)
