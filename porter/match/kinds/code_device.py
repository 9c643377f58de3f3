"""Where a hit of a code pattern sits (porter.match.kinds.code): in code compiled for the GPU, in a function doing
warp-level work (a `/ 32` that divides by the hardware warp), or in a string that holds PTX."""
from __future__ import annotations

import re
from typing import Iterator

from porter.match.regex import compile_regex as linear_regex
from porter.source.discover import UNIT_SUFFIXES
from porter.source.parse import Function, SourceFile
from porter.source.parse_input import line_matches
from porter.source.preprocessor import preprocessed


# Only nvcc compiles these files, so assembly outside any function (a #define body) is device code there.
NVCC_ONLY_SUFFIXES = (".cu", ".cuh")
_PTX_SHAPE = re.compile(rb"%|;|\\n|\{")


def in_device_code(sf: SourceFile, offset: int) -> bool:
    """Whether a byte offset is in code compiled for the GPU: inside a __global__/__device__ function (qualifier
    macros included), inside an `#if`/`#ifdef __CUDA_ARCH__` branch, or outside any function in a .cu/.cuh file.
    Host functions of any file (CPU/DSP assembly in ggml-cpu, boost's x87 rounding code) are not."""
    fn = sf.enclosing(offset)
    if fn is not None and (fn.is_kernel or fn.is_device):
        return True
    if _under_cuda_arch(sf, offset):
        return True
    return fn is None and sf.path.endswith(NVCC_ONLY_SUFFIXES)


# Warp-level work: shuffles, votes, warp syncs and reductions, cooperative-groups tiles, CUB warp primitives, tensor-
# core MMA (a warp-wide fragment layout), and calls of functions named for warps (`warp_reduce_sum(v)`).
# On RE2, reading bytes as `re` does (a whole function body is searched per ask; `\b\w*[Ww]arp` made `re` retry
# every word).
_WARP_LEVEL = linear_regex(r"__shfl|__ballot|__any_sync|__all_sync|\b__any\s*\(|\b__all\s*\(|__activemask|__syncwarp"
                           r"|__reduce_\w+_sync|__match_\w+_sync|\bWarp(?:Reduce|Scan|Load|Store|Exchange)\b|tiled_partition"
                           r"|coalesced_threads|\bwmma\b|\bmma\b|mma\.sync|ldmatrix|\b\w*[Ww]arp\w*\s*(?:<[^;(){}]*>)?\s*\(",
                           latin1=True)
# Warp-wide PTX as a string names it (`"mma.sync.aligned..."`, `"shfl.sync.bfly.b32 ..."`, `"vote.sync..."`), often
# inside a macro's body, which a function's own text only calls by the macro's name.
_PTX_WARP_LEVEL = linear_regex(r"\b(?:mma|wgmma|shfl|vote|ldmatrix|stmatrix|redux|match|activemask)\.", latin1=True)
# `\w*+` (possessive): what follows a name never starts with a word character, so giving bytes of it back cannot
# make a match; not trying it halves the search (0.72 -> 0.30-0.40 CPU-s over both corpora's texts, same matches).
_CALLED = re.compile(rb"\b([A-Za-z_]\w*+)\s*(?:<[^;(){}]*>)?\s*\(")
_WARP_NAMED = re.compile(rb"[Ww]arp|WARP")


def warp_dependent(sf: SourceFile, start: int, end: int) -> bool:
    """Whether a `/ 32` at [start, end) divides by the hardware warp: it is outside any function (a macro, a
    constant), its line names warps (`warp_id = tid / 32`, `(tid / 32) % NUM_WARPS_Q`: the author's own word, and
    the helper that uses it may sit in another header), or its function does warp-level work itself or through a
    same-file function it calls (three calls deep). Elsewhere it splits a block's data into groups of 32 threads,
    which is as right on wave64 as on NVIDIA."""
    fn = sf.enclosing(start)
    if fn is None:
        return True
    line_start = sf.code.rfind(b"\n", 0, start) + 1
    line_end = sf.code.find(b"\n", end)
    warp_level = _warp_level(sf, fn, sf.cache.setdefault("code.warp_level", {}), 3)
    if _WARP_NAMED.search(sf.code[line_start:line_end if line_end >= 0 else len(sf.code)]):
        # ... unless the function does no warp-level work and the warp-named variable the line declares never
        # leaves it: read only as loop bounds, strides and indices, never passed to a call nor returned
        # (fused-ssim's `int warp_id = tid / 32;` walking shared-memory rows `for (row = warp_id; ...; row +=
        # num_warps)` under block.sync()): a split of the block into groups of 32 threads, as right on wave64. A
        # branch on it gives warps roles and stays (see _kept_local).
        return warp_level or not _kept_local(sf, fn, line_start, line_end if line_end >= 0 else len(sf.code))
    return warp_level


# A declaration with an initialiser on the hit's line: `int warp_id = ...`, `const unsigned lane = ...`.
_DECLARED = re.compile(rb"\s*(?:(?:const|constexpr|unsigned|signed|int|long|short|auto|size_t|u?int(?:32|64)_t)\s+)+"
                       rb"([A-Za-z_]\w*)\s*=[^=]")
_NOT_CALLS = frozenset({b"for", b"if", b"while", b"switch", b"sizeof", b"return"})
_BRANCHES = frozenset({b"if", b"while", b"switch"})


def _kept_local(sf: SourceFile, fn, line_start: int, line_end: int) -> bool:
    """Whether the line declares one variable whose every later use in `fn` stays in it: not an argument of a call
    (a helper in another file could do warp-level work with it), not returned, and no branch tests it (`if (warp_id
    == 0)` gives warps roles, as a warp-specialised producer/consumer kernel does: that is the hardware warp)."""
    m = _DECLARED.match(sf.code, line_start, line_end)
    if m is None:
        return False
    name = re.compile(rb"(?<![\w.>])" + re.escape(m.group(1)) + rb"(?!\w)")
    code = sf.code
    for u in name.finditer(code, line_end, fn.end_byte):
        depth, i = 0, u.start() - 1
        while i > fn.start_byte:
            c = code[i]
            if c in b")]":
                depth += 1
            elif c in b"([":
                if depth == 0:
                    if c == ord("("):
                        w = re.search(rb"([A-Za-z_]\w*)\s*(?:<[^;(){}]*>)?\s*$", code[max(fn.start_byte, i - 80):i])
                        if w is not None and w.group(1) not in _NOT_CALLS:
                            return False  # an argument of a call
                        if w is not None and w.group(1) in _BRANCHES:
                            return False  # a branch on it: warps given roles (a producer warp), the hardware's
                    break
                depth -= 1
            elif c in b";{}" and depth == 0:
                break
            i -= 1
        if re.match(rb"\s*return\b", code[code.rfind(b"\n", 0, u.start()) + 1:u.start()]):
            return False
    return True


