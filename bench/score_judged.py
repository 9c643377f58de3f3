"""Re-score porter against the hand-judged set in bench/judged/: precision per project, kernel-verdict agreement,
and recall on the CUDA sides of ROCm guards.

The judged data (never fetched code) lives in bench/judged/:
- findings.jsonl: one porter finding per line - project, commit, path, line, rule, fingerprint, verdict (true: a
  real porting issue as the code reads; false: a false positive), guarded (the spot is already inside a ROCm guard
  or twin, i.e. handled for HIP), reason (one line).
- kernels.jsonl: one kernel per target per line - project, commit, path, line, kernel, target, expected verdict
  (ok/check/retune/fix/rewrite) and reason.
- kernels_heldout.jsonl: the same fields for kernels of projects porter was not tuned on, judged blind; score it
  with `--kernels bench/judged/kernels_heldout.jsonl` (the judged findings then match nothing).

The developer fetches the projects at the recorded commits and passes their trees:

    python bench/score_judged.py NVIDIA/apex=/tmp/apex Dao-AILab/flash-attention=/tmp/fa ... [--recall]

porter is re-run on each tree (the same pipeline as `porter scan`), each judged finding is looked up by
(path, rule, fingerprint), falling back to (path, rule, line). Precision = true / judged findings porter still
reports; a guarded-for-HIP finding counts as false unless porter gives it status handled or cuda-only (until
port-awareness lands everything reads open, so the guarded count is also shown apart). Findings porter no longer
reports are listed as gone (a gone false one is a fixed false positive; a gone true one is a lost hit).
Agreement = judged kernel/target pairs whose porter verdict equals the expected one / pairs whose kernel porter
still finds. `--recall` blanks every ROCm guard (the `#if` line, the ROCm branch and the `#else`/`#endif`) in a copy
of each tree and counts the CUDA sides a finding at most 10 lines wide touches.

`--set heldout3` scores a held-out set kept in its own directory (bench/judged/heldout3/: projects.json with commits,
trees and guard macros, kernels.jsonl, findings.jsonl): trees come from `--root DIR` (DIR/<tree> per project) or
PROJECT=PATH arguments, and each project gets one line: kernel agreement per target, precision of the judged
findings porter still reports open, real kept (judged real - true and not guarded - still open / judged real),
open-finding density (open findings of severity low or worse per 1,000 scanned lines) and, with --recall, recall on
the project's ROCm guards blanked (C/C++ preprocessor guards, with the project's own ROCm and CUDA macros, and
Python `if` guards on torch.version.hip and the like, counted apart). When the set has a guards.jsonl (each blanked
side judged real port work or not), recall is also printed over the sides judged real.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
JUDGED = HERE / "judged"
sys.path.insert(0, str(HERE.parent))

from porter.pipeline import run, scan  # noqa: E402
from porter.settings import Settings  # noqa: E402

TARGETS = ("mi300x", "mi355x", "mi455x")
ROCM_GUARD = re.compile(r"__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|USE_ROCM|__HIPCC__|__HIP__|HIP_PLATFORM|"
                        r"__HIP_DEVICE_COMPILE__|ROCM|_HIP_\w*|\bHIP\b|USE_HIP|GGML_USE_HIP|__gfx\w+")
# The CUDA compiler's own macros: a test that names one of them and a ROCm macro, both plainly, is common GPU code.
CUDA_COMPILER = re.compile(r"\b(?:__CUDACC__|__NVCC__|__CUDA_ARCH__)\b")
DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c", ".hxx", ".inl")


def load(name: str) -> list[dict]:
    path = JUDGED / name
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def run_porter(tree: Path):
    """porter's result on a tree as a user gets it: the one pipeline, port status included (so a guarded spot that
    reads handled is not counted against precision)."""
    result = run(tree, Settings(jobs=2, cache_dir=None, targets=TARGETS)).result
    return result, result


def judged_lookup(result):
    """A function from one judged row to porter's finding for it (or None): by (path, rule, fingerprint), falling
    back to (path, rule, line). One spot, one finding: a judged finding whose rule porter now merges into a more
    specific one on that line (its message under data `also`) is still reported, by the keeper."""
    by_fp = {(f.path, f.rule, f.fingerprint): f for f in result.findings}
    by_line = {(f.path, f.rule, f.line): f for f in result.findings}
    for f in result.findings:
        for merged in str(dict(f.data).get("also", "")).split("\n"):
            rule = merged.split(":", 1)[0]
            if rule:
                by_line.setdefault((f.path, rule, f.line), f)
    return lambda j: (by_fp.get((j["path"], j["rule"], j["fingerprint"]))
                      or by_line.get((j["path"], j["rule"], j["line"])))


def score_findings(project: str, judged: list[dict], result) -> dict:
    lookup = judged_lookup(result)
    counts = Counter()
    gone = []
    per_rule: dict[str, Counter] = defaultdict(Counter)
    for j in judged:
        f = lookup(j)
        if f is None:
            gone.append(j)
            continue
        handled = str(f.status) in ("handled", "cuda-only")
        if str(f.severity) not in SEVERE and not j.get("guarded"):
            # Reported at info (a rename hipify does, a note): not an open item, so it leaves the precision
            # denominator as in the held-out sets' scoring; counted apart.
            counts["noted"] += 1
            counts["noted_true"] += bool(j["verdict"])
            continue
        true = bool(j["verdict"]) and (not j.get("guarded") or handled)
        counts["reported"] += 1
        counts["true"] += true
        counts["guarded_open"] += bool(j["verdict"] and j.get("guarded") and not handled)
        per_rule[j["rule"]]["reported"] += 1
        per_rule[j["rule"]]["true"] += true
    return {"counts": counts, "gone": gone, "per_rule": per_rule}


def score_kernels(judged: list[dict], analysed) -> Counter:
    kernels = {(k.path, k.name, k.line): k for k in analysed.kernels}
    by_name = {(k.path, k.name): k for k in analysed.kernels}
    c = Counter()
    for j in judged:
        k = kernels.get((j["path"], j["kernel"], j["line"])) or by_name.get((j["path"], j["kernel"]))
        if k is None:
            c["missing"] += 1
            continue
        c["pairs"] += 1
        got = k.verdict_on(j["target"]).verdict
        c["agree"] += got == j["expected"]
        if got != j["expected"]:
            c[f"disagree:{j['kernel']}@{j['target']}:{got}!={j['expected']}"] += 1
    return c


def _include_guard(lines: list[str], i: int, kind: str, cond: str) -> bool:
    """`#ifndef GKO_..._HIP_..._HPP_` followed by `#define` of the same name: a header's include guard, whatever
    its name says (ginkgo's guards spell `_HIP_`), never a ROCm guard."""
    if kind != "ifndef":
        return False
    name = cond.strip().split()[0] if cond.strip() else ""
    nxt = next((x for x in lines[i + 1:i + 3] if x.strip()), "")
    return bool(name) and re.match(rf"^\s*#\s*define\s+{re.escape(name)}\b", nxt) is not None


def blank_rocm_guards(src: Path, dst: Path) -> list[tuple[str, int, int]]:
    """Copy the tree's C/C++/CUDA files with every ROCm guard blanked; return the CUDA sides (path, first, last)."""
    sides = []
    for p in sorted(src.rglob("*")):
        if not p.is_file() or p.suffix not in SOURCE_SUFFIXES or p.is_symlink():
            continue
        rel = p.relative_to(src).as_posix()
        try:
            lines = p.read_text(encoding="utf-8").split("\n")
        except (UnicodeDecodeError, OSError):
            continue
        out = list(lines)
        stack: list[dict] = []
        for i, line in enumerate(lines):
            m = DIRECTIVE.match(line)
            if not m:
                continue
            kind, cond = m.group(1), m.group(2)
            if kind in ("if", "ifdef", "ifndef"):
                rocm = bool(ROCM_GUARD.search(cond)) and not _include_guard(lines, i, kind, cond)
                negated = kind == "ifndef" or cond.strip().startswith("!")
                stack.append({"rocm": rocm, "branch_rocm": rocm and not negated, "start": i, "first": True})
                if rocm:
                    out[i] = ""
            elif stack and kind in ("elif", "else", "endif"):
                top = stack[-1]
                if top["rocm"]:
                    if not top["branch_rocm"] and i - top["start"] > 1:
                        sides.append((rel, top["start"] + 2, i))  # 1-based lines strictly inside the CUDA branch
                    if top["branch_rocm"]:
                        for k in range(top["start"], i):
                            out[k] = ""
                    out[i] = ""
                    top["branch_rocm"] = not top["branch_rocm"] if kind == "else" else top["branch_rocm"]
                    top["start"] = i
                if kind == "endif":
                    stack.pop()
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(out), encoding="utf-8")
    return sides


