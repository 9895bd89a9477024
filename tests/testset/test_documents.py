"""What the document reader reads and says (issue 64 items 5 and 6, issue 65 item 4): every
type it reads listed in one place, other files counted by type, a file too large for the
memory free skipped with one line, Markdown's inline HTML dropped as an .html page's is, and
include directives taken out and said."""

from __future__ import annotations

import time

import pytest

from ragmeter.reading.markup import clean_markup
from ragmeter.testset.documents import load_documents, supported_text

PAGE = """# Primeros pasos { #first-steps }

El archivo más simple:

{* ../../docs_src/first_steps/tutorial001_py39.py hl[3] *}

<div class="termy">

```console
$ <font color="#4E9A06">fastapi</font> dev <u style="text-decoration-style:solid">main.py</u>
  <span style="background-color:#009485"><font color="#D3D7CF"> FastAPI </font></span>  Starting
```

</div>

<!-- a note for translators -->
Run `ragmeter evaluate <file>` or give it <file>; <b>bold</b> and a<br>break.

```Python
{!../../docs_src/first_steps/tutorial001.py!}
return HTMLResponse("<html><body><h1>Hi</h1></body></html>")
{"file": "config/settings.json"}
```
"""

READ = """# Primeros pasos

El archivo más simple:




```console
$ fastapi dev main.py
   FastAPI   Starting
```




Run `ragmeter evaluate <file>` or give it <file>; bold and abreak.

```Python
return HTMLResponse("<html><body><h1>Hi</h1></body></html>")
{"file": "config/settings.json"}
```
"""


def test_markdown_is_read_as_it_renders_and_includes_are_taken_out():
    cleaned = clean_markup(PAGE)
    assert cleaned.text == READ  # code spans, a placeholder, a program's strings and a JSON line kept
    assert cleaned.include_count == 2
    assert cleaned.includes == ["{* ../../docs_src/first_steps/tutorial001_py39.py hl[3] *}",
                                "{!../../docs_src/first_steps/tutorial001.py!}"]


def test_restructuredtext_keeps_its_text_and_loses_its_includes():
    text = "Title\n=====\n\nSee <this>.\n\n.. literalinclude:: ../examples/app.py\n   :lines: 1-5\n\nEnd.\n"
    cleaned = clean_markup(text, markdown=False)
    assert cleaned.text == "Title\n=====\n\nSee <this>.\n\n   :lines: 1-5\n\nEnd.\n" and cleaned.include_count == 1


def test_a_folder_says_what_it_read_what_it_did_not_and_why(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    (docs / ".git").mkdir(parents=True)
    (docs / ".git" / "notes.md").write_text("# Hidden\n\nnot a user's document\n")
    (docs / "first-steps.md").write_text(PAGE)
    (docs / "api.rst").write_text("API\n===\n\n.. include:: ../shared/intro.rst\n\nText.\n")
    (docs / "guide.adoc").write_text("= Guide\n\nAsciiDoc text.\n")
    (docs / "logo.png").write_bytes(b"\x89PNG\r\n")
    (docs / "huge.txt").write_text("x" * 2_000_000)
    import ragmeter.io.memory

    monkeypatch.setattr(ragmeter.io.memory, "available_memory", lambda: 20_000_000)  # less than 2 MB of text takes
    corpus = load_documents(docs)
    assert [d.source for d in corpus.documents] == ["api.rst", "first-steps.md"]
    assert corpus.documents[1].text == READ
    said = corpus.said().splitlines()
    assert said[0] == "read 2 documents (.md 1, .rst 1)"
    assert said[1] == (f"not read: 2 files of other types (.adoc 1, .png 1); ragmeter reads {supported_text()} "
                       "(convert others to one of these)")
    assert said[2] == (f"skipped {docs / 'huge.txt'}: 2 MB needs about 32 MB of memory to read and 20 MB are free: "
                       "split it, or leave it out of the folder")
    assert said[3].startswith("3 include directives in 2 documents not resolved and taken out (e.g. "
                              ".. include:: ../shared/intro.rst)")
    record = corpus.record("docs")
    assert record["includes_taken_out"] == {"api.rst": 1, "first-steps.md": 2}
    assert record["other_types"] == {".adoc": 1, ".png": 1}


def test_a_file_larger_than_the_memory_free_is_skipped_before_it_is_read(tmp_path, monkeypatch):
    import ragmeter.io.memory

    (tmp_path / "small.md").write_text("# Small\n\nA short page about lighthouses.\n")
    big = tmp_path / "big.txt"
    with big.open("wb") as handle:  # 2 GB on paper, nothing on disk: it must not be read
        handle.truncate(2 * 10**9)
    monkeypatch.setattr(ragmeter.io.memory, "available_memory", lambda: 8 * 10**9)
    corpus = load_documents(tmp_path)
    assert [d.source for d in corpus.documents] == ["small.md"]
    assert corpus.skipped == [f"{big}: 2.0 GB needs about 32.0 GB of memory to read and 8.0 GB are free: split it, "
                              "or leave it out of the folder"]


@pytest.mark.parametrize("shape", ["<" * 10**6, "<a " + "x" * 10**6, "{*" + " ../a.py" * 125_000,
                                   "`" * 10**6, "<b " + "=" * 10**6, "# T {" + "#" * 10**6,
                                   "--8<--" + "-" * 10**6, "<!--" * 250_000, "{%" + "a/" * 500_000,
                                   "# a" + " " * 10**6 + "{#b", "# " + " " * 10**6 + "x",
                                   "{:" * 10**6, "{:}" * 10**6, "a{: " + " " * 10**6])
def test_the_markup_reader_is_linear_in_its_input(shape):
    started = time.process_time()
    clean_markup(shape + "\n" + shape)
    assert time.process_time() - started < 2.0


def test_the_dry_run_says_what_it_would_read(tmp_path):
    from tests.cli_runner import run_cli

    (tmp_path / "guide.md").write_text("# Lighthouses\n\n" + "The lighthouse on the cape was lit in 1881. " * 20)
    (tmp_path / "guide.adoc").write_text("= Guide\n")
    done = run_cli("testset", str(tmp_path), "--size", "2", "--dry-run")
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stderr.split())
    assert "read 1 document (.md 1)" in said and "not read: 1 file of other types (.adoc 1)" in said
    # issue 64 item 3: seconds, not only calls and tokens, at the bundled judge's shipped speed
    assert " at this judge's speed: the shipped speed (" in done.stdout


