"""Red team, session 16: the patch `porter port` (and `porter translate --diff`) writes was made by difflib in porter's
own process, after the budgeted stages: difflib costs the file's length for every hunk, so a repository file of
151,000 lines with 1,000 `__shfl_down_sync(0xffffffff, ...)` calls (3.3 MB, scanned in 20 s) held `porter port`
for 140 s, and ten such files for over 20 minutes, with no budget to stop it. porter.render.unidiff writes the
same hunks in near-linear time.
"""
from __future__ import annotations

import difflib
import subprocess
import time
from dataclasses import dataclass

from porter.port.patch import unified_diff as port_diff
from porter.render.unidiff import MAX_GAP_PRODUCT, unified_diff
from porter.translate.write import unified_diff as translate_diff


def _kernel(edits: int, gap: int) -> bytes:
    lines = ["__global__ void k(float* x, float v) {"]
    for i in range(edits):
        lines.append(f"  v += __shfl_down_sync(0xffffffff, v, {i % 16 + 1});")
        lines += [f"  x[{i * gap + j}] = {i * gap + j}.0f;" for j in range(gap)]
    return ("\n".join(lines) + "\n}\n").encode()


@dataclass
class _File:  # what both patch writers read of a planned or translated file
    path: str
    before: bytes | None
    after: bytes

    original = property(lambda self: self.before)
    output = property(lambda self: self.after)
    changed = True


@dataclass
class _Plan:
    files: list[_File]


def test_a_patch_of_a_long_file_with_many_edits_takes_linear_time(tmp_path):
    before = _kernel(1000, 60)  # 61,002 lines: difflib took 50 s (the 151,000-line file 100 s)
    after = before.replace(b"0xffffffff", b"PORTER_LANE_MASK_ALL")
    for name, write in (("port", lambda: port_diff(_Plan([_File("k.cu", before, after)]))),
                        ("translate", lambda: translate_diff(_Plan([_File("k.cu", before, after)])))):
        t = time.process_time()
        patch = write()
        assert time.process_time() - t < 10, name
        assert patch.count(b"\n@@ ") + patch.startswith(b"@@ ") == 1000, name
        (tmp_path / "k.cu").write_bytes(before)
        subprocess.run(["git", "apply", "--unsafe-paths", f"--directory={tmp_path.name}", "-p1", "-"], input=patch,
                       cwd=tmp_path.parent, check=True, capture_output=True)
        assert (tmp_path / "k.cu").read_bytes() == after, name


def test_the_hunks_are_difflibs_for_edits_in_place_and_inserted_lines():
    a = [b"#include <cuda.h>\n", b"int a;\n", b"int b;\n", b"int c;\n", b"int d;\n", b"int e;\n", b"int f;\n",
         b"int g;\n", b"int h;\n", b"mask = 0xffffffff;\n", b"int i;\n", b"end"]
    b = [b"#include <hip/hip_runtime.h>\n", b"#include \"compat.h\"\n", *a[1:9], b"mask = ALL;\n", b"int i;\n",
         b"end\n"]
    assert unified_diff(a, b, b"a/k.cu", b"b/k.cu") == list(
        difflib.diff_bytes(difflib.unified_diff, a, b, b"a/k.cu", b"b/k.cu", n=3)) == [
        b"--- a/k.cu\n", b"+++ b/k.cu\n",
        b"@@ -1,4 +1,5 @@\n", b"-#include <cuda.h>\n", b"+#include <hip/hip_runtime.h>\n",
        b"+#include \"compat.h\"\n", b" int a;\n", b" int b;\n", b" int c;\n",
        b"@@ -7,6 +8,6 @@\n", b" int f;\n", b" int g;\n", b" int h;\n", b"-mask = 0xffffffff;\n", b"+mask = ALL;\n",
        b" int i;\n", b"-end", b"+end\n"]
    assert unified_diff(a, a, b"a/k.cu", b"b/k.cu") == []
    assert unified_diff([], [b"new\n"], b"/dev/null", b"b/n.h") == [b"--- /dev/null\n", b"+++ b/n.h\n",
                                                                    b"@@ -0,0 +1 @@\n", b"+new\n"]


def test_a_file_with_no_unique_line_is_one_replaced_block_past_the_gap_bound():
    a = [b"x\n"] * 3000
    b = [b"x\n" if i % 7 and i != 2999 else b"y%d\n" % i for i in range(3000)]  # no equal ends either
    assert 3000 * 3000 > MAX_GAP_PRODUCT
    t = time.process_time()
    out = unified_diff(a, b, b"a/f", b"b/f", 3)
    assert time.process_time() - t < 5
    assert out[:3] == [b"--- a/f\n", b"+++ b/f\n", b"@@ -1,3000 +1,3000 @@\n"]
    assert out[3:] == [b"-x\n"] * 3000 + [b"+" + line for line in b]


def test_a_lone_cr_inside_a_line_stays_in_its_line_and_git_applies_the_patch(tmp_path):
    """bytes.splitlines cut at the CR of `// note\\rint helper()`: the patch put "\\ No newline at end of file" in the
    middle of a hunk and git apply refused it (session-26 attacker)."""
    before = b"#include <cuda_runtime.h>\n// note one\rint helper(){return 1;}\nunsigned m = 0xffffffff;\nint end;"
    after = before.replace(b"0xffffffff", b"PORTER_LANE_MASK_ALL")
    for name, write in (("port", lambda: port_diff(_Plan([_File("k.cu", before, after)]))),
                        ("translate", lambda: translate_diff(_Plan([_File("k.cu", before, after)])))):
        patch = write()
        assert patch.count(b"No newline at end of file") == 1, name  # after the unchanged last line only
        assert b" // note one\rint helper(){return 1;}\n" in patch, name
        (tmp_path / "k.cu").write_bytes(before)
        subprocess.run(["git", "apply", "--unsafe-paths", f"--directory={tmp_path.name}", "-p1", "-"], input=patch,
                       cwd=tmp_path.parent, check=True, capture_output=True)
        assert (tmp_path / "k.cu").read_bytes() == after, name
