"""The hf backend loads a local transformers folder offline and generates; a tiny random model
built here can never write JSON, so its replies must be counted unparseable and the row unscored."""

from __future__ import annotations

from pathlib import Path

import pytest
import transformers  # noqa: E402 - the hf extra, which make test installs

import ragmeter


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = ["[UNK]", "[EOS]", "the", "context", "question", "rating", "is", "a", "of", "and"]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", eos_token="[EOS]",
                                                pad_token="[EOS]")
    config = transformers.GPT2Config(vocab_size=len(words), n_positions=2048, n_embd=16, n_layer=1, n_head=2)
    transformers.set_seed(0)
    path = tmp_path_factory.mktemp("tiny-gpt2")
    transformers.GPT2LMHeadModel(config).save_pretrained(path)
    fast.save_pretrained(path)
    return path


def test_hf_judge_runs_offline_and_counts_unparseable_replies(tiny_model: Path):
    row = {"id": "r", "user_input": "the question", "retrieved_contexts": ["the context of the question"]}
    judge = {"spec": f"hf:{tiny_model}", "max_tokens": 8}
    result = ragmeter.evaluate([row], ["context_relevance"], judge=judge, cache=False, progress=False)
    m = result.manifest["metrics"]["context_relevance"]
    assert result.rows[0]["context_relevance"] is None
    assert result.rows[0]["context_relevance_reason"].startswith("judge reply unparseable")
    assert (m["judge_calls"], m["reasks"], m["unparseable"]) == (4, 2, 2)  # each template asked, re-asked once
    assert m["prompt_tokens"] > 0 and m["completion_tokens"] > 0
    assert result.manifest["judge"]["backend"] == "hf"


def test_hf_judge_missing_folder_fails_before_rows(tmp_path: Path):
    from ragmeter.errors import ConfigError

    with pytest.raises(ConfigError, match="hf judge: model folder not found"):
        ragmeter.evaluate([{"user_input": "q", "retrieved_contexts": ["c"]}], ["context_relevance"],
                          judge=f"hf:{tmp_path / 'nope'}", cache=False, progress=False)


def test_hf_label_probabilities_come_from_the_step_scores():
    import math

    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers

    from ragmeter.judges.hf import hf_labels

    words = ["[UNK]", "{", '"rating"', ":", "0", "1", "2", "}"]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]")
    ids = [1, 2, 3, 6, 7]  # { "rating" : 2 }
    scores = [torch.full((1, len(words)), -50.0) for _ in ids]
    for i, token in enumerate(ids):
        scores[i][0, token] = 0.0
    scores[3][0, 4:7] = torch.tensor([math.log(0.1), math.log(0.3), math.log(0.6)])  # at the value: 0, 1, 2
    found = hf_labels(tokenizer, ids, tuple(scores), {"rating": ("0", "1", "2")})
    assert len(found) == 1 and found[0]["field"] == "rating"
    assert found[0]["probs"] == pytest.approx({"0": 0.1, "1": 0.3, "2": 0.6}, abs=1e-6)
