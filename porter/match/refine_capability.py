"""The refine steps that read GPU-capability tests: Python's get_device_capability() tests Ampere and every AMD GPU
answer alike, a capability only recorded, compared with a recorded one or made a label, and C/C++ device-property
tests every supported NVIDIA GPU and every AMD GPU answer alike or that only change a printed report.
porter.match.refine runs them.

8. A capability test (PYT001) that Ampere (8, 0) and every AMD GPU porter knows answer alike - `cap < (8, 0)`,
   `cap[0] == 10` - sends ROCm down the path an Ampere GPU takes, which uses nothing HIP lacks: info, with the
   answer under data `amd_answers`. A test AMD answers unlike Ampere (`>= (9, 0)`: Hopper-only code taken on
   MI300X, which reports (9, 4)) and a capability the line does not compare stay open.
8b. A capability (PYT001) only kept as a record or compared for equality with another recorded capability
   (`"device_capability": torch.cuda.get_device_capability()` in a cache entry; `cached["cap"] != current` to
   invalidate it) asks "is this the same GPU", which every GPU answers for itself: info (data `identity`). So does
   one only made text - by str/format/an f-string, or by a function of the same file that returns text on every
   return (`get_cuda_arch(cap)` ending `return f"{major}.{minor} {name}"`) - into a value nothing compares.
8g. C/C++: a device-property capability test (DEV013: `prop.major < 6`, `prop.major*100 + prop.minor >= 600`, or the whole
   `if` condition of `major`/`minor` tests a `minor` test sits in) that
   every NVIDIA GPU current CUDA supports (Turing 7.5 on) and every AMD GPU answer alike picks the path all of them
   take (arbor's double-atomic flag, libCEED's pre-Pascal atomicAdd fallback): info (data `amd_answers`).
   Not in a configure-time capability probe (a program under a `cmake/` directory that writes `major`/`minor` out:
   its output is the architecture list the build compiles for, which names no GPU on ROCm): there one test stays
   open for the file (data `probe`), the first that reads `minor` (the one that makes the arch number), and the
   others read info as above.
8h. C/C++: a device-property capability test (DEV013) that only sets a variable the file reads only in printed text
   changes a line of a report: info (data `report_only`). Python: a capability only joined into a label nothing
   compares is an identity (8b), and TORCH_CUDA_ARCH_LIST written from the running GPU's own capability names no
   NVIDIA GPU (data `own_arch`, 8i).
"""
from __future__ import annotations

import ast
import functools
import re
from typing import Any

from porter.match.draft import Draft
# Shared helpers keep the private names the steps called them by when all of refine was one module, so the
# moved code reads as it did.
from porter.match.refine_common import (NVIDIA_SUPPORTED as _NVIDIA_SUPPORTED, OUTPUT_CALL as _OUTPUT_CALL,
                                        as_info as _as_info, code_line as _code_line, offset as _offset,
                                        statement_around as _statement_around)
from porter.model import Severity
from porter.source.parse import SourceFile


# Capability tests read against Ampere and the AMD GPUs (module doc, step 8).
CAPABILITY_RULES = frozenset({"PYT001"})


# `get_device_capability(...)` [`[0]`|`[1]`] `<op>` `(a, b)` | `n`, on the call's statement (joined lines).
_CAPABILITY_TEST = re.compile(r"get_device_capability\s*\((?:[^()]|\([^()]*\))*\)\s*(?:\[\s*([01])\s*\])?\s*"
                              r"(<=|>=|==|!=|<|>)\s*(\(\s*\d+\s*,\s*\d+\s*\)|\d+)")
_COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
            "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
# The capability an NVIDIA GPU without Hopper/Blackwell-only features reports (Ampere A100).
_AMPERE = (8, 0)


@functools.lru_cache(maxsize=1)
def amd_capabilities() -> tuple[tuple[int, int], ...]:
    """(major, minor) PyTorch on ROCm reports for each AMD target porter knows: gfx942 -> (9, 4), gfx950 -> (9, 5),
    gfx1250 -> (12, 5) (hipDeviceProp major/minor, https://pytorch.org/docs/stable/notes/hip.html)."""
    from porter.targets import load_targets

    out = set()
    for t in load_targets().values():
        m = re.fullmatch(r"gfx(\d{1,2}?)([0-9a-f])[0-9a-f]", t.gfx or "")
        if m:
            out.add((int(m.group(1)), int(m.group(2), 16)))
    return tuple(sorted(out))


