"""A C/C++/CUDA file's comments are lexed once per scan: the repository-facts worker's lex (for the directives)
is handed to the scan's parse of the same bytes (porter.pipeline.Held.spans, porter.source.parse comment_spans)."""
from __future__ import annotations

from pathlib import Path

from porter import pipeline
from porter.settings import Settings
from porter.source import preprocessor
from porter.source.parse import parse

# An #if group whose arms split braces (the parse's pass for braces blanks the second arm), comments holding braces
# and directives, and a raw string: what the comment spans decide.
KERNEL = b"""// a comment with { and #if 0
#include <cuda_runtime.h>
/* block { comment
#endif */
__global__ void k(float* x, int n) {
#if FAST
  if (n > 0 && x) {
#else
  if (n > 0) {
#endif
    x[threadIdx.x] = 1.0f;  // }
  }
  const char* s = R"(#if 1 { )";
}
"""
HEADER = b"""#pragma once
// helpers
__device__ inline int twice(int v) { return 2 * v; }  /* } */
"""


def test_each_cuda_file_is_lexed_once_per_scan(tmp_path: Path, monkeypatch) -> None:
    tree = tmp_path / "repo"
    tree.mkdir()
    (tree / "k.cu").write_bytes(KERNEL)
    (tree / "h.cuh").write_bytes(HEADER)
    (tree / "plain.cu").write_bytes(b"__global__ void p() {}\n")  # no `#`: no directive to lex, no comment pass
    log = tmp_path / "lexed.log"  # the facts and scan workers are forked processes: they count in a file
    real = preprocessor._comment_spans

    def counted(data: bytes):
        with open(log, "a") as f:
            f.write(f"{len(data)}\n")
        return real(data)

    monkeypatch.setattr(preprocessor, "_comment_spans", counted)
    result = pipeline.scan(tree, Settings(jobs=1, cache_dir=None))
    assert sorted(int(n) for n in log.read_text().split()) == sorted([len(KERNEL), len(HEADER)])
    assert [k.name for k in result.kernels] == ["k", "p"]


def test_a_parse_given_the_comment_spans_is_the_parse_without_them() -> None:
    spans = preprocessor.comment_spans(KERNEL)
    assert spans is not None
    assert list(spans) == [offset for span in preprocessor._comment_spans(KERNEL) for offset in span]
    assert list(spans[:4]) == [0, KERNEL.index(b"\n"), KERNEL.index(b"/* block"), KERNEL.index(b"#endif */") + 9]
    preprocessor.known_comment_spans(b"", ())  # forget them: the plain parse lexes on its own
    plain = parse("k.cu", "cuda", KERNEL)
    given = parse("k.cu", "cuda", KERNEL, comment_spans=spans)
    assert given.code == plain.code
    assert given.comment_spans == plain.comment_spans
    assert str(given.tree.root_node) == str(plain.tree.root_node)
    assert [(f.name, f.start_byte, f.end_byte) for f in given.functions] == \
        [(f.name, f.start_byte, f.end_byte) for f in plain.functions] == \
        [("k", KERNEL.index(b"__global__"), KERNEL.rindex(b"}") + 1)]


def test_comment_spans_denser_than_the_bound_are_not_handed_on() -> None:
    """A file of nothing but short comments would make the scan's process hold its spans at several times the
    file's size: past one span per MAX_SPAN_DENSITY bytes none are handed on (the scan lexes the file itself)."""
    sparse = b"#if X\n" + b"int a; // one comment here, a long way from the next\n" * 4 + b"#endif\n"
    dense = b"#if X\n" + b"//\n" * 400 + b"#endif\n"
    assert len(preprocessor.comment_spans(sparse)) == 8
    assert preprocessor.comment_spans(dense) is None
    assert preprocessor.directives(dense) == [preprocessor.Directive(1, 1, "if", "X"),
                                              preprocessor.Directive(402, 402, "endif", "")]
