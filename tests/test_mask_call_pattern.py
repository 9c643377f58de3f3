"""The warp-intrinsic call pattern of the mask_parameter kind (porter.match.kinds.code_masks._CALL) opens with its
literal `__` and looks behind it afterwards, for speed; these pin the boundaries the leading lookbehind it replaced
drew: no match after a word character, `.` or `>` (a member, or part of another name); a match at the very start
of the text and after `(`, white space or an operator."""
from porter.match.kinds.code_masks import _CALL


def _calls(text: bytes) -> list[tuple[int, bytes, bytes]]:
    return [(m.start(), m.group("name"), m.group("mask")) for m in _CALL.finditer(text)]


def test_matches_at_start_and_after_punctuation():
    assert _calls(b"__shfl_sync(mask, v, 0);") == [(0, b"__shfl_sync", b"mask")]
    assert _calls(b"x = (__ballot_sync( m ) + __syncwarp(m2));") == [
        (5, b"__ballot_sync", b"m"), (26, b"__syncwarp", b"m2")]
    assert _calls(b"\t__reduce_add_sync(mask, v)") == [(1, b"__reduce_add_sync", b"mask")]


def test_no_match_after_word_dot_or_arrow():
    assert _calls(b"a__shfl_sync(mask, v);") == []
    assert _calls(b"obj.__shfl_sync(mask, v);") == []
    assert _calls(b"p->__syncwarp(mask);") == []
    assert _calls(b"___shfl_sync(mask, v);") == []  # `_` is a word character: the name starts inside a word


def test_the_mask_must_be_a_name_followed_by_comma_or_paren():
    assert _calls(b"__shfl_xor_sync(0xffffffff, v, 1);") == []
    assert _calls(b"__shfl_down_sync(full, v, 1);") == [(0, b"__shfl_down_sync", b"full")]
    assert _calls(b"__syncwarp();") == []
