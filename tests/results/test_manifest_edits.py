"""Hand-edited manifests (issue 65 item 8): a deeply nested one was a RecursionError in
compare, report, calibrate and merge; `"mean": NaN` crashed report; `higher_is_better:
false` and `dataset.rows: -5` were taken; an unknown key did not say who wrote it."""

from __future__ import annotations

import json
import shutil

import pytest

from ragmeter.errors import DataError
from ragmeter.results.runs import load_run
from ragmeter.testing import write_run


def edited(tmp_path, name, edit):
    run = write_run(tmp_path / "run", {"faithfulness": [1.0, 0.0, 1.0]})
    folder = tmp_path / name
    shutil.copytree(run, folder)
    text = (folder / "manifest.json").read_text()
    (folder / "manifest.json").write_text(edit(text))
    return folder


def with_key(path, value):
    def edit(text):
        manifest = json.loads(text)
        *parents, last = path
        node = manifest
        for key in parents:
            node = node[key]
        node[last] = value
        return json.dumps(manifest)
    return edit


@pytest.mark.parametrize(("name", "edit", "said"), [
    ("deep", lambda t: t[:-1].rstrip().rstrip("}") + ', "x": ' + "[" * 5000 + "]" * 5000 + "}",
     "nested too deeply: arrays or objects more than 100 levels"),
    ("nan", lambda t: json.dumps({**json.loads(t), "metrics": {"faithfulness": {
        **json.loads(t)["metrics"]["faithfulness"], "mean": float("nan")}}}), "NaN is not a number JSON has"),
    ("rows", with_key(("dataset", "rows"), -5), "dataset.rows: Input should be greater than or equal to 0"),
    ("direction", with_key(("metrics", "faithfulness", "higher_is_better"), False),
     "metrics.faithfulness.higher_is_better is false, but faithfulness is higher-is-better"),
    ("unknown", with_key(("novel_key",), 1), "unknown key 'novel_key' (written by ragmeter test; this is ragmeter "),
])
def test_a_hand_edited_manifest_is_one_line_naming_the_file(tmp_path, name, edit, said):
    folder = edited(tmp_path, name, edit)
    with pytest.raises(DataError) as caught:
        load_run(folder)
    assert said in str(caught.value) and str(folder / "manifest.json") in str(caught.value)


def test_the_commands_say_it_in_one_line(tmp_path):
    from tests.cli_runner import run_cli

    folder = edited(tmp_path, "deep", lambda t: t[:-1].rstrip().rstrip("}") + ', "x": ' + "[" * 5000 + "]" * 5000
                    + "}")
    for args in (["report", str(folder), "--out", str(tmp_path / "r.html")], ["compare", str(tmp_path / "run"),
                                                                               str(folder)]):
        done = run_cli(*args)
        assert done.returncode == 2 and "nested too deeply" in done.stderr and "Traceback" not in done.stderr


def test_a_nan_score_in_parquet_is_refused_as_in_jsonl(tmp_path):
    """Issue 65 item 11: Parquet NaN scores read as unscored rows while JSONL NaN was refused."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    run = write_run(tmp_path / "run", {"faithfulness": [1.0, 0.5, 0.0]})
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    rows[1]["faithfulness"] = float("nan")
    for row in rows:
        row["faithfulness_evidence"] = json.dumps(row["faithfulness_evidence"])
    pq.write_table(pa.Table.from_pylist(rows), run / "results.parquet")
    (run / "results.jsonl").unlink()
    manifest = json.loads((run / "manifest.json").read_text())
    (run / "manifest.json").write_text(json.dumps({**manifest, "results_file": "results.parquet"}))
    with pytest.raises(DataError, match="results.parquet, row 2, field 'faithfulness': score nan is not a number"):
        load_run(run)
