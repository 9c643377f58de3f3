"""The knowledge-base pattern kinds (porter.match.kinds.code): `kb` (CUDA API names HIPIFY's tables know, with
their HIP or ROCm-library replacement and the advice for each status) and `kb_header` (their headers)."""
from __future__ import annotations

import functools
import re
from typing import Iterable, NamedTuple

from porter.match.base import Hit, MatchContext, make_hit
from porter.match.kinds.code_regex import any_glob
from porter.source.parse import SourceFile
from porter.source.syntax import index, is_member_access, scope_of


# How a knowledge-base library reads in a message, and the ROCm backend its `roc` names belong to.
LIBRARY_NAMES = {
    "runtime": "CUDA runtime", "driver": "CUDA driver", "device": "CUDA device", "rtc": "NVRTC",
    "cucomplex": "cuComplex", "cublas": "cuBLAS", "cusparse": "cuSPARSE", "cusolver": "cuSOLVER", "cufft": "cuFFT",
    "curand": "cuRAND", "cudnn": "cuDNN", "cub": "CUB",
}
ROC_LIBRARIES = {
    "cublas": "rocBLAS", "cusparse": "rocSPARSE", "cusolver": "rocSOLVER", "cufft": "rocFFT", "curand": "rocRAND",
    "cudnn": "MIOpen", "cub": "rocPRIM",
}


