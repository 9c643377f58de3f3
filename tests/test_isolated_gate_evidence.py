"""Under --isolated, a pull request cannot make its own new CUDA-only code read as handled: neither by a guard with
no ROCm arm, nor by putting it under a `rocm/` directory (porter.diff._reopen). A guard whose ROCm arm holds code,
and code the base already had, keep their status. An empty ROCm arm is no evidence even without --isolated (session
27: porter.portaware.status.hollow_arms), so there is nothing to reopen."""
from __future__ import annotations

import json

from helpers import git, make_repo, porter_here

PTX = 'asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));'
KERNEL = "__global__ void k(int *a) { a[threadIdx.x] = 0; }\n"


def _device(body: str) -> str:
    return f"__device__ int lane() {{\n  int l;\n{body}\n  return l;\n}}\n"


def _pr(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    base = git(repo, "rev-parse", "HEAD").strip()
    files = {
        "empty_arm.cu": _device(f"#ifdef USE_ROCM\n  // nothing here\n#else\n  {PTX}\n#endif"),
        "no_arm.cu": _device(f"#ifndef USE_ROCM\n  {PTX}\n#endif"),
        "real_arm.cu": _device(f"#ifdef USE_ROCM\n  l = __lane_id();\n#else\n  {PTX}\n#endif"),
        "rocm/x.cu": _device(f"  {PTX}"),
    }
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    return repo, base


def _scan(repo, base, *extra):
    p = porter_here("scan", str(repo), "--new-since", base, "--fail-on", "low", "-f", "json", "--no-cache", *extra)
    assert p.returncode in (0, 1), p.stderr
    doc = json.loads(p.stdout)
    return p.returncode, doc


def test_isolated_reopens_what_only_the_change_handled(tmp_path):
    repo, base = _pr(tmp_path)
    code, doc = _scan(repo, base, "--isolated")
    ptx = {(f["path"], f["status"]) for f in doc["findings"] if f["rule"] == "DEV001"}
    assert ptx == {("empty_arm.cu", "open"), ("no_arm.cu", "open"), ("real_arm.cu", "handled"),
                   ("rocm/x.cu", "open")}
    assert sorted(f["path"] for f in doc["reopened"] if f["rule"] == "DEV001") == ["no_arm.cu", "rocm/x.cu"]
    assert code == 1


def test_without_isolated_the_repository_is_trusted(tmp_path):
    repo, base = _pr(tmp_path)
    code, doc = _scan(repo, base)
    ptx = {(f["path"], f["status"]) for f in doc["findings"] if f["rule"] == "DEV001"}
    assert ptx == {("empty_arm.cu", "open"), ("no_arm.cu", "handled"), ("real_arm.cu", "handled"),
                   ("rocm/x.cu", "handled")}
    assert "reopened" not in doc


COMPONENT = "fixtures/dualbuild/src/comm"  # a CUDA component (cuda/) beside the sibling the ROCm build builds (rccl/)


def _component_files(with_kernel: bool) -> dict[str, str]:
    from helpers import REPO

    root = REPO / COMPONENT
    files = {f"src/comm/{p.relative_to(root)}": p.read_text() for p in sorted(root.rglob("Makefile.am"))}
    files["src/comm/rccl/comm_rccl.c"] = (root / "rccl" / "comm_rccl.c").read_text()
    if with_kernel:
        files["src/comm/cuda/lane.cu"] = _device(f"  {PTX}")
    return files


def _ptx(doc) -> list[tuple[str, str, str | None]]:
    return [(f["path"], f["status"], f.get("handled_by")) for f in doc["findings"] if f["rule"] == "DEV001"]


def test_isolated_reopens_code_handled_by_build_files_the_change_adds(tmp_path):
    # the change brings the CUDA code and the Makefile.am files that make its directory a CUDA component
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    base = git(repo, "rev-parse", "HEAD").strip()
    for rel, text in _component_files(with_kernel=True).items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    code, doc = _scan(repo, base)
    assert _ptx(doc) == [("src/comm/cuda/lane.cu", "handled", "src/comm/rccl/Makefile.am:1")]
    code, doc = _scan(repo, base, "--isolated")
    assert _ptx(doc) == [("src/comm/cuda/lane.cu", "open", None)]
    assert [(f["path"], f["rule"]) for f in doc["reopened"]] == [("src/comm/cuda/lane.cu", "DEV001")]
    assert code == 1


def test_isolated_keeps_a_component_the_base_already_had(tmp_path):
    # the component layout is the base's; the change only adds CUDA code inside the CUDA component
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL, **_component_files(with_kernel=False)})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "src/comm/cuda/lane.cu").write_text(_device(f"  {PTX}"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    code, doc = _scan(repo, base, "--isolated")
    assert _ptx(doc) == [("src/comm/cuda/lane.cu", "handled", "src/comm/rccl/Makefile.am:1")]
    assert "reopened" not in doc


def _named_twin(repo, with_hip: bool) -> None:
    # `kernels/cuda/` beside `kernels/hip/`: the sibling named for ROCm makes the CUDA directory's code handled
    files = {"kernels/cuda/lane.cu": _device(f"  {PTX}")}
    if with_hip:
        files["kernels/hip/lane.hip"] = _device("  l = __lane_id();")
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)


def test_isolated_reopens_code_handled_by_a_twin_directory_the_change_adds(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    base = git(repo, "rev-parse", "HEAD").strip()
    _named_twin(repo, with_hip=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    code, doc = _scan(repo, base)
    assert _ptx(doc) == [("kernels/cuda/lane.cu", "handled", "kernels/hip/")]
    code, doc = _scan(repo, base, "--isolated")
    assert _ptx(doc) == [("kernels/cuda/lane.cu", "open", None)]
    assert [(f["path"], f["rule"]) for f in doc["reopened"]] == [("kernels/cuda/lane.cu", "DEV001")]
    assert code == 1


def test_isolated_keeps_a_twin_directory_the_base_already_had(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL, "kernels/hip/lane.hip": _device("  l = __lane_id();")})
    base = git(repo, "rev-parse", "HEAD").strip()
    _named_twin(repo, with_hip=False)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pr")
    code, doc = _scan(repo, base, "--isolated")
    assert _ptx(doc) == [("kernels/cuda/lane.cu", "handled", "kernels/hip/")]
    assert "reopened" not in doc
