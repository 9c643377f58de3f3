"""Pattern kinds driven by the CUDA-library map (rules/kb/libraries.yaml), plus the Python and command-line
evidence they need: `library`, `requirement`, `module_call` and `command`.

    library: {evidence: header|link|import|package|choice, kinds: [port, early-access], ids: [...], exclude: [...]}
        Every #include, link name (CMake targets and target_link_libraries words, -l flags, lib*.so files, Bazel
        labels, setup.py `libraries=`), Python import, package requirement (requirements files, pyproject,
        setup.py install_requires, `pip install` in Dockerfiles, shell scripts and CI files) or Python backend
        choice (a returned or `backend`-assigned library name: `return BackendLib.FLASHINFER.value`) that the map
        knows. The hit names the library, its ROCm replacement and kind ({library} {rocm} {kind} {note}), so one
        rule per kind of evidence covers every library.
    requirement: {names: [globs], local_version: regex, extras: regex, exclude_mapped: true}
        Package requirements by name glob, `+local` version tag or extras, for pins the map does not know.
    module_call: {module: tensorrt_llm, names: [LLM, BuildConfig]}
        Python calls of names imported from a module, through `import m as x` and `from m import n as y`.
    command: {regex: '\\bnvidia-smi\\b'}
        A command line: in string literals for C/C++/CUDA and Python (subprocess, os.system), in code elsewhere.
"""
from __future__ import annotations

import fnmatch
import functools
import re
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Iterable, Iterator

import tree_sitter as ts

from porter.lazyre import lazy_regex
from porter.match.base import Hit, MatchContext, per_object
from porter.match.kinds.code_regex import compile_regex
from porter.source.parse import SourceFile
from porter.source.parse_queries import captures, register_root_query
from porter.source.syntax import index

if TYPE_CHECKING:
    import tree_sitter as ts

# Whole-file queries asked of every Python file (its imports, its `libraries=` keywords, its strings that may be link
# spellings): run with the other whole-file queries in one walk (porter.source.parse_queries.captures), not each in
# a walk of its own (~0.5 CPU-s of a cold FasterTransformer scan, 253 Python files).
_KEYWORDS = register_root_query("python", "(keyword_argument name: (identifier) @n) @kw")
_STRINGS = register_root_query("python", "(string (string_content) @c)")
_FROM_IMPORTS = register_root_query("python", "(import_from_statement) @s")
_IMPORTS = register_root_query("python", "(import_statement) @s (import_from_statement) @s")

# ------------------------------------------------------------------------------------------------ evidence


def _library_hit(start: int, end: int, written: str, lib) -> Hit:
    rocm = ", ".join(lib.rocm) if lib.rocm else "none"
    return Hit(start, end, name=written, replacement=lib.rocm[0] if lib.rocm else None,
               values=(("library", lib.name), ("library_id", lib.id), ("rocm", rocm), ("kind", lib.kind),
                       ("note", lib.note)))


@functools.lru_cache(maxsize=4096)
def _library_of_header(header: str):
    """porter.libraries.by_header for the shipped map, once per header text (a header is included by many files,
    and each non-exact lookup tries every glob of the map)."""
    from porter.libraries import by_header

    return by_header(header)


def _headers(sf: SourceFile, ctx: MatchContext | None) -> Iterator[Hit]:
    if sf.language != "cuda" or sf.root is None:
        return
    from porter.source.includes import project_header

    own = (ctx.extra.get("repository_files") if ctx is not None else None) or frozenset()
    for node, header in index(sf).includes:
        lib = _library_of_header(header)
        if lib is not None and not (own and project_header(sf.path, header, node.type == "string_literal", own)):
            yield _library_hit(node.start_byte, node.end_byte, header, lib)


# Not inside a longer name (`Foo::CUDA::x`, `a-lcuda`, a path); a single `:` before it is allowed here and checked
# in _links: only a generator expression's own `:` (`$<$<BOOL:${X}>:CUDA::cublas>`) starts a link item.
_LINK_TOKEN = re.compile(
    rb"(?<![\w@/.-])(?<!::)(?:"
    rb"(?:CUDA|CUB|CCCL|Thrust|libcudacxx|nvidia|nvshmem|cudf|nvcomp)::[A-Za-z0-9_:]+"
    rb"|-l[A-Za-z0-9_+.-]+"
    rb"|(?:[\w./-]*/)?lib[A-Za-z0-9_+-]+\.(?:so(?:\.[0-9]+)*|a)"
    rb"|@[A-Za-z0-9_-]+//[A-Za-z0-9_/.:+-]*"
    rb")(?![\w])"
)
_FIND_OPTIONS = frozenset({b"HINTS", b"PATHS", b"PATH_SUFFIXES", b"DOC", b"REQUIRED", b"NO_DEFAULT_PATH",
                           b"NO_CACHE", b"ENV", b"NAMES_PER_DIR", b"NO_CMAKE_PATH", b"NO_SYSTEM_ENVIRONMENT_PATH"})
