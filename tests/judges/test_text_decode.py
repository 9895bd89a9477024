"""Which replies have their JSON written by ragmeter and only their text sampled (the model
part: test_probabilities_bundled.py)."""

from __future__ import annotations

from ragmeter.judges.llamacpp.texts import Part, text_plan
from ragmeter.metrics.schemas import Rating, entities, labelled, questions, statements, verdicts


def test_bounded_text_lists_and_small_int_labels_are_written():
    assert text_plan(questions(3).model_json_schema()) == (
        Part("questions", (), 3, 3, 150), Part("noncommittal", ("0", "1")))
    assert text_plan(statements(6).model_json_schema()) == (Part("statements", (), 0, 6, 150),)
    assert text_plan(entities(15).model_json_schema()) == (Part("entities", (), 0, 15, 80),)


def test_other_shapes_are_decoded_under_the_grammar():
    assert text_plan(verdicts(2).model_json_schema()) is None  # verdicts.py's
    assert text_plan(Rating.model_json_schema()) is None  # a label alone: read_label
    assert text_plan(labelled(("yes", "no")).model_json_schema()) is None  # a string label
    assert text_plan({"properties": {"items": {"type": "array", "items": {"type": "string"}}}}) is None  # unbounded
    assert text_plan(None) is None
