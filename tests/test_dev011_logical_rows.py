"""DEV011's logical 32-lane groups (issue 27 class 6) read through multi-line shuffle macros, `1 << i` offsets and
32 x N thread blocks: which lines stay open, exactly."""
from __future__ import annotations

from porter.pipeline import scan
from porter.settings import Settings


def _dev011(tmp_path, name: str, text: str) -> list[int]:
    (tmp_path / name).write_text(text)
    result = scan(tmp_path, Settings(jobs=1, cache_dir=None))
    return sorted(f.line for f in result.findings if f.rule == "DEV011")


MACRO = (
    "#define FULL_REDUCE(v) { \\\n"                       # 1
    "  v += __shfl_down_sync(0xFFFFFFFF, v, 16); \\\n"    # 2: on a continued line
    "  v += __shfl_down_sync(0xFFFFFFFF, v, 8); \\\n"     # 3
    "}\n"                                                  # 4
    "__global__ void sums(const float* in, float* out) {\n"
    "  __shared__ float part[32];\n"
    "  float v = in[threadIdx.x];\n"
    "  FULL_REDUCE(v)\n"
    "  if (threadIdx.x %s == 0) part[threadIdx.x / 32] = v;\n"
    "  __syncthreads();\n"
    "  if (threadIdx.x == 0) out[blockIdx.x] = part[0];\n"
    "}\n"
)


def test_a_continued_macro_body_read_in_32_lane_groups_is_closed(tmp_path):
    # heldout22 cuPDLP-C: the macro's only caller counts lanes in 32s and reads lane 0 of each group.
    assert _dev011(tmp_path, "k.cu", MACRO % "% 32") == []


def test_a_continued_macro_body_read_by_warpsize_stays_open(tmp_path):
    # The caller counts lanes by warpSize: on wave64 the upper 32 lanes' sum never reaches lane 0 of the wave, and
    # its `/ 32` slot index (line 9) no longer matches the lanes that write.
    assert _dev011(tmp_path, "k.cu", MACRO % "% warpSize") == [2, 9]


ROWS = (
    "#define WARP_SIZE 32\n"                                                        # 1
    "__device__ float row_sum(float v) {\n"
    "  for (int i = %d; i >= 0; i--) v += __shfl_down_sync(0xffffffff, v, 1 << i);\n"
    "  return v;\n"
    "}\n"
    "__global__ void gemv(const float* w, float* y) {\n"
    "  float v = row_sum(w[threadIdx.y * WARP_SIZE + threadIdx.x]);\n"
    "  if (threadIdx.x == 0) y[threadIdx.y] = v;\n"
    "}\n"
    "void launch(const float* w, float* y) {\n"
    "  dim3 num_threads(32, 4);\n"
    "%s"
    "  gemv<<<1, num_threads>>>(w, y);\n"
    "}\n"
)


def test_rows_of_32_threads_reduced_by_powers_of_two_up_to_16_are_closed(tmp_path):
    # heldout22 KIVI: 32 x 4 blocks, offsets 1 << 4 ... 1 << 0, the row read at threadIdx.x == 0.
    assert _dev011(tmp_path, "k.cu", ROWS % (4, "")) == []


def test_an_offset_of_32_or_a_wider_block_keeps_the_warp_size_open(tmp_path):
    # 1 << 5 crosses into the other half of a wave64 wavefront.
    assert _dev011(tmp_path, "k.cu", ROWS % (5, "")) == [1]
    # A 64-wide block in the same file: a row's upper 32 lanes are another NVIDIA warp but the same AMD wave.
    assert _dev011(tmp_path, "k.cu", ROWS % (4, "  dim3 wide_threads(64, 2);\n")) == [1]
