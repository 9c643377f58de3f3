"""porter.match.engine's finding construction: the fast paths give exactly the slow paths' findings.

The engine words a message once per file and values tuple, computes ASCII columns inline and fingerprints drafts
in one loop; each must agree with the general code it stands in for (with_fingerprints, the per-line decode).
"""
from __future__ import annotations

import dataclasses

from porter.match.base import Hit
from porter.match.engine import make_finding, run_rules, with_fingerprints
from porter.match.registry import MatchContext
from porter.rules import load_rules
from porter.source.parse import parse

SOURCE = """#include <cuda_runtime.h>
__global__ void k(float* p) { p[threadIdx.x] = 0; }
int main() {
  float* p;
  cudaMalloc(&p, 4);   cudaMalloc(&p, 4);
  cudaMalloc(&p, 4);
  cudaFree(p);
  k<<<1, 32>>>(p);
  return 0;
}
"""


def _scan(source: str):
    sf = parse("t.cu", "cuda", source.encode())
    rules = [r for r in load_rules().rules if "cuda" in r.languages]
    return sf, rules, run_rules(sf, rules, MatchContext())[0]


def test_fingerprints_of_the_drafts_loop_equal_with_fingerprints():
    _, _, findings = _scan(SOURCE)
    cuda_malloc = [f for f in findings if f.snippet.startswith("cudaMalloc")]
    assert [(f.line, f.column) for f in cuda_malloc if f.rule == "API001"] == [(5, 3), (5, 24), (6, 3)]
    again = with_fingerprints([dataclasses.replace(f, fingerprint="") for f in findings])
    assert [f.fingerprint for f in again] == [f.fingerprint for f in findings]
    assert len({f.fingerprint for f in findings}) == len(findings)  # the occurrence counter tells repeats apart


def test_columns_count_characters_on_a_non_ascii_line_and_bytes_do_not_shift_them():
    source = SOURCE.replace("  cudaFree(p);", "  /* é */ cudaFree(p);")
    sf, rules, findings = _scan(source)
    free = [f for f in findings if f.rule == "API001" and "cudaFree" in f.snippet]
    assert [(f.line, f.column, f.end_line, f.end_column) for f in free] == [(7, 11, 7, 19)]  # bytes would give 12 and 20


def test_a_message_worded_from_a_new_values_tuple_matches_the_first_wording():
    sf, rules, findings = _scan(SOURCE)
    rule = next(r for r in rules if r.id == "API001")
    off = SOURCE.index("cudaFree")
    hit = Hit(off, off + len("cudaFree"), name="cudaFree", values=(("hip", "hipFree"), ("status", "rename")))
    first = make_finding(rule, sf, hit)
    # The same values in a new tuple (as a regex matcher makes per hit), in a new file.
    sf2 = parse("u.cu", "cuda", SOURCE.encode())
    second = make_finding(rule, sf2, hit._replace(values=tuple(list(hit.values))))
    assert (second.message, second.data) == (first.message, first.data)
    assert first.data == (("hip", "hipFree"), ("status", "rename"))
    # A value that equals a str-valued one but is not a str is worded on its own (1 and True are equal).
    one = make_finding(rule, sf, hit._replace(values=(("n", 1),), message="{n}"))
    true = make_finding(rule, sf, hit._replace(values=(("n", True),), message="{n}"))
    assert (one.message, true.message) == ("1", "True")
