"""Issue 26, session 29: the repository-wide stages' per-file parts done once per file content (the unused-PTX-helper
pass's per-file part answered by the file's own scan and cached with its result) and port status's search for a
name skipping files that cannot hold it. Every answer here is the one the old code gave; the re-scans after an edit
are compared byte for byte with a scan without the cache."""
from __future__ import annotations

from porter.portaware.scope import used_names


class _NoDecode(bytes):
    """A file's bytes that fail the test when decoded: the search must skip a file holding none of the names."""

    def decode(self, *args, **kwargs):  # type: ignore[override]
        raise AssertionError("a file without any of the names was decoded")


def test_used_names_decodes_and_searches_only_files_holding_a_name():
    texts = [
        ("a.h", _NoDecode(b"int unrelated;\n" * 50)),
        # the name inside its own arm (lines 2-3 of a.cu) is no use; as a word of another identifier neither
        ("a.cu", b"#if X\n#define FLAG_A 1\n#define FLAG_B 2\n#endif\nint FLAG_AB = 0;\n"),
        # invalid UTF-8 right before the name: decoding replaces the byte, the word is still there
        ("b.cu", b"\xff\xfeFLAG_B;\n// caf\xc3\xa9 FLAG_C\n"),
        ("c.cu", _NoDecode(b"FLAG_Q\n")),
    ]
    assert used_names(["FLAG_A", "FLAG_B"], iter(texts), ("a.cu", 2, 3)) == {"FLAG_B"}
    assert used_names(["FLAG_A"], iter(texts), ("a.cu", 2, 3)) == set()
    assert used_names(["FLAG_C", "FLAG_A"], iter(texts), ("a.cu", 2, 3)) == {"FLAG_C"}
    # once every name is seen the search stops: c.cu is never looked at (it would hold nothing anyway)
    assert used_names(["FLAG_B"], iter(texts[:3] + [("d.cu", _NoDecode(b"FLAG_B\n"))]), ("a.cu", 2, 3)) == {"FLAG_B"}
