"""Name the files a CMake build compiles as CUDA because it says so, whatever their names.

`set_source_files_properties(k.kern PROPERTIES LANGUAGE CUDA)` or `set_property(SOURCE k.kern PROPERTY LANGUAGE CUDA)`
makes CMake hand `k.kern` to nvcc (checked with CMake 3.25: "Building CUDA object CMakeFiles/k.dir/k.kern.o"), so
the scan reads it as C/C++/CUDA (porter.pipeline, with the files a quoted `#include` names). Only literal names are
read: a `${VAR}` or generator expression names nothing here.
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


def cuda_sources(path: str, text: str) -> list[str]:
    """The repository paths the CMake file at `path` (a CMakeLists.txt or *.cmake) marks LANGUAGE CUDA, relative
    to its directory, in order, never leaving the repository."""
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
