"""Faithfulness's claims step: the statements to judge, cut from the answer (its parts, its
sentences, the whole response, or the judge's own statements), a short answer with its question,
and, where each statement is judged in a call of its own, each part under its lead and with the
part before it, never with one after it (issue 72)."""

from __future__ import annotations

from dataclasses import dataclass

from ragmeter.metrics.base import MetricContext, Unscorable
from ragmeter.metrics.faithfulness.decisions import Decision, Voted, no_claim
from ragmeter.metrics.faithfulness.options import ClaimsOptions
from ragmeter.metrics.faithfulness.steps import NO_STATEMENTS, Asker, Grounding, Statement, is_short
from ragmeter.metrics.schemas import unique
from ragmeter.prompts.reader import part_names, reader_instructions
from ragmeter.reading.blocks import parts, states_something, with_leads
from ragmeter.reading.copies import scaffolding
from ragmeter.reading.echoes import states_nothing
from ragmeter.reading.sentences import split_sentences
from ragmeter.reading.words import match_words
from ragmeter.samples import Sample

#: answer words a rewrite states rather than repeats
POLAR = {"yes", "true", "false"}
#: parts judged at most: beyond this, neighbouring parts are judged together (one call's length)
MAX_PARTS = 8


@dataclass(frozen=True)
class Claims:
    """The statements to judge: the response whole, its sentences, its parts, or the judge's
    own statements; a short answer with its question (metric.py's options say which)."""

    options: ClaimsOptions
    judge: Asker
    #: `each` (every statement judged alone): a part under a label ("The formats are:") is judged
    #: with it, and a part that only addresses the judge is no claim
    calls: str = "one"
    name: str = "claims"
    after_settled: bool = False

    async def run(self, row: Grounding, ctx: MetricContext) -> Decision | None:
        options, sample = self.options, row.sample
        response = sample.response or ""
        # the row's units, cut once: labels, empty list items, questions, the reader prompt's words
        if response.strip() and states_nothing(row.units, reader_instructions(), part_names()):
            return no_claim(self.name, "the answer states nothing a context could support")
        found, repeats = await self.found(sample, response, ctx)
        if not found:
            raise Unscorable(NO_STATEMENTS)
        short = self.with_question(sample)
        voted = row.found(Voted)
        if self.calls == "each" and voted:  # judged alone, a vote reaches no other verdict: no claim
            found = [kept for text in found if (kept := _without(text, voted.units))] or found
        row.statements = [Statement(text) for text in found]
        row.repeats = repeats
        row.source = f"short answer: {options.short_answers}" if short else options.statements
        return None

    async def found(self, sample: Sample, response: str, ctx: MetricContext) -> tuple[list[str], int]:
        options = self.options
        if self.with_question(sample):
            return await self.standalone(str(sample.user_input), response.strip(), ctx), 0
        if options.statements == "response":
            return [response.strip()], 0
        if options.statements == "sentences":
            return split_sentences(response), 0
        if options.statements == "parts":
            cut, repeats = parts(response, merge=self.calls != "each")
            if self.calls == "each":
                return windows(grouped(with_leads(cut, scaffolding()), MAX_PARTS), options.before), repeats
            return grouped(cut, MAX_PARTS), repeats
        written = await self.judge.ask(ctx, "statements", {"question": sample.user_input, "answer": response})
        return unique(written.statements), len(written.statements) - len(unique(written.statements))

    async def standalone(self, question: str, answer: str, ctx: MetricContext) -> list[str]:
        """A short answer as the claim it makes with its question. A rewrite that drops the
        answer's own words (but yes or no) is not trusted: question and answer are judged
        together then."""
        if self.options.short_answers == "rewrite":
            written = await self.judge.ask(ctx, "statements", {"question": question, "answer": answer})
            found = unique(written.statements)
            if found and (set(match_words(answer)) - POLAR <= set(match_words(found[0]))):
                return found
        return [f"{question.strip()} {answer}"]

    def with_question(self, sample: Sample) -> bool:
        """A short answer judged with its question (the judge's own statements read it anyway)."""
        options = self.options
        return bool(sample.user_input) and options.short_answers != "alone" and \
            options.statements != "judge" and is_short(sample.response or "")


def windows(pieces: list[str], before: int) -> list[str]:
    """Each piece with the `before` pieces just before it, a line shown once (a lead two pieces
    share is not repeated): what a reader had read when the piece was written, nothing after it."""
    return ["\n".join(dict.fromkeys(line for p in pieces[max(0, k - before):k + 1] for line in p.splitlines()))
            for k in range(len(pieces))]


def _without(text: str, votes: tuple[str, ...]) -> str:
    """`text` without the units that address the judge, "" when nothing that states is left."""
    for vote in votes:
        text = text.replace(vote, "")
    return text.strip() if states_something(text) else ""


def grouped(items: list[str], limit: int) -> list[str]:
    """At most `limit` items: neighbours joined into near-equal runs when there are more."""
    if len(items) <= limit:
        return items
    size = -(-len(items) // limit)
    return ["\n".join(items[i:i + size]) for i in range(0, len(items), size)]
