"""Translation engines and the choice between them: the real hipify when installed, porter's built-in otherwise."""
from __future__ import annotations

from porter.translate.engines.builtin import BuiltinEngine
from porter.translate.model import ENGINES, TranslateError


def select_engine(options):
    """The engine `options.engine` asks for; `auto` prefers hipify-perl, then hipify-clang, then the built-in one."""
    from porter.translate.engines import hipify

    kind = options.engine
    if kind not in ENGINES:
        raise TranslateError(f"--engine must be {', '.join(ENGINES[:-1])} or {ENGINES[-1]}, not {kind!r}")
    if kind == "builtin":
        return BuiltinEngine()
    if options.hipify is not None:
        path = hipify.check_executable(options.hipify)
        if kind == "auto":
            kind = "hipify-clang" if "clang" in path.name else "hipify-perl"
        return hipify.make_engine(kind, path, note="--hipify")
    kinds = ("hipify-perl", "hipify-clang") if kind == "auto" else (kind,)
    for k in kinds:
        path, where = hipify.find_hipify(k)
        if path is not None:
            return hipify.make_engine(k, path, note=f"found {where}")
    if options.engine != "auto":
        raise TranslateError(f"{options.engine} not found on PATH or in $ROCM_PATH/bin; pass --hipify PATH or use --engine builtin")
    engine = BuiltinEngine()
    engine.info = type(engine.info)("builtin", None, None, "auto: no hipify-perl or hipify-clang on PATH or in $ROCM_PATH/bin")
    return engine
