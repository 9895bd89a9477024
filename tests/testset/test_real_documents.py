"""Real public documents (issue 74): a Markdown vignette, two web pages, two EPUB books, a Word
document, a PowerPoint deck and an Excel workbook, each as its authors published it
(tests/data/documents/SOURCES.md names the package, version, path and licence of each), read
by load_documents and parsed by Document.of into typed blocks. Every value asserted here was
read from the file itself (the XML in the zip, python-docx, python-pptx, openpyxl), not from
what the converter wrote. Where a converter reads a file wrongly the test says what is right
and is marked xfail(strict=True) with what it gets instead."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from ragmeter.errors import DataError
from ragmeter.reading.document import Block, Document
from ragmeter.testset.documents import load_documents

DOCS = Path(__file__).resolve().parents[1] / "data" / "documents"
#: what a reader must never find in a paragraph, list item or table cell: pandoc's span
#: attributes, raw HTML, and Markdown escapes or superscripts around plain words
RESIDUE = re.compile(r"\{\.\w+\}|</?(?:span|div|br|img|a)\b|\\[\[\]<>#*_\\]|\^\(|^\\$", re.M)
MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


@functools.cache
def read(name: str) -> tuple[dict[str, int], Document]:
    corpus = load_documents(DOCS / name)
    assert corpus.skipped == [] and len(corpus.documents) == 1
    return corpus.read_by, Document.of(corpus.documents[0].text)


def text(doc: Document, block: Block) -> str:
    return "\n".join(doc.lines[block.start:block.end])


def headings(doc: Document) -> list[tuple[int, str]]:
    """Each heading's level and text (DocBook's no-break spaces, "Chapter\xa02.\xa0...", read as spaces)."""
    return [(b.level, doc.lines[b.start].lstrip("#").strip().replace("\xa0", " ")) for b in doc.blocks
            if b.kind == "heading"]


def items(doc: Document) -> list[tuple[str, int, str]]:
    """Each list item's marker, depth and first line without its marker."""
    return [(b.marker, b.depth, MARKER.sub("", doc.lines[b.start]).strip()) for b in doc.blocks if b.kind == "list_item"]


def paragraphs(doc: Document) -> list[str]:
    """The body's paragraphs (not those inside list items), their lines joined."""
    return [" ".join(line.strip() for line in doc.lines[b.start:b.end]) for b in doc.blocks
            if b.kind == "paragraph" and b.depth == 0]


def rows(doc: Document) -> list[list[str]]:
    return [[cell.strip() for cell in doc.lines[b.start].strip().strip("|").split("|")]
            for b in doc.blocks if b.kind == "table_row"]


def residue(doc: Document) -> list[str]:
    """Paragraphs, list items and table rows holding markup a reader of the page never saw."""
    return [text(doc, b) for b in doc.blocks if b.kind in ("paragraph", "table_row") and RESIDUE.search(text(doc, b))]


def section(doc: Document, first: str, after: str) -> Document:
    """The blocks from the heading `first` up to the heading `after`, as their own Document."""
    starts = {doc.lines[b.start].lstrip("#").strip().replace("\xa0", " "): b.start for b in doc.blocks
              if b.kind == "heading"}
    return Document.of("\n".join(doc.lines[starts[first]:starts[after]]))


def plain_quotes(line: str) -> str:
    return line.translate(str.maketrans({"’": "'", "“": '"', "”": '"'}))


# -- Markdown: rmarkdown's vignette "Learn R Markdown" (R Markdown source) ------------------------

def test_markdown_vignette_reads_into_headings_list_items_a_fence_and_paragraphs():
    read_by, doc = read("learn-r-markdown.md")
    assert read_by == {"text": 1}
    # the front matter's title stays as the page's heading; the five sections are level 1
    assert headings(doc) == [(1, "Learn R Markdown"), (1, "Overview"), (1, "Tutorials"), (1, "User Guide"),
                             (1, "Going further wih examples"), (1, "Cheatsheets")]
    assert ("*", 1, "[Part I](https://bookdown.org/yihui/rmarkdown/installation.html) introduces how to install the "
            "relevant packages, and provides an overview of R Markdown, including the possible output formats, the "
            "Markdown syntax, the R code chunk syntax, and how to use other languages in R Markdown.") in items(doc)
    assert ("*", 1, "[10. Tables](https://bookdown.org/yihui/rmarkdown-cookbook/tables.html)") in items(doc)
    fences = [b for b in doc.blocks if b.kind == "fence"]
    assert [b.info for b in fences] == ["{r, include = FALSE}", "{r, results='asis', echo = FALSE, eval = FALSE}"]
    assert "knitr::opts_chunk$set(" in text(doc, fences[0])
    assert ("These tutorials offer accompanying [RStudio Cloud](https://rstudio.cloud/) lessons you can use right "
            "away in your browser.") in paragraphs(doc)
    assert residue(doc) == []  # the <a><img> and <br> lines are taken out


# -- HTML: the same vignette as rmarkdown rendered it ---------------------------------------------

