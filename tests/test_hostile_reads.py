"""A scanned repository may be hostile in what porter reads back (issue 25): planted cache packs, a cache committed
inside the tree, oversized pack indexes, a history built to list gigabytes of changes, a baseline that never ends or
nests 100k deep, and `porter: ignore` comments a pull request adds to its own new code. Each case is built as an
attacker would build it (real git repositories, real packs, the real CLI) and bounded by its own timeout."""
from __future__ import annotations

import dataclasses
import json
import os
import stat
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import git, make_repo, porter_here, write_files
from porter import cache as cache_mod
from porter import packfile
from porter.cache import Cache

# Two open findings per kernel: DEV002 (high: a 32-bit warp mask) and KRN001 (info: the kernel itself).
KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = __shfl_xor_sync(0xffffffff, 1.0f, 1); }\n"


def porter(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 120
           ) -> subprocess.CompletedProcess:
    """The CLI in this process, with this process's environment plus `env` and the test's timeout (SIGALRM)."""
    return porter_here(*args, cwd=cwd, timeout=timeout, replace_env=True, env={**os.environ, **(env or {})})


def rules_lines(p: subprocess.CompletedProcess) -> list[tuple[str, str, int]]:
    assert p.returncode in (0, 1), p.stderr
    return sorted((f["rule"], f["path"], f["line"]) for f in json.loads(p.stdout)["findings"])


@pytest.fixture
def own_secret(tmp_path, monkeypatch):
    """This test's installation: its own config directory, so its secret is its own."""
    config = tmp_path / "victim-config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    cache_mod.installation_secret.cache_clear()
    yield config
    cache_mod.installation_secret.cache_clear()


# -- the cache: authenticity ---------------------------------------------------------------------------------------

def test_packs_planted_under_the_public_keys_never_hide_findings(tmp_path, monkeypatch, own_secret):
    """The attacker computes every key porter asks for (they are public: file content, porter's code) by running
    porter, and plants entries that say "no findings" under them: once as a bare pack, once as a pack their own
    porter installation wrote and sealed. Neither is served; the gate still fails."""
    from porter.model import FileResult
    from porter.pipeline import scan
    from porter.settings import Settings

    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL, "b.cu": KERNEL.replace("k(", "b(")})
    import pickle

    # Files are scanned in forked budget workers (porter.budget), so each put is logged to a file the test reads.
    log = tmp_path / "asked.pickles"
    real_put = Cache.put

    def logged_put(self, key, value):
        with open(log, "ab") as fh:
            pickle.dump((key, value), fh)
        return real_put(self, key, value)

    monkeypatch.setattr(Cache, "put", logged_put)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "attacker-config"))
    cache_mod.installation_secret.cache_clear()
    scan(repo, Settings(jobs=1, cache_dir=tmp_path / "attacker-cache"))
    monkeypatch.undo()
    asked: dict[str, object] = {}
    with open(log, "rb") as fh:
        while True:
            try:
                key, value = pickle.load(fh)
            except EOFError:
                break
            asked[key] = value
    emptied = {k: dataclasses.replace(v, findings=()) for k, v in asked.items() if isinstance(v, FileResult)}
    assert sorted(v.path for v in emptied.values()) == ["b.cu", "k.cu"]

    victim = tmp_path / "victim-cache"
    victim.mkdir(mode=0o700)
    # 1. a bare pack: the public keys, the entries as porter encodes them, a guessed (zero) seal
    bare = [(k, cache_mod.dumps(v)) for k, v in emptied.items()]
    packfile.write(str(victim), "99999999999999999998-1-1", bare, lambda index: bytes(packfile.SEAL_BYTES))
    # 2. a pack the attacker's own installation wrote: well-formed and sealed, under another secret
    attacker = Cache(victim, secret=b"a" * cache_mod.SECRET_BYTES)
    for k, v in emptied.items():
        attacker.put(k, v)
    attacker.flush()
    assert len(list(victim.glob("*.pack"))) == 2

    env = {"XDG_CONFIG_HOME": str(own_secret)}
    clean = porter("scan", str(repo), "--format", "json", "--no-cache", "-j", "1")
    served = porter("scan", str(repo), "--format", "json", "--cache-dir", str(victim), "-j", "1", "--fail-on", "high",
                    env=env)
    assert served.returncode == 1, served.stderr
    assert rules_lines(served) == rules_lines(clean) == [("DEV002", "b.cu", 1), ("DEV002", "k.cu", 1),
                                                         ("KRN001", "b.cu", 1), ("KRN001", "k.cu", 1)]
    victim_cache = Cache(victim)
    assert [victim_cache.get(k) for k in emptied] == [None, None]