def ampere_path(f: Draft, code: bytes) -> Draft:
    """PYT001 at info when the capability test on its statement answers on every AMD GPU as on Ampere (step 8)."""
    if f.rule not in CAPABILITY_RULES or f.severity <= Severity.INFO:
        return f
    lines = code.split(b"\n")
    # The statement from the finding's own call on (a later call's test on the same lines is not this one's).
    first = lines[f.line - 1][max(f.column - 1, 0):] if f.line <= len(lines) else b""
    text = " ".join(x.decode("utf-8", "replace").strip() for x in [first] + lines[f.line:f.line + 3])
    at = text.find("get_device_capability")
    m = _CAPABILITY_TEST.match(text, at) if at >= 0 else None
    amd = amd_capabilities()
    if m is None and amd:
        return _unpacked_tests(f, lines, amd)
    if m is None or not amd:
        return f
    index, op, rhs = m.group(1), m.group(2), m.group(3)
    bound = tuple(int(x) for x in re.findall(r"\d+", rhs))
    if index is None and len(bound) != 2 or index is not None and len(bound) != 1:
        return f  # a tuple against an int (or the reverse) is no test porter reads

    def answer(cap: tuple[int, int]) -> bool:
        left: Any = cap if index is None else cap[int(index)]
        return _COMPARE[op](left, bound if index is None else bound[0])

    want = answer(_AMPERE)
    if any(answer(c) != want for c in amd):
        return f
    test = f"get_device_capability(){'[' + index + ']' if index is not None else ''} {op} {rhs}"
    return _as_info(f, "amd_answers", f"`{test}` is {want} on Ampere (8, 0) and on every AMD GPU "
                                      f"({', '.join(map(str, amd))}): ROCm takes Ampere's path")


# 8g. C/C++: `prop.major < 6`, `prop.major * 100 + prop.minor >= 600` (DEV013) compared with a bound below every GPU
# current CUDA builds for (refine_common.NVIDIA_SUPPORTED: Turing 7.5 and newer), so the test
# separates GPUs of past toolkits (a software double atomicAdd before sm_60, no half arithmetic before sm_53). When
# every AMD GPU answers it as every supported NVIDIA GPU does, ROCm takes the path all of them take: info (data
# `amd_answers`). A bound inside the supported range (`major >= 8`, `major == 9`) stays open.
PROP_CAPABILITY_RULES = frozenset({"DEV013"})
_PROP_TEST = re.compile(r"(\w+)\s*(?:\.|->)\s*major\s*(?:\*\s*(10|100)\s*\+\s*\1\s*(?:\.|->)\s*minor\s*)?"
                        r"(<=|>=|==|!=|<|>)\s*(\d+)\b")


# The whole `if (...)` condition is read when it holds nothing but tests of one object's `major`/`minor` against
# integers, joined by && / || / ! and parentheses (`props->major > 3 || (props->major == 3 && props->minor >= 5)`,
# `p.major == 9999 && p.minor == 9999`, the emulation-device test of NVIDIA's old cutil): a `minor` test alone
# cannot be answered (`minor >= 5` splits NVIDIA's GPUs) but the condition it sits in can.
_IF_OPEN = re.compile(r"\bif\s*\(")
_PROP_FIELD = re.compile(r"\b(\w+)\s*(?:\.|->)\s*(major|minor)\b")


def _if_condition(line: str, column: int) -> str | None:
    """The text inside the `if (...)` of `line` whose parentheses hold 0-based `column`, when they close on it."""
    for m in _IF_OPEN.finditer(line):
        depth, i = 1, m.end()
        while i < len(line) and depth:
            depth += {"(": 1, ")": -1}.get(line[i], 0)
            i += 1
        if not depth and m.end() <= column < i - 1:
            return line[m.end():i - 1]
    return None


def _condition_answers(text: str) -> Any:
    """`text` as a syntax tree over the names major/minor when it is a capability condition of one object (see
    _IF_OPEN's comment), else None."""
    objects = {m.group(1) for m in _PROP_FIELD.finditer(text)}
    if len(objects) != 1:
        return None
    py = _PROP_FIELD.sub(lambda m: f" {m.group(2)} ", text)
    py = re.sub(r"&&", " and ", re.sub(r"\|\|", " or ", py))
    py = re.sub(r"!(?!=)", " not ", py)
    try:
        tree = ast.parse(py.strip(), mode="eval")
    except SyntaxError:
        return None
    return tree.body if _capability_expr(tree.body, {"major": 0, "minor": 1}) else None