def recall(tree: Path) -> tuple[int, int]:
    """Recall on the CUDA sides of the built-in ROCm guards (the old sets' blanking; see recall_sides)."""
    return recall_sides(tree, blank_rocm_guards)


SEVERE = ("low", "medium", "high", "blocker")
PY_ROCM = re.compile(r"version\.hip|version,\s*['\"]hip|is_hip\b|rocm|IS_HIP|\bis_amd\b", re.IGNORECASE)
PY_IF = re.compile(r"^(\s*)(if|elif)\s+(.+?):\s*(#.*)?$")
PY_ELSE = re.compile(r"^(\s*)(elif\s+.+|else\s*):\s*(#.*)?$")


def load_set(name: str) -> tuple[list[dict], list[dict], list[dict]]:
    """projects.json, kernels.jsonl and findings.jsonl of the held-out set in bench/judged/<name>/."""
    base = JUDGED / name
    rows = lambda f: [json.loads(x) for x in (base / f).read_text().splitlines() if x.strip()]  # noqa: E731
    return json.loads((base / "projects.json").read_text()), rows("kernels.jsonl"), rows("findings.jsonl")


def _negated(cond: str, match: re.Match) -> bool:
    """Whether the macro the guard names is tested negated (`!defined(X)`, `!X`)."""
    return bool(re.search(r"!\s*(defined\s*\(?\s*)?$", cond[:match.start()]))


