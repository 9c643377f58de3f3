"""Work a scan does once and reuses (issue 16): a file's tokens, the port-status facts taken from the scan's own read
and parse, the scan's file listing, the repository facts kept in the cache, and the cache codec's fast paths. Each
test pins that the reused answer is exactly the one computed the long way."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from helpers import REPO

DUAL = REPO / "fixtures" / "repos" / "dual-app"


def _regex_tokens(code: bytes) -> dict[bytes, list[int]]:
    ident = re.compile(rb"(?<![A-Za-z0-9_$\x80-\xff])[A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*")
    out: dict[bytes, list[int]] = {}
    for m in ident.finditer(code):
        out.setdefault(m.group(), []).append(m.start())
    return out


def test_tokens_are_the_identifier_runs_in_first_occurrence_order_with_exact_offsets():
    from porter.source.parse import parse

    code = b"int a1 = 0x1f + 9abc; a1 = a1b + a1;\n\xc3\xa9t = _x\n"
    toks = parse("t.cu", "cuda", code).tokens()
    assert list(toks) == [b"int", b"a1", b"a1b", b"\xc3\xa9t", b"_x"]  # no `x1f`, no `abc`
    assert toks[b"a1"] == [4, 22, 33]
    assert toks.get(b"a1b") == [27] and toks.get(b"abc") is None and toks.get(b"nope", ()) == ()
    assert b"int" in toks and b"x1f" not in toks
    assert dict(toks.items()) == _regex_tokens(code)


def test_a_dollar_in_code_takes_the_regex_path_with_the_same_answer():
    from porter.source.parse import parse

    code = b"a$b = c; $d = a;\n"
    toks = parse("t.cu", "cuda", code).tokens()
    assert dict(toks) == {b"a": [0, 14], b"c": [6]} == _regex_tokens(code)


def test_tokens_match_the_regex_on_every_fixture_file():
    from porter.source.parse import parse

    files = [p for p in (REPO / "fixtures").rglob("*") if p.suffix in (".cu", ".cuh", ".cpp", ".h", ".py")]
    assert len(files) > 20
    for p in files:
        sf = parse(p.name, "python" if p.suffix == ".py" else "cuda", p.read_bytes())
        want = _regex_tokens(sf.code)
        toks = sf.tokens()
        assert list(toks) == list(want), p
        assert {t: toks[t] for t in toks} == want, p


def test_parses_alike_only_when_no_repository_macro_is_used():
    from porter.source.parse_input import parses_alike

    macros = {"MY_KERNEL": "__global__", "MY_DEV": "__device__ inline"}
    assert parses_alike(b"__global__ void k() {}\n", macros)
    assert parses_alike(b"MY_KERNEL void k() {}\n", {})
    assert not parses_alike(b"MY_KERNEL void k() {}\n", macros)
    assert not parses_alike(b"MY_DEV float f() { return 1; }\n", macros)
    # the repository's own copy of a library macro, defined as the library does: the same bytes reach the parser
    assert parses_alike(b"CUTLASS_DEVICE int f() { return 1; }\n", {"CUTLASS_DEVICE": "__forceinline__ __device__"})
    assert not parses_alike(b"CUTLASS_DEVICE int f() { return 1; }\n", {"CUTLASS_DEVICE": "__global__"})


def test_a_vendor_free_file_has_no_one_build_region_and_derives_no_name():
    from porter.source import preprocessor as macros

    code = b"#ifndef G\n#define G\n#if CUDA_VERSION >= 12000 && defined(X)\n#define NEW 1\n#else\nint a;\n#endif\n#endif\n"
    dirs = macros.directives(code)
    names = macros.condition_names(dirs)
    assert names == {"G", "CUDA_VERSION", "defined", "X"}
    assert not macros.builds_differ(names) and macros.builds_differ(names, ("X",)) and macros.builds_differ(names | {"USE_ROCM"})
    assert {r.side for r in macros.evaluate(dirs, 9)} == {"both"}
    assert macros.derived_names({"a.cu": (dirs, 9)}) == (frozenset(), frozenset())
    # with X a ROCm-side name, NEW is defined only where the ROCm build goes
    assert macros.derived_names({"a.cu": (dirs, 9)}, ("X",)) == (frozenset({"X", "NEW"}), frozenset())


def test_the_port_status_stage_reads_no_file_the_scan_took_facts_from(monkeypatch, tmp_path):
    from porter.pipeline import run
    from porter.portaware import status
    from porter.settings import Settings

    want = run(DUAL, Settings(jobs=1)).result
    scanned = {r.path: r.port_facts for r in want.files if r.port_facts is not None}
    assert {"src/common.cu", "src/compat.h", "CMakeLists.txt", "setup.py", "dual/dispatch.py"} <= set(scanned)
    for path, facts in scanned.items():
        r = next(f for f in want.files if f.path == path)
        # The scan adds the text of the lines its findings are on (port status's compat lookup needs no read).
        own = dataclasses.replace(facts, finding_lines=None)
        assert own == status.file_facts(path, r.language, (DUAL / path).read_bytes()), path
        if r.language == "cuda" and r.findings:
            text = (DUAL / path).read_text().split("\n")
            assert facts.finding_lines == tuple(sorted({(f.line, text[f.line - 1]) for f in r.findings})), path
    # The stage runs in a budgeted worker process (porter.budget): each read appends a line to a file.
    log = tmp_path / "read"
    real = status._facts

    def counted(source, c, *a):
        with log.open("a") as f:
            f.write(c.path + "\n")
        return real(source, c, *a)

    monkeypatch.setattr(status, "_facts", counted)
    again = run(DUAL, Settings(jobs=1)).result
    assert not log.exists()  # every file the stage looks at was scanned
    assert [(f.path, f.line, f.rule, f.status, f.handled_by) for f in again.findings] == \
        [(f.path, f.line, f.rule, f.status, f.handled_by) for f in want.findings]


def test_the_port_status_stage_reuses_the_scans_listing_of_the_same_source(monkeypatch):
    from porter.pipeline import run
    from porter.settings import Settings
    from porter.source.read import WorkTree

    calls = []
    real = WorkTree.discover
    monkeypatch.setattr(WorkTree, "discover", lambda self, *a: calls.append(a) or real(self, *a))
    run(DUAL, Settings(jobs=1))
    assert len(calls) == 1


def _dual_tree_counting_harvests(tmp_path, monkeypatch, line):
    """A copy of the DUAL fixture, a fresh cache and its work-tree source and files; facts_of writes `line(data)`
    to a log for each file it lexes (files are harvested in budgeted worker processes: porter.budget), read back by
    the returned function."""
    import shutil

    import porter.pipeline as pipeline
    from porter.source.read import WorkTree

    tree = tmp_path / "repo"
    shutil.copytree(DUAL, tree)
    source = WorkTree(tree)
    log = tmp_path / "harvested"
    real = pipeline.facts_of

    def counted(data):
        with log.open("a") as f:
            f.write(f"{line(data)}\n")
        return real(data)

    def harvested() -> list[str]:
        lines = log.read_text().splitlines() if log.exists() else []
        log.unlink(missing_ok=True)
        return lines

    monkeypatch.setattr(pipeline, "facts_of", counted)
    return tree, source, source.discover().files, _fresh_cache(tmp_path / "cache"), harvested


def test_repository_facts_come_from_one_cache_entry_named_by_the_files_contents(tmp_path, monkeypatch):
    import porter.pipeline as pipeline

    tree, source, files, cache, harvested = _dual_tree_counting_harvests(tmp_path, monkeypatch, len)
    want = pipeline.repository_facts(files, lambda c: pipeline.file_facts(source, c, 1 << 20))
    harvested()
    first = pipeline.cached_repository_facts(files, source, 1 << 20, cache)
    assert first == want and len(harvested()) == sum(1 for c in files if c.language == "cuda")
    assert pipeline.cached_repository_facts(files, source, 1 << 20, cache) == want and harvested() == []
    (tree / "src" / "common.cu").write_text((tree / "src" / "common.cu").read_text() + "#define NEW_ONE 7\n")
    changed = pipeline.cached_repository_facts(files, source, 1 << 20, cache)
    assert harvested() and ("NEW_ONE", 7) in changed.constants and ("NEW_ONE", 7) not in want.constants


def test_the_cache_codec_round_trips_a_scan_and_refuses_an_entry_missing_a_field(tmp_path):
    from porter import cache as codec
    from porter.pipeline import run
    from porter.settings import Settings

    files = run(DUAL, Settings(jobs=1)).result.files
    back = [codec.loads(codec.dumps(f)) for f in files]
    assert back == list(files) and [b.port_facts for b in back] == [f.port_facts for f in files]
    k = next(f for f in files if f.findings).findings[0]
    assert type(codec.loads(codec.dumps(k)).severity) is type(k.severity)
    entry = codec.encode(k)
    entry["a"].pop()
    store = codec.Cache(tmp_path / "c")
    store.check()
    import orjson

    from porter import packfile

    whole = orjson.dumps({"format": codec.FORMAT, "value": codec.encode(k)})
    short = orjson.dumps({"format": codec.FORMAT, "value": entry})
    # Sealed with the installation's secret, as porter writes entries: the codec is what refuses the short one.
    sealed = [(store._name(k), store._tag(store._name(k), raw) + raw)
              for k, raw in (("ab" + "0" * 38, short), ("ab" + "1" * 38, whole))]
    packfile.write(str(tmp_path / "c"), "planted", sealed, store._seal)
    assert store.get("ab" + "1" * 38) == k  # the pack is read: the whole Finding comes back
    assert store.get("ab" + "0" * 38) is None  # a Finding short of a field is a miss, not a half-built Finding
    assert dataclasses.replace(k) == codec.decode(codec.encode(k))


def test_after_one_files_edit_only_that_file_is_lexed_again_for_the_repository_facts(tmp_path, monkeypatch):
    """The whole tree's facts entry misses after an edit, but each unchanged file's own facts entry (named by its
    content) still holds: one file is lexed, and the facts are those of a scan from scratch."""
    import porter.pipeline as pipeline
    from porter.source.read import WorkTree

    tree, source, files, cache, harvested = _dual_tree_counting_harvests(
        tmp_path, monkeypatch, lambda data: data.count(b"NEW_ONE"))
    pipeline.cached_repository_facts(files, source, 1 << 20, cache)
    cache.flush()
    harvested()
    edited = tree / "src" / "common.cu"
    edited.write_text(edited.read_text() + "#define NEW_ONE 7\n")
    got = pipeline.cached_repository_facts(files, source, 1 << 20, _fresh_cache(tmp_path / "cache"))
    assert harvested() == ["1"]  # common.cu alone, with its new line
    assert got == pipeline.repository_facts(files, lambda c: pipeline.file_facts(WorkTree(tree), c, 1 << 20))
    assert ("NEW_ONE", 7) in got.constants


def _fresh_cache(path):
    """A Cache object on `path`, checked (as a new scan's process opens it: nothing pending from the last one)."""
    from porter.cache import Cache

    cache = Cache(path)
    cache.check()
    return cache


def test_a_file_facts_entry_of_another_shape_is_a_miss():
    import porter.pipeline as pipeline
    from porter.source.preprocessor import Directive

    facts = ({"QUAL": "__device__"}, {"N": (4,)}, ((Directive(1, 1, "define", "N 4"),), 3))
    assert pipeline._file_facts_of_entry(pipeline._file_facts_entry(facts)) == facts
    for bad in (None, (), ((), (), (), 0), ((("A", 1),), (), (), 2), ((), (("N", 4),), (), 2),
                ((), (), ((1, 1, "define"),), 2), ((), (), ((1, 1, "define", b"N"),), 2)):
        assert pipeline._file_facts_of_entry(bad) is None
