"""The HTTP judge against scripted HTTP transports and a closed local port."""

from __future__ import annotations

import asyncio
import json
import socket

import httpx
import pytest

import ragmeter
from ragmeter.errors import ConfigError, JudgeUnavailable
from ragmeter.judges.openai_compat import OpenAICompatJudge
from ragmeter.judges.spec import parse_judge_spec

ROW = {"id": "r1", "user_input": "q?", "response": "a.", "retrieved_contexts": ["c1"], "reference": "r."}
SECRET = "sk-test-DO-NOT-LEAK-1234567890"


def chat_reply(content: dict | str, finish: str = "stop") -> dict:
    text = content if isinstance(content, str) else json.dumps(content)
    return {"choices": [{"message": {"content": text}, "finish_reason": finish}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 5}}


def relevance_server(log: list, fail_first: int = 0, reject_schema: bool = False):
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": []})
        body = json.loads(request.content)
        log.append({"headers": dict(request.headers), "body": body})
        if len(log) <= fail_first:
            return httpx.Response(503, text="overloaded")
        if reject_schema and "response_format" in body:
            return httpx.Response(400, text="unsupported response_format json_schema")
        return httpx.Response(200, json=chat_reply({"rating": 2}))
    return httpx.MockTransport(handler)


def judge_with(transport, **kw) -> OpenAICompatJudge:
    return OpenAICompatJudge("http://judge.test/v1", "m", transport=transport, **kw)


def test_spec_strings():
    cfg = parse_judge_spec("openai-compat:http://127.0.0.1:8000/v1#Qwen/Qwen2.5-7B")
    assert (cfg.backend, cfg.base_url, cfg.model) == ("openai-compat", "http://127.0.0.1:8000/v1", "Qwen/Qwen2.5-7B")
    cfg = parse_judge_spec("openai:gpt-4o-mini")
    assert (cfg.base_url, cfg.api_key_env) == ("https://api.openai.com/v1", "OPENAI_API_KEY")
    assert parse_judge_spec("llamacpp:/m/x.gguf").model == "/m/x.gguf"
    assert parse_judge_spec({"spec": "openai:gpt-4o", "temperature": 0.5}).temperature == 0.5
    with pytest.raises(ConfigError, match="unknown judge backend 'gpt4'"):
        parse_judge_spec("gpt4:x")
    with pytest.raises(ConfigError, match="expected openai-compat:http://HOST:PORT/v1#MODEL"):
        parse_judge_spec("openai-compat:localhost:8000")


def test_json_schema_requested_and_transient_errors_retried():
    log: list = []
    judge = judge_with(relevance_server(log, fail_first=2))
    result = ragmeter.evaluate([ROW], ["context_relevance"], judge=judge, cache=False, progress=False, retries=3)
    assert result.rows[0]["context_relevance"] == 1.0
    assert len(log) == 4  # two 503s retried, then two templates
    fmt = log[-1]["body"]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"]["properties"]["rating"]["enum"] == [0, 1, 2]
    assert log[-1]["body"]["temperature"] == 0.0 and log[-1]["body"]["seed"] == 42
    assert result.manifest["metrics"]["context_relevance"]["prompt_tokens"] == 22


def test_server_without_json_schema_falls_back_to_prompted_json(tmp_path):
    log: list = []
    judge = judge_with(relevance_server(log, reject_schema=True))
    identity = judge.identity()
    cache = tmp_path / "c.sqlite"
    result = ragmeter.evaluate([ROW], ["context_relevance"], judge=judge, cache=cache, progress=False)
    assert result.rows[0]["context_relevance"] == 1.0
    assert judge.identity() == identity  # the fallback never changes the cache key
    assert len(log) == 3  # refused once, then the two templates with the schema in the prompt
    for post in log[1:]:
        assert "response_format" not in post["body"]
        assert "matching this JSON schema" in post["body"]["messages"][0]["content"]
    again = ragmeter.evaluate([ROW], ["context_relevance"], judge=judge_with(relevance_server(log, reject_schema=True)),
                              cache=cache, progress=False)
    assert len(log) == 3 and again.manifest["metrics"]["context_relevance"]["judge_calls"] == 0
    assert again.rows[0]["context_relevance"] == 1.0


