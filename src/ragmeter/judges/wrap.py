"""A judge that passes everything to another: the base of the dry run's judge (which
answers without calling) and bench-judge's (which times every call)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragmeter.judges.base import Judge, JudgeReply, JudgeRequest, Message

if TYPE_CHECKING:
    from ragmeter.judges.calibration import Platt


class WrappedJudge(Judge):
    """Same identity (hence the same cache keys), window and tokenizer as `inner`."""

    def __init__(self, inner: Judge) -> None:
        super().__init__(inner.model, inner.params)
        self.inner = inner
        self.backend = inner.backend
        self.constrained = inner.constrained
        self.reads_tokens = inner.reads_tokens  # a dry run counts the token-evidence calls too

    @property
    def exact_tokens(self) -> bool:
        """Whether token counts come from the judge's own tokenizer, not an estimate."""
        return type(self.inner).count_tokens is not Judge.count_tokens

    def identity(self) -> dict[str, object]:
        return self.inner.identity()

    def describe(self) -> str:
        return self.inner.describe()

    def calibration(self) -> dict[str, Platt]:
        return self.inner.calibration()

    @property
    def context_window(self) -> int | None:
        return self.inner.context_window

    def writes_transcript(self) -> bool:
        return self.inner.writes_transcript()

    def machine_share(self) -> float | None:
        return self.inner.machine_share()

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def count_messages(self, messages: list[Message]) -> int:
        return self.inner.count_messages(messages)

    async def check(self) -> None:
        await self.inner.check()

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        return await self.inner.complete(request)

    async def aclose(self) -> None:
        await self.inner.aclose()
