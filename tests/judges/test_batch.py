"""--batch against a local fake batch server (files, batches, polling, output files), over
real HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from email.parser import BytesParser
from email.policy import HTTP

import pytest

from ragmeter.errors import ConfigError
from ragmeter.run.config import RunConfig
from ragmeter.run.execute import run_config
from tests.http_fakes import JSONHandler, serving

#: every statement of a row in one verdicts call: the mode before issue 72
ONE_CALL = {"verdicts": {"calls": "one"}, "combine": "mean"}

ROWS = [{"id": f"q{i}", "user_input": f"What is item {i}?", "response": f"Item {i} is red. It is big.",
         "retrieved_contexts": [f"Item {i} is a red thing.", f"Note {i}."]} for i in range(6)]


def completion(body: dict) -> dict:
    """The same answer for a request whether it comes alone or in a batch."""
    text = json.dumps(body["messages"])
    schema = body.get("response_format", {}).get("json_schema", {}).get("schema", {})
    if "verdicts" in schema.get("properties", {}):
        n = schema["properties"]["verdicts"]["minItems"]
        content = {"verdicts": [{"verdict": 1, "reason": "supported"}] * n}
    elif "statements" in schema.get("properties", {}):
        content = {"statements": ["Item is red.", "Item is big."]}
    else:
        content = {"rating": hashlib.sha256(text.encode()).digest()[0] % 3}
    return {"choices": [{"message": {"content": json.dumps(content)}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3}}


class BatchAPI(JSONHandler):
    files: dict[str, str] = {}
    batches: dict[str, dict] = {}
    polls_to_finish = 2
    fail_once: set[str] = set()  # custom_ids whose first answer is an HTTP 500 line
    direct = 0

    def do_GET(self):
        if self.path.endswith("/models"):
            return self._send({"data": [{"id": "m"}]})
        if "/batches/" in self.path:
            batch = self.batches[self.path.rsplit("/", 1)[1]]
            batch["polls"] += 1
            if batch["polls"] >= type(self).polls_to_finish and batch["status"] != "completed":
                self._finish(batch)
            return self._send({k: v for k, v in batch.items() if k != "lines"})
        file_id = self.path.split("/files/")[1].split("/")[0]
        data = self.files[file_id].encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        raw = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path.endswith("/files"):
            message = BytesParser(policy=HTTP).parsebytes(
                f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode() + raw)
            parts = {p.get_param("name", header="content-disposition"): p.get_content() for p in message.iter_parts()}
            assert parts["purpose"] == "batch"
            file_id = f"file-{len(self.files)}"
            self.files[file_id] = parts["file"].decode() if isinstance(parts["file"], bytes) else parts["file"]
            return self._send({"id": file_id})
        body = json.loads(raw)
        if self.path.endswith("/batches"):
            batch_id = f"batch_{len(self.batches)}"
            lines = [json.loads(line) for line in self.files[body["input_file_id"]].splitlines()]
            assert body["endpoint"] == "/v1/chat/completions" and all(x["url"] == body["endpoint"] for x in lines)
            self.batches[batch_id] = {"id": batch_id, "status": "validating", "polls": 0, "lines": lines}
            return self._send(self.batches[batch_id])
        type(self).direct += 1
        return self._send(completion(body))

    def _finish(self, batch: dict) -> None:
        out, errors = [], []
        for line in batch["lines"]:
            if line["custom_id"] in self.fail_once:
                self.fail_once.discard(line["custom_id"])
                errors.append({"custom_id": line["custom_id"], "response": {"status_code": 500, "body": {}}})
            else:
                out.append({"custom_id": line["custom_id"], "response": {"status_code": 200,
                                                                         "body": completion(line["body"])}})
        self.files[f"out-{batch['id']}"] = "".join(json.dumps(x) + "\n" for x in out)
        batch.update(status="completed", output_file_id=f"out-{batch['id']}")
        if errors:
            self.files[f"err-{batch['id']}"] = "".join(json.dumps(x) + "\n" for x in errors)
            batch["error_file_id"] = f"err-{batch['id']}"




@pytest.fixture
def server():
    BatchAPI.files, BatchAPI.batches, BatchAPI.fail_once, BatchAPI.direct = {}, {}, set(), 0
    BatchAPI.polls_to_finish = 2
    with serving(BatchAPI) as url:
        yield f"openai-compat:{url}/v1#m"


def config(tmp_path, judge, metrics=("context_relevance",), batch=True, name="c.sqlite"):
    return RunConfig(dataset="<in-memory>", metrics=list(metrics), judge=judge, batch=batch,
                     batch_poll_seconds=0.05, cache=str(tmp_path / name), progress=False)


def scores(result, metric="context_relevance"):
    return [r[metric] for r in result.rows]


def test_every_rows_prompt_goes_in_one_batch_and_scores_equal_a_direct_run(tmp_path, server, caplog):
    with caplog.at_level(logging.INFO, logger="ragmeter"):
        batched = asyncio.run(run_config(config(tmp_path, server), data=ROWS, write=False))
    assert "batch batch_0: 6 requests submitted" in caplog.text
    assert "batch batch_1 completed: 6 of 6 requests answered" in caplog.text
    # context_relevance asks its two ratings one after the other: one batch each, every row in it
    assert [len(b["lines"]) for b in BatchAPI.batches.values()] == [6, 6] and BatchAPI.direct == 0
    assert batched.manifest["judge"]["batches"] == {"batch_0": "completed", "batch_1": "completed"}
    assert batched.manifest["judge"]["name"].endswith("(batch API)")
    direct = asyncio.run(run_config(config(tmp_path, server, batch=False, name="d.sqlite"), data=ROWS, write=False))
    assert scores(batched) == scores(direct) and BatchAPI.direct == 12


def test_a_second_prompt_goes_in_the_next_batch(tmp_path, server):
    result = asyncio.run(run_config(config(tmp_path, server, [{"faithfulness": {"statements": "judge", **ONE_CALL}}]),
                                    data=ROWS, write=False))
    assert [len(b["lines"]) for b in BatchAPI.batches.values()] == [6, 6]  # statements, then verdicts
    assert scores(result, "faithfulness") == [1.0] * 6


def test_a_restart_while_a_batch_is_pending_polls_it_instead_of_paying_twice(tmp_path, server, caplog):
    BatchAPI.polls_to_finish = 10**9  # the batch never ends while the first run waits

    async def stopped_run():
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(run_config(config(tmp_path, server), data=ROWS, write=False), timeout=2.0)

    asyncio.run(stopped_run())
    assert list(BatchAPI.batches) == ["batch_0"]
    BatchAPI.polls_to_finish = 1
    with caplog.at_level(logging.INFO, logger="ragmeter"):
        resumed = asyncio.run(run_config(config(tmp_path, server), data=ROWS, write=False))
    assert "batch batch_0: submitted by an earlier run, polled again" in caplog.text
    assert list(BatchAPI.batches) == ["batch_0", "batch_1"]  # batch_0 polled again, not submitted again
    assert resumed.manifest["judge"]["batches"] == {"batch_0": "completed", "batch_1": "completed"}
    assert resumed.manifest["metrics"]["context_relevance"]["judge_calls"] == 12
    again = asyncio.run(run_config(config(tmp_path, server), data=ROWS, write=False))
    assert again.manifest["metrics"]["context_relevance"]["cache_hits"] == 12 and len(BatchAPI.batches) == 2


def test_a_failed_line_is_sent_again_in_a_new_batch(tmp_path, server):
    first = {"custom_id": None}

    # fail the first request of the first batch, whatever its id
    original = BatchAPI._finish

    def finish(self, batch):
        if not first["custom_id"]:
            first["custom_id"] = batch["lines"][0]["custom_id"]
            BatchAPI.fail_once.add(first["custom_id"])
        original(self, batch)

    BatchAPI._finish = finish
    try:
        result = asyncio.run(run_config(config(tmp_path, server), data=ROWS, write=False))
    finally:
        BatchAPI._finish = original
    sent = [line["custom_id"] for b in BatchAPI.batches.values() for line in b["lines"]]
    assert len(sent) == 13 and sent.count(first["custom_id"]) == 2  # twelve prompts, one of them twice
    assert first["custom_id"] not in [line["custom_id"] for line in BatchAPI.batches["batch_0"]["lines"][1:]]
    assert None not in scores(result) and result.manifest["faults"]["http_errors"] == {"500": 1}


def test_batch_needs_an_http_judge(tmp_path):
    with pytest.raises(ConfigError, match="--batch needs an OpenAI-compatible judge"):
        asyncio.run(run_config(config(tmp_path, "llamacpp:gemma-270m"), data=ROWS, write=False))
