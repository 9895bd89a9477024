"""A judge backend from another package: one entry point in `ragmeter.judges`, then usable by
spec like a built-in one. The package is a real distribution on sys.path (a dist-info folder
with entry_points.txt), found by importlib.metadata as an installed one would be."""

from __future__ import annotations

import sys

import pytest

import ragmeter
from ragmeter.errors import ConfigError
from ragmeter.judges.registry import DEFAULT_JUDGE, backends, build, is_serial
from ragmeter.judges.settings import JudgeSettings
from ragmeter.judges.spec import make_judge, parse_judge_spec

PLUGIN = '''
from typing import ClassVar, Literal

from ragmeter.judges.base import Judge, JudgeReply
from ragmeter.judges.settings import JudgeSettings


class ConstantConfig(JudgeSettings):
    factory: ClassVar[str] = "constant_judge:ConstantJudge"
    serial: ClassVar[bool] = True
    backend: Literal["constant"] = "constant"
    rating: int = 2


class ConstantJudge(Judge):
    backend = "constant"

    def __init__(self, model, rating):
        super().__init__(model)
        self.rating = rating

    @classmethod
    def from_config(cls, cfg):
        return cls(cfg.model or "any", cfg.rating)

    async def complete(self, request):
        return JudgeReply('{"rating": %d}' % self.rating, 10, 3, "stop", 0.0)
'''


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    (tmp_path / "constant_judge.py").write_text(PLUGIN, encoding="utf-8")
    info = tmp_path / "constant_judge-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: constant-judge\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[ragmeter.judges]\nconstant = constant_judge:ConstantConfig\n",
                                           encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    backends.cache_clear()
    yield
    backends.cache_clear()
    sys.modules.pop("constant_judge", None)


def test_a_backend_registered_by_an_installed_package_is_usable_by_spec(plugin):
    assert "constant" in backends() and is_serial("constant")
    cfg = parse_judge_spec({"backend": "constant", "model": "m1", "rating": 0})
    judge = make_judge(cfg)
    assert (judge.backend, judge.model, judge.rating) == ("constant", "m1", 0)
    row = {"id": "a", "user_input": "Where is the Eiffel Tower?", "retrieved_contexts": ["The Eiffel Tower is in Paris."]}
    result = ragmeter.evaluate([row], ["context_relevance"], judge="constant:m2", cache=False, progress=False)
    assert result.rows[0]["context_relevance"] == 1.0  # rating 2 of 2 from both templates
    assert result.manifest["judge"]["backend"] == "constant"
    with pytest.raises(ConfigError, match="unknown key 'colour'.*rating"):
        parse_judge_spec({"backend": "constant", "colour": "red", "temperature": 0})


def test_a_name_already_taken_is_refused(tmp_path, monkeypatch):
    info = tmp_path / "clash-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: clash\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[ragmeter.judges]\nopenai = clash:Config\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    backends.cache_clear()
    try:
        with pytest.raises(ConfigError, match="'openai' registered by clash:Config is already"):
            backends()
    finally:
        backends.cache_clear()


def test_what_the_run_asks_of_a_backend_comes_from_its_settings():
    assert DEFAULT_JUDGE == "llamacpp" and parse_judge_spec(None).model is None
    assert is_serial("llamacpp") and is_serial("hf") and not is_serial("openai") and not is_serial("nope")
    assert backends()["hf"].takes_path and not backends()["openai"].takes_path
    assert parse_judge_spec("llamacpp").model == "qwen-coder-1.5b"
    with pytest.raises(ConfigError, match="--batch needs an OpenAI-compatible judge with a batch API; llamacpp"):
        build(parse_judge_spec("llamacpp"), batch_poll_seconds=1.0)
    with pytest.raises(ConfigError, match="cannot be built from a spec"):
        build(parse_judge_spec({"backend": "scripted"}))
    assert issubclass(backends()["openai-compat"], JudgeSettings)


def test_a_mapping_with_a_spec_takes_it_as_text_and_overrides_its_settings():
    cfg = parse_judge_spec({"spec": "openai-compat:http://h/v1#m", "seed": 9})
    assert (cfg.backend, cfg.model, cfg.seed) == ("openai-compat", "m", 9)
    with pytest.raises(ConfigError, match="spec must be a string"):
        parse_judge_spec({"spec": ["openai:gpt-4o-mini"]})