_BARE_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_+.-]*")


def _links(sf: SourceFile, ctx: MatchContext | None) -> Iterator[Hit]:
    from porter.libraries import by_link

    if sf.language == "python":
        yield from _setup_libraries(sf)
        return
    if sf.language not in ("cmake", "make", "meson", "bazel", "shell", "dockerfile"):
        return
    seen: set[int] = set()
    colons, conditions = _generator_parts(sf) if sf.language == "cmake" else (set(), [])
    for m in _LINK_TOKEN.finditer(sf.code):
        if sf.code[m.start() - 1:m.start()] == b":" and m.start() - 1 not in colons:
            continue
        if any(a <= m.start() < b for a, b in conditions):
            continue
        text = m.group().decode("utf-8", "replace")
        lib = by_link(text)
        if lib is not None:
            seen.add(m.start())
            yield _library_hit(m.start(), m.end(), text, lib)
    if sf.language == "cmake":
        from porter.match.kinds.buildfiles import cmake_statements

        for st in cmake_statements(sf):
            if st.name not in ("target_link_libraries", "link_libraries", "find_library"):
                continue
            words = list(_BARE_WORD.finditer(sf.code, st.args_start, st.end))
            if st.name == "find_library":  # find_library(<VAR> name | NAMES name... [HINTS|PATHS dir...])
                words = words[1:]
                stop = next((i for i, w in enumerate(words) if w.group() in _FIND_OPTIONS), len(words))
                words = [w for w in words[:stop] if w.group() != b"NAMES"]
            for m in words:
                before = sf.code[m.start() - 1:m.start()]
                if m.start() in seen or before in (b"$", b"{", b"-") or (before == b":" and m.start() - 1 not in colons):
                    continue
                if any(a <= m.start() < b for a, b in conditions):
                    continue
                word = m.group().decode()
                if word.upper() in ("PRIVATE", "PUBLIC", "INTERFACE", "DEBUG", "OPTIMIZED", "GENERAL"):
                    continue
                lib = by_link("-l" + word)
                if lib is not None:
                    yield _library_hit(m.start(), m.end(), word, lib)
    if sf.language == "meson":
        # Meson's CUDA dependency names the toolkit's libraries it links as modules:
        # `dependency('cuda', modules: ['cublas', 'nvToolsExt'])` (https://mesonbuild.com/Dependencies.html#cuda).
        for d in _MESON_CUDA_MODULES().finditer(sf.code):
            for w in re.finditer(rb"'([A-Za-z0-9_+.-]+)'", d.group("modules")):
                lib = by_link("-l" + w.group(1).decode())
                start = d.start("modules") + w.start(1)
                if lib is not None and start not in seen:
                    yield _library_hit(start, start + len(w.group(1)), w.group(1).decode(), lib)


_MESON_CUDA_MODULES = lazy_regex(rb"\bdependency\s*\(\s*'cuda'[^()]*?\bmodules\s*:\s*\[(?P<modules>[^\]]*)\]")


def _generator_parts(sf: SourceFile) -> tuple[set[int], list[tuple[int, int]]]:
    """The offsets of every CMake generator expression's top-level `:` (what follows it is the expression's value, a
    link item in target_link_libraries), and the spans of their conditions: `$<$<STREQUAL:${BACKEND},CUDA>:x>` tests
    the word CUDA, it links nothing (https://cmake.org/cmake/help/latest/manual/cmake-generator-expressions.7.html)."""
    from porter.source.cmake_conditions import generator_expressions

    if b"$<" not in sf.code:
        return set(), []
    found = generator_expressions(sf.code)
    return {c for _s, c, _e in found if c > 0}, [(s, c) for s, c, _e in found if c > 0]


def _keyword_strings(sf: SourceFile, keywords: set[str]) -> Iterator[tuple[int, int, str]]:
    """String literals inside `kw=[...]` / `kw={...}` keyword arguments of any call (setup.py style)."""
    if sf.root is None:
        return
    for kw in captures("python", _KEYWORDS, sf.root).get("kw", []):
        name = kw.child_by_field_name("name")
        if name is None or name.text.decode() not in keywords:
            continue
        value = kw.child_by_field_name("value")
        for s in captures("python", _STRINGS, value).get("c", []) if value else []:
            if not _dict_key(s):  # the values of extras_require={"x": [...]}, not its keys
                yield s.start_byte, s.end_byte, s.text.decode("utf-8", "replace")


def _dict_key(content: ts.Node) -> bool:
    """The string (its content node) is a key of a dict display (`{"cuda": [...]}`)."""
    parent = content.parent.parent if content.parent is not None else None
    return parent is not None and parent.type == "pair" and parent.child_by_field_name("key") == content.parent


