"""Draw the heldout49 kernels to judge, without porter: heldout9's fixed-seed procedure, a new seed, 8 per project.

    python bench/judged/heldout49/select_kernels.py /tmp/h49/h49 [--seed 3491] [--bodies]

reads projects.json (order, tree directory names under ROOT, paths left out of the draw) and prints, per project,
the definitions found and the kernels drawn (path:first-last name). Per project, in the table's order and with one
random.Random(seed): rng.sample of SHORT_FIRST (4) from the definitions of at most 100 lines, then rng.choice of one
(any length, not yet drawn) whose body matches TENSOR_CORE, then rng.choice of one (not yet drawn) matching WARP, then
random definitions of at most 100 lines until there are PER_PROJECT (8), then, when the short ones run out, random
definitions of any length until there are 8 (all of them when fewer).

heldout6 (issue 27, session 11) keeps heldout5's definitions, strata and exclusions (`.c`/`.cc` files count; test
and benchmark files are left out; `@triton.jit` functions are definitions, `tl.dot` puts one in the tensor-core
stratum, and one whose body returns a value is a device helper, not drawn). Changes: 15 per project (ten projects
give at most 150 kernels) and 13 short ones before the two strata. `--bodies` also prints each drawn kernel's text.

heldout7 (issue 27, session 12) keeps heldout6's definitions, strata and exclusions with 4 per project (eight
projects give at most 32 kernels, so each can be read whole with its helpers in one session), 2 short ones before
the two strata, and definitions inside `#if 0` branches left out (never compiled: a first draw picked two of
superlu_dist's retired kernels there, so this was added before any kernel was judged or porter run), and
`@triton.jit` examples inside docstrings left out (text-generation-inference's custom_autotune.py; added with that
ninth project, before its kernels were judged; the first eight projects' draws are unchanged by it).

heldout8 (issue 27, session 13) keeps heldout7's definitions, strata and exclusions (the `#if 0` and docstring rules
included) with 8 per project, 4 short ones before the two strata, and seed 2808: ten projects, one of them (sigpy)
with no CUDA or Triton kernel definitions, give at most 72 kernels.

heldout9 (issue 27, session 14) keeps heldout8's definitions, strata, exclusions and counts (8 per project, 4 short
ones before the two strata) with seed 2908: eleven projects, one of them (tilelang) with no `__global__` or `@triton.jit`
definition in its archive, give at most 80 kernels. instant-ngp (tenth) and ThunderKittens (eleventh) were appended
after the projects before them had been judged, committed and scanned, each judged and committed before porter ran
on its own tree; appending leaves the earlier draws unchanged.

heldout10 (issue 27, session 15) keeps heldout9's definitions, strata, exclusions and counts (8 per project, 4 short
ones before the two strata) with seed 3008: ten projects give 72 kernels (pplx-kernels has 5 definitions, flash-llm 3).

heldout12 (issue 27, session 16) keeps heldout10's definitions, strata, exclusions and counts (8 per project, 4 short
ones before the two strata) with seed 3021: five non-dual projects.

heldout14 (issue 27, session 17) keeps heldout12's definitions, strata, exclusions and counts (8 per project, 4 short
ones before the two strata) with seed 3141: five non-dual projects. It prints the drawn list only (no verdicts), so
a second judge can run it before judging. Two definition changes, made after the first listing and before any
kernel was read or judged: `.cuknl` files count (CloverLeaf_CUDA keeps all its kernels in `kernel_files/*.cuknl`,
which its `.cu` files `#include`), and symbolic links are skipped (GAMER's `GPU_*/` directories link `.cu` names to
the `CPU_*/` sources, which nvcc compiles as CUDA; a link repeats its target's text, so it would draw a kernel twice).
No earlier set's tree has a `.cuknl` file; earlier sets' draws are not re-run with this script.
heldout16 (issue 27, session 18) keeps heldout14's definitions (`.cuh`/`.cuknl` files, symbolic links skipped),
strata, exclusions and counts (8 per project, 4 short ones before the two strata) with seed 3161: five non-dual
projects (OpenPPL's vendored flash-attention and xformers copies are left out of its archive in projects.json, so
they are neither drawn nor scanned). It prints the drawn list only (no verdicts), so a second judge can run it
before judging.
heldout18 (issue 27, session 19) keeps heldout16's definitions, strata, exclusions and counts (8 per project, 4 short
ones before the two strata) with seed 3181: five non-dual projects. It prints the drawn list only (no verdicts), so
a second judge can run it before judging.
One change to the `#if 0` rule, made after the first listing (GenomeWorks' and ccminer's drawn kernels had been
read, no LeetCUDA or jetson-utils kernel): a `/* ... */` comment after the `0` no longer hides the branch (`#if 0  /*
Simon's code */` in treecode/Bonsai's depthSort.cu had put a never-compiled `assignColorsKernel` in the draw).
GenomeWorks' and ccminer's definitions and draws are unchanged by it. Bonsai, third in the first listing, was then
dropped before any verdict (most of its kernels are declared through a KERNEL_DECLARE macro this script cannot see,
and 5 of its 14 visible definitions sit in an unused vendored b40c copy) and GPUSPH took its place; the three later
projects were drawn afresh with this script as it stands.
heldout20 (issue 27, session 20) keeps heldout18's definitions (including its `#if 0` rule), strata, exclusions and
counts (8 per project, 4 short ones before the two strata) with seed 3201: five non-dual projects. It prints the drawn
list only (no verdicts), so a second judge can run it before judging. No change to the script's logic.
heldout22 (issue 27, session 21) keeps heldout20's definitions (including its `#if 0` rule), strata, exclusions and
counts (8 per project, 4 short ones before the two strata) with seed 3221: five non-dual projects. It prints the drawn
list only (no verdicts), so a second judge can run it before judging. One change, made after the first listing and
before any kernel was read or judged: the device-helper test (a body that returns a value) no longer lets `\s` run
over the line end, so a bare early `return` followed by code on the next line no longer hides a launched kernel
(native-sparse-attention-triton's forward/backward kernels all have one; the first listing found 6 of its kernels).
Earlier sets' draws are not re-run with this script.
heldout24 (issue 27, session 22) keeps heldout22's definitions (including its `#if 0` rule and Triton helper test),
strata, exclusions and counts (8 per project, 4 short ones before the two strata) with seed 3241: five non-dual
projects. It prints the drawn list only (no verdicts), so a second judge can run it before judging. No change to the
script's logic.
heldout26 (issue 27, session 23) keeps heldout24's definitions (including its `#if 0` rule and Triton helper test),
strata, exclusions and counts (8 per project, 4 short ones before the two strata) with seed 3261: five non-dual
projects. It prints the drawn list only (no verdicts), so a second judge can run it before judging. No change to the
script's logic.
heldout29 (issue 27, session 24) keeps heldout26's definitions (including its `#if 0` rule and Triton helper test),
strata, exclusions and counts (8 per project, 4 short ones before the two strata) with seed 3291: five non-dual
projects. It prints the drawn list only (no verdicts), so a second judge can run it before judging. No change to the
script's logic.
heldout38 (issue 27, session 28) keeps heldout29's definitions (including its `#if 0` rule and Triton helper test),
strata, exclusions and counts (8 per project, 4 short ones before the two strata) with seed 3381: five non-dual
projects. It prints the drawn list only (no verdicts), so a second judge can run it before judging. One change, made
before the first listing (the brief asks not to draw near-identical copies of one kernel): a definition whose kernel
name and parameter list (the text from the name to the opening `{`, whitespace collapsed, `__launch_bounds__(...)`
removed) equal those of an earlier definition of the same project (files in sorted path order) is a near-identical
copy (an overload twin or a second header copy) and is not a definition to draw; only the first is kept.
The fifth project (uDeviceX) was appended to projects.json after the first four projects' verdicts were committed
and before porter ran on any tree; one random.Random is shared in table order, so the first four draws are unchanged.
heldout41 (issue 27, session 29) keeps heldout38's definitions (including its `#if 0` rule, Triton helper test and
near-identical-copy rule), strata, exclusions and counts (8 per project, 4 short ones before the two strata) with seed
3411 (set before the first run): five non-dual CUDA-only projects. One rule is taken from heldout39's script, before
the first listing: a definition whose kernel name, or whose whitespace-collapsed body, an earlier definition of the
same project (sorted path order) already has is a copy and counts once (GPU-NTT writes its NTT kernels as 32-bit and
64-bit overloads of one name). It prints the drawn list only (no verdicts), so a second judge can run it before
judging. The fifth project (PointRCNN) was appended to projects.json after the first listing and before any kernel was
judged or porter run; one random.Random is shared in table order, so the first four draws are unchanged (the two
listings were diffed).
heldout44 (issue 27, session 30) keeps heldout41's definitions (including the `#if 0` rule, Triton helper test,
near-identical-copy rule and heldout39's name/body rule), strata, exclusions and counts (8 per project, 4 short ones
before the two strata) with seed 3441, set before the first run: four non-dual CUDA-only projects. No change to the
script's logic. It prints the drawn list only (no verdicts), so a second judge can run it before judging.
heldout49 (issue 27, session 31) keeps heldout44's definitions, strata, exclusions and counts with seed 3491, set
before the first run: three non-dual CUDA-only projects. No change to the script's logic.
"""
from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXTS = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".inl", ".c", ".cc", ".cuknl")
TENSOR_CORE = re.compile(r"\bmma\b|wmma|asm\s*(volatile\s*)?\(|tl\.dot\b")
WARP = re.compile(r"__shfl|__ballot|__activemask|__syncwarp|__any_sync|__all_sync|[Ww]arp_?[Rr]educe")
PER_PROJECT = 8
SHORT_FIRST = 4
TEST = re.compile(r"(^|/)(tests?|benchmarks?|bench)/|(^|/)test_|_test\.|_tests?\.|benchmark")


