"""Session 29 (fixsrc): the PR-gate holes attack29 found in reading sources (bench/attack29.md, findings 2, 4, 7, 8
and 9), each test built from its reproduction (/tmp/attack29/repro_<n>.sh) and failing without its fix."""
from __future__ import annotations

import json
from pathlib import Path

from helpers import git, make_repo, porter_here

from porter.pipeline import run
from porter.settings import Settings

LIB019_FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "LIB019-vendored-library-copy"
BASE = {"src/a.cu": "__global__ void add(float* x) { x[threadIdx.x] += 1.0f; }\n"}


def _pr(tmp_path: Path, files: dict[str, str]) -> tuple[Path, str]:
    """A repository on `main` (BASE) and a commit on top adding `files`; the base commit."""
    repo = make_repo(tmp_path / "r", BASE)
    base = git(repo, "rev-parse", "HEAD").strip()
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    return repo, base


def _gate(repo: Path, base: str) -> tuple[int, list[tuple[str, str, int]], list[dict]]:
    """The PR bot's command: exit code, the new findings of severity low or worse (rule, path, line), the skips."""
    p = porter_here("scan", str(repo), "--isolated", "--new-since", base, "--fail-on", "medium", "-f", "json",
                    "--no-cache")
    assert p.returncode in (0, 1), p.stderr
    doc = json.loads(p.stdout)
    found = sorted((f["rule"], f["path"], f["line"]) for f in doc["findings"] if f["severity"] != "info")
    return p.returncode, found, doc.get("skipped", [])


# ---- finding 2: a vendored-library marker does not fold a change's own files under --isolated

def test_untrusted_scan_folds_no_vendored_copy() -> None:
    result = run(LIB019_FIXTURE, Settings(jobs=1), untrusted=True).result
    got = {(f.rule, f.path, f.line) for f in result.findings}
    # the copy's own findings stay (folded into LIB019 in a trusted scan: test_vendored_s27)
    assert {("API002", "src/3rdparty/cub/block/block_load.cuh", 5), ("LIB019", "src/3rdparty/cub/version.cuh", 4)} <= got
    lib019 = next(f for f in result.findings if f.rule == "LIB019")
    assert dict(lib019.data)["folded"] == 0
    assert "(0 findings inside it are not counted)" in lib019.message
    assert [k.path for k in result.kernels] != []


def test_a_marker_the_pull_request_adds_does_not_hide_its_kernel(tmp_path: Path) -> None:
    repo, base = _pr(tmp_path, {
        "third_party/cub/cub/version.cuh": "#pragma once\n#define CUB_VERSION 200200\n",
        "third_party/cub/cub/block/fast_reduce.cuh": (
            "#pragma once\n__global__ void fast_reduce(float* x) { float v = x[threadIdx.x]; "
            "v += __shfl_down_sync(0xffffffff, v, 16); x[0] = v; }\n"),
        "src/b.cu": "#include <cub/block/fast_reduce.cuh>\nvoid go(float* d) { fast_reduce<<<1, 64>>>(d); }\n",
    })
    code, found, _ = _gate(repo, base)
    assert code == 1
    assert ("DEV002", "third_party/cub/cub/block/fast_reduce.cuh", 2) in found
    assert ("LIB019", "third_party/cub/cub/version.cuh", 2) in found


# ---- findings 8 and 9: CUDA sources under names porter had no language for

PAYLOAD = ("__global__ void red(float* x) { float v = x[threadIdx.x]; v += __shfl_down_sync(0xffffffff, v, 16); "
           "x[0] = v; }\n")


def test_templated_cuda_sources_read_as_cuda() -> None:
    from porter.source.discover import language_of
    for name in ("k.cu.jinja", "k.cu.j2", "k.cuh.tmpl", "k.cu.mako", "k.cu.template", "k.cu.in", "K.CU.IN",
                 "pkg/kernels/topk.cuda"):
        assert language_of(name) == "cuda", name
    # other templates and look-alikes stay unread, as before
    for name in ("config.h.in", "k.cpp.in", "Makefile.in", "cu.in", "k.jinja", "notes.cu.txt", "k.cufoo"):
        assert language_of(name) is None, name
    assert language_of("requirements.in") == "requirements"


def test_cuda_fortran_is_listed_unseen() -> None:
    from porter.model import Skipped
    from porter.source.discover import CUDA_FORTRAN, language_of, unread_reason
    assert language_of("src/k.cuf") is None
    assert unread_reason("src/k.cuf") == unread_reason("src/K.CUF") == CUDA_FORTRAN
    assert unread_reason("src/k.f90") is None and unread_reason("README") is None
    assert Skipped("src/k.cuf", CUDA_FORTRAN).unseen


def test_gate_fails_on_templated_cuda_and_a_runtime_kernel_file(tmp_path: Path) -> None:
    files = {f"csrc/templates/k{i}.{suffix}": PAYLOAD.replace("red", f"red{i}")
             for i, suffix in enumerate(("cu.jinja", "cu.j2", "cuh.tmpl", "cu.mako", "cu.template", "cu.in"))}
    files["pkg/kernels/topk.cuda"] = 'extern "C" ' + PAYLOAD
    repo, base = _pr(tmp_path, files)
    code, found, skipped = _gate(repo, base)
    assert code == 1
    assert [f for f in found if f[0] == "DEV002"] == sorted(("DEV002", path, 1) for path in files)
    assert skipped == []


