"""The token prefilter (porter.match.tokens) skips a pattern only when the file lacks a token it needs."""
from __future__ import annotations

from porter.match.tokens import may_hit
from porter.source.parse import parse

SYNC = {"member_call": {"method": "sync", "types": ["grid_group"], "inits": ["this_grid"]}}


def sf(text: str):
    return parse("k.cu", "cuda", text.encode())


def test_member_call_needs_its_method_and_a_type_or_initialiser_token():
    assert may_hit(SYNC, sf("__global__ void k() { auto g = cg::this_grid(); g.sync(); }"))
    assert may_hit(SYNC, sf("__device__ void f(cg::grid_group& g) { g.sync(); }"))
    assert not may_hit(SYNC, sf("__global__ void k() { auto b = cg::this_thread_block(); b.sync(); }"))
    assert not may_hit(SYNC, sf("__global__ void k() { auto g = cg::this_grid(); g.size(); }"))
    # Words in comments and strings are not code tokens: the matcher could not hit there either.
    assert not may_hit(SYNC, sf('// this_grid().sync()\nconst char* s = "grid_group sync";'))


def test_kinds_without_a_stated_requirement_always_run():
    assert may_hit({"regex": "anything"}, sf("int x;"))
    assert may_hit({"launch": {"kinds": ["chevron"]}}, sf("int x;"))


def test_whole_file_queries_run_together_give_what_each_gives_alone():
    """porter.source.parse_queries.captures runs the registered whole-file queries as one; each caller must see exactly
    the captures (nodes and order) its own query gives run alone, in tree order."""
    import porter.match.kinds.embedded  # noqa: F401 - modules register their whole-file queries on import
    import porter.match.kinds.library  # noqa: F401
    import porter.source.syntax  # noqa: F401
    from porter.source.parse_queries import _captures, query, registered_root_queries

    def in_tree_order(caps) -> bool:
        return all([(n.start_byte, -n.end_byte) for n in v] == sorted((n.start_byte, -n.end_byte) for n in v)
                   for v in caps.values())

    text = ('#include <cuda.h>\nstatic const unsigned char kCubin_sm80[] = {1, 2, 3};\n'
            '__global__ void k(float* p, int n) { int i = f(n); float* q = p; g(q, i); }\n'
            'void h(int); /* c */ const char* s = "x";\n')
    f = sf(text)
    from porter.source.parse_queries import captures

    sources = registered_root_queries("cuda")
    assert len(sources) >= 6
    for source in sources:
        alone = _captures(query("cuda", source), f.root)
        together = captures("cuda", source, f.root)
        assert {k: [(n.start_byte, n.end_byte) for n in v] for k, v in together.items()} == \
               {k: [(n.start_byte, n.end_byte) for n in v] for k, v in alone.items()}
        assert in_tree_order(together)
    py = parse("setup.py", "python", b"import os, torch.cuda as tc\nfrom numba import cuda\n"
               b"setup(libraries=['cublas', x], name='-lcurand')\nlib = CDLL('libnccl.so.2')\n")
    sources = registered_root_queries("python")
    assert porter.match.kinds.library._KEYWORDS in sources and porter.match.kinds.library._STRINGS in sources
    for source in sources:
        alone = _captures(query("python", source), py.root)
        together = captures("python", source, py.root)
        assert {k: [(n.start_byte, n.end_byte) for n in v] for k, v in together.items()} == \
               {k: [(n.start_byte, n.end_byte) for n in v] for k, v in alone.items()}
        assert in_tree_order(together)


