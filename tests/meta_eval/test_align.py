"""`ragmeter align` with a scripted judge whose verdicts follow the examples it is shown."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

import ragmeter
from ragmeter.errors import ConfigError, DataError
from ragmeter.judges.base import JudgeRequest
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.meta_eval.align import align, stratified_folds

COLOURS = ("red", "green")
WORD = re.compile(r"\b(" + "|".join(COLOURS) + r")\b")


def follower(request: JudgeRequest) -> dict:
    """Says 1 unless an example shows the row's colour: then it says what that example said.
    Without examples it cannot tell the rows apart (every score 1: ROC-AUC 0.5)."""
    messages = request.messages
    colour = WORD.search(messages[-1]["content"])
    verdict = 1
    for asked, said in zip(messages[1:-1:2], messages[2:-1:2]):
        shown = WORD.search(asked["content"])
        if colour and shown and shown.group(1) == colour.group(1):
            verdict = json.loads(said["content"])["verdicts"][0]["verdict"]
    return {"verdicts": [{"verdict": verdict, "reason": ""}]}


def make_run(tmp_path: Path, rows: int = 60) -> tuple[Path, list[dict]]:
    data = [{"id": f"r{i:02d}", "user_input": f"What does report {i} say about the lamp?",
             "response": f"Report {i} says the lamp in the hall turned {COLOURS[i % 2]} at night.",
             "retrieved_contexts": [f"Report {i}: the lamp in the hall turned {COLOURS[i % 2]} at night."]}
            for i in range(rows)]
    dataset = tmp_path / "rows.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in data), encoding="utf-8")
    ragmeter.evaluate(dataset, ["faithfulness"], judge=ScriptedJudge(follower), out=tmp_path / "run",
                      cache=str(tmp_path / "cache.sqlite"), progress=False)
    return tmp_path / "run", data


def write_labels(path: Path, labels: dict[str, int], metric: str = "faithfulness") -> Path:
    path.write_text("".join(json.dumps({"id": i, "metric": metric, "label": y}) + "\n" for i, y in labels.items()),
                    encoding="utf-8")
    return path


def test_examples_that_teach_the_judge_raise_its_held_out_agreement(tmp_path):
    run, data = make_run(tmp_path)
    # people: a red lamp is what the reports are about (1), a green one not (0)
    labels = write_labels(tmp_path / "labels.jsonl", {r["id"]: int("red" in r["response"]) for r in data})
    result = align(run, labels, "faithfulness", judge=ScriptedJudge(follower), out=tmp_path / "aligned")
    assert result.before["roc_auc"].value == 0.5
    assert result.after["roc_auc"].value == 1.0
    assert result.improved and result.difference.ci95[0] > 0
    assert result.examples == 4 and len(result.chosen["verdicts"]) == 4
    written = json.loads((tmp_path / "aligned" / "faithfulness.verdicts.english.json").read_text())
    shown = [(WORD.search(e["input"]["statements"][0]).group(1), e["output"]["verdicts"][0]["verdict"])
             for e in written["examples"]]
    assert sorted(c for c, _ in shown) == ["green", "green", "red", "red"]  # balanced, and what people said
    assert all(v == (c == "red") for c, v in shown)
    assert written["aligned"]["labels_sha256"] == result.labels_sha256
    assert json.loads((tmp_path / "aligned" / "align.json").read_text())["improved"] is True
    # the written folder is a prompts folder a run takes
    again = ragmeter.evaluate(tmp_path / "rows.jsonl", ["faithfulness"], judge=ScriptedJudge(follower),
                              prompts_dir=str(tmp_path / "aligned"), cache=False, progress=False)
    said = {r["id"]: r["faithfulness"] for r in again.rows}
    assert all(said[r["id"]] == int("red" in r["response"]) for r in data)


def test_random_labels_report_no_improvement_and_write_nothing(tmp_path):
    run, data = make_run(tmp_path)
    rng = random.Random(0)
    labels = write_labels(tmp_path / "labels.jsonl", {r["id"]: rng.randint(0, 1) for r in data})
    result = align(run, labels, "faithfulness", judge=ScriptedJudge(follower), out=tmp_path / "aligned")
    assert not result.improved and result.written == []
    assert result.difference.ci95[0] <= 0
    assert not (tmp_path / "aligned").exists()
    forced = align(run, labels, "faithfulness", judge=ScriptedJudge(follower), out=tmp_path / "aligned", force=True)
    assert (tmp_path / "aligned" / "align.json").is_file() and forced.written


def test_bad_inputs_are_refused_before_any_judge_call(tmp_path):
    run, data = make_run(tmp_path)
    judge = ScriptedJudge(follower)
    few = write_labels(tmp_path / "few.jsonl", {r["id"]: 1 for r in data[:29]})
    with pytest.raises(DataError, match="29 labelled rows for faithfulness: align needs at least 30"):
        align(run, few, "faithfulness", judge=judge)
    stranger = write_labels(tmp_path / "stranger.jsonl", {**{r["id"]: 1 for r in data}, "nope-1": 0})
    with pytest.raises(DataError, match="labels for 1 rows the run does not have: nope-1"):
        align(run, stranger, "faithfulness", judge=judge)
    with pytest.raises(ConfigError, match="metric 'context_recall' is not in the run"):
        align(run, few, "context_recall", judge=judge)
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps({"id": r["id"], "metric": "faithfulness", "label": 1,
                                         "dataset_sha256": "0" * 64}) + "\n" for r in data))
    with pytest.raises(DataError, match="labelled on another dataset"):
        align(run, other, "faithfulness", judge=judge)
    ragmeter.evaluate(data, ["faithfulness"], judge=ScriptedJudge(follower), out=tmp_path / "memory", cache=False,
                      progress=False)
    with pytest.raises(DataError, match="made from rows in memory"):
        align(tmp_path / "memory", few, "faithfulness", judge=judge)
    assert judge.requests == []


def test_a_metric_without_a_prompt_is_refused(tmp_path):
    dataset = tmp_path / "rows.jsonl"
    dataset.write_text("".join(json.dumps({"id": f"r{i}", "response": "a b", "reference": "a c"}) + "\n"
                               for i in range(40)))
    ragmeter.evaluate(dataset, ["rouge"], out=tmp_path / "run", cache=False, progress=False)
    labels = write_labels(tmp_path / "l.jsonl", {f"r{i}": i % 2 for i in range(40)}, "rouge")
    with pytest.raises(ConfigError, match="rouge sends no judge prompt"):
        align(tmp_path / "run", labels, "rouge", judge=ScriptedJudge(follower))


def test_folds_spread_each_label_evenly():
    labels = [1.0] * 12 + [0.0] * 8
    assigned = stratified_folds(labels, 4, seed=1)
    assert sorted(assigned[:12].count(f) for f in range(4)) == [3, 3, 3, 3]
    assert sorted(assigned[12:].count(f) for f in range(4)) == [2, 2, 2, 2]


def test_random_labels_rarely_pass_for_an_improvement(tmp_path):
    """Labels that have nothing to do with the rows: the interval of the difference should
    exclude 0 about 2.5% of the time (one-sided); 60 label sets gave 3, here at most 2 of 20."""
    run, data = make_run(tmp_path)
    passed = 0
    for seed in range(20):
        rng = random.Random(100 + seed)
        labels = write_labels(tmp_path / f"random{seed}.jsonl", {r["id"]: rng.randint(0, 1) for r in data})
        passed += align(run, labels, "faithfulness", judge=ScriptedJudge(follower)).improved
    assert passed <= 2


def test_the_command_refuses_a_metric_the_run_lacks_in_one_line(tmp_path):
    from tests.cli_runner import run_cli

    run, data = make_run(tmp_path, rows=4)
    labels = write_labels(tmp_path / "labels.jsonl", {r["id"]: 1 for r in data}, "context_recall")
    done = run_cli("align", str(run), str(labels), "--metric", "context_recall")
    assert done.returncode == 2
    assert "metric 'context_recall' is not in the run (its metrics: faithfulness)" in done.stderr


def test_the_printed_result_says_what_was_measured_and_written(tmp_path):
    from rich.console import Console

    from ragmeter.meta_eval.agreement import Measure
    from ragmeter.meta_eval.align import AlignResult, print_align

    m = Measure(value=0.7, ci95=(0.6, 0.8), n=40)
    result = AlignResult(run="r", labels="l.jsonl", labels_sha256="0" * 64, metric="faithfulness", judge="j",
                         kind="binary", rows=40, folds=5, examples=4, primary="roc_auc", before={"roc_auc": m},
                         after={"roc_auc": Measure(value=0.9, ci95=(0.8, 0.97), n=40)},
                         difference=Measure(value=0.2, ci95=(0.05, 0.3), n=40), improved=True, threshold=0.41,
                         chosen={"verdicts": ["a"]}, written=[], judge_calls=3, seconds=1.0, notes=[])
    console = Console(record=True, width=160)
    print_align(result, console)
    text = console.export_text()
    assert "0.700 [0.600, 0.800]" in text and "0.900 [0.800, 0.970]" in text and "0.200 [0.050, 0.300]" in text
    assert "threshold 0.410" in text
    result.improved = False
    console = Console(record=True, width=160)
    print_align(result, console)
    assert "nothing written (--force writes it anyway)" in console.export_text()


def test_a_label_becomes_the_reply_it_implies():
    from ragmeter.meta_eval.examples import Call, example_of
    from ragmeter.metrics import get_metric

    faithfulness = get_metric("faithfulness")
    one = Call("verdicts", {"contexts": ["c"], "statements": ["s"]}, {"verdicts": [{"verdict": 1, "reason": "r"}]})
    assert example_of(faithfulness, one, 0.0).output == {"verdicts": [{"verdict": 0, "reason": ""}]}
    assert example_of(faithfulness, one, 1.0).output == {"verdicts": [{"verdict": 1, "reason": "r"}]}
    two = Call("verdicts", {"contexts": ["c"], "statements": ["s", "t"]},
               {"verdicts": [{"verdict": 1, "reason": ""}, {"verdict": 1, "reason": ""}]})
    assert example_of(faithfulness, two, 0.0) is None  # which of the two failed is not known
    assert example_of(faithfulness, two, 1.0) is not None
    named = Call("verdicts", two.inputs, {"verdicts": [{"verdict": 1, "reason": ""}, {"verdict": 0, "reason": "x"}]})
    assert example_of(faithfulness, named, 0.0).output == named.reply
    rating = Call("rating1", {"question": "q", "context": "c"}, {"rating": 1})
    relevance = get_metric("context_relevance")
    assert [example_of(relevance, rating, y).output for y in (0.0, 0.5, 1.0)] == \
        [{"rating": 0}, {"rating": 1}, {"rating": 2}]


def test_a_prompt_file_align_did_not_write_is_never_replaced(tmp_path):
    run, data = make_run(tmp_path)
    labels = write_labels(tmp_path / "labels.jsonl", {r["id"]: int("red" in r["response"]) for r in data})
    mine = tmp_path / "aligned" / "faithfulness.verdicts.english.json"
    mine.parent.mkdir()
    mine.write_text("{}")
    with pytest.raises(ConfigError, match="was not written by `ragmeter align`"):
        align(run, labels, "faithfulness", judge=ScriptedJudge(follower), out=tmp_path / "aligned")
    assert mine.read_text() == "{}"
    mine.unlink()
    align(run, labels, "faithfulness", judge=ScriptedJudge(follower), out=tmp_path / "aligned")
    again = align(run, labels, "faithfulness", judge=ScriptedJudge(follower), out=tmp_path / "aligned", seed=5)
    assert str(mine) in again.written and "aligned" in json.loads(mine.read_text())  # its own file: replaced


def _counting(calls: list[int]):
    def judge(request: JudgeRequest) -> dict:
        calls.append(1)
        return follower(request)
    return ScriptedJudge(judge)


def test_a_bad_out_is_refused_before_any_judge_call(tmp_path):
    """Issue 50: a file, /dev/null, a folder holding the user's own prompt file or align.json,
    or an align.json symlinked elsewhere each cost every judge call, then exit 2 (or replaced
    the user's file, or wrote through the link)."""
    run, data = make_run(tmp_path)
    labels = write_labels(tmp_path / "labels.jsonl", {r["id"]: int("red" in r["response"]) for r in data})
    (tmp_path / "a_file").write_text("mine")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "faithfulness.verdicts.english.json").write_text('{"metric": "faithfulness"}')
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "align.json").write_text('{"my": "notes"}')
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "align.json").symlink_to(tmp_path / "outside.json")
    calls: list[int] = []
    for out, said in ((tmp_path / "a_file", "is not a folder"), (Path("/dev/null"), "is not a folder"),
                      (mine, "was not written by `ragmeter align`"), (theirs, "was not written by `ragmeter align`"),
                      (linked, "is a symbolic link")):
        with pytest.raises(ConfigError, match=re.escape(said)):
            align(run, labels, "faithfulness", judge=_counting(calls), out=out)
    assert calls == [] and not (tmp_path / "outside.json").exists()
    assert (theirs / "align.json").read_text() == '{"my": "notes"}'


