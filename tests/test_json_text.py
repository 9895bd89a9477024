"""The JSON text cache keys are hashed from must not change with the writer (orjson where it
writes the same as the json module, the json module elsewhere), and values read back equal."""

from __future__ import annotations

import json
import math
import random

from ragmeter.text import canonical_json, json_text


def old_canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


CASES = [
    {"contexts": ["Paris é \u2028 \x1f \x7f 😀", "b"], "statements": ["x"], "n": 3},
    {"z": 1, "a": [None, True, False, -2**63, 2**64 - 1], "é": {"ÿ": "e"}},
    {"temperature": 0.0, "top_p": 1e-07, "big": 1e16, "small": 1.4000395390123543e-05},  # floats: json's forms
    {"huge": 2**70, "t": (1, "2")}, {1: "an int key"},  # past 64 bits, a tuple, a key that is not a string
    "just a string",
]


def test_canonical_json_is_the_json_modules_text_for_every_kind_of_value():
    rng = random.Random(0)
    floats = [rng.uniform(-1e-3, 1e-3) for _ in range(200)] + [rng.uniform(-1e20, 1e20) for _ in range(200)]
    for case in [*CASES, {"f": floats}]:
        assert canonical_json(case) == old_canonical(case)


def test_json_text_reads_back_equal_and_writes_non_finite_floats_as_null():
    for case in CASES[:3]:  # (a tuple reads back as a list, with either writer)
        assert json.loads(json_text(case)) == case
    assert json.loads(json_text({"x": 2**70, 3: "a"})) == {"x": 2**70, "3": "a"}  # the json module's fallback
    assert json_text({"p": math.nan, "q": math.inf}) == '{"p":null,"q":null}'

