"""The `shared_opt_in` pattern kind (porter.match.kinds.code): a kernel's opt-in to more dynamic shared memory than
a size (`cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024)`), with the size folded
from the file's constants. LDS per workgroup differs by AMD target (64 KiB on CDNA3, 160 KiB on CDNA4), so a size
the NVIDIA opt-in allows may not fit."""
from __future__ import annotations

from typing import Iterable

from porter.kernels.constfold import build_constants, fold, kib_number
from porter.kernels.facts_vocabulary import OPT_IN_ATTRIBUTES, OPT_IN_SETTERS
from porter.match.base import Hit, MatchContext
from porter.source.parse import SourceFile, unqualified



def match_shared_opt_in(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    """Each attribute call whose size folds to more than `shared_opt_in.above_kib` KiB; values {kib} (the size) and
    {kernel} (the first argument as written). A size that does not fold is left to kernel analysis (lds-unknown)."""
    if sf.tree is None or not any(a.encode() in sf.data for a in OPT_IN_ATTRIBUTES):
        return ()
    from porter.source.syntax import call_sites

    limit = float(pattern["shared_opt_in"]["above_kib"]) * 1024
    env = None
    out = []
    for _callee, text, call in call_sites(sf):
        if unqualified(text) not in OPT_IN_SETTERS:
            continue
        args = call.child_by_field_name("arguments")
        argv = [a for a in (args.named_children if args else []) if a.type != "comment"]
        if len(argv) < 3 or not any(a in argv[1].text.decode("utf-8", "replace") for a in OPT_IN_ATTRIBUTES):
            continue
        if env is None:
            env = build_constants(sf.tree.root_node, sf.data)
        size = fold(argv[2], env)
        if isinstance(size, int) and size > limit:
            out.append(Hit(call.start_byte, call.end_byte, name=unqualified(text),
                           values=(("kib", kib_number(size)), ("kernel", argv[0].text.decode("utf-8", "replace")))))
    return out
