"""Kernels and their launch sites as found in the source: Kernel and Launch."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, order=True)
class Launch:
    """A kernel launch site: `k<<<...>>>(...)` or a launch API call."""

    path: str
    line: int
    column: int
    kernel: str  # the launched kernel's name as written at the site (template arguments stripped)
    kind: str  # chevron | cudaLaunchKernel | cudaLaunchCooperativeKernel | cuLaunchKernel | ...
    config: tuple[str, ...] = ()  # the launch configuration expressions as written (grid, block, smem, stream)
    function: str | None = None  # the function the launch is written in

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "kernel": self.kernel,
            "kind": self.kind,
            "config": list(self.config),
            "function": self.function,
        }


@dataclass(frozen=True, order=True)
class Kernel:
    """A `__global__` function definition."""

    path: str
    line: int
    end_line: int
    name: str  # unqualified name
    qualified_name: str  # as written in the declarator, e.g. ns::k
    is_template: bool = False
    via_macro: str | None = None  # the macro that hid `__global__`, when one did
    launch_bounds: tuple[str, ...] = ()
    facts: tuple[tuple[str, Any], ...] = ()  # filled by kernel analysis (porter.kernels.verdicts)

    def to_dict(self, launches: list[Launch] | None = None) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name,
            "qualified_name": self.qualified_name,
            "path": self.path,
            "line": self.line,
            "end_line": self.end_line,
            "is_template": self.is_template,
            "via_macro": self.via_macro,
            "launch_bounds": list(self.launch_bounds),
            "launches": [l.to_dict() for l in (launches or [])],
        }
        d.update(dict(self.facts))
        return d