def dead_lines(lines: list[str]) -> set[int]:
    """Indices of the lines inside an `#if 0` branch (up to its `#else`/`#elif`/`#endif`, nesting counted): code
    that is never compiled, so not a kernel to judge (superlu_dist keeps retired kernels under `#if 0`)."""
    dead: set[int] = set()
    stack: list[bool] = []  # per open #if: whether this branch is dead
    for i, line in enumerate(lines):
        m = re.match(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)", line)
        if m:
            kind, cond = m.group(1), re.sub(r"/\*.*?\*/", "", m.group(2).split("//")[0]).strip()
            outer = any(stack)
            if kind in ("if", "ifdef", "ifndef"):
                stack.append(kind == "if" and cond == "0")
            elif kind in ("elif", "else") and stack:
                stack[-1] = False if not outer else stack[-1]
            elif kind == "endif" and stack:
                stack.pop()
            continue
        if any(stack):
            dead.add(i)
    return dead


def cuda_definitions(rel: str, text: str) -> list[dict]:
    """Every `__global__` definition (a `{` before any `;`) outside lines starting with //, #, * or /* and outside
    `#if 0` branches: name (the identifier before the first `(` once __launch_bounds__(...) is removed), first and
    last line (brace matching)."""
    out = []
    lines = text.split("\n")
    dead = dead_lines(lines)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    for i, line in enumerate(lines):
        if "__global__" not in line or line.lstrip().startswith(("//", "#", "*", "/*")) or i in dead:
            continue
        start = offsets[i] + line.index("__global__")
        rest = text[start:]
        brace, semi = rest.find("{"), rest.find(";")
        if brace < 0 or 0 <= semi < brace:
            continue
        head = re.sub(r"__launch_bounds__\s*\([^)]*\)", "", rest[:brace])
        m = re.search(r"([A-Za-z_]\w*)\s*\(", head[len("__global__"):])
        if not m:
            continue
        depth, j = 0, start + brace
        while j < len(text):
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        end = text.count("\n", 0, j) + 1
        out.append({"path": rel, "line": i + 1, "end": end, "kernel": m.group(1), "length": end - i,
                    "body": text[start:j + 1]})
    return out


