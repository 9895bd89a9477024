"""The verdict-list reader's pieces that need no model: which schemas it reads, and how a
reason's text is cut at its closing quote (the model parts: test_probabilities_bundled.py)."""

from __future__ import annotations

from ragmeter.judges.llamacpp.verdicts import closing_quote, string_content, verdict_count
from ragmeter.metrics.schemas import Rating, statements, verdicts


def test_only_fixed_verdict_lists_are_read_from_logits():
    assert verdict_count(verdicts(3).model_json_schema()) == 3
    assert verdict_count(verdicts(1).model_json_schema()) == 1
    assert verdict_count(statements(5).model_json_schema()) is None  # free text: decoded
    assert verdict_count(Rating.model_json_schema()) is None
    assert verdict_count(None) is None


def test_a_reason_ends_at_its_unescaped_quote():
    assert closing_quote('The context says \\"Paris\\". "}, {') == 28
    assert closing_quote("no end yet") is None
    assert string_content('says \\"Paris\\"\\n twice') == 'says "Paris" twice'
    assert len(string_content("x" * 300)) == 100


def test_a_single_rating_field_is_read_too():
    from ragmeter.judges.llamacpp.verdicts import label_field

    assert label_field(Rating.model_json_schema()) == ("rating", ["0", "1", "2"])
    assert label_field(verdicts(2).model_json_schema()) is None
    assert label_field(statements(3).model_json_schema()) is None
