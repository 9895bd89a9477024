"""Commands that read finished runs: `compare`, `report`, `explain` and `merge`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ragmeter.cli.common import console
from ragmeter.cli.evaluate import FailUnder
from ragmeter.text import plain, printable


def compare_runs(runs: Annotated[list[Path], typer.Argument(help="two or more run folders; the first is the "
                                                               "baseline unless --baseline names another")],
                 baseline: Annotated[Optional[Path], typer.Option(help="the run the others are compared "
                                                                       "against")] = None,
                 by: Annotated[Optional[str], typer.Option(help="a dataset column (or metadata key) to break "
                                                                "the scores down by, e.g. question_type")] = None,
                 metrics: Annotated[Optional[str], typer.Option(help="comma-separated; default: every metric "
                                                                     "all runs have")] = None,
                 out: Annotated[Optional[Path], typer.Option(help="folder for compare.json")] = None,
                 top: Annotated[int, typer.Option(help="two runs: rows that changed most, per metric")] = 5,
                 fail_under: FailUnder = None,
                 gate: Annotated[str, typer.Option(help="mean | lower: the mean, or the pessimistic end of its "
                                                        "95% interval, must clear each --fail-under bar")] = "mean",
                 max_drop: Annotated[Optional[float], typer.Option(
                     "--max-drop", help="fail a run significantly worse than the baseline by more than this "
                                        "(default: any significant drop fails once a gate is asked for)")] = None,
                 junit: Annotated[Optional[Path], typer.Option(
                     "--junit", help="write JUnit XML: one test suite per run, one case per gate")] = None,
                 all_slices: Annotated[bool, typer.Option(
                     "--all-slices", help="--by: compare every slice, not only the 20 largest")] = False) -> None:
    """Paired comparison of runs. Two: per metric the difference B - A with a 95% paired-bootstrap
    interval, a sign-flip p-value (Holm-adjusted across metrics) and the rows that moved most.
    More (or --baseline, --by, a gate): runs x metrics with intervals, each run against the
    baseline (Holm over every run and metric), by slice with --by; gates apply to every run."""
    from ragmeter.errors import ConfigError

    names = _metric_names(metrics)
    gated = fail_under is not None or max_drop is not None or junit is not None
    _check_compare_options(runs, baseline, top, max_drop)
    if gate not in ("mean", "lower"):  # before anything is read or printed
        raise ConfigError(f"--gate {gate}: compare takes mean or lower (calibrated needs a run's labels)")
    if fail_under is not None:
        from ragmeter.results.gates import parse_fail_under

        parse_fail_under(fail_under)  # a bad bar refused before any run is read
    if len(runs) == 2 and baseline is None and by is None and not gated:
        from ragmeter.results.compare import compare, print_comparison, write_comparison

        result = compare(runs[0], runs[1], names, top=top)
        print_comparison(result, console())
        if out:
            print(plain(f"wrote {write_comparison(result, out)}"))
        return
    _compare_many(runs, baseline, by, names, out, fail_under, gate, max_drop, junit if gated else None, all_slices)


def _metric_names(metrics: Optional[str]) -> Optional[list[str]]:
    from ragmeter.errors import ConfigError

    if metrics is None:
        return None
    names = [m.strip() for m in metrics.split(",") if m.strip()]
    if not names:
        raise ConfigError(f"--metrics {metrics!r} names no metric")
    return names


def _no_run_twice(folders: list[Path]) -> None:
    """A run given twice would be compared with itself (report took it, compare refused it)."""
    from ragmeter.errors import ConfigError

    seen: dict[Path, Path] = {}
    for folder in folders:
        key = folder.resolve()
        if key in seen:
            raise ConfigError(f"{folder} is given twice (as {seen[key]}): compare a run with another")
        seen[key] = folder


def _check_compare_options(runs: list[Path], baseline: Optional[Path], top: int, max_drop: Optional[float]) -> None:
    """compare's options refused before any run is read: too few runs, a run compared with
    itself, a negative --top, a --max-drop that is no drop."""
    import math

    from ragmeter.errors import ConfigError

    folders = [*runs, *([baseline] if baseline is not None else [])]
    if len(folders) < 2:
        raise ConfigError("compare needs two runs or more (or one and --baseline)")
    _no_run_twice(folders)
    if top < 0:
        raise ConfigError(f"--top must be 0 or more, got {top}")
    if max_drop is not None and not (math.isfinite(max_drop) and max_drop >= 0):
        raise ConfigError(f"--max-drop must be a finite number >= 0 (a drop in the metric's units), got {max_drop}")


def _compare_many(runs: list[Path], baseline: Optional[Path], by: Optional[str], names: Optional[list[str]],
                  out: Optional[Path], fail_under: Optional[str], gate: str, max_drop: Optional[float],
                  junit: Optional[Path], all_slices: bool = False) -> None:
    from ragmeter.io.writers import make_folder, write_json
    from ragmeter.results.console import print_many
    from ragmeter.results.matrix import MAX_SLICES, compare_many, with_baseline

    loaded, base = with_baseline(list(runs), baseline)
    result = compare_many(list(loaded), base, names, by, max_slices=None if all_slices else MAX_SLICES)
    print_many(result, console())
    if out:
        path = make_folder(out) / "compare.json"
        write_json(path, result.model_dump(mode="json"))
        print(plain(f"wrote {path}"))
    if fail_under is None and max_drop is None and junit is None:
        return
    _gate_many(result, loaded, fail_under, gate, max_drop, junit)


def _gate_many(result: Any, loaded: list[Any], fail_under: Optional[str],
               gate: str, max_drop: Optional[float], junit: Optional[Path]) -> None:
    from ragmeter.results.ci_files import junit_runs, write_text
    from ragmeter.results.gates import GateSettings, parse_fail_under
    from ragmeter.results.matrix import gate_runs

    settings = GateSettings(thresholds=parse_fail_under(fail_under) if fail_under else {},
                            gate="lower" if gate == "lower" else "mean", baseline=result.baseline,
                            max_drop=max_drop or 0.0)
    settings.check_metrics(result.metrics)
    reports = gate_runs(result, loaded, settings)
    for label, report in reports.items():
        for g in report.failures():
            console().print(f"[red]FAIL[/red] {printable(label)}: {printable(g.message)}", highlight=False)
    if junit is not None:
        print(plain(f"wrote {write_text(junit, junit_runs(reports))}"))
    codes = [r.exit_code for r in reports.values()]
    if any(codes):
        raise typer.Exit(1 if 1 in codes else 2)
    console().print(f"[green]pass[/green] every gate of {len(reports)} runs", highlight=False)


def html_report(runs: Annotated[list[Path], typer.Argument(help="a run folder; two are compared row by row; "
                                                               "three or more side by side")],
                out: Annotated[Path, typer.Option(help="the HTML file to write")] = Path("report.html"),
                baseline: Annotated[Optional[Path], typer.Option(help="many runs: the one the others are compared "
                                                                      "against (default: the first)")] = None,
                by: Annotated[Optional[str], typer.Option(help="many runs: a dataset column (or metadata key) "
                                                               "to break the scores down by")] = None,
                judge_check: Annotated[Optional[Path], typer.Option(
                    "--judge-check", help="a judge_check.json to show (default: the one beside the run)")] = None,
                label: Annotated[Optional[str], typer.Option(
                    "--label", help="instead, a page for labelling these metrics (comma-separated) on a sample of "
                                    "rows; it saves labels.jsonl for `ragmeter calibrate`")] = None,
                sample: Annotated[int, typer.Option(help="--label: rows to label")] = 100,
                seed: Annotated[int, typer.Option(help="--label: the sample's seed")] = 0,
                strategy: Annotated[str, typer.Option(help="--label: random | stratified (spread over the "
                                                           "judge's score deciles)")] = "random",
                labels: Annotated[Optional[Path], typer.Option(help="--label: labels.jsonl given earlier, to "
                                                                    "resume")] = None,
                scale: Annotated[Optional[str], typer.Option(help="--label: LOW,HIGH for ratings (e.g. 1,5) "
                                                                  "instead of 0/1")] = None) -> None:
    """One self-contained HTML page: summary with intervals and distributions, paired
    differences for two runs, and every row with its evidence (search, sort, filter); for three
    runs or more (or --by), the runs x metrics matrix, slices, and the rows where the runs
    disagree; with --label, a page where people label a sample of rows instead."""
    from ragmeter.report import write_report

    run_a, run_b = runs[0], runs[1] if len(runs) > 1 else None
    _no_run_twice([*runs, *([baseline] if baseline is not None else [])])
    if len(runs) > 2 or by is not None or baseline is not None:
        from ragmeter.report.many import write_many_report

        if label is not None:
            from ragmeter.errors import ConfigError

            raise ConfigError("--label labels one run: give one run folder")
        print(plain(f"wrote {write_many_report(list(runs), out, baseline=baseline, by=by)}"))
        return

    if label is not None:
        from ragmeter.errors import ConfigError
        from ragmeter.report.labelling import write_labelling_page

        if run_b is not None:
            raise ConfigError(f"--label labels one run; {run_b} would not be used: give one run folder")
        target = out if out != Path("report.html") else Path("label.html")
        path = write_labelling_page(run_a, [m.strip() for m in label.split(",") if m.strip()], target,
                                    sample=sample, seed=seed, strategy=strategy, labels=labels,
                                    scale=_scale(scale) if scale else None)
        print(plain(f"wrote {path}: label the rows, save labels.jsonl, then `ragmeter calibrate {run_a} "
                    "labels.jsonl`"))
        return
    print(plain(f"wrote {write_report(run_a, run_b, out, judge_check=judge_check)}"))


def _scale(text: str) -> tuple[int, int]:
    from ragmeter.errors import ConfigError

    try:
        low, high = (int(p) for p in text.split(","))
    except ValueError:
        raise ConfigError(f"--scale {text}: expected LOW,HIGH, e.g. 1,5") from None
    if low >= high:
        raise ConfigError(f"--scale {text}: LOW must be below HIGH")
    if high - low + 1 > 100:  # a button per point (LOW to HIGH, both ends): a million made a 48 MB page
        raise ConfigError(f"--scale {text}: at most 100 points (a button each), e.g. 1,5 or 0,10")
    return low, high


def calibrate(run: Annotated[Path, typer.Argument(help="a run folder")],
              labels: Annotated[Path, typer.Argument(help="labels.jsonl: id, metric, label (0/1, or a rating with "
                                                          "its scale) per line")],
              metrics: Annotated[Optional[str], typer.Option(help="comma-separated; default: every labelled "
                                                                  "metric")] = None,
              out: Annotated[Optional[Path], typer.Option(help="the JSON to write (default: "
                                                               "RUN/calibration.json)")] = None) -> None:
    """What people would say: per labelled metric, the prediction-powered estimate of the human
    mean from the judge's scores and a few human labels, with a 95% interval valid whatever the
    judge's bias, beside the labels-only interval and how well the scores read as rates."""
    from ragmeter.io.writers import write_json
    from ragmeter.labels.calibrate import calibrate_run
    from ragmeter.results.console import calibrated_line
    from ragmeter.results.runs import load_run

    loaded = load_run(run)
    names = [m.strip() for m in metrics.split(",") if m.strip()] if metrics else None
    found = calibrate_run(loaded, labels, names)
    shown = console()
    for name, c in found.items():
        shown.print(plain(calibrated_line(name, c.model_dump(mode="json"))), highlight=False, markup=False)
    path = out or run / "calibration.json"
    write_json(path, {"run": str(run), "labels": str(labels), "metrics": {n: c.model_dump(mode="json")
                                                                         for n, c in found.items()}})
    print(plain(f"wrote {path}"))


