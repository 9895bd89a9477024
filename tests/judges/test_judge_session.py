"""The path from metric to judge: cache, re-ask, truncation, parsing, retries."""

from __future__ import annotations

import asyncio

import pytest

import ragmeter
from ragmeter.accounting import MetricStats
from ragmeter.cache import Cache, NullCache
from ragmeter.errors import JudgeUnavailable, TransientJudgeError, UnparseableReply
from ragmeter.judges.base import JudgeReply
from ragmeter.judges.replies import first_json_object
from ragmeter.judges.retry import RetryPolicy, call_with_retry
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.judges.session import JudgeSession, fit_to_window
from ragmeter.metrics.schemas import verdicts
from ragmeter.prompts import builtin_prompt

ROW = {"id": "r1", "user_input": "q?", "response": "a.", "retrieved_contexts": ["c1 holds s1."], "reference": "r."}
OK = {"faithfulness.statements": {"statements": ["s1"]},
      "faithfulness.verdicts": {"verdicts": [{"reason": "r", "verdict": 1}]}}

#: faithfulness with the judge writing the statements (Ragas), as these tests script it
RAGAS_FAITHFULNESS = {"faithfulness": {"statements": "judge"}}


def test_second_run_makes_zero_judge_calls(isolated_cache):
    first = ScriptedJudge(dict(OK))
    r1 = ragmeter.evaluate([ROW], [RAGAS_FAITHFULNESS], judge=first, cache=isolated_cache, progress=False)
    second = ScriptedJudge({})  # would raise on any call
    r2 = ragmeter.evaluate([ROW], [RAGAS_FAITHFULNESS], judge=second, cache=isolated_cache, progress=False)
    assert first.calls() == 2 and second.calls() == 0
    assert r2.manifest["metrics"]["faithfulness"]["cache_hits"] == 2
    assert r2.manifest["metrics"]["faithfulness"]["judge_calls"] == 0
    assert r1.rows[0]["faithfulness"] == r2.rows[0]["faithfulness"] == 1.0
    assert Cache(isolated_cache).count() == 2


def test_cache_key_changes_with_inputs_model_and_decoding(isolated_cache):
    ragmeter.evaluate([ROW], [RAGAS_FAITHFULNESS], judge=ScriptedJudge(dict(OK)), cache=isolated_cache, progress=False)
    other_model = ScriptedJudge(dict(OK), name="other")
    ragmeter.evaluate([ROW], [RAGAS_FAITHFULNESS], judge=other_model, cache=isolated_cache, progress=False)
    assert other_model.calls() == 2
    changed = ScriptedJudge(dict(OK))
    ragmeter.evaluate([{**ROW, "response": "b."}], [RAGAS_FAITHFULNESS], judge=changed, cache=isolated_cache,
                      progress=False)
    # a new response means new statements; the verdict call sees the same statements and
    # contexts, so it is a hit: the key is the content, not the row
    assert changed.calls("faithfulness.statements") == 1
    assert changed.calls("faithfulness.verdicts") == 0


def test_invalid_reply_is_reasked_once_with_the_error():
    judge = ScriptedJudge({"faithfulness.statements": ['{"statements": "not a list"}', {"statements": ["s1"]}],
                           "faithfulness.verdicts": {"verdicts": [{"reason": "r", "verdict": 1}]}},
                          constrained=False)
    result = ragmeter.evaluate([ROW], [RAGAS_FAITHFULNESS], judge=judge, cache=False, progress=False)
    assert result.rows[0]["faithfulness"] == 1.0
    reask = judge.requests[1].messages
    assert reask[-2] == {"role": "assistant", "content": '{"statements": "not a list"}'}
    assert "statements: Input should be a valid list" in reask[-1]["content"]
    # an unconstrained judge gets the schema in the prompt
    assert '"maxItems"' in judge.requests[0].messages[0]["content"]
    assert result.manifest["metrics"]["faithfulness"]["reasks"] == 1


