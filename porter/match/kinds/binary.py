"""Pattern kinds for checked-in artefacts, read as bytes and never loaded or run: `file`, `elf`, `wheel`, `safetensors`.

    file: {names: ["*.cubin", "*.fatbin"], magic: ["7f454c46"]}
        The file itself, by name glob (and optionally by leading bytes, hex); one hit at its first byte.
    elf: {needed: true}           ELF shared objects whose DT_NEEDED entries name NVIDIA libraries (library map)
    elf: {device_code: true}      ELF objects, shared libraries or static archives holding NVIDIA device code
                                  (.nv_fatbin / __nv_relfatbin sections, cubin ELF with e_machine EM_CUDA)
    elf: {undefined: true}        static archives whose objects call into NVIDIA libraries (undefined symbols)
    wheel: {native: true}         wheels with native code; CUDA evidence (tags, bundled NVIDIA libraries) noted
    safetensors: {tensor_matches: "weight_scale_2$", dtypes: ["F8_E4M3"]}
        A safetensors file's JSON header only (8-byte length + header; the weights are never read).

Each kind reports at most one hit per file, summarising what it found, because a binary has no lines to tell
hits apart. Only the first 64 KiB of a binary is in memory (SourceFile.data); these matchers reopen the file at
SourceFile.opener and read just the headers they need. A file that claims a format it does not have
(a truncated ELF, a corrupt zip, a bad safetensors header) raises SkipFile with the reason.
"""
from __future__ import annotations

import fnmatch
import io
import json
import re
import struct
import zipfile
from pathlib import PurePosixPath
from typing import IO, Iterable, Iterator

from porter.match.regex import compile_regex
from porter.match.base import Hit, MatchContext, SkipFile
from porter.source.parse import SourceFile

EM_CUDA = 190
ELF_MAGIC = b"\x7fELF"
AR_MAGIC = b"!<arch>\n"
FATBIN_MAGIC = b"\x50\xed\x55\xba"  # 0xBA55ED50 little-endian
DEVICE_SECTIONS = (".nv_fatbin", "__nv_relfatbin", ".nvFatBinSegment")
MAX_MEMBER_BYTES = 256 * 1024 * 1024
MAX_SAFETENSORS_HEADER = 100 * 1024 * 1024
# Undefined symbols that show which NVIDIA library a static object calls (C names, and C++ namespaces).
_SYMBOL_LIBRARY = re.compile(
    rb"^(?:(?P<c>cublasLt|cublas|cudnn|cufftw?|curand|cusparse|cusolver|cutensor|nccl|nvrtc|nvjpeg|npp[a-z]*|"
    rb"nvtx|nvml|cupti|cuFile|nvshmem|cudart|cuda)[A-Z_0-9]|.*(?P<cpp>nvinfer1|nvonnxparser|tensorrt_llm))"
)


def _open(sf: SourceFile) -> IO[bytes]:
    """The whole file: through the source's bounded reader when the scan gave one (sf.data holds only the head)."""
    return sf.opener() if sf.opener is not None else io.BytesIO(sf.data)


def _first_hit(sf: SourceFile, **values) -> Hit:
    return Hit(0, max(1, min(len(sf.data), 1)), name=PurePosixPath(sf.path).name,
               values=tuple(sorted((k, v) for k, v in values.items())))


