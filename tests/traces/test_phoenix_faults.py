"""A Phoenix that answers with an HTML page, or keeps sending next-page cursors, is one line
(exit 3), not a traceback or a loop without end (issue 37, item 16)."""

from __future__ import annotations

import pytest

from ragmeter.traces import phoenix
from tests.cli_runner import run_cli
from tests.http_fakes import JSONHandler, serving


class HTMLPage(JSONHandler):
    def do_GET(self) -> None:
        data = b"<html><body>Sign in to continue</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


SPAN = {"id": "1", "name": "rag", "context": {"trace_id": "0123456789abcdef0123456789abcdef",
                                               "span_id": "0123456789abcdef"},
        "span_kind": "CHAIN", "parent_id": None, "start_time": "2026-11-25T10:00:00Z",
        "end_time": "2026-11-25T10:00:01Z", "status_code": "OK", "status_message": "", "attributes": {},
        "events": []}


class EndlessPages(JSONHandler):
    def do_GET(self) -> None:
        if "/projects" in self.path and "/spans" not in self.path:
            self._send({"data": {"id": "p", "name": "default"}})
        else:
            self._send({"data": [SPAN], "next_cursor": "more"})


def test_an_html_page_is_one_line():
    with serving(HTMLPage) as url:
        done = run_cli("traces", f"phoenix:{url}", "--out", "/tmp/never.jsonl")
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert "answered with something that is not its JSON" in done.stderr


def test_endless_next_page_cursors_stop(monkeypatch, tmp_path):
    monkeypatch.setattr(phoenix, "MAX_PAGES", 25)
    with serving(EndlessPages) as url:
        done = run_cli("traces", f"phoenix:{url}", "--out", str(tmp_path / "rows.jsonl"))
    assert done.returncode == 3 and "kept answering with more pages (25 requests" in done.stderr
    assert not (tmp_path / "rows.jsonl").exists()


@pytest.mark.parametrize("proxy", ["::::", "http://host:notaport"])
def test_a_malformed_proxy_is_one_line(proxy, tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "a", "user_input": "q?", "response": "a", "reference": "a"}\n')
    done = run_cli("evaluate", str(data), "--metrics", "answer_correctness", "--judge",
                   "openai-compat:http://judge.test:9/v1#m", "--out", str(tmp_path / "run"),
                   env={"HTTP_PROXY": proxy, "HTTPS_PROXY": proxy, "NO_PROXY": None, "no_proxy": None})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "the proxy in HTTP_PROXY (or http_proxy, or ALL_PROXY where neither is set) is not a URL ragmeter can use" in done.stderr
    assert "notaport" not in done.stderr  # the value may hold a password: never echoed
