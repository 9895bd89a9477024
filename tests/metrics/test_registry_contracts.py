"""Contracts every registered metric keeps, checked by walking the registry: its name, its
prompts in every shipped language, their examples against its reply schemas, and the
inputs its code sends against the fields its prompts declare."""

from __future__ import annotations

import json

import pytest

import ragmeter
from ragmeter.errors import ConfigError, UnparseableReply
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.judges.session import JudgeSession
from ragmeter.metrics import REGISTRY, get_metric
from ragmeter.prompts.files import export_files, load_prompt_dir, write_prompt_files
from ragmeter.prompts.template import builtin_exists

LANGUAGES = ("english", "spanish")
JUDGED = [n for n in REGISTRY if get_metric(n).prompt_names]


@pytest.mark.parametrize("name", list(REGISTRY))
def test_registry_key_is_the_metric_name_and_metadata_is_complete(name):
    metric = get_metric(name)
    assert metric.name == name
    assert metric.description and metric.required
    assert metric.uses_judge == bool(metric.prompt_names) or metric.uses_embeddings


@pytest.mark.parametrize("name", JUDGED)
def test_each_prompt_ships_in_english_and_every_language_resolves(name, tmp_path):
    metric = get_metric(name)
    for prompt in metric.prompt_names:
        assert builtin_exists(metric.prompt_metric, prompt, "english"), (name, prompt)
    for language in LANGUAGES:
        templates = metric.prompts(language)
        assert [t.name for t in templates] == list(metric.prompt_names)
        assert all(t.language in (language, "english") for t in templates)  # explicit English fallback
        folder = tmp_path / language
        write_prompt_files(export_files([metric], language), folder, force=False)
        load_prompt_dir(folder, get_metric)  # validates fields and every example against the reply schema


FULL_ROW = {"id": "r1", "user_input": "Who wrote Don Quixote?", "response": "Cervantes wrote it in 1605.",
            "retrieved_contexts": ["Cervantes wrote Don Quixote.", "It was published in 1605."],
            "reference": "Miguel de Cervantes.", "reference_contexts": ["Cervantes wrote Don Quixote."],
            "retrieved_context_ids": ["d1", "d2"], "reference_context_ids": ["d1"],
            "cited_response": 'Cervantes <ref name="d1">Cervantes wrote Don Quixote</ref>.',
            "response_b": "Lope de Vega.", "relevance_grades": {"d1": 2}, "reference_topics": ["books"]}
AGENT_ROW = {"id": "a1", "user_input": [{"type": "human", "content": "Who wrote Don Quixote?"},
                                        {"type": "ai", "content": "Cervantes."}],
             "reference": "Cervantes.", "reference_topics": ["books"],
             "reference_tool_calls": [{"name": "search", "args": {"q": "Don Quixote"}}]}


@pytest.mark.parametrize("name", JUDGED)
def test_the_inputs_a_metric_sends_are_the_fields_its_prompt_declares(name, monkeypatch):
    sent: list[tuple[str, set[str], set[str]]] = []

    async def recording_ask(self, prompt, inputs, output, stats, max_tokens=None, evidence=None):
        sent.append((prompt.key, set(inputs), set(prompt.input_fields)))
        raise UnparseableReply("recorded")  # the first prompt is enough: stop this row here

    monkeypatch.setattr(JudgeSession, "ask", recording_ask)
    metric = get_metric(name)
    row = AGENT_ROW if "messages" in metric.required else FULL_ROW
    ragmeter.evaluate([row], [name], judge=ScriptedJudge({}), embeddings=_NoEmbeddings(), cache=False,
                      progress=False)
    assert sent, f"{name} sent no prompt"
    for key, inputs, declared in sent:
        assert inputs == declared, (key, sorted(inputs), sorted(declared))


class _NoEmbeddings:
    """Embeddings are not under test here; a metric that needs them gets fixed vectors."""

    def identity(self):
        return {"embedder": "fixed"}

    def describe(self):
        return "fixed"

    async def check(self):
        return None

    async def embed(self, texts):
        return [[1.0, 0.0] for _ in texts]

    async def aclose(self):
        return None


