"""The estimate a run says before its first judge call (a new user waited through 34 minutes
before the first ETA), the bundled judges' shipped speeds, and progress text that fits 80
columns."""

from __future__ import annotations

import asyncio

import pytest

from ragmeter.engine.progress import Pace, _Lines
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.run.config import RunConfig
from ragmeter.run.execute import run_config
from ragmeter.run.judge_speed import JudgeSpeed, load_speed, save_speed

ROWS = [{"id": f"r{i}", "user_input": f"What is item {i}?", "response": f"Item {i} is red.",
         "retrieved_contexts": [f"Item {i} is a red thing."]} for i in range(12)]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def slow_speed(overhead: float) -> JudgeSpeed:
    return JudgeSpeed(judge="script", measured_at="2026-11-20T10:00:00+00:00", calls=9, overhead_seconds=overhead,
                      prompt_tokens_per_second=None, completion_tokens_per_second=None, completion_tokens={},
                      mean_completion_tokens=5.0)


def test_a_run_says_its_estimate_before_the_first_call(tmp_path, capsys):
    seen_at_first_call: list[str] = []

    def reply(request):
        if not seen_at_first_call:
            seen_at_first_call.append(capsys.readouterr().err)
        return {"rating": 2}

    judge = ScriptedJudge(reply)
    save_speed(judge.identity(), slow_speed(5.0))  # 5 s a call: 12 rows x 2 ratings = 2 minutes
    cfg = RunConfig(dataset="<in-memory>", metrics=["context_relevance"], judge="scripted", progress=True)
    result = asyncio.run(run_config(cfg, data=ROWS, judge=judge, write=False))
    assert result.manifest["metrics"]["context_relevance"]["judge_calls"] == 24
    # estimated from the first 8 rows, scaled to 12: 24 calls at 5 s
    said = " ".join(seen_at_first_call[0].split())
    assert "ragmeter: about 2m00s for 12 rows (24 judge calls at the speed bench-judge measured on 2026-11-20)" \
        in said


def test_a_short_run_or_an_unmeasured_judge_says_nothing(tmp_path, capsys):
    judge = ScriptedJudge({"context_relevance.rating1": {"rating": 2}, "context_relevance.rating2": {"rating": 2}})
    cfg = RunConfig(dataset="<in-memory>", metrics=["context_relevance"], judge="scripted", progress=True)
    asyncio.run(run_config(cfg, data=ROWS, judge=judge, write=False))  # no speed known
    save_speed(judge.identity(), slow_speed(0.5))  # 12 s in all: under a minute
    asyncio.run(run_config(cfg.model_copy(update={"cache": False}), data=ROWS, judge=judge, write=False))
    assert "about" not in capsys.readouterr().err


def test_the_bundled_judges_ship_a_measured_speed():
    from ragmeter.run.upfront import Upfront

    qwen = load_speed({"backend": "llamacpp", "model": "qwen-coder-1.5b==0.2.0"})
    gemma = load_speed({"backend": "llamacpp", "model": "gemma-270m==1.0"})
    assert qwen is not None and gemma is not None and qwen.source == "shipped"
    assert 50 < qwen.prompt_tokens_per_second < gemma.prompt_tokens_per_second  # Gemma is the smaller model
    assert load_speed({"backend": "llamacpp", "model": "/models/mine.gguf"}) is None
    assert load_speed({"backend": "openai-compat", "model": "qwen-coder-1.5b==0.2.0"}) is None
    line = Upfront(2040.0, 212, 4, qwen).line()
    assert line == ("about 34m00s for 4 rows (212 judge calls at the bundled judge's speed on a 2-core x86-64 "
                    "CPU; `ragmeter bench-judge` measures this machine's)")


def test_the_eta_counts_the_estimate_down_until_the_first_row():
    clock = Clock()
    pace = Pace(4, "rows", lambda: "13 judge calls", clock, expected=2040.0)
    clock.now += 240
    assert pace.text() == "0/4 rows · 13 judge calls · elapsed 4m00s · ETA ~30m00s (estimate)"  # was: after the first
    clock.now += 2000
    assert pace.text().endswith("over the 34m00s estimate")
    pace.advance(1)
    assert pace.text().endswith("2240 s/row · elapsed 37m20s · ETA 1h52m")  # the run's own pace from then on
    assert Pace(10, "questions", clock=clock).text() == "0/10 questions · elapsed 0s · ETA after the first question"