def match_kb(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """Identifiers the knowledge base knows, filtered by `status` and `library` lists.

    Options: `not_library`; `skip_identity` (names HIP spells the same need no rename); `prefer_roc` (libraries
    whose hip* names are not a usable port, e.g. cuDNN's retired hipDNN, so the roc* name is the replacement);
    `require_next` ({name: text} — the name counts only when that text follows it, e.g. `texture<`);
    `add` (entries HIPIFY's tables lack, or notes for entries they have: [{cuda, status, library, hip?, note}]);
    `hip_headers` (declared | renamed | missing: keep a name only when HIP's real headers, per rules/kb/hip_names.tsv,
    declare it / spell it differently / lack it; names that table does not list count as declared).
    """
    spec = pattern["kb"]
    choose = _kb_choice(ctx, spec)
    known = _kb_candidates(sf, ctx)
    if choose.added_tokens:
        known = known | (choose.added_tokens & sf.tokens().keys())
    memo, require_next, reported = choose.memo, choose.require_next, choose.reported
    # Each name is decided once per pattern for the scan; the file's names the pattern reports are then one set
    # intersection (a file's dozens of knowledge-base names, for each of the ~30 kb patterns, not one step each).
    for tok in known.difference(memo):
        chosen = memo[tok] = _kb_chosen(choose, ctx, tok.decode())
        if chosen is not None:
            reported.add(tok)
    for tok in sorted(known & reported):
        name, replacement, values = memo[tok]
        after = require_next.get(tok)
        width = len(name)
        for off in _kb_uses(sf, tok, name):
            if after is not None and not _followed_by(sf.code, off + len(tok), after):
                continue
            yield make_hit((off, off + width, name, replacement, values, None))


_UNASKED = object()


class _KbChoice(NamedTuple):
    """One kb pattern's options, read once, and its answer per name asked so far (`memo`: name -> what
    `_kb_chosen` returned), which depends only on the options and the knowledge base, not on the file."""

    spec: dict
    statuses: frozenset[str]
    libraries: frozenset[str]
    skip_libraries: frozenset[str]
    prefer_roc: frozenset[str]
    require_next: dict[bytes, bytes]
    added: dict[str, dict]
    added_tokens: frozenset[bytes]  # the `added` names as tokens
    hip_headers: str | None
    memo: dict
    reported: set[bytes]  # the names in `memo` the pattern reports (not None)


def _kb_choice(ctx: MatchContext, spec: dict) -> _KbChoice:
    memos = ctx.memo.setdefault("kb.choice", {})  # id(spec) -> choice; the choice holds the spec, so ids stay unique
    choice = memos.get(id(spec))
    if choice is None or choice.spec is not spec:
        choice = memos[id(spec)] = _KbChoice(
            spec, frozenset(spec.get("status", ())), frozenset(spec.get("library", ())),
            frozenset(spec.get("not_library", ())), frozenset(spec.get("prefer_roc", ())),
            {k.encode(): v.encode() for k, v in (spec.get("require_next") or {}).items()},
            *_added(spec, ctx), spec.get("hip_headers"), {}, set())
    return choice


def _added(spec: dict, ctx: MatchContext) -> tuple[dict[str, dict], frozenset[bytes]]:
    """The pattern's `add` entries that hold for the scan's ROCm release, by name (an entry with a `rocm` condition
    holds only where rules/kb/hip_versions.yaml says HIP has / lacks the fact; a name may have one entry per side)."""
    entries = spec.get("add", ())
    if any("rocm" in e for e in entries):
        from porter.rocm import default_release, has

        release = ctx.extra.get("rocm") or default_release()
        entries = [e for e in entries
                   if "rocm" not in e or has(next(iter(e["rocm"].values())), release) == ("has" in e["rocm"])]
    return {e["cuda"]: e for e in entries}, frozenset(e["cuda"].encode() for e in entries)


def _kb_chosen(choice: _KbChoice, ctx: MatchContext, name: str) -> tuple[str, str | None, tuple] | None:
    """(name, replacement, message values) when the pattern reports `name`, else None."""
    spec, added, hip_headers = choice.spec, choice.added, choice.hip_headers
    extra = added.get(name)
    note = extra.get("note", "") if extra is not None else ""
    known = None
    if extra is not None and "rocm" in extra:
        # An entry true of some ROCm releases only (kept by _added for this scan's release): its note names them.
        from porter.rocm import default_release, fact

        release = ctx.extra.get("rocm") or default_release()
        known = fact(next(iter(extra["rocm"].values())))
        note = note.replace("{rocm}", release).replace("{hip_since}", known.since or "").replace(
            "{hip_until}", known.until or "")
    entry = ctx.kb.get(name)
    if entry is None:
        if extra is None:
            return None
        from porter.kb import ApiEntry

        entry = ApiEntry(cuda=name, hip=extra.get("hip"), status=extra["status"], library=extra["library"],
                         section="porter rule data")
    if choice.statuses and entry.status not in choice.statuses:
        return None
    if choice.libraries and entry.library not in choice.libraries:
        return None
    if entry.library in choice.skip_libraries:
        return None
    if spec.get("skip_identity") and entry.identity:
        return None
    values = _kb_values(entry, choice.prefer_roc, note)
    if known is not None and known.since and not dict(values).get("hip_since"):
        values = tuple(sorted(dict(values, hip_since=known.since).items()))  # a name HIP's tables do not date
    # An `add` entry that holds because HIP in this run's release *has* a versioned fact (rules/kb/hip_versions.yaml:
    # `__syncwarp` from ROCm 7.0) is newer than the header table (rules/kb/hip_names.tsv stops at HIP 6.2, where the
    # name is missing): the fact decides, or the name is reported by no rule at all on a current release (API002
    # reports it only on releases that lack it).
    if hip_headers:
        found = _hip_name(name)
        if found is not None and found.state == "missing" and known is not None and "has" in extra["rocm"]:
            found = None
        if found is None and hip_headers != "declared" or found is not None and found.state != hip_headers:
            return None
        if found is not None:
            values = tuple(sorted(dict(values, hip_since=found.first_hip, hip_checked=found.checked_up_to,
                                       hip_spelling=found.hip_spelling).items()))
            if found.state == "renamed":
                values = tuple(sorted(dict(values, replacement=found.hip_spelling, hip=found.hip_spelling,
                                           advice=f"HIP's headers (checked up to HIP {found.checked_up_to}) "
                                                  f"spell it {found.hip_spelling}").items()))
            elif found.state == "missing":
                values = tuple(sorted(dict(values, advice=f"HIP's headers (checked up to HIP {found.checked_up_to}) "
                                           "do not declare it: write a helper or rewrite the call").items()))
    return name, dict(values)["replacement"] or None, values


def _kb_uses(sf: SourceFile, tok: bytes, name: str) -> list[int]:
    """The offsets of `tok` that use the name as a free name: not a member (`obj.name`), not where the file defines
    it, not where a variable of the file shadows it (`int texture = 3;`). The same for every kb pattern."""
    memo = sf.cache.setdefault("kb.uses", {})
    uses = memo.get(tok)
    if uses is None:
        shadowed = index(sf).variable_scopes(name)
        defined_here = _defined_locally(sf, name)
        params = [(a, b) for a, b, names in _macro_parameters(sf) if tok in names]
        uses = memo[tok] = [
            off for off in sf.tokens()[tok]
            if not (is_member_access(sf.code, off) or off in defined_here
                    or shadowed and (-1 in shadowed or -2 - off in shadowed or scope_of(sf, off) in shadowed)
                    or params and any(a <= off < b for a, b in params))]
    return uses


# A function-like macro's definition: `#define NAME(a, b) body`, the body over continued lines.
_MACRO_DEFINITION = re.compile(rb"(?m)^[ \t]*#[ \t]*define[ \t]+\w+\(([^()\n]*)\)(?:[^\n]*\\\r?\n)*[^\n]*")


def _macro_parameters(sf: SourceFile) -> list[tuple[int, int, frozenset[bytes]]]:
    """(start, end, parameter names) of each function-like macro definition of the file: inside it a parameter's
    name is the parameter, whatever the knowledge base knows by that name (dsc's host-side
    `#define validate_binary_params(bool_as_float, int_as_float)`, whose `int_as_float` is a flag, not CUDA's
    device function of that name). One pass per file, only when asked."""
    spans = sf.cache.get("kb.macro_parameters")
    if spans is None:
        spans = sf.cache["kb.macro_parameters"] = [
            (m.start(), m.end(), frozenset(p.strip() for p in m.group(1).split(b",") if p.strip()))
            for m in _MACRO_DEFINITION.finditer(sf.code)] if b"define" in sf.code else []
    return spans


def _hip_name(name: str):
    from porter.kb import hip_names

    return hip_names().get(name)


def _kb_candidates(sf: SourceFile, ctx: MatchContext) -> frozenset[bytes]:
    """The file's tokens the knowledge base knows: one set intersection per file, shared by every kb pattern."""
    if "kb_candidates" not in sf.cache:
        sf.cache["kb_candidates"] = ctx.kb_tokens.intersection(sf.tokens())
    return sf.cache["kb_candidates"]


def _followed_by(code: bytes, pos: int, text: bytes) -> bool:
    """Whether `text` comes next after optional white space (without copying the rest of the file)."""
    while pos < len(code) and code[pos] in b" \t\r\n":
        pos += 1
    return code.startswith(text, pos)


# The advice of a same-name entry without a caveat: a plain rename (porter.match.refine reads it info).
GENERIC_SAME_NAME = "compare its behaviour with HIP's device headers"
# Directed-rounding float/double intrinsics (`__fdiv_rd`, `__dadd_ru`, `__fmaf_rz`): clang's HIP math header declares
# them only under OCML_BASIC_ROUNDED_OPERATIONS
# (https://rocm.docs.amd.com/projects/HIP/en/latest/reference/math_api.html#floating-point-intrinsics).
_DIRECTED_ROUNDING = re.compile(r"__(?:f|d)\w*_r[duz]\Z")


def _kb_values(entry, prefer_roc: set[str], note: str) -> tuple[tuple[str, str], ...]:
    """Message values for one knowledge-base entry; `advice` is the sentence that says what to do instead."""
    return _entry_values(entry, entry.library in prefer_roc, note)


@functools.lru_cache(maxsize=8192)  # one entry is hit many times in a scan (cudaMalloc, cudaMemcpy, ...)
def _entry_values(entry, use_roc: bool, note: str) -> tuple[tuple[str, str], ...]:
    library_name = LIBRARY_NAMES.get(entry.library, entry.library)
    roc_library = ROC_LIBRARIES.get(entry.library, "ROCm")
    replacement = (entry.roc if use_roc else entry.hip) or ""
    if use_roc:
        advice = (f"port by hand to {roc_library} ({entry.roc})" if entry.roc
                  else f"port by hand to {roc_library}, which has no direct counterpart")
    elif entry.status == "unsupported":
        advice = (f"{roc_library} has {entry.roc}; otherwise rewrite by hand" if entry.roc
                  else "rewrite by hand")
    elif entry.hip:
        advice = "HIP keeps the same name" if entry.identity else f"hipify maps it to {entry.hip}"
        if entry.hip_deprecated and entry.library == "cusparse":
            # hipSPARSE deprecates what cuSPARSE dropped for its CUDA backend only; the ROCm backend still ships it
            # (porter.match.refine_code.CUDA_BACKEND_DEPRECATIONS).
            advice += f" (hipSPARSE {entry.hip_deprecated} deprecates it for its CUDA backend only)"
        elif entry.hip_deprecated:
            advice += f", itself deprecated since HIP {entry.hip_deprecated}"
    elif entry.status == "same_name" and _DIRECTED_ROUNDING.match(entry.cuda):
        advice = ("HIP declares the _rd/_ru/_rz forms only when OCML_BASIC_ROUNDED_OPERATIONS is defined (HIP math API, "
                  "floating-point intrinsics): define it for the HIP build or use another rounding")
    elif entry.status == "same_name":
        advice = GENERIC_SAME_NAME
    else:
        advice = "no HIP name"
    if note:
        advice = note
    since = (f"removed in {library_name} {entry.cuda_removed}" if entry.cuda_removed
             else f"deprecated since {library_name} {entry.cuda_deprecated}" if entry.cuda_deprecated
             else "")
    return (("advice", advice), ("deprecated", entry.cuda_deprecated or ""), ("hip", entry.hip or "none"),
            ("library", entry.library), ("library_name", library_name), ("removed", entry.cuda_removed or ""),
            ("replacement", replacement), ("roc", entry.roc or ""), ("since", since), ("status", entry.status))


def match_kb_header(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """`#include`s the knowledge base's header map knows (`kb_header: {status: [...], not_include: [globs]}`)."""
    if sf.language != "cuda" or sf.root is None:
        return
    from porter.source.includes import project_header

    memo = ctx.memo.setdefault("kb_header", {}).setdefault(id(pattern), (pattern, {}))
    if memo[0] is not pattern:  # another pattern object now has that id
        memo = ctx.memo["kb_header"][id(pattern)] = (pattern, {})
    answers = memo[1]
    own = ctx.extra.get("repository_files") or frozenset()
    for node, header in index(sf).includes:
        answer = answers.get(header, _UNASKED)
        if answer is _UNASKED:  # what the pattern says of a header is the same in every file
            answer = answers[header] = _kb_header_answer(pattern["kb_header"] or {}, header, ctx)
        if answer is None:
            continue
        if own and project_header(sf.path, header, node.type == "string_literal", own):
            continue
        replacement, values = answer
        yield Hit(node.start_byte, node.end_byte, name=header, replacement=replacement, values=values)


def _kb_header_answer(spec: dict, header: str, ctx: MatchContext) -> tuple[str | None, tuple] | None:
    """(replacement, message values) when the pattern reports an #include of `header`, else None."""
    if any_glob(tuple(spec.get("not_include", ())))(header):
        return None
    statuses = set(spec.get("status", ()))
    entry = ctx.kb.header(header)
    if entry is None or (statuses and entry.status not in statuses):
        return None
    same = entry.status == "rename" and entry.hip == header  # `thrust/*` -> `thrust/*`: rocThrust keeps the path
    if same:
        advice = f"keep the include ({entry.note or entry.library})" if entry.note else "keep the include"
    elif entry.status == "rename":
        advice = f"include <{entry.hip}> instead"
    elif entry.status == "drop":
        advice = "delete the include"
    elif entry.hip:
        advice = f"port by hand to <{entry.hip}>"
    else:
        advice = "no ROCm counterpart"
    values = (("advice", advice), ("hip", entry.hip or "none"), ("library", entry.library),
              ("note", entry.note or advice), ("status", entry.status))
    return (entry.hip if entry.status == "rename" and not same else None), values


_WORD = re.compile(r"\w+", re.A)


@functools.lru_cache(maxsize=8192)  # asked per file for each knowledge-base name it uses
def _is_word(name: str) -> bool:
    return _WORD.fullmatch(name) is not None


def _defined_locally(sf: SourceFile, name: str) -> set[int]:
    """Offsets where the file itself defines `name` (a #define or a function), which are not uses of the CUDA API."""
    memo = sf.cache.setdefault("defined_locally", {})
    if name not in memo:
        memo[name] = _find_defined_locally(sf, name)
    return memo[name]


def _find_defined_locally(sf: SourceFile, name: str) -> set[int]:
    out = set()
    by_name = sf.cache.get("code.function_names")
    if by_name is None:  # asked for each candidate name: one pass over the functions per file, not per name
        by_name = sf.cache["code.function_names"] = {}
        for f in sf.functions:
            by_name.setdefault(f.name, []).append(f)
    for f in by_name.get(name, ()):
        node = f.node.child_by_field_name("declarator")
        while node is not None and node.type != "identifier" and node.named_child_count:
            node = node.child_by_field_name("declarator") or node.named_children[0]
        if node is not None:
            out.add(node.start_byte)
    # Declarations such as a member `void* cudaMalloc(size_t);` name the project's own function.
    out |= index(sf).function_declarations.get(name, frozenset())
    if not _is_word(name):
        for m in re.finditer(rb"#[ \t]*define[ \t]+(" + re.escape(name.encode()) + rb")\b", sf.code):
            out.add(m.start(1))
        return out
    # Every #define's name at once (the same matches as a per-name `define NAME\b` search, one pass per file).
    out |= index(sf).defines.get(name.encode(), frozenset())
    return out
