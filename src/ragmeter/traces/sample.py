"""Which traces a daily job scores: a seeded share of the traffic, spread evenly over time.

The traces are ordered by start time and cut into as many equal runs as traces are wanted;
one trace is drawn from each run. A share of 5% of a day's 2,000 traces is 100 traces, one
from each consecutive 20: busy hours get more, as they have more traffic, and no hour is
left out by chance. The same traces and seed give the same sample.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from ragmeter.errors import ConfigError

_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
T = TypeVar("T")


def time_stratified(items: list[T], share: float | None, seed: int, limit: int | None = None, *,
                    start: Callable[[T], Any], key: Callable[[T], str]) -> list[T]:
    """The chosen items (traces, sessions), in time order: all of them when no share is
    given. `start` gives an item's start time (ISO text or a datetime), `key` its id."""
    ordered = sorted(items, key=lambda item: (start_moment(start(item)), key(item)))
    wanted = len(ordered) if share is None else max(1, round(share * len(ordered)))
    wanted = min(wanted, limit) if limit else wanted
    if wanted >= len(ordered):
        return ordered
    draw = random.Random(seed)
    edges = [k * len(ordered) // wanted for k in range(wanted + 1)]
    return [ordered[draw.randrange(lo, hi)] for lo, hi in zip(edges, edges[1:])]


def start_moment(value: Any) -> datetime:
    """A span's start as an aware datetime (UTC where none is given); the earliest when unknown
    or not a time (it only orders spans for sampling)."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return datetime.min.replace(tzinfo=UTC)
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return datetime.min.replace(tzinfo=UTC)


def check_share(share: float | None) -> None:
    if share is not None and not 0 < share <= 1:
        raise ConfigError(f"--sample {share}: a share of the traces, above 0 and at most 1 (0.05 = 5%)")


def parse_time(text: str | None, flag: str, now: datetime | None = None) -> datetime | None:
    """`2026-11-23`, `2026-11-23T08:00`, an ISO time with its zone, or a span back from now
    (`30m`, `24h`, `7d`, `2w`); times without a zone are UTC."""
    if not text:
        return None
    now = now or datetime.now(UTC)
    unit = _UNITS.get(text[-1:].lower())
    if unit and text[:-1].isdigit():
        try:
            return now - timedelta(**{unit: int(text[:-1])})
        except OverflowError:
            raise ConfigError(f"{flag} {text}: further back than a date can be (year 1)") from None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(f"{flag} {text}: expected a date or time (2026-11-23, 2026-11-23T08:00) or a span "
                          "back from now (30m, 24h, 7d, 2w)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