@pytest.mark.parametrize("body", [{}, {"choices": []}, {"error": {"message": "upstream model crashed"}}])
def test_a_200_without_choices_is_retried_then_one_line(body):
    calls: list = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": []})
        calls.append(1)
        return httpx.Response(200, json=body)

    judge = judge_with(httpx.MockTransport(handler))
    result = ragmeter.evaluate([ROW], ["context_relevance"], judge=judge, cache=False, progress=False, retries=1)
    reason = result.rows[0]["context_relevance_reason"]  # the row's failure, not the run's (issue 37)
    assert "has no choices" in reason and "\n" not in reason
    assert len(calls) == 4  # two attempts, and two more when failed calls are tried again at the end
    if "error" in body:
        assert "upstream model crashed" in reason


def test_retry_after_is_honoured(monkeypatch):
    from ragmeter.judges import retry

    waits: list[float] = []

    async def no_sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(retry.asyncio, "sleep", no_sleep)
    answers = iter([httpx.Response(429, headers={"Retry-After": "3"}, text="slow down"),
                    httpx.Response(503, headers={"Retry-After": "999"}, text="busy")])

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": []})
        return next(answers, None) or httpx.Response(200, json=chat_reply({"rating": 2}))

    judge = judge_with(httpx.MockTransport(handler))
    result = ragmeter.evaluate([ROW], ["context_relevance"], judge=judge, cache=False, progress=False, retries=3)
    assert result.rows[0]["context_relevance"] == 1.0
    assert waits[0] >= 3.0  # the server's 3 s, not the 0.5-1 s backoff
    assert waits[1] == 30.0  # capped at the policy's max_backoff


def test_missing_api_key_fails_before_any_row(monkeypatch):
    monkeypatch.delenv("RAGMETER_TEST_KEY", raising=False)
    log: list = []
    judge = judge_with(relevance_server(log), api_key_env="RAGMETER_TEST_KEY")
    with pytest.raises(ConfigError, match="needs an API key: set the environment variable RAGMETER_TEST_KEY"):
        ragmeter.evaluate([ROW], ["context_relevance"], judge=judge, cache=False, progress=False)
    assert log == []


def test_unreachable_server_fails_before_rows_naming_the_url():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    url = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(JudgeUnavailable, match=f"cannot reach the judge server at {url}"):
        ragmeter.evaluate([ROW], ["context_relevance"], judge=f"openai-compat:{url}#m", cache=False, progress=False)


def test_api_key_never_reaches_results_manifest_or_cache(monkeypatch, tmp_path, isolated_cache):
    monkeypatch.setenv("RAGMETER_TEST_KEY", SECRET)
    log: list = []
    judge = judge_with(relevance_server(log), api_key_env="RAGMETER_TEST_KEY")
    result = ragmeter.evaluate([ROW], ["context_relevance"], judge=judge, cache=isolated_cache,
                               out=tmp_path / "out", progress=False)
    assert log[0]["headers"]["authorization"] == f"Bearer {SECRET}"  # it was used...
    for path in [result.results_path, result.manifest_path, isolated_cache]:
        assert SECRET.encode() not in path.read_bytes()  # ...and stored nowhere
    assert "RAGMETER_TEST_KEY" in result.manifest_path.read_text()  # only the variable's name


def test_unreachable_server_with_a_cache_does_not_claim_anything_to_resume(isolated_cache):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(JudgeUnavailable) as info:
        ragmeter.evaluate([ROW], ["context_relevance"], judge=f"openai-compat:http://127.0.0.1:{port}/v1#m",
                          cache=isolated_cache, progress=False)
    assert "resume" not in str(info.value)