def test_a_link_to_a_file_outside_the_folder_is_not_read_only_said(tmp_path):
    """Issue 77 item 10: a symlink to a file outside the documents folder (`/etc/passwd`) was
    read as a document, and its text could reach the model and the test set. It is skipped
    with a line; a link to a file inside the folder is read."""
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "guide.md").write_text("# Guide\n\nThe guide's text.\n")
    (docs / "sub" / "again.md").symlink_to(docs / "guide.md")  # inside: read
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:not a document\n")
    (docs / "passwd.txt").symlink_to(secret)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "notes.md").write_text("# Notes\n\nOutside the folder.\n")
    (docs / "linked").symlink_to(tmp_path / "elsewhere")  # a linked folder: not walked, or not read
    corpus = load_documents(docs)
    assert sorted(d.source for d in corpus.documents) == ["guide.md", "sub/again.md"]
    assert not any("root:x" in d.text or "Outside" in d.text for d in corpus.documents)
    assert f"skipped {docs / 'passwd.txt'}: a link to a file outside the folder (not read)" in corpus.said()


FRONT_MATTER_PAGE = """---
title: Política de teletrabajo
redirect_from:
  - /rrhh/teletrabajo-2019/
  - /politicas/remoto/
layout: page
---

Publicado el 3 de marzo de 2024.
{: datetime="2024-03-03" }

__Quién puede pedirlo:__ toda persona con contrato indefinido{: .etiqueta} tras seis meses.

Escriba `{: literal }` así en el código.

```yaml
{: stays: in a fence }
```
"""


def test_front_matter_and_attribute_lists_are_not_page_text():
    """Issue 76 item 7: two of eight questions asked a document's name from its front matter,
    and a base model copied its redirect paths; the site shows the title as the heading."""
    cleaned = clean_markup(FRONT_MATTER_PAGE)
    assert cleaned.text.startswith("# Política de teletrabajo\n\nPublicado el 3 de marzo de 2024.\n\n__Quién")
    for gone in ("redirect_from", "/rrhh/teletrabajo-2019/", "layout", "datetime", ".etiqueta"):
        assert gone not in cleaned.text
    assert "contrato indefinido tras seis meses" in cleaned.text
    assert "`{: literal }`" in cleaned.text and "{: stays: in a fence }" in cleaned.text
    assert cleaned.front_matter == ["title", "redirect_from", "layout"]


@pytest.mark.parametrize("page, kept", [
    ("---\n\nA thematic break opens this page.\n\n---\n\nMore text.\n", "A thematic break"),
    ("---\nnot: [closed\n---\nText.\n", "not: [closed"),
    ("# Own heading\n\n---\ntitle: X\n---\n", "title: X"),
])
def test_what_only_looks_like_front_matter_stays(page, kept):
    assert kept in clean_markup(page).text


def test_a_page_with_its_own_heading_keeps_it_and_toml_front_matter_is_read():
    assert clean_markup("---\ntitle: Site title\n---\n# Page heading\n\nText.\n").text == \
        "# Page heading\n\nText.\n"
    assert clean_markup('+++\ntitle = "Hugo page"\ndate = 2024-01-01\n+++\nText.\n').text == \
        "# Hugo page\n\nText.\n"


def test_a_folder_says_it_took_front_matter_out(tmp_path):
    (tmp_path / "policy.md").write_text(FRONT_MATTER_PAGE, encoding="utf-8")
    corpus = load_documents(tmp_path)
    assert corpus.front_matter == {"policy.md": ["title", "redirect_from", "layout"]}
    assert "front matter taken out of 1 document" in corpus.said()
    assert corpus.record("docs")["front_matter_taken_out"] == {"policy.md": ["title", "redirect_from", "layout"]}