# A Python string that is a link spelling and nothing else: `'-lcurand'` in extra_link_args, `"libnccl.so.2"` for
# ctypes.CDLL, a `/usr/lib/x86_64-linux-gnu/libcudnn.so` path. A sentence that mentions one is not.
_PY_LINK_STRING = re.compile(r"-l[A-Za-z0-9_+.-]+|(?:[\w./-]*/)?lib[A-Za-z0-9_+-]+\.(?:so(?:\.[0-9]+)*|a)")
# A Windows DLL of an NVIDIA library, named `<name>64_<version>.dll` (`cudart64_12.dll`, `cublasLt64_12.dll`,
# `nvrtc64_120_0.dll`, `cudnn64_9.dll`), which loaders pass to ctypes.WinDLL / os.add_dll_directory searches: the
# library's link name is <name>. A `libnvidia-ml.so*` or `libcudart.so.*` glob names the library as its file does.
_PY_DLL_STRING = re.compile(r"(?:[\w.:/\\-]*[/\\])?(?P<name>[A-Za-z][A-Za-z0-9]*?)(?:64)?(?:_[0-9]+)+\.dll")
_PY_SO_GLOB = re.compile(r"(?P<file>(?:[\w./-]*/)?lib[A-Za-z0-9_+-]+\.so)(?:\.[0-9]+)*\.?\*")


def _setup_libraries(sf: SourceFile) -> Iterator[Hit]:
    """Link evidence in Python build and loader code: the strings of `libraries=[...]` (setup.py style), of the
    list a `libraries=` keyword names through a variable (`libs = ["cublas"]; Extension(..., libraries=libs)`,
    also where the variable is extended or appended to), and any string that is wholly a link spelling."""
    from porter.libraries import by_link

    seen: set[int] = set()
    for start, end, text in [*_keyword_strings(sf, {"libraries"}), *_variable_strings(sf, "libraries")]:
        lib = by_link("-l" + text)
        if lib is not None and start not in seen:
            seen.add(start)
            yield _library_hit(start, end, text, lib)
    # pre-tested on the bytes: sf.code has its strings blanked, and these spellings live only in strings
    if sf.root is None or (b"-l" not in sf.data and b"lib" not in sf.data and b".dll" not in sf.data):
        return
    spots: set[tuple[int, str]] = set()  # one hit per library per line: `("libnccl.so", "libnccl.so.2")` is one spot
    has_find = b"find_library" in sf.code
    for c in captures("python", _STRINGS, sf.root).get("c", []):
        text = shown = c.text.decode("utf-8", "replace")
        if text.endswith(".") and c.next_named_sibling is not None and c.next_named_sibling.type == "interpolation":
            text = text[:-1]  # f"libnccl.so.{major}": the version comes from a variable
        elif has_find and _find_library_argument(c):
            text = "-l" + text  # ctypes.util.find_library("nccl"): the bare name the linker would look for
        elif (m := _PY_DLL_STRING.fullmatch(text) or _PY_SO_GLOB.fullmatch(text)) is not None:
            text = m.group("file") if "file" in m.groupdict() else "-l" + m.group("name")
        if c.start_byte in seen or not _PY_LINK_STRING.fullmatch(text):
            continue
        lib = by_link(text)
        if lib is not None and (c.start_point.row, lib.id) not in spots:
            seen.add(c.start_byte)
            spots.add((c.start_point.row, lib.id))
            yield _library_hit(c.start_byte, c.end_byte, shown if shown.endswith(("*", ".dll")) else text, lib)


def _find_library_argument(c: ts.Node) -> bool:
    """The string is the first argument of a `find_library(...)` call (ctypes.util's)."""
    string = c.parent
    args = string.parent if string is not None else None
    call = args.parent if args is not None and args.type == "argument_list" else None
    fn = call.child_by_field_name("function") if call is not None and call.type == "call" else None
    return fn is not None and fn.text.rsplit(b".", 1)[-1] == b"find_library" and args.named_children[0] == string


def _variable_strings(sf: SourceFile, keyword: str, keys_too: bool = True) -> Iterator[tuple[int, int, str]]:
    """The strings a file puts into the variables it passes as `keyword=<name>`: `name = [...]`, `name += [...]`,
    `name.append("...")`, `name.extend([...])` anywhere in the file (a name used for two lists gives both); without
    `keys_too`, not the keys of a dict display (`extras = {"cuda": [...]}`)."""
    if sf.root is None or keyword.encode() not in sf.code:
        return
    names = set()
    for kw in captures("python", "(keyword_argument name: (identifier) @n value: (identifier) @v) @kw", sf.root).get("kw", []):
        name, value = kw.child_by_field_name("name"), kw.child_by_field_name("value")
        if name is not None and value is not None and name.text.decode() == keyword:
            names.add(value.text.decode())
    if not names:
        return
    assignments = captures("python", "[(assignment) (augmented_assignment)] @a", sf.root).get("a", [])
    calls = captures("python", "(call function: (attribute object: (identifier) @o attribute: (identifier) @m)) @c",
                     sf.root).get("c", [])
    values: list[ts.Node | None] = []
    done: set[str] = set()
    # A list built from other lists (`libs = base_libs + ["cusparse"]`, `libraries=[*cuda_libs, "m"]`): the names a
    # value combines are followed too, a few assignments deep.
    for _ in range(3):
        todo = names - done
        if not todo:
            break
        done |= todo
        found: list[ts.Node | None] = []
        for a in assignments:
            left = a.child_by_field_name("left")
            if left is not None and left.type == "identifier" and left.text.decode() in todo:
                found.append(a.child_by_field_name("right"))
        for call in calls:
            fn = call.child_by_field_name("function")
            obj, attr = fn.child_by_field_name("object"), fn.child_by_field_name("attribute")
            if obj.text.decode() in todo and attr.text.decode() in ("append", "extend", "insert"):
                found.append(call.child_by_field_name("arguments"))
        values.extend(found)
        for value in found:
            names |= {n.text.decode() for n in _combined_names(value)}
    for value in values:
        for c in captures("python", _STRINGS, value).get("c", []) if value is not None else []:
            if keys_too or not _dict_key(c):
                yield c.start_byte, c.end_byte, c.text.decode("utf-8", "replace")


