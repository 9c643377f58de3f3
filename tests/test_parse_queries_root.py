"""porter.source.parse_queries: a whole file's root is told from its subtrees without asking every root for its
parent (tree-sitter finds a parent by a search from the root), and both get the captures they got before."""
from __future__ import annotations

from porter.source import parse_queries as pq
from porter.source.parse_queries import _captures, captures, parser_for, query

SRC = b"__global__ void k(int* p) { p[0] = 1; }\nint main() { k<<<1, 1>>>(0); return 0; }\n"
CALLS = "(call_expression) @c"


def test_roots_and_subtrees_are_told_apart():
    a = parser_for("cuda").parse(SRC).root_node
    b = parser_for("cuda").parse(SRC + b"int x;\n").root_node
    py = parser_for("python").parse(b"def f():\n    return 1\n").root_node
    main = a.children[1]
    assert main.type == "function_definition"
    assert pq._is_root("cuda", a) and pq._is_root("cuda", b) and pq._is_root("python", py)
    captures("cuda", CALLS, a)  # a becomes the memo's root
    assert pq._ROOT_MEMO["root"] == a
    assert pq._is_root("cuda", a) and pq._is_root("cuda", b)
    assert not pq._is_root("cuda", main) and not pq._is_root("cuda", main.children[-1])
    assert not pq._is_root("python", py.children[0])


def test_a_root_and_a_subtree_get_the_captures_of_the_query_alone():
    root = parser_for("cuda").parse(SRC).root_node
    main = root.children[1]
    alone = _captures(query("cuda", CALLS), root)
    got = captures("cuda", CALLS, root)
    assert [n.id for n in got["c"]] == [n.id for n in alone["c"]] and len(got["c"]) == 1
    assert [n.text for n in captures("cuda", CALLS, main)["c"]] == [b"k<<<1, 1>>>(0)"]
    assert captures("cuda", CALLS, root.children[0]) == {}


def test_a_root_that_is_an_error_node_is_a_root():
    """A file nothing of which parses as a translation unit has an ERROR root (9 of FasterTransformer's C++ files,
    e.g. statements outside any function around a `#endif`): it is still a root, run with the combined whole-file
    query, and an ERROR node inside a tree is not."""
    src = b"#ifdef X\nif (a) {\n}\nelse {\n#endif X\nif (b) {\nint c = 0;\nif (d) {\ng<h*>(i)\n"
    root = parser_for("cuda").parse(src).root_node
    assert root.type == "ERROR"
    assert pq._is_root("cuda", root)
    captures("cuda", CALLS, root)
    assert pq._ROOT_MEMO["root"] == root  # the memo's root: run with the combined query
    inner = parser_for("cuda").parse(b"int f() { return ) ; }\n").root_node
    errors = [n for n in _captures(query("cuda", "(ERROR) @e"), inner).get("e", [])]
    assert inner.type == "translation_unit" and errors
    assert not any(pq._is_root("cuda", n) for n in errors)