def test_a_finished_align_has_every_reply_cached(tmp_path):
    """Issue 50: align exited without flushing the cache (a re-run repeated 5-7 of 80 calls)
    or closing its judge (aiohttp's 'Unclosed client session')."""
    run, data = make_run(tmp_path)
    labels = write_labels(tmp_path / "labels.jsonl", {r["id"]: int("red" in r["response"]) for r in data})
    first: list[int] = []
    align(run, labels, "faithfulness", judge=_counting(first), out=tmp_path / "aligned")
    again: list[int] = []
    align(run, labels, "faithfulness", judge=_counting(again), out=tmp_path / "aligned")
    assert first and again == []


def test_a_flaky_judge_does_not_stop_align(tmp_path, monkeypatch):
    """Issue 50: align stopped at the first call that failed its retries; a row's failed call
    is now tried again once the others are done, as in a run."""
    from ragmeter.errors import TransientJudgeError
    from ragmeter.judges import retry

    async def no_sleep(seconds: float) -> None:
        return None

    monkeypatch.setattr(retry.asyncio, "sleep", no_sleep)
    run, data = make_run(tmp_path)
    labels = write_labels(tmp_path / "labels.jsonl", {r["id"]: int("red" in r["response"]) for r in data})
    failures = [0]

    def flaky(request: JudgeRequest) -> dict:
        if "Report 7 " in request.messages[-1]["content"] and len(request.messages) > 2 and failures[0] < 4:
            failures[0] += 1  # the first aligned prompt's call for row 7, and its 3 retries
            raise TransientJudgeError("HTTP 503 from the judge", status=503)
        return follower(request)

    result = align(run, labels, "faithfulness", judge=ScriptedJudge(flaky), out=tmp_path / "aligned")
    assert failures[0] == 4 and result.after["roc_auc"].value == 1.0 and not result.notes


