"""`ragmeter experiment EXPERIMENT.yaml`: a grid of baseline-RAG settings over one test set,
the second half of seed 004. Each variant is indexed (once per chunking + embeddings, shared
by the variants that use it), answered and evaluated on the same rows; the result is one
table of variant x metric with 95% intervals, the best variant per metric, and paired
differences against a baseline variant (paired bootstrap + sign-flip test, Holm-adjusted,
from `ragmeter compare`).

    OUT/indexes/<hash>/              one FAISS index per (chunking, embeddings)
    OUT/variants/<name>/answers.jsonl, manifest.json
    OUT/variants/<name>/results/     an ordinary run folder (compare, report, gates work on it)
    OUT/experiment.json              the table, the best variants, the comparisons
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragmeter.errors import ConfigError, explain_validation
from ragmeter.judges.registry import DEFAULT_JUDGE

#: settings a variant may vary, and their defaults (the seeds' pipeline)
SETTINGS: dict[str, Any] = {"chunk_size": 2000, "chunk_overlap": 200, "chunk_unit": "characters",
                            "embeddings": "bundled", "k": 5, "generator": DEFAULT_JUDGE, "max_tokens": 512,
                            "prompt": None, "rerank": None, "rerank_candidates": None}
INDEX_KEYS = ("chunk_size", "chunk_overlap", "chunk_unit", "embeddings")


class VariantSettings(BaseModel):
    """One variant's settings, checked before anything is indexed or asked (their types are
    the `index` and `answer` commands' options)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    chunk_size: int = Field(ge=50)
    chunk_overlap: int = Field(ge=0)
    chunk_unit: Literal["characters", "tokens"]
    embeddings: Any  # a spec, or (from Python) an embedder
    k: int = Field(ge=1)
    generator: Any  # a spec, or (from Python) a judge
    max_tokens: int = Field(ge=1)
    prompt: Any  # a prompt file's path, or None
    rerank: str | None
    rerank_candidates: int | None = Field(ge=1)


class ExperimentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    testset: str
    docs: str
    out: str = "experiment"
    metrics: list[Any] = Field(default_factory=lambda: ["faithfulness", "response_relevancy",
                                                        "non_llm_context_recall"])
    judge: str | dict[str, Any] = DEFAULT_JUDGE
    embeddings: str | dict[str, Any] = "bundled"  # the metrics' embeddings (response_relevancy)
    language: str = "auto"  # the test set's (prompts/run_language.py), or given
    settings: dict[str, Any] = Field(default_factory=dict)
    grid: dict[str, list[Any]] = Field(default_factory=dict)
    baseline: str | dict[str, Any] | None = None
    concurrency: int = Field(default=1, ge=1, le=256)
    cache: bool | str = True
    limit: int | None = Field(default=None, ge=1)


def load_experiment(path: Path) -> ExperimentConfig:
    from ragmeter.io.config_files import read_mapping, relative_to

    data = relative_to(read_mapping(path, "experiment", "testset, docs, grid, metrics, ..."),
                       ("testset", "docs", "out"), path.parent)
    try:
        return ExperimentConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {explain_validation(exc, list(ExperimentConfig.model_fields))}") from None


def variants(cfg: ExperimentConfig) -> list[dict[str, Any]]:
    """Every combination of the grid's values over the fixed settings, named by what varies."""
    for where, keys in (("settings", cfg.settings), ("grid", cfg.grid)):
        unknown = sorted(set(keys) - set(SETTINGS))
        if unknown:
            raise ConfigError(f"experiment {where}: unknown setting(s) {', '.join(unknown)}; "
                              f"settings: {', '.join(SETTINGS)}")
    for key, values in cfg.grid.items():
        if not isinstance(values, list) or not values:
            raise ConfigError(f"experiment grid: {key} needs a non-empty list of values")
    fixed = {**SETTINGS, **cfg.settings}
    out = []
    for combo in itertools.product(*cfg.grid.values()):
        chosen = dict(zip(cfg.grid, combo))
        name = ",".join(f"{k}={_label(v)}" for k, v in chosen.items()) or "baseline"
        try:
            VariantSettings(**{**fixed, **chosen})
        except ValidationError as exc:
            raise ConfigError(f"experiment variant {name}: {explain_validation(exc)}") from None
        out.append({"name": name, "varies": chosen, "settings": {**fixed, **chosen}})
    if len({v["name"] for v in out}) != len(out):
        raise ConfigError("experiment grid: two variants get the same name (repeated values?)")
    return out


def baseline_name(cfg: ExperimentConfig, grid: list[dict[str, Any]]) -> str:
    """The variant the others are compared with: named in `baseline` (a name or the varying
    settings), else the first."""
    wanted = cfg.baseline
    if wanted is None:
        return grid[0]["name"]
    if isinstance(wanted, dict):
        matches = [v["name"] for v in grid if all(v["settings"].get(k) == x for k, x in wanted.items())]
        if len(matches) == 1:
            return matches[0]
        wanted = ",".join(f"{k}={_label(x)}" for k, x in wanted.items())
        if matches:
            raise ConfigError(f"experiment baseline '{wanted}' matches {len(matches)} variants "
                              f"({', '.join(matches)}): name one")
    for variant in grid:
        if variant["name"] == wanted:
            return variant["name"]
    raise ConfigError(f"experiment baseline '{wanted}' is not a variant; variants: "
                      f"{', '.join(v['name'] for v in grid)}")