def test_a_raw_prompt_goes_verbatim_to_completions_with_its_stop_string():
    """`ragmeter generate --format special-tokens` through vLLM or llama.cpp's server."""
    from ragmeter.judges.base import JudgeRequest

    log = []

    def handler(request: httpx.Request) -> httpx.Response:
        log.append((request.url.path, json.loads(request.content)))
        return httpx.Response(200, json={"choices": [{"text": "ana<|analysis_end|>", "finish_reason": "stop"}],
                                         "usage": {"prompt_tokens": 7, "completion_tokens": 3}})

    judge = judge_with(httpx.MockTransport(handler))  # a chat judge: the raw prompt still uses /completions
    request = JudgeRequest([], None, 64, "generate", prompt="<|query_start|>q<|query_end|><|analysis_start|>",
                           stop=("<|answer_end|>",))
    reply = asyncio.run(judge.complete(request))
    path, body = log[0]
    assert path.endswith("/completions") and not path.endswith("/chat/completions")
    assert body["prompt"] == "<|query_start|>q<|query_end|><|analysis_start|>"
    assert body["stop"] == ["<|answer_end|>"] and "messages" not in body and body["max_tokens"] == 64
    assert reply.text == "ana<|analysis_end|>"


def test_the_manifest_counts_the_faults_of_every_process_of_the_run(monkeypatch, tmp_path):
    from ragmeter.judges import retry

    async def no_sleep(seconds: float) -> None:
        return None

    monkeypatch.setattr(retry.asyncio, "sleep", no_sleep)
    rows = [ROW, {**ROW, "id": "r2", "user_input": "q2?"}]
    cache = tmp_path / "c.sqlite"
    down = judge_with(httpx.MockTransport(
        lambda r: httpx.Response(200, json={"data": []}) if r.url.path.endswith("/models")
        else httpx.Response(503, text="down")))
    first = ragmeter.evaluate(rows, ["context_relevance"], judge=down, cache=cache, progress=False, retries=2)
    assert first.manifest["faults"]["failed_calls"] == 2  # both rows failed, twice three attempts each
    assert first.manifest["faults"]["http_errors"] == {"503": 12}
    log: list = []
    result = ragmeter.evaluate(rows, ["context_relevance"], judge=judge_with(relevance_server(log, fail_first=1)),
                               cache=cache, progress=False, retries=2)
    faults = result.manifest["faults"]
    assert faults["http_errors"] == {"503": 13} and faults["retries"] == 9 and faults["processes"] == 2
    assert faults["failed_calls"] == 0
    assert faults["timeouts"] == faults["reasks"] == faults["unparseable"] == 0
    again = ragmeter.evaluate(rows, ["context_relevance"], judge=judge_with(relevance_server([])), cache=cache,
                              progress=False, retries=2)
    assert again.manifest["faults"]["retries"] == 9 and again.manifest["faults"]["processes"] == 3


def test_embeddings_share_the_url_and_settings_checks():
    from ragmeter.embeddings import make_embedder

    with pytest.raises(ConfigError, match="embeddings: the URL http://h/v1 must not hold credentials") as err:
        make_embedder("openai-compat:http://u:sk-EMBKEY@h/v1#m")
    assert "EMBKEY" not in str(err.value)
    with pytest.raises(ConfigError, match=r"embeddings openai: unknown setting\(s\) dimension; settings: base_url"):
        make_embedder({"backend": "openai", "model": "m", "dimension": 3})


def test_reasons_none_sends_a_schema_without_reasons_and_scores_the_same():
    """A paid judge with `reasons: none` is asked for verdicts only; the reply is completed with
    empty reasons (said so in the evidence), and the score is the one a reply with reasons gives."""
    log: list = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": []})
        body = json.loads(request.content)
        log.append(body)
        verdict = body["response_format"]["json_schema"]["schema"]["$defs"]["Verdict"]["properties"]
        item = {"verdict": 1, **({"reason": "The context says a."} if "reason" in verdict else {})}
        reply = chat_reply({"verdicts": [item]})
        reply["usage"]["completion_tokens"] = len(json.dumps(item))  # as long as what it wrote
        return httpx.Response(200, json=reply)

    runs = {}
    for reasons in ("all", "none"):
        judge = judge_with(httpx.MockTransport(handler), reasons=reasons)
        runs[reasons] = ragmeter.evaluate([ROW], ["faithfulness"], judge=judge, cache=False, progress=False)
    schema = log[-1]["response_format"]["json_schema"]["schema"]["$defs"]["Verdict"]
    assert "reason" not in schema["properties"] and schema["required"] == ["verdict"]
    assert "reason" in log[0]["response_format"]["json_schema"]["schema"]["$defs"]["Verdict"]["required"]
    every, none = runs["all"].rows[0], runs["none"].rows[0]
    assert every["faithfulness"] == none["faithfulness"] == 1.0
    assert none["faithfulness_evidence"]["statements"][0]["reason"] == "no reason written (reasons: none)"
    tokens = {m: r.manifest["metrics"]["faithfulness"]["completion_tokens"] for m, r in runs.items()}
    assert tokens == {"all": 47, "none": 14}  # the fake counts characters: 0.30x
    assert parse_judge_spec({"spec": "openai:gpt-4o-mini", "reasons": "none"}).reasons == "none"
    with pytest.raises(ConfigError, match="reasons"):
        parse_judge_spec({"spec": "openai:gpt-4o-mini", "reasons": "failing"})


