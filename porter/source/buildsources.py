"""Name the files a CMake build compiles as CUDA because it says so, whatever their names.

`set_source_files_properties(k.kern PROPERTIES LANGUAGE CUDA)` or `set_property(SOURCE k.kern PROPERTY LANGUAGE CUDA)`
makes CMake hand `k.kern` to nvcc (checked with CMake 3.25: "Building CUDA object CMakeFiles/k.dir/k.kern.o"), so
the scan reads it as C/C++/CUDA (porter.pipeline, with the files a quoted `#include` names). Only literal names are
read: a `${VAR}` or generator expression names nothing here.

So does `nvcc -x cu kern.txt` in a script, Makefile, Dockerfile or CI file: nvcc compiles every input of that
command line as CUDA. Each word of such a line that is no option names a candidate, relative to the file's directory
and to the repository top; porter.pipeline scans the candidates that exist and have no language of their own.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePosixPath

from porter.source.includes import quoted_target

# The command and its `(`; its arguments run to the next `)` (found with str.find in cmake_commands: a regex retried
# from every later command when none closes is quadratic).
_COMMAND = re.compile(r"(?i)\b(set_source_files_properties|set_property)\s*\(")
_COMMENT = re.compile(r"#[^\n]*")


def cmake_commands(command: re.Pattern[str], text: str) -> Iterator[tuple[str, str]]:
    """Each call of a CMake command `command` matches (its name and `(`) in `text`, comments left out, as (name in
    lower case, the text of its arguments up to the next `)`); a match inside an earlier call's arguments is none.
    Linear: the first call with no `)` after it ends the walk (no later one closes either)."""
    text = _COMMENT.sub("", text)
    after = 0  # where the last command's `)` ended
    for m in command.finditer(text):
        if m.start() < after:
            continue
        close = text.find(")", m.end())
        if close < 0:
            break
        after = close + 1
        yield m.group(1).lower(), text[m.end():close]


# Files whose command lines may run nvcc (porter.source.discover's languages).
SCRIPT_LANGUAGES = frozenset({"shell", "make", "dockerfile", "yaml"})
# `-x cu`, `-xcu`, `-x=cu`, `--x cu`, `--x=cu` after `nvcc` on a line (the option's space may be the line's own
# newline, its `cu` on a later line, as the whole-text pattern `(?m)^.*\bnvcc\b.*?\s-{1,2}x\s*=?\s*cu\b.*$` read it).
# Found by _nvcc_x_cu_lines in time linear in the text: that pattern backtracked over every `nvcc` of a line with no
# `-x cu` (one 40 KB line took 4 CPU-s, and past the stage's budget the CMake LANGUAGE CUDA sources went unread).
_NVCC = re.compile(r"\bnvcc\b")
_X_CU = re.compile(r"\s-{1,2}x\s*=?\s*cu\b")
_SPACE = re.compile(r"\s")
_CONTINUED = re.compile(r"\\\r?\n")


def may_name_sources(path: str, data: bytes) -> bool:
    """Whether a build file may name sources compiled as CUDA (cheap: before the budgeted read of what it names)."""
    if is_cmake(path):
        return b"LANGUAGE" in data.upper()
    return b"nvcc" in data and b"x" in data


def cuda_sources(path: str, text: str) -> list[str]:
    """The repository paths the build file at `path` compiles as CUDA whatever their names: a CMake file's
    LANGUAGE CUDA sources (relative to its directory), or the inputs of an `nvcc -x cu` line elsewhere (relative to
    its directory, then to the top), in order, never leaving the repository."""
    if not is_cmake(path):
        return _nvcc_x_cu_sources(path, text)
    out: list[str] = []
    for name, arguments in cmake_commands(_COMMAND, text):
        words = [w.strip('"') for w in arguments.split()]
        upper = [w.upper() for w in words]
        if name == "set_source_files_properties":
            if "PROPERTIES" not in upper:
                continue
            cut = upper.index("PROPERTIES")
            files, props = words[:cut], upper[cut + 1:]
            cuda = any(props[i] == "LANGUAGE" and props[i + 1] == "CUDA" for i in range(0, len(props) - 1, 2))
        else:
            if not upper or upper[0] != "SOURCE" or "PROPERTY" not in upper:
                continue
            cut = upper.index("PROPERTY")
            files, cuda = words[1:cut], upper[cut + 1:cut + 3] == ["LANGUAGE", "CUDA"]
        if cuda:
            out.extend(t for f in files if "$" not in f and (t := quoted_target(path, f)) is not None)
    return out


def is_cmake(path: str) -> bool:
    name = PurePosixPath(path).name
    return name == "CMakeLists.txt" or name.lower().endswith(".cmake")


def _nvcc_x_cu_lines(text: str) -> Iterator[str]:
    r"""What `(?m)^.*\bnvcc\b.*?\s-{1,2}x\s*=?\s*cu\b.*$` finds in `text`, match by match, without its backtracking:
    per line, the `-x cu` options that start on it (at or after its first `nvcc`); the pattern's greedy `^.*` takes the
    last `nvcc` some option follows and its lazy `.*?` the first option after that, and the match runs to the end of
    the line the option ends on."""
    pos, size = 0, len(text)
    while pos < size:
        first = _NVCC.search(text, pos)
        if first is None:
            return
        start = text.rfind("\n", 0, first.start()) + 1
        end = text.find("\n", first.start())
        end = size if end < 0 else end
        options = []  # each `-x cu` whose leading space is on this line (its newline included)
        dash = text.find("-", first.end() + 1, end + 2)
        while dash >= 0:
            if _SPACE.match(text, dash - 1):
                m = _X_CU.match(text, dash - 1)
                if m is not None:
                    options.append(m)
            dash = text.find("-", dash + 1, end + 2)
        if not options:
            pos = end + 1
            continue
        last = max(n.end() for n in _NVCC.finditer(text, first.start(), end) if n.end() <= options[-1].start())
        chosen = next(m for m in options if m.start() >= last)
        stop = text.find("\n", chosen.end())
        stop = size if stop < 0 else stop
        yield text[start:stop]
        pos = stop


# A variable the file itself sets (Make `NVFLAGS := -x cu`, `+=`, `?=`; shell `X="-x cu"`, `export X=...`; Dockerfile
# `ENV`/`ARG`; a YAML `env:` entry `X: -x cu`) and its uses `$(X)`, `${X}`, `$X`: `$(NVCC) $(NVFLAGS) kern.txt`
# compiles kern.txt as CUDA as surely as the line written out. Expanded MAX_EXPANSION_HOPS deep, and never past
# MAX_EXPANDED_GROWTH times the text (variables built of variables double at each hop).
_ASSIGNMENT = re.compile(r"(?m)^[ \t]*(?:-[ \t]*)?(?:export[ \t]+|override[ \t]+|ENV[ \t]+|ARG[ \t]+)?"
                         r"([A-Za-z_]\w*)[ \t]*([:?+!]?=|:(?!=))[ \t]*([^\n]*)$")
_USE = re.compile(r"\$\(([A-Za-z_]\w*)\)|\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)")
MAX_EXPANSION_HOPS = 4
MAX_EXPANDED_GROWTH = 4


def expand_variables(text: str, yaml: bool = False) -> str:
    """`text` with the uses of the variables it assigns replaced by their values (a `:` assignment only in YAML,
    where it is one; elsewhere it is a Make rule). Bounded: see _ASSIGNMENT."""
    values: dict[str, str] = {}
    for m in _ASSIGNMENT.finditer(text):
        name, how, value = m.group(1), m.group(2), m.group(3).strip()
        if how == ":" and not yaml:
            continue
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[name] = f"{values[name]} {value}" if how == "+=" and name in values else value
    if not values:
        return text
    cap = MAX_EXPANDED_GROWTH * len(text) + 4096

    def value_of(m: re.Match[str]) -> str:
        return values.get(m.group(1) or m.group(2) or m.group(3), m.group(0))

    for _ in range(MAX_EXPANSION_HOPS):
        pieces, size, last = [], 0, 0
        for m in _USE.finditer(text):  # built piece by piece so a growing text stops at the cap, not after it
            piece = value_of(m)
            pieces += [text[last:m.start()], piece]
            size += m.start() - last + len(piece)
            last = m.end()
            if size > cap:
                return text
        if not pieces:
            return text
        expanded = "".join(pieces) + text[last:]
        if expanded == text:
            return text
        text = expanded
    return text


def _nvcc_x_cu_sources(path: str, text: str) -> list[str]:
    out: dict[str, None] = {}  # in order, each once (a dict's membership test: a line may name thousands)
    text = expand_variables(text, yaml=path.endswith((".yml", ".yaml")))
    for line in _nvcc_x_cu_lines(_CONTINUED.sub(" ", text)):
        line = _X_CU.sub(" ", line)
        for word in line[line.index("nvcc") + 4:].split():
            word = word.strip("\"'();&|`")
            if not word or word.startswith("-") or "$" in word or "=" in word:
                continue
            for target in (quoted_target(path, word), quoted_target("", word)):
                if target is not None:
                    out.setdefault(target, None)
    return list(out)