def test_a_reply_of_the_wrong_schema_leaves_its_row_unscored_and_align_finishes(tmp_path):
    """Issue 77 item 8: one reply that did not match its schema stopped align (exit 2, a usage
    code) where evaluate asks again and, failing again, leaves that row unscored. Align now
    does the same: asked again, then the row is left out of the measures with a note."""
    run, data = make_run(tmp_path)
    labels = write_labels(tmp_path / "labels.jsonl", {r["id"]: int("red" in r["response"]) for r in data})
    asked = {"once": 0, "always": 0}

    def wrong(request: JudgeRequest) -> dict:
        from dataclasses import replace

        messages = request.messages
        again = "That reply was invalid" in messages[-1]["content"]  # the session asking again
        own = messages[-3 if again else -1]["content"]  # the row's own prompt
        aligned = len(messages) > (4 if again else 2)  # with examples: a prompt align made
        if aligned and "Report 7 " in own:  # always the wrong schema, asked again too
            asked["always"] += 1
            return {"verdict": "yes"}
        if aligned and "Report 3 " in own and not again and not asked["once"]:  # once, then right
            asked["once"] += 1
            return {"verdict": "yes"}
        return follower(replace(request, messages=messages[:-2]) if again else request)

    result = align(run, labels, "faithfulness", judge=ScriptedJudge(wrong), out=tmp_path / "aligned")
    assert asked["once"] == 1 and asked["always"] == 2
    assert result.notes == ["1 labelled rows unscored by one of the prompts (left out)"]
    assert result.after["roc_auc"].value == 1.0