# 8g, the probe exception. CMake projects that detect the build machine's GPU compile and run a small program with
# try_run() - InfiniTAM's cmake/cuda_compute_capability.cpp, run by CUDACheckCompute.cmake, streams each device's
# `major` and `minor` into the `--generate-code` list (https://cmake.org/cmake/help/latest/command/try_run.html) -
# and keep it beside their modules in a `cmake/` directory. Whether its tests take the path every GPU takes does not
# matter: the program's output is an NVIDIA architecture number, wrong on every AMD GPU (9.4 on MI300X reads sm_94),
# so the probe as a whole is the port item (replace it with a gfx-target probe: offload-arch, rocminfo). One finding
# per probe file stays open so the file is listed once; the rest read info under 8g. A program elsewhere that
# prints the capability (a deviceQuery report) is not a probe the build reads, and stays under 8g.
_PROBE_DIR = re.compile(r"(?:^|/)cmake/", re.I)
_MAIN = re.compile(rb"\bint\s+main\s*\(")
_WRITES_FIELD = re.compile(rb"<<\s*[\w\]\[]+\s*(?:\.|->)\s*(?:major|minor)\b"
                           rb"|\bs?n?printf\s*\([^;]*?\b\w+\s*(?:\.|->)\s*(?:major|minor)\b")


def probe_keeper(findings: list[Draft], sf: SourceFile) -> int | None:
    """The index of the DEV013 finding a configure-time capability probe keeps open (see the comment above): the
    first on `minor`, else the first; None when the file is no probe."""
    if not _PROBE_DIR.search(sf.path) or not _MAIN.search(sf.code) or not _WRITES_FIELD.search(sf.code):
        return None
    tests = [i for i, f in enumerate(findings) if f.rule in PROP_CAPABILITY_RULES and f.severity > Severity.INFO]
    minor = [i for i in tests if dict(findings[i].data).get("hit") == "minor"]
    return (minor or tests or [None])[0]


def probe_kept(f: Draft) -> Draft:
    """The probe's one open finding, with the reason under data `probe` (8g's probe exception)."""
    return f._replace(data=tuple(sorted({**dict(f.data), "probe": (
        "a configure-time capability probe (under cmake/, writes major/minor out): its output is the NVIDIA "
        "architecture list the build compiles for, which names no AMD GPU; replace it with a gfx-target probe "
        "(offload-arch, rocminfo)")}.items())))


def legacy_capability(f: Draft, code: bytes) -> Draft:
    """DEV013 at info when the device-property test holding it is answered alike by every NVIDIA GPU current CUDA
    supports and by every AMD GPU porter knows (step 8g)."""
    if f.rule not in PROP_CAPABILITY_RULES or f.severity <= Severity.INFO or "probe" in dict(f.data):
        return f
    lines = code.split(b"\n")
    line = lines[f.line - 1].decode("utf-8", "replace") if 0 < f.line <= len(lines) else ""
    amd = amd_capabilities()
    condition = _if_condition(line, f.column - 1)
    node = _condition_answers(condition) if condition is not None and amd else None
    if node is not None:
        names = {"major": 0, "minor": 1}
        answers = {bool(_eval_capability(node, names, c)) for c in _NVIDIA_SUPPORTED + amd}
        if len(answers) == 1:
            return _as_info(f, "amd_answers", f"`{' '.join(condition.split())}` is {answers.pop()} on every NVIDIA "
                                              "GPU CUDA 13 supports (Turing 7.5 on) and on every AMD GPU "
                                              f"({', '.join(map(str, amd))}): ROCm takes their path")
    for m in _PROP_TEST.finditer(line):
        if not m.start() <= f.column - 1 < m.end():
            continue
        scale, op, bound = int(m.group(2) or 0), m.group(3), int(m.group(4))

        def answer(cap: tuple[int, int]) -> bool:
            return _COMPARE[op](cap[0] * scale + cap[1] if scale else cap[0], bound)

        want = answer(_NVIDIA_SUPPORTED[0])
        if not amd or any(answer(c) != want for c in _NVIDIA_SUPPORTED + amd):
            return f
        return _as_info(f, "amd_answers", f"`{m.group(0)}` is {want} on every NVIDIA GPU CUDA 13 supports (Turing "
                                          f"7.5 on) and on every AMD GPU ({', '.join(map(str, amd))}): ROCm takes "
                                          "their path")
    return f


