"""The PTX instruction table (rules/kb/ptx.yaml): whether an inline-PTX instruction family has a plain HIP equivalent.

Kernel analysis names each inline asm statement's instructions by family (porter.kernels.facts) and judges them
here: a family whose job one HIP builtin, intrinsic or plain C++ statement does (`elect.sync` is the lowest active
lane, `mov %laneid` is `__lane_id()`, `cp.async` is a synchronous copy into LDS) is a fix that names its replacement;
a family with no equivalent on AMD hardware (tensor-core MMA, TMA / bulk copies, mbarrier, clusters) is a rewrite.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from porter.datafile import DATA_DIR, read_yaml
from porter.errors import DataFileError

PTX_FILE = DATA_DIR / "kb" / "ptx.yaml"
VERDICTS = ("fix", "rewrite")
# `mov %laneid`: a family read from a special register (the table's key spells the register after a space).
_KEY = re.compile(r"[a-z][a-z0-9_]*(?:\.[a-z0-9_:]+)*(?: %[a-z][a-z0-9_]*)?")


class PtxTableError(DataFileError):
    """rules/kb/ptx.yaml cannot be used."""


@dataclass(frozen=True)
class PtxFamily:
    """One instruction family: fix (a plain HIP replacement exists, `hip` names it) or rewrite."""

    name: str
    verdict: str
    hip: str
    source: str


@functools.lru_cache(maxsize=4)
def load_table(path: Path = PTX_FILE) -> dict[str, PtxFamily]:
    """The table by family name; every entry has a verdict (fix or rewrite), its HIP replacement and a source."""
    raw = read_yaml(path, PtxTableError)
    families = raw.get("families") if isinstance(raw, dict) else None
    if not isinstance(families, dict) or not families:
        raise PtxTableError(path, "families", "must be a non-empty mapping of family -> {verdict, hip, source}")
    out = {}
    for name, entry in families.items():
        if not isinstance(name, str) or not _KEY.fullmatch(name):
            raise PtxTableError(path, f"families.{name}", "a family is a dotted PTX opcode, optionally ' %register'")
        if not isinstance(entry, dict) or any(not isinstance(entry.get(k), str) or not entry[k]
                                              for k in ("verdict", "hip", "source")):
            raise PtxTableError(path, f"families.{name}", "needs string fields verdict, hip, source")
        if entry["verdict"] not in VERDICTS:
            raise PtxTableError(path, f"families.{name}.verdict", f"must be one of {', '.join(VERDICTS)}")
        if not entry["source"].startswith("https://"):
            raise PtxTableError(path, f"families.{name}.source", "must start with a public https:// URL")
        out[name] = PtxFamily(name, entry["verdict"], entry["hip"], entry["source"])
    return out


def family_names() -> frozenset[str]:
    """The opcode families the table names (special-register reads left out: they are found by their register)."""
    return frozenset(n for n in load_table() if " " not in n)


def register_families() -> dict[str, frozenset[str]]:
    """Per opcode family, the special registers the table gives their own entry (`mov` -> {`%laneid`, ...})."""
    out: dict[str, set[str]] = {}
    for n in load_table():
        if " " in n:
            op, reg = n.split(" ", 1)
            out.setdefault(op, set()).add(reg)
    return {k: frozenset(v) for k, v in out.items()}


def judge(family: str) -> PtxFamily | None:
    """The table's entry for a family, or None (an unlisted family: a fix with no named replacement)."""
    return load_table().get(family)


def is_rewrite(family: str) -> bool:
    entry = judge(family)
    return entry is not None and entry.verdict == "rewrite"