def test_the_rendered_vignette_reads_into_the_same_headings_and_list_items_as_its_markdown():
    _, markdown = read("learn-r-markdown.md")
    read_by, page = read("learn-r-markdown.html")
    assert read_by == {"pandoc": 1}
    assert headings(page) == headings(markdown)
    kinds = [b.kind for b in page.blocks if b.kind in ("heading", "list_item")]
    assert kinds == [b.kind for b in markdown.blocks if b.kind in ("heading", "list_item")]
    assert [b.kind for b in page.blocks].count("list_item") == 25
    # the chunks are not shown on the page (include = FALSE, echo = FALSE): no fence there
    assert [b for b in page.blocks if b.kind == "fence"] == []
    assert ("These tutorials offer accompanying [RStudio Cloud](https://rstudio.cloud/) lessons you can use right "
            "away in your browser.") in paragraphs(page)


def test_the_rendered_vignettes_list_items_read_as_its_markdowns():
    _, markdown = read("learn-r-markdown.md")
    _, page = read("learn-r-markdown.html")
    assert [plain_quotes(t)[:40] for _, _, t in items(page)] == [t[:40] for _, _, t in items(markdown)]


def test_the_rendered_vignette_has_no_markup_residue():
    _, page = read("learn-r-markdown.html")
    assert residue(page) == []


# -- HTML: a chapter of the "Guide for Debian Maintainers" (debmake-doc, DocBook) -------------------

def test_a_docbook_chapter_reads_into_headings_nested_list_items_a_fence_and_paragraphs():
    read_by, doc = read("guide-for-debian-maintainers-ch02.html")
    assert read_by == {"pandoc": 1}
    assert headings(doc)[0] == (1, "Chapter 2. Prerequisites")
    assert [h for h in headings(doc) if h[0] == 2] == [
        (2, "2.1. People around Debian"), (2, "2.2. How to contribute"), (2, "2.3. Social dynamics of Debian"),
        (2, "2.4. Technical reminders"), (2, "2.5. Debian documentation"), (2, "2.6. Help resources"),
        (2, "2.7. Archive situation"), (2, "2.8. Contribution approaches"),
        (2, "2.9. Novice contributor and maintainer")]
    assert ("-", 1, "**sponsor**: a person who helps maintainers to upload packages to the official Debian package "
            "archive (after checking their contents).") in items(doc)
    assert ("-", 1, "We all are volunteers.") in items(doc)
    assert ("-", 3, "You can’t impose on others what to do.") in items(doc)  # a list inside the item
    [fence] = [b for b in doc.blocks if b.kind == "fence"]
    assert fence.info == "screen" and "if exist_in_debian(program):" in text(doc, fence)
    assert ("Here are the prerequisites which you need to understand before you to get involved with Debian."
            in paragraphs(doc))


def test_a_docbook_chapters_navigation_is_taken_out():
    _, doc = read("guide-for-debian-maintainers-ch02.html")
    assert not any("[Prev](ch01.en.html)" in line or "[Home](index.en.html)" in line for line in doc.lines)


@pytest.mark.parametrize("name", ["guide-for-debian-maintainers-ch02.html", "guide-for-debian-maintainers.epub"])
def test_a_docbook_chapter_has_no_markup_residue(name):
    _, doc = read(name)
    assert residue(doc) == []


# -- EPUB: the "Guide for Debian Maintainers" as debmake-doc ships it ------------------------------

def test_an_epub_book_reads_into_headings_list_items_tables_fences_and_paragraphs():
    read_by, doc = read("guide-for-debian-maintainers.epub")
    assert read_by == {"pandoc": 1}
    assert headings(doc)[0] == (1, "Guide for Debian Maintainers")
    # the book's XHTML has <h1> for chapters and sections alike, and <h3> for a note's title
    assert (1, "Chapter 2. Prerequisites") in headings(doc) and (1, "2.1. People around Debian") in headings(doc)
    assert (3, "Caution") in headings(doc)
    assert ("-", 1, "**sponsor**: a person who helps maintainers to upload packages to the official Debian package "
            "archive (after checking their contents).") in items(doc)
    table = rows(doc)
    assert ["*binarypackage*", "*type*", "**Architecture:**", "**Multi-Arch:**", "Package content"] in table
    assert any(row[-1] == "the shared library, co-installable" for row in table)
    assert any("if exist_in_debian(program):" in text(doc, b) for b in doc.blocks if b.kind == "fence")
    assert ("Here are the prerequisites which you need to understand before you to get involved with Debian."
            in paragraphs(doc))


def test_the_books_chapter_and_its_web_page_read_into_the_same_sections_and_list_items():
    _, book = read("guide-for-debian-maintainers.epub")
    _, page = read("guide-for-debian-maintainers-ch02.html")
    chapter = section(book, "Chapter 2. Prerequisites", "Chapter 3. Tool Setups")
    numbered = [t for _, t in headings(page) if t[0].isdigit()]
    assert [t for _, t in headings(chapter) if t[0].isdigit()] == numbered  # levels differ as the files do
    assert [(m, d) for m, d, _ in items(chapter)] == [(m, d) for m, d, _ in items(page)]
    # the same words, less the footnote marks' targets (#ch02.html_ftn.idm336 in the book)
    assert [re.sub(r"\(#[^)]*\)", "", t) for *_, t in items(chapter)] == [
        re.sub(r"\(#[^)]*\)", "", t) for *_, t in items(page)]


