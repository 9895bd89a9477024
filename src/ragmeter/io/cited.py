"""Pleias-style files (`text` + `generated_response`) as ragmeter samples.

Recognised by their columns, with no flag. Each row is parsed (citations/parse.py):
query -> user_input, sources -> retrieved_contexts with retrieved_context_ids, the answer
with its `<ref>` citations -> cited_response, and the answer without them -> response, so
the citation metrics and every other family run on the same file. A row that does not
parse stops the load with its row number and what is wrong; none is skipped.
"""

from __future__ import annotations

from ragmeter.citations.parse import CitationFormatError, parse_prompt, parse_row, strip_citations
from ragmeter.errors import DataError
from ragmeter.io.json_files import line_of
from ragmeter.samples import Sample

TEXT, RESPONSE, FINISH = "text", "generated_response", "generation_finish_reason"
CUT_OFF = "generation cut off at max_tokens (generation_finish_reason=length): not a finished answer"
CITED_FIELDS = {"user_input", "response", "cited_response", "retrieved_contexts", "retrieved_context_ids"}


def is_cited_file(columns: list[str], mapping: dict[str, str] | None) -> bool:
    """`text` and `generated_response` columns, and nothing mapped to the usual fields."""
    usual = {"user_input", "question", "query", "response", "answer"}
    return TEXT in columns and RESPONSE in columns and not mapping and not usual & set(columns)


def cited_samples(records: list[dict[str, object]], source: str, unit: str) -> list[Sample]:
    samples = []
    for index, record in enumerate(records, start=1):
        number = line_of(record, index, remove=True)
        samples.append(_sample(record, source, number, index, unit))
    return samples


def _sample(record: dict[str, object], source: str, number: int, index: int, unit: str) -> Sample:
    text, response = record.get(TEXT), record.get(RESPONSE)
    for column, value in ((TEXT, text), (RESPONSE, response)):
        if not isinstance(value, str):
            raise DataError(f"expected text, got {type(value).__name__}", source=source, row=number,
                            field=column, unit=unit)
    raw_id = record.get("id")
    sample_id = str(raw_id) if raw_id is not None else f"row-{index}"
    try:
        if record.get(FINISH) == "length":
            return _cut_off(sample_id, text, response)  # type: ignore[arg-type]
        row = parse_row(text, response)  # type: ignore[arg-type]
    except CitationFormatError as exc:
        raise DataError(str(exc), source=source, row=number, field=exc.field, unit=unit) from None
    return Sample(id=sample_id, user_input=row.query,
                  response=strip_citations(row.answer), cited_response=row.answer,
                  retrieved_contexts=[s.text for s in row.sources],
                  retrieved_context_ids=[s.id for s in row.sources],
                  metadata={"format": row.format, **({"analysis": row.analysis} if row.analysis else {})})


def _cut_off(sample_id: str, text: str, response: str) -> Sample:
    """A generation that stopped at max_tokens is not an answer: its prompt half is read (for
    metrics of the retrieval alone), and metrics of the response leave it unscored."""
    fmt, query, sources = parse_prompt(text)
    return Sample(id=sample_id, user_input=query, retrieved_contexts=[s.text for s in sources],
                  retrieved_context_ids=[s.id for s in sources], response_problem=CUT_OFF,
                  metadata={"format": fmt, "generated_response": response[:2000]})