def test_queries_with_strings_and_predicates_join_the_combined_query():
    """A whole-file query whose predicate strings hold `@` or `;` (API008's `#match?`) runs inside the combined
    query: its captures are renamed, its strings and `;` comments are not, and it gives what it gives alone."""
    from porter.source import parse_queries
    from porter.source.parse_queries import _combined, captures, query, register_root_query, registered_root_queries

    source = ('; a comment with @c and "\n(call_expression function: (identifier) @f arguments: (argument_list '
              '(identifier) @hit) (#match? @f "^cublas(Gemm)?Ex$") (#not-match? @hit "@x;y")) @call')
    f = sf("void h() { cublasGemmEx(a, CUDA_R_32F); cublasFoo(b); cublasEx(c); }\n")
    alone = parse_queries._captures(query("cuda", source), f.root)
    register_root_query("cuda", source)
    try:
        sources = registered_root_queries("cuda")
        i = sources.index(source)
        assert (f'; a comment with @c and "\n(call_expression function: (identifier) @q{i}__f arguments: '
                f'(argument_list (identifier) @q{i}__hit) (#match? @q{i}__f "^cublas(Gemm)?Ex$") '
                f'(#not-match? @q{i}__hit "@x;y")) @q{i}__call') in _combined("cuda", sources)
        together = captures("cuda", source, f.root)
    finally:
        parse_queries._ROOT_QUERIES["cuda"].remove(source)  # the other tests' combined query stays as it was
    assert {k: [n.text for n in v] for k, v in together.items()} == {k: [n.text for n in v] for k, v in alone.items()}
    assert {k: [n.text for n in v] for k, v in together.items()} == \
           {"f": [b"cublasGemmEx", b"cublasEx"], "hit": [b"a", b"CUDA_R_32F", b"c"],
            "call": [b"cublasGemmEx(a, CUDA_R_32F)", b"cublasEx(c)"]}


def test_captures_come_in_tree_order_whatever_order_tree_sitter_completes_matches_in():
    """tree-sitter lists a capture's nodes as their matches complete: the strings of nested lists come out of order
    (51, 87, 65, 101), and in what order depends on the other patterns of the combined whole-file query, i.e. on
    which modules a worker had imported. The Python link strings keep the first hit of a library on a line, so
    PETSc's `[['libcudart.a', ...], ['libcudart.a', ...]]` was reported at column 33 with --jobs 1 and 69 with
    --jobs 2. Every query's captures now come in tree order: the first `libcudart.a` of the line, always."""
    import tree_sitter as ts

    import porter.match.kinds.library as library
    from porter.source.parse_queries import captures, query

    text = (b"class A:\n  def f(self):\n"
            b"    self.basicliblist = [['libcudart.a','libnvtx3interop.a'],['libcudart.a','libnvToolsExt.a']]\n")
    py = parse("p.py", "python", text)
    raw = [n.start_byte for n in ts.QueryCursor(query("python", library._STRINGS)).captures(py.root)["c"]]
    assert sorted(raw) == [51, 65, 87, 101]
    assert [n.start_byte for n in captures("python", library._STRINGS, py.root)["c"]] == [51, 65, 87, 101]
    assert [(h.start, h.end, text[h.start:h.end]) for h in library._setup_libraries(py)] == \
           [(51, 62, b"libcudart.a"), (101, 116, b"libnvToolsExt.a")]


def test_whole_file_descendants_join_the_combined_query_and_keep_pre_order():
    """The kernel constants, struct sizes and port-awareness branch walks start at a file's root; their
    `descendants` run inside the combined whole-file query and give exactly the nodes, in exactly the order, of a
    plain pre-order walk (nested ifs and ?: included)."""
    import porter.kernels.constfold as constfold
    import porter.portaware.guards as guards
    from porter.source.parse import parse
    from porter.source.parse_queries import descendants, descendants_query, registered_root_queries

    cases = [("cuda", constfold._CONSTANT_NODES), ("cuda", constfold.STRUCT_TYPES), ("cuda", guards._BRANCHES),
             ("python", guards._PY_BRANCHES)]
    for lang, types in cases:
        assert descendants_query(types) in registered_root_queries(lang)

    def walk(node, types):
        out, stack = [], [node]
        while stack:
            n = stack.pop()
            if n.type in types:
                out.append(n)
            stack.extend(reversed(n.children))
        return [(n.type, n.start_byte, n.end_byte) for n in out]

    cu = parse("a.cu", "cuda", (
        b"#define N 4\nstruct S { int a; struct T { float b; } t; };\nenum E { A = N, B };\nclass C { int x = 1; };\n"
        b"__global__ void k(int* p) { const int m = 3; if (p) { if (m > 2) p[0] = m ? 1 : 2; } else p[1] = 0; }\n"))
    py = parse("a.py", "python", b"x = 1 if a else (2 if b else 3)\nif a:\n    if b:\n        pass\nelif c:\n    pass\n")
    for f, (lang, types) in [(cu, c) for c in cases[:3]] + [(py, cases[3])]:
        got = [(n.type, n.start_byte, n.end_byte) for n in descendants(f.root, types, lang=lang)]
        assert got == walk(f.root, types) and got


