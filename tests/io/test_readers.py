"""Every input format, aliases and mapping, and each bad input named in the core issue."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ragmeter
from ragmeter.errors import ConfigError, DataError
from ragmeter.io.datasets import load_dataset
from ragmeter.judges.scripted import ScriptedJudge

ROW = {"user_input": "q?", "response": "a.", "retrieved_contexts": ["c1", "c2"], "reference": "r."}


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_jsonl_json_csv_parquet_read_the_same(tmp_path: Path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [ROW, {**ROW, "user_input": "q2?"}]
    write_jsonl(tmp_path / "d.jsonl", rows)
    (tmp_path / "d.json").write_text(json.dumps(rows))
    csv_lines = ["user_input,response,retrieved_contexts,reference"] + [
        f'{r["user_input"]},{r["response"]},"{json.dumps(r["retrieved_contexts"]).replace(chr(34), chr(34) * 2)}",{r["reference"]}'
        for r in rows]
    (tmp_path / "d.csv").write_text("\n".join(csv_lines) + "\n")
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "d.parquet")
    loaded = [load_dataset(tmp_path / f"d.{ext}").samples for ext in ("jsonl", "json", "csv", "parquet")]
    for samples in loaded:
        assert [s.user_input for s in samples] == ["q?", "q2?"]
        assert samples[0].retrieved_contexts == ["c1", "c2"]
        assert samples[0].id == "row-1"


def test_dataframe_and_hf_dataset_and_list():
    import datasets
    import pandas as pd

    for data in ([ROW], pd.DataFrame([ROW]), datasets.Dataset.from_list([ROW])):
        sample = load_dataset(data).samples[0]
        assert sample.retrieved_contexts == ["c1", "c2"]
        assert sample.reference == "r."


def test_aliases_and_explicit_mapping():
    legacy = {"question": "q?", "answer": "a.", "contexts": ["c"], "ground_truth": "r."}
    s = load_dataset([legacy]).samples[0]
    assert (s.user_input, s.response, s.retrieved_contexts, s.reference) == ("q?", "a.", ["c"], "r.")
    custom = {"q": "q?", "passages": ["c"]}
    s = load_dataset([custom], columns={"user_input": "q", "retrieved_contexts": "passages"}).samples[0]
    assert (s.user_input, s.retrieved_contexts) == ("q?", ["c"])
    with pytest.raises(ConfigError, match="'nope' is not a column"):
        load_dataset([custom], columns={"user_input": "nope"})
    with pytest.raises(ConfigError, match="both look like 'user_input'"):
        load_dataset([{"question": "a", "query": "b"}])


def test_empty_file(tmp_path: Path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n")
    with pytest.raises(DataError, match=r"empty\.jsonl: file is empty"):
        load_dataset(path)


def test_malformed_json_line_names_the_line(tmp_path: Path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(ROW) + "\n" + json.dumps(ROW) + "\n{\"user_input\": \"q\",,}\n")
    with pytest.raises(DataError, match=r"bad\.jsonl, line 3: malformed JSON"):
        load_dataset(path)


def test_field_of_the_wrong_type_names_row_and_field(tmp_path: Path):
    path = write_jsonl(tmp_path / "types.jsonl", [ROW, {**ROW, "retrieved_contexts": "one string"}])
    with pytest.raises(DataError, match=r"types\.jsonl, line 2, field 'retrieved_contexts': expected a list"):
        load_dataset(path)
    path = write_jsonl(tmp_path / "types2.jsonl", [{**ROW, "response": 42}])
    with pytest.raises(DataError, match=r"line 1, field 'response': expected a string, got int"):
        load_dataset(path)
    path = write_jsonl(tmp_path / "types3.jsonl", [{**ROW, "retrieved_contexts": ["ok", 3]}])
    with pytest.raises(DataError, match="expected a list of strings, got a list of int, str"):
        load_dataset(path)


def test_undecodable_bytes_name_the_line(tmp_path: Path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(json.dumps(ROW).encode() + b"\n" + '{"user_input": "caf\xe9"}'.encode("latin-1") + b"\n")
    with pytest.raises(DataError, match=r"latin1\.jsonl, line 2: undecodable bytes .* must be UTF-8"):
        load_dataset(path)


def test_duplicate_ids_and_unknown_format(tmp_path: Path):
    with pytest.raises(DataError, match="duplicate id 'x'"):
        load_dataset([{**ROW, "id": "x"}, {**ROW, "id": "x"}])
    (tmp_path / "d.txt").write_text("hi")
    with pytest.raises(DataError, match="unsupported format '.txt'"):
        load_dataset(tmp_path / "d.txt")


def test_missing_required_column_fails_before_any_judge_call():
    judge = ScriptedJudge({})
    rows = [{"user_input": "q", "response": "a", "retrieved_contexts": ["c"]}]
    with pytest.raises(DataError, match=r"missing column 'reference' \(required by context_recall\)"):
        ragmeter.evaluate(rows, ["faithfulness", "context_recall"], judge=judge, cache=False, progress=False)
    assert judge.calls() == 0


def test_empty_strings_per_row_are_unscored_not_errors():
    judge = ScriptedJudge({"faithfulness.statements": {"statements": ["s"]},
                           "faithfulness.verdicts": {"verdicts": [{"reason": "r", "verdict": 1}]}})
    rows = [ROW, {**ROW, "retrieved_contexts": ["", " "]}]
    result = ragmeter.evaluate(rows, ["faithfulness"], judge=judge, cache=False, progress=False)
    assert [r["faithfulness"] for r in result.rows] == [1.0, None]
    assert result.rows[1]["faithfulness_reason"] == "empty field(s): retrieved_contexts"


def test_a_fifo_or_a_looping_link_is_named_not_file_not_found(tmp_path):
    """Issue 65 item 11: a FIFO, a device or a symlink loop given as data read "file not found"."""
    import os

    from ragmeter.errors import DataError
    from ragmeter.io.data_file import open_data_file

    fifo, loop = tmp_path / "rows.jsonl", tmp_path / "loop.jsonl"
    os.mkfifo(fifo)
    loop.symlink_to(loop)
    with pytest.raises(DataError, match="a named pipe \\(FIFO\\), not a file"):
        open_data_file(fifo)
    with pytest.raises(DataError, match="a symbolic link that loops or leads to no file"):
        open_data_file(loop)
    with pytest.raises(DataError, match="file not found"):
        open_data_file(tmp_path / "none.jsonl")
