"""A document's outline by its markup (reading/outline.py): Markdown, reStructuredText, API
reference directives, a rendered manual page, front-matter titles; and where a chunk is."""

from ragmeter.reading.outline import outline

MARKDOWN = """# Widgets

Intro.

## Install

```bash
# not a heading: a comment in a code block
pip install widgets
```

### From source

Build it.

Usage
-----

Call it.
"""

RST = """:mod:`!textwrap` --- Text wrapping
==================================

.. module:: textwrap

.. function:: wrap(text, width=70)

   Wraps text.

.. class:: TextWrapper(**kwargs)

   The class.

   .. attribute:: width

      (default: ``70``) The width.

Notes
=====

A note.
"""

PEP = """PEP: 257
Title: Docstring Conventions
Post-History: 13-Jun-2001
Status: Active

Abstract
========

Text.
"""

MAN = "\n".join(["SORT(1)            User Commands            SORT(1)", "", "NAME", "       sort - sort lines",
                 "", "SYNOPSIS", "       sort [OPTION]... [FILE]...", "", "DESCRIPTION",
                 "       Write sorted concatenation of all FILE(s).", "", "       -b, --ignore-leading-blanks",
                 "              ignore leading blanks", "       -d     consider only blanks",
                 "       -f     fold lower case", "       -g     general numeric sort"])


def test_markdown_headings_nest_and_code_blocks_hold_none():
    found = outline(MARKDOWN)
    assert found.title == "Widgets"
    assert [(h.level, h.text) for h in found.headings] == [(1, "Widgets"), (2, "Install"), (3, "From source"),
                                                           (2, "Usage")]
    assert found.path_at(MARKDOWN.index("Build it")) == ["Widgets", "Install", "From source"]
    assert found.path_at(MARKDOWN.index("Call it")) == ["Widgets", "Usage"]  # a later level-2 closes level 3


def test_rst_titles_and_described_objects_are_sections():
    found = outline(RST)
    assert found.title == "textwrap --- Text wrapping"  # the role's markup gone
    assert found.path_at(RST.index("The width")) == ["textwrap --- Text wrapping", "TextWrapper", "width"]
    assert found.path_at(RST.index("Wraps text")) == ["textwrap --- Text wrapping", "wrap"]
    assert found.path_at(RST.index("A note")) == ["Notes"]  # a title of the same style closes the objects


def test_a_header_block_gives_the_title_and_a_manual_page_its_sections():
    assert outline(PEP).title == "Docstring Conventions"
    assert outline("---\ntitle: 'Guía'\n---\n\n# Otra\n").title == "Guía"
    man = outline(MAN)
    assert [h.text for h in man.headings] == ["NAME", "SYNOPSIS", "DESCRIPTION"]
    assert man.path_at(MAN.index("fold lower")) == ["DESCRIPTION"]
    assert outline("Just prose, no headings at all.").headings == ()
