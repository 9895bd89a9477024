"""Test sets from your own documents: `ragmeter testset DOCS --size 50 --out DIR`.

The work is in `build.py`; this package re-exports its public names."""

from ragmeter.testset.build import (  # noqa: F401 - the package's public face
    TestsetResult,
    generate_testset,
    parse_types,
    plan_testset,
)

__all__ = ["TestsetResult", "generate_testset", "parse_types", "plan_testset"]