def _warp_level(sf: SourceFile, fn, memo: dict, depth: int) -> bool:
    key = fn.start_byte
    if key in memo:
        return memo[key]
    memo[key] = False  # a recursive call chain ends here
    body = sf.code[fn.start_byte:fn.end_byte]
    found = _WARP_LEVEL.search(body) is not None
    if not found and depth > 0:
        by_name = _functions_by_name(sf)
        for name in {m.group(1) for m in _CALLED.finditer(body)}:
            if any(f is not fn and _warp_level(sf, f, memo, depth - 1) for f in by_name.get(name, ())):
                found = True
                break
    memo[key] = found
    return found


# A shuffle call: __shfl, __shfl_xor, __shfl_down_sync, ... up to its opening parenthesis.
_SHUFFLE = re.compile(rb"\b__shfl(?:_xor|_down|_up)?(_sync)?\s*\(")


def logical_warp32(sf: SourceFile, start: int) -> bool:
    """Whether the function around `start` works in logical 32-lane groups: it shuffles (itself or through same-file
    functions it calls, three calls deep), and every such shuffle passes an explicit width of 32. Lane arithmetic
    with 32 there (`lane = tid & 31`, `wid = tid >> 5`, `shared[32]`) matches its shuffles and is as right on wave64
    as on NVIDIA (issue 27 class 6: lightseq's and SageAttention's block reductions)."""
    fn = sf.enclosing(start)
    if fn is None:
        return _logical_constant(sf, start) or _logical_macro(sf, start)
    if _barrier_tree(sf, fn, start):
        return True
    # What follows reads the function alone, and is asked for every hit in it: answered once per function.
    memo = sf.cache.setdefault("code.logical_warp32", {})
    key = (fn.start_byte, fn.end_byte, fn.name)
    found = memo.get(key)
    if found is None:
        found = memo[key] = _tile32_only(sf, fn) or _shuffles_in_32s(sf, fn) or _in_32_thread_blocks(sf, fn, 3)
    return found


# A kernel's own statement that its block is 32 threads wide: `assert(blockDim.x == warp_size);`.
_BLOCK_OF_32 = re.compile(rb"\bassert\s*\(\s*blockDim\s*\.\s*x\s*==\s*([A-Za-z_]\w*|\d+)\s*\)")


# A y or z thread index, or block extent other than in a test that it is 1 (`assert(blockDim.z == 1);`).
_Y_INDEX = re.compile(rb"\bthreadIdx\s*\.\s*[yz]\b|\bblockDim\s*\.\s*[yz]\b(?!\s*==\s*1\b)")


def _in_32_thread_blocks(sf: SourceFile, fn, depth: int) -> bool:
    """Whether `fn` runs only in blocks of 32 threads: it asserts `blockDim.x == 32` (or a name of 32), or every
    same-file function calling it does (three calls up), and none of them reads a y or z thread index. Such a block
    fills lanes 0-31 of one wave64 wavefront, whose other lanes belong to no thread of it, so any lane it names in
    32s, and any shuffle source, is one of its own
    (GenomeWorks' hirschberg_myers, `assert(blockDim.x == warp_size)` over a min-reduction 16..1, launched with
    `dim3 threads(warp_size, 1, 1)`)."""
    body = sf.code[fn.start_byte:fn.end_byte]
    if _Y_INDEX.search(body):
        return False  # rows of a 2-D block: the next row fills lanes 32-63 of the wavefront
    if any(_is_32(sf, m.group(1)) for m in _BLOCK_OF_32.finditer(body)):
        return True
    if depth == 0:
        return False
    name = fn.name.rsplit("::", 1)[-1].encode()
    call = re.compile(rb"\b" + re.escape(name) + rb"\s*(?:<[^;(){}]*>)?\s*\(")
    callers = [f for f in sf.functions if f is not fn and call.search(sf.code, f.start_byte, f.end_byte)]
    return bool(callers) and all(_in_32_thread_blocks(sf, f, depth - 1) for f in callers)


# A cooperative-groups tile of 32 threads: `cg::tiled_partition<32>(block)`, `cg::thread_block_tile<32> warp`.
_TILE32 = re.compile(rb"\b(?:tiled_partition|thread_block_tile)\s*<\s*32\s*>")


def _tile32_only(sf: SourceFile, fn) -> bool:
    """Whether all of `fn`'s warp-level work is on cooperative-groups tiles of 32 threads (mHC.cu's rmsnorm:
    `cg::reduce(warp, ...)` on `cg::tiled_partition<32>(block)`, then `warp_id = threadIdx.x / 32`): the lanes it
    counts in 32s are that tile's, which HIP's cooperative groups give on a wave64 wavefront too (a tile up to the
    wave size), and none of the same-file functions it calls does warp-level work."""
    body = sf.code[fn.start_byte:fn.end_byte]
    if _TILE32.search(body) is None:
        return False
    rest = _TILE32.sub(b"", body)
    if _WARP_LEVEL.search(rest) is not None or _PTX_WARP_LEVEL.search(rest) is not None:
        return False
    by_name = _functions_by_name(sf)
    memo = sf.cache.setdefault("code.warp_level", {})
    return not any(f is not fn and _warp_level(sf, f, memo, 2)
                   for name in {m.group(1) for m in _CALLED.finditer(body)} for f in by_name.get(name, ()))


def _shuffles_in_32s(sf: SourceFile, fn) -> bool:
    """logical_warp32's answer from `fn`'s shuffles (and those of the functions it calls)."""
    widths: list[bool] = []
    _shuffle_widths(sf, fn, set(), 3, widths)
    if bool(widths) and all(widths):
        return True
    # Without a width: an xor/down tree whose offsets stay at or below 16 (`for (o = 16; o > 0; o /= 2)`) keeps each
    # 32-lane half of a wave64 wavefront to itself, and lane 0 of each half holds its half's result. That is one
    # logical 32-lane warp per half when the lanes are counted in 32s where the result is read - in this function or
    # in every same-file function that calls it - and nowhere by warpSize (issue 27 class 6).
    local: list[bool] = []
    _shuffle_widths(sf, fn, set(), 3, local, offsets=True)
    return bool(local) and all(local) and _counts_lanes_in_32s(sf, fn)


