"""Reads a CMake file's conditionals: its `if()` / `elseif()` / `else()` / `endif()` commands (where each is, what it
tests, and the arms of each chain they make) and its generator expressions (`$<condition:value>`, where each is).

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


@dataclass(frozen=True)
class Arm:
    """One arm of an if() chain: from the command that opens it (`if`, `elseif`, `else`) up to, not including, the
    command that ends it (the next `elseif`/`else`, or `endif`; past the last line when the file never closes it)."""

    chain: int  # the line of the chain's if()
    index: int  # 0 for the if() arm, 1, 2, ... for the elseif()/else() arms after it
    line: int
    end: int
    condition: str  # the opening command's condition ("" for else())


def arms(code: bytes) -> tuple[Arm, ...]:
    """Every arm of every if() chain in the file, in the order the arms close (an unclosed one last)."""
    out: list[Arm] = []
    open_arms: list[Arm] = []  # the innermost last; `end` is set when the arm closes
    for c in conditionals(code):
        if c.word == "if":
            open_arms.append(Arm(c.line, 0, c.line, 0, c.condition))
        elif open_arms:
            arm = open_arms.pop()
            out.append(Arm(arm.chain, arm.index, arm.line, c.line, arm.condition))
            if c.word != "endif":
                open_arms.append(Arm(arm.chain, arm.index + 1, c.line, 0, c.condition))
    last = code.count(b"\n") + 2
    out.extend(Arm(a.chain, a.index, a.line, last, a.condition) for a in reversed(open_arms))
    return tuple(out)


def generator_expressions(code: bytes) -> list[tuple[int, int, int]]:
    """(start, first top-level ':', end) of every `$<...>` in `code`, innermost first (end just past its `>`; ':' is
    -1 when none). A generator expression may run over many lines: CMake reads a command's arguments, newlines
    included, before it evaluates them (https://cmake.org/cmake/help/latest/manual/cmake-generator-expressions.7.html)."""
    out: list[tuple[int, int, int]] = []
    stack: list[list[int]] = []
    i = 0
    while i < len(code):
        if code.startswith(b"$<", i):
            stack.append([i, -1])
            i += 2
            continue
        c = code[i]
        if stack and c == 0x3A and stack[-1][1] < 0:  # ':'
            stack[-1][1] = i
        elif stack and c == 0x3E:  # '>'
            start, colon = stack.pop()
            out.append((start, colon, i + 1))
        i += 1
    return out
