"""translate is budgeted per file: when the set runs out of its stage budget, each file is tried alone under the
per-file budget, a file that runs out is listed as skipped and kept as it is, and the rest is translated. The slow
file is simulated by making porter's own CMake migration sleep on a marker, in the forked worker that inherits it."""
from __future__ import annotations

import signal
import time

from helpers import write_files
from porter.pipeline import translate
from porter.settings import Settings
from porter.translate import TranslateOptions
from porter.translate import buildfiles

KERNEL = "__global__ void k(int *a) { a[threadIdx.x] = 0; }\nint main() { cudaDeviceSynchronize(); return 0; }\n"


def test_one_file_over_its_budget_is_skipped_and_the_rest_translated(tmp_path, monkeypatch):
    write_files(tmp_path / "src", {"a.cu": KERNEL, "lib/b.cu": KERNEL,
                                   "CMakeLists.txt": "# SLOW_MARKER\nproject(x LANGUAGES CXX CUDA)\n"})
    real = buildfiles.migrate_cmake

    def migrate_cmake(rel, text, gfx, tables):
        if "SLOW_MARKER" in text:
            time.sleep(600)
        return real(rel, text, gfx, tables)

    monkeypatch.setattr(buildfiles, "migrate_cmake", migrate_cmake)

    def too_long(*_):
        raise TimeoutError("translate is not bounded per file")

    signal.signal(signal.SIGALRM, too_long)  # the test's own bound (forked workers do not inherit the alarm)
    signal.alarm(150)
    started = time.monotonic()
    try:
        out = translate(tmp_path / "src", Settings(jobs=1, file_seconds=4), TranslateOptions(),
                        output=tmp_path / "out")
    finally:
        signal.alarm(0)
    assert time.monotonic() - started < 120
    result = out.result
    assert [(s.path, s.reason) for s in result.skipped] == [
        ("CMakeLists.txt", "translating it alone took longer than 4 s; not translated (kept as it is)")]
    assert {f.path: f.status for f in result.files} == {"a.cu": "translated", "lib/b.cu": "translated"}
    assert "hipDeviceSynchronize" in (tmp_path / "out" / "a.cu").read_text()
    assert (tmp_path / "out" / "CMakeLists.txt").read_text() == "# SLOW_MARKER\nproject(x LANGUAGES CXX CUDA)\n"