def blank_guards(src: Path, dst: Path, rocm: re.Pattern, cuda: re.Pattern | None) -> list[tuple[str, int, int]]:
    """Like blank_rocm_guards, for a set whose projects name their own macros: a guard names a ROCm macro (`rocm`)
    or a CUDA-only one (`cuda`, e.g. MSCCLPP_DEVICE_CUDA), not both (`defined(WITH_CUDA) || defined(WITH_HIP)` is
    common code); a negated test flips it; an #elif is read on its own and an #else is the opposite of the first
    branch. Returns the CUDA sides (path, first, last line strictly inside)."""
    sides = []
    for p in sorted(src.rglob("*")):
        if not p.is_file() or p.suffix not in SOURCE_SUFFIXES or p.is_symlink():
            continue
        rel = p.relative_to(src).as_posix()
        try:
            lines = p.read_text(encoding="utf-8").split("\n")
        except (UnicodeDecodeError, OSError):
            continue
        out = list(lines)
        stack: list[dict | None] = []

        def side_of(kind: str, cond: str) -> bool | None:
            """True: this branch is the ROCm side; False: the CUDA side; None: not a guard."""
            r, c = rocm.search(cond), cuda.search(cond) if cuda else None
            if r and c:
                return None
            # `defined(__CUDACC__) || defined(__HIPCC__)` is GPU code both compilers take, whether or not the
            # project lists the CUDA compiler's own macros among its CUDA names.
            both = CUDA_COMPILER.search(cond)
            if r and both and kind != "ifndef" and not _negated(cond, r) and not _negated(cond, both):
                return None
            m = r or c
            if not m:
                return None
            negated = kind == "ifndef" or _negated(cond, m)
            return (bool(r) != negated) if kind != "ifndef" else not bool(r)

        for i, line in enumerate(lines):
            m = DIRECTIVE.match(line)
            if not m:
                continue
            kind, cond = m.group(1), m.group(2)
            if kind in ("if", "ifdef", "ifndef"):
                rocm_side = None if _include_guard(lines, i, kind, cond) else side_of(kind, cond)
                stack.append(None if rocm_side is None else {"first": rocm_side, "rocm": rocm_side, "start": i})
                if rocm_side is not None:
                    out[i] = ""
                continue
            if not stack:
                continue
            top = stack[-1]
            if top is not None:
                if not top["rocm"] and i - top["start"] > 1:
                    sides.append((rel, top["start"] + 2, i))
                if top["rocm"]:
                    for k in range(top["start"], i):
                        out[k] = ""
                    # A CUDA side nested in this ROCm branch is blank in the copy now: no finding can touch it.
                    sides = [x for x in sides if not (x[0] == rel and top["start"] < x[1] and x[2] <= i)]
                out[i] = ""
                if kind == "elif":
                    own = side_of("if", cond)
                    top["rocm"] = (not top["first"]) if own is None else own
                elif kind == "else":
                    top["rocm"] = not top["first"]
                top["start"] = i
            if kind == "endif":
                stack.pop()
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(out), encoding="utf-8")
    return sides


def blank_python_guards(src: Path, dst: Path) -> list[tuple[str, int, int]]:
    """Copy the tree's Python files with every one-line `if`/`elif` on a ROCm test (torch.version.hip, is_hip,
    ROCM_HOME, is_rocm_pytorch, ...) neutralised: the condition becomes a plain name and the ROCm body a `pass`,
    so the CUDA body stays where it was (same lines) without a ROCm test around it. Conditions joined by `or` are
    left alone (`CUDA_HOME is not None or is_rocm` is common code). Returns the CUDA bodies (path, first, last)."""
    sides = []
    for p in sorted(src.rglob("*.py")):
        if not p.is_file() or p.is_symlink():
            continue
        rel = p.relative_to(src).as_posix()
        try:
            lines = p.read_text(encoding="utf-8").split("\n")
        except (UnicodeDecodeError, OSError):
            continue
        out = list(lines)

        def indent(k: int) -> int:
            return len(lines[k]) - len(lines[k].lstrip())

        def body(k: int) -> tuple[int, int]:
            """Lines of the block under the header at k: (first, last), 0-based, last < first when empty."""
            j, last = k + 1, k
            while j < len(lines):
                if lines[j].strip() and indent(j) <= indent(k):
                    break
                if lines[j].strip():
                    last = j
                j += 1
            return k + 1, last

        for i, line in enumerate(lines):
            m = PY_IF.match(line)
            if not m or m.group(2) != "if" or not PY_ROCM.search(m.group(3)) or re.search(r"\bor\b", m.group(3)):
                continue
            cond = m.group(3).strip()
            negated = cond.startswith("not ") or bool(re.search(r"\bis\s+None\b|==\s*None", cond))
            branches = [(i, body(i))]
            k = branches[-1][1][1] + 1
            while k < len(lines) and not lines[k].strip():
                k += 1
            while k < len(lines) and indent(k) == indent(i) and PY_ELSE.match(lines[k]):
                branches.append((k, body(k)))
                k = branches[-1][1][1] + 1
                while k < len(lines) and not lines[k].strip():
                    k += 1
            out[i] = f"{m.group(1)}if _guard_blanked_{i + 1}:"
            for n, (head, (first, last)) in enumerate(branches):
                rocm_branch = (n == 0) != negated
                if rocm_branch:
                    if last >= first:
                        pad = " " * (indent(first) if lines[first].strip() else indent(i) + 4)
                        out[first] = pad + "pass"
                        for x in range(first + 1, last + 1):
                            out[x] = ""
                elif last >= first:
                    sides.append((rel, first + 1, last + 1))
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(out), encoding="utf-8")
    return sides