def test_cut_off_reply_is_unparseable_never_an_answer():
    cut = JudgeReply(text='{"statements": ["a", "a", "a"', finish_reason="length")
    judge = ScriptedJudge({"faithfulness.statements": [cut, cut]})
    result = ragmeter.evaluate([ROW], [RAGAS_FAITHFULNESS], judge=judge, cache=False, progress=False)
    assert result.rows[0]["faithfulness"] is None
    assert result.rows[0]["faithfulness_reason"] == "judge reply unparseable: reply was cut off at max_tokens"
    assert result.manifest["metrics"]["faithfulness"]["unparseable"] == 1


def test_first_json_object_from_prose_and_fences():
    assert first_json_object('Sure! {"a": 1} hope it helps') == {"a": 1}
    assert first_json_object('```json\n{"a": {"b": [1]}}\n```') == {"a": {"b": [1]}}
    assert first_json_object("{broken {\"a\": 2}") == {"a": 2}
    assert first_json_object('{"reason": "line one\nline two"}') == {"reason": "line one\nline two"}  # raw newline
    assert first_json_object("no json") is None


def test_long_contexts_are_truncated_to_the_window_and_counted():
    prompt = builtin_prompt("faithfulness", "verdicts")
    judge = ScriptedJudge({}, context_window=300)
    schema = {"type": "object"}
    inputs = {"contexts": ["word " * 400, "short context"], "statements": ["s1", "s2"]}
    messages, truncated = fit_to_window(prompt, inputs, judge, schema, max_tokens=64)
    assert truncated
    assert judge.count_messages(messages) <= 300 - 64
    assert "[...]" in messages[-1]["content"]
    assert "[1] s1" in messages[-1]["content"] and "[2] s2" in messages[-1]["content"]  # never cut
    small = {"contexts": ["short"], "statements": ["s1"]}
    assert fit_to_window(prompt, small, judge, schema, 64)[1] is False


def test_truncation_is_counted_in_the_manifest_and_noted_in_evidence():
    judge = ScriptedJudge(dict(OK), context_window=300, max_tokens=64)
    row = {**ROW, "retrieved_contexts": ["c1 holds s1. " + "long " * 1000]}  # s1: a literal held, so judged
    result = ragmeter.evaluate([row], [RAGAS_FAITHFULNESS], judge=judge, cache=False, progress=False)
    assert result.manifest["metrics"]["faithfulness"]["truncated"] == 1
    assert result.rows[0]["faithfulness_evidence"]["note"] == "contexts were shortened to fit the judge's window"


def test_prompt_that_cannot_fit_is_unscored():
    judge = ScriptedJudge(dict(OK), context_window=60, max_tokens=16)
    result = ragmeter.evaluate([ROW], [RAGAS_FAITHFULNESS], judge=judge, cache=False, progress=False)
    assert result.rows[0]["faithfulness"] is None
    assert "the judge's window is 60 with 16 kept for the reply" in result.rows[0]["faithfulness_reason"]


def test_retry_only_transient_errors_with_backoff():
    attempts = []

    async def flaky():
        attempts.append(1)
        if len(attempts) < 3:
            raise TransientJudgeError("HTTP 503")
        return "ok"

    policy = RetryPolicy(timeout=1, retries=3, backoff=0.001)
    assert asyncio.run(call_with_retry(flaky, policy, "judge")) == "ok"
    assert len(attempts) == 3

    async def broken():
        attempts.append(1)
        raise ValueError("not transient")

    attempts.clear()
    with pytest.raises(ValueError):
        asyncio.run(call_with_retry(broken, policy, "judge"))
    assert len(attempts) == 1

    async def slow():
        await asyncio.Event().wait()  # a call that never answers

    with pytest.raises(JudgeUnavailable, match="timed out after 0.01 s .*gave up after 2 attempts"):
        asyncio.run(call_with_retry(slow, RetryPolicy(timeout=0.01, retries=1, backoff=0.001), "judge"))


