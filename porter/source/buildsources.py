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
# `-x cu`, `-xcu`, `-x=cu`, `--x cu`, `--x=cu` on a line that runs nvcc.
_NVCC_X_CU = re.compile(r"(?m)^.*\bnvcc\b.*?(?:\s-{1,2}x\s*=?\s*cu\b).*$")
_X_CU = re.compile(r"\s-{1,2}x\s*=?\s*cu\b")
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


def _nvcc_x_cu_sources(path: str, text: str) -> list[str]:
    out: list[str] = []
    for m in _NVCC_X_CU.finditer(_CONTINUED.sub(" ", text)):
        line = _X_CU.sub(" ", m.group(0))
        for word in line[line.index("nvcc") + 4:].split():
            word = word.strip("\"'();&|`")
            if not word or word.startswith("-") or "$" in word or "=" in word:
                continue
            for target in (quoted_target(path, word), quoted_target("", word)):
                if target is not None and target not in out:
                    out.append(target)
    return out
