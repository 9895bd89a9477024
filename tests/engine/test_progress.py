"""Progress off a terminal: a plain line every few seconds with rows done, rate and ETA."""

from __future__ import annotations

import io
import time

from ragmeter.engine.progress import _Lines, row_progress


def test_lines_report_rows_rate_and_eta():
    stream = io.StringIO()
    with _Lines(total=4, every=0.05, stream=stream) as lines:
        time.sleep(0.12)
        lines.advance()
        lines.advance()
        time.sleep(0.12)
    text = stream.getvalue().splitlines()
    assert text and text[0].startswith("ragmeter: 0/4 rows") and "ETA unknown" in text[0]
    assert text[-1].startswith("ragmeter: 2/4 rows") and "rows/s" in text[-1] and "ETA 0s" in text[-1]


def test_off_a_terminal_progress_is_lines_and_can_be_turned_off(monkeypatch, capsys):
    monkeypatch.setenv("RAGMETER_PROGRESS_SECONDS", "0.05")
    with row_progress(3, None) as bar:
        bar.advance()
        time.sleep(0.12)
    assert "ragmeter: 1/3 rows" in capsys.readouterr().err
    with row_progress(3, False) as bar:
        bar.advance()
        time.sleep(0.12)
    assert capsys.readouterr().err == ""
