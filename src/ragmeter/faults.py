"""The faults a run survived: retries, timeouts, HTTP errors by status, re-asks, unparseable
replies, and refused structured output.

Counted over every process that worked on the same run (a run killed and started again is
one run, io/output.py says which runs are the same): each fault is committed to the cache
as it happens, keyed by the run, so a SIGKILL loses none of them and the manifest of the
run that finishes reports them all.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ragmeter.cache import Cache, make_key

KINDS = ("retries", "timeouts", "reasks", "unparseable", "structured_output_refused", "worker_restarts")


class FaultLog:
    def __init__(self, cache: Cache | None = None, run: dict[str, Any] | None = None) -> None:
        self._cache = cache
        self._key = make_key({"faults-of-run": run}) if run is not None else None
        prior = cache.get(self._key, "faults") if cache is not None and self._key else None
        self.counts: Counter[str] = Counter(prior["counts"] if prior else {})
        self.processes = (prior["processes"] if prior else 0) + 1
        self._save()

    def add(self, kind: str, n: int = 1) -> None:
        if n:
            self.counts[kind] += n
            self._save()

    def http_error(self, status: int) -> None:
        self.add(f"http_{status}")

    def record(self) -> dict[str, Any]:
        """For the manifest: every kind (0 when none), HTTP errors by status, and how many
        processes the counts cover."""
        http = {k[5:]: v for k, v in sorted(self.counts.items()) if k.startswith("http_")}
        return {**{k: self.counts.get(k, 0) for k in KINDS}, "http_errors": http, "processes": self.processes}

    def _save(self) -> None:
        if self._cache is not None and self._key:
            self._cache.put(self._key, {"counts": dict(self.counts), "processes": self.processes}, "faults")