def test_an_entry_copied_under_another_key_or_altered_does_not_verify(tmp_path, own_secret):
    """Someone who can write the cache but not read the secret swaps an entry's bytes for another's (both sealed
    with the right secret) or flips a byte: a miss either way, and the untouched entry still reads."""
    c = Cache(tmp_path / "c")
    c.check()
    c.put("one", ("aaaa", 1))
    c.put("two", ("bbbb", 2))
    c.flush()
    (pack,) = (tmp_path / "c").glob("*.pack")
    with open(pack, "rb") as fh:
        spans = {k: (o, n) for k, o, n in packfile.read_index(fh.fileno(), c._seal)}
    data = bytearray(pack.read_bytes())
    (o1, n1), (o2, n2) = spans[c._name("one")], spans[c._name("two")]
    assert n1 == n2  # same length: the swap keeps the pack well-formed
    data[o1:o1 + n1], data[o2:o2 + n2] = data[o2:o2 + n2], data[o1:o1 + n1]
    pack.write_bytes(bytes(data))
    assert Cache(tmp_path / "c").get("one") is None and Cache(tmp_path / "c").get("two") is None
    c2 = Cache(tmp_path / "d")
    c2.put("one", ("first", 1))
    c2.put("two", ("second", 2))
    c2.flush()
    (pack,) = (tmp_path / "d").glob("*.pack")
    data = bytearray(pack.read_bytes())
    with open(pack, "rb") as fh:
        spans = {k: (o, n) for k, o, n in packfile.read_index(fh.fileno(), c2._seal)}
    o, n = spans[c2._name("one")]
    data[o + n - 2] ^= 1  # inside the JSON of the first entry
    pack.write_bytes(bytes(data))
    fresh = Cache(tmp_path / "d")
    assert fresh.get("one") is None and fresh.get("two") == ("second", 2)


def test_the_secret_is_made_once_owner_only_by_racing_processes(tmp_path):
    where = tmp_path / "cfg" / "porter" / cache_mod.SECRET_NAME
    code = ("import sys; from pathlib import Path; from porter.cache import installation_secret; "
            "sys.stdout.write(installation_secret(Path(sys.argv[1])).hex())")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(where)], stdout=subprocess.PIPE, text=True)
             for _ in range(8)]
    secrets_seen = {p.communicate(timeout=60)[0] for p in procs}
    assert [p.returncode for p in procs] == [0] * 8
    assert secrets_seen == {where.read_bytes().hex()} and len(where.read_bytes()) == cache_mod.SECRET_BYTES
    assert stat.S_IMODE(where.stat().st_mode) == 0o600
    assert sorted(p.name for p in where.parent.iterdir()) == [cache_mod.SECRET_NAME]  # no temporary left behind