# A `#define NAME 32` line (the hit's line), and a function-like macro whose body is a shuffle
# (`#define WARP_SHUFFLE_DOWN(local, offset) __shfl_down(local, offset)`).
_DEFINE_32 = re.compile(rb"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+\(?32\)?[ \t]*(?:$|//|/\*)", re.M)
# Its body may run on over backslash-continued lines (cuPDLP's FULL_WARP_REDUCE_2 holds ten shuffles, one a line).
_SHUFFLE_MACRO = re.compile(rb"(?m)^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^()]*)\)[ \t]*((?:[^\n]|(?<=\\)\n|(?<=\\\r)\n)*?__shfl(?:[^\n]|(?<=\\)\n|(?<=\\\r)\n)*)")
_CONTINUATION = re.compile(rb"\\\r?\n")


# A for-loop header around a 16 or 32 bound, and a shuffle by any name (a wrapper, a macro, PTX's shfl.sync).
_FOR_HEADER = re.compile(rb"\bfor\s*\(")
_ANY_SHUFFLE = re.compile(rb"(?i)shfl|shuffle")


def _barrier_tree(sf: SourceFile, fn, start: int) -> bool:
    """Whether a 16 or 32 at `start` bounds a for-loop of a function with no warp-level work (itself or through
    same-file functions it calls) whose body shuffles nothing: a shared-memory tree with steps below 32 (OpenMM's
    `for (step = 1; step < 32; step *= 2) { ... SYNC_WARPS; }`) combines threads of one aligned 32-thread group,
    which a 64-lane wave holds whole, so it is as right on wave64."""
    code = sf.code
    if code[start:start + 2] not in (b"16", b"32"):
        return False
    line_start = code.rfind(b"\n", 0, start) + 1
    heads = list(_FOR_HEADER.finditer(code, line_start, start))
    if not heads or b")" in code[heads[-1].end():start]:
        return False
    at = code.find(b";", start)  # the condition's end: the rest of the header and the body follow
    if at < 0 or at > fn.end_byte:
        return False
    if _warp_level(sf, fn, sf.cache.setdefault("code.warp_level", {}), 3):
        return False
    body = code[fn.start_byte:fn.end_byte]
    rel = at + 1 - fn.start_byte
    loop = _loop_text(body, rel)
    return bool(loop) and _ANY_SHUFFLE.search(loop) is None and _WARP_LEVEL.search(loop) is None


# A file-scope constant of 32 on its own line: `static const unsigned WARP_SIZE = 32;`, `constexpr int
# THREADS_PER_WARP = 32;`, `constexpr int kWarp{32};` (const or constexpr: C++ [expr.const], 32 wherever it is read).
_CONST_32 = re.compile(rb"[ \t]*(?:(?:static|inline|const|constexpr|unsigned|signed|int|long|short|size_t|u?int(?:32|64)_t"
                       rb"|auto)[ \t]+)*?(?:const|constexpr)[ \t]+(?:(?:unsigned|signed|int|long|short|size_t"
                       rb"|u?int(?:32|64)_t|auto)[ \t]+)*([A-Za-z_]\w*)[ \t]*(?:=[ \t]*32[uUlL]*|\{[ \t]*32[uUlL]*[ \t]*\})"
                       rb"[ \t]*;")


def _logical_constant(sf: SourceFile, start: int) -> bool:
    """Whether a warp size #defined as 32 outside any function (`#define WARP_SIZE 32`), or declared there as a
    constant of 32 (`static const unsigned WARP_SIZE = 32;`, _CONST_32), only counts logical
    32-lane groups: at least one function uses the name, and every one that does works in logical 32-lane groups
    (logical_warp32; OpenMM's reduceValue, whose shuffle macro steps down from WARP_SIZE / 2) or, in a translation
    unit that uses it nowhere else, none of them does warp-level work."""
    line_start = sf.code.rfind(b"\n", 0, start) + 1
    m = _DEFINE_32.match(sf.code, line_start) or _CONST_32.match(sf.code, line_start)
    if m is None:
        return False
    name = re.compile(rb"\b" + re.escape(m.group(1)) + rb"\b")
    users = [f for f in sf.functions if name.search(sf.code, f.start_byte, f.end_byte)]
    if not users:
        return False
    logical = [f for f in users if logical_warp32(sf, f.start_byte)]
    if len(logical) == len(users):
        return True
    # A host function whose every use of the name sizes the block of a launch of a kernel read so above
    # (fast-transformers' `kernel<E, WARPS><<<grid, WARPS * THREADS_PER_WARP>>>`) builds the block of the kernel's
    # own 32-lane groups: consistent with them, and a whole number of wave64 wavefronts whenever it is even.
    if logical and all(f in logical or _launches_only(sf, f, name, {g.name.rsplit("::", 1)[-1] for g in logical})
                       for f in users):
        return True
    # In a translation unit, where the macro reaches no other file: when every use is inside those functions and
    # none of them does warp-level work (itself or through same-file calls), the 32 only splits a block into groups
    # of 32 threads (CARLsim4's `threadIdx.x % WARP_SIZE` delay-queue walkers under __syncthreads). An aligned group
    # of 32 lies inside one 64-lane wavefront, so the split, per-group shared slots and any lockstep it assumes
    # hold on wave64 too. A header's users may sit in its includers, which this file does not show.
    if not sf.path.endswith(UNIT_SUFFIXES) or _WARP_LEVEL.search(sf.data) or _PTX_WARP_LEVEL.search(sf.data):
        return False  # warp-level work anywhere in the file, as written (a macro's PTX string too: LeetCUDA's HMMA16816)
    spans = [(f.start_byte, f.end_byte) for f in users]
    if any(not any(lo <= u.start() < hi for lo, hi in spans) for u in name.finditer(sf.code, m.end())):
        return False  # also used outside them (another macro, a file-scope array): not read here
    memo = sf.cache.setdefault("code.warp_level", {})
    return not any(_warp_level(sf, f, memo, 3) for f in users)


# A launch's configuration: `kernel<...><<<grid, block, ...>>>`, the kernel's name and the text inside the chevrons.
_LAUNCH = re.compile(rb"\b([A-Za-z_]\w*)\s*(?:<[^;{}]*?>)?\s*<<<([^;{}]*?)>>>")