def test_an_epub_whose_manifest_names_fragments_is_read():
    try:
        _, doc = read("live-systems-manual.epub")
    except (DataError, AssertionError) as exc:
        pytest.fail(str(exc))
    assert (1, "1. About this manual") in headings(doc)
    assert any(p.startswith("This manual serves as a single access point to all documentation related to the Live "
                            "Systems Project") for p in paragraphs(doc))


# -- Word: officer's example document ------------------------------------------------------------

def test_a_word_document_reads_into_headings_numbered_and_bulleted_items_a_table_and_paragraphs():
    read_by, doc = read("officer-example.docx")
    assert read_by == {"pandoc": 1}
    assert headings(doc) == [(1, "Title 1"), (1, "Title 2"), (2, "Sub title 1"), (2, "Sub title 2")]
    # numbering.xml: the list under "Title 2" is decimal, the one under "Sub title 1" bullets
    assert items(doc) == [("1.", 1, "Quisque tristique"), ("2.", 1, "Augue nisi, et convallis"),
                          ("3.", 1, "Sapien mollis nec."), ("-", 1, "Quisque tristique"),
                          ("-", 1, "Augue nisi, et convallis"), ("-", 1, "Sapien mollis nec.")]
    table = rows(doc)
    assert table[0] == ["Petals", "Internode", "Sepal", "Bract"]
    assert table[1][2] == "2,462106579 18,2034091"  # a cell of two paragraphs is one line
    assert [row[1] for row in table].count("Merged cell") == 4  # a cell merged down, in each row it spans
    assert paragraphs(doc) == ["Lorem ipsum dolor sit amet, consectetur adipiscing elit.",
                               "Phasellus nec nunc vitae nulla interdum volutpat eu ac massa.",
                               "Morbi rhoncus sapien sit amet leo eleifend, vel fermentum nisi mattis."]
    assert residue(doc) == []


# -- PowerPoint: officer's example deck ----------------------------------------------------------

def test_a_deck_reads_into_a_heading_per_slide_its_text_and_its_tables():
    read_by, doc = read("officer-example.pptx")
    assert read_by == {"markitdown": 1}
    assert headings(doc) == [(1, "Title"), (1, "Hi")]
    for line in ("A table", "and some text", "and some list (1)", "R logo", "This is", "list of paragraphs"):
        assert line in paragraphs(doc)
    table = rows(doc)
    assert table[0] == ["Header 1", "Header 2", "Header 3"] and ["B", "9.0", "Salut"] in table
    assert ["a", "", "", "", "d"] in table  # slide 3's table, mostly empty
    assert residue(doc) == []


def test_a_pictures_shape_name_is_not_slide_text():
    _, doc = read("officer-example.pptx")
    assert "Espace réservé du contenu 16" not in paragraphs(doc)


@pytest.mark.xfail(strict=True, reason="slide 2's numbered paragraphs (a:buAutoNum arabicPeriod) are read as plain "
                                       "paragraphs: the numbers a viewer sees are lost")
def test_a_slides_numbered_paragraphs_are_list_items():
    _, doc = read("officer-example.pptx")
    assert [(m, t) for m, _, t in items(doc)][-2:] == [("1.", "This is an ordered"), ("2.", "list of paragraphs")]


# -- Excel: readxl's deaths.xlsx -------------------------------------------------------------------

def test_a_workbook_reads_into_a_heading_per_sheet_and_its_rows():
    read_by, doc = read("readxl-deaths.xlsx")
    assert read_by == {"markitdown": 1}
    assert headings(doc) == [(2, "arts"), (2, "other")]
    table = rows(doc)
    assert table.count(["Name", "Profession", "Age", "Has kids", "Date of birth", "Date of death"]) == 2
    by_name = {row[0]: row for row in table}
    # Age is a formula (=DATEDIF(E6,F6,"y")): its value is read
    assert by_name["David Bowie"][:4] == ["David Bowie", "musician", "69", "True"]
    assert by_name["Vera Rubin"][:3] == ["Vera Rubin", "scientist", "88"]
    assert ["simply cannot resist writing", "", "", "", "", "some notes"] in table  # a note above the data


def test_a_workbooks_empty_cells_are_not_named():
    _, doc = read("readxl-deaths.xlsx")
    assert not any(cell.startswith("Unnamed: ") for row in rows(doc) for cell in row)


def test_a_workbooks_dates_have_no_time_of_day():
    _, doc = read("readxl-deaths.xlsx")
    cells = [cell for row in rows(doc) for cell in row]
    assert not any(cell.endswith(" 00:00:00") for cell in cells) and "1947-01-08" in cells
