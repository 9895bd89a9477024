"""A judge that answers from a script: for testing metric arithmetic exactly, without a model.

    judge = ScriptedJudge({"faithfulness.statements": {"statements": ["a", "b"]},
                           "faithfulness.verdicts": [{"verdicts": [...]}, ...]})

A dict value answers every request with that prompt tag; a list is consumed in order;
a callable gets the JudgeRequest. Strings are sent as raw reply text (to test parsing).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ragmeter.judges.base import DecodingParams, Judge, JudgeReply, JudgeRequest

Script = dict[str, Any] | Callable[[JudgeRequest], Any]


class ScriptedJudge(Judge):
    backend = "scripted"

    def __init__(self, script: Script, *, constrained: bool = True, context_window: int | None = None,
                 name: str = "script", max_tokens: int = 512, record: bool = True) -> None:
        super().__init__(name, DecodingParams(max_tokens=max_tokens))
        self.script = script
        self.constrained = constrained
        self._window = context_window
        self.requests: list[JudgeRequest] = []
        self.record = record  # off for benchmarks: a million recorded requests is a leak of the bench's own

    @property
    def context_window(self) -> int | None:
        return self._window

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        if self.record:
            self.requests.append(request)
        reply = self._next(request)
        if isinstance(reply, JudgeReply):
            return reply
        text = reply if isinstance(reply, str) else json.dumps(reply)
        return JudgeReply(text=text, prompt_tokens=sum(len(m["content"].split()) for m in request.messages),
                          completion_tokens=len(text.split()), seconds=0.0)

    def _next(self, request: JudgeRequest) -> Any:
        if callable(self.script):
            return self.script(request)
        if request.tag not in self.script:
            raise KeyError(f"scripted judge has no reply for prompt '{request.tag}'")
        entry = self.script[request.tag]
        if isinstance(entry, list):
            if not entry:
                raise KeyError(f"scripted judge ran out of replies for '{request.tag}'")
            return entry.pop(0)
        return entry

    def calls(self, tag: str | None = None) -> int:
        return sum(1 for r in self.requests if tag is None or r.tag == tag)
