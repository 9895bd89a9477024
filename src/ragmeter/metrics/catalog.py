"""The metric reference table, generated from the registry: `ragmeter metrics --markdown`
prints it and docs/metrics.md holds it between markers (a test fails when the two drift)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

from ragmeter.metrics import REGISTRY, get_metric

if TYPE_CHECKING:
    from ragmeter.metrics.base import Metric

START, END = "<!-- metric-table:start (generated: ragmeter metrics --markdown) -->", "<!-- metric-table:end -->"


def uses(metric: Metric) -> str:
    """What a metric calls with its default settings: judge, embeddings, both, or neither."""
    parts = [p for p, used in (("judge", metric.uses_judge), ("embeddings", metric.uses_embeddings)) if used]
    return "+".join(parts) or "none"


def settings(metric: Metric) -> str:
    """Each setting with its default."""
    return ", ".join(_defaults(metric.Options)) or "-"


def _defaults(options: type[BaseModel], prefix: str = "") -> list[str]:
    """`key=default` per setting; a step's group of settings as `step.key=default`."""
    out = []
    for key, field in options.model_fields.items():
        if isinstance(field.default, BaseModel):
            out += _defaults(type(field.default), f"{prefix}{key}.")
        else:
            out.append(f"{prefix}{key}={_default(field.default)}")
    return out


def _default(value: object) -> str:
    return "required" if repr(value) == "PydanticUndefined" else str(list(value) if isinstance(value, tuple) else value)


def rows() -> list[tuple[str, str, str, str, str]]:
    out = []
    for name in REGISTRY:
        m = get_metric(name)
        out.append((name, m.needs_text(), uses(m), settings(m), m.description))
    return out


def markdown() -> str:
    """The table as Markdown, between the markers in docs/metrics.md."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = [START, "| metric | needs | uses | settings (default) | what it measures |", "|---|---|---|---|---|"]
    lines += [f"| `{n}` | {cell(needs)} | {u} | {cell(s)} | {cell(d)} |" for n, needs, u, s, d in rows()]
    return "\n".join([*lines, END])
