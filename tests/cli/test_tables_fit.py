"""Every command's tables fit 80 columns off a terminal (meta-eval's was 82, its `n` column
and right border cut; issue 37, item 22): each line of what the commands print, measured."""

from __future__ import annotations

import json
from pathlib import Path

from rich.cells import cell_len

from ragmeter.testing.runs import write_run
from tests.cli_runner import run_cli

ROOT = Path(__file__).resolve().parents[2]


BOX = "┏┓┃┡┩│└┘┳╇┴"


def widest(cwd: Path, *args: str) -> int:
    """The widest line printed; a table line cut at the edge (no right border) counts as 81."""
    done = run_cli(*args, cwd=cwd, env={"COLUMNS": "80"})  # short relative paths: lines that name files fit too
    assert done.returncode in (0, 1), done.stderr
    lines = [line.rstrip() for line in (done.stdout + done.stderr).splitlines()]
    cut = [line for line in lines if line[:1] in BOX and line[-1:] not in BOX]
    return max([cell_len(line) for line in lines] + [81 for _ in cut])


def test_every_table_fits_80_columns(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i}", "user_input": f"question number {i}?",
                                        "response": f"answer {i % 3}", "reference": "answer 1",
                                        "retrieved_contexts": [f"context {i}"]}) + "\n" for i in range(24)))
    (tmp_path / "q2.jsonl").write_bytes((ROOT / "tests" / "data" / "meta-eval" / "q2_wow_faithfulness.jsonl").read_bytes())
    b = tmp_path / "b"
    widths = {
        "evaluate": widest(tmp_path, "evaluate", "d.jsonl", "--metrics", "rouge,exact_match,bleu", "--out", "a", "-v"),
        "meta-eval": widest(tmp_path, "meta-eval", "q2.jsonl", "--metric", "rouge", "--limit", "40"),
        "metrics": widest(tmp_path, "metrics"),
        "dry-run": widest(tmp_path, "evaluate", "d.jsonl", "--metrics", "rouge,exact_match", "--dry-run"),
    }
    write_run(b, {"rouge": [0.1 * (i % 10) for i in range(24)], "exact_match": [1.0] * 24},
              ids=[f"r{i}" for i in range(24)])
    write_run(tmp_path / "c", {"rouge": [0.05 * (i % 10) for i in range(24)], "exact_match": [0.0] * 24},
              ids=[f"r{i}" for i in range(24)])
    widths["compare"] = widest(tmp_path, "compare", "b", "c")
    assert {name: w for name, w in widths.items() if w > 80} == {}