def test_a_secret_others_can_read_turns_the_cache_off(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    config = tmp_path / "cfg"
    (config / "porter").mkdir(parents=True)
    secret = config / "porter" / cache_mod.SECRET_NAME
    secret.write_bytes(b"s" * cache_mod.SECRET_BYTES)
    secret.chmod(0o644)
    p = porter("scan", str(repo), "-q", "--cache-dir", str(tmp_path / "c"), "-j", "1",
               env={"XDG_CONFIG_HOME": str(config)})
    assert p.returncode == 0, p.stderr
    assert f"cache key {secret} is not owner-only or not the user's own; cache not used" in p.stderr
    assert list((tmp_path / "c").glob("*.pack")) == []


def test_decoded_values_must_have_their_declared_field_types(tmp_path, own_secret):
    from porter.model import FileResult, Finding

    k = Finding(path="k.cu", line=1, column=1, rule="DEV002", end_line=1, end_column=5, category="c",
                severity=cache_mod._types()["porter.model.finding.Severity"].HIGH,
                confidence=cache_mod._types()["porter.model.finding.Confidence"].HIGH, message="m",
                data=(("a", 1), ("b", "x")))
    good = FileResult("k.cu", "cuda", 1, findings=(k,))
    assert cache_mod.loads(cache_mod.dumps(good)) == good
    encoded = cache_mod.encode(good)
    line_as_text = json.loads(json.dumps(encoded))
    line_as_text["a"][3][0]["a"][1] = "1"  # the finding's line, a string
    findings_as_text = json.loads(json.dumps(encoded))
    findings_as_text["a"][3] = ["not a finding"]
    severity_as_int = json.loads(json.dumps(encoded))
    severity_as_int["a"][3][0]["a"][7] = 3  # a bare int where a Severity belongs
    # Finding.data's key/value pairs (checked all at once in C, each pair alone only when that fails)
    bad_data = []
    for data in ([[1, 1]], [["a", 1, 2]], [["a"]], ["ab"], [["a", 1], [2, "x"]]):
        bad_data.append(json.loads(json.dumps(encoded)))
        bad_data[-1]["a"][3][0]["a"][15] = data
    c = Cache(tmp_path / "c")
    c.check()
    for name, doc in (("line", line_as_text), ("findings", findings_as_text), ("severity", severity_as_int),
                      *((f"data{i}", doc) for i, doc in enumerate(bad_data))):
        raw = json.dumps({"format": cache_mod.FORMAT, "value": doc}).encode()
        with pytest.raises(ValueError, match="not of its declared type"):
            cache_mod.loads(raw)
        # sealed with the right secret, so only the type check stands between it and the scan
        c._pending[c._name(name)] = c._tag(c._name(name), raw) + raw
        assert c.get(name) is None
    c.put("whole", good)
    assert c.get("whole") == good


# -- the cache: never inside the scanned tree ----------------------------------------------------------------------

def test_a_cache_committed_in_the_pull_request_is_not_read_even_when_named_by_porter_cache_dir(tmp_path, own_secret):
    repo = make_repo(tmp_path / "r", {"a.cu": "int x;\n"})
    git(repo, "checkout", "-q", "-b", "pr")
    write_files(repo, {"k.cu": KERNEL})
    (repo / ".porter-cache").mkdir(mode=0o700)
    # The attacker's pack, sealed with a secret they chose; and with the victim's, as if they had it.
    for secret in (b"a" * 32, cache_mod.installation_secret(cache_mod.secret_path())):
        planted = Cache(repo / ".porter-cache", secret=secret)
        planted.put("anything", "planted")
        planted.flush()
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    before = sorted((p.name, p.stat().st_mtime_ns) for p in (repo / ".porter-cache").iterdir())
    p = porter("scan", ".", "--isolated", "--new-since", "main", "--fail-on", "high", "--format", "json", cwd=repo,
               env={"PORTER_CACHE_DIR": ".porter-cache", "XDG_CONFIG_HOME": str(own_secret)})
    assert p.returncode == 1, p.stderr
    assert (f"cache directory .porter-cache is inside the scanned tree ({repo.resolve()}); a change could plant "
            "entries there, so this scan runs without a cache") in " ".join(p.stderr.split())
    assert rules_lines(p) == [("DEV002", "k.cu", 1), ("KRN001", "k.cu", 1)]
    assert sorted((p.name, p.stat().st_mtime_ns) for p in (repo / ".porter-cache").iterdir()) == before
    # a plain scan of a subdirectory: the git work tree holding it is the scanned tree's repository
    (repo / "sub").mkdir()
    q = porter("scan", str(repo / "sub"), "-q", "--cache-dir", str(repo / "cache2"), env={"XDG_CONFIG_HOME": str(own_secret)})
    assert q.returncode == 0 and "is inside the scanned tree" in q.stderr and not (repo / "cache2").exists()


# -- the cache merge: bounded --------------------------------------------------------------------------------------

# A process's own peak resident memory in KiB. Not ru_maxrss: Linux carries a parent's peak into a child across
# exec, so a child of the test process would report at least the test process's own peak.
_PEAK = """
def peak_kib():
    with open("/proc/self/status") as fh:
        return int(next(line.split()[1] for line in fh if line.startswith("VmHWM:")))
"""

_MERGE_SCRIPT = _PEAK + r"""
import sys, time
from pathlib import Path
from porter.cache import Cache
where = Path(sys.argv[1])
Cache(where.parent / "elsewhere").get("warm up")  # imports and the secret, before measuring
before = peak_kib()
started = time.monotonic()
reader = Cache(where)
assert reader.get("good") == ("kept", 1)
reader.put("new", ("new", 2)); reader.flush()  # more than MAX_PACKS packs: a merge
assert Cache(where).get("new") == ("new", 2) and Cache(where).get("good") == ("kept", 1)
print(peak_kib() - before, round(time.monotonic() - started, 1), len(list(where.glob("*.pack"))))
"""


def _plant_oversized(where: Path) -> None:
    """Packs as an attacker writes them (sealed with a guess): 8 well-formed 16 MiB indexes of 300,000 distinct
    keys each, 40 sparse files with 64 MiB indexes of zeros (no disk), 40 whose trailers claim a 1 TiB index."""
    trailer = lambda length: struct.pack("<QQ32s8s", len(packfile.MAGIC), length, bytes(32), packfile.END)
    for i in range(8):
        index = b"[" + b",".join(b'["%040x",16,0]' % (i << 32 | j) for j in range(300_000)) + b"]"
        (where / f"7{i:019d}-1-1.pack").write_bytes(packfile.MAGIC + index + trailer(len(index)))
    for i in range(40):
        with open(where / f"9{i:019d}-1-1.pack", "wb") as fh:
            fh.write(packfile.MAGIC)
            fh.truncate(len(packfile.MAGIC) + packfile.MAX_INDEX_BYTES)
            fh.seek(0, 2)
            fh.write(trailer(packfile.MAX_INDEX_BYTES))
        (where / f"8{i:019d}-1-1.pack").write_bytes(packfile.MAGIC + trailer(1 << 40))


def test_planted_oversized_pack_indexes_cost_bounded_memory_in_a_read_and_a_merge(tmp_path, own_secret):
    where = tmp_path / "c"
    good = Cache(where)
    good.check()
    good.put("good", ("kept", 1))
    good.flush()
    _plant_oversized(where)
    p = subprocess.run([sys.executable, "-c", _MERGE_SCRIPT, str(where)], capture_output=True, text=True,
                       timeout=120, env={**os.environ, "XDG_CONFIG_HOME": str(own_secret)})
    assert p.returncode == 0, p.stderr
    grown_kib, seconds, packs = p.stdout.split()
    # Parsed and kept, the well-formed indexes alone would cost over 400 MiB. None verifies, so none is parsed; at
    # most MAX_INDEX_TOTAL (256 MiB) is read and hashed per pass, one index at a time; the 1 TiB ones are sized
    # from their trailers and never read.
    assert int(grown_kib) < 100 * 1024, p.stdout
    assert float(seconds) < 60, p.stdout
    # the merge rewrote the two real packs and the planted ones it read and rejected as one pack; the rest stay
    assert 2 <= int(packs) < 90, p.stdout


# -- history: streamed -------------------------------------------------------------------------------------------

def _alternating_repo(root: Path, files: int, commits: int) -> Path:
    """A repository whose commits alternate between `files` files and an empty tree (tiny: one blob)."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    lines = ["blob", "mark :1", "data 2", "x", ""]
    for i in range(commits):
        lines += ["commit refs/heads/main", f"committer t <t@example.invalid> {1700000000 + i} +0000", "data 2",
                  "c", ""]
        lines += ["deleteall"] if i % 2 else [f"M 100644 :1 d/f{j:05d}.txt" for j in range(files)]
        lines.append("")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input="\n".join(lines).encode(), check=True,
                   timeout=60)
    git(root, "reset", "-q", "--hard", "main")
    return root


# `porter ...` as the console script runs it, writing its own peak memory (KiB) to argv[1] when it exits.
_MEASURED_PORTER = _PEAK + r"""
import atexit, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(str(peak_kib())))
sys.argv[0] = "porter"
from porter.cli import entry
entry()
"""


def _history_peak_mib(repo: Path, tmp_path: Path) -> int:
    peak = tmp_path / f"{repo.name}.peak"
    p = subprocess.run([sys.executable, "-c", _MEASURED_PORTER, str(peak), "history", str(repo), "--no-cache", "-q",
                        "-f", "json", "-j", "1"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert len(json.loads(p.stdout)["points"]) > 0
    return int(peak.read_text()) // 1024


def test_history_memory_stays_flat_over_commits_alternating_10k_files_and_an_empty_tree(tmp_path):
    small = _history_peak_mib(_alternating_repo(tmp_path / "two", 10_000, 2), tmp_path)
    large = _history_peak_mib(_alternating_repo(tmp_path / "eight", 10_000, 8), tmp_path)
    # 80,000 changes listed against two commits' 20,000 (about 8 MB of `git log --raw`); kept whole, the 60,000 more
    # cost about 40 MiB more (20k files measured 80 MiB for 120,000 more). Streamed, one commit's changes at a time:
    # the peak does not grow with the commits. 10k files rather than 20k: the same ratio at half the walk's CPU.
    assert large - small < 16, (small, large)


def test_a_log_token_past_the_cap_is_refused(tmp_path):
    from porter.errors import UsageError
    from porter.history import walk as walk_mod

    stream = iter([b"\x1eporter-commit\0" + b"x" * (walk_mod.MAX_TOKEN_BYTES + 10)])
    with pytest.raises(UsageError, match=f"git log output has a field longer than {walk_mod.MAX_TOKEN_BYTES} bytes"):
        list(walk_mod._tokens(lambda n: next(stream, b"")))


# -- the baseline file -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("make, message", [
    (lambda p: p.symlink_to("/dev/zero"), "--baseline: {p}: not a regular file"),
    (lambda p: os.mkfifo(p), "--baseline: {p}: not a regular file"),
    (lambda p: p.write_bytes(b"[" * 100_000 + b"]" * 100_000),
     "{p}: cannot read the baseline: JSON nested too deeply to be a porter baseline"),
    (lambda p: (p.write_bytes(b"{}"), os.truncate(p, 65 * 1024 * 1024)),
     "--baseline: {p}: file is 65.0 MiB, over the 64 MiB limit (generated?)"),
    (lambda p: p.write_text(json.dumps({"schema": "porter-baseline/1", "targets": ["mi355x"], "findings": [
        {"path": ["x"], "rule": "R", "category": "c", "message": "m", "line": 1}]})),
     "{p}: malformed baseline entry: each finding needs path, rule, category, message as strings (and snippet, "
     "function, kernel, fingerprint, replacement, status as strings or null)"),
], ids=["symlink-to-dev-zero", "fifo", "nested-100k-deep", "over-64-MiB", "path-not-a-string"])
def test_a_hostile_baseline_is_a_usage_error(tmp_path, make, message):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    base = tmp_path / "base.json"
    make(base)
    started = time.monotonic()
    p = porter("scan", str(repo), "--baseline", str(base), "--no-cache", "-j", "1", timeout=60)
    assert time.monotonic() - started < 60
    assert p.returncode == 2, p.stderr
    assert message.format(p=base) in " ".join(p.stderr.split())
    assert "Traceback" not in p.stderr and "RecursionError" not in p.stderr


# -- suppressions a pull request adds ----------------------------------------------------------------------------

OLD = """// porter: ignore kept: reviewed in 2023
__global__ void old(float* p) { p[threadIdx.x] = __shfl_xor_sync(0xffffffff, 1.0f, 1); }
"""
NEW = """__global__ void added(float* p) {
    p[threadIdx.x] = __shfl_xor_sync(0xffffffff, 1.0f, 1);  // porter: ignore
}
__global__ void added2(float* p) {
    // porter: ignore[DEV002]
    p[threadIdx.x] = __shfl_down_sync(0xffffffff, 1.0f, 1);
}
"""


def _pr_repo(tmp_path: Path) -> Path:
    """main: one kernel suppressed long ago. pr: two new kernels, each silenced by a comment the PR adds."""
    repo = make_repo(tmp_path / "r", {"old.cu": OLD})
    git(repo, "checkout", "-q", "-b", "pr")
    write_files(repo, {"new.cu": NEW})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pr")
    return repo


def test_under_isolated_suppressions_the_change_adds_do_not_silence_its_new_findings(tmp_path):
    repo = _pr_repo(tmp_path)
    args = ("scan", str(repo), "--isolated", "--new-since", "main", "--no-cache", "-j", "1", "--fail-on", "high")
    p = porter(*args, "--format", "json")
    assert p.returncode == 1, p.stderr
    # old.cu's suppression was there before the change: it still holds
    assert rules_lines(p) == [("DEV002", "new.cu", 2), ("DEV002", "new.cu", 6), ("KRN001", "new.cu", 1),
                              ("KRN001", "new.cu", 4)]
    extra = json.loads(p.stdout)
    assert extra["diff"]["new"] == 4 and extra["suppressed_by_change"]["honoured"] is False
    assert [(f["path"], f["line"]) for f in extra["suppressed_by_change"]["findings"]] == [("new.cu", 2), ("new.cu", 6)]
    comment = porter(*args, "--format", "markdown").stdout.splitlines()
    assert comment[1] == ("⚠️ **porter: this change adds 2 open findings for ROCm** (2 high) and adds 2 "
                          "kernels that need work")  # the two KRN001 info notes are folded, not counted
    assert comment[2] == ("2 findings suppressed by this change (not honoured under --isolated: counted above as "
                          "new or unchanged)")


def test_without_isolated_they_are_honoured_but_the_comment_counts_them(tmp_path):
    repo = _pr_repo(tmp_path)
    args = ("scan", str(repo), "--new-since", "main", "--no-cache", "-j", "1", "--fail-on", "high")
    p = porter(*args, "--format", "json")
    assert p.returncode == 0, p.stderr
    assert rules_lines(p) == [("KRN001", "new.cu", 1), ("KRN001", "new.cu", 4)]
    comment = porter(*args, "--format", "markdown").stdout.splitlines()
    assert comment[1] == "⚠️ **porter: this change adds 2 kernels that need work**"  # KRN001 notes: folded
    assert comment[2] == "2 findings suppressed by this change (a reviewer should confirm each `porter: ignore`)"


def test_a_suppression_on_an_existing_finding_is_counted_and_under_isolated_the_finding_stays_unchanged(tmp_path):
    repo = make_repo(tmp_path / "r", {"k.cu": KERNEL})
    git(repo, "checkout", "-q", "-b", "pr")
    write_files(repo, {"k.cu": "// porter: ignore\n" + KERNEL})
    git(repo, "commit", "-q", "-am", "silence it")
    for isolated, fixed, unchanged in ((("--isolated",), 0, 2), ((), 2, 0)):
        p = porter("scan", str(repo), *isolated, "--new-since", "main", "--no-cache", "-j", "1", "--fail-on", "high",
                   "--format", "json")
        doc = json.loads(p.stdout)
        assert (p.returncode, doc["diff"]["new"], doc["diff"]["fixed"], doc["diff"]["unchanged"]) == \
            (0, 0, fixed, unchanged)
        assert [(f["rule"], f["line"]) for f in doc["suppressed_by_change"]["findings"]] == [("KRN001", 2),
                                                                                           ("DEV002", 2)]


def test_with_a_baseline_only_suppressions_added_since_it_was_written_count(tmp_path):
    repo = make_repo(tmp_path / "r", {"old.cu": OLD})
    base = tmp_path / "porter-baseline.json"
    w = porter("baseline", str(repo), "-o", str(base), "--no-cache")
    assert w.returncode == 0, w.stderr
    assert [(f["rule"], f["path"]) for f in json.loads(base.read_text())["suppressed"]] == [("KRN001", "old.cu"),
                                                                                           ("DEV002", "old.cu")]
    write_files(repo, {"new.cu": NEW})
    args = ("scan", str(repo), "--baseline", str(base), "--no-cache", "-j", "1", "--fail-on", "high")
    isolated = porter(*args, "--isolated", "--format", "json")
    assert isolated.returncode == 1
    assert rules_lines(isolated) == [("DEV002", "new.cu", 2), ("DEV002", "new.cu", 6), ("KRN001", "new.cu", 1),
                                     ("KRN001", "new.cu", 4)]
    trusted = porter(*args, "--format", "markdown")
    assert trusted.returncode == 0, trusted.stderr
    assert trusted.stdout.splitlines()[2] == ("2 findings suppressed by this change (a reviewer should confirm each "
                                              "`porter: ignore`)")
