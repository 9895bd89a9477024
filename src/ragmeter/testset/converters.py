"""Documents as people keep them (.docx, .odt, .epub, .pptx, .xlsx, and web pages) converted to
Markdown, which then goes the way a .md file goes (documents.py): inline HTML dropped, include
directives taken out, headings read as the outline.

Each kind is read by the converter that read it best on real files (docs/testsets.md, "Which
converter reads which kind", issue 74): pandoc for Word, OpenDocument, EPUB and HTML (headings,
lists and tables kept; its filter, pandoc.lua, writes merged or multi-line table cells as pipe
tables and drops permalinks and image addresses), markitdown for PowerPoint (text in slide order)
and Excel (pandoc's reader fails on workbooks openpyxl writes). An HTML page's navigation, header,
footer and sidebars are taken out before pandoc reads it. Both converters are optional (`pip
install 'ragmeter[documents]'`) and imported only when such a file is read: without them the file
is skipped with that line, never a crash, and an HTML page is read by the built-in reader.
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from ragmeter.reading.converted import (
    dates_without_midnight,
    images_as_alt_text,
    without_nan_cells,
    without_unnamed_headers,
)

INSTALL = "pip install 'ragmeter[documents]'"
#: suffix -> pandoc's name for the format it reads
PANDOC_FORMATS = {".docx": "docx", ".odt": "odt", ".epub": "epub", ".html": "html", ".htm": "html"}
MARKITDOWN_SUFFIXES = (".pptx", ".xlsx")
#: the kinds read by conversion to Markdown (HTML also without it: documents.html_text)
CONVERTED = tuple(PANDOC_FORMATS) + MARKITDOWN_SUFFIXES
#: converters whose text is Markdown, cleaned as a .md file is
MARKDOWN_READERS = ("pandoc", "markitdown")
#: a conversion that takes longer is stopped, and the file skipped
TIMEOUT_S = 600
FILTER = Path(__file__).with_name("pandoc.lua")
#: an HTML page's parts that are the site around the text, not the text (read by no one who asks)
CHROME = ("script, style, noscript, template, nav, form, input, button, select, textarea, "
          "[role=navigation], [role=search], [role=banner], [role=contentinfo], [role=complementary], "
          # DocBook's XSL stylesheets: the Prev/Up/Next/Home tables above and below each page
          "div.navheader, div.navfooter")


class Unconverted(Exception):
    """Why a file was not converted, in one line: the converter missing, or the file damaged."""


def to_markdown(path: Path) -> tuple[str, str]:
    """`path`'s text as Markdown, and the name of the converter that read it."""
    suffix = path.suffix.lower()
    if suffix in MARKITDOWN_SUFFIXES:
        return _markitdown(path), "markitdown"
    if suffix not in PANDOC_FORMATS:
        raise Unconverted(f"no converter reads {suffix} files")
    return _pandoc(path), "pandoc"


def reads_web_pages() -> bool:
    """Whether pandoc can be run (pypandoc-binary ships it; pypandoc finds one installed) and
    BeautifulSoup can take the site out of a page: else documents.py reads HTML as before."""
    try:
        _pandoc_path()
        import bs4  # noqa: F401
    except (Unconverted, ImportError):
        return False
    return True


def _pandoc_path() -> str:
    try:
        import pypandoc
    except ImportError:
        raise Unconverted(f"reading this needs pandoc: {INSTALL}") from None
    try:
        return str(pypandoc.get_pandoc_path())
    except OSError:
        raise Unconverted(f"reading this needs pandoc, and none was found: {INSTALL}") from None


