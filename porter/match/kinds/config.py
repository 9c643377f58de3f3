"""Pattern kind `key` for JSON, YAML and TOML files: a dotted key path, optionally tested against its value.

    key: {path: "quantization_config.quant_method", equals: "modelopt"}
    key: {path: "quantization.quant_algo", matches: "^NVFP4", ignorecase: true}
    key: {path: "weight_map", key_matches: "weight_scale_2$", first: true}
    key: {path: "jobs.*.runs-on", matches: "nvidia|gpu"}

A path segment `*` matches any key of a mapping or any item of a list; `**` matches any depth (zero or more
levels). Value tests: `equals` (scalar or list: any of), `matches` (regex on the scalar's text; for a list value,
on each item), `exists: true` (the default when no test is given). `key_matches` tests the keys of the mapping at
`path` instead (reported at the key); `first: true` reports only the first hit in the file, for files such as a
safetensors index that name thousands of tensors.

Files are parsed, never executed; a file that does not parse raises SkipFile with the parser's reason, so the scan
reports it as skipped instead of crashing. Positions come from the parsers themselves (PyYAML marks, a small
position-recording JSON reader); TOML, whose standard parser gives none, is located by its table and key lines.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterable, Iterator

from porter.match.regex import compile_regex
from porter.match.base import Hit, MatchContext, SkipFile
from porter.source.parse import SourceFile

# --------------------------------------------------------------------------------------------- parsed trees
# Every reader returns a tree of Node: value (python scalar, list of Node or dict key -> Node), with offsets.


class Node:
    __slots__ = ("value", "start", "end", "key_start", "key_end")

    def __init__(self, value: Any, start: int, end: int):
        self.value, self.start, self.end = value, start, end
        self.key_start = self.key_end = -1  # where this node's key is written, when it is a mapping value

    def plain(self) -> Any:
        if isinstance(self.value, dict):
            return {k: v.plain() for k, v in self.value.items()}
        if isinstance(self.value, list):
            return [v.plain() for v in self.value]
        return self.value


def tree(sf: SourceFile) -> list[Node]:
    """The parsed documents of a JSON/YAML/TOML file (memoised per file); SkipFile when it does not parse."""
    if "config_tree" not in sf.cache:
        try:
            sf.cache["config_tree"] = _READERS[sf.language](sf.data)
        except SkipFile as e:
            sf.cache["config_tree"] = e
        except RecursionError:  # a parser or the node builder, on data nested thousands deep
            sf.cache["config_tree"] = SkipFile(f"malformed {sf.language.upper()}: nested too deeply to read")
        except ValueError as e:  # e.g. an integer past Python's 4,300-digit limit: the parsers let it out as is
            sf.cache["config_tree"] = SkipFile(f"malformed {sf.language.upper()}: {str(e)[:120]}")
    got = sf.cache["config_tree"]
    if isinstance(got, SkipFile):
        raise got
    return got


# ---- JSON: validate with the C parser (fast, precise errors), then record positions with a small reader.

_WS = re.compile(rb"[ \t\n\r]*")
_NUMBER = re.compile(rb"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)


def _read_json(data: bytes) -> list[Node]:
    try:
        text = data.decode("utf-8-sig")
        json.loads(text)
    except UnicodeDecodeError as e:
        raise SkipFile(f"malformed JSON: not UTF-8 ({e.reason} at byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise SkipFile(f"malformed JSON: {e.msg} (line {e.lineno}, column {e.colno})") from None
    except RecursionError:
        raise SkipFile("malformed JSON: nested too deeply to read") from None
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    try:
        node, _ = _json_value(data, _WS.match(data, start).end())
    except RecursionError:
        raise SkipFile("JSON nested too deeply to read") from None
    return [node]


def _json_value(data: bytes, i: int) -> tuple[Node, int]:
    c = data[i:i + 1]
    if c == b"{":
        out: dict[str, Node] = {}
        node = Node(out, i, i)
        i = _WS.match(data, i + 1).end()
        if data[i:i + 1] == b"}":
            node.end = i + 1
            return node, i + 1
        while True:
            m = _STRING.match(data, i)
            key = json.loads(m.group())
            j = _WS.match(data, m.end()).end() + 1  # past ':'
            child, k = _json_value(data, _WS.match(data, j).end())
            child.key_start, child.key_end = m.start(), m.end()
            out[key] = child
            k = _WS.match(data, k).end()
            if data[k:k + 1] == b",":
                i = _WS.match(data, k + 1).end()
                continue
            node.end = k + 1
            return node, k + 1
    if c == b"[":
        items: list[Node] = []
        node = Node(items, i, i)
        i = _WS.match(data, i + 1).end()
        if data[i:i + 1] == b"]":
            node.end = i + 1
            return node, i + 1
        while True:
            child, k = _json_value(data, i)
            items.append(child)
            k = _WS.match(data, k).end()
            if data[k:k + 1] == b",":
                i = _WS.match(data, k + 1).end()
                continue
            node.end = k + 1
            return node, k + 1
    if c == b'"':
        m = _STRING.match(data, i)
        return Node(json.loads(m.group()), i, m.end()), m.end()
    for word, value in ((b"true", True), (b"false", False), (b"null", None)):
        if data.startswith(word, i):
            return Node(value, i, i + len(word)), i + len(word)
    m = _NUMBER.match(data, i)
    return Node(json.loads(m.group()), i, m.end()), m.end()


# ---- YAML: compose (no construction, so custom tags cannot run code or fail), nodes carry marks.


def _read_yaml(data: bytes) -> list[Node]:
    import yaml

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise SkipFile(f"malformed YAML: not UTF-8 ({e.reason} at byte {e.start})") from None
    # Marks count characters; map them back to byte offsets.
    offsets = _char_to_byte(text)
    try:
        # libyaml's composer when PyYAML has it (the pure-Python one costs ~50 us per node); both keep marks.
        docs = list(yaml.compose_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise SkipFile(f"malformed YAML: {getattr(e, 'problem', None) or e}{where}") from None
    except RecursionError:
        raise SkipFile("malformed YAML: nested too deeply to read") from None
    # Aliases share composed nodes; converting expands them. Bound the expansion by the file's own size so a
    # "billion laughs" file is refused in milliseconds instead of filling memory.
    budget = [YAML_NODES_PER_BYTE * len(data) + 1000]
    try:
        return [_yaml_node(d, offsets, budget) for d in docs if d is not None]
    except RecursionError:
        raise SkipFile("malformed YAML: nested too deeply to read") from None


def _char_to_byte(text: str):
    if text.isascii():
        return lambda i: i
    table, pos = [], 0
    for ch in text:
        table.append(pos)
        pos += len(ch.encode("utf-8"))
    table.append(pos)
    return lambda i: table[min(i, len(table) - 1)]


YAML_NODES_PER_BYTE = 2  # a node takes at least two bytes to write; more means aliases are multiplying it


def _yaml_node(n, off, budget: list[int]) -> Node:
    import yaml

    budget[0] -= 1
    if budget[0] < 0:
        raise SkipFile("YAML aliases expand to more nodes than the file could hold written out (an alias bomb?)")

    start, end = off(n.start_mark.index), off(n.end_mark.index)
    if isinstance(n, yaml.MappingNode):
        out: dict[str, Node] = {}
        for k, v in n.value:
            child = _yaml_node(v, off, budget)
            child.key_start, child.key_end = off(k.start_mark.index), off(k.end_mark.index)
            out[str(k.value) if isinstance(k, yaml.ScalarNode) else repr(k)] = child
        return Node(out, start, end)
    if isinstance(n, yaml.SequenceNode):
        return Node([_yaml_node(v, off, budget) for v in n.value], start, end)
    return Node(_yaml_scalar(n), start, end)


def _yaml_scalar(n) -> Any:
    """The scalar's value as YAML 1.1 would construct it, without running a constructor on arbitrary tags."""
    if n.style:  # quoted or block scalars are strings
        return n.value
    text = n.value
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("null", "~", ""):
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