def test_gate_fails_on_cuda_fortran(tmp_path: Path) -> None:
    fortran = ("module kern\n  use cudafor\ncontains\n  attributes(global) subroutine add(x, n)\n    real :: x(*)\n"
               "  end subroutine\nend module\n")
    repo, base = _pr(tmp_path, {"src/k.cuf": fortran})
    code, found, skipped = _gate(repo, base)
    assert (code, found) == (1, [])
    assert [s["path"] for s in skipped] == ["src/k.cuf"]
    # a plain scan of the work tree lists it too
    result = run(repo, Settings(jobs=1, cache_dir=None)).result
    assert [(s.path, s.unseen) for s in result.skipped] == [("src/k.cuf", True)]


# ---- finding 4: CUDA names spelled through macros another header defines, object-like pastes, uses over lines,
# and an object-like alias of `asm`

def test_a_paste_use_over_two_lines_reads_as_the_name_and_keeps_every_line() -> None:
    from porter.source.preprocessor import pasted_names
    data = (b"#define CAT(a, b) a##b\n__global__ void kc(float* x) { float v = x[0]; v += CAT(__shfl_down,\n"
            b"    _sync)(0xffffffff, v, 16); x[0] = v; }\n")
    got = pasted_names(data)
    assert got == (b"#define CAT(a, b) a##b\n__global__ void kc(float* x) { float v = x[0]; v += __shfl_down_sync"
                   b"          \n(0xffffffff, v, 16); x[0] = v; }\n")
    assert len(got) == len(data) and got.count(b"\n") == data.count(b"\n")


def test_an_object_like_paste_longer_than_its_name_takes_room_from_blanks_of_its_line() -> None:
    from porter.source.preprocessor import pasted_names
    data = b"#define WARP_DOWN __shfl_down##_sync\n  v += WARP_DOWN(m, v, 16); s = \"a  b\";\n"
    got = pasted_names(data)
    # seven blanks dropped, left to right, none inside the string
    assert got == b"#define WARP_DOWN __shfl_down##_sync\nv+=__shfl_down_sync(m,v,16);s = \"a  b\";\n"
    # a line with no blank to spare is left as written
    tight = b"#define WARP_DOWN __shfl_down##_sync\nv+=WARP_DOWN(m,v,16);\n"
    assert pasted_names(tight) == tight


def test_spelling_macros_of_a_header_are_read_in_the_files_that_use_them() -> None:
    from porter.source.preprocessor import as_compiled, spelling_macros, with_known_spellings
    header = b"#pragma once\n#define CAT_(a, b) a##b\n#define CAT(a, b) CAT_(a, b)\n#define PTX_ASM asm volatile\n"
    known = spelling_macros(header)
    assert known == {"CAT_##": "(a, b) a##b", "CAT##": "(a, b) a##b", "PTX_ASM##": " asm"}
    use = b'v += CAT(__shfl_down, _sync)(0xffffffff, v, 16); PTX_ASM("mov.u32 %0, %%laneid;" : "=r"(r));\n'
    assert as_compiled(use) == use  # the file alone defines neither
    assert with_known_spellings(as_compiled(use), known) == (
        b'v += __shfl_down_sync       (0xffffffff, v, 16); asm    ("mov.u32 %0, %%laneid;" : "=r"(r));\n')
    # a vendor-prefix paste stays API012's to judge, and a name that is not CUDA's is not written
    assert with_known_spellings(b"CAT(hip, Malloc)(p, n);\n", known) == b"CAT(hip, Malloc)(p, n);\n"


def test_gate_fails_on_cuda_names_spelled_through_macros(tmp_path: Path) -> None:
    kernel = "__global__ void {k}(float* x) {{ float v = x[threadIdx.x]; v += {call}(0xffffffff, v, 16); x[0] = v; }}\n"
    repo, base = _pr(tmp_path, {
        "src/paste.cuh": "#pragma once\n#define CAT_(a, b) a##b\n#define CAT(a, b) CAT_(a, b)\n",
        "src/a_header.cu": '#include "paste.cuh"\n' + kernel.format(k="ka", call="CAT(__shfl_down, _sync)"),
        "src/b_object.cu": "#define WARP_DOWN __shfl_down##_sync\n" + kernel.format(k="kb", call="WARP_DOWN"),
        "src/c_multiline.cu": "#define CAT(a, b) a##b\n" + kernel.format(k="kc", call="CAT(__shfl_down,\n    _sync)"),
        "src/ptx.cuh": "#pragma once\n#define PTX_ASM asm volatile\n",
        "src/d_asm.cu": '#include "ptx.cuh"\n__global__ void kd(unsigned* x) { unsigned r; '
                        'PTX_ASM("mov.u32 %0, %%laneid;" : "=r"(r)); x[0] = r; }\n',
    })
    code, found, _ = _gate(repo, base)
    assert code == 1
    assert [f for f in found if f[0] in ("DEV001", "DEV002")] == [
        ("DEV001", "src/d_asm.cu", 2), ("DEV002", "src/a_header.cu", 2), ("DEV002", "src/b_object.cu", 2),
        ("DEV002", "src/c_multiline.cu", 2)]


def test_a_directive_line_is_never_squeezed() -> None:
    from porter.source.preprocessor import pasted_names
    # `#define SHFL (a)` squeezed would read `#define SHFL(a)`: a function-like macro
    data = b"#define WARP_DOWN __shfl_down##_sync\n#define SHFL    (x)    +    WARP_DOWN(m, v, 16)\n"
    assert pasted_names(data) == data
