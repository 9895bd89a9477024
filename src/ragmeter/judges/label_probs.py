"""Probabilities of the labels a reply schema allows, read at the token that decides each label.

A judge's reply is JSON whose label fields are enums (`"verdict": 0|1`, `"rating": 0|1|2`,
`"label": "refusal"|...`). While a reply is decoded, the text so far tells when the next
token decides a label (after `"verdict":` and before the value is settled). At that step
the backend's scores for the candidate tokens (in-process: the logits; HTTP: the
top_logprobs) give a distribution over the allowed labels: each token that begins exactly
one label adds its probability to that label, and the sum is renormalised over the allowed
labels only. Tokens that fit several labels (whitespace, a lone quote) decide nothing and
are skipped; the step that does decide is the one recorded.

Backends call `LabelProbe.observe(text_so_far, scores_fn)` before each token and
`finish()` at the end; the result is one `{"field", "probs"}` per label, in reply order.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from typing import Any

LabelDist = dict[str, Any]  # {"field": str, "probs": {json_value: p}, "coverage": float}


def label_fields(schema: dict[str, Any] | None) -> dict[str, tuple[str, ...]]:
    """Field name -> the JSON texts of its allowed values, for every enum field of the schema.
    A name used with two different enums is left out (its occurrences could not be told apart)."""
    found: dict[str, tuple[str, ...]] = {}
    clash: set[str] = set()
    for node in _objects(schema or {}):
        for name, prop in (node.get("properties") or {}).items():
            values = prop.get("enum") or ([prop["const"]] if "const" in prop else None)
            if not values or len(values) < 2:
                continue
            texts = tuple(json.dumps(v, ensure_ascii=False) for v in values)
            if found.get(name, texts) != texts:
                clash.add(name)
            found[name] = texts
    return {k: v for k, v in found.items() if k not in clash}


def _objects(node: object) -> Iterable[dict[str, Any]]:
    if isinstance(node, dict):
        if "properties" in node:
            yield node
        for value in node.values():
            yield from _objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from _objects(value)


class LabelProbe:
    """Tracks one reply as it is decoded and records a label distribution per label field."""

    def __init__(self, fields: dict[str, tuple[str, ...]]) -> None:
        self.fields = fields
        names = "|".join(re.escape(n) for n in sorted(fields, key=len, reverse=True))
        # the key, unescaped (a quote inside a string is \"), then the value typed so far
        self._at_value = re.compile(rf'(?<!\\)"({names})"\s*:\s*([^,}}\]\n]*)$') if fields else None
        self.found: list[LabelDist] = []
        self._pending: LabelDist | None = None

    def undecided(self, text: str) -> tuple[str, str, list[str]] | None:
        """(field, value typed so far, labels still possible) when the next token can decide."""
        if self._at_value is None:
            return None
        match = self._at_value.search(text[-200:])
        if match is None:
            return None
        field, typed = match.group(1), match.group(2)
        possible = [v for v in self.fields[field] if v.startswith(typed)]
        if len(possible) < 2 or any(v == typed for v in possible):
            return None
        return field, typed, possible

    def observe(self, text: str, scores: Callable[[str, list[str]], dict[str, float]]) -> LabelDist | None:
        """Before each token: `scores(typed, labels)` returns log-scores (logits or logprobs) of
        candidate token texts; called only where a label is about to be decided. Returns the
        distribution read at this step (with `typed`), or None where no label is being decided."""
        state = self.undecided(text)
        if state is None:
            self._flush()
            return None
        field, typed, possible = state
        dist = distribution(typed, possible, scores(typed, possible))
        if dist is None:
            return None
        self._pending = {"field": field, **dist}
        return {**self._pending, "typed": typed}

    def finish(self) -> list[LabelDist]:
        self._flush()
        return self.found

    def _flush(self) -> None:
        if self._pending is not None:
            self.found.append(self._pending)
            self._pending = None


def distribution(typed: str, labels: list[str], scores: dict[str, float]) -> dict[str, Any] | None:
    """Renormalised label probabilities from candidate tokens' log-scores; None when no token
    points to a single label (then the backend cannot say, and the label stands alone)."""
    mass: dict[str, list[float]] = {}
    for token, score in scores.items():
        owner = decided(typed, token, labels)
        if owner is not None and math.isfinite(score):
            mass.setdefault(owner, []).append(score)
    if not mass:
        return None
    top = max(s for scores_ in mass.values() for s in scores_)
    weights = {v: sum(math.exp(s - top) for s in mass.get(v, [])) for v in labels}
    total = sum(weights.values())
    return {"probs": {v: w / total for v, w in weights.items()}}


def decided(typed: str, token: str, labels: Iterable[str]) -> str | None:
    """The one label that typing `token` after `typed` leads to, or None (whitespace, a quote)."""
    owners = [v for v in labels if _fits(typed, token, v)]
    return owners[0] if len(owners) == 1 else None


def _fits(typed: str, token: str, label: str) -> bool:
    """Does typing `token` after `typed` keep the value on the way to `label` (or complete it)?"""
    text = (typed + token) if typed else token.lstrip()
    if not text:
        return False
    return label.startswith(text) or text.startswith(label)


def candidate_texts(typed: str, labels: list[str]) -> list[str]:
    """What could come next for each label: the rest of it, and with a leading space when
    nothing is typed yet (JSON allows whitespace before a value)."""
    out = []
    for label in labels:
        rest = label[len(typed):]
        out.append(rest)
        if not typed:
            out.append(" " + rest)
    return out


def align(reply: object, found: list[LabelDist] | None,
          fields: dict[str, tuple[str, ...]]) -> dict[str, dict[str, float]]:
    """Attach each recorded distribution to its place in the parsed reply: JSON path
    ("verdicts.1.verdict") -> {label: p}. The k-th label field met walking the reply in
    order is the k-th one decoded. Any mismatch (a count, a field, a label the
    distribution cannot hold) returns {}: no probabilities rather than misplaced ones."""
    if not found:
        return {}
    places = list(_label_leaves(reply, fields, ""))
    if len(places) != len(found):
        return {}
    out: dict[str, dict[str, float]] = {}
    for (path, field, value), dist in zip(places, found):
        if dist["field"] != field or value not in dist["probs"]:
            return {}
        out[path] = dist["probs"]
    return out


def _label_leaves(node: object, fields: dict[str, tuple[str, ...]], path: str) -> Iterable[tuple[str, str, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{path}.{key}" if path else key
            if key in fields and not isinstance(value, (dict, list)):
                yield here, key, json.dumps(value, ensure_ascii=False)
            else:
                yield from _label_leaves(value, fields, here)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _label_leaves(value, fields, f"{path}.{i}")


def from_top_logprobs(steps: list[tuple[str, dict[str, float]]],
                      fields: dict[str, tuple[str, ...]]) -> list[LabelDist] | None:
    """Label distributions from a server's per-token top_logprobs: (token, {alternative: logprob})
    for each generated token, in order. None when there were none to read."""
    if not steps or not fields:
        return None
    probe = LabelProbe(fields)
    text = ""
    for token, alternatives in steps:
        probe.observe(text, _fixed(alternatives))
        text += token
    return probe.finish()


class MalformedLogprobs(ValueError):
    """A reply's `logprobs` object is not the shape the OpenAI API documents."""