def merge(folders: Annotated[list[Path], typer.Argument(help="the shards' run folders (--shard 0/N ... N-1/N)")],
          out: Annotated[Path, typer.Option(help="the merged run folder")],
          overwrite: Annotated[bool, typer.Option("--overwrite")] = False) -> None:
    """Join the run folders of `--shard I/N` runs into one run: rows in dataset order, means and
    intervals recomputed from the rows, judge accounting summed."""
    from ragmeter.results.console import print_summary
    from ragmeter.results.merge import merge_runs
    from ragmeter.results.runs import load_run

    path = merge_runs(list(folders), out, overwrite)
    print_summary(load_run(out).manifest, console())
    print(plain(f"wrote {path} and {out / 'manifest.json'}"))


def explain_run(run: Annotated[Path, typer.Argument(help="a run folder")],
                metrics: Annotated[Optional[str], typer.Option(help="comma-separated; default: every metric "
                                                                    "with a reason not written")] = None,
                ids: Annotated[Optional[str], typer.Option(help="comma-separated row ids")] = None,
                where: Annotated[Optional[str], typer.Option(help="METRIC OP NUMBER, e.g. 'faithfulness < 0.5'")]
                = None,
                judge: Annotated[Optional[str], typer.Option(help="default: the run's own judge")] = None) -> None:
    """Write the reasons a run left out (`reasons: failing` or `none`) for the rows you pick, in
    place: the same prompts asked again with every reason; scores stay as they were."""
    from ragmeter.explain import explain

    names = [m.strip() for m in metrics.split(",") if m.strip()] if metrics else None
    chosen = [i.strip() for i in ids.split(",") if i.strip()] if ids else None
    done = explain(run, names, chosen, where, judge)
    if not any(done.rows.values()) and not any(done.changed.values()):
        print("no row of that choice lacks a reason: nothing to write")
        return
    for name, rows in done.rows.items():
        kept = f"; {done.changed[name]} left as they were (their score would change)" if done.changed[name] else ""
        print(plain(f"{name}: reasons written for {rows} rows, {done.judge_calls[name]} judge calls{kept}"))
    print(plain(f"updated {run}"))
    if done.report is not None:
        print(plain(f"refreshed {done.report}"))
    else:
        print("a report page made before still shows the old reasons; to refresh it:")
        print(plain(f"  ragmeter report {run}"))