@pytest.mark.parametrize("width", [80, 100])
def test_progress_lines_fit_80_columns_keeping_rows_and_eta(width):
    clock = Clock()
    pace = Pace(100_000, "rows", lambda: "1,234,567 judge calls (987,654 cached)", clock)
    pace.advance(12_345.5)
    clock.now += 45_000
    line = _Lines(pace, 30, None).line()  # type: ignore[arg-type]
    assert len(line) <= 80  # was 82-86 characters on a small run
    assert line.startswith("ragmeter: 12345.5/100000 rows") and "ETA " in line
    assert pace.text(width) == pace.text(width)  # the same inputs, the same text
    short = Pace(4, "rows", lambda: "13 judge calls (5 cached)", clock)
    short.advance(1.8)
    clock.now += 30
    assert len(_Lines(short, 30, None).line()) <= 80  # type: ignore[arg-type]


def test_a_resumed_run_estimates_and_paces_the_rows_still_to_judge(tmp_path, capsys):
    """Issue 50: a resumed run's first 8 rows are cached, so the estimate from them said
    nothing ('over the 0s estimate'). Issue 65 item 7: looking past the first judged rows
    undercounted a run stopped with rows in flight and said nothing on a second resume; the
    sample is now spread over the whole dataset."""
    judge = ScriptedJudge(lambda request: {"rating": 2})
    save_speed(judge.identity(), slow_speed(5.0))
    cache = str(tmp_path / "c.sqlite")
    cfg = RunConfig(dataset="<in-memory>", metrics=["context_relevance"], judge="scripted", progress=False,
                    cache=cache)
    rows = [{**ROWS[0], "id": f"r{i}", "user_input": f"What is item {i}?"} for i in range(36)]
    asyncio.run(run_config(cfg, data=rows[:9], judge=judge, write=False))  # the first 9 rows judged, then stopped
    capsys.readouterr()
    asyncio.run(run_config(cfg.model_copy(update={"progress": True}), data=rows, judge=judge, write=False))
    said = " ".join(capsys.readouterr().err.split())
    # 32 of the 36 rows sampled, 8 of them cached: 48 calls, scaled to 36 rows: 54 calls (the run makes 54), 4m30s
    assert "about 4m30s for the 27 rows still to judge (9 cached) (54 judge calls at the speed" in said


def test_a_second_resume_still_estimates_the_rows_left(tmp_path, capsys):
    judge = ScriptedJudge(lambda request: {"rating": 2})
    save_speed(judge.identity(), slow_speed(5.0))
    cfg = RunConfig(dataset="<in-memory>", metrics=["context_relevance"], judge="scripted", progress=False,
                    cache=str(tmp_path / "c.sqlite"))
    rows = [{**ROWS[0], "id": f"r{i}", "user_input": f"What is item {i}?"} for i in range(1200)]
    asyncio.run(run_config(cfg, data=rows[:600], judge=judge, write=False))  # was: past SCAN_ROWS, no estimate
    capsys.readouterr()
    asyncio.run(run_config(cfg.model_copy(update={"progress": True}), data=rows[:700], judge=judge, write=False))
    said = " ".join(capsys.readouterr().err.split())
    # rows 0-599 cached: 28 of the 32 sampled rows (every 21.875th) fall there, 4 after: 8 calls, scaled: 175
    assert "about 14m35s for the 88 rows still to judge (612 cached) (175 judge calls" in said


def test_the_pace_counts_rows_that_needed_the_judge_and_switches_to_measured_calls():
    clock, made = Clock(), [0]
    pace = Pace(100, "rows", None, clock, expected=60.0, calls=lambda: made[0], expected_calls=200)
    pace.advance(50)  # a resumed run's cached rows: a burst, no judge call
    clock.now += 1
    assert pace.text().endswith("ETA ~59s (estimate)")  # not 1 s for 50 rows
    made[0] = 4  # four calls answered on a machine slower than the measured one: 10 s each
    clock.now += 39
    assert pace.text().endswith("ETA ~32m40s")  # 196 calls left at 10 s, not the estimate's 20 s left
    made[0] = 10
    clock.now += 60
    pace.advance(1)
    assert pace.text().endswith("100 s/row · elapsed 1m40s · ETA 1h21m")  # 49 rows left at 100 s a judged row
    cached = Pace(10, "rows", None, clock, calls=lambda: 0)
    cached.advance(5)
    clock.now += 5
    assert cached.text().endswith("ETA 5s")  # a re-run with every reply cached: its own pace


