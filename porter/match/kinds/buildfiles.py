"""Pattern kinds `dockerfile` and `cmake`: a regex inside the arguments of chosen Dockerfile instructions or CMake
commands, read from a real (small) parse of the file's structure, never run.

    dockerfile: {instruction: [FROM, ARG], regex: '(?i)nvcr\\.io/|nvidia/cuda'}
    cmake: {command: [project], regex: '\\bCUDA\\b'}

`regex` is optional (without it the whole instruction or command is the hit; with a `hit` group, only that
group). A Dockerfile with an unknown instruction or an unterminated heredoc, or a CMake file with unbalanced
parentheses, an unterminated quoted or bracket argument or text that is not a command, raises SkipFile with the
line, so the scan reports the file as skipped rather than half-read.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from porter.match.base import Hit, MatchContext, SkipFile
from porter.match.kinds.code_regex import compile_regex
from porter.source.parse import SourceFile

DOCKER_INSTRUCTIONS = frozenset({
    "FROM", "RUN", "CMD", "LABEL", "MAINTAINER", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME", "USER",
    "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL",
})


@dataclass(frozen=True)
class Statement:
    """One Dockerfile instruction or CMake command: its name and the byte span of its arguments."""

    name: str  # upper-case Dockerfile instruction, lower-case CMake command
    start: int  # where the name starts
    args_start: int
    end: int


# ----------------------------------------------------------------------------------------------- Dockerfile

_HEREDOC = re.compile(rb"<<-?[ \t]*([\"']?)([A-Za-z_][A-Za-z0-9_]*)\1")
_ESCAPE_DIRECTIVE = re.compile(rb"\A(?:[ \t]*#[^\n]*\n)*?[ \t]*#[ \t]*escape[ \t]*=[ \t]*([\\`])", re.I)


def _memo(sf: SourceFile, key: str, parser) -> list[Statement]:
    """Parse once per file for every rule that asks; a file that cannot be parsed raises SkipFile each time."""
    if key not in sf.cache:
        try:
            sf.cache[key] = parser(sf.data)
        except SkipFile as e:
            sf.cache[key] = e
    got = sf.cache[key]
    if isinstance(got, SkipFile):
        raise got
    return got


def dockerfile_statements(sf: SourceFile) -> list[Statement]:
    return _memo(sf, "docker_statements", _parse_dockerfile)


def _parse_dockerfile(data: bytes) -> list[Statement]:
    m = _ESCAPE_DIRECTIVE.match(data)
    escape = m.group(1) if m else b"\\"
    lines = data.split(b"\n")
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line) + 1
    out: list[Statement] = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        stripped = line.strip()
        if not stripped or stripped.startswith(b"#"):
            i += 1
            continue
        word = re.match(rb"[ \t]*([A-Za-z]+)", line)
        if word is None or word.group(1).upper().decode() not in DOCKER_INSTRUCTIONS:
            shown = stripped.split()[0][:40].decode("utf-8", "replace")
            raise SkipFile(f"malformed Dockerfile: line {i + 1}: unknown instruction {shown!r}")
        name = word.group(1).upper().decode()
        start = offsets[i] + word.start(1)
        args_start = offsets[i] + word.end(1)
        heredocs = []
        # Follow continuation lines (comment lines inside a continued instruction are dropped by Docker).
        while True:
            heredocs += [h.group(2) for h in _HEREDOC.finditer(lines[i])] if name in ("RUN", "COPY", "ADD") else []
            body = lines[i].rstrip(b" \t\r")
            if body.endswith(escape) and i + 1 < n:
                i += 1
                while i + 1 < n and lines[i].strip().startswith(b"#"):
                    i += 1
                continue
            break
        for tag in heredocs:
            i += 1
            while i < n and lines[i].rstrip(b"\r").lstrip(b"\t") != tag:
                i += 1
            if i >= n:
                raise SkipFile(f"malformed Dockerfile: heredoc <<{tag.decode()} is never closed")
        end = offsets[i] + len(lines[i]) if i < n else len(data)
        out.append(Statement(name, start, args_start, end))
        i += 1
    if out and not any(s.name == "FROM" for s in out):
        raise SkipFile("malformed Dockerfile: no FROM instruction")
    return out


# ---------------------------------------------------------------------------------------------------- CMake

_CMAKE_TOKEN = re.compile(
    rb"(?P<bcomment>#\[(?P<eq1>=*)\[.*?\](?P=eq1)\])"
    rb"|(?P<comment>#[^\n]*)"
    rb"|(?P<bracket>\[(?P<eq2>=*)\[.*?\](?P=eq2)\])"
    rb"|(?P<escape>\\.)"  # an escape sequence outside quotes (`code=\"sm_70\"`): no quote opens there
    rb'|(?P<quoted>"(?:\\.|[^"\\])*")'
    rb"|(?P<badbracket>\[=*\[)|(?P<badquote>\")"
    rb"|(?P<open>\()|(?P<close>\))",
    re.S,
)
_CMAKE_COMMAND = re.compile(rb"[ \t\r\n]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(")


def cmake_statements(sf: SourceFile) -> list[Statement]:
    return _memo(sf, "cmake_statements", _parse_cmake)


def _line(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _skip_space_and_comments(data: bytes, i: int) -> int:
    while i < len(data):
        if data[i:i + 1] in b" \t\r\n":
            i += 1
            continue
        if data[i:i + 1] == b"#":
            m = _CMAKE_TOKEN.match(data, i)
            if m.group("bcomment"):
                i = m.end()
                continue
            end = data.find(b"\n", i)
            i = len(data) if end < 0 else end
            continue
        break
    return i


def _parse_cmake(data: bytes) -> list[Statement]:
    out: list[Statement] = []
    i = _skip_space_and_comments(data, 0)
    while i < len(data):
        if data.startswith(b"#[", i) and re.match(rb"#\[=*\[", data[i:i + 64]):
            raise SkipFile(f"malformed CMake: line {_line(data, i)}: unterminated bracket comment")
        m = _CMAKE_COMMAND.match(data, i)
        if m is None:
            shown = data[i:i + 30].split(b"\n")[0].decode("utf-8", "replace")
            raise SkipFile(f"malformed CMake: line {_line(data, i)}: expected a command, found {shown!r}")
        depth, j = 1, m.end()
        while depth:
            t = _CMAKE_TOKEN.search(data, j)
            if t is None:
                raise SkipFile(f"malformed CMake: line {_line(data, m.start(1))}: "
                               f"{m.group(1).decode()}( is never closed")
            if t.group("badquote") or t.group("badbracket"):
                kind = "quoted" if t.group("badquote") else "bracket"
                raise SkipFile(f"malformed CMake: line {_line(data, t.start())}: unterminated {kind} argument")
            if t.group("open"):
                depth += 1
            elif t.group("close"):
                depth -= 1
            j = t.end()
        out.append(Statement(m.group(1).decode().lower(), m.start(1), m.end(), j - 1))
        i = _skip_space_and_comments(data, j)
    return out


# -------------------------------------------------------------------------------------------------- matchers


def _statement_hits(spec: dict, sf: SourceFile, statements: list[Statement], names: set[str]) -> Iterable[Hit]:
    rx = compile_regex(spec["regex"], tuple(spec.get("flags", ()))) if spec.get("regex") else None
    # Line continuations become spaces (same length) so a pattern can span a continued Dockerfile line.
    code = sf.code.replace(b"\\\n", b"  ") if sf.language == "dockerfile" else sf.code
    for st in statements:
        if names and st.name not in names:
            continue
        if rx is None:
            yield Hit(st.start, st.end, name=st.name)
            continue
        for m in rx.finditer(code, st.args_start, st.end):
            if m.end() == m.start():
                continue
            start, end = m.span("hit") if "hit" in rx.groupindex and m.group("hit") is not None else m.span()
            values = tuple((k, v.decode("utf-8", "replace")) for k, v in m.groupdict().items() if v is not None)
            yield Hit(start, end, name=sf.data[start:end].decode("utf-8", "replace"), values=values)


def match_dockerfile(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.language != "dockerfile":
        return
    spec = pattern["dockerfile"]
    names = {n.upper() for n in spec.get("instruction", ())}
    yield from _statement_hits(spec, sf, dockerfile_statements(sf), names)


def match_cmake(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.language != "cmake":
        return
    spec = pattern["cmake"]
    names = {n.lower() for n in spec.get("command", ())}
    yield from _statement_hits(spec, sf, cmake_statements(sf), names)

