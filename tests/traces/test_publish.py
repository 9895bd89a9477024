"""What `ragmeter publish` sends for each row and metric (Phoenix replaced by a recorder; the
real server is in test_phoenix.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragmeter.errors import ConfigError, DataError
from ragmeter.testing import write_run
from ragmeter.traces import publish as publish_module
from tests.cli_runner import run_cli


class Recorder:
    sent: list[dict] = []

    def __init__(self, url: str) -> None:
        self.url = url

    def annotate(self, annotations: list[dict]) -> int:
        Recorder.sent = annotations
        return len(annotations)


@pytest.fixture
def recorder(monkeypatch):
    Recorder.sent = []
    monkeypatch.setattr(publish_module, "Phoenix", Recorder)
    return Recorder


def traced_run(folder: Path) -> Path:
    rows = [{"id": f"t{i}", "user_input": "q?", "response": "a.", "retrieved_contexts": ["c."],
             **({"span_id": f"{i:016x}"} if i < 3 else {})} for i in range(4)]
    return write_run(folder, {"faithfulness": [0.9, 0.2, None, 0.7], "noise": [0.1, 0.6, 0.3, 0.0]},
                     ids=[r["id"] for r in rows], rows=rows, higher_is_better={"noise": False})


def test_each_scored_row_and_metric_is_one_annotation_labelled_by_the_bars(tmp_path: Path, recorder):
    done = publish_module.publish_run(traced_run(tmp_path / "run"), "phoenix:http://127.0.0.1:6006",
                                      bars={"faithfulness": 0.5, "noise": 0.5})
    assert (done.annotations, done.rows, done.without_span, done.unscored) == (5, 3, 1, 1)
    sent = {(a["span_id"], a["name"]): a for a in recorder.sent}
    assert set(sent) == {("0000000000000000", "faithfulness"), ("0000000000000001", "faithfulness"),
                         ("0000000000000000", "noise"), ("0000000000000001", "noise"), ("0000000000000002", "noise")}
    assert sent["0000000000000000", "faithfulness"]["result"] == {
        "score": 0.9, "label": "pass", "explanation": "faithfulness reason t0"}
    assert sent["0000000000000001", "faithfulness"]["result"]["label"] == "fail"
    # lower is better for noise: 0.1 passes a bar of 0.5, 0.6 fails it
    assert [sent[f"000000000000000{i}", "noise"]["result"]["label"] for i in range(3)] == ["pass", "fail", "pass"]
    assert {a["identifier"] for a in recorder.sent} == {"ragmeter"}
    assert sent["0000000000000000", "faithfulness"]["metadata"]["row_id"] == "t0"


def test_no_bar_no_label_and_long_reasons_are_cut_at_a_word(tmp_path: Path, recorder):
    run = traced_run(tmp_path / "run")
    publish_module.publish_run(run, "phoenix:http://127.0.0.1:6006", metrics=["faithfulness"], identifier="judge-b")
    assert all("label" not in a["result"] and a["identifier"] == "judge-b" for a in recorder.sent)
    long = "word " * 1000
    assert publish_module._cut(long).endswith("word …") and len(publish_module._cut(long)) <= 2002


def test_a_run_not_over_traces_an_unknown_metric_or_a_bad_address_is_refused(tmp_path: Path, recorder):
    plain = write_run(tmp_path / "plain", {"faithfulness": [0.5, 0.6]})
    with pytest.raises(DataError, match="no row has a span_id: publish needs a run over traces"):
        publish_module.publish_run(plain, "phoenix:http://127.0.0.1:6006")
    with pytest.raises(ConfigError, match="--metrics: recall not in the run"):
        publish_module.publish_run(traced_run(tmp_path / "run"), "phoenix:http://h:1", metrics=["recall"])
    assert recorder.sent == []
    done = run_cli("publish", str(tmp_path / "run"), "--to", "http://127.0.0.1:6006")
    assert done.returncode == 2 and "written phoenix:http://HOST:PORT" in done.stderr