def test_session_validates_cached_entries_too(isolated_cache):
    session = JudgeSession(ScriptedJudge({"faithfulness.verdicts": {"verdicts": [{"reason": "r", "verdict": 1}]}}),
                           Cache(isolated_cache))
    stats = MetricStats()
    prompt = builtin_prompt("faithfulness", "verdicts")
    inputs = {"contexts": ["c"], "statements": ["s"]}
    first = asyncio.run(session.ask(prompt, inputs, verdicts(1), stats))
    second = asyncio.run(session.ask(prompt, inputs, verdicts(1), stats))
    assert (first.cached, second.cached) == (False, True)
    assert second.parsed.verdicts[0].verdict == 1
    assert (stats.judge_calls, stats.cache_hits) == (1, 1)
    with pytest.raises(UnparseableReply):
        asyncio.run(session.ask(prompt, {"contexts": ["c"], "statements": ["s", "t"]}, verdicts(2), stats))


def test_a_call_that_fails_its_retries_is_the_rows_failure_and_finished_replies_are_kept(isolated_cache):
    answered = []

    def flaky(request):
        if answered:
            raise TransientJudgeError("HTTP 503 from the judge")
        answered.append(request)
        return {"statements": ["s1"]}

    failed = ragmeter.evaluate([ROW], [RAGAS_FAITHFULNESS], judge=ScriptedJudge(flaky), cache=isolated_cache,
                               retries=0, progress=False)  # was: the whole run stopped (issue 37)
    assert failed.rows[0]["faithfulness"] is None
    assert failed.rows[0]["faithfulness_reason"].startswith(
        "judge call failed: judge scripted:script: HTTP 503 from the judge (gave up after 1 attempts)")
    assert failed.manifest["faults"]["failed_calls"] == 1
    assert Cache(isolated_cache).count() == 1  # the statements reply survived
    resumed = ScriptedJudge({"faithfulness.verdicts": {"verdicts": [{"reason": "r", "verdict": 1}]}})
    result = ragmeter.evaluate([ROW], [RAGAS_FAITHFULNESS], judge=resumed, cache=isolated_cache, progress=False)
    assert result.rows[0]["faithfulness"] == 1.0
    assert resumed.calls() == 1  # only the verdicts call was missing


class SlowJudge(ScriptedJudge):
    """Answers only after the event loop has turned many times, so every row's identical
    request is in flight before the first reply (loop turns, not wall-clock time)."""

    async def complete(self, request):
        for _ in range(200):
            await asyncio.sleep(0)
        return await super().complete(request)


@pytest.mark.parametrize("cache", [False, True])
def test_identical_prompts_in_flight_are_sent_once(cache, tmp_path):
    rows = [{**ROW, "id": f"r{i}"} for i in range(4)]  # four rows asking the same thing at once
    judge = SlowJudge(lambda request: {"rating": 2})
    result = ragmeter.evaluate(rows, ["context_relevance"], judge=judge, concurrency=4, progress=False,
                               cache=tmp_path / "c.sqlite" if cache else False)
    assert judge.calls() == 2  # context_relevance's two templates, once each
    stats = result.manifest["metrics"]["context_relevance"]
    assert stats["judge_calls"] == 2 and stats["cache_hits"] == 6
    assert [r["context_relevance"] for r in result.rows] == [1.0] * 4


def test_a_failure_reaches_every_request_waiting_for_it():
    rows = [{**ROW, "id": f"r{i}"} for i in range(4)]
    judge = SlowJudge(lambda request: "no json here")
    result = ragmeter.evaluate(rows, ["context_relevance"], judge=judge, concurrency=4, progress=False, cache=False)
    assert [r["context_relevance"] for r in result.rows] == [None] * 4
    assert judge.calls() == 4  # each template once, plus its one re-ask


