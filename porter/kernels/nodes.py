"""The nodes of a parsed CUDA file that kernel analysis reads, by type and in tree order, from the whole-file query.

Kernel analysis asks, for each kernel, device function and launching host function, for the nodes of a few types
under its body (declarations, calls, binary expressions, subscripts, assignments, ...). Those types are registered
with the whole-file queries (porter.source.parse_queries.register_root_query), so they come out of the one query every
CUDA file runs anyway instead of one more query per body; a body's nodes of a type are then a slice, by byte range,
of the file's nodes of that type kept in pre-order. Only the types asked for are ordered.

`NodeIndex(root).under(node, types)` returns what `porter.source.parse_queries.descendants(node, types)` returns: `node`
and the nodes under it of those types, in pre-order. Where (start, -end) order could differ from pre-order (two
nodes with one span, an empty node) the subtree is walked instead, as descendants does.

Registered here, in a module imported with the pipeline, because a whole-file query registered after the first
file was parsed makes the combined query compile again.
"""
from __future__ import annotations

import bisect
import itertools
import operator

import tree_sitter as ts

from porter.source.parse_queries import captures, register_root_query, walk_descendants

INDEXED = ("declaration", "call_expression", "gnu_asm_expression", "binary_expression", "for_statement",
           "subscript_expression", "array_declarator", "assignment_expression", "update_expression",
           "pointer_expression", "init_declarator",
           # a function's own declared names (porter.kernels.facts: FileContext._local_names)
           "parameter_declaration", "optional_parameter_declaration", "for_range_loop", "condition_clause",
           "lambda_expression",
           # a detector's type (porter.kernels.facts_detectors: restrict_on_value): one not indexed here made every
           # function body's walk (FileContext._walk) a Python walk of the whole body for it, ~7% of a cuda-samples scan
           "field_declaration",
           # facts_detectors.warp_sync_shared's type (warp-synchronous reduction tails)
           "if_statement",
           # facts_detectors.macro_statements' type (a bare-name statement, `cp_async_wait_all;`, is a macro's use).
           # Every statement is captured, as `under` must equal a walk for any caller (~0.4 us a statement)
           "expression_statement")
_QUERY = register_root_query("cuda", " ".join(f"({t}) @{t}" for t in INDEXED if t != "call_expression"))
# The very query porter.source.syntax registers for the file's calls: one source, so the combined query captures
# every call once for both (each capture is a node object made; ~0.4 us apiece).
_CALLS = register_root_query("cuda", "(call_expression) @c")
_START = operator.attrgetter("start_byte")
_END = operator.attrgetter("end_byte")


class NodeIndex:
    """A file's nodes of the INDEXED types (from the tree's root), for `under`."""

    def __init__(self, root: ts.Node | None):
        self._caps = captures("cuda", _QUERY, root) if root is not None else {}
        self._has_error = root is not None and root.has_error
        if root is not None:
            self._caps["call_expression"] = captures("cuda", _CALLS, root).get("c", [])
        self._ordered: dict[str, tuple[list[ts.Node], list[int]] | None] = {}

    def under(self, node: ts.Node | None, types: tuple[str, ...]) -> list[ts.Node]:
        """`node` and the nodes under it whose type is one of `types`, in pre-order."""
        if node is None:
            return []
        start, end = node.start_byte, node.end_byte
        if start == end:
            return walk(node, types)
        found: list[ts.Node] = []
        for t in types:
            entry = self._of_type(t)
            if entry is None:
                return walk(node, types)
            nodes, starts = entry
            i = bisect.bisect_left(starts, start)
            j = bisect.bisect_left(starts, end, i)
            # Nodes are nested or apart, so one starting inside `node` is under it, but one starting where it does
            # may be an ancestor (it ends later; pre-order puts it first) or share its span.
            while i < j and starts[i] == start and nodes[i].end_byte >= end:
                if nodes[i].end_byte == end:
                    if nodes[i] != node:
                        return walk(node, types)
                    break
                i += 1
            if len(types) == 1:
                return nodes[i:j]
            found.extend(nodes[i:j])
        if len(found) < 2:
            return found
        keys = [(n.start_byte, -n.end_byte) for n in found]
        order = sorted(range(len(found)), key=keys.__getitem__)
        for a, b in zip(order, order[1:]):
            if keys[a] == keys[b]:
                return walk(node, types)
        return [found[i] for i in order]

    def _of_type(self, t: str) -> tuple[list[ts.Node], list[int]] | None:
        """The file's nodes of type `t` in pre-order and their start bytes; None when (start, -end) order is not
        pre-order for them (two share a span or one is empty) or `t` is not indexed."""
        if t in self._ordered:
            return self._ordered[t]
        entry = pre_order(self._caps.get(t, []), self._has_error) if t in INDEXED else None
        self._ordered[t] = entry
        return entry


def pre_order(nodes: list[ts.Node], has_error: bool) -> tuple[list[ts.Node], list[int]] | None:
    """Nodes of one tree (a query's captures, in no useful order) in pre-order, with their start bytes; None when
    (start, -end) order is not pre-order for them (two share a span, or one is empty). `has_error`: the tree's
    root has a syntax error; only then can a node of a type that always holds a token be empty (all MISSING).

    Ordered by start, then each run of nodes that start together (nested ones: `a + b + c`) by end, outermost
    first: a node's end costs twice its start to read, so only runs read it (and, for emptiness, a tree with an
    error). map/sorted keep the per-node work in C: a file has thousands of these nodes."""
    ordered = sorted(nodes, key=_START)  # stable: nodes starting together keep their order, as before
    ordered_starts = list(map(_START, ordered))
    if has_error and any(map(operator.eq, ordered_starts, map(_END, ordered))):
        return None
    # Where the next node starts at the same byte: the runs to order by end.
    tied = list(itertools.compress(itertools.count(), map(operator.eq, ordered_starts,
                                                          itertools.islice(ordered_starts, 1, None))))
    k = 0
    while k < len(tied):
        i = j = tied[k]
        while k < len(tied) and tied[k] == j:
            k += 1
            j += 1
        if j == i + 1:  # two (most runs): no sort needed
            a, b = ordered[i], ordered[j]
            ea, eb = a.end_byte, b.end_byte
            if ea == eb:  # two with one span
                return None
            if ea < eb:
                ordered[i], ordered[j] = b, a
            continue
        run = sorted(ordered[i:j + 1], key=_END, reverse=True)
        ends = list(map(_END, run))
        if any(map(operator.eq, ends, ends[1:])):
            return None
        ordered[i:j + 1] = run
    return ordered, ordered_starts


def walk(node: ts.Node | None, types: tuple[str, ...]) -> list[ts.Node]:
    """`node` and the nodes under it whose type is one of `types`, in pre-order, by walking the subtree (for small
    subtrees, and where the index cannot say)."""
    return [] if node is None else walk_descendants(node, frozenset(types))
