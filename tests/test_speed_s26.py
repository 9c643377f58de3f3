"""Per-file work a cold scan did over every node or identifier of a file, done only where it can change an answer
(issue 26, session 26). PYT022 (the vendor_variant kind's `twins`) asked every identifier of every Python file that
says `cuda` whether it defines a name (`_defines`: a look at its parent's children and up the tree) although only a
twin of one of the file's own cuda-named definitions can make a call a choice: 1.0 of FasterTransformer's ~9.5
CPU-s of rule matching. Each answer here is the one the old work gave; the tests count the work too."""
from __future__ import annotations

from pathlib import Path

from porter.match.kinds import python as py_kind

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/speed_s26"


def _pyt022(name: str):
    from porter.pipeline import run
    from porter.settings import Settings

    result = run(FIXTURE / name, Settings(jobs=1, cache_dir=None)).result
    return [(f.path, f.line, f.rule, f.message.split("`")[1]) for f in result.findings if f.rule == "PYT022"]


def _pattern() -> dict:
    from porter.rules import load_rules

    rule = load_rules().get("PYT022")
    return next(p for p in rule.patterns if "vendor_variant" in p)


def _matched(name: str) -> list[tuple[int, str]]:
    """PYT022's matcher run here (the scan's workers are forked: a count in them is not this process's)."""
    from porter.source.parse import parse

    sf = parse(name, "python", (FIXTURE / name).read_bytes())
    return [(sf.position(h.start)[0], h.name) for h in py_kind.match_vendor_variant(_pattern(), sf, None)]


def _counting_defines(monkeypatch) -> list[bytes]:
    asked: list[bytes] = []
    real = py_kind._defines
    monkeypatch.setattr(py_kind, "_defines", lambda node: asked.append(node.text) or real(node))
    return asked


def test_a_cuda_twin_call_is_found_and_only_twin_spellings_are_asked_whether_they_define(monkeypatch):
    asked = _counting_defines(monkeypatch)
    assert _matched("twins.py") == [(20, "build_for_cuda")]
    # line 20 calls build_for_cuda beside its twin build_for_rocm; to_cuda and load_cuda_kernels have no twin; the
    # call inside the f-string (line 23) is string content to the identifier walk, as before
    # each cuda-named candidate once (three definitions, their three calls, `x.cuda()`'s attribute), then of the
    # file's other identifiers only the one spelling a twin of an own name: build_for_rocm's definition
    assert sorted(asked) == sorted([b"build_for_cuda", b"to_cuda", b"cuda", b"load_cuda_kernels",
                                    b"build_for_cuda", b"to_cuda", b"load_cuda_kernels", b"build_for_rocm"])
    # the scan's own answer, through its workers
    assert _pyt022("twins.py") == [("twins.py", 20, "PYT022", "build_for_cuda")]


def test_a_file_without_any_twin_asks_only_its_candidates(monkeypatch):
    asked = _counting_defines(monkeypatch)
    assert _matched("no_twins.py") == []
    # the candidates alone (`use_cuda` is a predicate's prefix, not one): no own name has a twin spelled in the
    # file, so no identifier beyond them is asked
    assert sorted(asked) == sorted([b"to_cuda", b"cuda", b"load_cuda_kernels", b"cuda", b"to_cuda",
                                    b"load_cuda_kernels"])
    assert _pyt022("no_twins.py") == []


def test_a_files_identifiers_are_walked_once_for_every_pattern_and_question(monkeypatch):
    from porter.source.parse import parse

    walks = []
    real = py_kind._root_identifiers
    monkeypatch.setattr(py_kind, "_root_identifiers", lambda root: walks.append(root.type) or real(root))
    sf = parse("twins.py", "python", (FIXTURE / "twins.py").read_bytes())
    first = py_kind._file_identifiers(sf)
    assert py_kind._file_identifiers(sf) is first
    assert walks == ["module"]
    # the same (node, text) pairs, in tree order, as a walk of the root; nothing inside the f-string
    assert [(n.start_point.row + 1, text) for n, text in first] == [
        (n.start_point.row + 1, n.text) for n in py_kind._identifiers(sf.root)]
    assert (23, b"build_for_cuda") not in [(n.start_point.row + 1, text) for n, text in first]
    assert [text for n, text in first if n.start_point.row + 1 == 20] == [b"ext", b"build_for_cuda"]


# Identifiers outside strings and comments (lines 1-5), inside an f-string's fields at any depth (line 3, line 4's
# nested f-string), and in a comment (line 5): the walk (`_identifiers`) skips strings whole.
NAMES = (b"import torch\n"                                            # 1
         b"x_cuda = torch.zeros(1)\n"                                 # 2
         b"msg = f\"{x_cuda} on {torch.cuda.get_device_name(0)!r:>{width}}\"\n"   # 3
         b"label = f'{f\"{inner_cuda}\"}' + 'plain_cuda'\n"          # 4
         b"y = build_for_cuda()  # build_for_cuda in a comment\n")   # 5


def test_a_files_identifiers_come_from_one_query_as_the_walk_gave_them(monkeypatch):
    from porter.source.parse import parse

    sf = parse("names.py", "python", NAMES)
    walked = list(py_kind._identifiers(sf.root))
    found = py_kind._root_identifiers(sf.root)
    assert [n.id for n in found] == [n.id for n in walked]
    assert [(n.start_point.row + 1, n.text) for n in found] == [
        (1, b"torch"), (2, b"x_cuda"), (2, b"torch"), (2, b"zeros"), (3, b"msg"), (4, b"label"), (5, b"y"),
        (5, b"build_for_cuda")]
    # no Python step per node: the walk is not asked
    monkeypatch.setattr(py_kind, "_identifiers", lambda root: (_ for _ in ()).throw(AssertionError("walked")))
    assert [n.id for n in py_kind._root_identifiers(sf.root)] == [n.id for n in walked]


def test_a_file_with_a_zero_width_identifier_is_walked():
    from porter.source.parse import parse

    # error recovery inserts a MISSING identifier after `if` (zero width, at byte 8): walked as before
    sf = parse("broken.py", "python", b"a = b if else c\n")
    found = py_kind._root_identifiers(sf.root)
    assert [(n.start_byte, n.end_byte, n.is_missing) for n in found] == [
        (0, 1, False), (4, 5, False), (8, 8, True), (14, 15, False)]
    assert [n.id for n in found] == [n.id for n in py_kind._identifiers(sf.root)]