def test_the_fast_cache_key_is_make_key_of_the_documented_payload():
    """Keys are spliced from parts serialised once; they must stay the documented hash, or
    every user's cache would go cold."""
    from ragmeter.cache import make_key
    from ragmeter.judges.replies import output_schema
    from ragmeter.judges.scripted import ScriptedJudge
    from ragmeter.judges.session import JudgeSession
    from ragmeter.metrics.schemas import verdicts

    judge = ScriptedJudge({})
    session = JudgeSession(judge, NullCache())
    inputs = {"question": "Où est « la Seine » ?", "contexts": ["a\nb", "c"], "n": 2, "nested": {"z": 1, "a": [None]}}
    for _ in range(2):  # the second call reads the parts serialised by the first
        key = session._key("faithfulness.verdicts@abc", inputs, verdicts(2), 256)
        assert key == make_key({"judge": judge.identity(), "prompt": "faithfulness.verdicts@abc", "inputs": inputs,
                                "schema": output_schema(verdicts(2)), "max_tokens": 256})


def test_reasons_settings_share_replies_with_more_reasons_and_say_what_was_not_written(isolated_cache):
    """`failing` reuses a reply written with every reason (same verdicts); a reply written
    without reasons is kept under a key of its own, so `all` never gets an empty reason."""

    class Writes(ScriptedJudge):
        def __init__(self, reasons: str, reason: str) -> None:
            super().__init__(lambda request: {"verdicts": [{"verdict": 1, "reason": reason}]})
            self.reasons = reasons

    def faithfulness(judge: ScriptedJudge) -> dict:
        result = ragmeter.evaluate([ROW], ["faithfulness"], judge=judge, cache=isolated_cache, progress=False)
        return result.rows[0]["faithfulness_evidence"]["statements"][0]

    assert faithfulness(Writes("all", "the context says a."))["reason"] == "the context says a."
    reused = Writes("failing", "")
    assert faithfulness(reused)["reason"] == "the context says a." and reused.calls() == 0
    fresh = isolated_cache.with_name("other.sqlite")
    none = Writes("none", "")
    row = ragmeter.evaluate([ROW], ["faithfulness"], judge=none, cache=fresh, progress=False).rows[0]
    assert row["faithfulness_evidence"]["statements"][0]["reason"] == "no reason written (reasons: none)"
    assert none.calls() == 1
    every = Writes("all", "written now")
    again = ragmeter.evaluate([ROW], ["faithfulness"], judge=every, cache=fresh, progress=False).rows[0]
    assert every.calls() == 1 and again["faithfulness_evidence"]["statements"][0]["reason"] == "written now"
    assert again["faithfulness"] == row["faithfulness"] == 1.0


def test_only_a_reason_nothing_is_decided_after_is_skipped():
    from ragmeter.judges.reasons import reason_skipper
    from ragmeter.judges.replies import output_schema
    from ragmeter.metrics.rubrics import CriticVerdict

    two = output_schema(verdicts(2))
    failing, none = reason_skipper("failing", two), reason_skipper("none", two)
    first = '{"verdicts": [{"verdict": 1, "reason": "'
    assert not failing(first) and not none(first)  # the second verdict reads the first reason
    last = '{"verdicts": [{"verdict": 1, "reason": "x"}, {"verdict": %d, "reason": "'
    assert failing(last % 1) and not failing(last % 0) and none(last % 0)
    assert not failing(last % 1 + "y")  # only where the string opens
    assert reason_skipper("all", two) is None
    assert reason_skipper("none", output_schema(CriticVerdict)) is None  # reason before verdict: always written


def test_a_reply_without_reasons_is_shared_by_every_reasons_mode(isolated_cache):
    """context_relevance's ratings have no reason field: a run with `reasons: failing` caches
    them where a run with `all` finds them."""

    class Failing(ScriptedJudge):
        reasons = "failing"

    first = Failing(lambda request: {"rating": 2})
    ragmeter.evaluate([ROW], ["context_relevance"], judge=first, cache=isolated_cache, progress=False)
    again = ScriptedJudge({})  # would raise on any call
    result = ragmeter.evaluate([ROW], ["context_relevance"], judge=again, cache=isolated_cache, progress=False)
    assert first.calls() == 2 and again.calls() == 0 and result.rows[0]["context_relevance"] == 1.0