def match_file(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    spec = pattern["file"]
    name = PurePosixPath(sf.path).name.lower()
    globs = [g.lower() for g in spec.get("names", ())]
    if globs and not any(fnmatch.fnmatchcase(name, g) for g in globs):
        return
    magics = [bytes.fromhex(m) for m in spec.get("magic", ())]
    if magics and not any(sf.data.startswith(m) for m in magics):
        return
    size = sf.size if sf.size is not None else len(sf.data)
    from porter.libraries import by_file

    lib = by_file(name)
    extra = {}
    if lib is not None:
        extra = {"library": lib.name, "rocm": ", ".join(lib.rocm) or "none", "kind": lib.kind, "note": lib.note}
    yield _first_hit(sf, size=size, **extra)


# ------------------------------------------------------------------------------------------------------- ELF


def _elf(stream: IO[bytes], what: str):
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    try:
        return ELFFile(stream)
    except (ELFError, struct.error, ValueError) as e:
        raise SkipFile(f"malformed ELF {what}: {e}") from None


def _ar_members(stream: IO[bytes]) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of each ELF member of a Unix ar archive (GNU and BSD long names)."""
    stream.seek(len(AR_MAGIC))
    long_names = b""
    while True:
        header = stream.read(60)
        if len(header) < 60:
            return
        if header[58:60] != b"`\n":
            raise SkipFile("malformed static archive: bad member header")
        name = header[:16].rstrip(b" ")
        try:
            size = int(header[48:58].strip() or b"0")
        except ValueError:
            raise SkipFile("malformed static archive: bad member size") from None
        if size < 0:  # would seek back onto this header and read it again forever
            raise SkipFile("malformed static archive: bad member size")
        data_start = stream.tell()
        if name == b"//":
            long_names = stream.read(size)
        elif name.startswith(b"/") and name[1:].isdigit() and long_names:
            off = int(name[1:])
            name = long_names[off:long_names.find(b"/\n", off)]
        if name not in (b"/", b"//", b"/SYM64/") and size <= MAX_MEMBER_BYTES:
            stream.seek(data_start)
            body = stream.read(size)
            if name.startswith(b"#1/"):  # BSD: the name precedes the body
                n = int(name[3:])
                name, body = body[:n].rstrip(b"\0"), body[n:]
            if body.startswith(ELF_MAGIC):
                yield name.decode("utf-8", "replace").rstrip("/"), body
        stream.seek(data_start + size + (size & 1))


def _elf_facts(elf) -> tuple[list[str], list[str], set[str]]:
    """(DT_NEEDED names, device-code section names, NVIDIA libraries named by undefined symbols)."""
    needed, device, undefined = [], [], set()
    if elf.header["e_machine"] == "EM_CUDA" or elf.header["e_machine"] == EM_CUDA:
        device.append("cubin (EM_CUDA)")
    for section in elf.iter_sections():
        if section.name in DEVICE_SECTIONS:
            device.append(section.name)
        if section.header["sh_type"] == "SHT_DYNAMIC":
            needed += [t.needed for t in section.iter_tags() if t.entry.d_tag == "DT_NEEDED"]
        if section.header["sh_type"] == "SHT_SYMTAB":
            for sym in section.iter_symbols():
                if sym["st_shndx"] == "SHN_UNDEF" and sym.name:
                    m = _SYMBOL_LIBRARY.match(sym.name.encode())
                    if m:
                        undefined.add((m.group("c") or m.group("cpp")).decode())
    return needed, device, undefined


def binary_facts(sf: SourceFile) -> dict:
    """What an ELF file or static archive holds, read once per file."""
    if "binary_facts" in sf.cache:
        return sf.cache["binary_facts"]
    try:
        facts = _binary_facts(sf)
    except SkipFile:
        raise
    except Exception as e:  # pyelftools raises many types on truncated or hostile input: never crash a scan
        raise SkipFile(f"malformed binary: {type(e).__name__}: {e}") from None
    sf.cache["binary_facts"] = facts
    return facts


def _binary_facts(sf: SourceFile) -> dict:
    facts = {"needed": [], "device": [], "undefined": set(), "members": 0}
    if sf.data.startswith(ELF_MAGIC):
        with _open(sf) as fh:
            n, d, u = _elf_facts(_elf(fh, "file"))
        facts.update(needed=n, device=d, undefined=u)
    elif sf.data.startswith(AR_MAGIC):
        with _open(sf) as fh:
            for name, body in _ar_members(fh):
                facts["members"] += 1
                n, d, u = _elf_facts(_elf(io.BytesIO(body), f"archive member {name}"))
                facts["device"] += [f"{name}:{s}" for s in d]
                facts["undefined"] |= u
    elif sf.data.startswith(FATBIN_MAGIC):
        facts["device"].append("fatbin")
    return facts


def _describe(libs) -> tuple[str, str]:
    parts, rocm = [], []
    for written, lib in libs:
        r = ", ".join(lib.rocm) if lib.rocm else "none"
        parts.append(f"{written} ({lib.name} → {r}, {lib.kind})")
        rocm.append(f"{lib.name} → {r}")
    return "; ".join(parts), "; ".join(rocm)


def match_elf(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.language != "binary" or not (sf.data.startswith(ELF_MAGIC) or sf.data.startswith(AR_MAGIC)
                                       or sf.data.startswith(FATBIN_MAGIC)):
        return
    from porter.libraries import by_link

    spec = pattern["elf"]
    facts = binary_facts(sf)
    if spec.get("needed"):
        libs = [(n, by_link(n)) for n in facts["needed"]]
        libs = [(n, lib) for n, lib in libs if lib is not None]
        if libs:
            found, rocm = _describe(libs)
            yield _first_hit(sf, needed=found, rocm=rocm, libraries=", ".join(sorted({l.name for _, l in libs})))
    if spec.get("undefined"):
        aliases = {"cuda": "cudart", "nvinfer1": "nvinfer", "cuFile": "cufile"}
        libs = []
        for sym in sorted(facts["undefined"]):
            key = "nppc" if sym.startswith("npp") else aliases.get(sym, sym)
            libs.append((sym, by_link("-l" + key)))
        libs = [(s, l) for s, l in libs if l is not None]
        if libs:
            found, rocm = _describe(libs)
            yield _first_hit(sf, needed=found, rocm=rocm, libraries=", ".join(sorted({l.name for _, l in libs})))
    if spec.get("device_code") and facts["device"]:
        shown = ", ".join(facts["device"][:5]) + (f" and {len(facts['device']) - 5} more" if len(facts["device"]) > 5 else "")
        yield _first_hit(sf, sections=shown)


# ----------------------------------------------------------------------------------------------------- wheels

_CUDA_TAG = re.compile(r"(?i)(?:\+|[-_.])(cu\d{2,3}|cuda\d+)")
_NVIDIA_LIB = re.compile(r"(?i)(?:^|/)(lib(?:cudart|cublas|cublasLt|cudnn\w*|nccl|cufft|curand|cusparse|cusolver|nvrtc|"
                         r"nvinfer\w*|nvjitlink|cupti|nvToolsExt)[^/]*\.so[^/]*|[^/]+\.(?:cubin|fatbin|ptx))$")


def match_wheel(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if not sf.path.lower().endswith(".whl"):
        return
    with _open(sf) as fh:
        try:
            with zipfile.ZipFile(fh) as z:
                names = z.namelist()
        except (zipfile.BadZipFile, OSError, ValueError) as e:
            raise SkipFile(f"malformed wheel: {e}") from None
    native = [n for n in names if re.search(r"\.(so(\.\d+)*|pyd|dylib)$", n)]
    if pattern["wheel"].get("native", True) and not native:
        return
    evidence = []
    tag = _CUDA_TAG.search(PurePosixPath(sf.path).name)
    if tag:
        evidence.append(f"CUDA build tag {tag.group(1)}")
    bundled = sorted({PurePosixPath(n).name for n in names if _NVIDIA_LIB.search(n)})
    if bundled:
        evidence.append("bundles " + ", ".join(bundled[:4]) + (" …" if len(bundled) > 4 else ""))
    yield _first_hit(sf, native=len(native), cuda=("; ".join(evidence) or "no CUDA marker in the file list"))


# ------------------------------------------------------------------------------------------------ safetensors


def safetensors_header(sf: SourceFile) -> dict:
    if "safetensors_header" in sf.cache:
        return sf.cache["safetensors_header"]
    with _open(sf) as fh:
        head = fh.read(8)
        if len(head) < 8:
            raise SkipFile("malformed safetensors: shorter than its 8-byte header length")
        (n,) = struct.unpack("<Q", head)
        if n > MAX_SAFETENSORS_HEADER:
            raise SkipFile(f"malformed safetensors: header length {n} is implausible")
        raw = fh.read(n)
    try:
        header = json.loads(raw.decode("utf-8"))
        if not isinstance(header, dict):
            raise ValueError("header is not an object")
    except (UnicodeDecodeError, ValueError) as e:
        raise SkipFile(f"malformed safetensors header: {e}") from None
    except RecursionError:
        raise SkipFile("malformed safetensors header: nested too deeply to read") from None
    sf.cache["safetensors_header"] = header
    return header


def match_safetensors(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if not sf.path.lower().endswith(".safetensors"):
        return
    spec = pattern["safetensors"]
    header = safetensors_header(sf)
    name_rx = compile_regex(spec["tensor_matches"], text=True) if "tensor_matches" in spec else None
    dtypes = set(spec.get("dtypes", ()))
    hits = []
    for name, info in header.items():
        if name == "__metadata__" or not isinstance(info, dict):
            continue
        if name_rx is not None and not name_rx.search(name):
            continue
        if dtypes and info.get("dtype") not in dtypes:
            continue
        hits.append((name, info.get("dtype")))
    if hits:
        yield _first_hit(sf, tensors=len(hits), example=hits[0][0],
                         dtypes=", ".join(sorted({str(d) for _, d in hits})))

