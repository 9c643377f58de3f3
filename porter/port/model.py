"""The dual-build port's data: what `porter port` was asked, each file it writes, and the work it leaves open."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEFAULT_HEADER = "porter_hip_compat.h"
# The macros that select the ROCm build in the code porter writes: clang's HIP mode defines the first, a build that
# wants the ROCm side explicitly (CMake's USE_ROCM option, PyTorch's ROCm build) the second.
ROCM_TEST = "defined(__HIP_PLATFORM_AMD__) || defined(USE_ROCM)"


@dataclass(frozen=True)
class PortOptions:
    header: str = DEFAULT_HEADER  # the compat header's path in the repository
    mask_type: str = "lane_mask_t"
    gfx: tuple[str, ...] = ("gfx90a", "gfx942", "gfx950")  # CMAKE_HIP_ARCHITECTURES / --offload-arch defaults


@dataclass(frozen=True)
class Change:
    """One fix at one place, and the finding it answers."""

    path: str
    line: int
    kind: str  # compat-include | mask | ballot | warp-width | ptx | cmake | make | header
    finding: str | None  # "RULE path:line" of the finding it answers, or None for a structural change
    note: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "kind": self.kind, "finding": self.finding, "note": self.note}


@dataclass(frozen=True)
class OpenItem:
    """Work the port leaves: a finding porter cannot fix mechanically, with the reason."""

    path: str
    line: int
    rule: str
    reason: str
    finding: str  # "RULE path:line"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "rule": self.rule, "finding": self.finding, "reason": self.reason}


@dataclass(frozen=True)
class FilePatch:
    """A file the port changes or creates: its bytes before (None: new) and after."""

    path: str
    before: bytes | None
    after: bytes


@dataclass(frozen=True)
class PortPlan:
    root: str
    header: str
    files: tuple[FilePatch, ...]
    changes: tuple[Change, ...]
    open_work: tuple[OpenItem, ...]
    compat_names: tuple[tuple[str, str], ...] = ()  # (CUDA name, HIP name) in the compat header
    skipped: tuple[tuple[str, str], ...] = ()  # (path, reason) of files not touched
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.files

    def to_dict(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "header": self.header,
            "files": [{"path": f.path, "new": f.before is None} for f in self.files],
            "changes": [c.to_dict() for c in self.changes],
            "open_work": [o.to_dict() for o in self.open_work],
            "compat_names": [{"cuda": c, "hip": h} for c, h in self.compat_names],
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "summary": {"files": len(self.files), "changes": len(self.changes), "open": len(self.open_work)},
        }