# Version 2 of the Python guard blanking (session 13). Version 1 (blank_python_guards, `--py-guards 1`) reads only
# an `if` whose own test names ROCm and calls every later branch of its chain a CUDA side; on heldout7 that missed
# lightllm's `if torch.version.cuda is not None: ... elif torch.version.hip is not None:` (the ROCm test is an
# `elif`) and TGI's `if SYSTEM == "cuda": ... elif SYSTEM == "rocm":`, and it counted the Intel IPEX, XPU and CPU
# branches of `if SYSTEM == "rocm": ... elif SYSTEM == "ipex":` as CUDA sides. Version 2 reads each branch's own
# test: a ROCm test makes a ROCm branch (blanked), a CUDA test (torch.version.cuda, an ALL-CAPS platform name
# compared to "cuda", or a project's `python_cuda_tests`) a CUDA side; a negated ROCm test is a CUDA side and a
# negated CUDA test is neither; an `else` is a CUDA side only after a ROCm branch when no branch tests CUDA;
# any other test (`SYSTEM == "ipex"`, a condition joined by `or`) is neither and is left as it is.
PY_CUDA = re.compile(r"version\.cuda\b|\b[A-Z][A-Z0-9_]{2,}\s*[!=]=\s*['\"]cuda['\"]")


def _py_branch_side(cond: str, rocm: re.Pattern, cuda: re.Pattern) -> str | None:
    """"rocm", "cuda" or None (neither / not a vendor test) for one `if`/`elif` condition."""
    if re.search(r"\bor\b", cond):
        return None
    r, c = rocm.search(cond), cuda.search(cond)
    if bool(r) == bool(c):
        return None
    m = r or c
    tail = cond[m.end():]
    negated = (cond.lstrip().startswith("not ") or bool(re.match(r"\s*(is\s+None\b|==\s*None\b|!=)", tail))
               or bool(re.search(r"!=\s*$", cond[:m.start()])))
    if r:
        return "cuda" if negated else "rocm"
    return None if negated else "cuda"


def blank_python_guards_v2(src: Path, dst: Path, rocm: re.Pattern = PY_ROCM,
                           cuda: re.Pattern = PY_CUDA) -> list[tuple[str, int, int]]:
    """Version 2 of blank_python_guards (see above): every `if`/`elif`/`else` chain of one-line conditions with a
    ROCm or CUDA branch has its ROCm branches' bodies replaced by `pass` and its vendor tests by plain names, on the
    same lines. Returns the CUDA bodies (path, first, last)."""
    sides = []
    for p in sorted(src.rglob("*.py")):
        if not p.is_file() or p.is_symlink():
            continue
        rel = p.relative_to(src).as_posix()
        try:
            lines = p.read_text(encoding="utf-8").split("\n")
        except (UnicodeDecodeError, OSError):
            continue
        out = list(lines)

        def indent(k: int) -> int:
            return len(lines[k]) - len(lines[k].lstrip())

        def body(k: int) -> tuple[int, int]:
            j, last = k + 1, k
            while j < len(lines):
                if lines[j].strip() and indent(j) <= indent(k):
                    break
                if lines[j].strip():
                    last = j
                j += 1
            return k + 1, last

        blanked: set[int] = set()  # lines of ROCm bodies already blanked: chains nested in them are gone
        for i, line in enumerate(lines):
            m = PY_IF.match(line)
            if not m or m.group(2) != "if" or i in blanked:
                continue
            chain = [(i, m.group(3).strip(), body(i))]
            k = chain[-1][2][1] + 1
            while k < len(lines) and not lines[k].strip():
                k += 1
            while k < len(lines) and indent(k) == indent(i) and PY_ELSE.match(lines[k]):
                e = PY_IF.match(lines[k])
                chain.append((k, e.group(3).strip() if e else None, body(k)))
                k = chain[-1][2][1] + 1
                while k < len(lines) and not lines[k].strip():
                    k += 1
            kinds = [_py_branch_side(cond, rocm, cuda) if cond is not None else "else" for _, cond, _ in chain]
            if "rocm" not in kinds and "cuda" not in kinds:
                continue
            if kinds[-1] == "else":
                kinds[-1] = "cuda" if "rocm" in kinds and "cuda" not in kinds else None
            for n, ((head, cond, (first, last)), kind) in enumerate(zip(chain, kinds)):
                if kind is None:
                    continue
                if cond is not None:
                    word = "if" if n == 0 else "elif"
                    out[head] = f"{' ' * indent(head)}{word} _guard_blanked_{head + 1}:"
                if kind == "rocm":
                    if last >= first:
                        pad = " " * (indent(first) if lines[first].strip() else indent(head) + 4)
                        out[first] = pad + "pass"
                        for x in range(first + 1, last + 1):
                            out[x] = ""
                        blanked.update(range(first, last + 1))
                elif last >= first:
                    sides.append((rel, first + 1, last + 1))
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(out), encoding="utf-8")
    return sides


