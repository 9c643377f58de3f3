"""Tree-sitter for porter (porter.source.parse): the grammars, one parser per thread, compiled queries, and the
whole-file queries that run together as one (`captures`, `descendants`)."""
from __future__ import annotations

import functools
import operator
import re
import threading

import tree_sitter as ts


@functools.lru_cache(maxsize=None)
def language(name: str) -> ts.Language:
    """The tree-sitter grammar for a porter language name (cuda or python)."""
    if name == "cuda":
        import tree_sitter_cuda

        return ts.Language(tree_sitter_cuda.language())
    if name == "python":
        import tree_sitter_python

        return ts.Language(tree_sitter_python.language())
    raise ValueError(f"no tree-sitter grammar for {name!r}")


_PARSERS = threading.local()


def parser_for(name: str) -> ts.Parser:
    """This thread's parser for a language, made once: a parser per file costs ~2% of the parse itself."""
    parser = getattr(_PARSERS, name, None)
    if parser is None:
        parser = ts.Parser(language(name))
        setattr(_PARSERS, name, parser)
    return parser


# tree-sitter's own limits are not used: a parse's progress callback (which can cancel it) works only with a read
# callback as the source, and the trees parsed that way made a cold cuda-samples scan ~35% slower (1.2 of 3.5 CPU-s,
# measured); a QueryCursor cancelled by its progress callback segfaults with py-tree-sitter 0.26.1 (measured on 50k
# guarded #defines). The parser worker's clock and memory cap (porter.budget) bound both instead.


def _captures(q: ts.Query, node: ts.Node) -> dict[str, list[ts.Node]]:
    """A query's captures under `node` (one place runs every query: see the note on tree-sitter's limits above),
    each name's nodes in tree order (start, then the longer first). tree-sitter lists them as their matches
    complete, and when a match completes depends on the other patterns of the query: the same file gave its
    strings in another order alone than inside the combined whole-file query, and the combined query's parts depend
    on which modules a worker had imported, so a caller keeping the first of two equal hits on a line (the Python
    link strings) answered differently with --jobs 1 and --jobs 2."""
    caps = ts.QueryCursor(q).captures(node)
    for nodes in caps.values():
        if len(nodes) > 1:
            # (start, -end) as two stable sorts by attrgetter keys: the same order (equal spans keep theirs) without
            # a Python key function and tuple per node (0.054 -> 0.038 CPU-s over cuda-samples' 114k captures)
            nodes.sort(key=_END, reverse=True)
            nodes.sort(key=_START)
    return caps


_START, _END = operator.attrgetter("start_byte"), operator.attrgetter("end_byte")


@functools.lru_cache(maxsize=None)
def query(lang: str, source: str) -> ts.Query:
    """A compiled tree-sitter query, cached per process (compiling costs far more than running)."""
    return ts.Query(language(lang), source)


# The captures of queries run on one tree's root, kept while that tree is the latest one asked about. Several
# rules and matchers ask the same question of a file (its imports, calls, keyword arguments); running a query
# costs about as much as parsing, so it runs once per file. Holding the root keeps its tree alive, so a node id
# in the key can never be a freed tree's.
_ROOT_MEMO: dict = {"root": None, "caps": {}}


# Queries that almost every file of a language is asked, run together as one query (one walk of the tree instead
# of one per query: 3.5x less query time on cuda-samples; the same captures, in tree order: _captures). Each module
# registers the queries it runs on whole files; see register_root_query.
_ROOT_QUERIES: dict[str, list[str]] = {}
# A capture name (`@name`), read past the query's string literals (a predicate's regex may hold an `@`) and its
# `;` comments, which are kept as they are.
_CAPTURE_NAME = re.compile(r'"(?:\\.|[^"\\])*"|;[^\n]*|@([A-Za-z_][\w.\-]*)')


def register_root_query(lang: str, source: str) -> str:
    """Declare `source` as a query run on whole `lang` files, so `captures` runs it with the others; returns it."""
    if source not in _ROOT_QUERIES.setdefault(lang, []):
        _ROOT_QUERIES[lang].append(source)
    return source


def warm_queries(lang: str) -> None:
    """Compile `lang`'s combined whole-file query now (no parse): a process that forks parser workers does it once
    for all of them, instead of each worker compiling it again for its first file (~0.2 s)."""
    sources = tuple(_ROOT_QUERIES.get(lang, ()))
    if sources:
        try:
            query(lang, _combined(lang, sources))
        except Exception:  # noqa: BLE001 - as in captures: then each query is compiled where it runs
            pass


def registered_root_queries(lang: str) -> tuple[str, ...]:
    """The whole-file queries of `lang` that run together (for tests and tools)."""
    return tuple(_ROOT_QUERIES.get(lang, ()))


@functools.lru_cache(maxsize=64)
def _combined(lang: str, sources: tuple[str, ...]) -> str:
    """One query of all `sources`, each one's captures renamed `q<i>__<name>` so the results split back exactly."""
    def renamed(i: int, source: str) -> str:
        return _CAPTURE_NAME.sub(lambda m: f"@q{i}__{m.group(1)}" if m.group(1) else str(m.group()), source)

    return "\n".join(renamed(i, s) for i, s in enumerate(sources))


