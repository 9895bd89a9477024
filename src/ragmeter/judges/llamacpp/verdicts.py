"""Verdict lists and ratings at prefill speed (in-process llama.cpp): a reply of
`verdicts(n)` shape is not decoded token by token. With the prompt loaded, the reply is
written by ragmeter as a skeleton the model only reads: `{"verdicts": [{"verdict": ` is
evaluated, the verdict is read from the label logits right after it (its probability too,
and the calibrated label where the judge has a line), then `1, "reason": ""}, {"verdict": `
for the next item, and so on: a few tokens of prefill per item, no sampled JSON, tokenized
as the model writes it (Writer). No verdict reads a reason written before
it. Reasons are then written only where someone will read them (after a verdict of 0 with
`reasons: failing`, and after a verdict of 1 whose probability is near the bar, below
NEAR_BAR, where a reader checks what passed; for every item with `all`, never with `none`),
each by greedy decoding
from the skeleton cut back to that item's `"reason": "`, last item first, so each reason
reads the verdicts up to its own. A reply of one rating field (`{"rating": 0|1|2}`) is read
the same way: one label from the logits after `{"rating": `.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from ragmeter.judges.calibration import calibrated_one, favoured
from ragmeter.judges.label_probs import LabelDist, distribution
from ragmeter.judges.llamacpp import native

#: a verdict of 1 less probable than this is near the bar: `reasons: failing` writes its reason
#: too (a row scored 0.35-0.65 is one a reader checks; below 0.5 its verdict is 0 and has one)
NEAR_BAR = 0.65

if TYPE_CHECKING:
    import threading

    from llama_cpp import Llama

    from ragmeter.judges.base import Halt

#: the most tokens a reason may take (schemas.REASON_MAX is 100 characters)
REASON_TOKENS = 40
LABELS = ["0", "1"]


def verdict_count(schema: dict[str, Any] | None) -> int | None:
    """n when `schema` is schemas.verdicts(n) (a fixed-length list of verdict-then-reason
    objects), else None."""
    if not schema or list(schema.get("properties", {})) != ["verdicts"]:
        return None
    node = schema["properties"]["verdicts"]
    items = node.get("items", {})
    if "$ref" in items:
        items = schema.get("$defs", {}).get(items["$ref"].rsplit("/", 1)[-1], {})
    fixed = node.get("minItems") == node.get("maxItems")
    if not fixed or list(items.get("properties", {})) != ["verdict", "reason"]:
        return None
    return int(node["maxItems"])


def label_field(schema: dict[str, Any] | None) -> tuple[str, list[str]] | None:
    """(field, its labels as JSON text) when `schema` is an object of one enum field (a
    rating such as schemas.Rating), else None: it is read from the logits too."""
    if not schema or len(schema.get("properties", {})) != 1:
        return None
    (field, node), = schema["properties"].items()
    values = node.get("enum")
    if not values or len(values) < 2 or not all(isinstance(v, int) and 0 <= v <= 9 for v in values):
        return None
    return field, [json.dumps(v) for v in values]


def read_label(llm: Llama, field: str, labels: list[str],
               lines: tuple[tuple[str, float, float], ...]) -> tuple[str, list[LabelDist]]:
    """The reply `{"FIELD": label}` read from the logits after `{"FIELD": `, with its distribution."""
    from ragmeter.judges.llamacpp.decode import line_for

    Writer(llm).add('{"' + field + '": ')
    dist = label_dist(llm, labels)
    if dist is None:
        return json.dumps({field: json.loads(labels[-1])}), []
    label = choose(dist, line_for(lines, field, 0), labels)
    return json.dumps({field: json.loads(label)}), [{"field": field, **dist}]


def choose(dist: dict[str, Any], line: tuple[str, float, float] | None, labels: list[str]) -> str:
    """The label written: the one a 0/1 label's calibrated probability favours where the judge
    has a line, else the most probable (so the label shown and the score agree)."""
    want = favoured(dist["probs"], line[1], line[2]) if line is not None and labels == LABELS else None
    return want or max(labels, key=lambda v: dist["probs"][v])


class Writer:
    """The reply ragmeter writes after the prompt, kept tokenized as one text: each piece
    added retokenizes the whole reply and evaluates only the tokens that changed, so the
    model reads the tokens it would have written itself (`": ` then ` ` then `1`, `"},` as
    one token), not pieces glued at odd boundaries."""

    def __init__(self, llm: Llama) -> None:
        self.llm, self.base, self.text, self.pending = llm, llm.n_tokens, "", ""
        self.ids: list[int] = []
        #: (tokens, characters) at the start of the reply that the model wrote itself: kept as
        #: it tokenized them, never retokenized (texts.py)
        self.kept = (0, 0)

    def add(self, piece: str, read: bool = True) -> None:
        """`piece` appended; evaluated now only where logits are read after it (each llama.cpp
        call costs about as much as a few tokens, so the pieces between reads go in one)."""
        self.pending += piece
        if read:
            self.goto(self.text + self.pending)

    def took(self, ids: list[int], text: str) -> None:
        """Tokens the model sampled (`text`), already evaluated after the reply so far."""
        assert not self.pending, "the model samples only where the reply so far was evaluated"
        self.ids, self.text = self.ids + ids, self.text + text
        self.kept = (len(self.ids), len(self.text))

    def goto(self, text: str) -> None:
        """The model's state after the prompt and `text` (extending or cutting back)."""
        kept_ids, kept_chars = self.kept
        if not text.startswith(self.text[:kept_chars]):
            kept_ids, kept_chars = self.kept = (0, 0)
        ids = self.ids[:kept_ids] + self.llm.tokenize(text[kept_chars:].encode("utf-8"), add_bos=False, special=False)
        same = 0
        while same < min(len(ids), len(self.ids)) and ids[same] == self.ids[same]:
            same += 1
        if same == len(ids):  # nothing new to read, but the logits must follow the last token
            same = max(0, same - 1)
        self.llm.n_tokens = self.base + same
        self.llm.eval(ids[same:])
        self.text, self.ids, self.pending = text, ids, ""