def recall_sides(tree: Path, blank) -> tuple[int, int]:
    """Recall of the CUDA sides `blank` writes into a copy of `tree`: sides touched by a finding at most 10 lines
    wide in porter's scan of the copy / sides."""
    detail = touched_sides(tree, blank)
    return sum(hit for *_, hit in detail), len(detail)


def touched_sides(tree: Path, blank) -> list[tuple[str, int, int, bool]]:
    """Each CUDA side `blank` writes into a copy of `tree` (path, first, last) and whether a finding at most 10
    lines wide in porter's scan of the copy touches it."""
    with tempfile.TemporaryDirectory(prefix="porter-recall-") as tmp:
        sides = blank(tree, Path(tmp))
        if not sides:
            return []
        result = scan(Path(tmp), Settings(jobs=2, cache_dir=None, targets=TARGETS))
        spans = defaultdict(list)
        for f in result.findings:
            if f.end_line - f.line <= 10:
                spans[f.path].append((f.line, f.end_line))
        return [(path, a, b, any(x <= b and a <= y for x, y in spans.get(path, ()))) for path, a, b in sides]


def load_guards(name: str) -> list[dict]:
    """guards.jsonl of a held-out set (every blanked CUDA side judged real or not), or [] when the set has none."""
    path = JUDGED / name / "guards.jsonl"
    if not path.is_file():
        return []
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def real_recall(judged: list[dict], detail: list[tuple[str, int, int, bool]], kind: str) -> tuple[int, int, int]:
    """Recall over the sides judged real: (real sides touched, real sides the blanker still writes, real rows of
    `kind` it no longer writes). The blanker reads some common or ROCm branches as CUDA sides (an `and not
    is_hip` test, an `is_hiprtc` name); guards.jsonl says which sides are real port work, so this recall counts
    only those. A row is matched by (path, first, last)."""
    hit = {(path, a, b): touched for path, a, b, touched in detail}
    real = [(r["path"], r["first"], r["last"]) for r in judged if r["kind"] == kind and r["real"]]
    found = [hit[key] for key in real if key in hit]
    return sum(found), len(found), len(real) - len(found)


def uncompiled_line(tree: Path | None, path: str, line: int) -> str | None:
    """Why no compiler sees `line` of `tree/path`, if none does: "comment" (inside a comment: `/* __global__ ... */`)
    or "dead arm" (in `#if 0`, the `#else` of `#if 1`: porter.source.preprocessor's dead lines); else None. A judged
    kernel there is one no build has, which porter rightly does not list (sessions 21-23: four such kernels were
    drawn, each judged ok)."""
    if tree is None or not (tree / path).is_file():
        return None
    from porter.source import preprocessor

    data = (tree / path).read_bytes()
    pp, code = preprocessor._preprocess(data)
    if line in pp.dead:
        return "dead arm"
    raw, blanked = data.splitlines(), code.splitlines()
    if 0 < line <= min(len(raw), len(blanked)) and raw[line - 1].strip() and not blanked[line - 1].strip():
        return "comment"
    return None


