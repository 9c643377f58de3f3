"""A scan without a cache does no work whose only use is naming cache entries: no file's bytes are hashed."""
from __future__ import annotations

from pathlib import Path

from porter import pipeline
from porter.settings import Settings


def _hashed_paths(tmp_path: Path, monkeypatch, cache_dir: Path | None) -> list[str]:
    tree = tmp_path / "repo"
    tree.mkdir(exist_ok=True)
    (tree / "k.cu").write_bytes(b"__global__ void k(float* x) { x[threadIdx.x] = 0; }\n")
    (tree / "run.py").write_bytes(b"import torch\nprint(torch.cuda.is_available())\n")
    log = tmp_path / "hashed.log"  # the scan's worker is a forked process: it writes what it hashes to a file
    log.write_text("")
    real = pipeline.Held.digest

    def counted(self, c, data):
        with open(log, "a") as f:
            f.write(c.path + "\n")
        return real(self, c, data)

    monkeypatch.setattr(pipeline.Held, "digest", counted)
    result = pipeline.scan(tree, Settings(jobs=1, cache_dir=cache_dir))
    assert [k.name for k in result.kernels] == ["k"]
    return sorted(log.read_text().split())


def test_no_file_is_hashed_without_a_cache(tmp_path: Path, monkeypatch) -> None:
    assert _hashed_paths(tmp_path, monkeypatch, None) == []


def test_each_file_is_hashed_for_its_cache_entries(tmp_path: Path, monkeypatch) -> None:
    # With a cache the digests name its entries: the repository facts' key, each file's own entry and its port status
    # (k.cu three times, run.py, which has no part in the repository facts, twice).
    assert _hashed_paths(tmp_path, monkeypatch, tmp_path / "cache") == ["k.cu", "k.cu", "k.cu", "run.py", "run.py"]
