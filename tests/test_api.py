"""The public API's keyword arguments (one TypedDict each) and its event-loop guard."""

from __future__ import annotations


def test_the_api_keyword_arguments_are_checked_and_the_loop_guard_says_what_to_await(tmp_path):
    import asyncio

    import pytest

    import ragmeter
    from ragmeter.errors import RagmeterError

    rows = [{"user_input": "q", "response": "a", "reference": "a"}]
    with pytest.raises(TypeError, match="unexpected keyword argument 'judeg'"):
        ragmeter.evaluate(rows, ["exact_match"], judeg="llamacpp")  # type: ignore[call-arg]
    assert ragmeter.evaluate(rows, ["exact_match"], cache=False).summary()["exact_match"]["mean"] == 1.0

    async def inside_a_loop():
        ragmeter.evaluate(rows, ["exact_match"], cache=False)

    with pytest.raises(RagmeterError, match=r"await ragmeter\.aevaluate"):
        asyncio.run(inside_a_loop())
    with pytest.raises(RagmeterError, match="estimate\\(\\) was called inside a running event loop"):
        asyncio.run(_estimate_inside(rows))


async def _estimate_inside(rows):
    import ragmeter

    ragmeter.estimate(rows, ["exact_match"], cache=False)
