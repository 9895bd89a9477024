"""The row-first layout: a row's question and retrieved chunks first, then a metric's task.

In the template's own layout (instruction first) every metric that reads the contexts reads
them again after its own instruction, because a causal model's cells depend on everything
before them: a row with five retrieved chunks is prefilled five or six times. Here the row
comes first, in the same words for every metric (a system line, then `question:` and the
numbered `contexts:`), so the judge's KV cells for it are the same tokens for each metric and
an in-process judge computes them once per row (judges/llamacpp/prompt.py keeps them while the
row's metrics run); each metric's instruction and its other fields (the answer, the reference,
the sentences) follow in a second user message. A server with prefix caching (vLLM, llama.cpp)
gets the same sharing.

What the judge reads changes, so this is a layout of its own with its own prompt version (cache
keys and calibration lines do not carry over), chosen by the run's `layout` (prompts/prompt_set.py):
`auto` (the default: row-first where the row's chunks are long enough that reading them once
pays for each instruction read after them), `row`, or `instruction` (every template as
written). The template's few-shot examples follow its instruction inside the task, each marked
as another question than the row's:
without them the ratings' scale moved (XQuAD-es context_relevance: 96% of irrelevant paragraphs
scored 0.5 or more, 33% with the template's own layout, 54% with the examples here, on 48 rows;
docs/benchmarks.md, "Row-first layout").
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import cached_property
from typing import Any

from ragmeter.judges.base import Message
from ragmeter.prompts.template import PromptTemplate, format_inputs, shown_output, with_schema

#: bump when the layout's words change: it is part of every row-first prompt's version (the
#: "+examples" of the try that added them, kept so the measured replies stay cached)
LAYOUT_VERSION = "row-first/1+examples"
#: the input field a row-first prompt takes its question from, and those it may take its chunks from
QUESTION = "question"
CONTEXTS = ("contexts", "context")
#: the system line before the row, per prompt language (the English one for a language without one)
SYSTEM = {
    "english": "You judge the answers of a retrieval system. Read the question and the retrieved context "
               "chunks below; a task about them follows.",
    "spanish": "Evalúas las respuestas de un sistema de recuperación. Lee la pregunta y los fragmentos de "
               "contexto recuperados a continuación; después sigue una tarea sobre ellos.",
}
#: contexts of at least this many characters, together, are read row-first under `layout: auto`.
#: Measured with the bundled Qwen's tokenizer (English): each template's own instruction and
#: examples, restored from its saved prefix, cost nothing a row; row-first, the tasks after the
#: row (instruction and examples) are 197-235 tokens each, 1,084 for the five prompts of the
#: quickstart's metrics, and the row's system line 49. Reading a row of R tokens once instead of
#: five times pays when 4R > 1,133: R of about 285 tokens, 1,200 characters
AUTO_MIN_CHARS = 1200


def context_field(template: PromptTemplate) -> str:
    """The field of `template` that holds the retrieved chunks."""
    found = [f for f in CONTEXTS if f in template.input_fields]
    if QUESTION not in template.input_fields or not found:
        raise ValueError(f"{template.key} has no `{QUESTION}` and contexts fields: it cannot be read row-first")
    return found[0]


def chunks(value: object) -> list[str]:
    """The chunks of a contexts field: a list as given, a text as one chunk."""
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]


def reads_row_first(layout: str, contexts: object) -> bool:
    """Whether a prompt of a row with these contexts is read row-first under `layout`."""
    if layout == "auto":  # measured on the chunks joined, so the list and its joined text agree
        return len("\n".join(chunks(contexts))) >= AUTO_MIN_CHARS
    return layout == "row"


class RowFirst:
    """A PromptTemplate read row-first (a judges.base.Prompt): the same key, its own version."""

    row_first = True

    def __init__(self, template: PromptTemplate) -> None:
        self.template = template
        self._contexts = context_field(template)

    def _examples(self, reply_schema: dict[str, Any] | None) -> str:
        """The template's few-shot examples as text inside the task, each marked as not the row."""
        return "\n\n".join("Example (another question, not this row's):\n"
                           + format_inputs(self.template.input_fields, example.input)
                           + "\nReply: " + shown_output(example, reply_schema) for example in self.template.examples)

    @property
    def key(self) -> str:
        return self.template.key

    @cached_property
    def version(self) -> str:
        return hashlib.sha256(f"{self.template.version}|{LAYOUT_VERSION}".encode()).hexdigest()[:12]

    @property
    def truncatable(self) -> tuple[str, ...]:
        return self.template.truncatable

    def messages(self, inputs: Mapping[str, object], schema: dict[str, Any] | None = None,
                 reply_schema: dict[str, Any] | None = None) -> list[Message]:
        """System line, the row (question and numbered chunks), then the task: the instruction
        (with `schema` written in, for judges that cannot enforce it) and the other fields."""
        row = format_inputs((QUESTION, "contexts"),
                            {QUESTION: inputs[QUESTION], "contexts": chunks(inputs[self._contexts])})
        task = with_schema(self.template.instruction, schema)
        if self.template.examples:
            task += "\n\n" + self._examples(reply_schema)
        rest = tuple(f for f in self.template.input_fields if f not in (QUESTION, self._contexts))
        if rest:
            task += "\n\n" + format_inputs(rest, inputs)
        system = SYSTEM.get(self.template.language, SYSTEM["english"])
        return [{"role": "system", "content": system}, {"role": "user", "content": row},
                {"role": "user", "content": task}]
