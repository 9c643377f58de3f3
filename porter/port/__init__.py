"""`porter port`: write the minimal-footprint dual build, one source tree that compiles for NVIDIA and AMD.

The scan (findings, kernel facts, port status) says where the port goes; plan.py turns that into each file's new
bytes (compat.py the compat header, sources.py the includes and portable fixes, build.py the CMake/Make branches),
patch.py into a unified diff or a write into a clean git work tree, verify.py compiles the result with nvcc and the
HIP compilers; run.py is the entry (scan, then the plan under porter.budget, as every stage that reads repository
files).
"""
from __future__ import annotations

from porter.port.model import DEFAULT_HEADER, Change, FilePatch, OpenItem, PortOptions, PortPlan


__all__ = ["DEFAULT_HEADER", "Change", "FilePatch", "OpenItem", "PortOptions", "PortPlan"]