def _launches_only(sf: SourceFile, fn, name: re.Pattern[bytes], kernels: set[str]) -> bool:
    """Whether `fn` is host code whose every use of `name` lies in the configuration of a launch of one of
    `kernels`, or in the extents of a dim3 such a launch passes."""
    if fn.is_kernel or fn.is_device:
        return False
    spans = [(m.start(2), m.end(2)) for m in _LAUNCH.finditer(sf.code, fn.start_byte, fn.end_byte)
             if m.group(1).decode("latin-1") in kernels]
    # ... or in a dim3 such a launch passes (`const dim3 threads(warp_size, 1, 1);` ... `<<<n, threads>>>`)
    passed = {w for lo, hi in spans for w in re.findall(rb"[A-Za-z_]\w*", sf.code[lo:hi])}
    spans += [(m.start(2), m.end(2)) for m in _DIM3.finditer(sf.code, fn.start_byte, fn.end_byte)
              if m.group(1) in passed]
    return bool(spans) and all(any(lo <= u.start() < hi for lo, hi in spans)
                               for u in name.finditer(sf.code, fn.start_byte, fn.end_byte))


# A dim3 declared with its extents: `dim3 block(32, 4)`, `const dim3 threads{warp_size, 1, 1}`.
_DIM3 = re.compile(rb"\bdim3\s+([A-Za-z_]\w*)\s*[({]([^;{}]*)[)}]\s*;")


def _logical_macro(sf: SourceFile, start: int) -> bool:
    """Whether `start` lies in the body of a function-like shuffle macro (`#define FULL_WARP_REDUCE_2(a, b) { a +=
    __shfl_down_sync(0xFFFFFFFF, a, 16); ... }`) that at least one function calls, and every function calling it
    works in logical 32-lane groups (logical_warp32, which reads the macro expanded): cuPDLP's block reductions,
    `lane = threadIdx.x % 32`, lane 0 of each 32-lane group read (issue 27 class 6)."""
    _macro_shuffles(sf)
    names = {name for lo, hi, name in sf.cache["code.shuffle_macro_spans"] if lo <= start < hi}
    if not names:
        return False
    call = re.compile(rb"\b(?:" + b"|".join(re.escape(n) for n in sorted(names)) + rb")\s*\(")
    users = [f for f in sf.functions if call.search(sf.code, f.start_byte, f.end_byte)]
    return bool(users) and all(logical_warp32(sf, f.start_byte) for f in users)


def _macro_shuffles(sf: SourceFile) -> dict[bytes, list[tuple[list[bytes], bytes]]]:
    """Function-like macros whose body is a shuffle, by name: (parameters, body) per #define (one per #if arm)."""
    got = sf.cache.get("code.shuffle_macros")
    if got is None:
        got = {}
        # Tried only at lines holding `define`, in a file that names a shuffle at all (`^` at every byte of the
        # file cost as much as the rest of the check): the same matches, as no match can run into the next one's
        # line (its parameters hold no `(`, a #define NAME( line does).
        shuffles = line_matches(_SHUFFLE_MACRO, sf.code, (b"define",)) if b"__shfl" in sf.code else ()
        spans = []
        for m in shuffles:
            params = [p.strip() for p in m.group(2).split(b",")]
            got.setdefault(m.group(1), []).append((params, _CONTINUATION.sub(b" ", m.group(3)).strip()))
            spans.append((m.start(), m.end(), m.group(1)))
        sf.cache["code.shuffle_macros"] = got
        sf.cache["code.shuffle_macro_spans"] = spans
    return got


def _expanded_shuffles(sf: SourceFile, body: bytes) -> list[bytes]:
    """The shuffle calls a function makes through shuffle macros, each macro call expanded once per definition
    (`WARP_SHUFFLE_DOWN(value, step)` -> `__shfl_down(value, step)`), through shuffle wrappers of the file
    (_shuffle_wrappers: `WARP_SHFL_XOR(val, 1 << i, WARP_SIZE)` -> `__shfl_xor(val, 1 << i, WARP_SIZE)`, a parameter
    left out taking its default), and through a shuffle-named function the file does not define (`shfl_up(v, L)` ->
    `__shfl_up(v, L)`, _named_shuffle)."""
    macros = _macro_shuffles(sf)
    wrappers = _shuffle_wrappers(sf)
    out: list[bytes] = []
    for m in _CALLED.finditer(body):
        name = m.group(1)
        if name in wrappers:
            args = _call_args(body, m.end())
            for params, calls in wrappers[name]:
                if len(args) > len(params) or any(d is None for _, d in params[len(args):]):
                    continue
                by = {p: (args[i] if i < len(args) else d or b"") for i, (p, d) in enumerate(params)}
                out.extend(re.sub(rb"\b[A-Za-z_]\w*\b", lambda t: by.get(t.group(0), t.group(0)), c) for c in calls)
            continue
        named = _named_shuffle(sf, name)
        if named is not None:
            out.append(named + b"(" + b", ".join(_call_args(body, m.end())) + b")")
            continue
        defs = macros.get(name)
        if not defs or _DEFINE_HEAD.search(body, body.rfind(b"\n", 0, m.start()) + 1, m.start()):
            continue  # the macro's own `#define NAME(a, b)` line (one inside a function body) is no call of it
        args = _call_args(body, m.end())
        for params, text in defs:
            if len(params) != len(args):
                continue
            by = dict(zip(params, args))
            out.append(re.sub(rb"\b[A-Za-z_]\w*\b", lambda t: by.get(t.group(0), t.group(0)), text))
    return out


# A shuffle wrapper's body: only `return <shuffle>(...);` statements (one per #if arm; directives blanked first).
_WRAPPER_BODY = re.compile(rb"(?:\s*return\s+__shfl(?:_xor|_down|_up)?(?:_sync)?\s*\([^;{}]*\)\s*;)+\s*")
_WRAPPER_CALL = re.compile(rb"__shfl(?:_xor|_down|_up)?(?:_sync)?\s*\([^;{}]*\)")
_DIRECTIVE_LINE = re.compile(rb"(?m)^[ \t]*#.*$")


