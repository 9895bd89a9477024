"""What `ragmeter align` starts from, all checked before any judge call: the run's rows and
settings, the metric as the run configured it, the people's labels on its rows, and the
folder the aligned files go to (never a file align did not write)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragmeter.errors import ConfigError, DataError
from ragmeter.judges.base import Judge
from ragmeter.judges.session import JudgeSession
from ragmeter.metrics.base import Metric
from ragmeter.prompts.prompt_set import PromptSet
from ragmeter.samples import Sample

#: unknown row ids named in the error (then "and N more")
SHOWN_UNKNOWN = 5


@dataclass
class AlignInputs:
    metric: Metric
    judge: Judge
    session: JudgeSession
    prompts: PromptSet
    samples: list[Sample]
    ids: list[str]
    labels: list[float]
    binary: bool
    notes: list[str] = field(default_factory=list)


def load_inputs(run: Path, labels: Path, metric_label: str,
                judge_spec: str | dict[str, Any] | Judge | None) -> AlignInputs:
    from ragmeter.cache import open_cache
    from ragmeter.io.datasets import load_dataset
    from ragmeter.judges.spec import make_judge
    from ragmeter.labels.files import read_labels
    from ragmeter.metrics import get_metric
    from ragmeter.results.runs import read_run_manifest

    manifest, _, folder = read_run_manifest(run)
    config = manifest.config
    metric = _metric(config.get("metrics") or [], list(manifest.metrics), metric_label, folder)
    if config["dataset"] == "<in-memory>":
        raise DataError("the run was made from rows in memory: align reads the rows the run judged from its "
                        "dataset file (run it on a file)", source=folder)
    dataset_path = Path(config["dataset"])
    if not dataset_path.is_file():
        raise DataError("the run's dataset file is gone (align reads the rows the run judged)",
                        source=str(dataset_path))
    dataset = load_dataset(dataset_path, columns=config.get("columns") or {})
    if manifest.dataset.sha256 and dataset.sha256 != manifest.dataset.sha256:
        raise DataError(f"changed since the run (sha256 {str(dataset.sha256)[:12]}, the run's "
                        f"{manifest.dataset.sha256[:12]}): run it again, then align", source=str(dataset_path))
    found = read_labels(labels, dataset.ids(), list(manifest.metrics), dataset.sha256)
    unknown = found.unknown_ids.get(metric_label, [])
    if unknown:
        shown = ", ".join(unknown[:SHOWN_UNKNOWN]) + (f" and {len(unknown) - SHOWN_UNKNOWN} more"
                                                      if len(unknown) > SHOWN_UNKNOWN else "")
        raise DataError(f"labels for {len(unknown)} rows the run does not have: {shown}", source=str(labels))
    given = found.by_metric.get(metric_label, {})
    if not given:
        raise DataError(f"no labels for {metric_label} (labelled: {', '.join(found.by_metric) or 'none'})",
                        source=str(labels))
    rows = [(sample, given[sample.id]) for sample, _ in dataset.iter_rows() if sample.id in given]
    judge = judge_spec if isinstance(judge_spec, Judge) else \
        make_judge(judge_spec if judge_spec is not None else config.get("judge"))
    session = JudgeSession(judge, open_cache(config.get("cache", True)), concurrency=config.get("concurrency", 1))
    prompts = PromptSet.build([metric], manifest.language, config.get("prompts_dir"), get_metric)
    return AlignInputs(metric, judge, session, prompts, [s for s, _ in rows], [str(s.id) for s, _ in rows],
                       [y for _, y in rows], found.binary.get(metric_label, True))


def _metric(specs: list[Any], labels: list[str], label: str, folder: str) -> Metric:
    """The metric as the run configured it (its options too), found by its result column."""
    from ragmeter.metrics import get_metric
    from ragmeter.metrics.registry import REGISTRY

    if label not in labels:
        raise ConfigError(f"{folder}: metric '{label}' is not in the run (its metrics: {', '.join(labels)})")
    metrics = [get_metric(spec) for spec in specs if spec not in ("all", "applicable")]
    found = next((m for m in metrics if m.label == label), None) or get_metric(label)
    if not found.prompt_names:
        raise ConfigError(f"{label} sends no judge prompt: there is nothing to align")
    if not found.aligned_prompts:
        able = sorted(name for name in REGISTRY if get_metric(name).aligned_prompts)
        raise ConfigError(f"{label}'s prompts give no verdict or rating to learn from labels; align works for "
                          f"{', '.join(able)}")
    return found


def file_of(inputs: Any, name: str) -> str:
    from ragmeter.prompts.files import file_name

    return file_name(inputs.prompts.get(inputs.metric.prompt_metric, name))


def check_out(out: Path, names: list[str]) -> None:
    """--out checked before the first judge call: a folder that can be written, holding no
    prompt file and no align.json that align did not write (a symlink is not one)."""
    import os

    from ragmeter.prompts.files import ALIGN_RECORD

    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is not a folder: align writes prompt files and {ALIGN_RECORD} into one")
    for name in names:
        not_yours(out / name, "aligned")
    not_yours(out / ALIGN_RECORD, "labels_sha256")
    existing = next(p for p in (out.absolute(), *out.absolute().parents) if p.exists())  # nothing made yet
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"--out {out}: cannot write there ({existing} is not a folder this user can write)")


def not_yours(path: Path, key: str = "aligned") -> None:
    """A file align did not write (yours, edited; a symlink to anywhere) is never replaced;
    its own (they hold `key`) are."""
    import json

    if path.is_symlink():
        raise ConfigError(f"{path} is a symbolic link: align writes only files of its own; choose another --out")
    if not path.exists():
        return
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        ours = isinstance(data, dict) and key in data
    except (ValueError, UnicodeDecodeError, RecursionError, OSError):
        ours = False
    if not ours:
        raise ConfigError(f"{path} exists and was not written by `ragmeter align`: choose another --out")