def _combined_names(value: ts.Node | None) -> Iterator[ts.Node]:
    """The plain names a list value is combined from: operands of `+`, `*name` in a list, a parenthesised name."""
    if value is None:
        return
    if value.type == "identifier":
        yield value
    elif value.type in ("binary_operator", "parenthesized_expression", "list", "list_splat", "argument_list"):
        for child in value.named_children:
            if child.type in ("identifier", "binary_operator", "parenthesized_expression", "list_splat"):
                yield from _combined_names(child)


_PY_IMPORT_FROM = """
(import_from_statement module_name: (dotted_name) @m name: (dotted_name) @n)
(import_from_statement module_name: (dotted_name) @m name: (aliased_import name: (dotted_name) @n))
"""


def _imports(sf: SourceFile, ctx: MatchContext | None) -> Iterator[Hit]:
    if sf.language != "python" or sf.root is None:
        return
    from porter.libraries import by_import

    done: set[int] = set()
    own = ctx.extra.get("local_packages", frozenset()) if ctx is not None else frozenset()
    # `from numba import cuda` is numba.cuda: test the imported names first.
    for stmt in captures("python", _FROM_IMPORTS, sf.root).get("s", []):
        module = stmt.child_by_field_name("module_name")
        if module is None or module.type != "dotted_name":
            continue
        for name in stmt.children_by_field_name("name"):
            node = name.child_by_field_name("name") if name.type == "aliased_import" else name
            dotted = module.text.decode() + "." + node.text.decode()
            if dotted.split(".")[0] in own:
                continue
            lib = by_import(dotted)
            if lib is not None and lib is not by_import(module.text.decode()):
                done.add(module.start_byte)
                yield _library_hit(node.start_byte, node.end_byte, dotted, lib)
    for node, module in index(sf).imports:
        if node.start_byte in done or module.split(".")[0] in own:
            continue
        lib = by_import(module)
        if lib is not None:
            yield _library_hit(node.start_byte, node.end_byte, module, lib)


# -------------------------------------------------------------------------------------- package requirements

_PIP_INSTALL = re.compile(rb"\b(?:pip3?|uv[ \t]+pip|python3?[ \t]+-m[ \t]+pip)[ \t]+install\b")
_PIP_VALUE_OPTIONS = frozenset({
    "-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-f", "--find-links",
    "-t", "--target", "--prefix", "--root", "--src", "--trusted-host", "--platform", "--python-version",
    "--implementation", "--abi", "--no-binary", "--only-binary", "--progress-bar", "--cache-dir", "-e", "--editable",
})
_ARG = re.compile(rb"""(?:"[^"\n]*"|'[^'\n]*'|[^\s;&|)`"'\\]+)""")
_REQ_LINE = re.compile(rb"^[ \t]*([A-Za-z0-9][^\s;#]*)", re.M)


def package_specs(sf: SourceFile) -> list[tuple[int, int, str]]:
    """(start, end, requirement text) for every package a file asks to install; memoised per file."""
    if "package_specs" not in sf.cache:
        sf.cache["package_specs"] = list(_package_specs(sf))
    return sf.cache["package_specs"]