def _shuffle_wrappers(sf: SourceFile) -> dict[bytes, list[tuple[list[tuple[bytes, bytes | None]], list[bytes]]]]:
    """Functions of the file that only return a shuffle of their parameters, by name: (parameters with their
    defaults, the shuffle calls of its arms) per definition. PyTorch-Encoding's `WARP_SHFL_XOR(T value, int laneMask,
    int width = warpSize, unsigned mask = 0xffffffff)` returns `__shfl_xor_sync(mask, value, laneMask, width)` or,
    before CUDA 9, `__shfl_xor(value, laneMask, width)`: which lanes it reads is decided by its callers' arguments,
    so it is read expanded at each call (a default `warpSize` width is the hardware's, as it should be)."""
    got = sf.cache.get("code.shuffle_wrappers")
    if got is None:
        got = {}
        for f in sf.functions if b"__shfl" in sf.code else ():
            text = sf.code[f.start_byte:f.end_byte]
            name = f.name.rsplit("::", 1)[-1].encode()
            head = re.search(rb"\b" + re.escape(name) + rb"\s*\(", text)
            if head is None:
                continue
            params = _call_args(text, head.end())
            brace = text.find(b"{", head.end() + sum(len(p) + 1 for p in params))
            if brace < 0 or not text.endswith(b"}"):
                continue
            body = _DIRECTIVE_LINE.sub(b"", text[brace + 1:-1])
            if not _WRAPPER_BODY.fullmatch(body):
                continue
            parsed: list[tuple[bytes, bytes | None]] = []
            for p in params:
                decl, eq, default = p.partition(b"=")
                ident = re.search(rb"([A-Za-z_]\w*)\s*$", decl)
                if ident is None:
                    break
                parsed.append((ident.group(1), default.strip() if eq else None))
            else:
                got.setdefault(name, []).append((parsed, [c.group(0) for c in _WRAPPER_CALL.finditer(body)]))
        sf.cache["code.shuffle_wrappers"] = got
    return got


# A function named as a shuffle with a direction: `shfl_up`, `shfl_down_sync`, `warp_shfl_xor`, `WARP_SHFL_DOWN`.
_SHUFFLE_NAME = re.compile(rb"(?i)(?:[a-z]\w*_)?shfl_?(xor|down|up)(_sync)?")


def _functions_by_name(sf: SourceFile) -> dict[bytes, list[Function]]:
    """The file's function definitions by name, built once per file (the lane-group and shuffle-wrapper readers ask)."""
    by_name: dict[bytes, list[Function]] | None = sf.cache.get("code.functions_by_name")
    if by_name is None:
        by_name = {}
        for f in sf.functions:
            by_name.setdefault(f.name.encode(), []).append(f)
        sf.cache["code.functions_by_name"] = by_name
    return by_name


def _named_shuffle(sf: SourceFile, name: bytes) -> bytes | None:
    """The CUDA shuffle (`__shfl_up`, `__shfl_xor_sync`, ...) a call of `name` reads as when the file neither defines
    nor #defines `name` and the name says which shuffle it is (uDeviceX's `shfl_up(val, L)`, a wrapper of
    `__shfl_up_sync(0xFFFFFFFF, val, L)` in a header of its own): a wrapper keeps CUDA's argument order, so the
    lanes it reads are its arguments'. None for any other name."""
    m = _SHUFFLE_NAME.fullmatch(name)
    if m is None or name.startswith(b"__shfl"):
        return None
    defined = _functions_by_name(sf)
    if name in defined or name in _macro_shuffles(sf) or re.search(rb"#[ \t]*define[ \t]+" + name + rb"\b", sf.code):
        return None
    return b"__shfl_" + m.group(1).lower() + (b"_sync" if m.group(2) else b"")


_DEFINE_HEAD = re.compile(rb"#[ \t]*define[ \t]+$")


# Lane bookkeeping in 32s: `tid % 32`, `& 31`, `/ 32`, `>> 5` (or a name #defined as 32 after `%` or `/`).
_LANES_32 = re.compile(rb"%\s*32\b|&\s*(?:31|0[xX]1[fF])\b|/\s*32\b|>>\s*5\b|[%/]\s*([A-Za-z_]\w*)")


# An all-lanes mask constant: 0xffffffff / 0xffffffffffffffffull, ~0, -1, or a capitalised name (FULL_MASK). A
# literal of ones one digit short (kaolin's `0xfffffff`) is the same intent, a typo, and not built from the lane.
# A cast of one (`uint32_t(-1)`, `(unsigned)-1`: fast-transformers' xor trees) is the same mask.
_ALL_LANES = re.compile(rb"(?:\(\s*(?:unsigned(?:\s+int)?|u?int(?:32|64)_t)\s*\)|(?:unsigned|u?int(?:32|64)_t)(?=\s*\())?"
                        rb"\(*\s*(?:0[xX][fF]{7,16}[uUlL]*|~\s*0[uUlL]*|-\s*1[lL]*|[A-Z][A-Z0-9_]*)\s*\)*")
# Warp-size and warps-per-block names (not calls): `kWarpSize`, `WARP_SIZE`, `kWarpsPerBlock`, `NUM_WARPS`.
_WARP_CONSTANT = re.compile(rb"\b\w*(?:[Ww]arp_?[Ss]ize|WARP_SIZE|[Ww]arps_?[Pp]er|WARPS_PER|[Nn]um_?[Ww]arps|NUM_WARPS)\w*\b"
                            rb"(?!\s*[(<])")


def _counts_lanes_in_32s(sf: SourceFile, fn) -> bool:
    """Whether the function, or else every same-file function calling it (at least one), counts lanes in 32s and
    never by warpSize."""
    code = sf.code

    def in_32s(f) -> bool:
        body = code[f.start_byte:f.end_byte]
        if b"warpSize" in body:
            return False
        # A warp-size or warps-per-block constant that is not #defined as 32 may be the wave size on ROCm
        # (`__shared__ float sums[kReduceThreads / kWarpSize]` indexed by `tid / 32` overflows on wave64).
        if any(not _is_32(sf, m.group(0)) and not _counted_in_32s(body, m.group(0))
               for m in _WARP_CONSTANT.finditer(body)):
            return False
        return (any(m.group(1) is None or _is_32(sf, m.group(1)) for m in _LANES_32.finditer(body))
                or _lane_array_of_32(body) or _rows_of_32_threads(sf, body))

    if in_32s(fn):
        return True
    name = fn.name.rsplit("::", 1)[-1].encode()
    callers = [f for f in sf.functions if f is not fn
               and re.search(rb"\b" + re.escape(name) + rb"\s*(?:<[^;(){}]*>)?\s*\(", code[f.start_byte:f.end_byte])]
    return bool(callers) and all(in_32s(f) for f in callers)


def _counted_in_32s(body: bytes, name: bytes) -> bool:
    """Whether every assignment of `name` in `body` (at least one) divides a thread count by 32 with no warpSize:
    `const int num_warps = (blockDim.x + 31) >> 5;` counts groups of 32 threads, not wavefronts."""
    values = [m.group(1) for m in re.finditer(rb"\b" + re.escape(name) + rb"\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)\s*([^;]+);",
                                              body)]
    return bool(values) and all(re.search(rb"(?:/\s*32|>>\s*5)\s*$", v.strip()) is not None
                                and b"warpSize" not in v for v in values)


# A shared array with one row per x-lane: `__shared__ float shm[32][3];` ... `shm[threadIdx.x][0]`.
_SHARED_32 = re.compile(rb"__shared__[^;{}()]*?\b([A-Za-z_]\w*)\s*\[\s*32\s*\]")


