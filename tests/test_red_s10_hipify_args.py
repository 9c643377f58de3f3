"""hipify never takes a repository file's name as an option (red team F5): hipify-clang's LLVM parser expands
`@FILE` anywhere in argv and reads `-name` as an option, hipify-perl's Getopt::Long reads `-name` as one. The
engines pass `./<rel>` to hipify-clang and `-- <rel>` to hipify-perl."""
from __future__ import annotations

from pathlib import Path

from porter.translate.engines import hipify


def _argv_of(engine_cls, monkeypatch, tmp_path, rel):
    seen = []

    def fake_run(cmd, cwd, timeout, *confinement):
        seen.append((cmd, cwd))
        return hipify.Ran(1, b"", b"error: stopped here", True), None

    monkeypatch.setattr(hipify, "_run", fake_run)
    engine = engine_cls.__new__(engine_cls)
    engine.path = Path("/opt/hipify/bin/tool")
    engine.run_one(tmp_path, rel, b"", 10)
    return seen[0]


def test_hipify_clang_gets_a_dot_slash_name_never_a_response_file_or_option(monkeypatch, tmp_path):
    cmd, cwd = _argv_of(hipify.HipifyClangEngine, monkeypatch, tmp_path, "@args.cu")
    assert cwd == tmp_path
    assert cmd[:2] == ["/opt/hipify/bin/tool", "./@args.cu"]
    assert not any(a.startswith("@") for a in cmd)


def test_hipify_perl_gets_the_name_after_end_of_options(monkeypatch, tmp_path):
    cmd, _ = _argv_of(hipify.HipifyPerlEngine, monkeypatch, tmp_path, "-inplace.cu")
    assert cmd[-3:] == ["-print-stats", "--", "-inplace.cu"]
