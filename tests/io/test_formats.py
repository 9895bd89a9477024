"""One reader per input format, used by the dataset read whole and the one streamed: a format
added in one place (its function and one `register` line) is read both ways."""

from __future__ import annotations

import csv

import pytest

from ragmeter.errors import DataError
from ragmeter.io.data_file import open_data_file
from ragmeter.io.datasets import load_dataset
from ragmeter.io.formats import FORMATS, Format, format_of, register
from ragmeter.io.stream import StreamedDataset


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
    streamed = load_dataset(path, stream=True)
    assert isinstance(streamed, StreamedDataset)
    assert [(s.id, s.user_input) for s, _ in streamed.iter_rows()] == [("a", "Where is Paris?"),
                                                                     ("b", "Who wrote it?")]
    assert streamed.sha256 == whole.sha256


def test_a_format_added_in_one_place_is_read_by_evaluate_judge_check_and_testset(tsv, tmp_path):
    """One function and one `register` line (issue 52): every command reads the new format as
    records, none mistakes it for a document (judge-check and testset did, by their own lists)."""
    import ragmeter
    from ragmeter.judge_check.check import plan
    from ragmeter.testset.documents import load_documents

    rows = tmp_path / "rows.tsv"
    rows.write_text('id\tuser_input\tresponse\treference\tretrieved_contexts\n'
                    'a\tWhere is Paris?\tIn France.\tIn France.\t["Paris is the capital of France."]\n'
                    'b\tWho wrote it?\tNobody.\tHomer.\t["The Odyssey was written by Homer."]\n', encoding="utf-8")
    result = ragmeter.evaluate(rows, ["exact_match"], progress=False, cache=False)
    assert [r["exact_match"] for r in result.rows] == [1.0, 0.0] and result.manifest.dataset.source == str(rows)
    sources, described, planned, _ = plan(rows, ["faithfulness"], sizes=(1,))
    assert [s.id for s in sources] == ["a", "b"] and planned[0][3]  # rows with contexts, cases built from them
    docs = tmp_path / "docs.tsv"
    docs.write_text("id\ttext\nd1\tThe lighthouse stands on the cape.\nd2\tIts lamp is seen far away.\n",
                    encoding="utf-8")
    assert [d.text for d in load_documents(docs).documents] == ["The lighthouse stands on the cape.",
                                                                "Its lamp is seen far away."]


def test_formats_by_suffix_and_an_unknown_one_named(tmp_path):
    assert format_of(tmp_path / "x.NDJSON").name == "jsonl"
    assert not format_of(tmp_path / "x.json").streams  # an array is parsed whole
    with pytest.raises(DataError, match=r"unsupported format '\.txt'; use one of \['\.csv', '\.json'"):
        format_of(tmp_path / "x.txt")
    path = tmp_path / "rows.jsonl"
    path.write_text('{"id": "a"}\n\n{"id": "b"}\n', encoding="utf-8")
    assert list(open_data_file(path).iter_records()) == [(1, {"id": "a"}), (3, {"id": "b"})]  # line numbers, blanks skipped