# 8h. C/C++: a device-property capability test (DEV013) that only sets a variable the file uses nowhere but in
# printed text (GAMER's cores-per-multiprocessor ladder, `else if (prop.major == 9) NCorePerMP = 128;`, read only by
# the `fprintf(Note, "Number of FP32 Cores per Multiprocessor : %d\n", NCorePerMP)` lines of its device report)
# decides a line of a report, not what the program computes: info (data `report_only`).
_ASSIGNED = re.compile(rb"^\s*(?:else\s+)?(?:if\s*\(.*\)\s*)?(?:\{\s*)?([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?=(?!=)")
_DECLARED_BEFORE = re.compile(rb"(?:\b(?:int|unsigned|long|short|size_t|float|double|char|auto|bool)\s*\**|,)\s*$")


def report_only(f: Draft, sf: SourceFile) -> Draft:
    """DEV013 at info when the test only assigns a variable the file reads only in output statements (step 8h)."""
    if f.rule not in PROP_CAPABILITY_RULES or f.severity <= Severity.INFO or "probe" in dict(f.data):
        return f
    m = _ASSIGNED.match(_code_line(sf, f.line))
    if m is None:
        return f
    name = m.group(1)
    if name in (b"if", b"else", b"return", b"while", b"for"):
        return f
    printed = False
    for use in re.finditer(rb"\b" + re.escape(name) + rb"\b", sf.code):
        after = sf.code[use.end():use.end() + 3]
        if re.match(rb"\s*=(?!=)", after):
            continue  # an assignment
        if re.match(rb"\s*[;,]", after) and _DECLARED_BEFORE.search(sf.code[max(0, use.start() - 40):use.start()]):
            continue  # a declaration
        if not _OUTPUT_CALL.match(_statement_around(sf.code, use.start()).decode("utf-8", "replace")):
            return f
        printed = True
    if not printed:
        return f
    return _as_info(f, "report_only", f"the test only sets {name.decode()}, which the file reads only in printed text:"
                                      " it changes a line of a report, not what the program computes")


# `major, minor = torch.cuda.get_device_capability()` and the tests of those names on the next lines
# (`has_sm_8_0 = major >= 8`, `is_sm75 = major == 7 and minor == 5`, `if major >= 9:`): read like a direct test.
_UNPACK = re.compile(r"^\s*(?:\w+\s*=\s*)?\(?\s*(\w+)\s*,\s*(\w+)\s*\)?\s*=\s*(?:[\w.]*\.)?get_device_capability\s*\(")
_USE_EXPR = re.compile(r"^\s*(?:\w+\s*=(?!=)|(?:el)?if\b|return\b)\s*(.+?)\s*:?\s*$")
_UNPACK_WINDOW = 8  # lines after the call where its names' tests are read


def _unpacked_tests(f: Draft, lines: list[bytes], amd: tuple[tuple[int, int], ...]) -> Draft:
    """PYT001 at info when the capability is unpacked into two names and every line of the next few that reads
    them is a test Ampere (8, 0) and each AMD GPU answer alike (step 8)."""
    first = lines[f.line - 1].decode("utf-8", "replace") if f.line <= len(lines) else ""
    m = _UNPACK.match(first)
    if m is None:
        return f
    names = {m.group(1): 0, m.group(2): 1}
    indent = len(first) - len(first.lstrip())
    tests = []
    for raw in lines[f.line:f.line + _UNPACK_WINDOW]:
        line = raw.decode("utf-8", "replace")
        if line.strip() and (len(line) - len(line.lstrip()) < indent or "get_device_capability" in line):
            break  # the block ends (an `except:`, a dedent) or the names are bound again
        if not any(re.search(rf"\b{re.escape(n)}\b", line) for n in names):
            continue
        u = _USE_EXPR.match(line)
        try:
            tree = ast.parse(u.group(1), mode="eval") if u else None
        except SyntaxError:
            tree = None
        if tree is None or not _capability_expr(tree.body, names):
            return f  # a use porter cannot evaluate (passed on, printed, indexed): stays open
        tests.append((u.group(1), tree.body))
    if not tests:
        return f

    def answer(node, cap: tuple[int, int]) -> bool:
        return bool(_eval_capability(node, names, cap))

    for _text, node in tests:
        want = answer(node, _AMPERE)
        if any(answer(node, c) != want for c in amd):
            return f
    return _as_info(f, "amd_answers", f"{'; '.join(f'`{t}`' for t, _ in tests)}: the same on Ampere (8, 0) and on "
                                      f"every AMD GPU ({', '.join(map(str, amd))}): ROCm takes Ampere's path")