def _lane_array_of_32(body: bytes) -> bool:
    """Whether the function keeps a shared array of 32 rows indexed by threadIdx.x while it also uses threadIdx.y: its
    x lanes are 32 wide (a 32 x N block, kaolin's spherical-Gaussian reductions), so a shuffle tree over them read at
    `threadIdx.x == 0` is one logical 32-lane warp per row."""
    if b"threadIdx.y" not in body:
        return False
    return any(re.search(rb"\b" + re.escape(m.group(1)) + rb"\s*\[\s*threadIdx\s*\.\s*x\s*\]", body)
               for m in _SHARED_32.finditer(body))


# A 2-D thread-block shape: `dim3 threads(32, 4)`, `dim3 block{32, 8}`, or `<<<grid, dim3(32, 4)>>>`; its x extent.
_BLOCK_SHAPE = re.compile(rb"\bdim3\s+(?:\w*[Tt]hreads?\w*|block|blocks?_?[Dd]ims?|block_?[Ss]ize)\s*[({]\s*([^,(){};]+?)\s*,"
                          rb"|<<<[^,;<>]*,\s*dim3\s*[({]\s*([^,(){};]+?)\s*,")


def _rows_of_32_threads(sf: SourceFile, body: bytes) -> bool:
    """Whether the function reads at `threadIdx.x == 0` in a 2-D block (it uses threadIdx.y), and every 2-D thread
    block the file launches is 32 wide in x (`dim3 num_threads(32, 4)`, KIVI's gemv kernels). HIP numbers a block's
    threads x fastest into its wavefronts, so a 32 x N block puts rows y and y + 1 in lanes 0-31 and 32-63 of a wave64
    wavefront: a shuffle tree that stays within 32 lanes, read at threadIdx.x == 0, is one logical warp per row."""
    if b"threadIdx.y" not in body or re.search(rb"\bthreadIdx\s*\.\s*x\s*==\s*0\b", body) is None:
        return False
    widths = sf.cache.get("code.block_x_widths")
    if widths is None:
        widths = sf.cache["code.block_x_widths"] = [m.group(1) or m.group(2) for m in _BLOCK_SHAPE.finditer(sf.code)]
    return bool(widths) and all(_is_32(sf, w) for w in widths)


def _group_local(sf: SourceFile, body: bytes, op: bytes, args: list[bytes]) -> bool:
    """An xor/down shuffle whose lane offset is at most 16: a literal, a name #defined so, or the variable of a loop
    that counts down from 16 (or from a 32-name / 2) or up from 1 below 32 - or a power of two `1 << i` whose
    exponent's loop stays at or below 4 (KIVI's `for (int i = 4; i >= 0; i--) ... __shfl_down_sync(m, v, 1<<i)`)."""
    if op not in (b"xor", b"down") or len(args) < 2:
        return False
    off = args[-1]  # (mask, var, offset) or (var, offset): the caller passes the arguments before any width
    if re.fullmatch(rb"\d+", off):
        return int(off) <= 16
    shift = re.fullmatch(rb"\(?\s*1[uU]?\s*<<\s*([A-Za-z_]\w*)\s*\)?", off)
    if shift is not None:
        return _exponent_at_most_4(sf, body, shift.group(1))
    if not re.fullmatch(rb"[A-Za-z_]\w*", off):
        return False
    verdicts = []
    for init, cmp_, bound in _shuffling_loops(sf, body, off):
        if cmp_ in (b">", b">=", b"!="):
            half = re.fullmatch(rb"([A-Za-z_]\w*)\s*/\s*2|\(\s*([A-Za-z_]\w*)\s*/\s*2\s*\)", init)
            verdicts.append(bool(re.fullmatch(rb"\d+", init) and int(init) <= 16
                                 or half and _is_32(sf, half.group(1) or half.group(2))))
        else:
            verdicts.append(init == b"1" and (cmp_ == b"<" and bound == b"32" or cmp_ == b"<=" and bound == b"16"))
    # Every loop of the function that drives the name must stay at or below 16 (one from warpSize / 2 does not).
    return bool(verdicts) and all(verdicts)


def _exponent_at_most_4(sf: SourceFile, body: bytes, name: bytes) -> bool:
    """Whether every shuffling for-loop driving `name` keeps it within 0..4 (so `1 << name` is at most 16): down
    from a literal of at most 4, or up from a literal below a bound of at most 5 (`<`) or 4 (`<=`)."""
    verdicts = []
    for init, cmp_, bound in _shuffling_loops(sf, body, name):
        if not re.fullmatch(rb"\d+", init):
            verdicts.append(False)
        elif cmp_ in (b">", b">=", b"!="):
            verdicts.append(int(init) <= 4)
        else:
            verdicts.append(bool(re.fullmatch(rb"\d+", bound)) and int(bound) <= (5 if cmp_ == b"<" else 4))
    return bool(verdicts) and all(verdicts)


def _shuffling_loops(sf: SourceFile, body: bytes, name: bytes) -> Iterator[tuple[bytes, bytes, bytes]]:
    """(initial value, comparison, bound) of each for-loop header in `body` that drives `name` and shuffles in its
    body; a loop that shuffles nothing (OpenMM's shared-memory #else arm) does not drive a shuffle's offset."""
    v = re.escape(name)
    for m in re.finditer(rb"\bfor\s*\(\s*(?:[A-Za-z_]\w*\s+)*" + v + rb"\s*=\s*([^;]+?)\s*;\s*" + v
                         + rb"\s*(>|>=|!=|<|<=)\s*([^;]+?)\s*;", body):
        if _loop_shuffles(sf, body, m.end()):
            yield m.group(1), m.group(2), m.group(3)


def _loop_shuffles(sf: SourceFile, body: bytes, at: int) -> bool:
    """Whether the for-loop whose header's condition ends at `at` shuffles in its body (a shuffle call, or a
    shuffle macro's)."""
    text = _loop_text(body, at)
    if _SHUFFLE.search(text):
        return True
    if any(m.group(1) in _shuffle_wrappers(sf) or _named_shuffle(sf, m.group(1)) is not None
           for m in _CALLED.finditer(text)):
        return True
    return any(re.search(rb"\b" + re.escape(name) + rb"\s*\(", text) for name in _macro_shuffles(sf))