def test_literal_index_finds_exactly_the_literals_in_the_text():
    """One RE2 set search (porter.match.prefilter.LiteralIndex) answers what `lit in text` answers for every
    literal, byte for byte (non-ASCII and invalid UTF-8 included), on every fixture of the rule tests."""
    from pathlib import Path

    from porter.match.prefilter import LiteralIndex

    idx = LiteralIndex()
    lits = [b"cudaMalloc", b"__shfl", b"for", b"\xc3\xa9x", b"a.b", b"(", b"cudaMallocHost", b"\xff", b"#define"]
    idx.add(lits)
    idx.add([b"for", b"__CUDA_ARCH__"])  # a repeat is kept once; a new literal extends the set
    assert idx.literals == [*lits, b"__CUDA_ARCH__"]
    text = b"xx cudaMallocHost(p) __shfl_sync \xc3\xa9x a.b \xfe"
    assert idx.present(text) == {b"cudaMalloc", b"__shfl", b"\xc3\xa9x", b"a.b", b"(", b"cudaMallocHost"}
    assert idx.present(b"") == frozenset()
    fixtures = sorted(p for p in Path(__file__).resolve().parent.parent.joinpath("fixtures", "rules").rglob("*")
                      if p.is_file())
    assert len(fixtures) > 50
    for path in fixtures:
        data = path.read_bytes()
        assert idx.present(data) == {lit for lit in idx.literals if lit in data}, path.name


def test_literal_index_falls_back_to_a_plain_search_when_the_set_search_fails():
    from porter.match.prefilter import LiteralIndex

    class Failing:  # what RE2 answers when its DFA runs out of memory: no match at all
        def Match(self, text):
            return []

    idx = LiteralIndex()
    idx.add([b"cudaFree", b"wmma"])
    idx.present(b"x")  # builds the set
    idx._set = Failing()
    assert idx.present(b"cudaFree(p); nvcuda::wmma") == {b"cudaFree", b"wmma"}


def test_regex_patterns_hit_the_same_with_the_shared_literal_search():
    """The regex kind's prefilter (one literal search per file) keeps exactly the hits of running every regex."""
    from porter.match.base import MatchContext
    from porter.match.kinds.code import match_regex

    text = ("#define WARP_SIZE 32\n__global__ void k(int* p) {\n  int lane = threadIdx.x % 32;\n"
            "  for (int o = 16; o > 0; o >>= 1) p[0] += __shfl_down_sync(0xffffffff, p[0], o);\n}\n")
    f = sf(text)
    patterns = [{"regex": r"threadIdx\s*\.\s*x\s*(?P<hit>%\s*32)"}, {"regex": r"__shfl_down_sync"},
                {"regex": r"WARP_SIZE[ \t]+(?P<hit>32)", "flags": ["multiline"]}, {"regex": r"cudaMalloc\w*"},
                {"regex": r"(?i)SHFL_DOWN"}]
    got = [[(h.start, h.end) for h in match_regex(p, f, MatchContext())] for p in patterns]
    import re

    want = []
    for p in patterns:
        rx = re.compile(p["regex"].encode(), re.M if p.get("flags") else 0)
        want.append([m.span("hit") if "hit" in rx.groupindex else m.span() for m in rx.finditer(f.code)])
    assert got == want
    assert got[3] == [] and got[1] and got[4]


