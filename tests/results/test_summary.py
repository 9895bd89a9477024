"""The summary a person reads: fits 80 columns, and never obeys markup or escape sequences
that came from data or config."""

from __future__ import annotations

import io

import ragmeter
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.results.console import print_summary

ROWS = [{"id": f"r{i}", "user_input": "q?", "response": "a.", "retrieved_contexts": ["c"], "reference": "a."}
        for i in range(4)]
CORE = ["context_precision", "context_precision_with_reference", "context_recall", "faithfulness",
        "context_relevance", "exact_match"]


def render(manifest: dict, width: int, verbose: bool = False) -> str:
    from rich.console import Console

    buffer = io.StringIO()
    print_summary(manifest, Console(file=buffer, width=width, force_terminal=True, color_system=None), verbose)
    return buffer.getvalue()


def scripted() -> ScriptedJudge:
    replies = {"rating": 2, "verdict": 1, "statements": ["a"], "verdicts": [{"verdict": 1, "reason": "r"}],
               "classifications": [{"statement": "a", "attributed": 1, "reason": "r"}]}
    return ScriptedJudge(lambda request: {k: replies[k] for k in request.schema["properties"]})


def test_the_table_fits_80_columns_with_every_number_whole():
    result = ragmeter.evaluate(ROWS, CORE, judge=scripted(), cache=False, progress=False)
    text = render(result.manifest, 80)
    assert max(len(line) for line in text.splitlines()) <= 80
    for name, m in result.manifest["metrics"].items():
        assert name in text
        assert f"{m['mean']:.4f}" in text
    assert "…" not in text and "judge calls" not in text
    assert 0.0 < result.manifest["cpu_seconds"] < 60.0
    wide = render(result.manifest, 150, verbose=True)
    assert "judge calls" in wide and "cache hits" in wide


def test_markup_and_escape_sequences_from_config_are_shown_as_text():
    """A label (refused by `as:` now, but a manifest is a file anyone can edit) and a judge name."""
    result = ragmeter.evaluate(ROWS, ["exact_match"], judge=scripted(), cache=False, progress=False)
    result.manifest.metrics = {"[bold red]X[/]": result.manifest.metrics["exact_match"]}
    result.manifest.judge = {"name": "evil\x1b[2J[link=http://x]model[/link]"}
    text = render(result.manifest, 120)
    assert "[bold red]X[/]" in text
    assert "\x1b" not in text and "\\x1b[2J" in text and "[link=http://x]" in text


def test_the_manifest_is_typed_and_its_format_cannot_drift():
    import pydantic
    import pytest

    from ragmeter.results.manifest import Manifest

    result = ragmeter.evaluate(ROWS, CORE, judge=scripted(), cache=False, progress=False)
    written = result.manifest.as_json()
    typed = Manifest.model_validate(written)
    assert typed.metrics["faithfulness"].judge_calls == written["metrics"]["faithfulness"]["judge_calls"]
    assert result.manifest["metrics"]["faithfulness"]["judge_calls"] == typed.metrics["faithfulness"].judge_calls
    assert result.manifest.get("gates") is None and "gates" not in written  # a run without gates writes none
    assert typed.faults.processes == 1
    with pytest.raises(pydantic.ValidationError, match="surprise"):
        Manifest.model_validate({**written, "surprise": 1})
    with pytest.raises(pydantic.ValidationError, match="rows"):
        result.manifest.dataset.rows = "many"  # filled in steps, checked at each
    with pytest.raises(KeyError):
        result.manifest["surprise"]
    assert result.manifest["metrics"]["faithfulness"]["ci95"] == written["metrics"]["faithfulness"]["ci95"]  # a list


def test_the_summary_says_which_reasons_were_written_and_how_to_get_any_rows():
    """Issue 76 item 8: a row that passed read "no reason written (reasons: failing)" and
    nothing said how to get one."""
    result = ragmeter.evaluate(ROWS, ["faithfulness"], judge=scripted(), cache=False, progress=False)
    manifest = result.manifest
    plain = render(manifest, 200)
    manifest.judge = {**manifest.judge, "reasons": "failing"}
    text = " ".join(render(manifest, 200).split())
    assert "reasons written for failing verdicts and passes near the bar (P < 0.65)" in text
    assert "any row's reason: ragmeter explain RUN_FOLDER --ids ID" in text
    assert "explain" not in plain  # a judge that writes every reason: nothing to say
