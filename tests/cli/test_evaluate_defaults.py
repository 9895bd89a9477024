"""The CLI's flags, the API's keyword arguments and a YAML file's keys share one set of defaults."""

from __future__ import annotations

import inspect

from ragmeter.api import DEFAULTS
from ragmeter.cli.evaluate import evaluate
from ragmeter.run.config import RunConfig, default


def test_evaluate_flags_default_to_the_run_configuration():
    params = inspect.signature(evaluate).parameters
    flags = {"judge": "judge", "embeddings": "embeddings", "out": "output", "format": "format",
             "concurrency": "concurrency", "timeout": "timeout", "language": "language"}
    assert {flag: params[flag].default for flag in flags} == {flag: default(key) for flag, key in flags.items()}
    assert default("timeout") == RunConfig(dataset="d.jsonl").timeout == 300.0


def test_the_api_defaults_are_the_run_configuration_s():
    cfg = RunConfig(dataset="d.jsonl")
    assert all(DEFAULTS[key] == getattr(cfg, key) for key in DEFAULTS if key in RunConfig.model_fields)
    assert DEFAULTS["concurrency"] == 1 and DEFAULTS["language"] == "auto"  # the data's (prompts/run_language.py)
