"""Scoring rows: the local asyncio engine (local.py), the Ray engine (ray.py) and the
progress line both print. Engines take a prepared run and return its RunResult."""
