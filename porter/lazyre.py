"""Regular expressions compiled at their first use instead of at import.

A scan imports every module on its path, yet a given scan needs only some of their patterns: compiling all of them
up front was ~2 ms of every run, most of it for patterns a scan of a few C++ files never uses.
"""
from __future__ import annotations

import functools
import re
from typing import Callable


def lazy_regex(pattern: str | bytes, flags: int = 0) -> Callable[[], re.Pattern]:
    """A function giving `re.compile(pattern, flags)`, compiled at its first call and the same object after."""
    return functools.cache(lambda: re.compile(pattern, flags))