# ---- TOML: the standard parser for values; positions from table headers and `key =` lines.

_TOML_HEADER = re.compile(rb"^[ \t]*\[\[?[ \t]*([^\]\n]+?)[ \t]*\]\]?[ \t]*(?:#.*)?$", re.M)


def _read_toml(data: bytes) -> list[Node]:
    try:
        import tomllib  # Python 3.11+
    except ModuleNotFoundError:  # pragma: no cover - 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError:
            raise SkipFile("TOML not read: no TOML parser (Python < 3.11 without tomli)") from None
    try:
        doc = tomllib.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as e:
        raise SkipFile(f"malformed TOML: not UTF-8 ({e.reason} at byte {e.start})") from None
    except tomllib.TOMLDecodeError as e:
        raise SkipFile(f"malformed TOML: {e}") from None
    headers = [(m.group(1).decode("utf-8", "replace").replace('"', "").replace(" ", ""), m.start(), m.end())
               for m in _TOML_HEADER.finditer(data)]
    return [_toml_node(doc, data, (), headers)]


def _toml_node(value: Any, data: bytes, path: tuple[str, ...], headers) -> Node:
    start, end = _toml_locate(data, path, headers)
    if isinstance(value, dict):
        node = Node({k: _toml_node(v, data, path + (str(k),), headers) for k, v in value.items()}, start, end)
    elif isinstance(value, list):
        node = Node([_toml_item(v, data, path, headers, start) for v in value], start, end)
    else:
        node = Node(value, start, end)
    node.key_start, node.key_end = start, end
    return node


