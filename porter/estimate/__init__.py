"""Estimate migration effort: a scan's findings and kernel verdicts in, an `Assessment` (verdict, hours, why) out.

The stages, one module each: inputs (what each finding is costed on) · kernel_verdicts (the one reader of kernel
facts) · cost (items of hours) · verdict (and its reasons) · breakdowns · advice · assumptions; assess runs them.
effort_model loads the data they apply. Renderers import the names below from here.
"""
from porter.estimate.assess import Assessment, assess
from porter.estimate.cost import Item
from porter.estimate.kernel_verdicts import KERNEL_VERDICTS
from porter.estimate.verdict import VERDICT_MEANING, VERDICTS, Reason

__all__ = ["KERNEL_VERDICTS", "VERDICT_MEANING", "VERDICTS", "Assessment", "Item", "Reason", "assess"]
