"""Red team, session 12: a directory swapped for a symlink between porter's check and its write.

contain.write_bytes (every write into a checkout: translate --in-place, port, `-o` inside a repository) checked that
the file's directory was inside the root, then created its temporary file and renamed it by path: a directory of the
path replaced by a symlink leading out in between (another process of the job, a second checkout step) made porter
write outside the tree. translate --in-place did not even pass its root. The write now opens the directory once,
checks what the kernel says that descriptor is, and creates and renames the file relative to it.
"""
from __future__ import annotations

import os

import pytest

from porter import contain
from porter.translate import write as translate_write

from helpers import make_repo, porter_here


def _swap_after_first_check(monkeypatch, directory, outside, module=contain, name="inside"):
    """Patch `module.name` so that right after its first call `directory` becomes a symlink to `outside` (the
    race, made deterministic)."""
    real = getattr(module, name)
    state = {"swapped": False}

    def racing(*args, **kwargs):
        answer = real(*args, **kwargs)
        if not state["swapped"]:
            state["swapped"] = True
            os.rename(directory, str(directory) + ".moved")
            os.symlink(outside, directory)
        return answer

    monkeypatch.setattr(module, name, racing)


def test_a_directory_swapped_for_a_link_out_after_the_check_is_not_written_through(tmp_path, monkeypatch):
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    _swap_after_first_check(monkeypatch, root / "sub", outside)
    with pytest.raises(contain.Refused) as e:
        contain.write_bytes(root / "sub" / "report.sarif", b"{}", root=root)
    assert str(e.value) == f"{root / 'sub' / 'report.sarif'}: its directory leads outside {root}; not written"
    assert os.listdir(outside) == []


def test_an_ordinary_write_inside_the_root_still_replaces_a_link_at_the_name(tmp_path):
    root = tmp_path / "repo"
    (root / "sub").mkdir(parents=True)
    (tmp_path / "target").write_bytes(b"keep")
    os.symlink(tmp_path / "target", root / "sub" / "x.h")
    contain.write_bytes(root / "sub" / "x.h", b"new", root=root, mode=0o640, umask=False)
    assert (root / "sub" / "x.h").read_bytes() == b"new" and not (root / "sub" / "x.h").is_symlink()
    assert oct(os.stat(root / "sub" / "x.h").st_mode & 0o777) == "0o640"
    assert (tmp_path / "target").read_bytes() == b"keep"
    assert [n for n in os.listdir(root / "sub") if n.startswith(contain.TMP_PREFIX)] == []


def test_translate_in_place_does_not_write_through_a_directory_swapped_after_its_read(tmp_path, monkeypatch):
    kernel = "#include <cuda_runtime.h>\n__global__ void k(float* x) { x[0] = 1; }\n" \
             "void f(float* x) { cudaMalloc(&x, 4); k<<<1, 1>>>(x); }\n"
    repo = make_repo(tmp_path / "r", {"src/a.cu": kernel})
    outside = tmp_path / "outside"
    outside.mkdir()
    # The last look before the write (the file's digest, checked against what was translated) and then the swap.
    _swap_after_first_check(monkeypatch, repo / "src", outside, translate_write, "_sha256_of")
    p = porter_here("translate", str(repo), "--in-place", "--engine", "builtin")
    assert os.listdir(outside) == []
    assert p.returncode == 2, p.stderr
    assert "its directory leads outside" in p.stderr