#: servers already said to send malformed logprobs (said once per server, not per reply)
_MALFORMED_SAID: set[str] = set()


def lenient_steps(choice: dict[str, object], server: str) -> list[tuple[str, dict[str, float]]]:
    """openai_steps, or none where the object is malformed: the reply's text is whole, so its
    labels are read without probabilities (a server that always sent them malformed ended the
    run as failed calls, and a traceback before that); said once per server."""
    try:
        return openai_steps(choice)
    except MalformedLogprobs as exc:
        if server not in _MALFORMED_SAID:
            import logging

            from ragmeter.text import redact

            _MALFORMED_SAID.add(server)
            logging.getLogger("ragmeter").warning(redact(f"{server} sends malformed logprobs ({exc}): its labels "
                                                         "are read without probabilities"))
        return []


def openai_steps(choice: dict[str, Any]) -> list[tuple[str, dict[str, float]]]:
    """(token, {alternative: logprob}) per token from an OpenAI-style choice: chat
    (`logprobs.content[].top_logprobs`) or legacy completions (`logprobs.tokens`/`top_logprobs`).
    Any other shape raises MalformedLogprobs (lenient_steps then reads the reply's labels
    without probabilities) rather than read probabilities from what it cannot vouch for."""
    logprobs = choice.get("logprobs")
    if logprobs is None:
        return []
    if not isinstance(logprobs, dict):
        raise MalformedLogprobs(f"logprobs is {type(logprobs).__name__}, not an object")
    content = logprobs.get("content")
    if content is not None:
        if not isinstance(content, list):
            raise MalformedLogprobs("logprobs.content is not a list")
        return [_chat_step(item, i) for i, item in enumerate(content)]
    tokens, tops = logprobs.get("tokens") or [], logprobs.get("top_logprobs") or []
    if not isinstance(tokens, list) or not isinstance(tops, list):
        raise MalformedLogprobs("logprobs.tokens or logprobs.top_logprobs is not a list")
    return [(_text(token, f"tokens[{i}]"), _alternatives(top or {}, f"top_logprobs[{i}]"))
            for i, (token, top) in enumerate(zip(tokens, tops))]


def _chat_step(item: object, i: int) -> tuple[str, dict[str, float]]:
    if not isinstance(item, dict):
        raise MalformedLogprobs(f"logprobs.content[{i}] is not an object")
    token = _text(item.get("token"), f"content[{i}].token")
    alternatives = item.get("top_logprobs") or []
    if not isinstance(alternatives, list):
        raise MalformedLogprobs(f"logprobs.content[{i}].top_logprobs is not a list")
    pairs = {_text(alt.get("token") if isinstance(alt, dict) else None, f"content[{i}].top_logprobs token"):
             _number(alt.get("logprob"), f"content[{i}].top_logprobs logprob") for alt in alternatives}
    return token, pairs or {token: _number(item.get("logprob"), f"content[{i}].logprob")}


def _alternatives(top: object, where: str) -> dict[str, float]:
    if not isinstance(top, dict):
        raise MalformedLogprobs(f"logprobs.{where} is not an object")
    return {_text(token, where): _number(value, where) for token, value in top.items()}


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise MalformedLogprobs(f"logprobs.{where} is not a string")
    return value


def _number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MalformedLogprobs(f"logprobs.{where} is not a number")
    return float(value)


def _fixed(alternatives: dict[str, float]) -> Callable[[str, Any], dict[str, float]]:
    """A probability reader that returns one step's top_logprobs, whatever is asked."""
    def read(typed: str, labels: object) -> dict[str, float]:
        return dict(alternatives)
    return read
