"""Small text utilities every floor shares: text made safe to print (secrets redacted), counts
and durations as lines say them, and JSON text (canonical for hashing, fast for writing).
What a text says (sentences, words) is read in reading/."""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

#: control characters, and the bidirectional overrides and marks that reorder what a terminal shows
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(value: Any) -> str:
    """Text from data or config, safe for rich and the terminal: control characters shown as
    escapes, markup escaped."""
    from rich.markup import escape

    return escape(plain(value))


def plain(value: Any) -> str:
    """Control characters shown as escapes and secrets redacted, for print() (no rich markup
    to escape): every line the CLI prints goes through here."""
    return redact(_CONTROL.sub(lambda m: repr(m.group())[1:-1], str(value)))


#: environment variables whose values are secrets: API keys, tokens, passwords
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$", re.IGNORECASE)
#: secrets by their shape, wherever they came from: bearer tokens, OpenAI-style keys
_SECRET_SHAPES = re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}|\bsk-[A-Za-z0-9_-]{16,}")
REDACTED = "[redacted]"


#: variables a judge, generator or embedder was told to read its key from (`api_key_env`)
_NAMED_SECRETS: set[str] = set()


def secret_env(name: str | None) -> None:
    """Mark the variable `name` as holding a secret: a key a judge reads from `api_key_env`
    is one whatever the variable is called (`JUDGE_AUTH`, `JUDGE_KEY_2`), so its value is
    redacted from then on in this process, as a variable named like a key is."""
    if name:
        _NAMED_SECRETS.add(name)


def secret_values() -> list[str]:
    """The values redact() replaces by name: environment variables named like a key or token,
    and those named as a judge's or embedder's key (secret_env)."""
    import os

    return [value for name, value in os.environ.items()
            if len(value) >= 8 and (name in _NAMED_SECRETS or _SECRET_NAME.search(name))]


def redact(text: str, known: list[str] | None = None) -> str:
    """`text` with every known secret replaced: the value of each environment variable named
    like a key or token (8 characters or more), bearer tokens and sk-... keys. A server or
    proxy that echoes the Authorization header back in an error body is printed safely; the
    same rule holds for every file ragmeter writes (replies, results, manifests, the report).
    Only characters a JSON string holds unescaped are replaced, so JSON text stays JSON.
    `known`: secret_values() read once by a caller that redacts many texts."""
    for value in secret_values() if known is None else known:
        if value in text:
            text = text.replace(value, REDACTED)
    return _SECRET_SHAPES.sub(lambda m: (m.group(1) or "") + REDACTED, text)


#: a URL's parts that carry credentials: user:password@, a query value, and path segments
#: shaped like a token (20+ characters with upper- and lower-case letters and digits, or 32+ hex)
_URL = re.compile(r"\b(https?://)([^\s\"'<>#/?@]+@)?([^\s\"'<>#/?]+)([^\s\"'<>#?]*)(\?[^\s\"'<>#]*)?", re.I)
_TOKEN_SEGMENT = re.compile(r"^(?=[^/]*[a-z])(?=[^/]*[A-Z])(?=[^/]*[0-9])[A-Za-z0-9._~+=-]{20,}$|^[0-9a-fA-F]{32,}$")


def redact_urls(text: str) -> str:
    """redact(), and in every http(s) URL the credentials it may carry (a gateway token in
    the path, `user:password@`, the query): for what ragmeter writes of a judge's address."""
    def one(m: re.Match[str]) -> str:
        path = "/".join(REDACTED if _TOKEN_SEGMENT.match(seg) else seg for seg in m.group(4).split("/"))
        return (m.group(1) + (REDACTED + "@" if m.group(2) else "") + m.group(3) + path
                + ("?" + REDACTED if m.group(5) and len(m.group(5)) > 1 else ""))
    return redact(_URL.sub(one, text))


