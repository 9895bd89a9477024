"""Reasons on demand (`reasons: all | failing | none`, a judge setting): which reasons a judge
writes, how replies written with fewer reasons share the cache, and how each backend leaves
them out. The in-process llama.cpp judge closes a skipped reason empty while decoding
(`reason_skipper`); an HTTP judge with `none` is sent a schema without reasons
(`strip_reasons`) and its reply is completed with empty ones (`fill_reasons`). A reason not
written reads UNWRITTEN in the evidence."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

#: replies a judge with this setting may reuse from the cache, its own first: one with more
#: reasons serves as well (the verdicts and their probabilities are the same)
SERVES = {"all": ("all",), "failing": ("failing", "all"), "none": ("none", "failing", "all")}
#: what a reason not written reads in the evidence
UNWRITTEN_PREFIX = "no reason written"
UNWRITTEN = UNWRITTEN_PREFIX + " (reasons: {mode})"


def mode_for(mode: str, schema: dict[str, Any]) -> str:
    """The setting as it applies to a reply of `schema`: one without a reason field is written
    the same in every mode, so it is cached as `all` and shared by all of them."""
    if mode == "all":  # (no walk of the schema on every call for the HTTP judges' default)
        return mode
    nodes = [schema, *schema.get("$defs", {}).values()]
    return mode if any("reason" in node.get("properties", {}) for node in nodes) else "all"


def unwritten(parsed: object, mode: str) -> Any:
    """`parsed` (a reply's JSON) with each empty reason saying it was not written."""
    if mode == "all":
        return parsed
    if isinstance(parsed, dict):
        return {k: (UNWRITTEN.format(mode=mode) if k == "reason" and v == "" else unwritten(v, mode))
                for k, v in parsed.items()}
    if isinstance(parsed, list):
        return [unwritten(v, mode) for v in parsed]
    return parsed


def strip_reasons(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema without its `reason` fields: a paid judge then writes no reason tokens."""
    out = copy.deepcopy(schema)
    for node in [out, *out.get("$defs", {}).values()]:
        if "reason" in node.get("properties", {}):
            del node["properties"]["reason"]
            node["required"] = [f for f in node.get("required", []) if f != "reason"]
    return out


def fill_reasons(text: str, schema: dict[str, Any]) -> str:
    """A reply to strip_reasons(schema) with an empty reason wherever `schema` has one, so it
    validates against the full reply model; text that is not JSON is left to the session."""
    try:
        reply = json.loads(text)
    except ValueError:
        return text
    defs = schema.get("$defs", {})

    def fill(value: object, node: dict[str, Any]) -> Any:
        node = defs.get(node["$ref"].rsplit("/", 1)[-1], {}) if "$ref" in node else node
        if isinstance(value, dict):
            props = node.get("properties", {})
            done = {k: fill(v, props.get(k, {})) for k, v in value.items()}
            return {**done, "reason": ""} if "reason" in props and "reason" not in done else done
        if isinstance(value, list):
            return [fill(v, node.get("items", {})) for v in value]
        return value
    return json.dumps(fill(reply, schema))


#: the reply has just opened a reason's string value
_REASON_OPEN = re.compile(r'"reason"\s*:\s*"$')
_VERDICT = re.compile(r'"verdict"\s*:\s*"?(\w+)')


def reason_skipper(reasons: str, schema: dict[str, Any] | None) -> Callable[[str], bool] | None:
    """For `reasons: none` the reason, for `failing` the reason of a verdict of 1, is closed
    empty when nothing the judge decides comes after it: the last item's reason in a list of
    a fixed length, a root object's last field. So every verdict and its probability is read
    from exactly the text it is read from with `reasons: all`, and scores are identical; only
    the reason's tokens are saved. (An earlier item's reason is read by the verdicts after it.)"""
    last = None if reasons == "all" or schema is None else _last_reason(schema)
    if last is None:
        return None

    def skip(text: str) -> bool:
        if not _REASON_OPEN.search(text) or text.count('"reason"') != last:
            return False
        verdicts = _VERDICT.findall(text)
        return reasons == "none" or (bool(verdicts) and verdicts[-1] == "1")
    return skip


def _last_reason(schema: dict[str, Any]) -> int | None:
    """How many reasons a reply of `schema` holds when its last one ends it, else None."""
    fields = list(schema.get("properties", {}))
    if not fields:
        return None
    if fields[-1] == "reason":
        return 1
    node = schema["properties"][fields[-1]]
    items = node.get("items", {})
    if "$ref" in items:
        items = schema.get("$defs", {}).get(items["$ref"].rsplit("/", 1)[-1], {})
    inner = list(items.get("properties", {}))
    fixed = node.get("type") == "array" and node.get("minItems") == node.get("maxItems") is not None
    return node["maxItems"] if fixed and inner and inner[-1] == "reason" else None