def _capability_expr(node, names: dict[str, int]) -> bool:
    """Whether `node` is a boolean/comparison expression over the capability names and integer literals only."""
    if isinstance(node, ast.BoolOp):
        return all(_capability_expr(v, names) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _capability_expr(node.operand, names)
    if isinstance(node, ast.Compare):
        return (all(type(op) in _AST_COMPARE for op in node.ops)
                and all(isinstance(x, ast.Name) and x.id in names or isinstance(x, ast.Constant) and type(x.value) is int
                        for x in [node.left, *node.comparators])
                and any(isinstance(x, ast.Name) for x in [node.left, *node.comparators]))
    return False


def _eval_capability(node, names: dict[str, int], cap: tuple[int, int]):
    if isinstance(node, ast.BoolOp):
        vals = [_eval_capability(v, names, cap) for v in node.values]
        return all(vals) if isinstance(node.op, ast.And) else any(vals)
    if isinstance(node, ast.UnaryOp):
        return not _eval_capability(node.operand, names, cap)
    if isinstance(node, ast.Compare):
        vals = [cap[names[x.id]] if isinstance(x, ast.Name) else x.value for x in [node.left, *node.comparators]]
        return all(_AST_COMPARE[type(op)](a, b) for op, a, b in zip(node.ops, vals, vals[1:]))
    if isinstance(node, ast.Name):
        return cap[names[node.id]]
    return node.value


# the comparison operators a capability test may use, by their syntax-tree class
_AST_COMPARE = {ast.Lt: _COMPARE["<"], ast.LtE: _COMPARE["<="], ast.Gt: _COMPARE[">"], ast.GtE: _COMPARE[">="],
                ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}


# 8b. A capability kept as a record or compared with another recorded one (PYT001).
_LITERALS = frozenset({"integer", "float", "tuple", "list", "unary_operator"})


def _capability_call(f: Draft, sf: SourceFile) -> Any:
    """The `get_device_capability` call a finding sits in (steps 8b and 8o start from it), else None."""
    assert sf.root is not None
    at = _offset(sf, f.line, f.column)
    node = sf.root.named_descendant_for_byte_range(at, at + 1)
    while node is not None and node.type != "call":
        node = node.parent
    return node if node is not None and b"get_device_capability" in node.text else None


def capability_identity(f: Draft, sf: SourceFile) -> Draft:
    """PYT001 at info when the capability its call returns is only stored as a dict value or compared with == / !=
    against something other than a literal (module doc, step 8b)."""
    from porter.source.parse_queries import walk_descendants

    if f.rule not in CAPABILITY_RULES or f.severity <= Severity.INFO or sf.root is None:
        return f
    node = _capability_call(f, sf)
    if node is None:
        return f
    label = _as_label(node, sf)
    if label is not None:
        return _as_info(f, "identity", f"the capability only becomes the text {label}, which nothing compares: a "
                                       "label, each GPU answers for itself")
    uses = [node]
    parent = node.parent
    if parent is not None and parent.type == "assignment" and parent.child_by_field_name("right") == node:
        target = parent.child_by_field_name("left")
        scope = parent
        while scope is not None and scope.type not in ("function_definition", "module"):
            scope = scope.parent
        # one name, or the names a tuple is unpacked into (`major, minor = torch.cuda.get_device_capability(0)`)
        names = ({target.text} if target is not None and target.type == "identifier" else
                 {c.text for c in target.named_children} if target is not None
                 and target.type in ("pattern_list", "tuple_pattern")
                 and all(c.type == "identifier" for c in target.named_children) else set())
        if not names or scope is None:
            return f
        uses = [n for n in walk_descendants(scope, frozenset({"identifier"})) if n.text in names
                and n.start_byte > parent.end_byte]
        if not uses:
            return f
    for use in uses:
        if _recorded(use):
            continue
        up = use.parent
        if up is not None and up.type == "comparison_operator":
            ops = [c.type for c in up.children if not c.is_named]
            others = [c for c in up.named_children if c != use]
            if ops and all(o in ("==", "!=") for o in ops) and others and all(o.type not in _LITERALS for o in others):
                continue
        return f
    return _as_info(f, "identity", "the capability is only recorded or compared with a recorded one: each GPU "
                                   "answers for itself")


# 8b, PYT002: the CUDA version (`torch.version.cuda`) kept only as a report's value or printed in a banner records
# None on ROCm, which is what that build is (heldout42: FlashRT's benchmark JSON reports): nothing to port.
VERSION_RULE = "PYT002"


def version_record(f: Draft, sf: SourceFile) -> Draft:
    """PYT002 at info when the `torch.version.cuda` it found is only recorded (_recorded: a dict value, or text in
    an f-string of a statement that tests nothing)."""
    if f.rule != VERSION_RULE or f.severity <= Severity.INFO or sf.root is None:
        return f
    at = _offset(sf, f.line, f.column)
    node = sf.root.named_descendant_for_byte_range(at, at + 1)
    while node is not None and node.type != "attribute":
        node = node.parent
    while node is not None and node.parent is not None and node.parent.type == "attribute":
        node = node.parent
    if node is None or node.text.replace(b" ", b"") != b"torch.version.cuda" or not _recorded(node):
        return f
    return _as_info(f, "identity", "torch.version.cuda is only recorded (a report's value or a printed banner): "
                                   "None on ROCm is what it records")


# A value copied into a container of the same values (`list(cap)`, `tuple(cap)`) is still that value.
_COPIES = frozenset({b"list", b"tuple"})
# Nodes that test or index what they hold: a capability inside one is read, not recorded.
_TESTS = frozenset({"comparison_operator", "if_statement", "elif_clause", "while_statement", "conditional_expression",
                    "boolean_operator", "subscript", "return_statement", "assert_statement"})


def _recorded(use) -> bool:
    """Whether one use of a capability (the call, or a name holding it) only records it (8b): a dict value, also
    as its `list(...)` / `tuple(...)` copy (a benchmark's JSON report: `"capability": list(torch.cuda.
    get_device_capability(0))`), or text in an f-string of a statement of its own that tests nothing
    (`print(f"... cap {cap} ...")`: a banner)."""
    up = use.parent
    if up is not None and up.type == "argument_list" and len(up.named_children) == 1 and up.parent is not None \
            and (up.parent.child_by_field_name("function") or up).text in _COPIES:
        use, up = up.parent, up.parent.parent
    if up is not None and up.type == "pair" and up.child_by_field_name("value") == use:
        return True
    node, text = use.parent, False
    while node is not None and node.type not in ("expression_statement", "assignment", "block", "module"):
        if node.type in _TESTS:
            return False
        text = text or node.type == "interpolation"
        node = node.parent
    return text and node is not None and node.type == "expression_statement"


_TEXT_CALLS = re.compile(rb"^(?:str|repr|format|[\"'][^\"']*[\"']\.join|[\"'][^\"']*[\"']\.format)$")
_STRING_NODES = frozenset({"string", "concatenated_string"})


def _label_functions(sf: SourceFile) -> frozenset[bytes]:
    """The names of the file's functions that return text on every return (a string, an f-string, `"...".join(...)`,
    `"...".format(...)`, `str(...)`), with at least one return: sdnext's `get_cuda_arch(capability)`, which ends
    `return f"{major}.{minor} {name}"`. A capability handed to one becomes a label (8b)."""
    from porter.source.parse_queries import descendants, walk_descendants

    cached = sf.cache.get("refine.label_functions")
    if cached is not None:
        return cached
    out = set()
    for fn in descendants(sf.root, ("function_definition",), lang="python") if sf.root is not None else ():
        name, body = fn.child_by_field_name("name"), fn.child_by_field_name("body")
        if name is None or body is None:
            continue
        returns = [r for r in walk_descendants(body, frozenset({"return_statement"}))
                   if _enclosing_function(r) == fn]
        if returns and all(_is_text(r.named_children[0]) if r.named_children else False for r in returns):
            out.add(name.text)
    sf.cache["refine.label_functions"] = frozen = frozenset(out)
    return frozen


def _enclosing_function(node):
    node = node.parent
    while node is not None and node.type not in ("function_definition", "lambda"):
        node = node.parent
    return node


def _is_text(node) -> bool:
    if node.type in _STRING_NODES:
        return True
    fn = node.child_by_field_name("function") if node.type == "call" else None
    return fn is not None and _TEXT_CALLS.match(fn.text) is not None


def _as_label(call, sf: SourceFile) -> str | None:
    """The variable a capability call's value is only turned into text for (`cap = ".".join(str(x) for x in
    torch.cuda.get_device_capability(k))`, detectron2's collect_env), when no comparison or condition in its
    function reads that variable; else None."""
    from porter.source.parse_queries import walk_descendants

    node, text = call.parent, False
    labels = _label_functions(sf)
    while node is not None and node.type not in ("assignment", "expression_statement", "block", "module"):
        if node.type == "interpolation" or node.type == "call" and (
                _TEXT_CALLS.match((node.child_by_field_name("function") or node).text)
                or (node.child_by_field_name("function") or node).text in labels):
            text = True
        node = node.parent
    if not text or node is None or node.type != "assignment":
        return None
    target = node.child_by_field_name("left")
    scope = node
    while scope is not None and scope.type not in ("function_definition", "module"):
        scope = scope.parent
    if target is None or target.type != "identifier" or scope is None:
        return None
    for use in walk_descendants(scope, frozenset({"identifier"})):
        if use.text != target.text or use.start_byte <= node.end_byte:
            continue
        up = use.parent
        while up is not None and up.type not in ("expression_statement", "block", "module"):
            if up.type in ("comparison_operator", "if_statement", "elif_clause", "while_statement",
                           "conditional_expression", "boolean_operator", "subscript"):
                return None
            up = up.parent
    return target.text.decode("utf-8", "replace")


# 8o. A capability test at NVIDIA's FP8 threshold (PYT001). sm_89 (Ada) is the first NVIDIA architecture with FP8
# tensor cores, which Triton's fp8e4nv conversions and torch._scaled_mm require
# (https://docs.nvidia.com/cuda/cuda-c-programming-guide/#features-and-technical-specifications); a test every
# NVIDIA GPU before it answers one way and every one from it on the other (`cap >= (8, 9)`, conch's
# `capability[0] * 10 + capability[1] >= 89` under a constant's name) asks "has FP8". Every AMD GPU porter knows
# reports a capability past it ((9, 4), (9, 5), (12, 5)) and has FP8 (rules/targets: fp8 true), so ROCm gets the
# answer its hardware gives: info (data `fp8_test`). Which FP8 encoding the code then uses is QNT004's item on the
# dtype. Read over the function around the call (Python's ast): the capability, the names computed from it and the
# constants they are compared with; any other use of the capability (passed on, returned, indexed into a table)
# keeps the finding open, and so does a Hopper test (`[0] >= 9`: (8, 9) answers it like Ampere).
_BEFORE_FP8 = ((7, 5), (8, 0), (8, 6), (8, 7))
_FROM_FP8 = ((8, 9), (9, 0), (10, 0), (12, 0))


class _Unknown(Exception):
    """An expression the FP8-threshold reader cannot evaluate."""


@functools.lru_cache(maxsize=1)
def amd_fp8_capabilities() -> tuple[tuple[int, int], ...]:
    """amd_capabilities() when every AMD target porter knows has FP8 (its profile's `fp8`), else ()."""
    from porter.targets import load_targets

    if not all(t.get("fp8") for t in load_targets().values()):
        return ()
    return amd_capabilities()


def fp8_threshold(f: Draft, sf: SourceFile) -> Draft:
    """PYT001 at info when every test of the capability in its function is NVIDIA's FP8 threshold (step 8o)."""
    if f.rule not in CAPABILITY_RULES or f.severity <= Severity.INFO or sf.root is None:
        return f
    amd = amd_fp8_capabilities()
    if not amd:
        return f
    node = _capability_call(f, sf)
    if node is None:
        return f
    scope = node
    while scope is not None and scope.type not in ("function_definition", "module"):
        scope = scope.parent
    if scope is None:
        return f
    first = scope.start_point[0]
    text = sf.data[sf.line_starts[first]:scope.end_byte].decode("utf-8", "replace") if scope.type != "module" \
        else sf.data.decode("utf-8", "replace")
    try:
        tree = ast.parse(_dedent(text))
    except SyntaxError:
        return f
    tests = _capability_tests(tree, sf, scope)
    if not tests:
        return f
    for test, value in tests:
        try:
            below = {bool(value(c)) for c in _BEFORE_FP8}
            above = {bool(value(c)) for c in _FROM_FP8 + amd}
        except (_Unknown, TypeError, IndexError):
            return f
        if len(below) != 1 or len(above) != 1 or below == above:
            return f
    shown = "; ".join(f"`{ast.unparse(t)}`" for t, _ in tests)
    return _as_info(f, "fp8_test", f"{shown}: NVIDIA's FP8 threshold (sm_89), which every AMD GPU "
                                   f"({', '.join(map(str, amd))}) passes and has FP8 for; the FP8 encoding is the "
                                   "dtype's item")


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text)


