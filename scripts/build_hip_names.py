"""Generate rules/kb/hip_names.tsv: for every CUDA name rule API004 may call "same name in HIP", the first HIP
version whose own headers declare that name, read from real HIP headers (never typed by hand).

Sources, oldest first:
- the HIP headers installed on this machine (Debian's libamdhip64-dev: /usr/include/hip, version from
  hip/hip_version.h) together with the clang HIP wrapper headers of the matching LLVM (__clang_hip_*.h), which
  hip-clang force-includes and which declare the math functions;
- optionally a git directory of ROCm/clr (`--clr /path/to/clr.git`): hipamd/include/hip/** at each `rocm-X.Y.0` tag.

The NVIDIA-platform backend (hip/nvidia_detail: HIP names defined as the CUDA ones) is skipped: it is HIP on
CUDA, not HIP on AMD. A name is "declared" when it appears as a whole identifier token in those headers outside comments. The output's
`first_hip` is the earliest version that has it, empty when none does (the name is not in HIP under that spelling:
`__nv_bfloat162` is `__hip_bfloat162` there, `__vsub4` does not exist). Run:

    python scripts/build_hip_names.py [--clr /work/.mirror/ROCm+clr/repo]
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "rules" / "kb" / "hip_names.tsv"
IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
COMMENTS = re.compile(rb"//[^\n]*|/\*.*?\*/", re.S)


def candidates() -> list[str]:
    """Every name API004 reads as same-name: the knowledge base's same_name device entries and the rule's `add` list."""
    import yaml

    names = set()
    for line in (REPO / "rules" / "kb" / "api" / "device.tsv").read_text().splitlines():
        cols = line.split("\t")
        if len(cols) > 2 and cols[2] == "same_name":
            names.add(cols[0])
    rule = yaml.safe_load((REPO / "rules" / "api" / "API004-same-name-device-function.yaml").read_text())
    for pattern in rule["patterns"]:
        for entry in (pattern.get("kb") or {}).get("add", ()):
            names.add(entry["cuda"])
    return sorted(names)


def tokens(texts) -> set[bytes]:
    out: set[bytes] = set()
    for data in texts:
        out.update(IDENT.findall(COMMENTS.sub(b" ", data)))
    return out


def local_headers() -> tuple[str, set[bytes]] | None:
    version_h = Path("/usr/include/hip/hip_version.h")
    if not version_h.exists():
        return None
    text = version_h.read_text()
    major = re.search(r"HIP_VERSION_MAJOR\s+(\d+)", text).group(1)
    minor = re.search(r"HIP_VERSION_MINOR\s+(\d+)", text).group(1)
    files = [p for p in Path("/usr/include/hip").rglob("*") if p.is_file() and p.suffix in (".h", ".hpp")
             and "nvidia_detail" not in p.parts]
    # hip-clang's wrapper headers of the LLVM Debian's hipcc uses (llvm-15 for HIP 5.2 in bookworm).
    wrappers = sorted(Path("/usr/lib").glob("llvm-15/lib/clang/*/include/__clang_hip_*.h"))
    return f"{major}.{minor}", tokens(p.read_bytes() for p in files + wrappers)


def clr_headers(git_dir: str) -> list[tuple[str, set[bytes]]]:
    def git(*args: str) -> str:
        return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True, text=True).stdout

    tags = [t for t in git("tag").split() if re.fullmatch(r"rocm-\d+\.\d+\.0", t)]
    tags.sort(key=lambda t: tuple(int(x) for x in t[5:].split(".")))
    out = []
    for tag in tags:
        paths = [p for p in git("ls-tree", "-r", "--name-only", tag, "hipamd/include/hip").split("\n")
                 if p.endswith((".h", ".hpp")) and "/nvidia_detail/" not in p]
        texts = (subprocess.run(["git", "--git-dir", git_dir, "show", f"{tag}:{p}"], check=True,
                                capture_output=True).stdout for p in paths)
        version = ".".join(tag[5:].split(".")[:2])
        out.append((version, tokens(texts)))
    return out


def header_sources(argv: list[str], doc: str, out: Path) -> tuple[argparse.Namespace, list]:
    """The command line of a generator that reads HIP headers (`--clr`, `--out`) and the (version, tokens) of every
    header set found, oldest first: the machine's libamdhip64-dev and the ROCm/clr tags. Empty when none is found
    (the caller says so and exits 2)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--clr", help="git directory of ROCm/clr (tags rocm-X.Y.0)")
    ap.add_argument("--out", default=str(out))
    args = ap.parse_args(argv)
    sources = []
    local = local_headers()
    if local is not None:
        sources.append(local)
    if args.clr:
        sources.extend(clr_headers(args.clr))
    if not sources:
        print("no HIP headers found (install libamdhip64-dev or pass --clr)", file=sys.stderr)
    sources.sort(key=lambda s: tuple(int(x) for x in s[0].split(".")))
    return args, sources


def main(argv: list[str]) -> int:
    args, sources = header_sources(argv, __doc__, OUT)
    if not sources:
        return 2
    checked = ", ".join(v for v, _ in sources)
    lines = [f"# porter KB: first HIP version whose headers declare each name API004 calls same-name; generated by "
             f"scripts/build_hip_names.py from HIP headers {checked} (Debian libamdhip64-dev, ROCm/clr tags). "
             f"Empty first_hip: no checked version has the name (hip_spelling: what the newest one calls it).",
             "cuda\tfirst_hip\tchecked_up_to\thip_spelling"]
    last = sources[-1][0]
    newest = sources[-1][1]
    for name in candidates():
        first = next((v for v, toks in sources if name.encode() in toks), "")
        spelling = ""
        if not first:
            # HIP's spelling of NVIDIA-prefixed types and helpers: __nv_bfloat162 -> __hip_bfloat162, and of the
            # public aliases cuda_bf16.h typedefs to them (nv_bfloat162 is __nv_bfloat162), which HIP spells alike.
            for guess in (re.sub(r"^__nv_", "__hip_", name), re.sub(r"^__NV_", "__HIP_", name),
                          re.sub(r"^nv_", "__hip_", name)):
                if guess != name and guess.encode() in newest:
                    spelling = guess
                    break
        lines.append(f"{name}\t{first}\t{last}\t{spelling}")
    Path(args.out).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
