"""One short handbook written as each kind of file people keep documents in, by the programs
that write such files (python-docx, python-pptx, openpyxl, odfpy, ebooklib), not by the
converters that read them: a heading, a bulleted and a numbered list, and a table."""

from __future__ import annotations

from pathlib import Path

HEADING = "Travel policy"
ITEM = "Book trains at least 14 days ahead"
STEP = "Ask your manager first"
ROWS = [("Grade", "Hotel per night", "Meals"), ("Staff", "120 EUR", "35 EUR"), ("Director", "180 EUR", "")]
INTRO = "Staff who travel for work follow these rules."


def docx(path: Path) -> Path:
    import docx as python_docx

    document = python_docx.Document()
    document.add_heading(HEADING, 1)
    document.add_paragraph(INTRO)
    document.add_paragraph(ITEM, style="List Bullet")
    document.add_paragraph("Fly only over 600 km", style="List Bullet")
    document.add_paragraph(STEP, style="List Number")
    table = document.add_table(rows=0, cols=3)
    for row in ROWS:
        for cell, value in zip(table.add_row().cells, row):
            cell.text = value
    document.save(str(path))
    return path


def pptx(path: Path) -> Path:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])  # title and content
    slide.shapes.title.text = HEADING
    body = slide.placeholders[1].text_frame
    body.text = ITEM
    body.add_paragraph().text = "Fly only over 600 km"
    slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    slide.shapes.title.text = "Allowances"
    table = slide.shapes.add_table(len(ROWS), 3, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for i, row in enumerate(ROWS):
        for j, value in enumerate(row):
            table.cell(i, j).text = value
    deck.save(str(path))
    return path


def xlsx(path: Path) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Allowances"
    for row in ROWS:
        sheet.append([value or None for value in row])
    steps = book.create_sheet("Steps")
    steps.append(["Step", "What"])
    steps.append([1, STEP])
    book.save(str(path))
    return path


def odt(path: Path) -> Path:
    from odf.opendocument import OpenDocumentText
    from odf.table import Table, TableCell, TableColumn, TableRow
    from odf.text import H, List, ListItem, ListLevelStyleBullet, ListLevelStyleNumber, ListStyle, P

    document = OpenDocumentText()
    bullets, numbers = ListStyle(name="Bullets"), ListStyle(name="Numbers")
    bullets.addElement(ListLevelStyleBullet(level=1, bulletchar="•"))
    numbers.addElement(ListLevelStyleNumber(level=1, numformat="1", numsuffix="."))
    document.automaticstyles.addElement(bullets)
    document.automaticstyles.addElement(numbers)
    document.text.addElement(H(outlinelevel=1, text=HEADING))
    document.text.addElement(P(text=INTRO))
    for style, items in ((bullets, (ITEM, "Fly only over 600 km")), (numbers, (STEP,))):
        listed = List(stylename=style)
        for value in items:
            item = ListItem()
            item.addElement(P(text=value))
            listed.addElement(item)
        document.text.addElement(listed)
    table = Table(name="Allowances")
    table.addElement(TableColumn(numbercolumnsrepeated=3))
    for row in ROWS:
        line = TableRow()
        for value in row:
            cell = TableCell()
            cell.addElement(P(text=value))
            line.addElement(cell)
        table.addElement(line)
    document.text.addElement(table)
    document.save(str(path))
    return path


def epub(path: Path) -> Path:
    from ebooklib import epub as ebook

    book = ebook.EpubBook()
    book.set_identifier("handbook")
    book.set_title("Handbook")
    book.set_language("en")
    chapter = ebook.EpubHtml(title=HEADING, file_name="travel.xhtml", lang="en")
    chapter.content = f"<h1>{HEADING}</h1><p>{INTRO}</p>{_lists()}{_table()}"
    book.add_item(chapter)
    book.toc = [chapter]
    book.spine = [chapter]
    book.add_item(ebook.EpubNcx())
    book.add_item(ebook.EpubNav())
    ebook.write_epub(str(path), book)
    return path


def html(path: Path) -> Path:
    """A page of a documentation site: the site's header, navigation, sidebar and footer around
    the article, a heading's permalink (Sphinx, MkDocs) and an inline image."""
    path.write_text(f"""<!DOCTYPE html><html><head><title>Handbook</title><script>track()</script></head><body>
<header class="site"><a href="/">Example Corp intranet</a><form role="search"><input name="q"></form></header>
<nav><ul><li><a href="/">Home</a></li><li><a href="/it">IT rules</a></li></ul></nav>
<main><div class="sidebar" role="navigation"><p>On this page</p></div>
<article><h1 id="travel">{HEADING}<a class="headerlink" href="#travel" title="Permanent link">¶</a></h1>
<p>{INTRO} <img src="data:image/png;base64,iVBORw0KGgo=" alt="a train"></p>{_lists()}{_table()}
<aside class="note"><p>Rail passes are refunded.</p></aside>
<table><tr><th>Trip</th><th>Rule</th></tr>
<tr><td rowspan="2">Abroad</td><td><p>Book with the agency.</p><p>Carry the card.</p></td></tr>
<tr><td>Claim within 30 days</td></tr></table></article>
<aside>Related pages</aside></main>
<footer>© Example Corp</footer></body></html>""", encoding="utf-8")
    return path


def _lists() -> str:
    return f"<ul><li>{ITEM}</li><li>Fly only over 600 km</li></ul><ol><li>{STEP}</li></ol>"


def _table() -> str:
    head = "".join(f"<th>{value}</th>" for value in ROWS[0])
    body = "".join("<tr>" + "".join(f"<td>{value}</td>" for value in row) + "</tr>" for row in ROWS[1:])
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


WRITERS = {".docx": docx, ".pptx": pptx, ".xlsx": xlsx, ".odt": odt, ".epub": epub, ".html": html}