def test_requests_go_through_aiohttps_pool_to_a_real_local_server_with_the_key(monkeypatch):
    """No transport given: httpx's API over aiohttp (endpoints.fast_transport), tested on a real
    socket; the key goes as a Bearer header, and a connection the server drops is retried."""
    from httpx_aiohttp import AiohttpTransport

    from tests.http_fakes import JSONHandler, serving

    seen: list[dict] = []

    class Server(JSONHandler):
        def do_GET(self):
            self._send({"data": [{"id": "m"}]})

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({"auth": self.headers.get("Authorization"), "body": body})
            if len(seen) == 1:  # the first request: the connection closed without an answer
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            self._send(chat_reply({"rating": 2}))

    monkeypatch.setenv("RAGMETER_TEST_KEY", SECRET)
    with serving(Server) as url:
        judge = OpenAICompatJudge(f"{url}/v1", "m", api_key_env="RAGMETER_TEST_KEY")
        result = ragmeter.evaluate([ROW], ["context_relevance"], judge=judge, cache=False, progress=False)
    assert isinstance(judge.client()._transport, AiohttpTransport)
    assert result.rows[0]["context_relevance"] == 1.0
    # context_relevance asks twice; the dropped request once more
    assert result.manifest["metrics"]["context_relevance"]["judge_calls"] == 2
    assert [s["auth"] for s in seen] == [f"Bearer {SECRET}"] * 3 and seen[1]["body"]["model"] == "m"
    assert result.manifest["faults"]["retries"] == 1


def test_a_proxy_named_in_the_environment_is_used_unless_no_proxy_names_the_host(monkeypatch):
    from ragmeter.endpoints import fast_transport

    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.test:3128")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,internal.test")
    assert str(fast_transport("https://api.openai.com/v1").proxy.url) == "http://proxy.test:3128"
    assert fast_transport("https://internal.test/v1").proxy is None
    monkeypatch.delenv("NO_PROXY")
    assert fast_transport("http://127.0.0.1:8000/v1").proxy is None  # HTTPS_PROXY is for https:// only


def test_a_server_echoing_the_key_never_puts_it_on_stderr_or_in_files(tmp_path):
    from tests.cli_runner import run_cli
    from tests.http_fakes import JSONHandler, serving

    class Echo(JSONHandler):
        def do_GET(self) -> None:
            self._send({"data": []})

        def do_POST(self) -> None:
            self._send({"error": f"bad request; you sent {dict(self.headers)}"}, status=400)

    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "a", "user_input": "q?", "response": "a", "reference": "a"}\n')
    with serving(Echo) as url:
        done = run_cli("evaluate", str(data), "--metrics", "answer_correctness", "--judge", f"openai-compat:{url}/v1#m",
                       "--judge-opt", "api_key_env=ECHO_TEST_KEY", "--out", str(tmp_path / "run"),
                       env={"ECHO_TEST_KEY": "sk-echo-0123456789abcdefXYZ"})
    assert done.returncode == 3 and "pairs stayed failed" in done.stderr  # a 400 is the row's failure (issue 65)
    assert "0123456789abcdef" not in done.stderr + done.stdout
    reason = json.loads((tmp_path / "run" / "results.jsonl").read_text())["answer_correctness_reason"]
    assert "HTTP 400" in reason and "[redacted]" in reason
    written = "".join(p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file())
    assert "0123456789abcdef" not in written