def _described(obj: Any) -> Any:
    """A judge or embedder object given in Python, as JSON: its identity."""
    return obj.identity() if hasattr(obj, "identity") else repr(obj)


def _label(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=_described)


def folder_name(name: str) -> str:
    """A variant's name as a folder name (readable, and unique through a short hash)."""
    slug = re.sub(r"[^A-Za-z0-9_.=-]+", "_", name)[:80]
    return f"{slug}-{hashlib.sha256(name.encode()).hexdigest()[:6]}"


def index_key(settings: dict[str, Any]) -> str:
    text = json.dumps({k: settings[k] for k in INDEX_KEYS}, sort_keys=True, default=_described)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


async def run_experiment(cfg: ExperimentConfig, *, progress: bool | None = None, console: Any = None
                         ) -> dict[str, Any]:
    """Index, answer and evaluate every variant; compare each with the baseline."""
    from ragmeter.rag import aanswer
    from ragmeter.rag.index import abuild_index

    grid = variants(cfg)
    base = baseline_name(cfg, grid)
    out = Path(cfg.out)
    rows = _testset_rows(cfg)
    from ragmeter.prompts.run_language import follow_language, row_texts

    # one language for every variant: the test set's (its manifest, else its questions), or given
    cfg = cfg.model_copy(update={"language": follow_language(cfg.language, cfg.testset,
                                                             row_texts(rows, ("user_input",))).name})
    built: dict[str, Path] = {}
    results: dict[str, Path] = {}
    for number, variant in enumerate(grid, start=1):
        settings, name = variant["settings"], variant["name"]
        _say(console, f"[{number}/{len(grid)}] {name}")
        key = index_key(settings)
        if key not in built:
            built[key] = out / "indexes" / key
            await abuild_index(cfg.docs, built[key], chunk_size=settings["chunk_size"],
                               chunk_overlap=settings["chunk_overlap"], chunk_unit=settings["chunk_unit"],
                               embeddings=settings["embeddings"], cache=cfg.cache, progress=progress)
        folder = out / "variants" / folder_name(name)
        answered = await aanswer(rows, index=built[key], generator=settings["generator"],
                                 embeddings=settings["embeddings"], k=settings["k"], prompt=settings["prompt"],
                                 language=cfg.language, max_tokens=settings["max_tokens"], out=folder,
                                 rerank=settings["rerank"], rerank_candidates=settings["rerank_candidates"],
                                 concurrency=cfg.concurrency, cache=cfg.cache, progress=progress, overwrite=True)
        results[name] = await _evaluate(cfg, answered.path, folder / "results", progress)
    summary = summarize(grid, base, results)
    from ragmeter.io.writers import write_json

    config = json.loads(json.dumps(cfg.model_dump(), default=_described))
    write_json(out / "experiment.json", {"config": config, **summary})
    return summary


def _testset_rows(cfg: ExperimentConfig) -> list[dict[str, Any]]:
    from ragmeter.rag.answer import load_testset

    rows, _ = load_testset(cfg.testset)
    return rows[:cfg.limit] if cfg.limit else rows


async def _evaluate(cfg: ExperimentConfig, answers: Path | None, out: Path, progress: bool | None) -> Path:
    from ragmeter.api import aevaluate

    assert answers is not None  # aanswer writes when given `out`
    await aevaluate(answers, cfg.metrics, judge=cfg.judge, embeddings=cfg.embeddings, out=out,
                    cache=cfg.cache, concurrency=cfg.concurrency, progress=progress, language=cfg.language,
                    overwrite=True)
    return out


def summarize(grid: list[dict[str, Any]], base: str, results: dict[str, Path]) -> dict[str, Any]:
    """The variant x metric table (mean, 95% interval, n), the best variant per metric, and
    each variant's paired comparison with the baseline: `ragmeter compare`'s (results/matrix.py),
    Holm over every (variant, metric) pair; its whole record is kept as `comparison`."""
    from ragmeter.results.matrix import compare_many

    names = list(results)
    result = compare_many([results[n] for n in names], results[base], run_names=names)
    table = {r.label: {m: {"mean": c.mean, "ci95": list(c.ci95) if c.ci95 else None, "n": c.n}
                       for m, c in r.cells.items()} for r in result.runs}
    comparisons = {r.label: {m: {"difference": c.difference,
                                 "ci95": list(c.difference_ci95) if c.difference_ci95 else None,
                                 "p_holm": c.p_holm, "verdict": c.verdict, "n": c.pairs}
                             for m, c in r.cells.items()} for r in result.runs if r.label != base}
    return {"baseline": base, "variants": [{"name": v["name"], "varies": v["varies"],
                                            "results": str(results[v["name"]])} for v in grid],
            "table": table, "best": result.best, "compared_with_baseline": comparisons,
            "comparison": result.model_dump(mode="json")}


def print_experiment(summary: dict[str, Any], console: Any) -> None:
    """The grid as `ragmeter compare` prints many runs."""
    from ragmeter.results.console import print_many
    from ragmeter.results.matrix import ManyComparison

    console.print(f"variants x metrics; paired differences against the baseline, {summary['baseline']}",
                  highlight=False)
    print_many(ManyComparison.model_validate(summary["comparison"]), console)


def _say(console: Any, text: str) -> None:
    if console is not None:
        console.print(text, highlight=False)
