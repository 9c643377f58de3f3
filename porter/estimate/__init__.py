"""Estimate migration effort: a scan's findings and kernel verdicts in, an `Assessment` (verdict, hours, why) out.

The stages, one module each: inputs (what each finding is costed on) · kernel_verdicts (the one reader of kernel
facts) · cost (items of hours) · verdict (and its reasons) · breakdowns · advice · assumptions; assess runs them.
effort_model loads the data they apply. Renderers import the names below from here.

The names load on first use (PEP 562 `__getattr__`): a scan's console summary imports porter.estimate.counts, a
submodule, and importing the package then ran every stage's module too (~0.05-0.08 CPU-s, a tenth of a small
scan's start-up) for an assessment the scan never makes.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from porter.estimate.assess import Assessment
    from porter.estimate.cost import Item
    from porter.estimate.kernel_verdicts import KERNEL_VERDICTS
    from porter.estimate.verdict import VERDICT_MEANING, VERDICTS, Reason

# Not `assess` (the function): once anything imports the submodule porter.estimate.assess, the package attribute of
# that name is the module and a lazy name could never shadow it; import it from porter.estimate.assess.
__all__ = ["KERNEL_VERDICTS", "VERDICT_MEANING", "VERDICTS", "Assessment", "Item", "Reason"]

_HOME = {"Assessment": "assess", "Item": "cost", "KERNEL_VERDICTS": "kernel_verdicts",
         "VERDICT_MEANING": "verdict", "VERDICTS": "verdict", "Reason": "verdict"}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"porter.estimate.{home}"), name)
    globals()[name] = value
    return value
