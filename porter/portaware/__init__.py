"""Port-awareness: tell the CUDA work a repository has already done for ROCm from the work still open.

`attach_status(result, settings, source)` (porter.portaware.status) is the pipeline stage; `select(result, status)`
narrows a result to one status for `scan --status`. The parts: guards (preprocessor arms via porter.source.preprocessor,
runtime vendor checks), compat (compat-layer headers), scope (ROCm-only names and places, build scope, `cuda_only`),
rewrites (CUDA text a ROCm-side Python `str.replace` rewrites in kernel source).
"""
from porter.model.finding import STATUS_CHOICES
from porter.portaware.status import PortMap, attach_status, select, summary

__all__ = ["STATUS_CHOICES", "PortMap", "attach_status", "select", "summary"]