# The types a root node has: the language's start symbol, or ERROR when nothing of the file parses as one (9 of
# FasterTransformer's 762 C++ files). A node is a whole file's root when it has no parent, but tree-sitter keeps no
# parent pointers: `node.parent` looks for the node among the root's children, one by one (a file's root is asked a
# dozen times, 2,716 times in a cuda-samples scan: ~1.5% of it). So the root last queried (_ROOT_MEMO's) is known
# by identity, and only a new node of a root's type is asked for its parent. (A root of any other type would be
# queried alone, with the same captures as in the combined query: slower, never different.)
_ROOT_TYPES = {"cuda": ("translation_unit", "ERROR"), "python": ("module", "ERROR")}


def _is_root(lang: str, node: ts.Node) -> bool:
    root = _ROOT_MEMO["root"]
    if root is not None and root == node and root.id == node.id:
        return True
    return node.type in _ROOT_TYPES.get(lang, ()) and node.parent is None


def captures(lang: str, source: str, node: ts.Node) -> dict[str, list[ts.Node]]:
    """{capture name: nodes} of a query under `node` (a fresh dict of fresh lists: callers may change them)."""
    if not _is_root(lang, node):
        return _captures(query(lang, source), node)
    if _ROOT_MEMO["root"] is None or _ROOT_MEMO["root"] != node or _ROOT_MEMO["root"].id != node.id:
        _ROOT_MEMO["root"], _ROOT_MEMO["caps"] = node, {}
    memo = _ROOT_MEMO["caps"]
    key = (lang, source)
    if key not in memo:
        sources = tuple(_ROOT_QUERIES.get(lang, ()))
        try:
            combined = query(lang, _combined(lang, sources)) if source in sources else None
        except Exception:  # noqa: BLE001 - never expected (each part compiles alone); then each runs alone
            combined = None
        if combined is not None:
            caps = _captures(combined, node)
            split: list[dict] = [{} for _ in sources]
            for k, v in caps.items():  # `q<i>__<name>`: one pass over the captures, not one per query
                i, _, name = k.partition("__")
                split[int(i[1:])][name] = v
            for s, found in zip(sources, split):
                memo[(lang, s)] = found
        else:
            memo[key] = _captures(query(lang, source), node)
    return {k: list(v) for k, v in memo[key].items()}


def descendants(node: ts.Node | None, types: tuple[str, ...], lang: str = "cuda", vocabulary: tuple[str, ...] = (),
                memo: dict | None = None) -> list[ts.Node]:
    """`node` and the nodes under it whose type is one of `types`, in pre-order (a parent before its children,
    siblings in order), found by a tree-sitter query instead of a walk in Python.

    The query returns the right nodes but not in tree order, so they are sorted by (start, -end). That is the
    pre-order exactly unless two captured nodes share a span or one is empty (a MISSING token); then the tree is
    walked in Python instead, so the order never differs from a plain walk.

    Compiling a query costs ~15 ms whatever its size, so a caller that asks about many type sets passes one
    `vocabulary` (a superset of every `types`) and a per-file `memo`: each node is then queried once.
    """
    if node is None:
        return []
    if vocabulary:
        key = node.id
        caps = memo.get(key) if memo is not None else None
        if caps is None:
            caps = _captures(query(lang, " ".join(f"({t}) @{t}" for t in vocabulary)), node)
            if memo is not None:
                memo[key] = caps
        found = [n for t in types for n in caps.get(t, ())]
    elif _is_root(lang, node):  # a whole file: run with the other whole-file queries when registered (below)
        found = captures(lang, descendants_query(types), node).get("n", [])
    else:
        found = _captures(query(lang, descendants_query(types)), node).get("n", [])
    if len(found) < 2:
        return found
    keys = [(n.start_byte, -n.end_byte) for n in found]
    order = sorted(range(len(found)), key=keys.__getitem__)
    prev = None
    for i in order:
        k = keys[i]
        if k == prev or k[0] == -k[1]:
            return walk_descendants(node, frozenset(types))
        prev = k
    return [found[i] for i in order]


def descendants_query(types: tuple[str, ...]) -> str:
    """The query `descendants` runs for `types`."""
    return "[" + " ".join(f"({t})" for t in types) + "] @n"


def register_root_descendants(lang: str, types: tuple[str, ...]) -> None:
    """Declare that whole `lang` files are asked `descendants(root, types)`: the walk then joins the combined
    whole-file query (see register_root_query) instead of walking the tree once more."""
    register_root_query(lang, descendants_query(types))


def walk_descendants(node: ts.Node, types: frozenset[str]) -> list[ts.Node]:
    """`node` and the nodes under it whose type is in `types`, in pre-order, by walking the subtree in Python
    (cheaper than a query for a small subtree)."""
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in types:
            out.append(n)
        stack.extend(reversed(n.children))
    return out
