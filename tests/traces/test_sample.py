"""Which traces a daily job scores, and the addresses and times the traces command takes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ragmeter.errors import ConfigError
from ragmeter.traces.phoenix import phoenix_url
from ragmeter.traces.sample import check_share, parse_time, time_stratified

START = datetime(2026, 11, 23, tzinfo=UTC)


def roots(n: int) -> list[dict]:
    """n root spans a minute apart, given out of order."""
    spans = [{"context": {"trace_id": f"{i:032x}"}, "start_time": (START + timedelta(minutes=i)).isoformat()}
             for i in range(n)]
    return spans[::-1]


def minute(span: dict) -> int:
    return int(span["context"]["trace_id"], 16)


def sample(spans: list[dict], share: float | None, seed: int, limit: int | None = None) -> list[dict]:
    return time_stratified(spans, share, seed, limit, start=lambda s: s["start_time"],
                           key=lambda s: s["context"]["trace_id"])


def test_a_share_takes_one_trace_from_each_equal_run_of_the_day_in_time_order():
    chosen = sample(roots(100), 0.05, seed=3)
    picked = [minute(s) for s in chosen]
    assert len(picked) == 5 and picked == sorted(picked)
    assert [m // 20 for m in picked] == [0, 1, 2, 3, 4]  # one from each consecutive 20 minutes
    assert sample(roots(100), 0.05, seed=3) == chosen  # seeded
    others = {tuple(minute(s) for s in sample(roots(100), 0.05, seed=s)) for s in range(10)}
    assert len(others) > 1  # the seed matters


def test_no_share_keeps_every_trace_and_limit_and_tiny_shares_are_bounded():
    assert [minute(s) for s in sample(roots(7), None, seed=0)] == list(range(7))
    assert len(sample(roots(100), 0.5, seed=0, limit=10)) == 10
    assert len(sample(roots(10), 0.001, seed=0)) == 1  # never nothing from a non-empty day
    for bad in (0.0, -0.1, 1.5):
        with pytest.raises(ConfigError, match="above 0 and at most 1"):
            check_share(bad)
    check_share(1.0)


def test_times_are_dates_iso_times_or_spans_back_from_now():
    now = datetime(2026, 11, 24, 12, tzinfo=UTC)
    assert parse_time("24h", "--since", now) == datetime(2026, 11, 23, 12, tzinfo=UTC)
    assert parse_time("7d", "--since", now) == now - timedelta(days=7)
    assert parse_time("30m", "--since", now) == now - timedelta(minutes=30)
    assert parse_time("2026-11-23", "--since") == datetime(2026, 11, 23, tzinfo=UTC)
    assert parse_time("2026-11-23T08:00+01:00", "--until").utcoffset() == timedelta(hours=1)
    assert parse_time(None, "--since") is None
    with pytest.raises(ConfigError, match="--since yesterday: expected a date or time"):
        parse_time("yesterday", "--since")


def test_a_phoenix_address_is_checked_and_never_echoes_a_key():
    assert phoenix_url("phoenix:http://127.0.0.1:6006/") == "http://127.0.0.1:6006"
    for bad in ("http://127.0.0.1:6006", "phoenix:127.0.0.1:6006", "phoenix:ftp://host"):
        with pytest.raises(ConfigError, match="written phoenix:http://HOST:PORT"):
            phoenix_url(bad)
    for secret in ("phoenix:http://me:sk-123@host:6006", "phoenix:http://host:6006?api_key=sk-123"):
        with pytest.raises(ConfigError, match="PHOENIX_API_KEY") as caught:
            phoenix_url(secret)
        assert "sk-123" not in str(caught.value)
