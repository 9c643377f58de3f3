"""The `pasted_name` pattern kind (porter.match.kinds.code): a CUDA API name a function-like macro builds by token
pasting (`#define GPU_PREFIX(x) cuda##x` ... `GPU_PREFIX(PointerAttributes)`) where HIP does not spell the name as
the same paste with its own prefix: the ROCm twin of the macro (`hip##x`) then pastes a name HIP lacks
(`hipPointerAttributes`; HIP's is `hipPointerAttribute_t`), so the line must change for the port. A paste whose
HIP name follows the prefix (`cudaStream_t` -> `hipStream_t`) is the rename the macro was written for and is not
reported, nor a paste HIP's headers declare as well (rules/kb/hip_pasted.tsv, read from real headers:
`hipErrorMemoryAllocation` is kept beside `hipErrorOutOfMemory`); a name the knowledge base does not know is not
judged.

The macro is read where the file defines it; uses of a macro defined in another file are not followed."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable

from porter.kb import hip_pastes
from porter.match.base import Hit, MatchContext

if TYPE_CHECKING:
    from porter.source.parse import SourceFile

# `#define NAME(param) prefix##param`: the whole replacement list is one paste of the parameter after a prefix.
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(?P<name>[A-Za-z_]\w*)\([ \t]*(?P<param>[A-Za-z_]\w*)[ \t]*\)"
                     rb"[ \t]+(?P<prefix>[A-Za-z_]\w*)[ \t]*##[ \t]*(?P=param)[ \t]*$", re.MULTILINE)


def _macros(data: bytes, prefixes: dict[str, str]) -> dict[bytes, tuple[str, str]]:
    """Macro name -> (CUDA prefix, the HIP prefix its twin pastes) for each pasting macro with a CUDA prefix."""
    found: dict[bytes, tuple[str, str]] = {}
    for m in _DEFINE.finditer(data):
        prefix = m.group("prefix").decode()
        if prefix in prefixes:
            found.setdefault(m.group("name"), (prefix, prefixes[prefix]))
    return found


def match_pasted_name(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    prefixes: dict[str, str] = pattern["pasted_name"]["prefixes"]
    if b"##" not in sf.data:
        return
    macros = _macros(sf.data, prefixes)
    if not macros:
        return
    pastes = hip_pastes()
    tokens = sf.tokens()
    for macro, (cuda_prefix, hip_prefix) in macros.items():
        use = re.compile(re.escape(macro) + rb"\s*\(\s*(?P<arg>[A-Za-z_]\w*)\s*\)")
        for offset in tokens.get(macro, ()):
            m = use.match(sf.code, offset)
            if m is None:
                continue
            arg = m.group("arg").decode()
            cuda_name = cuda_prefix + arg
            paste = pastes.get(cuda_name)
            if paste is None or paste.first_hip or paste.pasted != hip_prefix + arg:
                continue  # HIP's name is the paste (the rename the macro is for), or HIP declares the paste too
            entry = ctx.kb.get(cuda_name)
            hip = entry.hip if entry is not None and entry.hip else ""
            yield Hit(m.start(), m.end(), name=cuda_name, replacement=hip or None,
                      values=(("macro", macro.decode()), ("pasted", paste.pasted), ("hip", hip),
                              ("checked", paste.checked_up_to)))
