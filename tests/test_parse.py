"""porter.source.parse: one parser per language serves every file, and the trees it made stay whole."""
from porter.source.parse import parse


def test_reused_parser_leaves_earlier_trees_intact():
    a = parse("a.cu", "cuda", b"__global__ void ka(int *p) { p[0] = 1; }\n")
    b = parse("b.cu", "cuda", b"// other\n__device__ int kb() { return 2; }\n")
    p = parse("c.py", "python", b"def f():\n    return 3\n")
    assert [(f.name, f.is_kernel, f.is_device, f.start_line) for f in a.functions] == [("ka", True, False, 1)]
    assert [(f.name, f.is_kernel, f.is_device, f.start_line) for f in b.functions] == [("kb", False, True, 2)]
    assert a.root.text == b"__global__ void ka(int *p) { p[0] = 1; }\n"
    assert a.root.children[0].type == "function_definition"
    assert b.comment_spans == [(0, 8)]
    assert [f.name for f in p.functions] == ["f"]


def test_macro_kernel_after_a_comment_is_found_through_its_use():
    # A short qualifier macro becomes spaces before the definition; its use is found between the previous
    # sibling (here a comment) and the declarator.
    sf = parse("k.cu", "cuda", b"#define KRN __global__\n// kernel\nKRN void k(int *p) {}\n")
    assert [(f.name, f.is_kernel, f.via_macro) for f in sf.functions] == [("k", True, "KRN")]


def test_kernel_declarator_macros_are_found_on_define_lines_only():
    from porter.source.parse_input import harvest_macros

    data = (b"// define nothing here\n"
            b"#define DEFINE_KERNEL(name, T) \\\n"
            b"  template <int N> __global__ void name(T p) \\\n"
            b"  { }\n"
            b"#define HOST_ONLY(name) void name()\n"
            b"  #  define LAUNCHER(a, kname) __global__ void kname(int a)\n"
            b"#define CONT(x) \\\n"
            b"#define INNER(k) __global__ void k()\n")
    # INNER's line continues CONT's definition, so it defines nothing of its own (as the preprocessor reads it).
    assert harvest_macros(data) == {"DEFINE_KERNEL()": "0", "LAUNCHER()": "1"}


def test_runs_of_numeric_lines_reach_the_parser_blanked_and_shorter_runs_do_not():
    row = b" 0x1F, -3.5e+2f, 42u, +7, 1., 0XaBcUL, " * 12 + b"\r\n"  # CRLF ends, every literal form
    short = b"  1, 2, 3,\n" * 31  # one line short of a run
    data = b"int a[] = {\n" + row * 40 + b"0};\nint b[] = {\n" + short + b"4};\n"
    assert len(data) >= 16 * 1024
    sf = parse("t.cu", "cuda", data)
    start = data.index(b"\n") + 1
    end = start + len(row) * 40 - 1  # the run ends before its last line's newline
    blanked = data[:start] + bytes(10 if c == 10 else 32 for c in data[start:end]) + data[end:]
    assert sf.root.text == blanked
    assert sf.data == data
