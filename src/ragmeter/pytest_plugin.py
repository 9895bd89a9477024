"""pytest plugin (registered through the `pytest11` entry point when ragmeter is installed).

    def test_grounded(ragmeter_eval):
        result = ragmeter_eval(rows, metrics=["faithfulness"])
        assert result.passes(faithfulness=0.8)   # on failure: the gates and the worst rows

The judge is, in order: the `judge=` argument, `--ragmeter-judge`, the `ragmeter_judge` ini
option, $RAGMETER_JUDGE, the bundled judge. Evaluations use ragmeter's cache (or
$RAGMETER_CACHE), so a CI re-run with unchanged rows and prompts makes no judge calls; the
terminal summary says how many were made.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from ragmeter.judges.registry import DEFAULT_JUDGE

_TOTALS = pytest.StashKey[dict[str, int]]()


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("ragmeter")
    group.addoption("--ragmeter-judge", default=None, help="judge spec for the ragmeter_eval fixture, e.g. "
                                                           "openai-compat:http://127.0.0.1:8000/v1#MODEL")
    parser.addini("ragmeter_judge", default=None, help="judge spec for the ragmeter_eval fixture")


def pytest_configure(config: Any) -> None:
    config.stash[_TOTALS] = {"evaluations": 0, "judge_calls": 0, "cache_hits": 0}


def _default_judge(config: Any) -> str:
    return (config.getoption("--ragmeter-judge") or config.getini("ragmeter_judge")
            or os.environ.get("RAGMETER_JUDGE") or DEFAULT_JUDGE)


@pytest.fixture
def ragmeter_eval(request: Any) -> Any:
    """A function: ragmeter_eval(rows, metrics=None, judge=None, **evaluate_options) ->
    EvaluationResult (see ragmeter.evaluate). Writes no files unless `out=` is given."""
    config = request.config

    def run(rows: Any, metrics: list[Any] | None = None, judge: Any = None, **options: Any) -> Any:
        from ragmeter.api import evaluate

        options.setdefault("progress", False)
        result = evaluate(rows, metrics, judge=judge or _default_judge(config), **options)
        totals = config.stash[_TOTALS]
        totals["evaluations"] += 1
        for record in result.manifest.metrics.values():
            totals["judge_calls"] += record.judge_calls
            totals["cache_hits"] += record.cache_hits
        return result

    return run


def pytest_terminal_summary(terminalreporter: Any, config: Any) -> None:
    totals = config.stash.get(_TOTALS, None)
    if totals and totals["evaluations"]:
        terminalreporter.write_line(f"ragmeter: {totals['evaluations']} evaluation(s), {totals['judge_calls']} "
                                    f"judge call(s), {totals['cache_hits']} cache hit(s)")
