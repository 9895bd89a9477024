"""The dry run: the calls and prompt tokens a run would send, with no judge call; cache
hits subtracted; seconds and price from a measured speed; the estimate beside the actuals."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

from ragmeter.cache import Cache
from ragmeter.judges.base import JudgeReply, JudgeRequest
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.metrics.schemas import verdicts
from ragmeter.run.config import RunConfig
from ragmeter.run.dry_run import APPROXIMATE, EXACT, dry_run, synthesize
from ragmeter.run.execute import run_config
from ragmeter.run.judge_speed import CallTiming, JudgeSpeed, bench_judge, fit, load_speed, save_speed
from ragmeter.run.prepare import prepare

ROWS = [{"id": f"r{i}", "user_input": f"What is item {i}?", "response": f"Item {i} is a thing. It is red.",
         "retrieved_contexts": [f"Item {i} is a red thing.", "Unrelated text."]} for i in range(4)]
METRICS = ["context_relevance", {"faithfulness": {"statements": "judge"}}]


#: the judge writes three statements, as many as the prompt's example the dry run's stand-in is
#: shaped from; each statement is judged in a call of its own (the default since issue 72)
STATEMENTS = ["A thing.", "It is red.", "It is an item."]


def judge() -> ScriptedJudge:
    def script(request: JudgeRequest) -> dict:
        if request.tag.startswith("context_relevance"):
            return {"rating": 2}
        if request.tag == "faithfulness.statements":
            return {"statements": STATEMENTS}
        return {"verdicts": [{"verdict": 1, "reason": "r"}] * request.schema["properties"]["verdicts"]["maxItems"]}
    return ScriptedJudge(script)


def config(cache, **kw) -> RunConfig:
    return RunConfig(**{"dataset": "<in-memory>", "metrics": METRICS, "cache": str(cache), "judge": "scripted", **kw})


@pytest.fixture
def speed_file(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGMETER_JUDGE_SPEED", str(tmp_path / "speed.json"))
    return tmp_path / "speed.json"


def test_the_dry_run_counts_what_the_run_sends_and_calls_nothing(tmp_path, speed_file):
    counting = judge()
    estimate = asyncio.run(dry_run(config(tmp_path / "c.sqlite"), data=ROWS, judge=counting))
    assert counting.requests == []  # nothing was sent
    real = judge()
    asyncio.run(run_config(config(tmp_path / "other.sqlite"), data=ROWS, judge=real, write=False))
    def tokens(tag: str) -> int:
        return sum(real.count_messages(r.messages) for r in real.requests if r.tag.startswith(tag))

    # a row: two ratings; the statements, then a verdict for each of the three in a call of its own
    for label, calls in (("context_relevance", 8), ("faithfulness", 16)):
        assert estimate.metrics[label].calls == sum(r.tag.startswith(label) for r in real.requests) == calls
    assert estimate.metrics["context_relevance"].prompt_tokens == tokens("context_relevance")
    assert estimate.metrics["context_relevance"].estimated_prompt_tokens == 0
    # the verdict prompts hold the statements the judge wrote: stood in, so counted apart as
    # estimated; the statement prompts are exact
    faith = estimate.metrics["faithfulness"]
    assert faith.prompt_tokens - faith.estimated_prompt_tokens == tokens("faithfulness.statements")
    assert faith.estimated_prompt_tokens > 0
    assert estimate.metrics["faithfulness"].max_completion_tokens == 16 * 512
    assert estimate.tokenizer == EXACT and estimate.total.calls == 24 and estimate.total.seconds is None


def test_cache_hits_are_subtracted_and_nothing_is_written(tmp_path, speed_file):
    cache = tmp_path / "c.sqlite"
    asyncio.run(run_config(config(cache, limit=2), data=ROWS, judge=judge(), write=False))
    before = Cache(cache).count()
    estimate = asyncio.run(dry_run(config(cache), data=ROWS, judge=judge()))
    assert Cache(cache).count() == before == 2 * 2 + 2 * 4  # two rows: 2 ratings + statements + 3 verdicts each
    assert estimate.metrics["context_relevance"].calls == 4 and estimate.metrics["context_relevance"].cache_hits == 4
    assert estimate.metrics["faithfulness"].calls == 8 and estimate.metrics["faithfulness"].cache_hits == 8


def test_seconds_and_price_come_from_the_measured_speed_and_the_config(tmp_path, speed_file):
    speed = JudgeSpeed(judge="script", measured_at="now", calls=9, overhead_seconds=0.5,
                       prompt_tokens_per_second=100.0, completion_tokens_per_second=10.0,
                       completion_tokens={"context_relevance.rating1": 5.0, "context_relevance.rating2": 5.0}, mean_completion_tokens=20.0)
    save_speed(judge().identity(), speed)
    cfg = config(tmp_path / "c.sqlite", metrics=["context_relevance"],
                 price_per_million={"prompt": 1.0, "completion": 2.0}, concurrency=2)
    estimate = asyncio.run(dry_run(cfg, data=ROWS, judge=judge()))
    m = estimate.metrics["context_relevance"]
    assert m.calls == 8 and m.expected_completion_tokens == 40
    assert m.seconds == pytest.approx((8 * 0.5 + m.prompt_tokens / 100 + 40 / 10) / 2)  # two in flight
    assert m.price == pytest.approx((m.prompt_tokens * 1 + 40 * 2) / 1e6)
    assert m.max_completion_tokens == 8 * 16  # context_relevance asks for 16 tokens at most
    assert m.max_price == pytest.approx((m.prompt_tokens * 1 + 8 * 16 * 2) / 1e6)
    assert estimate.total.seconds == pytest.approx(m.seconds) and "bench-judge" in estimate.speed


def test_the_run_reports_its_estimate_beside_the_actuals_once(tmp_path, speed_file):
    cfg = config(tmp_path / "c.sqlite", output=str(tmp_path / "out"))
    estimate = asyncio.run(dry_run(cfg, data=ROWS, judge=judge()))
    first = asyncio.run(run_config(cfg, data=ROWS, judge=judge()))
    reported = json.loads(first.manifest_path.read_text())["estimate"]
    assert reported["total"]["calls"] == estimate.total.calls == 24
    assert reported["actual"]["faithfulness"]["calls"] == reported["metrics"]["faithfulness"]["calls"] == 16
    again = asyncio.run(run_config(cfg, data=ROWS, judge=judge()))  # all cached: the old estimate is not shown
    assert again.manifest.get("estimate") is None


def test_an_http_judge_is_counted_by_estimate_offline():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens: a call would fail
    cfg = RunConfig(dataset="<in-memory>", metrics=["context_relevance"], cache=False,
                    judge=f"openai-compat:http://127.0.0.1:{port}/v1#m")
    estimate = asyncio.run(dry_run(cfg, data=ROWS))
    assert estimate.tokenizer == APPROXIMATE and estimate.metrics["context_relevance"].calls == 8
    assert "ragmeter bench-judge openai-compat:" in estimate.speed


def test_stand_in_replies_fit_the_schema_and_follow_the_example():
    schema = verdicts(3).model_json_schema()
    value = synthesize(schema, {"verdicts": [{"verdict": 1, "reason": "x" * 300}]})
    assert verdicts(3).model_validate(value)
    assert [v["verdict"] for v in value["verdicts"]] == [1, 1, 1] and len(value["verdicts"][0]["reason"]) == 100
    assert synthesize({"type": "array", "items": {"type": "string"}, "maxItems": 2}, ["a", "b", "c"]) == ["a", "b"]
    assert synthesize({"enum": [0, 1, 2]}, 7) == 0


def test_a_prepared_run_checks_everything_before_any_call(tmp_path):
    ready = prepare(config(tmp_path / "c.sqlite"), data=ROWS, judge=judge())
    assert [m.label for m in ready.metrics] == ["context_relevance", "faithfulness"] and len(ready.dataset) == 4


def test_bench_judge_fits_and_stores_the_speed(tmp_path, speed_file):
    def timed(request):
        prompt = sum(len(m["content"].split()) for m in request.messages)
        text = json.dumps({"rating": 2})
        return JudgeReply(text, prompt_tokens=prompt, completion_tokens=3 + prompt % 5,
                          seconds=0.2 + prompt / 400 + (3 + prompt % 5) / 20)

    scripted = ScriptedJudge(timed)
    rows = [{**row, "user_input": "Tell me " * i + row["user_input"]} for i, row in enumerate(ROWS)]
    speed, path = asyncio.run(bench_judge(scripted, rows, rows=4, metrics=["context_relevance"]))
    assert path == speed_file and speed.calls == 8
    assert speed.overhead_seconds == pytest.approx(0.2)
    assert speed.prompt_tokens_per_second == pytest.approx(400)
    assert speed.completion_tokens_per_second == pytest.approx(20)
    assert load_speed(scripted.identity()) == speed


def test_a_negative_fitted_term_is_dropped():
    # replies that take no time to write, and a little noise that makes their fitted cost negative
    calls = [CallTiming(tag="t", prompt_tokens=p, completion_tokens=c, seconds=1.0 + p / 100 - c / 10_000)
             for p, c in ((10, 5), (50, 30), (90, 10), (70, 40))]
    speed = fit("j", calls)
    assert speed.completion_tokens_per_second is None
    assert speed.prompt_tokens_per_second == pytest.approx(100, rel=0.05) and speed.overhead_seconds > 0.9


def test_the_cli_prints_the_estimate_and_writes_no_results(tmp_path, isolated_cache):
    from tests.cli.test_cli_config import cli

    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    proc = cli("evaluate", str(data), "--metrics", "context_relevance", "--judge", "openai-compat:http://127.0.0.1:9/v1#m",
               "--out", str(tmp_path / "out"), "--dry-run", "--price-per-million", "0.15,0.60")
    assert proc.returncode == 0, proc.stderr
    total = next(line for line in proc.stdout.splitlines() if "total" in line)
    assert "8" in total.split("│")[2] and "(max " in total  # 8 calls, priced
    assert "~3 characters per token" in proc.stdout and not (tmp_path / "out").exists()
    bad = cli("evaluate", str(data), "--dry-run", "--price-per-million", "cheap")
    assert bad.returncode != 0 and "--price-per-million cheap: expected PROMPT,COMPLETION" in bad.stderr


def test_the_python_api_estimates_like_the_cli(tmp_path):
    import ragmeter

    counting = judge()
    estimate = ragmeter.estimate(ROWS, ["context_relevance"], judge=counting, cache=tmp_path / "c.sqlite",
                                 price_per_million={"prompt": 2.0, "completion": 8.0})
    assert counting.requests == [] and estimate.metrics["context_relevance"].calls == 8
    assert estimate.total.max_price == pytest.approx((estimate.total.prompt_tokens * 2 + 8 * 16 * 8) / 1e6)
    assert "estimate" in dir(ragmeter)


@pytest.mark.parametrize("example", ["dataset.jsonl", "agents.jsonl"])
def test_every_judged_metrics_stand_in_replies_validate(example):
    """A stand-in that failed validation would be re-asked: a call the run would not make."""
    from pathlib import Path

    from ragmeter.cache import NullCache, OverlayCache
    from ragmeter.engine.local import run_metrics
    from ragmeter.run.dry_run import CountingJudge, NoEmbedder

    data = Path(__file__).resolve().parents[2] / "examples" / example
    ready = prepare(RunConfig(dataset=str(data), metrics=["applicable"], cache=False,
                              judge="openai-compat:http://127.0.0.1:9/v1#m",
                              embeddings="openai-compat:http://127.0.0.1:9/v1#e"))
    judged = [m for m in ready.metrics if m.uses_judge]
    assert len(judged) >= (17 if example == "dataset.jsonl" else 3)
    for metric in judged:
        counting = CountingJudge(ready.judge, ready.prompts)
        embedder = NoEmbedder(ready.embedder) if ready.embedder else None
        run = asyncio.run(run_metrics(ready.dataset, [metric], counting, embedder,
                                      OverlayCache(NullCache()), progress=False, prompts=ready.prompts))
        stats = run.stats[metric.label]
        assert (metric.label, stats.reasks, stats.unparseable) == (metric.label, 0, 0)
        assert counting.calls and stats.judge_calls == len(counting.calls)


def test_each_prompt_keeps_its_own_prefill_rate():
    """A prompt whose shared prefix is most of it reads faster per token: one rate for every
    prompt put the quickstart's context_relevance 62% over its actual seconds."""
    calls = [CallTiming(tag="fast", prompt_tokens=p, completion_tokens=c, seconds=p / 500 + c / 20)
             for p, c in ((800, 5), (1000, 10), (1200, 20), (900, 40))]
    calls += [CallTiming(tag="slow", prompt_tokens=p, completion_tokens=c, seconds=p / 100 + c / 20)
              for p, c in ((400, 5), (500, 10), (600, 20), (450, 40))]
    speed = fit("j", calls)
    assert speed.prompt_rate_by_tag["fast"] > 4 * speed.prompt_rate_by_tag["slow"]
    assert speed.seconds(1000, 10, "fast") < speed.seconds(1000, 10, "slow")
    assert speed.seconds(1000, 10, "unknown") == speed.seconds(1000, 10)  # the overall rate
