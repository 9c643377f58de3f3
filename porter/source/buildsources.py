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
        upper = data.upper()
        return b"LANGUAGE" in upper or b"CONFIGURE_FILE" in upper or b"COMPILE_" in upper
    return b"nvcc" in data and b"x" in data


# What cuda_sources may answer beside a plain path (git paths never hold a NUL): a glob to resolve against the tree,
# `GLOB_MARK + directory + NUL + pattern + NUL + ("r" recursive or "")`, and a name porter cannot resolve,
# `UNSEEN_MARK + build file + NUL + what` (porter.pipeline lists it unseen: a gate fails closed).
GLOB_MARK = "\0glob\0"
UNSEEN_MARK = "\0unseen\0"
_VARIABLES = re.compile(r"(?i)\b(set|list|file|configure_file)\s*\(")
_REFERENCE = re.compile(r"\$\{(\w+)\}")
# Directories a CMake file names its own sources from: a path under one is relative to the file's directory.
_HERE = ("${CMAKE_CURRENT_SOURCE_DIR}/", "${CMAKE_CURRENT_LIST_DIR}/", "${PROJECT_SOURCE_DIR}/",
         "${CMAKE_SOURCE_DIR}/")
# The build directory: nothing porter reads is there (a configure_file output's input is read instead).
_BUILD_DIRS = ("${CMAKE_CURRENT_BINARY_DIR}", "${PROJECT_BINARY_DIR}", "${CMAKE_BINARY_DIR}")
# A compile option that makes the compiler read a source as CUDA (`COMPILE_OPTIONS "-xcu"`, `COMPILE_FLAGS "-x cu"`).
_X_CU_OPTION = re.compile(r"(?i)(?:^|[\s\";])-{1,2}x\s*=?\s*cu\b")
MAX_VALUES = 4096  # the most words one variable's value holds here (a `list(APPEND)` loop of a hostile file)


def cmake_variables(texts: list[tuple[str, str]]) -> dict[str, list[str]]:
    """The source lists the CMake files set, whichever file sets them (CMake's scopes are not followed: a name set
    anywhere stands for every value it is given): `set(V a b)` and `list(APPEND V c)` as words, each relative to its
    file's directory, and `file(GLOB V pat)` / `GLOB_RECURSE` as glob marks (GLOB_MARK)."""
    out: dict[str, list[str]] = {}
    for path, text in texts:
        for name, arguments in cmake_commands(_VARIABLES, text):
            words = [w.strip('"') for w in arguments.split()]
            upper = [w.upper() for w in words]
            if name == "set" and words:
                var, values = words[0], [w for w in words[1:] if w.upper() not in ("CACHE", "PARENT_SCOPE")]
            elif name == "list" and len(words) > 1 and upper[0] in ("APPEND", "PREPEND", "INSERT"):
                var, values = words[1], words[2 + (upper[0] == "INSERT"):]
            elif name == "file" and len(words) > 1 and upper[0] in ("GLOB", "GLOB_RECURSE"):
                var, rest, recursive = words[1], words[2:], upper[0] == "GLOB_RECURSE"
                values = []
                skip = False
                for w in rest:
                    if skip:
                        skip = False
                        continue
                    if w.upper() in ("RELATIVE", "LIST_DIRECTORIES"):
                        skip = True
                        continue
                    if w.upper() in ("CONFIGURE_DEPENDS", "FOLLOW_SYMLINKS"):
                        continue
                    values.append(_glob_mark(path, w, recursive))
            else:
                continue
            got = out.setdefault(var, [])
            got.extend(values if name == "file" else [_relative(path, v) for v in values])
            del got[MAX_VALUES:]
    return out


def _relative(path: str, word: str) -> str:
    """A CMake word naming a file as a repository path relative to the CMake file's directory, where it can be."""
    for here in _HERE:
        if word.startswith(here):
            word = word[len(here):]
            break
    if "$" in word or "\0" in word:
        return word
    target = quoted_target(path, word)
    return target if target is not None else ""


def _glob_mark(path: str, pattern: str, recursive: bool) -> str:
    pattern = _relative(path, pattern) if not pattern.startswith("/") else ""
    if not pattern or "$" in pattern:
        return UNSEEN_MARK + path + "\0" + f"file(GLOB) of {pattern or 'a path outside the tree'}"
    directory, _, name = pattern.rpartition("/")
    while any(ch in directory for ch in "*?["):  # `src/*/k.cup`: resolved from the first literal directory
        directory, _, head = directory.rpartition("/")
        name = head + "/" + name
    return GLOB_MARK + directory + "\0" + name + "\0" + ("r" if recursive else "")


