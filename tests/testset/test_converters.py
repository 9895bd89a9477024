"""Documents as people keep them (issue 74 item 2): .docx, .odt, .epub, .pptx, .xlsx and web
pages converted to Markdown, keeping a heading, a list item and a table cell as Markdown; the
manifest and the start line naming what read each file; a missing extra or a damaged file a
line naming the file, never a crash. The files are written by other programs than those reading
them (tests/testset/office_files.py)."""

from __future__ import annotations

import re
import sys

import pytest

from ragmeter.testset.documents import load_documents
from tests.testset import office_files
from tests.testset.office_files import HEADING, ITEM, STEP, WRITERS
from tests.testset.test_testset import minimal_pdf

INSTALL = "pip install 'ragmeter[documents]'"
#: each kind's heading, list item and table row as Markdown lines (runs of spaces squeezed): a slide's
#: bullet is its own paragraph (no converter marks it a list item), a sheet's name is its heading
EXPECTED = {
    ".docx": ("pandoc", [f"# {HEADING}", f"- {ITEM}", f"1. {STEP}", "| Director | 180 EUR | |"]),
    ".odt": ("pandoc", [f"# {HEADING}", f"- {ITEM}", f"1. {STEP}", "| Director | 180 EUR | |"]),
    ".epub": ("pandoc", [f"# {HEADING}", f"- {ITEM}", f"1. {STEP}", "| Director | 180 EUR | |"]),
    ".html": ("pandoc", [f"# {HEADING}", f"- {ITEM}", f"1. {STEP}", "| Director | 180 EUR | |"]),
    ".pptx": ("markitdown", [f"# {HEADING}", "", ITEM, "", "Fly only over 600 km", "# Allowances",
                             "| Director | 180 EUR | |"]),
    ".xlsx": ("markitdown", ["## Allowances", "| Director | 180 EUR | |", "## Steps", f"| 1 | {STEP} |"]),
}


def squeezed(text: str) -> list[str]:
    return [re.sub(" {2,}", " ", line).rstrip() for line in text.splitlines()]


def contains_run(lines: list[str], run: list[str]) -> bool:
    """`run` appears in `lines` in order; "" stands for a blank line right there."""
    at = 0
    for want in run:
        if want == "":
            if at >= len(lines) or lines[at] != "":
                return False
            at += 1
            continue
        try:
            at = lines.index(want, at) + 1
        except ValueError:
            return False
    return True


@pytest.mark.parametrize("suffix", sorted(EXPECTED))
def test_each_kind_is_read_as_markdown_with_its_heading_list_and_table(tmp_path, suffix):
    path = WRITERS[suffix](tmp_path / f"handbook{suffix}")
    corpus = load_documents(path)
    reader, run = EXPECTED[suffix]
    assert corpus.read_by == {reader: 1} and corpus.skipped == []
    lines = squeezed(corpus.documents[0].text)
    assert contains_run(lines, run), "\n".join(lines)


def test_a_web_page_is_its_article_not_the_site_around_it(tmp_path):
    text = load_documents(office_files.html(tmp_path / "travel.html")).documents[0].text
    for chrome in ("Example Corp", "Home", "IT rules", "On this page", "Related pages", "track()", "¶", "base64"):
        assert chrome not in text
    lines = squeezed(text)
    assert lines[:3] == [f"# {HEADING}", "", "Staff who travel for work follow these rules. a train"]
    # a cell of two paragraphs is one line; a cell merged down is repeated in each row it spans
    assert "Rail passes are refunded." in lines  # a note in the article is its text
    assert contains_run(lines, ["| Trip | Rule |", "| Abroad | Book with the agency. Carry the card. |",
                                "| Abroad | Claim within 30 days |"])


def test_a_word_documents_title_author_and_abstract_stay_in_the_text(tmp_path):
    """pandoc reads a Title, Author or Abstract paragraph into metadata, out of the text."""
    import docx
    from docx.enum.style import WD_STYLE_TYPE

    document = docx.Document()
    for style in ("Author", "Abstract"):
        document.styles.add_style(style, WD_STYLE_TYPE.PARAGRAPH)
    document.add_heading("Staff handbook", 0)
    document.add_paragraph("Ana Ruiz", style="Author")
    document.add_paragraph("What staff who travel need to know.", style="Abstract")
    document.add_heading(HEADING, 1)
    document.add_paragraph("Book early.")
    document.save(str(tmp_path / "handbook.docx"))
    text = load_documents(tmp_path / "handbook.docx").documents[0].text
    assert text == ("# Staff handbook\n\nAna Ruiz\n\nWhat staff who travel need to know.\n\n"
                    f"# {HEADING}\n\nBook early.\n")


