"""A run checked and ready to score: the config read, the data loaded and sharded, the
metrics, prompts, gates and baseline checked, the judge and embedder built (not loaded).
Everything here fails before any judge call; the run (execute.py), the dry run (dry_run.py),
bench-judge (judge_speed.py) and Ray (engine/ray.py) all start from it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragmeter.embeddings import make_embedder
from ragmeter.errors import ConfigError, DataError
from ragmeter.io.datasets import load_dataset
from ragmeter.io.output import expand, run_fingerprint
from ragmeter.io.readers import Rows
from ragmeter.io.writers import check_writable
from ragmeter.judges.base import Judge
from ragmeter.judges.registry import build
from ragmeter.judges.spec import JudgeSettings, make_judge, parse_judge_spec
from ragmeter.metrics import CITATION_METRICS, DEFAULT_METRICS, REGISTRY, Metric, get_metric, get_metrics
from ragmeter.prompts.prompt_set import PromptSet
from ragmeter.prompts.run_language import AUTO, FALLBACK, Followed, follow_language
from ragmeter.results.gates import GateSettings
from ragmeter.results.runs import Run, load_run
from ragmeter.run.config import RunConfig

if TYPE_CHECKING:
    from ragmeter.embeddings.base import Embedder
    from ragmeter.labels.files import Labels


def chosen_metrics(metrics: list[Any] | None) -> list[Any] | None:
    """The metrics named up front: `all` is every registered one; None when they depend on
    the data (the default, `applicable`)."""
    if metrics == ["all"]:
        return list(REGISTRY)
    if not metrics or metrics == ["applicable"]:
        return None
    if "all" in metrics or "applicable" in metrics:
        raise ConfigError("'all' and 'applicable' stand alone: --metrics all, or --metrics applicable")
    return metrics


def metrics_for(dataset: Rows, metrics: list[Any] | None) -> list[str]:
    """`applicable`: every metric whose fields the data has; the default: the six core
    metrics, or the citation family for a cited file."""
    if metrics == ["applicable"]:
        names = [n for n in REGISTRY if not get_metrics([n])[0].missing_fields(dataset.fields_present)]
        if not names:
            raise DataError("no metric applies: the data has none of the fields any metric needs "
                            f"(found: {sorted(dataset.fields_present) or 'none'})", source=dataset.source)
        return names
    return list(CITATION_METRICS if dataset.kind == "cited" else DEFAULT_METRICS)


@dataclass
class Prepared:
    """A run checked and ready to score: everything that can fail before a judge call has."""

    cfg: RunConfig
    #: held whole, or read from its file a chunk at a time (a streamed JSONL, CSV or Parquet file)
    dataset: Rows
    metrics: list[Metric]
    prompts: PromptSet
    judge: Judge | None
    #: the judge spec, parsed once (None when a Judge object was given): Ray workers build theirs from it
    judge_config: JudgeSettings | None
    embedder: Embedder | None
    fingerprint: dict[str, Any]
    gates: GateSettings
    baseline: Run | None
    #: human labels on some rows (labels/files.py Labels), checked against the data and metrics
    labels: Labels | None = None
    #: the run's language and where it came from (prompts/run_language.py)
    language: Followed | None = None


def sample_texts(dataset: Rows, rows: int = 200) -> list[str]:
    """The first rows' questions and answers, the text a run's language is read from."""
    from itertools import islice

    return [text for sample, _ in islice(dataset.iter_rows(), rows)
            for text in (sample.user_input, sample.response) if isinstance(text, str)]


def prepare(cfg: RunConfig, *, data: object = None, judge: Judge | None = None, embedder: Embedder | None = None,
            metrics: list[Metric] | None = None, stream: bool = False) -> Prepared:
    """Read and check the config, the data and the metrics; build (not load) the judge and
    the embedder. `data`: an in-memory dataset or a path (default: the config's);
    `metrics`: Metric objects to run instead of the names in the config; `stream`: a
    JSONL, CSV or Parquet file run locally or on Ray is checked whole but not held (io/stream.py)."""
    cfg = cfg.model_copy(update={"output": expand(cfg.output)})
    # Bad judge settings, unknown metric names and bad prompt files fail before the data is read.
    judge_cfg = parse_judge_spec(cfg.judge) if judge is None else None
    chosen: Any = metrics if metrics is not None else chosen_metrics(cfg.metrics)
    metric_objs = get_metrics(chosen) if chosen else None
    # with "auto", the prompts are built again once the data says its language
    prompts = PromptSet.build(metric_objs, FALLBACK if cfg.language == AUTO else cfg.language, cfg.prompts_dir,
                              get_metric, cfg.layout) if metric_objs else None
    dataset: Rows = load_dataset(cfg.dataset if data is None else data, columns=cfg.columns, stream=stream,
                                 limit=cfg.limit, shard=cfg.shard)
    language = follow_language(cfg.language, cfg.dataset if data is None else data,
                               sample_texts(dataset) if cfg.language == AUTO else [])
    if cfg.language == AUTO and language.name != FALLBACK:
        prompts = None
    cfg = cfg.model_copy(update={"language": language.name})
    if metric_objs is None:  # the default, and `applicable`, depend on the file
        metric_objs = get_metrics(metrics_for(dataset, cfg.metrics))
    if prompts is None:
        prompts = PromptSet.build(metric_objs, cfg.language, cfg.prompts_dir, get_metric, cfg.layout)
    gates = cfg.gate_settings()
    gates.check_metrics([m.label for m in metric_objs], {m.label: m.name for m in metric_objs})
    gates.check_rows(len(dataset))
    for flag, path in (("--summary-md", cfg.summary_md), ("--junit", cfg.junit)):
        if path:
            check_writable(Path(path), flag)
    baseline = load_run(gates.baseline) if gates.baseline else None  # a bad baseline fails before any call
    if baseline is not None:
        gates.check_baseline(baseline, [m.label for m in metric_objs], dataset.ids())
    labels = _labels(cfg.labels, dataset, [m.label for m in metric_objs]) if cfg.labels else None
    if judge is None and judge_cfg is not None and any(m.uses_judge for m in metric_objs):
        judge = make_run_judge(cfg, judge_cfg)
    embedder = embedder or (make_embedder(cfg.embeddings) if any(m.uses_embeddings for m in metric_objs) else None)
    fingerprint = run_fingerprint(cfg.model_dump(mode="json"), dataset.sha256,
                                  [[m.label, m.name, m.options.model_dump(mode="json")] for m in metric_objs],
                                  judge.identity() if judge else None, embedder.identity() if embedder else None)
    return Prepared(cfg, dataset, metric_objs, prompts, judge, judge_cfg, embedder, fingerprint, gates, baseline,
                    labels, language)


def _labels(path: str, dataset: Rows, metrics: list[str]) -> Any:
    """A bad labels file fails before any judge call, naming its line."""
    from ragmeter.labels.files import read_labels

    return read_labels(path, dataset.ids(), metrics, dataset.sha256)


def make_run_judge(cfg: RunConfig, judge_cfg: JudgeSettings) -> Judge:
    """The config's judge (`judge_cfg`, its parsed spec); with `batch`, its batch-API form
    (HTTP judges only, not on Ray)."""
    if not cfg.batch:
        return make_judge(judge_cfg)
    if cfg.engine.kind == "ray" and type(judge_cfg).batch_factory:
        raise ConfigError("--batch and --ray do not go together: a batch is already served by the provider's fleet")
    return build(judge_cfg, batch_poll_seconds=cfg.batch_poll_seconds)