def kernel_by_target(judged: list[dict], analysed, disagree: list[str] | None = None,
                     tree: Path | None = None) -> dict[str, Counter]:
    """Agreement per target. A judged kernel is found by (path, name, line), else by (path, name) with the judged
    `__global__` line inside porter's extent (porter reports a template's `template` line), else by (path, name).
    `disagree`, when given, gets one line per pair porter gets wrong (or whose kernel it does not find). With `tree`,
    a kernel porter does not find whose judged line no compiler sees (uncompiled_line) is also counted apart
    (`uncompiled`); it still counts as missing, so agreement is as before."""
    exact = {(k.path, k.name, k.line): k for k in analysed.kernels}
    named = defaultdict(list)
    for k in analysed.kernels:
        named[(k.path, k.name)].append(k)
    out: dict[str, Counter] = {t: Counter() for t in TARGETS}
    # A kernel whose name a function-like macro writes (`__global__ void STARPUFFT(cuda_twiddle_1d)(...)`, pasted to
    # starpufft_cuda_twiddle_1d or starpufftf_... per precision) is porter's `STARPUFFT(cuda_twiddle_1d)`; a judge may
    # name it by the macro alone: the one such kernel whose extent holds the judged line is the same kernel.
    by_macro = defaultdict(list)
    for k in analysed.kernels:
        if "(" in k.name:
            by_macro[(k.path, k.name.split("(", 1)[0])].append(k)
    for j in judged:
        cands = named.get((j["path"], j["kernel"]), []) or [
            k for k in by_macro.get((j["path"], j["kernel"]), []) if k.line <= j["line"] <= k.end_line]
        k = exact.get((j["path"], j["kernel"], j["line"])) or next(
            (c for c in cands if c.line <= j["line"] <= c.end_line), None) or (cands[-1] if cands else None)
        c = out[j["target"]]
        if k is None:
            c["missing"] += 1
            why = uncompiled_line(tree, j["path"], j["line"])
            c["uncompiled"] += why is not None
            if disagree is not None:
                disagree.append(f"not found: {j['kernel']} {j['path']}:{j['line']} {j['target']}"
                                + (f" (the judged line is in a {why}: no build compiles it)" if why else ""))
            continue
        c["pairs"] += 1
        got = k.verdict_on(j["target"]).verdict
        c["agree"] += got == j["expected"]
        if disagree is not None and got != j["expected"]:
            disagree.append(f"{j['kernel']} {j['path']}:{j['line']} {j['target']}: porter {got}, judged "
                            f"{j['expected']} ({j.get('reason', '')[:160]})")
    return out


def score_open_findings(judged: list[dict], result, false: list[str] | None = None) -> Counter:
    """Precision over the judged findings porter still reports open, and how many judged-real ones stay open.
    Judged real = verdict true and not guarded (a guarded spot is handled for HIP, so reading it open is wrong).
    Open means status open and severity low or worse, the sample's own definition (sample_findings.py drew open
    findings of severity low or worse): a finding porter now reports at info (a note, not open work) leaves the
    denominator as a handled one does, and counts against real kept when it was judged real.
    `false`, when given, gets one line per judged-false finding porter still reads open. A judged finding whose rule
    porter now merges into a more specific one on that line (data `also`) is reported by the keeper, as in
    score_findings."""
    lookup = judged_lookup(result)
    c = Counter()
    for j in judged:
        f = lookup(j)
        real = bool(j["verdict"]) and not j.get("guarded")
        is_open = is_open_finding(f)
        c["judged"] += 1
        c["real"] += real
        c["gone"] += f is None
        c["open"] += is_open
        c["open_real"] += is_open and real
        if false is not None and is_open and not real:
            false.append(f"false: {j['rule']} {j['path']}:{j['line']} {j.get('reason', '')[:160]}")
    return c


def is_open_finding(f) -> bool:
    """Open as the held-out samples define it: status open and severity low or worse (None: porter reports nothing)."""
    return f is not None and str(f.status) == "open" and str(f.severity) in SEVERE


def density(result) -> tuple[int, int]:
    """(open findings of severity low or worse, lines porter scanned)."""
    n = sum(1 for f in result.findings if is_open_finding(f))
    return n, sum(fr.lines for fr in result.files)


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.1%} ({a}/{b})" if b else "n/a"


def missed_real(judged: list[dict], detail: list[tuple[str, int, int, bool]], kind: str) -> list[str]:
    """One line per side judged real that no finding touches (path:first-last and the judge's reason): what a
    recall mechanism has to catch next."""
    hit = {(path, a, b): touched for path, a, b, touched in detail}
    return [f"missed {kind}: {r['path']}:{r['first']}-{r['last']} {r.get('reason', '')[:160]}"
            for r in judged if r["kind"] == kind and r["real"] and hit.get((r["path"], r["first"], r["last"])) is False]