def cuda_sources(path: str, text: str, variables: dict[str, list[str]] | None = None) -> list[str]:
    """The repository paths the build file at `path` compiles as CUDA whatever their names: a CMake file's
    LANGUAGE CUDA sources or sources with a `-x cu` compile option (relative to its directory; `${V}` expanded from
    `variables`, cmake_variables of the tree's CMake files, a glob as GLOB_MARK, a name porter cannot resolve as
    UNSEEN_MARK) and a configure_file template whose output is C/C++/CUDA, or the inputs of an `nvcc -x cu` line
    elsewhere (relative to its directory, then to the top), in order, never leaving the repository."""
    if not is_cmake(path):
        return _nvcc_x_cu_sources(path, text)
    if variables is None:
        variables = cmake_variables([(path, text)])
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
        rest = arguments.split("PROPERTIES", 1)[-1] if name == "set_source_files_properties" else arguments
        cuda = cuda or ("COMPILE_OPTIONS" in rest.upper() or "COMPILE_FLAGS" in rest.upper()) \
            and _X_CU_OPTION.search(rest) is not None
        if cuda:
            out.extend(_expanded(path, files, variables))
    for name, arguments in cmake_commands(_VARIABLES, text):
        words = [w.strip('"') for w in arguments.split()]
        if name == "configure_file" and len(words) >= 2 and _compiled_name(words[1]):
            # `configure_file(k.cu.in k.cu COPYONLY)`: the build compiles the output, which is the input's text
            out.extend(_expanded(path, words[:1], variables))
    return out


def _compiled_name(output: str) -> bool:
    from porter.source.discover import language_of  # discover imports nothing of this module's; no cycle at import

    return language_of(output.rsplit("/", 1)[-1]) == "cuda"


def _expanded(path: str, files: list[str], variables: dict[str, list[str]]) -> list[str]:
    out: list[str] = []
    for f in files:
        if f.startswith(_BUILD_DIRS) or f.startswith("$<"):
            continue  # generated in the build directory, or a generator expression (names no file of the tree)
        if "$" not in f:
            if (t := _relative(path, f)):
                out.append(t)
            continue
        m = _REFERENCE.fullmatch(f)
        if m is None or m.group(1) not in variables:
            out.append(UNSEEN_MARK + path + "\0" + f"LANGUAGE CUDA source {f}")
            continue
        for v in variables[m.group(1)]:
            if v.startswith((GLOB_MARK, UNSEEN_MARK)):
                out.append(v)
            elif v.startswith(_BUILD_DIRS):
                continue
            elif "$" in v:
                out.append(UNSEEN_MARK + path + "\0" + f"LANGUAGE CUDA source {v} (from {f})")
            elif v:
                out.append(v)
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


# A Make rule line (`k.o: src/k.cup`, `%.o: %.cup`; not an assignment) and a recipe's automatic variables.
_RULE = re.compile(r"^([^\t#=:][^=:]*?)::?(?!=)([^=;]*)(?:;.*)?$")
_AUTOMATIC = re.compile(r"\$[<^+?]|\$\([<^+?]\)")


def _is_make(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name in ("Makefile", "makefile", "GNUmakefile") or name.endswith((".mk", ".make"))


def make_automatic(text: str) -> str:
    """A Makefile's recipe lines with `$<` (the rule's first prerequisite) and `$^`, `$+`, `$?` (all of them)
    written out, so `k.o: src/k.cup` / `nvcc -x cu -c $< -o $@` names src/k.cup as an nvcc line written out does.
    A pattern rule's `%` stays (_nvcc_x_cu_sources reads it as a glob); a recipe with no rule above keeps the
    variable (read as unresolved)."""
    prereqs: list[str] | None = None
    out = []
    for line in text.split("\n"):
        if line.startswith("\t"):
            if prereqs is not None and _AUTOMATIC.search(line):
                first, every = (prereqs[0] if prereqs else ""), " ".join(prereqs)
                line = _AUTOMATIC.sub(lambda m: first if "<" in m.group(0) else every, line)
        elif line.strip() and not line.startswith("#"):
            m = _RULE.match(line)
            prereqs = m.group(2).replace("|", " ").split() if m is not None else None
        out.append(line)
    return "\n".join(out)


def _nvcc_x_cu_sources(path: str, text: str) -> list[str]:
    out: dict[str, None] = {}  # in order, each once (a dict's membership test: a line may name thousands)
    text = expand_variables(text, yaml=path.endswith((".yml", ".yaml")))
    if _is_make(path):
        text = make_automatic(_CONTINUED.sub(" ", text))
    for line in _nvcc_x_cu_lines(_CONTINUED.sub(" ", text)):
        line = _X_CU.sub(" ", line)
        for word in line[line.index("nvcc") + 4:].split():
            word = word.strip("\"'();&|`")
            if _AUTOMATIC.search(word):
                out.setdefault(UNSEEN_MARK + path + "\0" + f"the input {word} of an nvcc -x cu line", None)
                continue
            if _is_make(path) and "%" in word and "$" not in word and not word.startswith("-"):
                # a pattern rule's input: every file its pattern matches (its stem may hold `/`)
                out.setdefault(_glob_mark(path, word.replace("%", "*"), True), None)
                continue
            if not word or word.startswith("-") or "$" in word or "=" in word:
                continue
            for target in (quoted_target(path, word), quoted_target("", word)):
                if target is not None:
                    out.setdefault(target, None)
    return list(out)
