"""Render a scan (or anything with `to_dict`) as the documented JSON contract: stable key order, sorted lists."""
from __future__ import annotations

import json
from typing import Any


def render(result: Any) -> str:
    doc = result.to_dict() if hasattr(result, "to_dict") else result
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
