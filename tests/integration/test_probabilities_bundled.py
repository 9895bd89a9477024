"""Label probabilities on the real bundled judges: valid distributions, a supported claim
above an unsupported one, and a cached re-run that reproduces them exactly."""

from __future__ import annotations

import pytest

import ragmeter
from tests.integration.conftest import GEMMA

pytestmark = pytest.mark.integration

QWEN = "llamacpp:qwen-coder-1.5b"
CONTEXT = ["The Eiffel Tower is a wrought-iron lattice tower in Paris, France, completed in 1889."]
ROWS = [{"id": "supported", "user_input": "Where is the Eiffel Tower?", "response": "The Eiffel Tower is in Paris.",
         "retrieved_contexts": CONTEXT},
        {"id": "unsupported", "user_input": "Where is the Eiffel Tower?",
         "response": "The Eiffel Tower is in Rome and was built in 1650.", "retrieved_contexts": CONTEXT}]
METRICS = ["faithfulness", "context_relevance"]


@pytest.mark.parametrize("judge", [GEMMA, QWEN])
def test_probabilities_are_distributions_ordered_and_cached(judge, tmp_path):
    cache = tmp_path / "c.sqlite"
    first = ragmeter.evaluate(ROWS, METRICS, judge=judge, cache=cache, progress=False)
    for row in first.rows:
        statement = row["faithfulness_evidence"]["statements"][0]
        assert 0.0 <= statement["p_supported"] <= 1.0
        assert row["faithfulness"] == pytest.approx(statement["p_supported"], abs=1e-4)
        for probs in row["context_relevance_evidence"]["rating_probs"]:
            assert set(probs) == {"0", "1", "2"}
            assert all(0.0 <= p <= 1.0 for p in probs.values())
            assert sum(probs.values()) == pytest.approx(1.0, abs=1e-3)
        assert row["faithfulness_evidence"]["judgment"] == "probability"
    supported, unsupported = first.rows
    assert supported["faithfulness"] > unsupported["faithfulness"]
    assert first.manifest["metrics"]["faithfulness"]["judgment"] == {"probability": 2}

    again = ragmeter.evaluate(ROWS, METRICS, judge=judge, cache=cache, progress=False)
    assert sum(m["judge_calls"] for m in again.manifest["metrics"].values()) == 0
    for a, b in zip(first.rows, again.rows):
        for metric in METRICS:
            assert a[metric] == b[metric] and a[f"{metric}_evidence"] == b[f"{metric}_evidence"]

    labels = ragmeter.evaluate(ROWS, [{"faithfulness": {"judgment": "label"}}], judge=judge, cache=cache,
                               progress=False)
    assert labels.manifest["metrics"]["faithfulness"]["judge_calls"] == 0  # same replies, read as labels
    assert [r["faithfulness"] for r in labels.rows] == [
        float(r["faithfulness_evidence"]["statements"][0]["verdict"]) for r in first.rows]


def test_instruct_judge_separates_the_claims_clearly(tmp_path):
    rows = ragmeter.evaluate(ROWS, ["faithfulness"], judge=QWEN, cache=tmp_path / "c.sqlite", progress=False).rows
    assert rows[0]["faithfulness"] > 0.9 and rows[1]["faithfulness"] < 0.1
