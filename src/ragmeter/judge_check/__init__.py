"""`ragmeter judge-check DATA --metrics M --judge J`: can I trust this judge on my data?

The work is in `check.py`; this package re-exports its public names."""

from ragmeter.judge_check.check import (  # noqa: F401 - the package's public face
    DEFAULT_SIZES,
    CheckResult,
    Failure,
    JudgeCheckResult,
    MetricCheck,
    check_report,
    estimate_check,
    judge_check,
    measure,
    plan,
)

__all__ = ["CheckResult", "DEFAULT_SIZES", "Failure", "JudgeCheckResult", "MetricCheck", "check_report",
           "estimate_check", "judge_check", "measure", "plan"]
