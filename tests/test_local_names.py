"""porter.kernels.facts: the names a function declares itself (FileContext._local_names), read from the file's node
index (porter.kernels.nodes): parameters, variables, range-for and condition declarations count; a nested lambda's
own parameters and variables do not."""
from __future__ import annotations

from porter.kernels.facts import FileContext
from porter.source.parse import parse

SOURCE = b"""\
template <class F>
__global__ void trampoline(F driver, int n, float* out) {
  const auto& local = driver;
  int a = 1, *b = nullptr, c[4];
  auto inner = [&](int hidden) { int also_hidden = hidden; return also_hidden; };
  for (auto& each : c) { out[each] = 0; }
  if (auto cond = n > 0) { out[0] = cond; }
  driver();
  local();
  inner(n);
  helper();
}
"""


def local_names(source: bytes, name: str) -> frozenset[str]:
    sf = parse("k.cu", "cuda", source)
    fn = next(f for f in sf.functions if f.name == name)
    return FileContext(sf)._local_names(fn)


def test_own_declarations_count_and_a_nested_lambdas_do_not():
    assert local_names(SOURCE, "trampoline") == {"driver", "n", "out", "local", "a", "b", "c", "inner", "each",
                                                 "cond"}


def test_a_variable_holding_a_lambda_is_declared_but_not_the_lambdas_parameters():
    source = b"__device__ void f() { auto g = [](int x) { int y = x; return y; }; g(1); }\n"
    sf = parse("k.cu", "cuda", source)
    outer = next(f for f in sf.functions if f.name == "f")
    assert FileContext(sf)._local_names(outer) == {"g"}
