"""API001 on `__CUDACC__`: hipify renames it to `__HIPCC__`, which switches a CUDA-only arm on in the HIP build (a new
user's hashinator wraps `assert(__activemask() == MASK)` in `#ifdef __CUDACC__`); the advice says when to keep the
CUDA macro and when to test both, instead of only repeating the rename."""
from __future__ import annotations

import json

from helpers import porter_here, write_files


def test_the_cudacc_rename_says_when_to_keep_it(tmp_path):
    write_files(tmp_path / "t", {"a.cu": "__device__ void f(unsigned *o) {\n#ifdef __CUDACC__\n  o[0] = 1u;\n#endif\n}\n"
                                         "void g() { cudaDeviceSynchronize(); }\n"})
    r = porter_here("scan", str(tmp_path / "t"), "--no-cache", "--format", "json")
    assert r.returncode == 0, r.stderr
    got = [(f["rule"], f["line"], f["message"]) for f in json.loads(r.stdout)["findings"] if f["rule"] == "API001"]
    assert got == [
        ("API001", 2, "__CUDACC__ (CUDA driver): hipify maps it to __HIPCC__, which turns this arm on in the HIP build; "
                      "keep `__CUDACC__` where the arm is CUDA-only on purpose, or test `defined(__CUDACC__) || "
                      "defined(__HIPCC__)` where its code is valid HIP."),
        ("API001", 6, "cudaDeviceSynchronize (CUDA runtime): hipify maps it to hipDeviceSynchronize.")]
