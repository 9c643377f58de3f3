"""The cache's pack files: a scan writes one pack, workers hand their entries to it, many packs are merged, and a
planted or damaged pack costs a miss, never a hang, a crash or a read outside the cache."""
from __future__ import annotations

import os
import struct
import time
from pathlib import Path

import pytest

from porter import cache as cache_mod
from porter import pipeline
from porter import packfile
from porter.cache import Cache
from porter.pipeline import scan
from porter.settings import Settings
from tests.helpers import write_files

KEY = "ab" + "0" * 38


def _cache(path: Path) -> Cache:
    c = Cache(path)
    c.check()
    return c


def _kernels(n: int) -> dict[str, str]:
    return {f"k{i:02d}.cu": f"__global__ void k{i}(float* x) {{ x[threadIdx.x] = {i}.f; }}\n" for i in range(n)}


def test_a_cold_scan_writes_one_pack_in_one_process_and_with_workers(tmp_path, monkeypatch):
    write_files(tmp_path / "src", _kernels(40))  # 40 files: enough for the worker pool (16 or more misses)
    for jobs in (1, 2):
        # as a fresh process scans: porter's own rules not yet held in this one (porter.pipeline.load_rules_cached)
        monkeypatch.setattr(pipeline, "_OWN_RULES", None)
        where = tmp_path / f"cache-{jobs}"
        cold = scan(tmp_path / "src", Settings(jobs=jobs, cache_dir=where))
        assert (cold.stats.cache_hits, cold.stats.cache_misses) == (0, 40)
        packs = sorted(where.iterdir())
        assert len(packs) == 1 and packs[0].suffix == ".pack"
        with open(packs[0], "rb") as fh:
            spans = packfile.read_index(fh.fileno(), _cache(where)._seal)
        # the 40 files' results and what each names (porter.filekey), the rule set and the repository facts, and
        # each file's own facts (porter.pipeline._file_facts_key: an edit lexes one file again, not the tree)
        assert len(spans) == len({k for k, _, _ in spans}) == 122
        warm = scan(tmp_path / "src", Settings(jobs=jobs, cache_dir=where))
        assert (warm.stats.cache_hits, warm.stats.cache_misses) == (40, 0)
        assert warm.to_dict() == cold.to_dict()
        assert sorted(where.iterdir()) == packs  # a warm scan writes nothing


def test_an_entry_is_found_before_and_after_its_flush_and_by_another_process(tmp_path):
    c = _cache(tmp_path / "c")
    c.put(KEY, ("kept", 1))
    assert c.get(KEY) == ("kept", 1) and list((tmp_path / "c").iterdir()) == []
    c.flush()
    assert c.get(KEY) == ("kept", 1)
    assert Cache(tmp_path / "c").get(KEY) == ("kept", 1)


def test_kept_entries_past_the_flush_size_are_written_without_waiting_for_the_flush(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_mod, "FLUSH_BYTES", 100)
    c = _cache(tmp_path / "c")
    c.put(KEY, "x" * 10)
    assert list((tmp_path / "c").iterdir()) == []
    c.put("ab" + "1" * 38, "y" * 200)  # past 100 kept bytes: written now, a walk's memory stays bounded
    assert [p.suffix for p in (tmp_path / "c").iterdir()] == [".pack"]
    assert Cache(tmp_path / "c").get(KEY) == "x" * 10


def test_more_than_max_packs_are_merged_into_one_and_every_entry_survives(tmp_path):
    where = tmp_path / "c"
    for i in range(cache_mod.MAX_PACKS):
        c = _cache(where)
        c.put(f"key-{i:02d}", ("value", i))
        c.flush()
    assert len(list(where.glob("*.pack"))) == cache_mod.MAX_PACKS  # not yet more than the bound
    c = _cache(where)
    c.put("key-last", ("value", "last"))
    c.flush()
    packs = list(where.glob("*.pack"))
    assert len(packs) == 1  # 17 small packs: merged
    fresh = Cache(where)
    assert [fresh.get(f"key-{i:02d}") for i in range(cache_mod.MAX_PACKS)] == [("value", i) for i in range(16)]
    assert fresh.get("key-last") == ("value", "last") and c.get("key-00") == ("value", 0)


def test_a_merge_keeps_the_newest_entry_of_a_key(tmp_path):
    where = tmp_path / "c"
    for value in ("old", "new"):
        c = _cache(where)
        c.put(KEY, value)
        c.flush()
        time.sleep(0.001)  # pack names sort by their clock time
    assert Cache(where).get(KEY) == "new"
    for i in range(cache_mod.MAX_PACKS - 1):  # the 17th pack: all merged
        c = _cache(where)
        c.put(f"filler-{i}", i)
        c.flush()
    assert len(list(where.glob("*.pack"))) == 1
    assert Cache(where).get(KEY) == "new"