def _package_specs(sf: SourceFile) -> Iterator[tuple[int, int, str]]:
    if sf.language == "requirements":
        for m in _REQ_LINE.finditer(sf.code):
            yield m.start(1), m.end(1), m.group(1).decode("utf-8", "replace")
        return
    if sf.language == "toml":
        yield from _toml_specs(sf)
        return
    if sf.language == "python":
        if PurePosixPath(sf.path).name == "setup.py":
            keys = {"install_requires", "extras_require", "setup_requires", "tests_require"}
            seen = set()
            for spec in _keyword_strings(sf, keys):
                seen.add(spec[0])
                yield spec
            # the list or dict a keyword names through a variable (`requires = [...]; setup(install_requires=
            # requires)`, also where it is appended to or extended): the same requirements, spelled one step away
            for key in sorted(keys):
                for spec in _variable_strings(sf, key, keys_too=False):
                    if spec[0] not in seen:
                        seen.add(spec[0])
                        yield spec
        return
    if sf.language in ("dockerfile", "shell", "make", "yaml"):
        code = sf.code.replace(b"\\\n", b"  ")
        for m in _PIP_INSTALL.finditer(code):
            i, skip_next = m.end(), False
            while True:
                a = _ARG.search(code, i)
                if a is None or code[i:a.start()].strip(b" \t") or b"\n" in code[i:a.start()]:
                    break  # a separator (&&, ;, |, newline) ends the command
                i = a.end()
                tok = a.group().strip(b"\"'").decode("utf-8", "replace")
                if skip_next:
                    skip_next = False
                    continue
                if tok.startswith("-"):
                    skip_next = tok in _PIP_VALUE_OPTIONS
                    continue
                if "/" in tok or tok.endswith((".whl", ".tar.gz", ".zip")) or tok.startswith((".", "$")):
                    continue
                q = 1 if a.group()[:1] in (b'"', b"'") else 0
                yield a.start() + q, a.end() - q, tok


def _toml_specs(sf: SourceFile) -> Iterator[tuple[int, int, str]]:
    from porter.match.kinds.config import tree, walk

    if PurePosixPath(sf.path).name != "pyproject.toml":
        return
    docs = tree(sf)
    for path in ("project.dependencies", "project.optional-dependencies.*", "build-system.requires",
                 "dependency-groups.*"):
        for node in walk(docs[0], path.split(".")):
            for item in node.value if isinstance(node.value, list) else []:
                if isinstance(item.value, str):
                    q = 1 if sf.data[item.start:item.start + 1] in (b'"', b"'") else 0
                    yield item.start + q, item.end - q, item.value
    for path in ("tool.poetry.dependencies", "tool.poetry.group.*.dependencies"):
        for node in walk(docs[0], path.split(".")):
            for name, child in (node.value.items() if isinstance(node.value, dict) else ()):
                yield child.key_start, child.key_end, name


def _packages(sf: SourceFile, ctx: MatchContext | None) -> Iterator[Hit]:
    from porter.libraries import by_package

    for start, end, spec in package_specs(sf):
        lib = by_package(spec)
        if lib is not None:
            yield _library_hit(start, end, spec, lib)


# ------------------------------------------------------------------------------------------- backend choices

_RETURNS = register_root_query("python", "(return_statement (_) @v) (assignment right: (_) @v)")
# The members an enum value is read through after the member itself: `Backend.FLASHINFER.value`
_ENUM_READ = frozenset({"value", "name"})


def _chosen_word(value: ts.Node) -> tuple[ts.Node, str] | None:
    """The word a returned or assigned value names a library by: a string that is one word (`return "nvshmem"`), or
    the member of a plain attribute chain (`return BackendLib.FLASHINFER.value`, `backend = Impl.CUTLASS`). Calls,
    subscripts and f-strings name no choice."""
    if value.type == "string":
        parts = value.named_children
        if len(parts) == 3 and parts[1].type == "string_content" and re.fullmatch(rb"[A-Za-z_][\w-]*", parts[1].text):
            return parts[1], parts[1].text.decode()
        return None
    if value.type != "attribute":
        return None
    chain: list[ts.Node] = []
    node: ts.Node | None = value
    while node is not None and node.type == "attribute":
        attr = node.child_by_field_name("attribute")
        if attr is None:
            return None
        chain.append(attr)
        node = node.child_by_field_name("object")
    if node is None or node.type != "identifier":
        return None
    member = chain[1] if len(chain) >= 2 and chain[0].text.decode() in _ENUM_READ else chain[0]
    return member, member.text.decode()


def _choices(sf: SourceFile, ctx: MatchContext | None) -> Iterator[Hit]:
    """A Python function returning, or a `backend` variable set to, a library's name: the code choosing which
    library serves a call (`return constants.BackendLib.FLASHINFER.value` in a sampler's backend probe, `return
    "nvshmem"` in a SHMEM backend probe). The import it leads to is found where the library is imported; the
    choice is the spot a port changes to pick the ROCm counterpart."""
    from porter.libraries import by_import

    if sf.language != "python" or sf.root is None:
        return
    for value in captures("python", _RETURNS, sf.root).get("v", []):
        if value.parent is not None and value.parent.type == "assignment":
            left = value.parent.child_by_field_name("left")
            if left is None or "backend" not in left.text.decode("utf-8", "replace").lower():
                continue
        found = _chosen_word(value)
        if found is None:
            continue
        node, word = found
        lib = by_import(word.lower())
        if lib is not None and lib.imports and word.lower() in {i.split(".")[0].lower() for i in lib.imports}:
            yield _library_hit(node.start_byte, node.end_byte, word, lib)


