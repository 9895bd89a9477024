"""The public API's keyword arguments (one TypedDict each) and its event-loop guard."""

from __future__ import annotations


def test_the_api_keyword_arguments_are_checked_and_the_loop_guard_says_what_to_await(tmp_path):
    import asyncio

    import pytest

    import ragmeter

    rows = [{"user_input": "q", "response": "a", "reference": "a"}]
    with pytest.raises(TypeError, match="unexpected keyword argument 'judeg'"):
        ragmeter.evaluate(rows, ["exact_match"], judeg="llamacpp")  # type: ignore[call-arg]
    assert ragmeter.evaluate(rows, ["exact_match"], cache=False).summary()["exact_match"]["mean"] == 1.0

    async def inside_a_loop():  # as in Jupyter: was an error asking for `await aevaluate()`
        return ragmeter.evaluate(rows, ["exact_match"], cache=False)

    assert asyncio.run(inside_a_loop()).summary()["exact_match"]["mean"] == 1.0
    assert asyncio.run(_estimate_inside(rows)).total.calls == 0


async def _estimate_inside(rows):
    import ragmeter

    return ragmeter.estimate(rows, ["exact_match"], cache=False)