@pytest.mark.parametrize("parses", [True, False])
def test_a_key_echoed_into_replies_is_in_no_file_nor_the_cache(tmp_path, parses):
    """Issue 50 (security 21, 22): a reply that did not parse was written as `raw_reply`
    unredacted, and one that parsed kept the key in its reason, in results, the cache, the
    report and compare.json. Every known secret is now redacted before a reply is parsed."""
    from tests.cli_runner import run_cli
    from tests.http_fakes import JSONHandler, serving

    class Echo(JSONHandler):
        def do_GET(self) -> None:
            self._send({"data": [{"id": "m"}]})

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            said = f"you sent {self.headers['Authorization']} and the gateway token {token}"
            content = json.dumps({"verdicts": [{"reason": said, "verdict": 1}]}) if parses else said
            self._send({"choices": [{"message": {"content": content}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 3, "completion_tokens": 3}})

    key, token = "sk-echo-0123456789abcdefXYZ", "Gw7TokenQ2x9Lm4Vb8Np"
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "a", "question": "q?", "contexts": ["c"], "answer": "a", "reference": "r"}\n')
    cache = tmp_path / "c.sqlite"
    env = {"ECHO_TEST_KEY": key, "GW_TOKEN": token, "RAGMETER_CACHE": str(cache)}
    with serving(Echo) as url:
        done = run_cli("evaluate", str(data), "--metrics", "context_precision", "--judge",
                       f"openai-compat:{url}/v1/{token}#m", "--judge-opt", "api_key_env=ECHO_TEST_KEY",
                       "--out", str(tmp_path / "run"), "--report", "--format", "csv", env=env)
        assert done.returncode == 0, done.stderr
        import shutil

        shutil.copytree(tmp_path / "run", tmp_path / "again")
        compared = run_cli("compare", str(tmp_path / "run"), str(tmp_path / "again"), "--out", str(tmp_path / "cmp"),
                           env=env)
    assert compared.returncode in (0, 1), compared.stderr
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and p != data)
    assert b"0123456789abcdef" not in written and token.encode() not in written
    assert b"[redacted]" in (tmp_path / "run" / "results.csv").read_bytes()
    manifest = (tmp_path / "run" / "manifest.json").read_text()
    assert f"{url}/v1/[redacted]#m" in manifest  # the gateway token in the URL's path, too


def test_an_error_body_is_redacted_before_it_is_cut(tmp_path):
    """Issue 65 item 10: the body was cut to 300 characters, then redacted, so a key that the
    cut split in two was no longer a key to the redactor and 11 characters of it reached stderr."""
    from tests.cli_runner import run_cli
    from tests.http_fakes import JSONHandler, serving

    key = "sk-echo-0123456789abcdefXYZ"

    class Echo(JSONHandler):
        def do_GET(self) -> None:
            self._send({"data": []})

        def do_POST(self) -> None:  # the key from the 281st character of the body on
            # 403: the judge's refusal, which ends the run on stderr (a 400 is one row's, in its reason)
            self._send({"error": "x" * (280 - len('{"error": "')) + key + " was refused"}, status=403)

    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "a", "user_input": "q?", "response": "a", "reference": "a"}\n')
    with serving(Echo) as url:
        done = run_cli("evaluate", str(data), "--metrics", "answer_correctness", "--judge", f"openai-compat:{url}/v1#m",
                       "--judge-opt", "api_key_env=ECHO_TEST_KEY", "--out", str(tmp_path / "run"),
                       env={"ECHO_TEST_KEY": key})
    assert done.returncode == 3 and "HTTP 403" in done.stderr
    assert "sk-echo-01" not in done.stderr + done.stdout and "0123" not in done.stderr + done.stdout