def triton_definitions(rel: str, text: str) -> list[dict]:
    """Every function decorated `@triton.jit` (other decorators may stand between) outside triple-quoted strings:
    name, `def` line, last line of the body (the last non-blank line indented deeper than the `def`)."""
    out = []
    lines = text.split("\n")
    in_string = False  # inside a triple-quoted string: a docstring's example is not a kernel
    for i, line in enumerate(lines):
        was_in_string = in_string
        in_string ^= (line.count('"""') + line.count("'''")) % 2 == 1
        if was_in_string or not re.match(r"\s*@triton\.jit\b", line):
            continue
        k = i + 1
        while k < len(lines) and lines[k].lstrip().startswith("@"):
            k += 1
        m = re.match(r"(\s*)def\s+([A-Za-z_]\w*)\s*\(", lines[k]) if k < len(lines) else None
        if not m:
            continue
        indent, last, j = len(m.group(1)), k, k + 1
        while j < len(lines):
            s = lines[j]
            if s.strip():
                if len(s) - len(s.lstrip()) <= indent and not s.lstrip().startswith(")"):
                    break
                last = j
            j += 1
        body = "\n".join(lines[k:last + 1])
        if re.search(r"^[ \t]*return[ \t]+[^\s#]", body, re.M):
            continue  # a device helper: a launched Triton kernel returns nothing
        out.append({"path": rel, "line": k + 1, "end": last + 1, "kernel": m.group(2), "length": last - k + 1,
                    "body": body})
    return out


