"""The prompts one run uses: built-in ones in the run's language, replaced by files from
a prompts folder where it has them. Every choice is recorded for the manifest, and a
prompt that differs from the built-in one is noted there, never silently used.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragmeter.errors import ConfigError
from ragmeter.prompts.files import MetricLookup, load_prompt_dir
from ragmeter.prompts.languages import has_builtin, normalize_language
from ragmeter.prompts.template import PromptTemplate, builtin_exists, builtin_or_english, builtin_prompt


@dataclass(frozen=True)
class ResolvedPrompt:
    template: PromptTemplate
    source: str  # "built-in" or the file's path
    note: str | None = None

    def record(self) -> dict[str, Any]:
        out = {"version": self.template.version, "language": self.template.language, "source": self.source}
        return {**out, "note": self.note} if self.note else out


class PromptSet:
    """Lookup by (metric, prompt name) for the metrics of one run."""

    def __init__(self, resolved: dict[tuple[str, str], ResolvedPrompt], language: str,
                 prompts_dir: str | None, layout: str = "instruction") -> None:
        self._resolved, self.language, self.prompts_dir = resolved, language, prompts_dir
        #: `instruction` (each template as written), `row` or `auto`: where the prompts that read
        #: a row's contexts put them (prompts/row_first.py)
        self.layout = layout

    @classmethod
    def build(cls, metrics: list[Any], language: str = "english", prompts_dir: str | Path | None = None,
              metric_for: MetricLookup | None = None, layout: str = "instruction") -> PromptSet:
        """`metric_for` (ragmeter.metrics.get_metric) checks a folder's files against their metrics."""
        language = normalize_language(language)
        if prompts_dir and metric_for is None:
            raise ValueError("PromptSet.build with a prompts folder needs metric_for (ragmeter.metrics.get_metric)")
        files = load_prompt_dir(Path(prompts_dir), metric_for) if prompts_dir and metric_for else {}
        resolved = {}
        for metric in metrics:
            for name in metric.prompt_names:
                owner = metric.prompt_metric
                resolved[(owner, name)] = _resolve(owner, name, language, files, prompts_dir, metric)
            for owner, name in metric.borrowed_prompts:  # another metric's built-in prompt (or a file for it)
                resolved[(owner, name)] = _resolve(owner, name, language, files, prompts_dir, None)
            for owner, name in metric.optional_prompts:  # the same, where the language has it
                try:
                    resolved.setdefault((owner, name), _resolve(owner, name, language, files, prompts_dir, None))
                except ConfigError:
                    continue
        return cls(resolved, language, str(prompts_dir) if prompts_dir else None, layout)

    def get(self, metric: str, name: str) -> PromptTemplate:
        return self._resolved[(metric, name)].template

    def replaced(self, templates: list[PromptTemplate], source: str) -> PromptSet:
        """This set with `templates` in place of the prompts of the same key (align.py's tries)."""
        resolved = dict(self._resolved)
        for template in templates:
            resolved[(template.metric, template.name)] = ResolvedPrompt(template, source)
        return PromptSet(resolved, self.language, self.prompts_dir, self.layout)

    def for_metric(self, metric: str) -> dict[str, ResolvedPrompt]:
        return {name: r for (m, name), r in self._resolved.items() if m == metric}

    def templates(self) -> list[PromptTemplate]:
        return [r.template for r in self._resolved.values()]

    def notes(self) -> list[str]:
        return [f"{m}.{n}: {r.note}" for (m, n), r in self._resolved.items() if r.note]


def _resolve(metric: str, name: str, language: str, files: dict[tuple[str, str, str], Any],
             prompts_dir: str | Path | None, owner: Any) -> ResolvedPrompt:
    found = files.get((metric, name, language))
    if found is None:
        if not has_builtin(language):
            where = f"{prompts_dir} has no {metric}.{name}.{language}.json and " if prompts_dir else ""
            raise ConfigError(f"{where}there is no built-in {language} prompt for {metric}.{name}; make one with "
                              f"`ragmeter prompts adapt --language {language} --out DIR` or export, translate "
                              f"and pass --prompts-dir DIR")
        # the metric's own prompts: built-in files, or those a user's metric ships
        template = next(t for t in owner.prompts(language) if t.name == name) if owner is not None \
            else builtin_or_english(metric, name, language)
        if template.language == language:
            return ResolvedPrompt(template, "built-in")
        # The English fallback is the prompt this run uses: a folder's English file (as
        # `prompts export --language X` writes it) replaces it like any other file would.
        fallback_file = files.get((metric, name, template.language))
        if fallback_file is None:
            return ResolvedPrompt(template, "built-in", f"no built-in {language} prompt for this metric yet: the "
                                                        "English one is used")
        found, language = fallback_file, template.language
    prompt_file, path = found
    template = prompt_file.template()
    return ResolvedPrompt(template, str(path), _note(prompt_file, template, metric, name, language))


def _note(prompt_file: Any, template: PromptTemplate, metric: str, name: str, language: str) -> str | None:
    notes = []
    if prompt_file.hash and prompt_file.hash != template.version:
        notes.append(f"edited since export (hash {prompt_file.hash} -> {template.version})")
    if builtin_exists(metric, name, language):
        builtin = builtin_prompt(metric, name, language).version
        if builtin != template.version:
            notes.append(f"differs from the built-in {language} prompt ({builtin})")
    else:
        notes.append(f"no built-in {language} prompt to compare with")
    if prompt_file.aligned:
        notes.append(f"examples chosen by `ragmeter align` from {prompt_file.aligned.get('labels', 'labels')}")
    if prompt_file.adapted:
        notes.append(f"machine-translated by {prompt_file.adapted.get('judge', 'a judge')}")
    return "; ".join(notes) or None
