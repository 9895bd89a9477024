"""How much the evidence makes each claim token more or less likely: conditional PMI.

For every token of a claim, log P(token | instruction, evidence, claim so far) minus
log P(token | instruction, claim so far): two prefills of the same prompt, with and without
the evidence, no decoding (van der Poel et al. 2022). A sentence copied from the context is
made much more likely by it; an unrelated one is not; a "not" or a number the context
contradicts is made *less* likely, which a small judge's yes/no often misses
(shared/notes/bundled-judge.md: minimum token PMI tells copied from negated sentences at
ROC-AUC 0.98 where the verdict passes them). Per claim the backend reports the minimum and
the mean over its tokens; judges/calibration.py combines them with the verdict where a
combiner was fitted on human labels for that prompt version.

In-process llama.cpp only: it needs log-probabilities of prompt tokens, which servers
rarely return. The claims are found by their text in the request's last message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def claim_spans(data: bytes, claims: Sequence[str]) -> list[tuple[int, int] | None]:
    """Byte spans of each claim (UTF-8) in `data`, searched from the end: the last claim where
    it last occurs, each other one last before the next. The claims come after the evidence,
    and a copied claim occurs in the evidence too. None for one not found."""
    out: list[tuple[int, int] | None] = []
    end = len(data)
    for claim in reversed(claims):
        needle = claim.encode("utf-8")
        at = data.rfind(needle, 0, end) if needle else -1
        out.append(None if at < 0 else (at, at + len(needle)))
        if at >= 0:
            end = at
    return out[::-1]


def byte_offsets(pieces: Sequence[bytes]) -> list[tuple[int, int]]:
    """(start, end) of each token's bytes in their concatenation."""
    out, at = [], 0
    for piece in pieces:
        out.append((at, at + len(piece)))
        at += len(piece)
    return out


def tokens_in(span: tuple[int, int], offsets: Sequence[tuple[int, int]]) -> list[int]:
    """Indices of the tokens whose bytes overlap `span` (a leading-space token counts)."""
    lo, hi = span
    return [i for i, (a, b) in enumerate(offsets) if a < hi and b > lo and b > a]


def summary(pmi: Sequence[float], texts: Sequence[str] = ()) -> dict[str, object] | None:
    """The per-claim features: minimum and mean token PMI (nats), the token count, and (given
    the tokens' texts) the token the evidence makes least likely, for a person to read."""
    if not pmi:
        return None
    out: dict[str, Any] = {"min": round(min(pmi), 4), "mean": round(sum(pmi) / len(pmi), 4), "tokens": len(pmi)}
    if texts:
        out["weakest"] = texts[min(range(len(pmi)), key=pmi.__getitem__)].strip()
    return out


def claim_tokens(pieces: Sequence[bytes], row: str, claims: Sequence[str]) -> list[list[int]]:
    """For each claim, the indices of its tokens among tokens whose bytes are `pieces`; the
    claims are searched in `row` (the last message), found where it last occurs in them."""
    offsets = byte_offsets(pieces)
    text = b"".join(pieces)
    start = max(0, text.rfind(row.encode("utf-8")))
    return [[] if span is None else tokens_in((span[0] + start, span[1] + start), offsets)
            for span in claim_spans(text[start:], claims)]


def features(with_lp: dict[int, float], bare_lp: dict[int, float], with_idx: list[int], bare_idx: list[int],
             with_tokens: Sequence[int], bare_tokens: Sequence[int],
             text: Callable[[int], str] | None = None) -> dict[str, object] | None:
    """PMI features of one claim from the log-probabilities read in both prompts; None where
    the claim was tokenized differently in the two (nothing to compare token by token)."""
    if not with_idx or [with_tokens[i] for i in with_idx] != [bare_tokens[i] for i in bare_idx]:
        return None
    pairs = [(i, j) for i, j in zip(with_idx, bare_idx) if i in with_lp and j in bare_lp]
    pmi = [with_lp[i] - bare_lp[j] for i, j in pairs]
    return summary(pmi, [text(with_tokens[i]) for i, _ in pairs] if text is not None else ())


Line = tuple[str, float, float]


def combined_lines(combiner: tuple[str, float, float, float, float] | None,
                   found: Sequence[dict[str, object] | None], plain: tuple[Line, ...]) -> tuple[Line, ...]:
    """One label line per claim: the combiner with the claim's PMI folded into the intercept
    (slope * logit(p) + intercept + w_min * min + w_mean * mean), or the plain Platt line of
    that field for a claim without features. No combiner: the plain lines as they are."""
    if combiner is None:
        return plain
    from ragmeter.judges.calibration import combined_line

    field, *weights = combiner
    fallback = next((ln for ln in plain if ln[0] == field), (field, 1.0, 0.0))
    return tuple(fallback if f is None else (field, *combined_line(weights, f))
                 for f in found) + tuple(ln for ln in plain if ln[0] != field)