def test_a_merge_leaves_packs_too_big_to_merge_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_mod, "MERGE_BYTES", 4096)
    where = tmp_path / "c"
    big = _cache(where)
    big.put("big", "z" * 5000)  # larger than MERGE_BYTES: never rewritten by a merge
    big.flush()
    for i in range(cache_mod.MAX_PACKS):
        c = _cache(where)
        c.put(f"small-{i}", i)
        c.flush()
    packs = sorted(where.glob("*.pack"), key=lambda p: p.stat().st_size)
    assert len(packs) == 2 and packs[-1].stat().st_size > 5000
    fresh = Cache(where)
    assert fresh.get("big") == "z" * 5000 and [fresh.get(f"small-{i}") for i in range(16)] == list(range(16))


def test_a_damaged_entry_is_a_miss_and_the_rest_of_its_pack_still_reads(tmp_path):
    c = _cache(tmp_path / "c")
    c.put(KEY, "first")
    c.put("ab" + "1" * 38, "second")
    c.flush()
    (pack,) = (tmp_path / "c").glob("*.pack")
    with open(pack, "rb") as fh:
        spans = {k: (o, n) for k, o, n in packfile.read_index(fh.fileno(), c._seal)}
    data = bytearray(pack.read_bytes())
    offset, length = spans[c._name(KEY)]
    data[offset:offset + length] = b"\xff" * length
    pack.write_bytes(bytes(data))
    fresh = Cache(tmp_path / "c")
    assert fresh.get(KEY) is None and fresh.get("ab" + "1" * 38) == "second"


def _planted(path: Path, index: bytes, payload: bytes = b"", offset: int | None = None,
             length: int | None = None, seal=None) -> None:
    """A pack as an attacker writes it; `seal` (default: a guess of zeros) computes the index's seal."""
    at = len(packfile.MAGIC) + len(payload)
    trailer = struct.pack("<QQ32s8s", at if offset is None else offset, len(index) if length is None else length,
                          seal(index) if seal else bytes(packfile.SEAL_BYTES), packfile.END)
    path.write_bytes(packfile.MAGIC + payload + index + trailer)


@pytest.mark.parametrize("index, offset, length", [
    (b'[["' + KEY.encode() + b'", 16, 999999]]', None, None),  # an entry past the payload
    (b'[["' + KEY.encode() + b'", 0, 4]]', None, None),  # an entry inside the header
    (b'[[7, 16, 4]]', None, None),  # a key that is not a string
    (b'{"a": 1}', None, None),  # an index that is not a list
    (b'not json', None, None),
    (b'[]', None, 1 << 40),  # an index length past the file (and past MAX_INDEX_BYTES): never read
    (b'[]', 3, None),  # an index offset inside the header
])
def test_a_planted_malformed_pack_is_ignored_and_good_packs_still_read(tmp_path, index, offset, length):
    good = _cache(tmp_path / "c")
    good.put("ab" + "1" * 38, "good")
    good.flush()
    # Sealed with the installation's own secret, so the checks after the seal's are what rejects it.
    _planted(tmp_path / "c" / "99999999999999999999-1-1.pack", index, b'{"x":1}', offset, length, good._seal)
    fresh = Cache(tmp_path / "c")
    assert fresh.get(KEY) is None and fresh.get("ab" + "1" * 38) == "good"


def test_an_entry_longer_than_the_entry_limit_is_not_read(tmp_path, monkeypatch):
    c = _cache(tmp_path / "c")
    c.put(KEY, "x" * 100)
    c.flush()
    monkeypatch.setattr(cache_mod, "MAX_ENTRY_BYTES", 50)
    assert Cache(tmp_path / "c").get(KEY) is None


def test_a_fifo_or_a_symlink_named_as_a_pack_is_never_opened(tmp_path):
    outside = tmp_path / "outside.pack"
    c = _cache(tmp_path / "c")
    c.put(KEY, "outside")
    c.flush()
    (real,) = (tmp_path / "c").glob("*.pack")
    real.rename(outside)  # a real pack, now outside the cache directory
    (tmp_path / "c" / "00000000000000000001-1-1.pack").symlink_to(outside)
    os.mkfifo(tmp_path / "c" / "00000000000000000002-1-1.pack")
    started = time.monotonic()
    assert Cache(tmp_path / "c").get(KEY) is None  # the link is not followed; the FIFO does not block
    assert time.monotonic() - started < 5


def test_a_pack_merged_away_after_its_index_was_read_is_a_miss(tmp_path):
    c = _cache(tmp_path / "c")
    c.put(KEY, "gone soon")
    c.flush()
    reader = Cache(tmp_path / "c")
    assert reader.get("unknown") is None  # reads the index
    reader.flush()  # a stage's end: closes the packs it read
    for p in (tmp_path / "c").glob("*.pack"):
        p.unlink()  # as another process's merge does
    assert reader.get(KEY) is None


def test_a_cache_directory_gone_before_the_flush_loses_the_entries_but_not_the_scan(tmp_path):
    c = _cache(tmp_path / "c")
    c.put(KEY, "kept")
    (tmp_path / "c").rmdir()
    (tmp_path / "c").write_text("a file now")  # nothing can be written under it
    c.flush()  # no exception: the next run is slower, this one is not failed
    assert (tmp_path / "c").read_text() == "a file now" and c.get(KEY) is None
