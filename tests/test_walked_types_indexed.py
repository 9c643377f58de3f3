"""Every node type a kernel-walk detector reads comes out of the whole-file query (porter.kernels.nodes.INDEXED).

A type left out is still found (NodeIndex.under falls back to a walk), but by a Python walk of every function body
for it, each time a body is walked: restrict-value-type's `field_declaration` did that to every body of every file,
~7% of a cuda-samples scan, with no output changed to show it."""
from porter.kernels.facts_detectors import walked_types
from porter.kernels.nodes import INDEXED


def test_every_walked_type_is_indexed():
    assert sorted(set(walked_types()) - set(INDEXED)) == []
    assert "field_declaration" in walked_types()  # the type this was found with is still walked