def score_set(name: str, specs: list[str], root: Path | None, with_recall: bool, show_false: bool = False,
              py_guards: int = 2, show_missed: bool = False, kernels_file: Path | None = None) -> int:
    projects, kernels, findings = load_set(name)
    if kernels_file is not None:
        # An adjudicated expectation file replaces the set's own kernels.jsonl (sessions 16b-17 passed --kernels
        # here and it was silently ignored, so "adjudicated" figures were the unadjudicated ones).
        kernels = [json.loads(line) for line in kernels_file.read_text().splitlines() if line.strip()]
    guards = load_guards(name)
    trees = {}
    for spec in specs:
        project, _, path = spec.partition("=")
        trees[project] = Path(path)
    for p in projects:
        if p["project"] not in trees and root is not None:
            trees[p["project"]] = root / p["tree"]
    total_k = {t: Counter() for t in TARGETS}
    total_f, total_d, total_r = Counter(), Counter(), Counter()
    py_label = " (v2)" if py_guards == 2 else ""  # version 1 prints as before, so old lines compare
    for p in projects:
        project = p["project"]
        tree = trees.get(project)
        if tree is None:
            continue
        if not tree.is_dir():
            print(f"{project}: {tree} is not a directory", file=sys.stderr)
            return 2
        result, analysed = run_porter(tree)
        shown: list[str] | None = [] if show_false else None
        k = kernel_by_target([j for j in kernels if j["project"] == project], analysed, shown, tree)
        f = score_open_findings([j for j in findings if j["project"] == project], result, shown)
        n_open, lines = density(result)
        for t in TARGETS:
            total_k[t].update(k[t])
        total_f.update(f)
        total_d.update({"open": n_open, "lines": lines})
        # A judged kernel porter does not find counts against it: agreement is over every judged pair.
        agree = ", ".join(f"{t} {_ratio(k[t]['agree'], k[t]['pairs'] + k[t]['missing'])}" for t in TARGETS)
        missing = sum(k[t]["missing"] for t in TARGETS)
        uncompiled = sum(k[t]["uncompiled"] for t in TARGETS)
        gone = f" | {f['gone']} judged gone" if f["gone"] else ""
        unfound = (f" ({missing} judged pairs whose kernel porter does not find"
                   + (f", {uncompiled} of them in code no build compiles" if uncompiled else "") + ")") if missing else ""
        line = (f"{project}: kernels {agree}{unfound} | precision "
                f"{_ratio(f['open_real'], f['open'])} | real kept {_ratio(f['open_real'], f['real'])}"
                f"{gone} | "
                f"density {n_open / lines * 1000 if lines else 0:.2f}/kLOC ({n_open} open in {lines} lines)")
        if with_recall and p.get("dual"):
            extra_rocm = "|".join(re.escape(x) for x in p.get("rocm_macros", ()))
            rocm = re.compile(ROCM_GUARD.pattern + (f"|\\b(?:{extra_rocm})\\b" if extra_rocm else ""))
            cuda_names = "|".join(re.escape(x) for x in p.get("cuda_macros", ()))
            cuda = re.compile(f"\\b(?:{cuda_names})\\b") if cuda_names else None
            c_sides = touched_sides(tree, lambda s, d: blank_guards(s, d, rocm, cuda))
            py_sides = touched_sides(tree, blank_python_guards_v2 if py_guards == 2 else blank_python_guards)
            c_hit, c_all = sum(t for *_, t in c_sides), len(c_sides)
            py_hit, py_all = sum(t for *_, t in py_sides), len(py_sides)
            total_r.update({"c": c_hit, "c_all": c_all, "py": py_hit, "py_all": py_all})
            line += f" | recall C/C++ {_ratio(c_hit, c_all)}, Python{py_label} {_ratio(py_hit, py_all)}"
            mine = [g for g in guards if g["project"] == project]
            if mine:
                rc_hit, rc_all, rc_gone = real_recall(mine, c_sides, "c")
                rp_hit, rp_all, rp_gone = real_recall(mine, py_sides, "python")
                total_r.update({"rc": rc_hit, "rc_all": rc_all, "rp": rp_hit, "rp_all": rp_all})
                gone = f" ({rc_gone + rp_gone} judged-real sides no longer blanked)" if rc_gone + rp_gone else ""
                line += f" | judged-real recall C/C++ {_ratio(rc_hit, rc_all)}, Python{py_label} {_ratio(rp_hit, rp_all)}{gone}"
                if show_missed:
                    shown = (shown or []) + missed_real(mine, c_sides, "c") + missed_real(mine, py_sides, "python")
        print(line)
        for item in shown or ():
            print(f"    {item}")
    agree = ", ".join(f"{t} {_ratio(total_k[t]['agree'], total_k[t]['pairs'] + total_k[t]['missing'])}"
                      for t in TARGETS)
    all_pairs = sum(total_k[t]["pairs"] + total_k[t]["missing"] for t in TARGETS)
    all_agree = sum(total_k[t]["agree"] for t in TARGETS)
    line = (f"all: kernels {agree}, together {_ratio(all_agree, all_pairs)} | precision "
            f"{_ratio(total_f['open_real'], total_f['open'])} | real kept "
            f"{_ratio(total_f['open_real'], total_f['real'])}"
            f" | density {total_d['open'] / total_d['lines'] * 1000 if total_d['lines'] else 0:.2f}/kLOC "
            f"({total_d['open']} open in {total_d['lines']} lines)")
    if with_recall:
        line += (f" | recall C/C++ {_ratio(total_r['c'], total_r['c_all'])}, "
                 f"Python{py_label} {_ratio(total_r['py'], total_r['py_all'])}")
        if guards:
            line += (f" | judged-real recall C/C++ {_ratio(total_r['rc'], total_r['rc_all'])}, "
                     f"Python{py_label} {_ratio(total_r['rp'], total_r['rp_all'])}")
    print(line)
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trees", nargs="*", help="PROJECT=PATH, e.g. NVIDIA/apex=/tmp/apex")
    ap.add_argument("--recall", action="store_true", help="also measure recall on blanked ROCm guards")
    ap.add_argument("--show-false", action="store_true", help="list the judged false positives still reported")
    ap.add_argument("--show-missed", action="store_true",
                    help="with --set and --recall: list the sides judged real that no finding touches")
    ap.add_argument("--kernels", type=Path, default=None,
                    help="kernel expectations to score (default bench/judged/kernels.jsonl; e.g. the held-out "
                         "bench/judged/kernels_heldout.jsonl)")
    ap.add_argument("--set", default=None,
                    help="score a held-out set kept in bench/judged/<SET>/ (e.g. heldout3), one line per project")
    ap.add_argument("--root", type=Path, default=None,
                    help="with --set: the directory holding each project's tree under projects.json's `tree` name")
    ap.add_argument("--py-guards", type=int, choices=(1, 2), default=2,
                    help="Python guard blanking for --recall with --set: 2 (default, session 13) reads each branch "
                         "of an if/elif/else chain by its own test; 1 reproduces the numbers of sessions 11-12")
    args = ap.parse_args(argv)
    if args.set is not None:
        if not (JUDGED / args.set / "projects.json").is_file():
            print(f"--set: no bench/judged/{args.set}/projects.json", file=sys.stderr)
            return 2
        if not args.trees and args.root is None:
            print("--set needs --root DIR or PROJECT=PATH trees", file=sys.stderr)
            return 2
        if args.kernels is not None and not args.kernels.is_file():
            print(f"--kernels: {args.kernels} is not a file", file=sys.stderr)
            return 2
        return score_set(args.set, args.trees, args.root, args.recall, args.show_false, args.py_guards,
                         args.show_missed, args.kernels)
    if not args.trees:
        print("give at least one PROJECT=PATH tree", file=sys.stderr)
        return 2
    findings = load("findings.jsonl")
    if args.kernels is None:
        kernels = load("kernels.jsonl")
    elif args.kernels.is_file():
        kernels = [json.loads(line) for line in args.kernels.read_text().splitlines() if line.strip()]
    else:
        print(f"--kernels: {args.kernels} is not a file", file=sys.stderr)
        return 2
    total = Counter()
    ktotal = Counter()
    for spec in args.trees:
        project, _, path = spec.partition("=")
        tree = Path(path)
        if not tree.is_dir():
            print(f"{project}: {tree} is not a directory", file=sys.stderr)
            return 2
        result, analysed = run_porter(tree)
        fj = [j for j in findings if j["project"] == project]
        kj = [j for j in kernels if j["project"] == project]
        s = score_findings(project, fj, result)
        c = s["counts"]
        k = score_kernels(kj, analysed)
        total.update(c)
        ktotal.update({key: v for key, v in k.items() if not key.startswith("disagree")})
        prec = f"{c['true'] / c['reported']:.1%}" if c["reported"] else "n/a"
        agree = f"{k['agree'] / k['pairs']:.1%}" if k["pairs"] else "n/a"
        gone_true = sum(1 for j in s["gone"] if j["verdict"])
        noted = (f"; {c['noted']} reported at info only, {c['noted_true']} of them judged true"
                 if c["noted"] else "")
        line = (f"{project}: precision {prec} ({c['true']}/{c['reported']} judged findings still reported at low or "
                f"worse{noted}; "
                f"{c['guarded_open']} true but guarded-for-HIP and read open; {len(s['gone'])} gone, {gone_true} of "
                f"them judged true) | kernel agreement {agree} ({k['agree']}/{k['pairs']} kernel-target pairs"
                f"{', ' + str(k['missing']) + ' kernels not found' if k['missing'] else ''})")
        if args.recall:
            touched, sides = recall(tree)
            line += f" | recall {touched}/{sides}" + (f" = {touched / sides:.1%}" if sides else "")
        print(line)
        for key in sorted(x for x in k if x.startswith("disagree")):
            print(f"    {key[9:]}")
        if args.show_false:
            # The ones counted false: judged false, or guarded for HIP while porter reads them open.
            status = {(f.path, f.rule, f.fingerprint): str(f.status) for f in result.findings
                      if str(f.severity) in SEVERE or str(f.status) != "open"}
            for j in fj:
                got = status.get((j["path"], j["rule"], j["fingerprint"]))
                if got is not None and (not j["verdict"] or (j.get("guarded") and got == "open")):
                    print(f"    false: {j['rule']} {j['path']}:{j['line']} {j['reason']}")
    if total["reported"]:
        print(f"all: precision {total['true'] / total['reported']:.1%} ({total['true']}/{total['reported']}), "
              f"{total['guarded_open']} guarded-for-HIP read open; kernel agreement "
              f"{(ktotal['agree'] / ktotal['pairs']) if ktotal['pairs'] else 0:.1%} ({ktotal['agree']}/{ktotal['pairs']})")
    elif args.kernels is not None and ktotal["pairs"]:
        # A kernels-only set (the held-out one has no judged findings).
        print(f"all: kernel agreement {ktotal['agree'] / ktotal['pairs']:.1%} ({ktotal['agree']}/{ktotal['pairs']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
