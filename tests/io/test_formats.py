"""One reader per input format, used by the dataset read whole and the one streamed: a format
added in one place (its function and one `register` line) is read both ways."""

from __future__ import annotations

import csv

import pytest

from ragmeter.errors import DataError
from ragmeter.io.formats import FORMATS, Format, format_of, iter_records, register
from ragmeter.io.readers import load_dataset
from ragmeter.io.stream import StreamedDataset, can_stream, stream_dataset


def tsv_records(path, source):
    with path.open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.DictReader(handle, delimiter="\t"), start=1):
            yield number, dict(row)


@pytest.fixture
def tsv():
    fmt = register(Format("tsv", (".tsv",), tsv_records))
    yield fmt
    FORMATS.pop(".tsv")


def test_a_format_added_in_one_place_is_read_whole_and_streamed(tsv, tmp_path):
    path = tmp_path / "rows.tsv"
    path.write_text("id\tuser_input\tresponse\na\tWhere is Paris?\tIn France.\nb\tWho wrote it?\tNobody.\n",
                    encoding="utf-8")
    whole = load_dataset(path)
    assert [s.response for s in whole.samples] == ["In France.", "Nobody."]
    assert can_stream(path)
    streamed = stream_dataset(path)
    assert isinstance(streamed, StreamedDataset)
    assert [(s.id, s.user_input) for s, _ in streamed.iter_rows()] == [("a", "Where is Paris?"),
                                                                     ("b", "Who wrote it?")]
    assert streamed.sha256 == whole.sha256


def test_formats_by_suffix_and_an_unknown_one_named(tmp_path):
    assert format_of(tmp_path / "x.NDJSON").name == "jsonl"
    assert not format_of(tmp_path / "x.json").streams  # an array is parsed whole
    with pytest.raises(DataError, match=r"unsupported format '\.txt'; use one of \['\.csv', '\.json'"):
        format_of(tmp_path / "x.txt")
    path = tmp_path / "rows.jsonl"
    path.write_text('{"id": "a"}\n\n{"id": "b"}\n', encoding="utf-8")
    assert list(iter_records(path, str(path))) == [(1, {"id": "a"}), (3, {"id": "b"})]  # line numbers, blanks skipped
