"""What a metric is: small, stateless, declares its fields, returns a Score with evidence."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast, get_args, get_origin

from pydantic import BaseModel, ConfigDict, ValidationError

from ragmeter.accounting import MetricStats
from ragmeter.errors import ConfigError
from ragmeter.prompts.row_first import CONTEXTS, RowFirst, reads_row_first
from ragmeter.prompts.template import PromptTemplate, builtin_or_english, builtin_prompt
from ragmeter.samples import Sample

if TYPE_CHECKING:
    from ragmeter.embeddings.base import EmbeddingSession
    from ragmeter.judges.base import Prompt
    from ragmeter.judges.session import JudgeSession
    from ragmeter.prompts.prompt_set import PromptSet

#: the characters of a metric's display label (`as:`), as an aspect's name: it names columns and is printed
LABEL_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-@")

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Score:
    """A value in [0, 1], or None (unscored) with the reason. Evidence is what the judge said."""

    value: float | None
    reason: str
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def scored(self) -> bool:
        return self.value is not None


class Unscorable(Exception):
    """Raised inside a metric when a row cannot get an honest score; becomes an unscored Score
    that keeps whatever evidence the metric had gathered."""

    def __init__(self, reason: str, evidence: dict[str, object] | None = None) -> None:
        super().__init__(reason)
        self.evidence = evidence or {}


def supported_share(flags: Sequence[float], empty_reason: str) -> float:
    """Mean of 0/1 verdicts or of P(supported): faithfulness, context recall, claim shares.
    No items is unscored, never NaN."""
    if not flags:
        raise Unscorable(empty_reason)
    return sum(flags) / len(flags)


class MetricContext:
    """What one metric sees for one row: the judge, the embedder, and its own counters."""

    def __init__(self, judge: JudgeSession | None, embeddings: EmbeddingSession | None, stats: MetricStats,
                 prompts: PromptSet | None = None) -> None:
        self._judge, self._embeddings, self.stats = judge, embeddings, stats
        self._prompts = prompts  # a PromptSet; None means the built-in English prompts
        self.truncated = False

    @property
    def language(self) -> str:
        """The run's language (its prompts' and its readers': reading/languages.py)."""
        return self._prompts.language if self._prompts is not None else "english"

    @property
    def layout(self) -> str:
        """Where the prompts that read a row's contexts put them (prompts/row_first.py)."""
        return self._prompts.layout if self._prompts is not None else "instruction"

    def prompt(self, metric: str, name: str) -> PromptTemplate:
        if self._prompts is None:
            return builtin_prompt(metric, name, "english")
        return self._prompts.get(metric, name)

    async def ask(self, prompt: PromptTemplate, inputs: Mapping[str, object], output: type[M],
                  max_tokens: int | None = None) -> M:
        return (await self.answer(prompt, inputs, output, max_tokens)).parsed

    async def answer(self, prompt: Prompt, inputs: Mapping[str, object], output: type[BaseModel],
                     max_tokens: int | None = None, evidence: tuple[str, str] | None = None) -> Any:
        """The whole Answer: the parsed reply and its label probabilities (and with `evidence`,
        the fields holding claims and evidence, their token PMI where the judge reads it)."""
        answer = await self._session().ask(prompt, inputs, output, self.stats, max_tokens, evidence)
        self.truncated = self.truncated or answer.truncated
        return answer

    @property
    def reads_tokens(self) -> bool:
        """Whether the judge reads prompt-token probabilities (judges/llamacpp/token_evidence.py)."""
        return self._judge is not None and self._judge.judge.reads_tokens

    async def read_tokens(self, prompt: PromptTemplate, inputs: Mapping[str, object], reads: tuple[str, str]) -> Any:
        """Token evidence of `reads[0]` given `reads[1]`, and the judge's line for the prompt."""
        found, truncated, rule = await self._session().read_tokens(prompt, inputs, reads, self.stats)
        self.truncated = self.truncated or truncated
        return found, rule

    async def embed(self, texts: list[str]) -> list[list[float]]:
        if self._embeddings is None:
            raise ConfigError("this metric needs embeddings and the run has none (embeddings: bundled, or a spec)")
        return await self._embeddings.embed(texts, self.stats)

    def _session(self) -> JudgeSession:
        if self._judge is None:
            raise ConfigError("this metric needs a judge and the run has none (give --judge)")
        return self._judge


class NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")


OptionsT = TypeVar("OptionsT", bound=BaseModel)