_EVIDENCE = {"header": _headers, "link": _links, "import": _imports, "package": _packages, "choice": _choices}


def _evidence(sf: SourceFile, ctx: MatchContext | None, kind: str) -> list[Hit]:
    """A file's library evidence of one kind, read once for the several rules that filter it (LIB001-LIB012, ...)."""
    key = ("library.evidence", kind)
    memo = sf.cache.get(key)
    if memo is None or memo[0] is not ctx:
        memo = sf.cache[key] = (ctx, list(_EVIDENCE[kind](sf, ctx)))
    return memo[1]


def match_library(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    evidence, kinds, ids, exclude, pinned_only = _read_library(pattern)
    found = _evidence(sf, ctx, evidence)
    if found and pinned_only:
        found = [h for h in found if dict(h.values)["library_id"] not in pinned_only or caps_version(h.name or "")]
    return _library_hits(found, kinds, ids, exclude) if found else ()


def _library_spec(pattern: dict) -> tuple[str, frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
    spec = pattern["library"]
    return (spec["evidence"], frozenset(spec.get("kinds", ())), frozenset(spec.get("ids", ())),
            frozenset(spec.get("exclude", ())), frozenset(spec.get("pinned_only", ())))


# A version specifier that caps the release a requirement installs (PEP 440: ==, ===, ~= and upper bounds), or a
# direct reference to one file (`name @ https://.../x.whl`): `flash_attn==2.6.3` holds a release whose ROCm build
# targets MI200/MI300 only; `flash-attn>=2.6.3` admits the newest.
_CAPPED = re.compile(r"===?|~=|<|@")


def caps_version(requirement: str) -> bool:
    """Whether a requirement's text pins or caps the version it installs (see _CAPPED); the environment marker
    after `;` is not part of the specifier."""
    return bool(_CAPPED.search(requirement.split(";", 1)[0]))


# A library pattern's evidence kind and filters, read once for the scan, not once per file.
_read_library = per_object(_library_spec)


def _library_hits(found: list[Hit], kinds: frozenset[str], ids: frozenset[str], exclude: frozenset[str]) -> Iterator[Hit]:
    for hit in found:
        v = dict(hit.values)
        if kinds and v["kind"] not in kinds:
            continue
        if ids and v["library_id"] not in ids:
            continue
        if v["library_id"] in exclude:
            continue
        yield hit


_LOCAL = re.compile(r"==\s*[^\s;,+]+\+([A-Za-z0-9.]+)")
_EXTRAS = re.compile(r"\[([^\]]*)\]")


def match_vendored_copy(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """The marker header of a vendored copy of a library (porter.libraries.vendored_copy) whose kind is one of the
    pattern's: one hit on the line that defines the library's macro. The scan folds the copy's other findings into
    it (pipeline.assemble): the copy is the library, built from ROCm's counterpart, not code to port by hand."""
    from porter.libraries import vendored_copy

    if not sf.path.endswith((".h", ".cuh", ".hpp")):
        return
    copy = vendored_copy(sf.path, sf.code)
    if copy is None or copy.library.kind not in pattern["vendored_copy"]["kinds"]:
        return
    macro = next(m for f, m in copy.library.copies if copy.marker.endswith("/" + f))
    m = re.search(rb"^[ \t]*#[ \t]*define[ \t]+(" + re.escape(macro.encode()) + rb")\b", sf.code, re.M)
    if m is None:
        return
    lib = copy.library
    yield Hit(m.start(1), m.end(1), name=lib.name, replacement=lib.rocm[0] if lib.rocm else None,
              values=(("library", lib.name), ("library_id", lib.id), ("rocm", ", ".join(lib.rocm) or "none"),
                      ("kind", lib.kind), ("root", copy.root)))


def match_requirement(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    from porter.libraries import by_package, normalize_package

    spec = pattern["requirement"]
    globs = spec.get("names", ())
    local_rx = re.compile(spec["local_version"]) if "local_version" in spec else None
    extras_rx = re.compile(spec["extras"]) if "extras" in spec else None
    for start, end, text in package_specs(sf):
        name = normalize_package(text)
        if not name:
            continue
        why = ""
        if any(fnmatch.fnmatchcase(name, g) for g in globs):
            why = "name"
        local = _LOCAL.search(text)
        if not why and local_rx is not None and local and local_rx.search(local.group(1)):
            why = "local version +" + local.group(1)
        extras = _EXTRAS.search(text)
        if not why and extras_rx is not None and extras and extras_rx.search(extras.group(1)):
            why = "extras [" + extras.group(1) + "]"
        if not why:
            continue
        if spec.get("exclude_mapped") and by_package(text) is not None:
            continue  # a library rule reports it, with its ROCm replacement
        yield Hit(start, end, name=text, values=(("package", name), ("why", why)))


# ------------------------------------------------------------------------------------------ Python bindings


def python_bindings(sf: SourceFile) -> dict[str, str]:
    """Local name -> fully qualified name for every import in a Python file (`import a.b as c`: c -> a.b)."""
    if "py_bindings" in sf.cache:
        return sf.cache["py_bindings"]
    out: dict[str, str] = {}
    if sf.root is not None:
        for stmt in captures("python", _IMPORTS, sf.root).get("s", []):
            if stmt.type == "import_statement":
                for name in stmt.children_by_field_name("name"):
                    if name.type == "aliased_import":
                        out[name.child_by_field_name("alias").text.decode()] = name.child_by_field_name("name").text.decode()
                    else:
                        dotted = name.text.decode()
                        out.setdefault(dotted.split(".")[0], dotted.split(".")[0])
                continue
            module = stmt.child_by_field_name("module_name")
            if module is None or module.type != "dotted_name":
                continue
            for name in stmt.children_by_field_name("name"):
                if name.type == "aliased_import":
                    real = name.child_by_field_name("name").text.decode()
                    out[name.child_by_field_name("alias").text.decode()] = module.text.decode() + "." + real
                else:
                    out[name.text.decode()] = module.text.decode() + "." + name.text.decode()
    sf.cache["py_bindings"] = out
    return out


def resolve(sf: SourceFile, dotted: str) -> str:
    """A dotted name as written (`trtllm.LLM`) resolved through the file's imports (`tensorrt_llm.LLM`)."""
    head, _, rest = dotted.partition(".")
    full = python_bindings(sf).get(head)
    if full is None:
        return dotted
    return full + ("." + rest if rest else "")


def _resolved_calls(sf: SourceFile) -> tuple[list[tuple[ts.Node, str]], frozenset[str]]:
    """The file's Python calls with their callees resolved through its imports ((callee node, full name); a bare
    name nobody imported, the file's own, left out), and every dotted head of those names (`a.` and `a.b.` of
    `a.b.c`): worked out once per file, not once per module_call pattern (each resolved every call again)."""
    found = sf.cache.get("library.resolved_calls")
    if found is None:
        calls = []
        prefixes = set()
        for fn, dotted, call in index(sf).python_calls:
            full = resolve(sf, dotted)
            if full == dotted and "." not in dotted:
                continue  # a bare name nobody imported is the file's own
            calls.append((fn, full))
            dot = full.find(".")
            while dot >= 0:
                prefixes.add(full[:dot + 1])
                dot = full.find(".", dot + 1)
        found = sf.cache["library.resolved_calls"] = (calls, frozenset(prefixes))
    return found


def _reexported_calls(sf: SourceFile, calls: list[tuple[ts.Node, str]], prefixes: frozenset[str],
                      modules: list[str]) -> tuple[list[tuple[ts.Node, str]], frozenset[str]]:
    """`calls` with a library's top module re-exported by a project module read as that library: GPAW's
    `from gpaw.gpu import cupy as cp` binds `cp` to whatever gpaw.gpu holds under the name `cupy` (the real CuPy on
    a GPU build), so `cp.linalg.eigh` is `cupy.linalg.eigh`. Only a binding whose imported name is the top module
    itself (`from x import cupyx`, `from x import cupy as cp`) is re-rooted; `from x.cupy_utils import f` is not."""
    tops = {m.split(".", 1)[0] for m in modules}
    if not any("." + top + "." in p for top in tops for p in prefixes):
        return calls, prefixes  # no call reaches a name bound to `<module>.<top>`
    bindings = python_bindings(sf)
    out = []
    extra = set(prefixes)
    for fn, full in calls:
        bound = bindings.get(fn.text.decode("utf-8", "replace").split(".", 1)[0])
        top = bound.rsplit(".", 1)[-1] if bound is not None and "." in bound else None
        if top in tops and full.startswith(bound + "."):
            full = top + full[len(bound):]
            dot = full.find(".")
            while dot >= 0:
                extra.add(full[:dot + 1])
                dot = full.find(".", dot + 1)
        out.append((fn, full))
    return out, frozenset(extra)


def match_module_call(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.language != "python":
        return
    spec = pattern["module_call"]
    modules = spec["module"] if isinstance(spec["module"], list) else [spec["module"]]
    names = set(spec.get("names", ("*",)))
    calls, prefixes = _resolved_calls(sf)
    if spec.get("reexported"):
        calls, prefixes = _reexported_calls(sf, calls, prefixes, modules)
    if all(module + "." not in prefixes for module in modules):
        return  # no call of the file is in one of the modules (most files, for most patterns)
    extra = (("library", spec["library"]),) if "library" in spec else ()
    for fn, full in calls:
        for module in modules:
            if not full.startswith(module + "."):
                continue
            last = full.rsplit(".", 1)[-1]
            if last.startswith("_") and spec.get("public_only"):
                break  # a module's private helper (`cupy.cublas._change_order_if_necessary`), not its API
            if "*" in names or last in names:
                yield Hit(fn.start_byte, fn.end_byte, name=full, values=(("call", full),) + extra)
                break


def match_command(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    spec = pattern["command"]
    rx = compile_regex(spec["regex"] if isinstance(spec, dict) else spec, tuple(spec.get("flags", ())) if isinstance(spec, dict) else ())
    in_strings = sf.tree is not None
    text = sf.data if in_strings else sf.code
    for m in rx.finditer(text):
        if m.end() == m.start():
            continue
        if in_strings and not sf.in_string(m.start()):
            continue
        if _in_message(sf, m.start(), in_strings) or (in_strings and _bare_string(sf, m.start())):
            continue
        start, end = m.span("hit") if "hit" in rx.groupindex and m.group("hit") is not None else m.span()
        values = tuple((k, v.decode("utf-8", "replace")) for k, v in m.groupdict().items() if v is not None)
        yield Hit(start, end, name=sf.data[start:end].decode("utf-8", "replace"), values=values)


def _bare_string(sf: SourceFile, offset: int) -> bool:
    """A Python string that is a statement of its own - a docstring (Triton-distributed's `is_cuda()`: "Checks if
    'nvidia-smi' is available on the system's PATH.") or a string used as a comment: nothing passes it anywhere, so
    it runs nothing."""
    if sf.language != "python" or sf.root is None:
        return False
    node = sf.root.named_descendant_for_byte_range(offset, offset + 1)
    while node is not None and node.type != "string":
        node = node.parent
    if node is not None and node.parent is not None and node.parent.type == "concatenated_string":
        node = node.parent
    statement = node.parent if node is not None else None
    return statement is not None and statement.type == "expression_statement" and statement.named_child_count == 1


# Calls whose string argument is a message for people, not a command line (`print("nvidia-smi not found")`).
_MESSAGE_CALLS = re.compile(rb"(?:\bprint|\bwarn(?:ing)?s?\.warn|\blog(?:ger|ging)?\.\w+|\braise\s+\w+|\b\w*(?:Error|Exception))\s*\(\s*[fFrRbB]?$")


def _in_message(sf: SourceFile, offset: int, in_strings: bool) -> bool:
    """Whether a command-shaped match is only named in a message: a Python print/log/raise argument, or a shell
    echo/printf line. Such text tells a person about the tool; it does not run it."""
    line_start = sf.data.rfind(b"\n", 0, offset) + 1
    before = sf.data[line_start:offset]
    if in_strings:
        quote = max(before.rfind(b'"'), before.rfind(b"'"))
        return quote >= 0 and bool(_MESSAGE_CALLS.search(before[:quote].rstrip()))
    m = re.match(rb"^[ \t]*([A-Za-z_][\w-]*)\b", before)
    return m is not None and (m.group(1) in (b"echo", b"printf") or m.group(1) in _message_functions(sf))


# A shell function definition's first line (`log () {`, `function warn {`) and the commands a body may hold and still
# only print: echo/printf (to the terminal or appended to a log file), `[`-tests around them, local variables, return
# and exit. A test that runs a program (`if nvidia-smi ...; then`) is not one of them.
_SHELL_FUNCTION = re.compile(rb"(?m)^[ \t]*(?:function[ \t]+)?([A-Za-z_][\w-]*)[ \t]*(?:\(\)[ \t]*)?\{[ \t]*$")
_PRINTING_WORDS = frozenset({b"echo", b"printf", b"local", b"return", b"exit", b"then", b"else", b"fi", b":", b"true"})
_TESTING_WORDS = frozenset({b"if", b"elif"})


def _only_prints(line: bytes) -> bool:
    """Whether one stripped line of a shell function body prints, or tests with `[`/`test` around printing."""
    words = line.replace(b";", b" ; ").split()
    if not words or words[0].startswith(b"#"):
        return True
    if words[0] in _PRINTING_WORDS:
        return True
    return words[0] in _TESTING_WORDS and len(words) > 1 and (words[1].startswith(b"[") or words[1] == b"test")


def _message_functions(sf: SourceFile) -> frozenset[bytes]:
    """The shell functions the file defines whose body only prints (ParaFROST's `log () { if [ $quiet = 0 ]; then
    printf ... "$1"; fi }`): a line calling one passes it a message, as a line of echo does. A function's body runs
    from its `{` line to the first line that is a lone `}`; a function read to the end of the file is none."""
    found = sf.cache.get("library.message_functions")
    if found is None:
        out = set()
        if sf.language == "shell" and b"{" in sf.data:
            lines = sf.data.split(b"\n")
            for m in _SHELL_FUNCTION.finditer(sf.data):
                first = sf.data.count(b"\n", 0, m.start()) + 1
                body = []
                for line in lines[first:]:
                    if line.strip() == b"}":
                        break
                    body.append(line.strip())
                else:
                    continue
                if any(body) and all(_only_prints(b) for b in body):
                    out.add(m.group(1))
        found = sf.cache["library.message_functions"] = frozenset(out)
    return found