def test_every_rule_query_is_registered_before_the_first_file():
    """The scan declares each rule's whole-file query up front, so the combined query is built once with all."""
    from porter.match.engine import prepare_rules
    from porter.rules import load_rules
    from porter.source.parse_queries import registered_root_queries

    rules = load_rules().rules
    prepare_rules(rules)
    wanted = {(lang, p["query"]) for r in rules for p in r.patterns if "query" in p
              for lang in ("cuda", "python") if lang in r.languages and '"' not in p["query"]}
    assert wanted, "porter's rules have whole-file queries"
    have = {(lang, q) for lang in ("cuda", "python") for q in registered_root_queries(lang)}
    assert wanted <= have


def _rule_regexes():
    from porter.rules import load_rules

    out = []
    for rule in load_rules().rules:
        for p in rule.patterns:
            for q in (p, p.get("feature") or {}):
                if "regex" in q:
                    out.append((q["regex"], tuple(q.get("flags", ()))))
    return sorted(set(out))


def test_regex_set_rules_out_only_patterns_that_cannot_match():
    """porter.match.regex.RegexSet: on every rule-test fixture (as parsed code and as raw bytes), a rule regex the
    set search leaves out has no match there, and one that runs on RE2 is left out exactly when it has none."""
    from pathlib import Path

    from porter.match.regex import RegexSet, _Pattern, compile_regex
    from porter.source.discover import language_of

    regexes = _rule_regexes()
    rs = RegexSet()
    for pattern, flags in regexes:
        rs.add(pattern, flags)
    covered = [k for k in regexes if k in rs]
    relaxed = [k for k in covered if not isinstance(compile_regex(*k), _Pattern)]
    assert len(covered) >= 40 and len(relaxed) >= 5  # the Python-engine patterns are covered too, relaxed
    root = Path(__file__).resolve().parent.parent / "fixtures" / "rules"
    texts = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        texts.append(data)
        if language_of(path.name) == "cuda":
            texts.append(parse(path.name, "cuda", data).code)
    checked = 0
    for text in texts:
        possible = rs.possible(text)
        assert possible is not None
        for key in covered:
            found = compile_regex(*key).search(text) is not None
            if key not in possible:
                assert not found, (key, text[:80])
            elif isinstance(compile_regex(*key), _Pattern):
                assert found, key
            checked += 1
    assert checked > 5000


def test_relaxed_patterns_drop_only_what_widens_the_match():
    from porter.match.regex import _relaxed

    assert _relaxed(r"\bx\s*=(?!=)\s*1") == r"\bx\s*=\s*1"
    assert _relaxed(r"(?<!long )\b(?P<hit>unsigned(?!\s+long))") == r"\b(?P<hit>unsigned)"
    # A back-reference matches what its group matched: a text its group's pattern matches (any text when the
    # group holds a group of its own).
    assert _relaxed(r"(?P<v>\w+)\s*;\s*(?P=v)\b") == r"(?P<v>\w+)\s*;\s*(?:\w+)\b"
    assert _relaxed(r"(?P<v>\w+(?:x|y))\s*;\s*(?P=v)\b") == r"(?P<v>\w+(?:x|y))\s*;\s*(?s:.*)\b"
    assert _relaxed(r"[(?!x]y") == r"[(?!x]y"  # inside a class nothing is a group
    assert _relaxed(r"a(?=b)*") is None  # a quantifier after a removed assertion would repeat the `a`
    assert _relaxed(r"(a)\1") is None
    assert _relaxed(r"(?(1)a|b)") is None
    # RE2 refuses a count above 1000 (DEV039 caps its scans at 2000 characters for `re`'s sake), and one in the
    # hundreds makes the set search's DFA crawl: the unbounded repetition matches wherever the bounded one does;
    # the few-character counts that spell a token stay.
    assert _relaxed(r"\([^;{}]{0,2000}?\)(?=x)") == r"\([^;{}]{0,}?\)"
    assert _relaxed(r"a{1001,}b{1500}c{2,1000}(?!d)") == r"a*b*c{2,}"
    assert _relaxed(r"(?P<p>\w+)[^;{}]{0,1000}\)(?P=p)") == r"(?P<p>\w+)[^;{}]{0,}\)(?:\w+)"
    assert _relaxed(r"x{65}y{64}z{1,2}(?!w)") == r"x*y{64}z{1,2}"
    assert _relaxed(r"[{]{0,2000}") == r"[{]{0,}"


