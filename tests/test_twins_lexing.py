"""Whole-file regexes tried only where their opening word is written (parse_input.word_matches, line_matches):
twins' class heads and forward declarations, wave-size constants. The same matches as the plain whole-file search,
on random declarations."""
from __future__ import annotations

import random

from porter.portaware import twins
from porter.source.parse_input import word_matches


def _plain_forward(data: bytes) -> tuple[tuple[int, str], ...]:
    if b";" not in data:
        return ()
    return tuple((data.count(b"\n", 0, m.start(1)) + 1, m.group(1).decode("ascii", "replace"))
                 for m in twins._FORWARD().finditer(data))


def test_class_heads_and_forward_declarations_match_the_whole_file_search():
    rng = random.Random(13)
    pieces = [b"class", b"struct", b" ", b"\n", b"A", b"Cuda", b";", b"{", b":", b"::", b"final", b"(", b")", b"x",
              b"_", b"alignas(8)", b"[[a]]", b"\t", b"}", b"CUDA_X", b"subclass", b"structs", b"\n  struct cuX;",
              b"\tclass B ;\n", b"struct Cuda {", b"class CudaY : Z {"]
    heads = forwards = 0
    for _ in range(5000):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        plain = [m.span() for m in twins._CLASS_HEAD().finditer(data)]
        assert [m.span() for m in word_matches(twins._CLASS_HEAD(), data, (b"class", b"struct"))] == plain
        assert twins.forward_declarations(data) == _plain_forward(data)
        heads += len(plain)
        forwards += len(_plain_forward(data))
    assert (heads, forwards) == (4889, 4266)  # a fixed seed: both kinds were found often


def test_a_cuda_class_and_a_forward_declaration_are_read():
    data = b"namespace a {\nstruct cublasContext;\n  class CudaExecutor final : public Executor {\n  int x;\n};\n}\n"
    assert twins.forward_declarations(data) == ((2, "cublasContext"),)
    assert twins.class_spans(data) == (("CudaExecutor", 3, 5),)


def test_wave_constant_declarations_read_where_const_or_static_is_written_match_the_whole_file_search():
    from porter.match.kinds.arms import _CONSTANT_DECL

    rng = random.Random(27)
    pieces = [b"const", b"constexpr", b"static", b" ", b"\n", b"int", b"unsigned", b"auto", b"kWarpSize", b"=", b"{",
              b"}", b"64", b"32u", b";", b"x", b"_", b"\tstatic const int W = 64;\n", b"constexpr int k = 32;"]
    found = 0
    for _ in range(5000):
        code = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        plain = [m.span() for m in _CONSTANT_DECL.finditer(code)]
        assert [m.span() for m in word_matches(_CONSTANT_DECL, code, (b"const", b"static"))] == plain
        found += len(plain)
    assert found == 5712  # a fixed seed: many declarations were compared
