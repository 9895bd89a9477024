"""The user's documents: a folder (recursively: the SUPPORTED types), a JSONL/Parquet/CSV
file or a datasets.Dataset with a `text` column (and optional `source`, `id`), as in the
seed's m-ric/huggingface_doc. A file that cannot be read (a damaged PDF, not UTF-8, more than
the memory free allows) is skipped with its reason, never fatal; files of other types in a
folder are counted by type; Word, OpenDocument, EPUB, PowerPoint, Excel and HTML files are
converted to Markdown (testset/converters.py) and read as Markdown is; Markdown's inline HTML and
unresolved include directives are taken out (reading/markup.py). `Corpus.said()` is the line a
user reads about all of it, naming what read each file.
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
from ragmeter.testset.converters import CONVERTED, INSTALL, MARKDOWN_READERS, Unconverted, reads_web_pages, to_markdown

TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".rst")
MARKDOWN_SUFFIXES = (".md", ".markdown")
HTML_SUFFIXES = (".html", ".htm")
SUPPORTED = TEXT_SUFFIXES + HTML_SUFFIXES + (".pdf", ".docx", ".odt", ".epub", ".pptx", ".xlsx")
#: memory a document takes to read, chunk and outline, per byte of file (measured: 100 MB of
#: Markdown peaked at 1.75 GB through reading, chunking and the outline, 17x with the interpreter)
MEMORY_PER_BYTE = 16


def supported_text() -> str:
    """The file types a folder's documents may be: ".txt, .md, ..." for help and errors."""
    return ", ".join(SUPPORTED)


@dataclass
class Document:
    source: str
    text: str


@dataclass
class Corpus:
    documents: list[Document]
    skipped: list[str] = field(default_factory=list)  # "path: why"
    #: files of a type not read, by suffix (".adoc": 3); a file with none is counted as "(none)"
    other_types: dict[str, int] = field(default_factory=dict)
    #: documents read, by suffix
    read_types: dict[str, int] = field(default_factory=dict)
    #: include directives taken out, by document: (count, the first few as written)
    includes: dict[str, tuple[int, list[str]]] = field(default_factory=dict)
    #: front matter taken out, by document: its keys (reading/markup.py)
    front_matter: dict[str, list[str]] = field(default_factory=dict)
    #: documents read, by what read them: "text", "pypdf", "pandoc", "markitdown", "html.parser"
    read_by: dict[str, int] = field(default_factory=dict)

    def record(self, source: str) -> dict[str, object]:
        """The manifest's `documents`: what was read, skipped and taken out."""
        return {"source": source, "count": len(self.documents), "skipped": self.skipped,
                "read_types": self.read_types, "read_by": self.read_by, "other_types": self.other_types,
                "includes_taken_out": {name: n for name, (n, _) in self.includes.items()},
                "front_matter_taken_out": self.front_matter}

    def said(self) -> str:
        """What was read and what was not, and why: one line (several where files were skipped)."""
        from ragmeter.text import counted

        read = ", ".join(f"{k} {v}" for k, v in sorted(self.read_types.items()))
        if set(self.read_by) - {"text"}:  # what read them, where anything but reading the text did
            read += "; by " + ", ".join(f"{k} {v}" for k, v in sorted(self.read_by.items()))
        lines = [f"read {counted(len(self.documents), 'document')}" + (f" ({read})" if read else "")]
        if "html.parser" in self.read_by:
            lines.append(f"{counted(self.read_by['html.parser'], 'web page')} read without pandoc, which keeps their "
                         f"lists and tables and leaves out the site's navigation: {INSTALL}")
        if self.other_types:
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.other_types.items(), key=lambda kv: -kv[1]))
            lines.append(f"not read: {counted(sum(self.other_types.values()), 'file')} of other types ({kinds}); "
                         f"ragmeter reads {supported_text()} (convert others to one of these)")
        lines += [f"skipped {entry}" for entry in self.skipped]
        if self.includes:
            count = sum(n for n, _ in self.includes.values())
            example = next(iter(self.includes.values()))[1][0]
            lines.append(f"{counted(count, 'include directive')} in {counted(len(self.includes), 'document')} "
                         f"not resolved and taken out (e.g. {example}): the text they stand for is not in the "
                         "test set; give the built pages (.html) to ask about it")
        if self.front_matter:
            lines.append(f"front matter taken out of {counted(len(self.front_matter), 'document')} (the site's "
                         "keys, not page text; a title kept as the page's heading)")
        return "\n".join(lines)


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
    """The folder's documents. A link to a file outside the folder (`/etc/passwd`) is not
    read, only said: the folder is what the user chose to share with the model."""
    found = sorted(p for p in folder.rglob("*") if p.is_file() and not _hidden(p, folder))
    inside = folder.resolve()
    outside = {p for p in found if not p.resolve().is_relative_to(inside)}
    found = [p for p in found if p not in outside]
    files = [p for p in found if p.suffix.lower() in SUPPORTED]
    other: dict[str, int] = {}
    for path in found:
        if path.suffix.lower() not in SUPPORTED:
            other[path.suffix.lower() or "(none)"] = other.get(path.suffix.lower() or "(none)", 0) + 1
    if not files:
        kinds = f" (found: {', '.join(sorted(other))})" if other else ""
        raise DataError(f"no files ragmeter reads ({supported_text()}) in the folder{kinds}", source=str(folder))
    corpus = _from_files(files, folder)
    corpus.other_types = other
    corpus.skipped += [f"{p}: a link to a file outside the folder (not read)" for p in sorted(outside)]
    return corpus