def test_regex_set_says_unknown_when_a_set_search_fails():
    from porter.match.regex import RegexSet

    class Failing:  # what RE2 answers when its DFA runs out of memory: no match at all, not even the sentinel
        def Match(self, text):
            return []

    rs = RegexSet()
    rs.add(r"cudaMalloc\w*")
    assert rs.possible(b"cudaMallocHost(p)") == {(r"cudaMalloc\w*", ())}
    assert rs.possible(b"nothing here") == frozenset()
    rs._sets["utf8"] = Failing()
    assert rs.possible(b"cudaMallocHost(p)") is None


def test_an_ascii_text_is_searched_once_for_both_sets_with_the_same_answer():
    """RegexSet.possible searches a text of ASCII bytes with one set of all its members (Latin-1) instead of the
    UTF-8 and the Latin-1 sets one after the other: on every rule-test fixture and parsed code the answer is the
    two sets' answer; a text with a byte from 0x80 is still searched per set, and a failed combined search says
    unknown as a failed per-set search does."""
    from pathlib import Path

    from porter.match.regex import RegexSet, _compile_set
    from porter.source.discover import language_of

    rs = RegexSet()
    for pattern, flags in _rule_regexes():
        rs.add(pattern, flags)
    assert rs._sources["utf8"] and rs._sources["latin1"]

    sets = {kind: _compile_set(rs._sources[kind], kind) for kind in ("utf8", "latin1")}

    def per_set(text: bytes) -> frozenset:
        found = set()
        for kind, compiled in sets.items():
            hits = compiled.Match(text)
            assert 0 in hits
            found |= {rs._keys[kind][i] for i in hits if i}
        return frozenset(found)

    root = Path(__file__).resolve().parent.parent / "fixtures" / "rules"
    texts = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        texts.append(data)
        if language_of(path.name) == "cuda":
            texts.append(parse(path.name, "cuda", data).code)
    ascii_texts = [t for t in texts if t.isascii()]
    assert len(ascii_texts) > 200
    some = 0
    for text in ascii_texts:
        answer = rs.possible(text)
        assert answer == per_set(text), text[:80]
        some += bool(answer)
    # texts where some rule regex may match (the rest: none; 101 with PYT018-PYT020's fixtures, 104 with DEV017's
    # CMakeLists.txt, Makefile and setup.py; 106 with DEV040's fixture, its text and its parsed code; 107 with
    # DEV041's fixture, whose text other rules' regexes may match; 111 with DEV011's groups.cu and tensor_groups.cu,
    # each text and its parsed code; 112 with LIB016's and PYT021's fixtures and fixtures/pyrec_s23; 114 with PYT022's
    # and PYT023's fixtures; 115 with BLD012's; 119 with PYT024-PYT026's fixtures and the wheel and requirement
    # fixtures whose `+cu121` / `_cu12` tags PYT025's regex may match; 122 with session 27's
    # `__CUDA_NO_HALF_*` switches, which PYT027's and PYT028's regexes may match; 126 with nub's vendored-copy and meson fixtures;
    # 127 with PYT030's fixture, whose nvcc version-probe lines PYT020's regex may match; 128 with PYT031's, whose
    # `-arch=sm_80` BLD006's regex may match; 134 with DEV011's wrapped_groups.cu, scan_groups.cu and block32.cu,
    # each text and its parsed code; 135 with PYT032's, whose `register cap` the C++ `register` keyword's regex may
    # match)
    assert some == 135 and "both" in rs._sets

    class Failing:
        def Match(self, text):
            return []

    matched = next(t for t in ascii_texts if rs.possible(t))
    rs._sets["both"] = Failing()
    assert rs.possible(matched) is None
    text = "// caf\u00e9\n".encode() + matched
    assert rs.possible(text) == per_set(text) != frozenset()  # not ASCII: the two sets, not the failing one


