"""A finding before its fingerprint: `Draft`, Finding's fields as a named tuple, which the engine builds per hit,
sorts and refines before it makes each Finding once.

A file has thousands of hits; a frozen dataclass costs a setattr per field to build and a Python-level tuple of all
fields per comparison to sort, while a named tuple is built and compared in C. Its fields are Finding's, in
Finding's order, so a list of drafts sorts exactly as the Findings would and `Finding(*draft)` is the finding.
"""
from __future__ import annotations

import collections
import dataclasses

from porter.model import Finding

FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Finding))
Draft = collections.namedtuple("Draft", FIELDS)
