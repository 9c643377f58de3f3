"""Fold a launch site's configuration (grid, block, dynamic shared memory) into a LaunchConfig.

The one copy of launch folding: same-file launches are folded from their tree nodes with the file's constants and
the host function's locals (porter.kernels.facts); launches written in other files from their text with literals
only (`remote_launches`, used by kernel analysis). A value that does not fold is None in the LaunchConfig and an
Unresolved entry says why.
"""
from __future__ import annotations

from typing import Any, Sequence, TypeVar

from porter.kernels.constfold import Constants, Unknown, dims, parse_expression
from porter.model.kernel import Kernel, Launch, LaunchConfig, Unresolved

T = TypeVar("T")
SLOTS = ("grid", "block", "shared_bytes")
_API_WITH_CONFIG = ("cudaLaunchKernel", "cudaLaunchCooperativeKernel")


def config_slots(kind: str, exprs: Sequence[T]) -> list[T]:
    """The grid, block and dynamic-shared-memory expressions among a launch's arguments after the kernel (as many
    as it gives): `<<<g, b, smem, stream>>>`, or cudaLaunchKernel(k, g, b, args, smem, stream). Other launch APIs
    (cuLaunchKernel's per-dimension ints, cudaLaunchKernelEx's config struct) give none porter folds."""
    if kind == "chevron":
        return list(exprs[:3])
    if kind in _API_WITH_CONFIG:
        return list(exprs[:2]) + list(exprs[3:4])
    return []


def fold_site(launch: Launch, nodes: Sequence[Any], env: Constants, locals_: dict[str, Any] | None = None,
              **extra: Any) -> tuple[LaunchConfig, list[Unresolved]]:
    """A same-file launch folded from its configuration nodes (see config_slots); `extra` are LaunchConfig's
    other fields (template arguments, SM-count grid, in device code). No shared-memory argument means 0 bytes."""
    values: dict[str, Any] = {"grid": None, "block": None, "shared_bytes": 0}
    unknown: list[Unresolved] = []
    names = {"grid": "grid", "block": "block", "shared_bytes": "dynamic shared memory"}
    for key, node in zip(SLOTS, nodes):
        v = dims(node, env, locals_ or {})
        if isinstance(v, Unknown):
            values[key] = None
            unknown.append(Unresolved(f"{names[key]} of launch at line {launch.line}", v.reason))
        else:
            values[key] = v[0] if key == "shared_bytes" else tuple(v)
    return LaunchConfig(launch.path, launch.line, launch.kind, launch.config, **values, **extra), unknown


def fold_remote(launch: Launch) -> tuple[LaunchConfig, list[Unresolved]]:
    """A launch written in another file than its kernel, folded from its text with literals only."""
    values: dict[str, Any] = {"grid": None, "block": None, "shared_bytes": None}
    unknown: list[Unresolved] = []
    for key, text in zip(SLOTS, config_slots(launch.kind, launch.config)):
        node = parse_expression(text)
        v = dims(node, Constants()) if node is not None else Unknown("unparsable")
        if isinstance(v, Unknown):
            unknown.append(Unresolved(f"{key} of launch at {launch.path}:{launch.line}",
                                      f"{v.reason} (constants of another file are not folded)"))
        else:
            values[key] = v[0] if key == "shared_bytes" else tuple(v)
    return LaunchConfig(launch.path, launch.line, launch.kind, launch.config, **values,
                        template_arguments=launch.template_arguments, remote=True), unknown


def remote_launches(kernel: Kernel, launches: Sequence[Launch], definitions: int = 1
                    ) -> tuple[tuple[LaunchConfig, ...], tuple[Unresolved, ...]]:
    """Launches of a kernel (by name) written in other files, folded, with what could not be; none when its own
    file launches it (those sites carry folded values; remote ones would only add noise). When several kernels
    share the name, which one another file launches is not known: nothing is folded and that is said."""
    if kernel.facts is None or kernel.facts.launch_sites:
        return (), ()
    elsewhere = [l for l in launches if l.path != kernel.path]
    if definitions > 1 and elsewhere:
        return (), (Unresolved("launch sites", f"{len(launches)} launches of a kernel named {kernel.name} in other "
                                               f"files, and {definitions} kernels have that name"),)
    sites, unknown = [], []
    for l in elsewhere:
        site, why = fold_remote(l)
        sites.append(site)
        unknown += why
    return tuple(sites), tuple(unknown)
