"""Prompt files a user can export, edit and load: one JSON file per prompt.

A file holds the PromptTemplate fields plus what a reader needs and a loader can check:
the reply's JSON schema (for example 1's inputs; the bounds follow each row at run time),
the content hash at export, and the ragmeter version. Loading validates the structure
and every few-shot example against the metric's own reply schema, so a translated example
that lost a verdict fails with the file name and the example, before any judge call.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, ValidationError

from ragmeter.errors import ConfigError, explain_validation
from ragmeter.prompts.template import PromptTemplate, builtin_prompt

SUFFIX = ".json"
#: `ragmeter align`'s record beside the prompt files it writes (not a prompt)
ALIGN_RECORD = "align.json"
#: the largest prompt file read (a 20 MB instruction was sent with every call)
MAX_PROMPT_BYTES = 2**20
#: Finds a metric by name: ragmeter.metrics.get_metric, passed in by the caller.
MetricLookup = Callable[[str], Any]
#: keys a prompt file may carry besides the template's own fields
EXTRA_KEYS = ("output_schema", "hash", "ragmeter_version", "adapted", "aligned")


class PromptFile(PromptTemplate):
    """The on-disk form: the template plus informational keys (never part of the hash)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    output_schema: dict[str, Any] | None = None
    hash: str | None = None
    ragmeter_version: str | None = None
    adapted: dict[str, Any] | None = None
    aligned: dict[str, Any] | None = None  # `ragmeter align`: the labels and the agreement it measured

    def template(self) -> PromptTemplate:
        return PromptTemplate(**self.model_dump(exclude=set(EXTRA_KEYS)))


def file_name(template: PromptTemplate) -> str:
    """`faithfulness.statements.spanish.json`: several languages can share one folder."""
    return f"{template.metric}.{template.name}.{template.language}{SUFFIX}"


def to_file(template: PromptTemplate, metric: Any, adapted: dict[str, Any] | None = None,
            aligned: dict[str, Any] | None = None) -> dict[str, Any]:
    from ragmeter import __version__
    from ragmeter.judges.replies import output_schema

    first = template.examples[0].input if template.examples else None
    schema = output_schema(metric.output_model(template.name, first)) if first is not None else None
    body = template.model_dump(mode="json")
    head = {k: body.pop(k) for k in ("metric", "name", "language")}
    data = {**head, "hash": template.version, "ragmeter_version": __version__, **body, "output_schema": schema}
    if adapted is not None:
        data["adapted"] = adapted
    if aligned is not None:
        data["aligned"] = aligned
    return data