def redact_value(value: Any, text: Any = redact) -> Any:
    """A JSON-like value with every string (and key) passed through `text` (redact)."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, dict):
        return {text(k) if isinstance(k, str) else k: redact_value(v, text) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(v, text) for v in value]
    return value


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`1 document`, `2 documents`, `1,234 chunks`: a count as a line says it."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def duration(seconds: float) -> str:
    """A span of time as people read it on one line: 42s, 3m05s, 1h20m (progress, estimates)."""
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def seconds(value: float) -> str:
    """A measured time as every line shows it (latencies, judge time, per-question cost): two
    decimals below a second, one below ten, whole seconds below a minute, then `duration`
    (0.42 s, 7.7 s, 42 s, 1m40s), never an exponent or four decimals."""
    if value >= 59.5:
        return duration(value)
    if value >= 9.95:
        return f"{value:.0f} s"
    return f"{value:.1f} s" if value >= 0.995 else f"{value:.2f} s"


def print_table(console: Any, table: Any) -> None:
    """`table` as it is when the terminal has room for each column's longest word (cells then
    wrap between words); otherwise each row folded into a block (its first cell, then
    `header: value` pairs that wrap), so no name or number is cut or broken at 80 columns."""
    from rich.padding import Padding

    narrowest = _narrowest_columns(table)
    room = console.width - 3 * len(narrowest) - 1  # padding and borders
    if sum(narrowest) <= room:
        # each column's width set here: rich, given only minimums, let the table run past the
        # terminal (meta-eval's was 82 columns, cut at 80), and without them cut the widest word
        for column, width in zip(table.columns, _fitted(_natural_columns(table), narrowest, room)):
            column.width = width
        console.print(table)
        return
    if table.title:
        console.print(table.title, style="bold", highlight=False)
    headers = [str(column.header) for column in table.columns]
    for cells in zip(*(list(column.cells) for column in table.columns)):
        console.print(cells[0], style="bold", highlight=False)
        pairs = [f"{header}: {value}" for header, value in zip(headers[1:], cells[1:]) if str(value) not in ("", "-")]
        console.print(Padding(" · ".join(pairs), (0, 0, 0, 2)), highlight=False)


def _fitted(natural: list[int], narrowest: list[int], room: int) -> list[int]:
    """Widths within `room`: each column's natural width, the widest that can wrap narrowed
    a column at a time, never below its narrowest."""
    widths = [max(n, w) for n, w in zip(natural, narrowest)]
    while sum(widths) > room:
        slack = [w - n for w, n in zip(widths, narrowest)]
        widest = max(range(len(widths)), key=lambda i: (slack[i] > 0, widths[i]))
        if slack[widest] <= 0:
            break
        widths[widest] -= 1
    return widths


def _natural_columns(table: Any) -> list[int]:
    """Each column's width with no cell wrapped (its longest line)."""
    from rich.cells import cell_len
    from rich.text import Text

    return [max((cell_len(line) for t in (column.header, *column.cells)
                 for line in Text.from_markup(str(t)).plain.splitlines()), default=0) for column in table.columns]


def _narrowest_columns(table: Any) -> list[int]:
    """Each column's width with its cells wrapped between words (a no_wrap column's whole
    lines): below it rich would cut a name or a number."""
    from rich.cells import cell_len
    from rich.text import Text

    widths = []
    for column in table.columns:
        texts = [Text.from_markup(str(t)).plain for t in (column.header, *column.cells)]
        pieces = [p for t in texts for p in (t.splitlines() if column.no_wrap else t.split())]
        widths.append(max((cell_len(p) for p in pieces), default=0))
    return widths


def canonical_json(obj: Any) -> str:
    """Sorted keys, no spaces, characters as they are: the text keys are hashed from. orjson
    writes it about ten times faster than the json module (a tenth of ragmeter's own time per
    judge call went here); wherever the two could write different text (any float: orjson
    writes 1e-7 where json writes 1e-07; integers past 64 bits; keys that are not strings;
    other types) the json module writes it, so no key changes with the writer."""
    if _plain(obj):
        return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS).decode()
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def json_text(value: Any) -> str:
    """Compact JSON that reads back equal (cache values, results rows), through orjson where it
    can (finite floats round-trip either way). NaN and infinities are written null, as JSON
    has no word for them (the json module wrote NaN, which other readers refuse)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # an integer past 64 bits, a key that is not a string, another type
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _plain(obj: Any) -> bool:
    """Only str, bool, None, 64-bit ints, and lists, tuples and str-keyed dicts of them."""
    stack = [obj]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int:
            if not -2**63 <= item < 2**64:
                return False
        elif kind is list or kind is tuple:
            stack.extend(item)
        elif kind is dict:
            if any(type(key) is not str for key in item):
                return False
            stack.extend(item.values())
        else:
            return False
    return True