def _loop_text(body: bytes, at: int) -> bytes:
    """The rest of a for-loop from just after its condition (`at`): the header's step, then a braced block or one
    statement."""
    depth, i = 1, at
    while i < len(body) and depth:  # to the header's closing parenthesis
        depth += {0x28: 1, 0x29: -1}.get(body[i], 0)
        i += 1
    j = i
    while j < len(body) and body[j] in b" \t\r\n":
        j += 1
    if j < len(body) and body[j] == 0x7B:
        depth, k = 0, j
        while k < len(body):
            depth += {0x7B: 1, 0x7D: -1}.get(body[k], 0)
            k += 1
            if depth == 0:
                break
    else:
        k = body.find(b";", j)
        k = len(body) if k < 0 else k + 1
    return body[at:k]


def _shuffle_widths(sf: SourceFile, fn, seen: set, depth: int, out: list[bool], offsets: bool = False) -> None:
    """Per shuffle of the function (and the same-file functions it calls): whether it passes width 32, or with
    `offsets`, whether it stays inside its 32-lane group by its offset (_group_local)."""
    if fn.start_byte in seen:
        return
    seen.add(fn.start_byte)
    code = sf.code
    body = code[fn.start_byte:fn.end_byte]
    # Shuffles written through a shuffle macro are read expanded, with the function's loops still in view. A shuffle
    # macro defined inside the body (TurboTransformers' warpReduce specialisations: `#define WarpReduceSumOneStep(a,
    # b) ... __shfl_xor_sync(FINAL_MASK, v, a, b)`, then `WarpReduceSumOneStep(16, 32)`) is text until a call names
    # it (C++ [cpp.replace]), so its `b` is no width: only its expansions are read.
    spans = [(lo - fn.start_byte, hi - fn.start_byte) for lo, hi, _ in sf.cache["code.shuffle_macro_spans"]
             if fn.start_byte <= lo < fn.end_byte] if _macro_shuffles(sf) else []
    calls = [(body, m) for m in _SHUFFLE.finditer(body) if not any(lo <= m.start() < hi for lo, hi in spans)]
    for text in _expanded_shuffles(sf, body):
        calls.extend((text + b" " + body, m) for m in _SHUFFLE.finditer(text))
    for src, m in calls:
        args = _call_args(src, m.end())
        wanted = 4 if m.group(1) else 3  # (mask, var, lane, width) / (var, lane, width)
        if offsets:
            op = re.match(rb"__shfl_?(xor|down|up)?", m.group(0))
            sync = bool(m.group(1))
            lane_args = args[:3] if sync else args[:2]
            # A *_sync mask held in a variable is often built from the lane (`15 << (tid & 31 & ~3)`): a lane set in
            # 32s, wrong for the upper half of a wave64 wavefront, so only an all-lanes constant keeps it logical.
            whole = not sync or bool(lane_args and _ALL_LANES.fullmatch(lane_args[0]))
            shaped = bool(op and op.group(1)) and len(lane_args) == (3 if sync else 2)
            local = shaped and whole and _group_local(sf, body, op.group(1) or b"", lane_args)
            # A down shuffle whose result the function throws away when its source lane leaves the 32-lane group
            # (`if (lane + offset >= 32) return 0;`) stays in that group whatever its offset and the wave size
            # (CaMa-Flood-GPU's cmf_shfl_down_sum; issue 27 class 6), given a mask of every active lane.
            if not local and shaped and op is not None and op.group(1) == b"down":
                local = ((not sync or _active_lanes(sf, lane_args[0]))
                         and _source_lane_guarded(body, lane_args[-1]))
            # An up shuffle whose result counts only where `lane >= offset`, the lane counted in 32s (`lid =
            # threadIdx.x % 32`): its source lane `lane - offset` is then in the same 32-lane group (uDeviceX's
            # gexscan, `(lid >= i) * shfl_up(v, i)`; issue 27 class 6).
            if not local and shaped and op is not None and op.group(1) == b"up":
                local = ((not sync or _active_lanes(sf, lane_args[0]))
                         and _up_source_guarded(sf, body, lane_args[-1]))
            out.append(local)
        else:
            out.append(len(args) == wanted and _is_32(sf, args[-1]))
    if depth > 0:
        by_name = _functions_by_name(sf)
        wrappers = _shuffle_wrappers(sf)
        for name in {m.group(1) for m in _CALLED.finditer(body)} - wrappers.keys():  # wrappers: read expanded
            for f in by_name.get(name, ()):
                if f is not fn:
                    _shuffle_widths(sf, f, seen, depth - 1, out, offsets)


def _active_lanes(sf: SourceFile, arg: bytes) -> bool:
    """A shuffle mask of every lane that runs: an all-lanes constant, `__activemask()`, or a name every assignment in
    the file gives one of those (`const unsigned active_mask = __activemask();`, passed on under the same name). A
    name with no assignment, or one built from the lane (`15 << (lane & ~3)`), is not."""
    if _ALL_LANES.fullmatch(arg) or _ACTIVEMASK.fullmatch(arg):
        return True
    if not re.fullmatch(rb"[A-Za-z_]\w*", arg):
        return False
    if re.search(rb"\b" + re.escape(arg) + rb"\s*(?:[-+*/%&|^]|<<|>>)=", sf.code):
        return False  # changed after it was set (`mask &= ~lane_bit`)
    values = [m.group(1).strip() for m in re.finditer(rb"\b" + re.escape(arg) + rb"\s*=(?!=)\s*([^;]+);", sf.code)]
    return bool(values) and all(_ALL_LANES.fullmatch(v) or _ACTIVEMASK.fullmatch(v) for v in values)


_ACTIVEMASK = re.compile(rb"\(*\s*__activemask\s*\(\s*\)\s*\)*")


def _source_lane_guarded(body: bytes, off: bytes) -> bool:
    """Whether `body` discards a down shuffle's result when its source lane leaves the 32-lane group: an `if` one of
    whose `||`-joined conditions is the source lane `lane + off` (written out, or a name assigned it) `>= 32` (or
    `> 31`), followed by `return` or `continue`. Lanes 32-63 of a wave64 wavefront then never feed lanes 0-31, so a
    tree over lanes counted in 32s is one logical warp per half (the caller still has to count lanes in 32s)."""
    if not re.fullmatch(rb"[A-Za-z_]\w*", off):
        return False
    o = re.escape(off)
    source = rb"(?:[A-Za-z_]\w*\s*\+\s*" + o + rb"|" + o + rb"\s*\+\s*[A-Za-z_]\w*)"
    names = {m.group(1) for m in re.finditer(rb"\b([A-Za-z_]\w*)\s*=\s*\(?\s*" + source + rb"\s*\)?\s*;", body)}
    subject = rb"(?:" + b"|".join([source] + [re.escape(n) for n in sorted(names)]) + rb")"
    leaves = re.compile(rb"\(*\s*(?:" + subject + rb")\s*\)*\s*(?:>=\s*32|>\s*31)\s*\)*")
    for m in re.finditer(rb"\bif\s*\(", body):
        depth, end = 1, m.end()
        while end < len(body) and depth:  # to the condition's closing parenthesis
            depth += {0x28: 1, 0x29: -1}.get(body[end], 0)
            end += 1
        cond = body[m.end():end - 1]
        then = body[end:end + 40].lstrip(b" \t\r\n{")
        if not (then.startswith(b"return") or then.startswith(b"continue")):
            continue
        if any(leaves.fullmatch(part.strip()) for part in _top_level_or(cond)):
            return True
    return False