def dump(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def write_prompt_files(files: dict[str, str], out_dir: Path, force: bool) -> list[Path]:
    """Write name -> text into out_dir atomically. Existing files with other content are an
    error listing them unless `force`; identical files are left alone."""
    from ragmeter.io.writers import make_folder

    make_folder(out_dir)
    clashes = [name for name, text in files.items()
               if (out_dir / name).exists() and (out_dir / name).read_text(encoding="utf-8") != text]
    if clashes and not force:
        shown = ", ".join(clashes[:5]) + (f" and {len(clashes) - 5} more" if len(clashes) > 5 else "")
        raise ConfigError(f"{out_dir}: {len(clashes)} prompt file(s) already exist with other content "
                          f"({shown}); pass --force to overwrite them, or choose another folder")
    from ragmeter.io.writers import atomic_write_bytes

    written = []
    for name, text in files.items():
        atomic_write_bytes(out_dir / name, text.encode("utf-8"))
        written.append(out_dir / name)
    return written


def read_prompt_file(path: Path, metric_for: MetricLookup) -> PromptFile:
    """Parse and validate one file; every problem names the file."""
    from ragmeter.io.json_files import TooDeep, json_value

    if path.stat().st_size > MAX_PROMPT_BYTES:  # it goes with every call, and into every cache key
        raise ConfigError(f"{path}: {path.stat().st_size / 2**20:.1f} MiB; a prompt file is sent with every judge "
                          f"call and may be at most {MAX_PROMPT_BYTES // 2**20} MiB")
    try:
        data = json_value(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except TooDeep as exc:
        raise ConfigError(f"{path}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object with metric, name, language, instruction, "
                          f"input_fields and examples, got {type(data).__name__}")
    try:
        prompt = PromptFile(**data)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {explain_validation(exc, limit=3)}") from None
    check_against_metric(prompt, path, metric_for)
    return prompt


def check_against_metric(prompt: PromptFile, path: Path, metric_for: MetricLookup) -> None:
    """The file must fit the metric that will fill it in and parse the judge's replies.
    `metric_for` finds a metric by name (ragmeter.metrics.get_metric: the caller passes it,
    so prompts never import metrics, which import prompts)."""
    try:
        metric = metric_for(prompt.metric)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    if prompt.name not in metric.prompt_names:
        raise ConfigError(f"{path}: {prompt.metric} has no prompt '{prompt.name}' "
                          f"(its prompts: {', '.join(metric.prompt_names)})")
    reference = builtin_prompt(prompt.metric, prompt.name, "english")
    if tuple(prompt.input_fields) != reference.input_fields:
        raise ConfigError(f"{path}: input_fields must be {list(reference.input_fields)} (the fields "
                          f"{prompt.metric} fills in), got {list(prompt.input_fields)}")
    if not set(prompt.truncatable) <= set(prompt.input_fields):
        raise ConfigError(f"{path}: truncatable fields {list(prompt.truncatable)} must be input fields")
    if not prompt.instruction.strip():
        raise ConfigError(f"{path}: the instruction is empty")
    for number, example in enumerate(prompt.examples, start=1):
        _check_example(metric, prompt, number, example.input, example.output, path)


def _check_example(metric: Any, prompt: PromptFile, number: int, inputs: Mapping[str, object],
                   output: dict[str, Any], path: Path) -> None:
    where = f"{path}: example {number}"
    if set(inputs) != set(prompt.input_fields):
        raise ConfigError(f"{where}: input must have exactly the fields {list(prompt.input_fields)}, "
                          f"got {sorted(inputs)}")
    for field, value in inputs.items():
        if not isinstance(value, (str, list)) or (isinstance(value, list) and not all(
                isinstance(v, str) for v in value)):
            raise ConfigError(f"{where}: input '{field}' must be text or a list of texts")
    try:
        metric.output_model(prompt.name, inputs).model_validate(output)
    except ValidationError as exc:
        raise ConfigError(f"{where}: output does not match the reply schema: "
                          f"{explain_validation(exc, limit=3)}") from None


def load_prompt_dir(directory: Path, metric_for: MetricLookup) -> dict[tuple[str, str, str], tuple[PromptFile, Path]]:
    """Every prompt file in a folder, keyed by (metric, name, language). Two files for the
    same prompt and language are an error: which one applies would be a guess."""
    if not directory.is_dir():
        raise ConfigError(f"prompts folder not found: {directory}")
    found: dict[tuple[str, str, str], tuple[PromptFile, Path]] = {}
    for path in sorted(directory.glob(f"*{SUFFIX}")):
        if path.name == ALIGN_RECORD:
            continue
        prompt = read_prompt_file(path, metric_for)
        key = (prompt.metric, prompt.name, prompt.language)
        if key in found:
            raise ConfigError(f"{directory}: {found[key][1].name} and {path.name} both define "
                              f"{prompt.metric}.{prompt.name} in {prompt.language}; keep one")
        found[key] = (prompt, path)
    return found


def export_files(metrics: list[Any], language: str = "english") -> dict[str, str]:
    """File name -> JSON text for every built-in prompt of `metrics` in `language`."""
    return {file_name(t): dump(to_file(t, m)) for m in metrics for t in m.prompts(language)}
