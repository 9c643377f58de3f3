"""Red team, session 12: Python identifiers spelled with compatibility characters.

CPython reads every identifier in its NFKC normal form (the language reference, "Identifiers and keywords"), so
`torch.𝐜uda.get_device_capability()` (U+1D41C MATHEMATICAL BOLD SMALL C) is torch.cuda and `import 𝐩ycuda.autoinit`
imports pycuda: checked, `import 𝐣son` imports json. porter matched the bytes as written and found nothing, so a pull
request could add CUDA-only Python past the gate. Identifiers are now read in NFKC form (each changed line padded
with spaces at its end to its own byte length, so lines and the file's length stay its own).
"""
from __future__ import annotations

import json

from helpers import make_repo, porter_here

PLAIN = "import torch\nx = torch.cuda.get_device_capability()\nimport pycuda.autoinit\n"
FANCY = "import torch\nx = torch.\U0001d41cuda.get_device_capability()\nimport \U0001d429ycuda.autoinit\n"


def _found(tmp_path, text):
    repo = make_repo(tmp_path, {"a.py": text})
    p = porter_here("scan", str(repo), "--no-cache", "--format", "json")
    return sorted((f["rule"], f["line"], f["column"]) for f in json.loads(p.stdout)["findings"])


def test_python_identifiers_are_read_as_cpython_reads_them(tmp_path):
    plain = _found(tmp_path / "plain", PLAIN)
    assert [(r, line) for r, line, _ in plain] == [("LIB008", 3), ("PYT001", 2)]
    assert _found(tmp_path / "fancy", FANCY) == plain


def test_only_identifiers_change_and_each_line_keeps_its_length():
    from porter.source.parse_input import python_names_as_read

    src = ('x = \U0001d41cu + "\U0001d41c"  # \U0001d41c\n'  # a string and a comment keep their characters
           'y = \U0001d41c \\\n  + 1\n')  # the padding goes before a continuation backslash
    out = python_names_as_read(src.encode())
    assert out == ('x = cu + "\U0001d41c"  # \U0001d41c   \n'
                   'y = c    \\\n  + 1\n').encode()
    assert len(out) == len(src.encode())
