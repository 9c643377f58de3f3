#!/usr/bin/env python3
"""Build porter's CUDA→HIP API knowledge base (rules/kb/api/*.tsv) from HIPIFY's docs tables.

Usage: python scripts/build_kb.py [TABLES_DIR] [--out rules/kb/api]

TABLES_DIR is a copy of ROCm/HIPIFY's ``docs/tables/`` (default: ../shared/hipify-tables next to the repo).
Every ``<LIB>_API[_functions]_supported_by_<HIP|ROC|MIOPEN|HIP_and_ROC|HIP_and_MIOPEN>.md`` table is read;
the HIP, ROC/MIOpen and joint tables of one library are merged by CUDA name (they must agree, or the build
fails naming both files), and one sorted TSV per library is written. Re-running on the same tables gives
byte-identical files, so refreshing from a newer HIPIFY checkout is: run this, review the diff, commit.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TABLES = REPO.parent / "shared" / "hipify-tables"
DEFAULT_OUT = REPO / "rules" / "kb" / "api"

# Column order of every generated TSV; porter/kb.py checks the header line against this exact tuple.
COLUMNS = (
    "cuda", "hip", "status", "section",
    "cuda_added", "cuda_deprecated", "cuda_removed", "hip_added", "experimental",
    "roc", "hip_deprecated", "hip_removed",
)

TABLE_FILE = re.compile(
    r"^(?P<lib>.+?)_API_(?:functions_)?supported_by_(?P<kind>HIP|ROC|MIOPEN|HIP_and_ROC|HIP_and_MIOPEN)\.md$"
)
SECTION = re.compile(r"^## \*\*(?:\d+\.\s*)?(?P<title>.+?)\*\*\s*$")
VERSION = re.compile(r"^\d+(?:\.\d+)*$")
NAME_BLOCKS = {"CUDA", "HIP", "ROC", "MIOPEN"}

# Device-API rows with an empty HIP cell usually exist in HIP under the same name (status same_name, "check").
# These are the exceptions a documented fact marks as genuinely unsupported.
DEVICE_UNSUPPORTED = {
    # HIP cpp_language_extensions.rst: "__prof_trigger" is not supported (https://github.com/ROCm/HIP/blob/docs/develop/docs/reference/cpp_language_extensions.rst).
    "__prof_trigger",
}


def library_of(table_file: str) -> tuple[str, str] | None:
    """(library, kind) for a HIPIFY table file name, or None for other files (README, supported_apis.md)."""
    m = TABLE_FILE.match(table_file)
    if not m:
        return None
    lib = m["lib"].lower()
    if lib.startswith("cuda_"):
        lib = lib[len("cuda_"):]
    return lib, m["kind"]


@dataclass
class Row:
    """One CUDA name of one library, merged from every table that lists it."""

    cuda: str
    values: dict[str, str] = field(default_factory=dict)  # field -> value, e.g. "hip" -> "hipMalloc"
    origin: dict[str, str] = field(default_factory=dict)  # field -> "file:line" that set it


def _cells(line: str, where: str) -> list[str]:
    text = line.rstrip("\n").rstrip()
    if not (text.startswith("|") and text.endswith("|")):
        raise ValueError(f"{where}: malformed table row (must start and end with '|'): {text!r}")
    return [c.strip() for c in text[1:-1].split("|")]


def _header_columns(cells: list[str], where: str) -> list[tuple[str, str]]:
    """Map each header cell to (block, field): '**HIP**' -> ('HIP', 'name'), the '**A**' after it -> ('HIP', 'A')."""
    columns: list[tuple[str, str]] = []
    block = None
    for cell in cells:
        label = cell.strip("*").strip()
        if label in NAME_BLOCKS:
            block = label
            columns.append((block, "name"))
        elif len(label) == 1 and label.isalpha() and label.isupper() and block is not None:
            columns.append((block, label))
        else:
            raise ValueError(f"{where}: unknown table header cell {cell!r}")
    if not columns or columns[0] != ("CUDA", "name"):
        raise ValueError(f"{where}: table header must start with **CUDA**")
    return columns


def _name(cell: str, where: str) -> str:
    if cell == "":
        return ""
    if not (len(cell) > 2 and cell.startswith("`") and cell.endswith("`")) or any(c.isspace() for c in cell):
        raise ValueError(f"{where}: name cell must be one `backticked` name without spaces, got {cell!r}")
    return cell[1:-1]


def parse_table(path: Path) -> list[tuple[str, str, dict[tuple[str, str], str], int]]:
    """Rows of one HIPIFY table as (cuda name, section, {(block, field): value}, line number)."""
    rows = []
    section = None
    columns: list[tuple[str, str]] | None = None
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        where = f"{path.name}:{lineno}"
        if line.startswith("## "):
            m = SECTION.match(line)
            if not m:
                raise ValueError(f"{where}: section heading not of the form '## **N. Name**': {line!r}")
            section = m["title"].strip()
            columns = None
        elif line.startswith("|**"):
            columns = _header_columns(_cells(line, where), where)
        elif line.startswith("|:-"):
            continue
        elif line.startswith("|"):
            if columns is None or section is None:
                raise ValueError(f"{where}: table row before a section heading and column header")
            cells = _cells(line, where)
            if len(cells) != len(columns):
                raise ValueError(f"{where}: expected {len(columns)} cells, got {len(cells)}")
            values: dict[tuple[str, str], str] = {}
            for (block, fld), cell in zip(columns, cells):
                if fld == "name":
                    values[(block, fld)] = _name(cell, where)
                elif cell and fld in "ADCR" and not VERSION.match(cell):
                    raise ValueError(f"{where}: {block} {fld} column holds {cell!r}, not a version")
                else:
                    values[(block, fld)] = cell
            cuda = values[("CUDA", "name")]
            if not cuda:
                raise ValueError(f"{where}: empty CUDA name")
            rows.append((cuda, section, values, lineno))
    return rows


# (block, field) of a table -> field of the merged row; ROC and MIOPEN both land in "roc".
FIELD_OF = {
    ("CUDA", "A"): "cuda_added", ("CUDA", "D"): "cuda_deprecated", ("CUDA", "R"): "cuda_removed",
    ("HIP", "name"): "hip", ("HIP", "A"): "hip_added", ("HIP", "D"): "hip_deprecated",
    ("HIP", "R"): "hip_removed", ("HIP", "E"): "experimental",
    ("ROC", "name"): "roc", ("MIOPEN", "name"): "roc",
}


def _set(row: Row, fld: str, value: str, where: str) -> None:
    if fld in row.values and row.values[fld] != value:
        raise ValueError(
            f"{where}: {row.cuda} {fld} is {value!r} here but {row.values[fld]!r} in {row.origin[fld]}"
        )
    row.values[fld] = value
    row.origin.setdefault(fld, where)


def status_of(library: str, values: dict[str, str]) -> str:
    section = values.get("section", "")
    if values.get("cuda_removed") or "[REMOVED]" in section:
        return "removed"
    if values.get("cuda_deprecated") or "[DEPRECATED]" in section:
        return "deprecated"
    if values.get("hip"):
        return "rename"
    if library == "device" and values["cuda"] not in DEVICE_UNSUPPORTED:
        return "same_name"
    return "unsupported"


def collect(tables_dir: Path) -> tuple[dict[str, dict[str, Row]], dict[str, list[str]]]:
    """Merged rows per library, and the table files each library came from."""
    libraries: dict[str, dict[str, Row]] = {}
    sources: dict[str, list[str]] = {}
    for path in sorted(tables_dir.glob("*.md")):
        found = library_of(path.name)
        if found is None:
            continue
        library, _kind = found
        rows = libraries.setdefault(library, {})
        sources.setdefault(library, []).append(path.name)
        first_line: dict[str, int] = {}
        for cuda, section, values, lineno in parse_table(path):
            where = f"{path.name}:{lineno}"
            if cuda in first_line:
                raise ValueError(f"{where}: {cuda} is listed twice (first at line {first_line[cuda]})")
            first_line[cuda] = lineno
            row = rows.setdefault(cuda, Row(cuda, {"cuda": cuda}, {"cuda": where}))
            _set(row, "section", section, where)
            for key, value in values.items():
                fld = FIELD_OF.get(key)
                if fld is not None:
                    _set(row, fld, value, where)
    if not libraries:
        raise ValueError(f"{tables_dir}: no HIPIFY *_supported_by_*.md tables found")
    return libraries, sources


GENERATED_MARK = b"# porter KB, library "


def render(library: str, rows: dict[str, Row], sources: list[str]) -> str:
    lines = [
        f"# porter KB, library {library}: generated by scripts/build_kb.py from HIPIFY docs/tables "
        f"{', '.join(sources)}. HIPIFY (c) Advanced Micro Devices, Inc., MIT licence: see rules/kb/NOTICE.",
        "\t".join(COLUMNS),
    ]
    for cuda in sorted(rows):
        values = dict(rows[cuda].values)
        values["status"] = status_of(library, values)
        lines.append("\t".join(values.get(col, "") for col in COLUMNS))
    return "\n".join(lines) + "\n"


def build(tables_dir: Path, out_dir: Path) -> dict[str, int]:
    """Write one TSV per library into out_dir, drop stale ones; return rows written per library."""
    libraries, sources = collect(tables_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = {}
    for library in sorted(libraries):
        target = out_dir / f"{library}.tsv"
        text = render(library, libraries[library], sources[library])
        if not target.exists() or target.read_bytes() != text.encode("utf-8"):
            target.write_bytes(text.encode("utf-8"))
        written[library] = len(libraries[library])
    for stale in sorted(out_dir.glob("*.tsv")):
        # Only files this script wrote (they open with its header) are removed: --out may be a shared folder.
        if stale.stem not in written and stale.read_bytes().startswith(GENERATED_MARK):
            stale.unlink()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables_dir", nargs="?", type=Path, default=DEFAULT_TABLES,
                        help="HIPIFY docs/tables directory (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        written = build(args.tables_dir, args.out)
    except (OSError, ValueError) as exc:
        print(f"build_kb: {exc}", file=sys.stderr)
        return 1
    for library, count in written.items():
        print(f"{library}\t{count}")
    print(f"total\t{sum(written.values())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