def test_a_scanned_file_is_freed_without_the_cycle_collector():
    """Everything a scan builds for a file (its syntax index, matcher memos, kernel facts) hangs off the file
    without pointing back to it, so the file and its tree go the moment the scan drops it: files that only the
    cyclic collector could free piled up between collections (CuTe's peak memory was 294 MiB instead of 187)."""
    import gc
    import weakref
    from pathlib import Path

    from porter.kernels.verdicts import measure
    from porter.match.base import MatchContext
    from porter.match.engine import run_rules
    from porter.rules import load_rules
    from porter.source.syntax import launches

    path = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "KRN002-chevron-launch.cu"
    rules = load_rules().rules
    ctx = MatchContext()
    gc.collect()
    gc.disable()
    try:
        f = parse(path.name, "cuda", path.read_bytes())
        findings, _ = run_rules(f, [r for r in rules if "cuda" in r.languages], ctx)
        kernels = measure(f)
        sites = launches(f)
        assert findings and kernels and sites
        alive = weakref.ref(f)
        del f
        assert alive() is None
    finally:
        gc.enable()


def test_every_whole_file_walk_is_registered_by_the_time_the_pipeline_is_imported():
    """A whole-file query registered after the first file makes the combined query compile again; the kernel
    modules are imported only at the first kernel, so what they walk from a root is registered by modules the
    pipeline imports up front."""
    import subprocess
    import sys

    code = ("import sys, porter.pipeline\n"
            "from porter.source.parse_queries import descendants_query as q, registered_root_queries as r\n"
            "assert 'porter.kernels.facts' not in sys.modules\n"
            "want = [('cuda', ('preproc_def', 'declaration', 'field_declaration', 'enumerator_list')),\n"
            "        ('cuda', ('struct_specifier', 'class_specifier')),\n"
            "        ('cuda', ('if_statement', 'conditional_expression')),\n"
            "        ('python', ('if_statement', 'conditional_expression', 'boolean_operator'))]\n"
            "print(all(q(t) in r(lang) for lang, t in want))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "True\n"


def test_line_matches_gives_what_finditer_gives_for_the_macro_and_constant_harvests():
    """porter.source.parse_input.line_matches tries a line pattern only on lines holding one of its words; for the
    repository-facts harvests it must give exactly finditer's matches (spans and order), on every fixture file
    and on edge cases: first and last line, CRLF, indented `#  define`, a word twice on one line, no newline."""
    from pathlib import Path

    import porter.kernels.constfold as constfold
    import porter.source.parse_input as parse

    cases = [(parse._QUALIFIER_MACRO, (b"define",)), (constfold._HARVEST, (b"define", b"const"))]
    texts = [p.read_bytes() for p in sorted(Path(__file__).parent.parent.joinpath("fixtures").rglob("*"))
             if p.suffix in (".cu", ".cuh", ".h", ".hpp", ".cpp") and p.is_file()]
    texts += [b"#define A __global__\n#define B __device__ __forceinline__ // x\r\n  #  define C __host__",
              b"const int K = 4; constexpr int kX = 0x10; // const define\n#define N (32)\n",
              b"static const unsigned int M = 07;\n\n#define W 64 // define const", b"define const", b""]
    found = 0
    for pattern, words in cases:
        for text in texts:
            want = [m.span() for m in pattern.finditer(text)]
            assert [m.span() for m in parse.line_matches(pattern, text, words)] == want
            found += len(want)
    assert found > 20


def test_a_literal_bracket_inside_a_class_does_not_keep_the_class_open_for_re2():
    """`[[]` is a class holding `[`; what follows is outside it. The RE2 rewrite once read the `]` as a literal
    (it followed a `[`) and rewrote the `\\s` after it as if inside a class, giving a pattern that matched the
    literal text "\\t\\n\\x0b\\f\\r " instead of one space."""
    import re
    import warnings

    from porter.match.regex import _for_re2, compile_regex

    assert _for_re2(r"[[]\s+x", ()) == "[[][\\t\\n\\x0b\\f\\r ]+x"
    rx = compile_regex(r"[[]\s+x", text=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # Python's "possible nested set": the point of the pattern
        python = re.compile(r"[[]\s+x")
    for text in ("[  x", "[\tx", "[x", "a x"):
        assert bool(rx.search(text)) == bool(python.search(text)), text
