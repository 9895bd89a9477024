"""Test sets from your own documents: `ragmeter testset DOCS --size 50 --out DIR`.

The work is in `build.py` (the dry run's plan in `estimate.py`); this package re-exports their public names."""

from ragmeter.testset.build import (  # noqa: F401 - the package's public face
    TestsetResult,
    generate_testset,
    parse_types,
)
from ragmeter.testset.estimate import plan_testset  # noqa: F401

__all__ = ["TestsetResult", "generate_testset", "parse_types", "plan_testset"]