def signature(k: dict) -> str:
    """The kernel's name and parameter list, whitespace collapsed: equal signatures mark near-identical copies."""
    head = re.sub(r"__launch_bounds__\s*\([^)]*\)", "", k["body"].split("{", 1)[0] if k["path"].endswith(EXTS) else
                  k["body"].split(":", 1)[0])
    head = head[head.find(k["kernel"]):]
    return " ".join(head.split())


def definitions(root: Path, excluded: tuple[str, ...]) -> list[dict]:
    out = []
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.is_symlink() or p.suffix not in EXTS + (".py",):
            continue
        rel = p.relative_to(root).as_posix()
        if (excluded and rel.startswith(excluded)) or TEST.search(rel):
            continue
        text = p.read_text(errors="replace")
        out.extend(triton_definitions(rel, text) if p.suffix == ".py" else cuda_definitions(rel, text))
    seen: set[str] = set()
    kept = []
    for k in out:  # heldout38: near-identical copies (same name and parameter list) are drawn once
        sig = signature(k)
        if sig not in seen:
            seen.add(sig)
            kept.append(k)
    return distinct(kept)


def distinct(defs: list[dict]) -> list[dict]:
    """heldout39's rule: one definition per kernel; a definition whose name, or whose whitespace-collapsed body, an
    earlier one (path order) already has is a copy and is left out."""
    out, names, bodies = [], set(), set()
    for k in defs:
        body = re.sub(r"\s+", " ", k["body"]).strip()
        if k["kernel"] in names or body in bodies:
            continue
        names.add(k["kernel"])
        bodies.add(body)
        out.append(k)
    return out


def draw(root: Path, seed: int, bodies: bool = False) -> dict[str, list[dict]]:
    rng = random.Random(seed)
    chosen = {}
    for p in json.loads((HERE / "projects.json").read_text()):
        defs = definitions(root / p["tree"], tuple(p["select_exclude"]))
        short = [k for k in defs if k["length"] <= 100]
        pick = rng.sample(short, min(SHORT_FIRST, len(short)))
        for pattern in (TENSOR_CORE, WARP):
            pool = [k for k in defs if pattern.search(k["body"]) and k not in pick]
            if pool:
                pick.append(rng.choice(pool))
        rest = [k for k in short if k not in pick]
        while len(pick) < PER_PROJECT and rest:
            k = rng.choice(rest)
            rest.remove(k)
            pick.append(k)
        rest = [k for k in defs if k not in pick]
        while len(pick) < PER_PROJECT and rest:
            k = rng.choice(rest)
            rest.remove(k)
            pick.append(k)
        chosen[p["project"]] = pick
        n_tc = sum(1 for k in defs if TENSOR_CORE.search(k["body"]))
        n_warp = sum(1 for k in defs if WARP.search(k["body"]))
        print(f"{p['project']}: {len(defs)} definitions, {len(short)} of at most 100 lines, "
              f"{n_tc} tensor-core/PTX, {n_warp} warp-level")
        for k in pick:
            print(f"    {k['path']}:{k['line']}-{k['end']} {k['kernel']} ({k['length']} lines)")
            if bodies:
                print(k["body"])
    return chosen


if __name__ == "__main__":
    args = sys.argv[1:]
    seed = 3491
    bodies = "--bodies" in args
    if bodies:
        args.remove("--bodies")
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        raise SystemExit(2)
    draw(Path(args[0]), seed, bodies)
