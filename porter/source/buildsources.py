"""Name the files a CMake build compiles as CUDA because it says so, whatever their names.

`set_source_files_properties(k.kern PROPERTIES LANGUAGE CUDA)` or `set_property(SOURCE k.kern PROPERTY LANGUAGE CUDA)`
makes CMake hand `k.kern` to nvcc (checked with CMake 3.25: "Building CUDA object CMakeFiles/k.dir/k.kern.o"), so
the scan reads it as C/C++/CUDA (porter.pipeline, with the files a quoted `#include` names). Only literal names are
read: a `${VAR}` or generator expression names nothing here.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath

from porter.source.includes import quoted_target

# The command and its `(`; its arguments run to the next `)` (found with str.find, as buildinfo's CMake reader does:
# a regex retried from every later command when none closes is quadratic).
_COMMAND = re.compile(r"(?i)\b(set_source_files_properties|set_property)\s*\(")
_COMMENT = re.compile(r"#[^\n]*")


def cuda_sources(path: str, text: str) -> list[str]:
    """The repository paths the CMake file at `path` (a CMakeLists.txt or *.cmake) marks LANGUAGE CUDA, relative
    to its directory, in order, never leaving the repository."""
    text = _COMMENT.sub("", text)
    out: list[str] = []
    after = 0
    for m in _COMMAND.finditer(text):
        if m.start() < after:
            continue
        close = text.find(")", m.end())
        if close < 0:
            break  # no `)` after this one: no later command closes either
        after = close + 1
        words = [w.strip('"') for w in text[m.end():close].split()]
        upper = [w.upper() for w in words]
        if m.group(1).lower() == "set_source_files_properties":
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