class Metric(ABC, Generic[OptionsT]):
    """Subclasses set the class attributes and implement `score`. Settings are validated once
    into `self.options`; nothing else is stored on self, so one instance serves every row.

    A metric with settings names their model as its type parameter (`class Faithfulness(
    Metric[FaithfulnessOptions])`): `Options` is taken from it, and `self.options` is typed,
    so a misspelt option is refused when the config is read and caught by mypy in the code.

    `name` is the registry name (prompts are found by it); `label` names the result column
    and defaults to `name` (or, e.g., `ndcg@5`, `aspect_critic_harmfulness`)."""

    name: ClassVar[str]
    Options: ClassVar[type[BaseModel]] = NoOptions
    #: the metric whose prompts this one sends (answer_correctness uses factual_correctness's)
    prompts_of: ClassVar[str | None] = None
    description: ClassVar[str]
    # Not ClassVars: a metric's needs may follow its settings (answer_correctness's weights,
    # faithfulness's statements), so an instance may set them in __init__.
    required: tuple[str, ...]
    #: prompts of other metrics this one sends, as (metric, prompt name): resolved for the run
    #: like its own (abstention's likelihood read is context_relevance's, with its fitted line)
    borrowed_prompts: tuple[tuple[str, str], ...] = ()
    #: other metrics' prompts a step uses where the run's language has them (built in, or a file
    #: in the prompts folder); where it has none, the step is skipped and says so
    optional_prompts: tuple[tuple[str, str], ...] = ()
    #: fields of which the data must have at least one (ranking: reference ids or grades)
    needs_one_of: ClassVar[tuple[str, ...]] = ()
    prompt_names: ClassVar[tuple[str, ...]] = ()
    #: the prompts whose label fields are the metric's judgment, higher = better: `ragmeter
    #: align` writes people's labelled rows into them as few-shot examples (meta_eval/align.py)
    aligned_prompts: ClassVar[tuple[str, ...]] = ()
    #: the prompts that read the row's question and retrieved chunks and are read row-first
    #: where the run's layout says so (prompts/row_first.py)
    row_first_prompts: ClassVar[tuple[str, ...]] = ()
    uses_judge: bool = True
    uses_embeddings: bool = False
    #: whether the metric's score reads words of the run's language (reading/languages.py): a
    #: run in a language without a vocabulary says `not covered` for it
    reads_language: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    version: ClassVar[str] = "1"

    def __init__(self, label: str | None = None, **options: Any) -> None:
        try:
            self.options: OptionsT = cast(OptionsT, self.Options(**options))
        except ValidationError as exc:
            from ragmeter.errors import ConfigError, explain_validation

            fields = ", ".join(self.Options.model_fields) or "none"
            raise ConfigError(f"metric {self.name}: {explain_validation(exc)} (settings: {fields})") from None
        if label and not set(str(label)) <= LABEL_CHARACTERS:
            from ragmeter.errors import ConfigError

            raise ConfigError(f"metric {self.name}: `as: {label!r}` must be letters, digits, _, - or @ (it names "
                              "result columns and is shown in tables and reports)")
        self.label = label or self.default_label()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """`Options` from the type parameter (`Metric[XOptions]`), unless the class sets it."""
        super().__init_subclass__(**kwargs)
        for base in getattr(cls, "__orig_bases__", ()):
            args = get_args(base)
            if get_origin(base) is not None and args and isinstance(args[0], type) and "Options" not in cls.__dict__:
                cls.Options = args[0]

    def default_label(self) -> str:
        return self.name

    def missing_fields(self, present: set[str]) -> list[str]:
        """What the data lacks for this metric: required fields, then an `a or b` alternative."""
        missing = [f for f in self.required if f not in present]
        if self.needs_one_of and not set(self.needs_one_of) & present:
            missing.append(" or ".join(self.needs_one_of))
        return missing

    def needs_text(self) -> str:
        return ", ".join([*self.required, *([" or ".join(self.needs_one_of)] if self.needs_one_of else [])])

    @property
    def prompt_metric(self) -> str:
        return self.prompts_of or self.name

    def prompts(self, language: str = "english") -> list[PromptTemplate]:
        """The built-in prompts in `language`, English where that language has none yet (a run
        may replace them from a prompts folder)."""
        return [builtin_or_english(self.prompt_metric, n, language) for n in self.prompt_names]

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        """The bounded reply schema for `prompt_name` given these inputs. The same function
        checks the few-shot examples of an edited or translated prompt file."""
        raise NotImplementedError(f"{self.name} sends no judge prompts")

    async def ask(self, ctx: MetricContext, prompt_name: str, inputs: Mapping[str, object],
                  max_tokens: int | None = None) -> Any:
        """Send one of this metric's prompts with the schema its inputs call for."""
        return (await self.answer(ctx, prompt_name, inputs, max_tokens)).parsed

    async def answer(self, ctx: MetricContext, prompt_name: str, inputs: Mapping[str, object],
                     max_tokens: int | None = None, evidence: tuple[str, str] | None = None) -> Any:
        """As `ask`, returning the Answer with its label probabilities (metrics/judgment.py)."""
        template = ctx.prompt(self.prompt_metric, prompt_name)
        prompt: Prompt = template
        if self.row_first(ctx, prompt_name, next((inputs[f] for f in CONTEXTS if f in inputs), "")):
            prompt = RowFirst(template)
        return await ctx.answer(prompt, inputs, self.output_model(prompt_name, inputs), max_tokens, evidence)

    def row_first(self, ctx: MetricContext, prompt_name: str, contexts: object) -> bool:
        """Whether `prompt_name`, for a row with these contexts, is read row-first in this run."""
        return prompt_name in self.row_first_prompts and reads_row_first(ctx.layout, contexts)

    @abstractmethod
    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        """Score one sample; raise Unscorable(reason) when no honest score exists."""


def count(value: object) -> int:
    """How many items a prompt input holds (the judge gives one verdict per item)."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"expected a list of items, got {type(value).__name__}")
    return len(value)


def text(value: object) -> str:
    """A prompt input that is text (an absent optional field reads as empty)."""
    return value if isinstance(value, str) else ""
