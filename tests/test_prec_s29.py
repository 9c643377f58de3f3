"""CUDA-only precision (issue 27, session 29, helper prec): logical 32-lane groups read through file-scope constants,
shuffle wrappers, launchers and guarded up-scans (DEV011), and the make fragment a Makefile includes (its language
and its place in the build's closed source list). The annotated samples are fixtures/rules/DEV011-hardcoded-warp-
width/wrapped_groups.cu and scan_groups.cu; fixtures/prec_s29 holds the make repository."""
from __future__ import annotations

from pathlib import Path

from porter.pipeline import scan
from porter.settings import Settings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures/prec_s29"


def _dev011(tmp_path, text: str) -> list[int]:
    (tmp_path / "k.cu").write_text(text)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    return sorted(f.line for f in result.findings if f.rule == "DEV011")


# fast-transformers' causal_product_cuda.cu (heldout32): a file-scope constexpr lane count, an xor tree from it / 2
# whose mask is a cast of -1, lanes counted by it, and a launcher sizing the block in its groups.
GROUPS = (
    "constexpr int THREADS_PER_WARP = 32;\n"                                                   # 1
    "template <int WARPS>\n"
    "__global__ void lmha(const float* in, float* out) {\n"
    "  const int warp = threadIdx.x / THREADS_PER_WARP;\n"
    "  const int lane = threadIdx.x %% THREADS_PER_WARP;\n"                                    # 5
    "  float sum = in[threadIdx.x];\n"
    "  for (int mask = THREADS_PER_WARP / 2; mask >= 1; mask /= 2)\n"
    "    sum += __shfl_xor_sync(%s, sum, mask);\n"
    "  if (lane == 0) out[blockIdx.x * WARPS + warp] = sum;\n"
    "}\n"                                                                                      # 10
    "template <int WARPS>\n"
    "int launch(const float* in, float* out, int blocks) {\n"
    "  lmha<WARPS><<<blocks, WARPS * THREADS_PER_WARP>>>(in, out);\n"
    "  return %s;\n"
    "}\n"
)


def test_a_file_scope_constant_of_logical_groups_and_its_launcher_are_closed(tmp_path):
    assert _dev011(tmp_path, GROUPS % ("uint32_t(-1)", "0")) == []
    assert _dev011(tmp_path, GROUPS % ("(unsigned)-1", "0")) == []


def test_a_mask_built_from_the_lane_or_a_use_outside_a_launch_keeps_it_open(tmp_path):
    # A mask from the lane in 32s names the wrong lanes in the upper half of a wave64 wavefront: the constant (line
    # 1) stays an assumption. So it does when the host function uses it for more than the launch's block.
    assert _dev011(tmp_path, GROUPS % ("15u << (lane & ~3)", "0")) == [1]
    assert _dev011(tmp_path, GROUPS % ("uint32_t(-1)", "THREADS_PER_WARP")) == [1]


def test_shuffle_wrappers_expand_at_their_calls():
    from porter.match.kinds import code_device
    from porter.source.parse import parse

    text = (FIXTURE.parent / "rules/DEV011-hardcoded-warp-width/wrapped_groups.cu").read_bytes()
    sf = parse("wrapped_groups.cu", "cuda", text)
    wrappers = code_device._shuffle_wrappers(sf)
    assert list(wrappers) == [b"WARP_SHFL_XOR"]
    (params, calls), = wrappers[b"WARP_SHFL_XOR"]
    assert params == [(b"value", None), (b"laneMask", None), (b"width", b"warpSize"), (b"mask", b"0xffffffff")]
    assert calls == [b"__shfl_xor_sync(mask, value, laneMask, width)", b"__shfl_xor(value, laneMask, width)"]
    assert code_device._expanded_shuffles(sf, b"v += WARP_SHFL_XOR(v, 1 << i, WARP_SIZE);") == [
        b"__shfl_xor_sync(0xffffffff, v, 1 << i, WARP_SIZE)", b"__shfl_xor(v, 1 << i, WARP_SIZE)"]
    assert code_device._expanded_shuffles(sf, b"v += WARP_SHFL_XOR(v, i);") == [
        b"__shfl_xor_sync(0xffffffff, v, i, warpSize)", b"__shfl_xor(v, i, warpSize)"]
    # a shuffle-named function the file does not define keeps CUDA's argument order; other names are no shuffle
    assert code_device._named_shuffle(sf, b"shfl_up") == b"__shfl_up"
    assert code_device._named_shuffle(sf, b"warp_shfl_down_sync") == b"__shfl_down_sync"
    assert code_device._named_shuffle(sf, b"WARP_SHFL_XOR") is None  # defined here: read as the wrapper it is
    assert code_device._named_shuffle(sf, b"shuffle_rows") is None


