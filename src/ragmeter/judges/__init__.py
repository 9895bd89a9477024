"""Judges: one async protocol (base.py), one module per backend, and the session that caches,
retries and validates (session.py). `make_judge(spec)` builds one from a spec string."""

from ragmeter.judges.base import DecodingParams, Judge, JudgeReply, JudgeRequest
from ragmeter.judges.spec import JudgeSettings, make_judge, parse_judge_spec

__all__ = ["DecodingParams", "Judge", "JudgeSettings", "JudgeReply", "JudgeRequest", "make_judge",
           "parse_judge_spec"]
