"""Human-labelled rows for meta-evaluation, and what kind of label they carry.

A row has a `label` and ragmeter's fields (user_input, retrieved_contexts, response,
reference) or the shared/data/meta-eval names (question, contexts, answer). The kind:
- binary: every label is 0/1 (or true/false);
- ordinal: whole numbers with more than two levels (e.g. 1-5);
- pairwise: `response` (or `answer`) is a list of two answers and the label a preference,
  > 0 when the second is better, < 0 when the first is, 0 for a tie.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from ragmeter.errors import DataError
from ragmeter.io.formats import unit_of

LabelKind = Literal["binary", "ordinal", "pairwise"]
ALIASES = {"user_input": ("user_input", "question"), "retrieved_contexts": ("retrieved_contexts", "contexts"),
           "response": ("response", "answer"), "reference": ("reference",)}


def load_labelled(path: str | Path, limit: int | None = None,
                  label_column: str = "label") -> list[dict[str, Any]]:
    """Labelled rows as ragmeter rows (id, user_input, retrieved_contexts, response, reference,
    label); `response` stays a pair for pairwise files."""
    from ragmeter.io.data_file import open_data_file
    from ragmeter.io.json_files import line_of

    file = open_data_file(path)
    records, source = file.records(), file.source
    rows = []
    for number, raw in enumerate(records, start=1):
        line = line_of(raw, number)
        if raw.get(label_column) is None:
            raise DataError(f"no label (column '{label_column}')", source=source, row=line, field=label_column,
                            unit=file.unit)
        row: dict[str, Any] = {"id": str(raw.get("id", f"row-{number}")), "label": raw[label_column],
                               "__line__": line}
        for field, names in ALIASES.items():
            row[field] = next((raw[n] for n in names if raw.get(n) is not None), None)
        row["retrieved_contexts"] = row["retrieved_contexts"] or []
        rows.append(row)
    return rows[:limit] if limit else rows


def label_kind(rows: list[dict[str, Any]], source: str) -> LabelKind:
    """Which agreement measures apply; a clear error for labels that fit none."""
    if not rows:
        raise DataError("no labelled rows", source=source)
    if all(isinstance(r["response"], list) for r in rows):
        for r in rows:
            if len(r["response"]) != 2 or not _number(r["label"]):
                raise DataError("a pairwise row needs two answers and a numeric preference",
                                source=source, row=r["__line__"], field="label", unit=unit_of(source))
        return "pairwise"
    for r in rows:
        if not _number(r["label"]) or float(r["label"]) != int(r["label"]):
            raise DataError(f"label {r['label']!r} is not binary (0/1), ordinal (whole numbers, e.g. 1-5) or a "
                            "pairwise preference (with two answers)", source=source, row=r["__line__"],
                            field="label", unit=unit_of(source))
    levels = {int(r["label"]) for r in rows}
    if levels <= {0, 1}:
        if len(levels) < 2:
            raise DataError(f"every label is {levels.pop()}: agreement needs both 0 and 1", source=source)
        return "binary"
    return "ordinal"


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and value == value  # bool is an int: true/false are 1/0
