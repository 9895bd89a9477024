"""How times print on every line: one formatter."""

from __future__ import annotations


def test_one_formatter_shows_every_measured_time():
    from ragmeter.text import seconds

    # a latency was "7.7256 s", a per-question cost "1e+02 s"
    shown = [seconds(v) for v in (0.004, 0.42, 0.996, 7.7256, 9.96, 41.6161, 59.4, 59.6, 100.0, 4000.0)]
    assert shown == ["0.00 s", "0.42 s", "1.0 s", "7.7 s", "10 s", "42 s", "59 s", "1m00s", "1m40s", "1h06m"]


def test_secrets_are_redacted_from_every_printed_line(monkeypatch):
    """A proxy that echoes the Authorization header put the key on stderr (issue 37, item 19)."""
    from ragmeter.text import plain

    monkeypatch.setenv("MY_JUDGE_API_KEY", "hunter2-very-secret")
    monkeypatch.setenv("SHORT_KEY", "abc")  # too short to be told from ordinary words: left alone
    echoed = ("HTTP 400 from http://proxy/v1: {'headers': {'Authorization': 'Bearer hunter2-very-secret'}, "
              "'x': 'hunter2-very-secret', 'other': 'sk-proj-ABCDEFGHIJKLMNOPQRST', 'note': 'abc'}")
    shown = plain(echoed)
    assert "hunter2" not in shown and "sk-proj-ABCD" not in shown
    assert "Bearer [redacted]" in shown and "'note': 'abc'" in shown