def _is_capability_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and (
        isinstance(node.func, ast.Attribute) and node.func.attr == "get_device_capability"
        or isinstance(node.func, ast.Name) and node.func.id == "get_device_capability")


def _capability_tests(tree: ast.AST, sf: SourceFile, scope) -> list[tuple[ast.Compare, Any]] | None:
    """Every comparison that reads the capability, each with a function from a capability to its answer; None when
    the capability or a name computed from it has a use other than those comparisons and those names' own
    definitions."""
    in_function = scope.type != "module"
    bound: dict[str, list[ast.expr]] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            bound.setdefault(n.targets[0].id, []).append(n.value)
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Tuple) \
                and all(isinstance(t, ast.Name) for t in n.targets[0].elts):
            # `major, minor = get_device_capability()`: each name is its element
            for i, t in enumerate(n.targets[0].elts):
                bound.setdefault(t.id, []).append(ast.Subscript(value=n.value, slice=ast.Constant(i)))
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is not None:
            bound.setdefault(n.target.id, []).append(n.value)
    single = {k: v[0] for k, v in bound.items() if len(v) == 1}

    def reads_capability(e: ast.AST, names: set[str]) -> bool:
        return any(_is_capability_call(x) or isinstance(x, ast.Name) and x.id in names for x in ast.walk(e))

    derived: set[str] = set()
    while True:
        more = {k for k, v in single.items() if k not in derived and reads_capability(v, derived)}
        if not more:
            break
        derived |= more
    if any(k in derived for k, v in bound.items() if len(v) > 1):
        return None

    def value(e: ast.AST, cap: tuple[int, int]) -> Any:
        if _is_capability_call(e):
            return cap
        if isinstance(e, ast.Constant) and type(e.value) in (int, float):
            return e.value
        if isinstance(e, ast.Tuple):
            return tuple(value(x, cap) for x in e.elts)
        if isinstance(e, ast.Name):
            src = single.get(e.id)
            if src is not None:
                return value(src, cap)
            constants = _module_constants(sf) if in_function else {}  # parsed once per file, when first asked
            if e.id in constants:
                return constants[e.id]
            raise _Unknown(e.id)
        if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Constant) and type(e.slice.value) is int:
            return value(e.value, cap)[e.slice.value]
        if isinstance(e, ast.BinOp) and type(e.op) in _ARITH:
            return _ARITH[type(e.op)](value(e.left, cap), value(e.right, cap))
        if isinstance(e, ast.Compare) and all(type(op) in _AST_COMPARE for op in e.ops):
            vals = [value(x, cap) for x in [e.left, *e.comparators]]
            return all(_AST_COMPARE[type(op)](a, b) for op, a, b in zip(e.ops, vals, vals[1:]))
        raise _Unknown(type(e).__name__)

    tests: list[tuple[ast.Compare, Any]] = []
    inside: set[int] = set()  # the ids of the nodes a test or a derived name's definition covers
    for n in ast.walk(tree):
        if isinstance(n, ast.Compare) and reads_capability(n, derived):
            tests.append((n, functools.partial(value, n)))
            inside |= {id(x) for x in ast.walk(n)}
        elif isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None:
            target = n.targets[0] if isinstance(n, ast.Assign) else n.target
            names = target.elts if isinstance(target, ast.Tuple) else [target]
            if names and all(isinstance(t, ast.Name) and t.id in derived for t in names):
                inside |= {id(x) for x in ast.walk(n)}
    for n in ast.walk(tree):
        if id(n) in inside:
            continue
        if _is_capability_call(n) or isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in derived:
            return None
    return tests


_ARITH = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b}


def _module_constants(sf: SourceFile) -> dict[str, Any]:
    """The file's module-level names bound once to a number or a tuple of numbers."""
    cached = sf.cache.get("refine.module_constants")
    if cached is not None:
        return cached
    out: dict[str, Any] = {}
    seen: set[str] = set()
    try:
        tree = ast.parse(sf.data.decode("utf-8", "replace"))
    except SyntaxError:
        tree = ast.Module(body=[], type_ignores=[])
    for n in tree.body:
        target = n.targets[0] if isinstance(n, ast.Assign) and len(n.targets) == 1 else \
            n.target if isinstance(n, ast.AnnAssign) and n.value is not None else None
        if not isinstance(target, ast.Name):
            continue
        value = n.value
        if target.id in seen:
            out.pop(target.id, None)
            continue
        seen.add(target.id)
        try:
            out[target.id] = ast.literal_eval(value) if value is not None else None
        except ValueError:
            continue
        if not isinstance(out[target.id], (int, float, tuple)):
            out.pop(target.id)
    sf.cache["refine.module_constants"] = out
    return out