def test_the_file_of_every_prompt_parses_as_json():
    for name in JUDGED:
        for text in export_files([get_metric(name)]).values():
            assert json.loads(text)["metric"] == get_metric(name).prompt_metric


def test_what_a_metric_needs_follows_its_settings():
    semantic_only = get_metric({"answer_correctness": {"weights": [0, 1]}})
    assert (semantic_only.uses_judge, semantic_only.uses_embeddings) == (False, True)
    factual_only = get_metric({"answer_correctness": {"weights": [1, 0]}})
    assert (factual_only.uses_judge, factual_only.uses_embeddings) == (True, False)
    row = {"id": "a", "response": "Paris.", "reference": "Paris."}
    # a judge spec that could never be built: answer_correctness with weights [0, 1] never asks for one
    result = ragmeter.evaluate([row], [{"answer_correctness": {"weights": [0, 1]}}], judge="hf:/no/such/model",
                               embeddings=_NoEmbeddings(), cache=False, progress=False)
    assert result.rows[0]["answer_correctness"] == pytest.approx(1.0)
    assert result.manifest["judge"] is None


def test_ranking_metrics_say_they_need_reference_ids_or_grades():
    from ragmeter.errors import DataError

    row = {"id": "a", "retrieved_context_ids": ["d1", "d2"]}
    with pytest.raises(DataError, match=r"missing column 'reference_context_ids or relevance_grades' "
                                        r"\(required by ndcg@5\)"):
        ragmeter.evaluate([row], ["ndcg@5"], cache=False, progress=False)
    assert get_metric("ndcg@k").needs_text() == "retrieved_context_ids, reference_context_ids or relevance_grades"


def test_the_metrics_command_shows_uses_and_settings():
    from ragmeter.metrics.catalog import settings as metric_settings
    from ragmeter.metrics.catalog import uses as metric_uses

    assert metric_uses(get_metric("semantic_similarity")) == "embeddings"
    assert metric_uses(get_metric("answer_correctness")) == "judge+embeddings"
    assert metric_uses(get_metric("bleu")) == "none"
    shown = metric_settings(get_metric("faithfulness"))
    assert "verdicts.judgment=probability" in shown and "claims.statements=parts" in shown
    assert "verdicts.calls=each" in shown and "combine=min" in shown
    assert metric_settings(get_metric("ndcg@k")) == "k=None"


def test_the_documented_metric_table_is_the_generated_one():
    import re

    from ragmeter.metrics import catalog
    from tests.conftest import ROOT

    readme = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    start, end = readme.index(catalog.START), readme.index(catalog.END) + len(catalog.END)
    assert readme[start:end] == catalog.markdown(), "regenerate: ragmeter metrics --markdown"
    # every metric the page names in a table exists, under the name the registry gives it
    named = set(re.findall(r"^\|[^\n]*?`([a-z_]+(?:@k)?)`", readme[:start], flags=re.M))
    named |= set(re.findall(r"`([a-z_]+@k|[a-z_]+)`(?= \(|,| \|)", readme[readme.index("## The other families"):start]))
    metric_like = {n for n in named if n in REGISTRY or n.split("@")[0] in {k.split("@")[0] for k in REGISTRY}}
    assert metric_like <= set(REGISTRY), sorted(metric_like - set(REGISTRY))


@pytest.mark.parametrize("label", ["<img src=x onerror=alert(1)>", "a b", "x\u202ey", ""])
def test_a_display_label_follows_the_aspect_name_rule(label):
    """`as:` names result columns and is printed in tables and the report: any text used to pass."""
    from ragmeter.metrics import get_metric

    if label == "":
        assert get_metric({"exact_match": {"as": label}}).label == "exact_match"  # empty: the default
        return
    with pytest.raises(ConfigError, match="must be letters, digits, _, - or @"):
        get_metric({"exact_match": {"as": label}})
    assert get_metric({"exact_match": {"as": "em-v2@strict"}}).label == "em-v2@strict"
