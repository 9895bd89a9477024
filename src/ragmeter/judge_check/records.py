"""A judge's last check, kept beside the cache (`judge-checks.json`) and keyed by the judge's
identity, so that `run` and `evaluate` can say what the check found, or that none was run."""

from __future__ import annotations

from typing import Any

from ragmeter.judge_check.results import JudgeCheckResult, MetricCheck

CHECKS_FILE, CHECKS_ENV = "judge-checks.json", "RAGMETER_JUDGE_CHECKS"


def _identity(judge_record: dict[str, Any]) -> dict[str, Any]:
    """A manifest's judge record without what does not identify the model (its replicas' state)."""
    return {k: v for k, v in judge_record.items()
            if k not in ("name", "servers", "batches", "api_key_env", "reasons")}  # reasons: same scores


def remember(judge_record: dict[str, Any], checked: JudgeCheckResult) -> None:
    """Keep the check's headline figures beside the cache, so a run with this judge can say
    what its check found (or that none was run)."""
    import datetime as dt

    from ragmeter.judges.records import judge_key, record_file, write_record

    figures = {name: {"pass_rate": _overall(m), "roc_auc": m.roc_auc,
                      "worst": min(((c.check, c.pass_rate) for c in m.checks if c.pass_rate is not None),
                                   key=lambda x: x[1], default=None)}
               for name, m in checked.metrics.items() if m.checks}
    write_record(record_file(CHECKS_FILE, CHECKS_ENV), judge_key(_identity(judge_record), "jc1"),
                 {"checked_at": dt.date.today().isoformat(), "data": checked.data, "metrics": figures})


def last_check(judge_record: dict[str, Any] | None) -> dict[str, Any] | None:
    """What the last judge check of this judge found, or None."""
    from ragmeter.judges.records import judge_key, read_records, record_file

    if not judge_record:
        return None
    found = read_records(record_file(CHECKS_FILE, CHECKS_ENV)).get(judge_key(_identity(judge_record), "jc1"))
    return found if isinstance(found, dict) else None


def _overall(check: MetricCheck) -> float | None:
    scored = sum(c.n - c.unscored for c in check.checks)
    return sum(c.passed for c in check.checks) / scored if scored else None