def decode_verdicts(llm: Llama, n: int, reasons: str, lines: tuple[tuple[str, float, float], ...],
                    deadline: float | None = None,
                    halt: Halt | threading.Event | None = None) -> tuple[str, list[LabelDist], int, str]:
    """(reply JSON text, label distributions, tokens sampled, finish reason) for n verdicts,
    the prompt already loaded into `llm`."""
    from ragmeter.judges.llamacpp.decode import line_for

    writer = Writer(llm)
    writer.add('{"verdicts": [', read=False)
    chosen: list[int] = []
    found: list[LabelDist] = []
    reason_at: list[str] = []
    near: list[bool] = []
    for i in range(n):
        if halt is not None and halt.is_set():
            return "", [], 0, "stopped"
        writer.add(('' if i == 0 else ', ') + '{"verdict": ')
        dist, line = label_dist(llm), line_for(lines, "verdict", i)
        label = choose(dist, line, LABELS) if dist is not None else "1"
        chosen.append(int(label))
        near.append(dist is not None and (_one(dist["probs"], line) or 0.0) < NEAR_BAR)
        if dist is not None:
            found.append({"field": "verdict", **dist})
        writer.add(f'{label}, "reason": "', read=False)
        reason_at.append(writer.text + writer.pending)
        writer.add('"}', read=False)
    written: dict[int, str] = {}
    sampled, finish = 0, "stop"
    for i in reversed(range(n)):  # each cut back to its own item: the later ones are no longer needed
        if not writes_reason(reasons, chosen[i], near[i]):
            continue
        if deadline is not None and time.monotonic() > deadline:
            finish = "timeout"
            break
        writer.goto(reason_at[i])
        written[i], used = _reason(llm, halt)
        sampled += used
    reply = {"verdicts": [{"verdict": v, "reason": written.get(i, "")} for i, v in enumerate(chosen)]}
    return json.dumps(reply, ensure_ascii=False), found if len(found) == n else [], sampled, finish


def writes_reason(reasons: str, verdict: int, near: bool) -> bool:
    """Whether a verdict's reason is written: every one with `all`, none with `none`; with
    `failing`, a verdict of 0 and one of 1 near the bar."""
    return reasons == "all" or (reasons == "failing" and (verdict == 0 or near))


def _one(probs: dict[str, float], line: tuple[str, float, float] | None) -> float | None:
    """P(1) of a label distribution's `probs` as the score reads it: calibrated where the judge
    has a line, else as read (the identity line)."""
    return calibrated_one(probs, line[1], line[2]) if line is not None else calibrated_one(probs, 1.0, 0.0)


def label_dist(llm: Llama, labels: list[str] = LABELS) -> dict[str, Any] | None:
    """Each label's probability from the logits after `"FIELD":` (the first token of each way
    to write it)."""
    from ragmeter.judges.llamacpp.decode import last_logits, token_scores

    return distribution("", labels, token_scores(llm, last_logits(llm))("", labels))


def _reason(llm: Llama, halt: Halt | threading.Event | None) -> tuple[str, int]:
    """Greedy text from where the reply stands (just inside a reason's opening quote) until
    the closing quote: the reason as JSON string content, and tokens sampled."""
    import llama_cpp
    import numpy as np

    from ragmeter.judges.llamacpp.decode import last_logits

    out: list[int] = []
    text = ""
    for _ in range(REASON_TOKENS):
        if halt is not None and halt.is_set():
            break
        token = int(np.argmax(last_logits(llm)))
        if llama_cpp.llama_vocab_is_eog(native.vocab(llm), token):
            break
        out.append(token)
        text = llm.detokenize(out).decode("utf-8", errors="ignore")
        end = closing_quote(text)
        if end is not None:
            text = text[:end]
            break
        llm.eval([token])
    return string_content(text), len(out)


def closing_quote(text: str) -> int | None:
    """Where an unescaped `"` ends the string, or None."""
    escaped = False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            return i
    return None


def string_content(raw: str, max_chars: int = 100) -> str:
    """The string as text: JSON escapes read, whitespace runs made one space, cut to `max_chars`."""
    try:
        text = json.loads(f'"{raw}"')
    except json.JSONDecodeError:
        text = raw.replace("\\", "")
    text = " ".join(str(text).split())
    return text[:max_chars]
