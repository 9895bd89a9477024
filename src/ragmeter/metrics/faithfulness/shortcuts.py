"""Faithfulness steps that decide a row before the verdicts, where a reader or a short
reading settles it: an answer copied from its contexts as written is supported (no call,
reading/copies.py); a short answer that declines is checked as the claim it makes, that the
contexts do not answer the question (abstention's prompts). They run after the claims are
cut (claims.py) and return a decision that settles the verdicts (decisions.py), so the views,
the literal check, the evidence and the verdicts leave the row alone."""

from __future__ import annotations

from dataclasses import dataclass

from ragmeter.metrics.base import MetricContext
from ragmeter.metrics.faithfulness.decisions import Decision
from ragmeter.metrics.faithfulness.options import CopiesOptions, DeclinesOptions
from ragmeter.metrics.faithfulness.steps import Grounding, is_short, off_loop
from ragmeter.metrics.judgment import Weighed
from ragmeter.reading.copies import copied
from ragmeter.reading.languages import vocabulary
from ragmeter.reading.words import STEM, match_words, word_count

#: the verdict of a unit copied from a context as written: supported, by construction
COPIED = Weighed(1.0, 1, None)
#: why a short answer that names nothing of the question was not read as a decline
NOT_READ = "declines not read: no abstention prompts in this language"


@dataclass(frozen=True)
class Copies:
    """An answer copied from its contexts as written (reading/copies.py) is supported without
    a judge call; a short answer is left to the judge, with its question."""

    options: CopiesOptions
    name: str = "copies"
    after_settled: bool = False

    async def run(self, row: Grounding, ctx: MetricContext) -> Decision | None:
        response = row.sample.response or ""
        if self.options.mode == "off" or is_short(response):
            return None
        found = await off_loop(row, copied, response, row.contexts, row.units)
        if found is None:
            return None
        for statement in row.statements:
            statement.verdict, statement.weighed = 1, COPIED
            statement.reason = "copied from the contexts as written (no judge call)"
        return Decision(self.name, "verdicts",
                        f"copied from the contexts as written ({len(found.runs)} run(s)), no judge call",
                        section={"copied": [{"run": run, "context": c} for run, c in zip(found.runs, found.contexts)]})


def names_the_subject(answer: str, question: str, language: str) -> bool:
    """Whether the answer may be about the question's subject: it repeats a word of the
    question that is not one of the language's frequent words, or the question has no such
    word to repeat (then nothing tells a decline from an answer without the judge's reading
    of both, and the answer is judged as a statement). A decline names nothing of the
    question ("The documents do not answer this question.")."""
    found = vocabulary(language)
    frequent = {w[:STEM] for w in found.stop_words} if found is not None else set()
    asked = set(match_words(question)) - frequent
    return not asked or bool(asked & (set(match_words(answer)) - frequent))


def has_prompts(ctx: MetricContext, metric: str, names: tuple[str, ...]) -> bool:
    """Whether the run has these prompts (built in for its language, or in its folder)."""
    try:
        for name in names:
            ctx.prompt(metric, name)
    except KeyError:
        return False
    return True


@dataclass(frozen=True)
class Declines:
    """A short answer that declines ("The documents do not say.") claims that the contexts do
    not answer the question; checked as that claim, not as a statement about the subject
    (which it never names: judged alone it fails whatever the contexts hold). Both readings
    are the judge's, in the run's language, with abstention's prompts: P(declines) from the
    question and the answer, then, for a decline, 1 - P(answerable) from the question and the
    contexts. Longer answers are judged as they are (their own statements say what they claim),
    and so are short ones (at most five words: "fix", "2017-07-17"), judged with their question:
    a decline that short ("No lo sé.") is read as an answer, a limit of this step."""

    options: DeclinesOptions
    name: str = "declines"
    after_settled: bool = False

    async def run(self, row: Grounding, ctx: MetricContext) -> Decision | None:
        from ragmeter.metrics.abstention import Abstention

        question, response = (row.sample.user_input or "").strip(), (row.sample.response or "").strip()
        if self.options.mode == "off" or not question or not any(c.strip() for c in row.contexts) or \
                is_short(response) or word_count(response) > self.options.words or \
                names_the_subject(response, question, row.language):
            return None
        if not has_prompts(ctx, "abstention", ("declines", "answerable")):
            return Decision(self.name, section={"declines": NOT_READ})
        reader = Abstention()
        declines = await reader.verdict(ctx, "declines", {"question": question, "answer": response})
        if declines.value < self.options.sure:
            return None
        context = "\n\n".join(c for c in row.contexts if c.strip())
        answerable = await reader.verdict(ctx, "answerable", {"context": context, "question": question})
        value = 1.0 - answerable.value
        declined = {"declines": round(declines.value, 4), "answerable": round(answerable.value, 4)}
        for statement in row.statements:
            statement.verdict, statement.weighed = int(value >= 0.5), Weighed(value, int(value >= 0.5), None)
            statement.reason = ("a decline: the contexts do not answer the question" if value >= 0.5
                                else "a decline, but the contexts answer the question")
        return Decision(self.name, "verdicts", f"a decline: P(the contexts answer the question) "
                        f"{declined['answerable']:.2f}", section={"declined": declined})
