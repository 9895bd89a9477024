"""The user's documents: a folder (recursively: .txt, .md, .html, .pdf), a JSONL/Parquet/CSV
file or a datasets.Dataset with a `text` column (and optional `source`, `id`), as in the
seed's m-ric/huggingface_doc. A PDF that cannot be read is skipped and counted, never fatal.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragmeter.errors import DataError
from ragmeter.io.formats import is_data_file, suffixes_text
from ragmeter.io.json_files import line_of

TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".rst")
HTML_SUFFIXES = (".html", ".htm")


@dataclass
class Document:
    source: str
    text: str


@dataclass
class Corpus:
    documents: list[Document]
    skipped: list[str] = field(default_factory=list)  # "path: why"


def load_documents(docs: Any) -> Corpus:
    if not isinstance(docs, (str, Path)):
        return Corpus(_from_records(_records_of(docs), "<in-memory>"))
    path = Path(docs)
    if path.is_dir():
        return _from_folder(path)
    if is_data_file(path):  # any format io reads (.jsonl, .ndjson, .json, .csv, .parquet)
        from ragmeter.io.data_file import open_data_file

        return Corpus(_from_records(open_data_file(path).records(), str(path)))
    if path.is_file():
        return _from_files([path], path.parent)
    raise DataError(f"documents not found (a folder, or a table: {suffixes_text()}, with a `text` column)",
                    source=str(path))


def _records_of(data: Any) -> list[dict[str, Any]]:
    if hasattr(data, "to_list"):  # datasets.Dataset
        return list(data.to_list())
    if hasattr(data, "to_dict") and hasattr(data, "columns"):  # pandas.DataFrame
        return list(data.to_dict("records"))
    if isinstance(data, list):
        return data
    raise DataError(f"cannot read documents from a {type(data).__name__}: pass a folder, a file, a list of "
                    "{text, source} dicts or a datasets.Dataset")


def _from_records(records: list[dict[str, Any]], source: str) -> list[Document]:
    documents = []
    for number, record in enumerate(records, start=1):
        text = record.get("text")
        if not isinstance(text, str):
            raise DataError("no text (a `text` column of strings is required)", source=source,
                            row=line_of(record, number), field="text")
        name = record.get("source") or record.get("id") or f"{source}#{number}"
        documents.append(Document(str(name), text))
    if not documents:
        raise DataError("no documents", source=source)
    return documents


def _from_folder(folder: Path) -> Corpus:
    supported = TEXT_SUFFIXES + HTML_SUFFIXES + (".pdf",)
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in supported)
    if not files:
        raise DataError("no supported files (.txt, .md, .html, .pdf) in the folder", source=str(folder))
    return _from_files(files, folder)


def _from_files(files: list[Path], root: Path) -> Corpus:
    corpus = Corpus([])
    for path in files:
        name = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        try:
            text = _read(path)
        except _Unreadable as exc:
            corpus.skipped.append(f"{path}: {exc}")
            continue
        if text.strip():
            corpus.documents.append(Document(name, text))
        else:
            corpus.skipped.append(f"{path}: no text")
    if not corpus.documents:
        raise DataError(f"no readable text in {len(files)} file(s): {'; '.join(corpus.skipped[:3])}",
                        source=str(root))
    return corpus


class _Unreadable(Exception):
    pass


def _read(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return _pdf_text(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise _Unreadable("not UTF-8 text") from None
    return html_text(raw) if suffix in HTML_SUFFIXES else raw


def _pdf_text(path: Path) -> str:
    try:
        from pypdf import PdfReader
    except ImportError:
        raise _Unreadable("reading PDFs needs pypdf: pip install 'ragmeter[testset]'") from None
    with _pdf_complaints() as complaints:
        try:
            reader = PdfReader(path)
            text = "\n\n".join(page.extract_text() or "" for page in reader.pages)
        except Exception as exc:  # pypdf raises many types for damaged files
            raise _Unreadable(f"cannot parse this PDF ({type(exc).__name__}: {str(exc)[:80]})") from None
    if complaints:  # read despite damage: one line naming the file, not pypdf's log lines
        import sys

        from ragmeter.text import plain

        print(plain(f"ragmeter: {path}: read despite a damaged PDF ({'; '.join(complaints[:2])})"), file=sys.stderr)
    return text


@contextlib.contextmanager
def _pdf_complaints() -> Iterator[list[str]]:
    """pypdf's log lines ("invalid pdf header", "EOF marker not found") collected, not printed."""
    import logging

    complaints: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            complaints.append(record.getMessage()[:80])

    logger = logging.getLogger("pypdf")
    handler, propagate = Collect(level=logging.WARNING), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield complaints
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def html_text(markup: str) -> str:
    """Visible text of an HTML page, paragraphs kept apart, headings written as Markdown's
    (`## Install`), script and style dropped."""
    from html.parser import HTMLParser

    blocks = {"p", "div", "section", "article", "li", "pre", "table", "tr", "br"}
    headings = {"h1", "h2", "h3", "h4", "h5", "h6"}

    class Text(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.parts: list[str] = []
            self.skip = 0

        def handle_starttag(self, tag: str, attrs: Any) -> None:
            if tag in ("script", "style", "noscript"):
                self.skip += 1
            elif tag in headings:  # kept as Markdown headings: the outline (reading/outline.py) reads them
                self.parts.append("\n\n" + "#" * int(tag[1]) + " ")
            elif tag in blocks:
                self.parts.append("\n\n")

        def handle_endtag(self, tag: str) -> None:
            if tag in ("script", "style", "noscript"):
                self.skip = max(0, self.skip - 1)

        def handle_data(self, data: str) -> None:
            if not self.skip:
                self.parts.append(data)

    parser = Text()
    parser.feed(markup)
    text = "".join(parser.parts)
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)
