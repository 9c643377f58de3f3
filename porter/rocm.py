"""Answer "does HIP in ROCm release R have this?" from rules/kb/hip_versions.yaml, for the release a run is judged for.

HIP changes between ROCm releases: the *_sync warp intrinsics arrived in 6.2 behind HIP_ENABLE_WARP_SYNC_BUILTINS
and are on by default from 7.0, `__reduce_*_sync` and `__syncwarp` arrived in 7.0, `warpSize` stopped being a
compile-time constant in 7.0, `cg::reduce` arrived in 7.13. Each such fact is recorded once, with since/until
releases and its public source; a run chooses its release (`--rocm`, configuration `rocm`, default the newest
listed) and rules and kernel checks ask here instead of each carrying its own "in ROCm 6.3" wording.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from porter.datafile import DATA_DIR, read_yaml
from porter.errors import DataFileError

VERSIONS_FILE = DATA_DIR / "kb" / "hip_versions.yaml"
_RELEASE = re.compile(r"^\d{1,2}\.\d{1,2}$")
_FACT = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class HipVersionsError(DataFileError):
    """rules/kb/hip_versions.yaml cannot be used."""


def release_key(release: str) -> tuple[int, ...]:
    """A release as numbers, so 7.13 sorts after 7.2."""
    return tuple(int(p) for p in release.split("."))


@dataclass(frozen=True)
class HipFact:
    """One HIP fact and the releases it holds in: [since, until), either end open when absent."""

    id: str
    what: str
    source: str
    since: str | None = None
    until: str | None = None
    opt_in: str | None = None  # before on_by_default, declared only when this macro is defined
    on_by_default: str | None = None
    names: tuple[str, ...] = ()
    probe: tuple[tuple[str, str], ...] = ()  # (key, value) pairs: code, error, include

    def holds_in(self, release: str) -> bool:
        r = release_key(release)
        if self.since is not None and r < release_key(self.since):
            return False
        return self.until is None or r < release_key(self.until)

    def needs_opt_in(self, release: str) -> bool:
        """Whether, in `release`, the declarations exist only with the opt-in macro defined."""
        return (self.opt_in is not None and self.on_by_default is not None and self.holds_in(release)
                and release_key(release) < release_key(self.on_by_default))

    @property
    def span(self) -> str:
        """The releases it holds in, as the docs say it: "ROCm ≥ 7.0", "ROCm < 7.0"."""
        if self.since and self.until:
            return f"ROCm {self.since} to {self.until} (exclusive)"
        if self.since:
            return f"ROCm ≥ {self.since}"
        if self.until:
            return f"ROCm < {self.until}"
        return "every ROCm release"


@dataclass(frozen=True)
class HipVersions:
    releases: tuple[str, ...]
    facts: dict[str, HipFact]

    @property
    def newest(self) -> str:
        return self.releases[-1]

    def fact(self, fact_id: str) -> HipFact:
        try:
            return self.facts[fact_id]
        except KeyError:
            raise KeyError(f"no HIP fact {fact_id!r} in {VERSIONS_FILE.name} (known: "
                           f"{', '.join(sorted(self.facts))})") from None

    def has(self, fact_id: str, release: str | None = None) -> bool:
        return self.fact(fact_id).holds_in(release or self.newest)


@functools.lru_cache(maxsize=4)
def load_versions(path: Path = VERSIONS_FILE) -> HipVersions:
    raw = read_yaml(path, HipVersionsError)
    if not isinstance(raw, dict):
        raise HipVersionsError(path, "(top level)", "must be a mapping with releases and facts")
    releases = raw.get("releases")
    if (not isinstance(releases, list) or not releases
            or not all(isinstance(r, str) and _RELEASE.match(r) for r in releases)):
        raise HipVersionsError(path, "releases", "must be a non-empty list of releases such as \"7.2\"")
    if [release_key(r) for r in releases] != sorted({release_key(r) for r in releases}):
        raise HipVersionsError(path, "releases", "must be distinct and oldest first")
    facts_raw = raw.get("facts")
    if not isinstance(facts_raw, dict) or not facts_raw:
        raise HipVersionsError(path, "facts", "must be a non-empty mapping of fact -> {what, source, since/until}")
    facts = {}
    for fid, entry in facts_raw.items():
        where = f"facts.{fid}"
        if not isinstance(fid, str) or not _FACT.match(fid) or not isinstance(entry, dict):
            raise HipVersionsError(path, where, "a fact is a lower-case name mapping to its fields")
        for key in ("what", "source"):
            if not isinstance(entry.get(key), str) or not entry[key]:
                raise HipVersionsError(path, f"{where}.{key}", "is required (a string)")
        if not entry["source"].startswith("https://"):
            raise HipVersionsError(path, f"{where}.source", "must start with a public https:// URL")
        for key in ("since", "until", "on_by_default"):
            if key in entry and not (isinstance(entry[key], str) and _RELEASE.match(entry[key])):
                raise HipVersionsError(path, f"{where}.{key}", "must be a release such as \"7.0\"")
        if "since" not in entry and "until" not in entry:
            raise HipVersionsError(path, where, "needs since or until")
        probe = entry.get("probe", {})
        if not isinstance(probe, dict) or not all(isinstance(v, str) for v in probe.values()):
            raise HipVersionsError(path, f"{where}.probe", "must map code/error/include to strings")
        facts[fid] = HipFact(fid, entry["what"], entry["source"], entry.get("since"), entry.get("until"),
                             entry.get("opt_in"), entry.get("on_by_default"), tuple(entry.get("names", ())),
                             tuple(sorted(probe.items())))
    return HipVersions(tuple(releases), facts)


def releases() -> tuple[str, ...]:
    """The releases a run may choose, oldest first."""
    return load_versions().releases


def default_release() -> str:
    return load_versions().newest


def check_release(release: str) -> str:
    """`release` if the knowledge base lists it, else a ValueError naming the choices."""
    known = releases()
    if release not in known:
        raise ValueError(f"unknown ROCm release {release!r} (known: {', '.join(known)})")
    return release


def has(fact_id: str, release: str | None = None) -> bool:
    """Whether HIP in `release` (default: the newest listed) has the fact."""
    return load_versions().has(fact_id, release)


def fact(fact_id: str) -> HipFact:
    return load_versions().fact(fact_id)
