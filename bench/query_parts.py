"""What each part of the combined whole-file tree-sitter query costs over a corpus's C/C++/CUDA files.

Usage:
    python bench/query_parts.py CORPUS

porter runs the whole-file queries of every module as one query (porter.source.parse_queries.captures). This parses
every C/C++/CUDA file of CORPUS once, then times (CPU, best of two) the combined query, a one-pattern query (the
cursor's walk of the tree alone), each registered part alone, and the combined query without each of the eight
dearest parts: whether one part costs more than its captures. Nothing here is a test: numbers go into notes
(bench/issue26-speed.md).
"""
from __future__ import annotations

import os
import sys
import time

import tree_sitter as ts

SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c", ".cxx", ".hh", ".inl", ".cuinc")


def main() -> None:
    import porter.kernels.facts  # noqa: F401 - registers the kernel vocabulary's part
    import porter.pipeline  # noqa: F401
    from porter.match.engine import prepare_rules
    from porter.rules import load_rules
    from porter.source import parse_queries as pq

    prepare_rules(load_rules().rules)  # the rules' whole-file queries register here
    files = [os.path.join(d, f) for d, _, names in os.walk(sys.argv[1]) for f in names if f.endswith(SUFFIXES)]
    parser = pq.parser_for("cuda")
    trees = []
    for path in files:
        with open(path, "rb") as fh:
            trees.append(parser.parse(fh.read()))
    sources = pq.registered_root_queries("cuda")

    def run(query: ts.Query) -> tuple[float, int]:
        best, count = float("inf"), 0
        for _ in range(2):
            start, count = time.process_time(), 0
            for tree in trees:
                count += sum(len(v) for v in ts.QueryCursor(query).captures(tree.root_node).values())
            best = min(best, time.process_time() - start)
        return best, count

    print(f"{len(files)} files, {len(sources)} parts")
    print("combined %.3f CPU-s, %d captures" % run(pq.query("cuda", pq._combined("cuda", sources))))
    print("one pattern (the walk) %.3f CPU-s, %d captures" % run(pq.query("cuda", "(ERROR) @e")))
    alone = sorted(((*run(pq.query("cuda", s)), i, s) for i, s in enumerate(sources)), reverse=True)
    for t, n, i, s in alone:
        print(f"q{i} alone {t:.3f} CPU-s, {n} captures: {' '.join(s.split())[:100]}")
    for _, _, i, _ in alone[:8]:
        rest = tuple(s for j, s in enumerate(sources) if j != i)
        print("combined without q%d %.3f CPU-s, %d captures" % ((i,) + run(pq.query("cuda", pq._combined("cuda", rest)))))


if __name__ == "__main__":
    main()
