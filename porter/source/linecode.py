"""The code of one source line without its comments, words joined by one space: the text a finding's identity rests
on (its fingerprint, porter.match.engine; the pairing of base and head findings, porter.diff), so a comment added to,
changed on or removed from a flagged line is no new finding for a PR bot and no fixed one."""
from __future__ import annotations

from porter.source.discover import language_of

# Languages whose comments start with `#` (C, C++ and CUDA use `//` and `/* */`; `#include` is code there).
_HASH_COMMENTS = frozenset({"python", "cmake", "make", "bazel", "shell", "yaml", "toml", "dockerfile", "requirements"})


def code_words(snippet: str, path: str) -> str:
    """The words of a line's code, one space between them: what a comment adds, changes or removes on the line
    (`cudaMalloc(&p, n);  // TODO: hipMalloc`) is no new finding for a PR bot, so comments are left out; quotes are
    followed so `"http://..."` stays code. Fingerprints built on this are partialFingerprints["porter/v2"]."""
    hash_comments = language_of(path) in _HASH_COMMENTS
    if ("#" if hash_comments else "/") not in snippet:
        return " ".join(snippet.split())
    out: list[str] = []
    i, n, quote = 0, len(snippet), ""
    while i < n:
        c = snippet[i]
        if quote:
            if c == "\\":
                out.append(snippet[i:i + 2])
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif hash_comments and c == "#":
            break
        elif not hash_comments and snippet.startswith("//", i):
            break
        elif not hash_comments and snippet.startswith("/*", i):
            end = snippet.find("*/", i + 2)
            if end < 0:
                break
            out.append(" ")
            i = end + 2
            continue
        out.append(c)
        i += 1
    return " ".join("".join(out).split())