def _pandoc(path: Path) -> str:
    suffix = path.suffix.lower()
    try:
        pandoc = _pandoc_path()
    except Unconverted:
        raise Unconverted(f"reading {suffix} files needs pandoc: {INSTALL}") from None
    command = [pandoc, "--sandbox", "--from", PANDOC_FORMATS[suffix], "--to", "gfm-raw_html", "--wrap=none",
               "--lua-filter", str(FILTER)]
    if PANDOC_FORMATS[suffix] == "html":
        try:
            markup = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise Unconverted("not UTF-8 text") from None
        stdin: bytes | None = main_content(markup).encode("utf-8")
    else:
        stdin = None
    try:
        with tempfile.TemporaryDirectory(prefix="ragmeter-") as folder:
            source = _openable_epub(path, Path(folder)) if suffix == ".epub" else path
            if stdin is None:
                command.append(str(source.absolute()))  # absolute: a name starting with "-" is not an option
            done = subprocess.run(command, input=stdin, capture_output=True, timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise Unconverted(f"pandoc took over {TIMEOUT_S} s to read it") from None
    if done.returncode:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines() or [f"exit {done.returncode}"]
        raise Unconverted(f"cannot convert this {suffix} (pandoc: {said[-1][:100]})")
    return done.stdout.decode("utf-8", "replace")


def _openable_epub(path: Path, folder: Path) -> Path:
    """The book as pandoc can open it. A manifest item whose address names a place in a file
    ("about-manual.xhtml#o8": SiSU lists each section so) stops pandoc ("No entry on path"), the
    whole book unread: in a copy in `folder`, such an item is taken out of the manifest and the
    spine where its file is listed already, else it names the file. The book itself where no item
    names a place, or where it cannot be read (pandoc then says what is wrong with it)."""
    from xml.etree import ElementTree

    try:
        with zipfile.ZipFile(path) as book:
            container = ElementTree.fromstring(book.read("META-INF/container.xml"))
            opf_path = next(e.get("full-path", "") for e in container.iter() if e.tag.endswith("rootfile"))
            opf = book.read(opf_path)
            if b"#" not in opf:
                return path
            package = ElementTree.fromstring(opf)
            dropped = _without_places(package)
            if not dropped:
                return path
            # written with ElementTree's own prefixes (ns0:): the same names to a namespace-aware
            # reader, and no prefix registered for the whole process
            copy = folder / "book.epub"
            with zipfile.ZipFile(copy, "w") as out:
                for info in book.infolist():  # in order, each as stored: "mimetype" first, uncompressed
                    data = book.read(info)
                    out.writestr(info, ElementTree.tostring(package, xml_declaration=True, encoding="utf-8")
                                 if info.filename == opf_path else data)
            return copy
    except (zipfile.BadZipFile, KeyError, StopIteration, ElementTree.ParseError, OSError, ValueError):
        return path


def _without_places(package: Any) -> set[str]:
    """The OPF's manifest items whose address names a place in a file that another item lists,
    taken out with their places in the spine; the others made to name their file. Their ids."""
    items = [e for e in package.iter() if e.tag.endswith("}item")]
    listed = {e.get("href", "") for e in items if "#" not in e.get("href", "")}
    dropped = set()
    for manifest in (e for e in package.iter() if e.tag.endswith("}manifest")):
        for item in [e for e in manifest if e.tag.endswith("}item") and "#" in e.get("href", "")]:
            file = item.get("href", "").split("#", 1)[0]
            if file in listed:
                manifest.remove(item)
                dropped.add(item.get("id", ""))
            else:
                item.set("href", file)
                listed.add(file)
    for spine in (e for e in package.iter() if e.tag.endswith("}spine")):
        for itemref in [e for e in spine if e.get("idref") in dropped]:
            spine.remove(itemref)
    return dropped


def main_content(markup: str) -> str:
    """The page's text without the site around it: its one <main> (or role=main) where it has one,
    less navigation, sidebars, forms, and the header, footer and asides outside the article (a
    note in an article is its text; Sphinx's and MkDocs' sidebars were read as text, a third of a
    short page)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(markup, "html.parser")
    for element in soup.select(CHROME):
        element.decompose()
    for element in soup.select("header, footer, aside"):
        if element.find_parent(["article"] if element.name == "aside" else ["main", "article"]) is None:
            element.decompose()
    mains = soup.select("main, [role=main]")
    return str(mains[0] if len(mains) == 1 else soup)


def _markitdown(path: Path) -> str:
    """The file through markitdown's converter for its kind: MarkItDown().convert guesses the kind
    from the bytes, and read a damaged .pptx as plain text."""
    suffix = path.suffix.lower()
    try:
        from markitdown import StreamInfo
        from markitdown.converters import PptxConverter, XlsxConverter
    except ImportError:
        raise Unconverted(f"reading {suffix} files needs markitdown: {INSTALL}") from None
    converter = _instance(PptxConverter if suffix == ".pptx" else XlsxConverter)
    try:
        with path.open("rb") as stream:
            text: str = converter.convert(stream, StreamInfo(extension=suffix, local_path=str(path))).markdown
    except Exception as exc:  # markitdown and the libraries under it raise many types for damaged files
        if type(exc).__name__ == "MissingDependencyException":
            raise Unconverted(f"reading {suffix} files needs markitdown's {suffix[1:]} extra: {INSTALL}") from None
        raise Unconverted(f"cannot convert this {suffix} ({type(exc).__name__}: {str(exc)[:80]})") from None
    text = images_as_alt_text(text)  # as through pandoc
    return _sheet_cells(text) if suffix == ".xlsx" else _paragraphs(text)


def _sheet_cells(text: str) -> str:
    """A workbook's cells as the sheet holds them, not as pandas names them: a missing value
    ("NaN") and a blank header cell ("Unnamed: 1") empty, a date without the time of day pandas
    adds ("1947-01-08", not "1947-01-08 00:00:00")."""
    return dates_without_midnight(without_unnamed_headers(without_nan_cells(text)))


def _paragraphs(text: str) -> str:
    """A slide's paragraphs (its bullets) each a Markdown paragraph, as pandoc writes them:
    markitdown writes them on consecutive lines, which Markdown joins into one run-on sentence."""
    lines = text.split("\n")
    out: list[str] = []
    for before, line in zip([""] + lines, lines):
        if before.strip() and line.strip() and not (before.lstrip().startswith("|") and line.lstrip().startswith("|")):
            out.append("")
        out.append(line)
    return "\n".join(out)


@functools.cache
def _instance(cls: Any) -> Any:
    return cls()