def test_the_speed_learns_the_pace_this_machine_runs_at():
    """Issue 64 item 1: estimates assumed an idle machine and never learned (16 s said for
    3m35s measured on a loaded one). Each in-process run now folds its calls' seconds against
    the record's prediction into the record's pace, which every estimate multiplies by."""
    from ragmeter.accounting import MetricStats
    from ragmeter.run.judge_speed import learn, learn_from

    identity = {"backend": "llamacpp", "model": "/models/mine.gguf"}
    speed = JudgeSpeed(judge="mine", measured_at="2026-11-20T10:00:00+00:00", calls=9, overhead_seconds=1.0,
                       prompt_tokens_per_second=100.0, completion_tokens_per_second=10.0, completion_tokens={},
                       mean_completion_tokens=5.0)
    save_speed(identity, speed)
    assert speed.seconds(200, 10) == 4.0  # 1 + 2 + 1
    run = MetricStats(judge_calls=6, prompt_tokens=1200, completion_tokens=60, judge_seconds=72.0)  # 3x slower
    assert learn(identity, {"context_relevance.rating1": run}).pace == 3.0
    assert load_speed(identity).seconds(200, 10) == 12.0 and load_speed(identity).learned_runs == 1
    quiet = MetricStats(judge_calls=6, prompt_tokens=1200, completion_tokens=60, judge_seconds=24.0)
    # half the weight to the newest run
    assert learn(identity, {"context_relevance.rating1": quiet}).pace == pytest.approx(3 ** 0.5, abs=1e-3)
    assert learn(identity, {"t": MetricStats(judge_calls=2, prompt_tokens=10, completion_tokens=1,
                                             judge_seconds=9.0)}) is None  # too few calls to say
    # a prompt read at its own rate is predicted at it, as the dry run predicts it: 6 x (200/400 + 10/10)
    tagged = {"backend": "llamacpp", "model": "/models/tagged.gguf"}
    save_speed(tagged, speed.model_copy(update={"prompt_rate_by_tag": {"fast": 400.0}}))
    fast = MetricStats(judge_calls=6, prompt_tokens=1200, completion_tokens=60, judge_seconds=18.0)
    assert learn(tagged, {"fast": fast}).pace == 2.0  # 18 s against 9 predicted (24 at the overall rate)
    server = ScriptedJudge(lambda request: {})  # answers many calls at once: its call seconds are not its speed
    assert learn_from(server, {"t": run}) is None


def test_a_run_beside_other_work_does_not_teach_that_the_judge_is_slow():
    """Issue 76 item 2: after one run beside other work a quiet quickstart was estimated at
    5m39s and took 2m57s. The calls' seconds count at the share of the machine they had
    (process CPU over wall times threads), as a quiet machine would have taken them."""
    from ragmeter.accounting import MetricStats
    from ragmeter.run.judge_speed import learn, learn_from

    identity = {"backend": "llamacpp", "model": "/models/shared.gguf"}
    save_speed(identity, JudgeSpeed(judge="m", measured_at="2026-11-20T10:00:00+00:00", calls=9, overhead_seconds=1.0,
                                    prompt_tokens_per_second=100.0, completion_tokens_per_second=10.0,
                                    completion_tokens={}, mean_completion_tokens=5.0))
    loaded = MetricStats(judge_calls=6, prompt_tokens=1200, completion_tokens=60, judge_seconds=48.0)  # 2x wall
    assert learn(identity, {"t": loaded}, share=0.5).pace == 1.0  # it had half the machine: the judge is as fast
    assert "in 1 run(s), 1.00x" in load_speed(identity).said()

    class Shared(ScriptedJudge):
        backend = "llamacpp"

        def machine_share(self) -> float | None:
            return 0.25

    judge = Shared(lambda request: {})
    judge.identity = lambda: identity  # type: ignore[method-assign]
    assert learn_from(judge, {"t": loaded}).pace == pytest.approx(2 ** -0.5, abs=1e-3)  # 48 x 0.25 = 12 of 24


@pytest.mark.parametrize("pace", ["fast", 0, -2.0])
def test_a_speed_record_that_is_not_a_speed_is_ignored_with_one_warning(tmp_path, pace):
    """Issue 77 item 10: a judge-speed.json whose pace was a string was a traceback in every
    run and dry run (and a pace of 0 one in math.log when a run learned). The record is
    ignored with one warning naming the file and the field; the run goes on without it."""
    import json
    import logging

    from ragmeter.run.judge_speed import speed_file

    judge = ScriptedJudge({"context_relevance.rating1": {"rating": 2}, "context_relevance.rating2": {"rating": 2}})
    save_speed(judge.identity(), slow_speed(5.0))
    records = json.loads(speed_file().read_text())
    for record in records.values():
        record["pace"] = pace
    speed_file().write_text(json.dumps(records))
    said: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: said.append(record.getMessage())  # type: ignore[method-assign]
    logging.getLogger("ragmeter").addHandler(handler)
    try:
        assert load_speed(judge.identity()) is None
        cfg = RunConfig(dataset="<in-memory>", metrics=["context_relevance"], judge="scripted", progress=True)
        result = asyncio.run(run_config(cfg, data=ROWS, judge=judge, write=False))
    finally:
        logging.getLogger("ragmeter").removeHandler(handler)
    assert result.manifest["metrics"]["context_relevance"]["judge_calls"] == 24
    assert len(said) == 1 and said[0].startswith(f"{speed_file()}: this judge's record is not a speed (pace: ")
    assert said[0].endswith("): ignored; `ragmeter bench-judge` measures it again")