@pytest.mark.parametrize("logprobs", [
    [{"token": "1"}],  # a list, not an object
    {"content": [{"token": "1"}]},  # no logprob
    {"content": [{"token": "1", "logprob": "high", "top_logprobs": []}]},
    {"content": "1"},
    {"content": [{"token": "1", "logprob": -0.1, "top_logprobs": [{"logprob": -0.1}]}]},  # no token
    {"tokens": ["1"], "top_logprobs": [["1", -0.1]]},  # legacy, a pair not an object
])
def test_a_malformed_logprobs_object_leaves_the_labels_without_probabilities(logprobs):
    """Issue 65 item 5: 4 of 6 malformed shapes were a KeyError/TypeError traceback (exit 1).
    Issue 77 item 10: then each was a failed call, so a server that always sent them ended the
    run (exit 3). The reply's text is whole: its labels are read without probabilities."""
    import ragmeter

    sent = [0]

    def handler(request):
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": []})
        sent[0] += 1
        reply = chat_reply({"rating": 2})
        reply["choices"][0]["logprobs"] = logprobs
        return httpx.Response(200, json=reply)

    row = {"user_input": "What is item 1?", "retrieved_contexts": ["Item 1 is red."]}
    result = ragmeter.evaluate([row], ["context_relevance"], judge=judge_with(httpx.MockTransport(handler)),
                               cache=False, progress=False, retries=1)
    assert result.rows[0]["context_relevance"] == 1.0  # rating 2 on both templates, as labels
    assert sent[0] == 2 and result.manifest["faults"]["failed_calls"] == 0  # each template asked once
    assert result.rows[0]["context_relevance_evidence"]["rating_probs"] == [None, None]  # none read


@pytest.mark.parametrize("variable", ["JUDGE_AUTH", "JUDGE_KEY_2"])
def test_the_key_api_key_env_names_is_redacted_whatever_the_variables_name(tmp_path, variable):
    """Issue 77 item 3: only a variable named like a key (…_KEY, …_TOKEN) had its value
    redacted; with api_key_env=JUDGE_AUTH a server echoing the key put it in results.jsonl, the
    report, the cache and stderr. The variable a judge is told to read holds a secret."""
    from tests.cli_runner import run_cli
    from tests.http_fakes import JSONHandler, serving

    key = "Zq8Wauth0123456789abcdefXYZ"  # neither sk-... nor after "Bearer": only its variable says it is a key

    class Echo(JSONHandler):
        def do_GET(self) -> None:
            self._send({"data": [{"id": "m"}]})

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"])).decode()
            said = f"you sent {self.headers['Authorization'].split()[-1]}"
            if "refuse me" in body:
                self._send({"error": said}, status=400)
                return
            content = json.dumps({"verdicts": [{"reason": said, "verdict": 1}]})
            self._send({"choices": [{"message": {"content": content}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 3, "completion_tokens": 3}})

    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": i, "question": q, "contexts": ["c"], "answer": "a", "reference": "r"})
                            + "\n" for i, q in (("a", "q?"), ("b", "refuse me?"))))
    env = {variable: key, "RAGMETER_CACHE": str(tmp_path / "c.sqlite")}
    with serving(Echo) as url:
        done = run_cli("evaluate", str(data), "--metrics", "context_precision", "--judge", f"openai-compat:{url}/v1#m",
                       "--judge-opt", f"api_key_env={variable}", "--out", str(tmp_path / "run"), "--report",
                       "--max-failed", "1", env=env)
    assert done.returncode == 0, done.stderr
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and p != data)
    assert b"0123456789abcdef" not in written and "0123456789abcdef" not in done.stderr + done.stdout
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert "you sent [redacted]" in rows[0]["context_precision_evidence"]["verdicts"][0]["reason"]
    assert "HTTP 400" in rows[1]["context_precision_reason"] and "[redacted]" in rows[1]["context_precision_reason"]


def test_a_refused_url_is_named_without_its_token_shaped_path_segment():
    """Issue 77 item 3: `http://user:pw@host/v1/<token>` was refused naming its path, token and all."""
    from ragmeter.rag import answer

    token = "Gw7TokenQ2x9Lm4Vb8Np"
    with pytest.raises(ConfigError) as err:
        parse_judge_spec(f"openai-compat:http://user:pw@judge.test/v1/{token}#m")
    assert token not in str(err.value) and "pw" not in str(err.value)
    assert "http://judge.test/v1/[redacted] must not hold credentials" in str(err.value)
    with pytest.raises(ConfigError) as err:
        answer([{"user_input": "q?"}], rag=f"http://user:pw@rag.test/v1/{token}", progress=False)
    assert token not in str(err.value) and "--rag http://rag.test/v1/[redacted]: the URL" in str(err.value)