def test_a_make_fragment_is_make_and_its_include_keeps_the_list_closed():
    from porter.pipeline import run
    from porter.source.discover import language_of

    assert language_of("Makefile.inc") == "make" and language_of("config/makefile.inc") == "make"
    assert language_of("kernels.inc") == "cuda" and language_of("Makefile.bkp") is None
    result = run(FIXTURE / "makeinc", Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
    got = sorted((f.rule, f.path, f.line, f.status.value) for f in result.findings if f.rule in ("DEV010", "DEV011"))
    # Makefile.inc's make variable CUDA_VERSION (lines 3-4) is no C macro test; the stub no build names (the
    # Makefile's list is closed: it includes only a make file of the repository) is cuda-only; kernels.cu is built.
    assert got == [("DEV011", "src/kernels.cu", 1, "open"), ("DEV011", "src/stub.cu", 2, "cuda-only"),
                   ("DEV011", "src/stub.cu", 4, "cuda-only")]
    stub = next(k for k in result.kernels if k.name == "fold")
    assert stub.verdict_on("mi300x").verdict == "ok"


def test_an_include_through_a_variable_leaves_the_list_open(tmp_path):
    import shutil

    from porter.pipeline import run

    shutil.copytree(FIXTURE / "makeinc", tmp_path / "r")
    mk = tmp_path / "r/Makefile"
    mk.write_text(mk.read_text().replace("include Makefile.inc", "CONF = .\ninclude $(CONF)/Makefile.inc"))
    result = run(tmp_path / "r", Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
    got = sorted((f.path, f.line, f.status.value) for f in result.findings if f.rule == "DEV011")
    assert got == [("src/kernels.cu", 1, "open"), ("src/stub.cu", 2, "open"), ("src/stub.cu", 4, "open")]


def _deadarm(root: Path):
    from porter.pipeline import run

    result = run(root, Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
    kernels = {k.name: (k.verdict_on("mi300x").verdict, tuple(d.id for d in k.verdict_on("mi300x").details))
               for k in result.kernels}
    found = sorted((f.rule, f.line, f.status.value) for f in result.findings
                   if f.path == "inc/spgemm.hpp" and f.rule in ("KRN001", "DEV002"))
    return kernels, found


def test_a_header_template_launched_only_in_an_arm_its_own_define_rules_out_is_never_instantiated():
    # nsparse's HashSpGEMM_volta.hpp (heldout38): `#define ORIGINAL_HASH` inside the include guard, hash_large
    # launched only in the `#else` of `#ifdef ORIGINAL_HASH`. Its verdict is ok (never instantiated) and the lines of
    # its body (KRN001 at 15, the 32-bit mask of DEV002 at 17) are cuda-only; hash_small, launched, stays open.
    from porter.kernels.verdicts import NEVER_INSTANTIATED_DEAD_WHY

    kernels, found = _deadarm(FIXTURE / "deadarm")
    assert kernels == {"hash_small": ("ok", ()), "hash_large": ("ok", ("never-instantiated",))}
    from porter.pipeline import run

    result = run(FIXTURE / "deadarm", Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
    idle = next(k for k in result.kernels if k.name == "hash_large").verdict_on("mi300x")
    assert [d.message for d in idle.details] == [NEVER_INSTANTIATED_DEAD_WHY]
    assert NEVER_INSTANTIATED_DEAD_WHY.startswith("a template kernel its file names only in arms no build compiles")
    assert found == [("DEV002", 17, "cuda-only"), ("KRN001", 10, "open"), ("KRN001", 15, "cuda-only")]


def test_without_the_define_or_with_a_live_launch_elsewhere_it_is_instantiated(tmp_path):
    import shutil

    shutil.copytree(FIXTURE / "deadarm", tmp_path / "a")
    h = tmp_path / "a/inc/spgemm.hpp"
    h.write_text(h.read_text().replace("#define ORIGINAL_HASH\n", "// ORIGINAL_HASH left undefined\n"))
    kernels, found = _deadarm(tmp_path / "a")
    assert kernels["hash_large"] == ("fix", ("wave64-full-mask",))
    assert found == [("DEV002", 17, "open"), ("KRN001", 10, "open"), ("KRN001", 15, "open")]
    shutil.copytree(FIXTURE / "deadarm", tmp_path / "b")
    m = tmp_path / "b/src/main.cu"
    m.write_text(m.read_text().replace("  return 0;", "  hash_large<float><<<1, 256>>>(in, out);\n  return 0;"))
    assert _deadarm(tmp_path / "b")[0]["hash_large"] == ("fix", ("wave64-full-mask",))


def test_the_include_guard_and_the_defines_inside_it():
    from porter.source import preprocessor
    from porter.source.parse import parse

    data = (FIXTURE / "deadarm/inc/spgemm.hpp").read_bytes()
    pre = preprocessor.preprocessed(parse("spgemm.hpp", "cuda", data))
    guard = preprocessor.include_guard(pre)
    assert guard is not None and (guard.arms[0].line, guard.endif) == (3, 30)
    assert preprocessor.file_switches(pre, data, bare=True) == {
        "SPGEMM_HPP": ("defined", 4), "TABLE_SIZE": (512, 6), "ORIGINAL_HASH": ("defined", 7)}
    assert preprocessor.switch_dead_spans(pre, data, bare=True) == ((26, 26),)
    # a first group with an #else is no guard, nor is one whose #endif is not the file's last directive
    for text in (b"#ifndef G\n#define G\n#define ON 1\n#else\n#endif\n",
                 b"#ifndef G\n#define G\n#define ON 1\n#endif\n#if ON\n#endif\n"):
        assert preprocessor.include_guard(preprocessor.preprocessed(parse("g.h", "cuda", text))) is None


def test_a_library_looked_up_in_the_jetson_multimedia_paths_is_info():
    # libfreenect2's FindTegraJPEG.cmake (heldout32): `FIND_LIBRARY(... NAMES nvjpeg ... PATH_SUFFIXES tegra)` finds
    # Jetson Linux's libjpeg-8b codec, not CUDA's nvJPEG: info with data jetson_only, at the name and its DOC line.
    # nvJPEG looked up in the CUDA toolkit's directory (CMakeLists.txt line 5) stays medium.
    from porter.pipeline import run

    result = run(FIXTURE / "jetson", Settings(jobs=1, cache_dir=None, targets=("mi300x",))).result
    got = sorted((f.path, f.line, f.severity.name, "jetson_only" in dict(f.data or ()))
                 for f in result.findings if f.rule == "LIB005")
    assert got == [("CMakeLists.txt", 5, "MEDIUM", False), ("cmake/FindTegraJPEG.cmake", 9, "INFO", True),
                   ("cmake/FindTegraJPEG.cmake", 10, "INFO", True)]


def test_a_texture_read_behind_a_device_layer_macro_reaches_the_kernel():
    # uDeviceX (heldout38): the wall force kernel samples the SDF through sdf/dev.h's helper, whose
    # `Ttex3D(float, t, x, y, z)` is d/cuda/ker.h's macro for tex3D<T>(...): no image instructions on gfx942, gfx950
    # and gfx1250 (fix, at the helper call on line 8). The CPU layer's Ttex3D and the arithmetic Tscale are no texture.
    from porter.kernels.asm_macros import asm_macro_helpers
    from porter.pipeline import run
    from porter.source.parse import parse

    targets = ("mi300x", "mi355x", "mi455x")
    result = run(FIXTURE / "texmacro", Settings(jobs=1, cache_dir=None, targets=targets)).result
    got = {k.name: {t: (v.verdict, tuple((d.id, d.lines) for d in v.details)) for t in targets
                    for v in [k.verdict_on(t)]} for k in result.kernels}
    assert got == {"force": {t: ("fix", (("image-instructions", (8,)),)) for t in targets},
                   "scale": {t: ("ok", ()) for t in targets}}
    for layer, names in (("cuda", [("Ttex3D", 2), ("Tfetch", 3)]), ("cpu", [])):
        path = FIXTURE / "texmacro/d" / layer / "ker.h"
        helpers = asm_macro_helpers(parse(f"d/{layer}/ker.h", "cuda", path.read_bytes()))
        assert [(h.name, h.line) for h in helpers] == names
        assert all(h.facts is not None and h.facts.clang_differs == (("image-instructions", h.line),) for h in helpers)