def test_the_manifest_and_the_start_line_say_what_read_each_file(tmp_path):
    for suffix, write in WRITERS.items():
        write(tmp_path / f"handbook{suffix}")
    (tmp_path / "notes.md").write_text("# Notes\n\nThe lighthouse stands on the cape.\n")
    (tmp_path / "scan.pdf").write_bytes(minimal_pdf("The lighthouse stands on the cape."))
    corpus = load_documents(tmp_path)
    assert corpus.record(str(tmp_path))["read_by"] == {"markitdown": 2, "pandoc": 4, "pypdf": 1, "text": 1}
    assert corpus.said() == ("read 8 documents (.docx 1, .epub 1, .html 1, .md 1, .odt 1, .pdf 1, .pptx 1, .xlsx 1; "
                             "by markitdown 2, pandoc 4, pypdf 1, text 1)")


def test_without_the_extra_a_file_is_skipped_with_what_to_install(tmp_path, monkeypatch):
    for suffix in (".docx", ".epub", ".pptx", ".xlsx", ".html"):
        WRITERS[suffix](tmp_path / f"handbook{suffix}")
    (tmp_path / "notes.md").write_text("# Notes\n\nThe lighthouse stands on the cape.\n")
    monkeypatch.setitem(sys.modules, "pypandoc", None)  # `import pypandoc` raises ImportError
    monkeypatch.setitem(sys.modules, "markitdown", None)
    corpus = load_documents(tmp_path)
    assert corpus.skipped == [f"{tmp_path / 'handbook.docx'}: reading .docx files needs pandoc: {INSTALL}",
                              f"{tmp_path / 'handbook.epub'}: reading .epub files needs pandoc: {INSTALL}",
                              f"{tmp_path / 'handbook.pptx'}: reading .pptx files needs markitdown: {INSTALL}",
                              f"{tmp_path / 'handbook.xlsx'}: reading .xlsx files needs markitdown: {INSTALL}"]
    assert corpus.read_by == {"html.parser": 1, "text": 1}  # a web page is read as before issue 74
    said = corpus.said().splitlines()
    assert said[0] == "read 2 documents (.html 1, .md 1; by html.parser 1, text 1)"
    assert said[1] == ("1 web page read without pandoc, which keeps their lists and tables and leaves out the "
                       f"site's navigation: {INSTALL}")
    assert said[2:] == [f"skipped {entry}" for entry in corpus.skipped]


def test_a_damaged_file_is_skipped_with_its_name(tmp_path):
    (tmp_path / "notes.md").write_text("# Notes\n\nThe lighthouse stands on the cape.\n")
    for suffix in (".docx", ".odt", ".epub", ".pptx", ".xlsx"):
        (tmp_path / f"damaged{suffix}").write_bytes(b"PK\x03\x04 not a zip archive")
    cut = office_files.docx(tmp_path / "cut.docx")
    cut.write_bytes(cut.read_bytes()[:2000])
    corpus = load_documents(tmp_path)
    assert [d.source for d in corpus.documents] == ["notes.md"]
    skipped = dict(entry.split(": ", 1) for entry in corpus.skipped)
    assert sorted(skipped) == sorted(str(tmp_path / name) for name in ("cut.docx", "damaged.docx", "damaged.epub",
                                                                       "damaged.odt", "damaged.pptx", "damaged.xlsx"))
    for name in ("cut.docx", "damaged.docx", "damaged.odt", "damaged.epub"):
        assert skipped[str(tmp_path / name)].startswith(f"cannot convert this .{name.split('.')[1]} (pandoc: ")
    for suffix in (".pptx", ".xlsx"):
        assert skipped[str(tmp_path / f"damaged{suffix}")] == (f"cannot convert this {suffix} "
                                                               "(BadZipFile: File is not a zip file)")


def test_a_pages_plain_words_are_written_without_escapes_but_markup_stays_text(tmp_path):
    """pandoc's gfm writer escapes each character that could be markup anywhere; pandoc.lua writes
    a word as it reads, escaping only what would be read as markup where it stands."""
    page = ("<p>Help &gt; Cheatsheets &gt;<br>R Markdown, #channel, [Y/n], *.pc, $(CFLAGS), a_b</p>"
            "<p><br> <br></p><p># not a heading, &lt;/b&gt; and [a](b) as written</p>"
            "<p>x<sup>[4]</sup> m<sup>2</sup> <strong>Ctrl-\\</strong> done</p>"
            "<table><tr><th>Key</th><th>Value</th></tr><tr><td>a|b</td><td>one<br>two</td></tr></table>")
    (tmp_path / "page.html").write_text(f"<html><body><main>{page}</main></body></html>")
    lines = load_documents(tmp_path / "page.html").documents[0].text.splitlines()
    assert lines[:2] == ["Help > Cheatsheets >  ", "R Markdown, #channel, [Y/n], *.pc, $(CFLAGS), a_b"]
    assert lines[3] == "\\# not a heading, \\</b\\> and [a\\](b) as written"  # a block, a tag, a link: escaped
    assert lines[5] == "x[4] m² Ctrl-\\ done"
    assert "| a\\|b | one two |" in squeezed("\n".join(lines))