def _toml_item(v: Any, data: bytes, path, headers, near: int) -> Node:
    """A list item: located at its own text when it is a string written after the list's key, else at the key."""
    if isinstance(v, (dict, list)):
        n = _toml_node(v, data, path, headers)
        return n
    if isinstance(v, str):
        for q in (b'"', b"'"):
            i = data.find(q + v.encode() + q, near)
            if i >= 0:
                return Node(v, i, i + len(v) + 2)
    return Node(v, near, near)


def _toml_locate(data: bytes, path: tuple[str, ...], headers) -> tuple[int, int]:
    """Best-effort span of a TOML key: `[a.b]` for a table, else `c =` (or `b.c =`) under the longest header
    that encloses it; the enclosing header (or the file start) when the key is written inline."""
    if not path:
        return 0, 0
    dotted = ".".join(path)
    for name, s, e in headers:
        if name == dotted:
            return s, e
    depth, lo, hi = 0, 0, (headers[0][1] if headers else len(data))
    for idx, (name, s, e) in enumerate(headers):
        parts = name.split(".")
        if tuple(parts) == path[:len(parts)] and len(parts) > depth:
            depth, lo = len(parts), e
            hi = headers[idx + 1][1] if idx + 1 < len(headers) else len(data)
    rest = path[depth:]
    key = r"[ \t]*\.[ \t]*".join(rf'(?:{re.escape(p)}|"{re.escape(p)}"|\'{re.escape(p)}\')' for p in rest)
    m = re.compile((r"^[ \t]*(" + key + r")[ \t]*=").encode(), re.M).search(data, lo, hi)
    if m:
        return m.start(1), m.end(1)
    return lo, lo


_READERS = {"json": _read_json, "yaml": _read_yaml, "toml": _read_toml}


# --------------------------------------------------------------------------------------------- path walking


def walk(node: Node, segments: list[str]) -> Iterator[Node]:
    """Nodes reached from `node` by a dotted path with `*` (one level) and `**` (any depth) segments."""
    if not segments:
        yield node
        return
    head, rest = segments[0], segments[1:]
    if head == "**":
        yield from walk(node, rest)
        for child in _children(node):
            yield from walk(child, segments)
        return
    if isinstance(node.value, dict):
        if head == "*":
            for child in node.value.values():
                yield from walk(child, rest)
        elif head in node.value:
            yield from walk(node.value[head], rest)
    elif isinstance(node.value, list):
        if head == "*" or (head.isdigit() and int(head) < len(node.value)):
            items = node.value if head == "*" else [node.value[int(head)]]
            for child in items:
                yield from walk(child, rest)


def _children(node: Node) -> list[Node]:
    if isinstance(node.value, dict):
        return list(node.value.values())
    if isinstance(node.value, list):
        return list(node.value)
    return []


def _scalars(node: Node) -> list[Node]:
    if isinstance(node.value, list):
        return [n for n in node.value if not isinstance(n.value, (dict, list))]
    if isinstance(node.value, dict):
        return []
    return [node]


def _text(v: Any) -> str:
    if v is True:
        return "true"
    if v is False:
        return "false"
    return "" if v is None else str(v)


def match_key(pattern: dict, sf: SourceFile, ctx: MatchContext) -> Iterable[Hit]:
    if sf.language not in _READERS:
        return
    spec = pattern["key"]
    segments = [s for s in str(spec.get("path", "")).split(".") if s]
    flags = re.I if spec.get("ignorecase") else 0
    rx_flags = ("ignorecase",) if flags else ()
    value_rx = compile_regex(spec["matches"], rx_flags, text=True) if "matches" in spec else None
    key_rx = compile_regex(spec["key_matches"], rx_flags, text=True) if "key_matches" in spec else None
    equals = spec.get("equals")
    wanted = None
    if equals is not None:
        wanted = {(_text(e).lower() if flags else _text(e)) for e in (equals if isinstance(equals, list) else [equals])}
    first = bool(spec.get("first"))
    count = 0
    for doc in tree(sf):
        for node in walk(doc, segments):
            for hit in _node_hits(node, segments, key_rx, value_rx, wanted, flags):
                yield hit
                count += 1
                if first:
                    return
    del count


def _node_hits(node: Node, segments, key_rx, value_rx, wanted, flags) -> Iterator[Hit]:
    path = ".".join(segments)
    if key_rx is not None:
        if isinstance(node.value, dict):
            for k, child in node.value.items():
                if key_rx.search(k):
                    yield Hit(child.key_start, child.key_end, name=k, values=(("key", k), ("path", path)))
        return
    if wanted is None and value_rx is None:
        s, e = (node.key_start, node.key_end) if node.key_start >= 0 else (node.start, node.end)
        yield Hit(s, max(e, s + 1), name=segments[-1] if segments else "", values=(("path", path),))
        return
    for item in _scalars(node):
        text = _text(item.value)
        cmp = text.lower() if flags else text
        if wanted is not None and cmp not in wanted:
            continue
        if value_rx is not None and not value_rx.search(text):
            continue
        yield Hit(item.start, max(item.end, item.start + 1), name=text, values=(("path", path), ("value", text)))