def _hidden(path: Path, root: Path) -> bool:
    """In a hidden folder or hidden itself (.git, .venv): never a user's documents."""
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _from_files(files: list[Path], root: Path) -> Corpus:
    from ragmeter.io.memory import available_memory

    corpus = Corpus([])
    free = available_memory()
    for path in files:
        name = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        try:
            free = _room(path, free)
            text, reader = _read(path)
        except (_Unreadable, Unconverted) as exc:
            corpus.skipped.append(f"{path}: {exc}")
            continue
        markdown = path.suffix.lower() in MARKDOWN_SUFFIXES or reader in MARKDOWN_READERS
        if path.suffix.lower() in TEXT_SUFFIXES or markdown:
            text = _cleaned(corpus, name, text, markdown)
        if text.strip():
            corpus.documents.append(Document(name, text))
            corpus.read_types[path.suffix.lower()] = corpus.read_types.get(path.suffix.lower(), 0) + 1
            corpus.read_by[reader] = corpus.read_by.get(reader, 0) + 1
        else:
            corpus.skipped.append(f"{path}: no text")
    if not corpus.documents:
        raise DataError(f"no readable text in {len(files)} file(s): {'; '.join(corpus.skipped[:3])}",
                        source=str(root))
    return corpus


class _Unreadable(Exception):
    pass


def _room(path: Path, free: int | None) -> int | None:
    """The memory left once `path` is read; _Unreadable where it would not fit (a 2 GB log in
    the folder grew to 19 GB and the kernel killed the run with no word)."""
    if free is None or path.suffix.lower() == ".pdf":  # a PDF's text is a small part of its bytes
        return free
    size = path.stat().st_size
    need = size * MEMORY_PER_BYTE
    if need > free:
        raise _Unreadable(f"{_bytes(size)} needs about {_bytes(need)} of memory to read and "
                          f"{_bytes(max(0, free))} are free: split it, or leave it out of the folder")
    return free - need


def _bytes(n: float) -> str:
    return f"{n / 1e9:,.1f} GB" if n >= 1e9 else f"{n / 1e6:,.0f} MB"


def _cleaned(corpus: Corpus, name: str, text: str, markdown: bool) -> str:
    """Markdown's inline HTML dropped and include directives taken out, counted on the corpus."""
    from ragmeter.reading.markup import clean_markup

    cleaned = clean_markup(text, markdown)
    if cleaned.include_count:
        corpus.includes[name] = (cleaned.include_count, cleaned.includes)
    if cleaned.front_matter:
        corpus.front_matter[name] = cleaned.front_matter
    return cleaned.text


def _read(path: Path) -> tuple[str, str]:
    """The file's text and what read it: pypdf, a converter to Markdown, or the text as it is
    (an HTML page by the built-in reader where the documents extra is not installed, as before
    issue 74)."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return _pdf_text(path), "pypdf"
    if suffix in CONVERTED and (suffix not in HTML_SUFFIXES or reads_web_pages()):
        return to_markdown(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise _Unreadable("not UTF-8 text") from None
    return (html_text(raw), "html.parser") if suffix in HTML_SUFFIXES else (raw, "text")


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
