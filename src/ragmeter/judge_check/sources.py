"""The rows the checks are built from: the user's dataset, or chunks of their documents.

A dataset row gives its question, answer, reference and contexts (retrieved, else the
reference contexts of a test set). A documents folder gives chunks made as the test sets
make them (the seed's splitter), in the seeded order that spreads over documents; chunks
have no question, so only the checks that need none (faithfulness) run on them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragmeter.errors import DataError
from ragmeter.io.formats import is_data_file
from ragmeter.judge_check.cases import Source
from ragmeter.samples import Sample
from ragmeter.text import counted


def is_documents(data: Any) -> bool:
    """A folder or a single text/markdown/HTML/PDF file (a dataset file is anything else)."""
    if not isinstance(data, (str, Path)):
        return False
    path = Path(data)
    if path.is_dir():  # a folder ragmeter wrote (answers, test set, run) is a dataset
        return not (path / "manifest.json").is_file()
    return path.is_file() and not is_data_file(path)


def load_sources(data: Any, *, columns: dict[str, str] | None = None, limit: int | None = None, seed: int = 0,
                 chunk_size: int = 2000, chunk_overlap: int = 200) -> tuple[list[Source], str]:
    """The check's source rows and a description of where they came from."""
    if limit is not None and limit < 1:
        from ragmeter.errors import ConfigError

        raise ConfigError(f"limit {limit}: at least 1 row (leave it out for every row)")
    if is_documents(data):
        return _from_documents(Path(data), limit, seed, chunk_size, chunk_overlap)
    from ragmeter.io.datasets import load_dataset

    dataset = load_dataset(data, columns=columns)
    sources = [s for s in (_from_sample(sample) for sample in dataset.samples) if s.contexts]
    if len(sources) < 2:
        raise DataError(f"the judge check needs at least 2 rows with contexts (retrieved_contexts or "
                        f"reference_contexts), found {len(sources)}: other rows supply the unrelated cases",
                        source=dataset.source)
    return sources[:limit] if limit else sources, f"{dataset.source} ({len(dataset)} rows)"


def _from_sample(sample: Sample) -> Source:
    contexts = [c for c in (sample.retrieved_contexts or sample.reference_contexts or []) if c.strip()]
    question = sample.user_input if isinstance(sample.user_input, str) and sample.user_input.strip() else None
    return Source(sample.id, contexts, question, sample.response, sample.reference, _relevant(sample))


def _relevant(sample: Sample) -> list[str] | None:
    """The contexts the row says answer its question, or None when it does not say."""
    if sample.reference_contexts:
        return [c for c in sample.reference_contexts if c.strip()] or None
    if sample.reference_context_ids and sample.retrieved_context_ids and sample.retrieved_contexts:
        wanted = set(sample.reference_context_ids)
        return [c for c, i in zip(sample.retrieved_contexts, sample.retrieved_context_ids) if i in wanted] or None
    return None


def _from_documents(path: Path, limit: int | None, seed: int, chunk_size: int,
                    chunk_overlap: int) -> tuple[list[Source], str]:
    from ragmeter.testset.chunking import split
    from ragmeter.testset.documents import load_documents
    from ragmeter.testset.sampling import chunk_order

    corpus = load_documents(path)
    chunks = split(corpus.documents, chunk_size, chunk_overlap)
    sources = []
    for chunk in chunk_order(chunks, seed):
        sources.append(Source(chunk.id, [chunk.text]))
        if limit and len(sources) >= limit:
            break
    if len(sources) < 2:
        raise DataError(f"the judge check needs at least 2 chunks of 200 characters or more, found {len(sources)} "
                        f"(chunk size {chunk_size})", source=str(path))
    return sources, (f"{path} ({counted(len(corpus.documents), 'document')}, {counted(len(chunks), 'chunk')} of "
                     f"{chunk_size} characters)")