def _up_source_guarded(sf: SourceFile, body: bytes, off: bytes) -> bool:
    """Whether every shuffling loop of `body` that drives `off` (at least one) tests `(lane >= off)` in its body - a
    factor of the sum (`v += (lid >= i) * shfl_up(v, i)`) or an `if` - with every such lane a name each of whose
    assignments in `body` counts lanes in 32s (`X % 32`, `X & 31`, `X % NAME` with NAME 32): an up shuffle's source
    lane `lane - off` then never leaves the caller's 32-lane group, whatever the wave size."""
    if not re.fullmatch(rb"[A-Za-z_]\w*", off):
        return False
    v = re.escape(off)
    loops = [m.end() for m in re.finditer(rb"\bfor\s*\(\s*(?:[A-Za-z_]\w*\s+)*" + v + rb"\s*=[^;]*;[^;]*;", body)]
    texts = [t for t in (_loop_text(body, at) for at in loops) if _SHUFFLE.search(t) or any(
        m.group(1) in _shuffle_wrappers(sf) or _named_shuffle(sf, m.group(1)) is not None for m in _CALLED.finditer(t))]
    if not texts:
        return False
    guard = re.compile(rb"\(\s*([A-Za-z_]\w*)\s*>=\s*" + v + rb"\s*\)")
    for text in texts:
        lanes = {m.group(1) for m in guard.finditer(text)}
        if not lanes or not all(_lane_in_32s(sf, body, lane) for lane in lanes):
            return False
    return True


def _lane_in_32s(sf: SourceFile, body: bytes, name: bytes) -> bool:
    """Whether every assignment of `name` in `body` (at least one) ends in `% 32`, `& 31` or `% NAME` (NAME 32)."""
    values = [m.group(1).strip() for m in re.finditer(rb"\b" + re.escape(name) + rb"\s*=(?!=)\s*([^;]+);", body)]
    ends = [re.search(rb"(?:%\s*(32|[A-Za-z_]\w*)|&\s*(?:31|0[xX]1[fF]))\s*\)*$", v) for v in values]
    return bool(values) and all(e is not None and (e.group(1) is None or _is_32(sf, e.group(1))) for e in ends)


def _top_level_or(cond: bytes) -> list[bytes]:
    """`cond` split at its `||` outside parentheses."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(cond):
        c = cond[i]
        if c == 0x28:
            depth += 1
        elif c == 0x29:
            depth -= 1
        elif depth == 0 and cond[i:i + 2] == b"||":
            parts.append(cond[start:i])
            start = i + 2
            i += 1
        i += 1
    parts.append(cond[start:])
    return parts


def _is_32(sf: SourceFile, arg: bytes) -> bool:
    """`32`, or a name the file #defines as 32 (`#define WARP_SIZE 32`, lightseq's width argument) or declares a
    constant of 32 and of nothing else (`const int warp_size = 32;`, `constexpr int WARP_SIZE{32};`: crystal's and
    ppl's block reductions): a const object initialised by a constant expression is that value wherever it is read
    (C++ [expr.const]), so lanes counted by it are counted in 32s."""
    if arg == b"32":
        return True
    if not re.fullmatch(rb"[A-Za-z_]\w*", arg):
        return False
    if re.search(rb"(?m)^[ \t]*#[ \t]*define[ \t]+" + arg + rb"[ \t]+\(?32\)?[ \t]*(?:$|//|/\*)", sf.data) is not None:
        return True
    memo = sf.cache.setdefault("code.const_32", {})
    got = memo.get(arg)
    if got is None:
        name = re.escape(arg)
        values = {m.group(1) for m in re.finditer(rb"\b" + name + rb"\s*(?:=\s*|\{\s*)(\w+)", sf.code)}
        const = re.search(rb"\b(?:const|constexpr)\b[^;=(){}]*\b" + name + rb"\s*(?:=|\{)\s*32[uU]?\s*[;},]", sf.code)
        got = memo[arg] = const is not None and values <= {b"32", b"32u", b"32U"}
    return got


def _call_args(text: bytes, at: int) -> list[bytes]:
    """The comma-separated arguments of a call whose `(` ends at `at` (nested brackets kept together)."""
    depth, start, args = 1, at, []
    i = at
    while i < len(text) and depth:
        c = text[i]
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
            if depth == 0:
                args.append(text[start:i].strip())
        elif c == 0x2C and depth == 1:
            args.append(text[start:i].strip())
            start = i + 1
        i += 1
    return args


def _under_cuda_arch(sf: SourceFile, offset: int) -> bool:
    if b"__CUDA_ARCH__" not in sf.data:
        return False
    return preprocessed(sf).device_only(sf.position(offset)[0])


def in_ptx_string(sf: SourceFile, offset: int) -> bool:
    """Whether a string-literal offset holds PTX: a string of an asm statement, of a #define body, or one shaped
    like instructions (`%0`, `;`, `\\n`, `{`). A diagnostic such as `"cp_async needs SM80"` (CuTe's
    CUTE_INVALID_CONTROL_PATH messages) is prose, not PTX."""
    if not sf.in_string(offset):
        return False
    node = sf.root.descendant_for_byte_range(offset, offset + 1)
    lit = node
    while lit is not None and lit.type not in ("string_literal", "raw_string_literal", "preproc_arg", "preproc_def"):
        lit = lit.parent
    if lit is None:
        return True  # a macro body string the tree does not see as a literal
    if lit.type in ("preproc_arg", "preproc_def"):
        return True
    p = lit.parent
    while p is not None and p.type == "concatenated_string":
        p = p.parent
    if p is not None and p.type in ("gnu_asm_expression", "preproc_arg"):
        return True
    if p is not None and p.type in ("argument_list", "static_assert_declaration"):
        return False  # printf / static_assert / an error macro's message
    return bool(_PTX_SHAPE.search(lit.text))
