"""Reads a CMake file's `if()` / `elseif()` / `else()` / `endif()` commands: where each is and what it tests.

CMake's conditionals are commands of the CMake language, not C preprocessor directives (those are
porter.source.preprocessor's alone). Port steps that ask which CMake block a finding sits in (an NVTX switch's
block, the arms of one architecture choice) read them here, once, instead of each writing its own pattern.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# A conditional command at the start of a line, up to its first `)`: conditions with nested parentheses are rare in
# the blocks these steps ask about, and a cut condition only loses a switch name, never a block boundary.
_CONDITIONAL = re.compile(rb"^[ \t]*(if|elseif|else|endif)[ \t]*\(([^)]*)", re.I | re.M)


@dataclass(frozen=True)
class Conditional:
    """One conditional command: its 1-based line, its word in lower case and the text of its condition."""

    line: int
    word: str  # "if", "elseif", "else" or "endif"
    condition: str


def conditionals(code: bytes) -> tuple[Conditional, ...]:
    """The file's conditional commands in source order."""
    return tuple(Conditional(code.count(b"\n", 0, m.start()) + 1, m.group(1).decode().lower(),
                             m.group(2).decode("utf-8", "replace"))
                 for m in _CONDITIONAL.finditer(code))
