"""Chunks as the seed makes them: LangChain's RecursiveCharacterTextSplitter (the seed's own
splitter, so the chunks are the same), chunk_size 2000, overlap 200, separators
["\\n\\n", "\\n", ".", " ", ""], start index kept; or sized in tokens of the bundled
embedder's tokenizer. A chunk id is stable: a hash of source, start and content.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from ragmeter.errors import ConfigError
from ragmeter.testset.documents import Document

SEPARATORS = ["\n\n", "\n", ".", " ", ""]
#: a chunk shorter than this (characters) says too little to ask a question about
MIN_CHUNK_CHARS = 200


@dataclass(frozen=True)
class Chunk:
    id: str
    source: str
    start: int
    text: str


def chunk_id(source: str, start: int, text: str) -> str:
    digest = hashlib.sha256(f"{source}\x00{start}\x00{text}".encode()).hexdigest()
    return f"c-{digest[:16]}"


def split(documents: list[Document], chunk_size: int = 2000, chunk_overlap: int = 200,
          unit: str = "characters") -> list[Chunk]:
    """Every document's chunks, in document order."""
    if chunk_overlap >= chunk_size:
        raise ConfigError(f"chunk_overlap ({chunk_overlap}) must be smaller than chunk_size ({chunk_size})")
    splitter = _splitter(chunk_size, chunk_overlap, unit)
    chunks = []
    for doc in documents:
        for piece in splitter.create_documents([doc.text], metadatas=[{"source": doc.source}]):
            start = int(piece.metadata["start_index"])
            chunks.append(Chunk(chunk_id(doc.source, start, piece.page_content), doc.source, start,
                                piece.page_content))
    return chunks


def _splitter(chunk_size: int, chunk_overlap: int, unit: str) -> Any:
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    except ImportError:
        raise ConfigError("test-set generation needs langchain-text-splitters: pip install 'ragmeter[testset]'") \
            from None
    options: dict[str, Any] = dict(chunk_size=chunk_size, chunk_overlap=chunk_overlap, add_start_index=True,
                                   separators=SEPARATORS)
    if unit == "characters":
        return RecursiveCharacterTextSplitter(**options)
    if unit == "tokens":
        from transformers import AutoTokenizer

        from ragmeter.embeddings.local import bundled_dir

        tokenizer = AutoTokenizer.from_pretrained(str(bundled_dir()), local_files_only=True)
        return RecursiveCharacterTextSplitter.from_huggingface_tokenizer(tokenizer, **options)
    raise ConfigError(f"chunk unit must be characters or tokens, got '{unit}'")
