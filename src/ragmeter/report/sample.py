"""Which rows a report page holds. Up to MAX_ROWS rows a page holds them all; a larger run
(100,000 rows is 200 MB of evidence, more than a browser opens) gets a documented sample,
while every summary figure and histogram on the page is still computed from all rows:

- per metric, the WORST rows with the lowest scores and the BEST with the highest (the
  direction the metric calls better), and for two runs the CHANGED rows whose score moved
  most between them;
- every row on the wrong side of a threshold gate the run had (up to what the page holds);
- a seeded random sample of RANDOM rows, the rows a reader can generalise from (fewer when
  the rows above fill the page; with many metrics they may pass MAX_ROWS, and all are kept).
"""

from __future__ import annotations

import random
from typing import Any

from ragmeter.results.runs import Run

MAX_ROWS = 5000
WORST = 100
BEST = 20
CHANGED = 100
RANDOM = 1000
SEED = 0


def shown_ids(runs: list[Run]) -> tuple[list[str] | None, dict[str, Any] | None]:
    """The ids the page holds (None: all of them) and the note the page shows about them."""
    first = runs[0]
    if all(len(run.ids) <= MAX_ROWS for run in runs):
        return None, None
    chosen: dict[str, str] = {}  # id -> why, in the order chosen
    below: dict[str, None] = {}
    for run in runs:
        for name in first.metrics:
            if name in run.scores:
                _extremes(run, name, chosen)
        below.update(_below_gates(run))
    if len(runs) == 2:
        _changed(runs[0], runs[1], chosen)
    for row_id in below:
        if len(chosen) >= MAX_ROWS - RANDOM:
            break
        chosen.setdefault(row_id, "below a gate")
    common = [i for i in first.ids if all(r.position(i) is not None for r in runs[1:])] if len(runs) == 2 else first.ids
    pool = [i for i in common if i not in chosen]
    for row_id in random.Random(SEED).sample(pool, max(0, min(RANDOM, len(pool), MAX_ROWS - len(chosen)))):
        chosen[row_id] = "random"
    order = {row_id: n for n, row_id in enumerate(first.ids)}
    ids = sorted(chosen, key=lambda i: order.get(i, len(order)))
    counts: dict[str, int] = {}
    for why in chosen.values():
        counts[why] = counts.get(why, 0) + 1
    note = {"shown": len(ids), "rows": max(len(r.ids) for r in runs), "why": counts, "below_gates": len(below),
            "worst": WORST, "best": BEST, "changed": CHANGED if len(runs) == 2 else 0, "random": RANDOM,
            "seed": SEED}
    return ids, note


def _extremes(run: Run, name: str, chosen: dict[str, str]) -> None:
    higher = run.manifest.metrics[name].higher_is_better is not False
    scored = sorted((v if higher else -v, n) for n, v in enumerate(run.scores[name]) if v is not None)
    for _, n in scored[:WORST]:
        chosen.setdefault(run.ids[n], "worst")
    for _, n in scored[::-1][:BEST]:
        chosen.setdefault(run.ids[n], "best")


def _changed(a: Run, b: Run, chosen: dict[str, str]) -> None:
    for name in a.metrics:
        if name not in b.scores:
            continue
        moves = []
        for n, row_id in enumerate(a.ids):
            before, index = a.scores[name][n], b.position(row_id)
            after = b.scores[name][index] if index is not None else None
            if before is not None and after is not None and after != before:
                moves.append((-abs(after - before), n))
        for _, n in sorted(moves)[:CHANGED]:
            chosen.setdefault(a.ids[n], "changed")


def _below_gates(run: Run) -> dict[str, None]:
    """Rows on the wrong side of a threshold gate's bar, in row order."""
    gates = [g for g in (run.manifest.gates or {}).get("results", []) if g.get("kind") == "threshold"]
    found: dict[str, None] = {}
    for gate in gates:
        values = run.scores.get(gate["metric"])
        if values is None or gate.get("bar") is None:
            continue
        higher = gate.get("higher_is_better", True)
        for n, v in enumerate(values):
            if v is not None and (v < gate["bar"] if higher else v > gate["bar"]):
                found[run.ids[n]] = None
    return found
