"""One parse per text (issue 74): the readers that disagreed about what a code fence, a heading
or a list item is now read it from the same Document. Each shape below was read two or three
ways before (what each old reader said is in the comment above it)."""

from __future__ import annotations

from ragmeter.judge_check.claims import claim_sentences
from ragmeter.reading.blocks import blocks
from ragmeter.reading.document import Block, Document
from ragmeter.reading.markup import clean_markup
from ragmeter.reading.outline import outline
from ragmeter.testset.spans import sentences

#: a fenced HTML block indented under a list item
IN_A_LIST = ("1. Paste this snippet into the page here.\n\n    ```html\n    <b>Hello</b> world\n"
             "    # not a heading\n    ```\n\n2. Reload the page to see it.\n")


def test_a_markdown_text_is_read_into_typed_blocks_with_their_lines():
    doc = Document.of("# Title\n\n- one\n- two\n\n```python\nx = 1\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
                      "<div>\nhi\n</div>\n\nSetext\n------\n")
    kinds = [(b.kind, b.start, b.end) for b in doc.blocks if b.kind != "paragraph"]
    assert kinds == [("heading", 0, 1), ("list_item", 2, 3), ("list_item", 3, 5), ("fence", 5, 8),
                     ("table_row", 9, 10), ("table_row", 11, 12), ("html", 13, 16), ("heading", 17, 19)]
    assert doc.blocks[0] == Block("heading", 0, 1, level=1)
    assert [b.marker for b in doc.blocks if b.kind == "list_item"] == ["-", "-"]
    assert next(b for b in doc.blocks if b.kind == "fence").info == "python"
    assert doc.heading_lines == {0: 1, 17: 2}
    assert sorted(doc.fences) == [5, 6, 7]


def test_a_document_is_parsed_once_per_text():
    assert Document.of(IN_A_LIST) is Document.of(IN_A_LIST)
    assert Document.of(IN_A_LIST, "text") is not Document.of(IN_A_LIST)
    assert [b.kind for b in Document.of("a\nb\n\n    c\n", "text").blocks] == ["paragraph", "paragraph"]


def test_line_starts_count_the_text_as_given():
    doc = Document.of("a\r\nb\rc\nd")
    assert doc.lines == ["a", "b", "c", "d"] and doc.offsets == [0, 3, 5, 7]


def test_a_fenced_html_block_in_a_list_item_is_code_to_every_reader():
    # before: code to blocks() and the outline, but markup.py (a fence indented 0-3 spaces only)
    # stripped its tags from the test-set corpus: a question could be asked about "Hello world"
    assert "```html\n<b>Hello</b> world\n# not a heading\n```" in blocks(IN_A_LIST)
    assert "    <b>Hello</b> world" in clean_markup(IN_A_LIST).text.splitlines()
    assert outline(IN_A_LIST).headings == ()
    assert claim_sentences(IN_A_LIST) == ["Paste this snippet into the page here.", "Reload the page to see it."]
    assert "Hello world" not in " ".join(sentences(IN_A_LIST))


def test_a_line_with_an_info_string_does_not_close_a_fence():
    # before: blocks() and the outline closed the fence at "```python" (then read the rest of the
    # text inside out: print(1) was a span, the sentence after the block code); markup.py did not
    text = "```\nThe block starts here, inside code.\n```python\nprint(1)\n```\nAfter the block the page says this.\n"
    assert blocks(text) == ["```\nThe block starts here, inside code.\n```python\nprint(1)\n```",
                            "After the block the page says this."]
    assert sentences(text) == ["After the block the page says this."]
    assert claim_sentences(text) == ["After the block the page says this."]


def test_a_fence_of_four_backticks_holds_three():
    # before: blocks() closed it at the inner ``` (its fence pattern knew three backticks only)
    text = "````\nThe fence shows this example.\n```\nIt is all code, this line too.\n````\nProse after the fence.\n"
    assert blocks(text) == ["````\nThe fence shows this example.\n```\nIt is all code, this line too.\n````",
                            "Prose after the fence."]
    assert sentences(text) == ["Prose after the fence."]


def test_a_hash_line_inside_an_html_block_is_no_heading():
    # before: the outline read "# Inside" as a heading; CommonMark reads the block as HTML
    text = "<div>\n# Inside the HTML block\n</div>\n\n# The real heading\n\nText under it.\n"
    assert [h.text for h in outline(text).headings] == ["The real heading"]
    assert outline(text).title == "The real heading"


def test_an_answers_fence_commonmark_does_not_read_is_still_read_whole():
    """Review of issue 74: a fence indented under its prose line, or inside <details>, is no
    fence to CommonMark (a paragraph's continuation, an HTML block), yet an answer's reader
    reads the code in it whole, as before the one parse."""
    from ragmeter.reading.blocks import units

    assert units("Run this:\n    ```bash\n    pip install foo\n    ```") == [
        "Run this:", "```bash\n    pip install foo\n    ```"]
    assert units("<details>\n```python\nx = 1\n```\n</details>") == ["<details>", "```python\nx = 1\n```", "</details>"]


def test_a_whole_document_is_parsed_each_time_and_never_kept():
    from ragmeter.reading.document import CACHED_CHARS

    short, long = "A line.", "A line.\n" * (CACHED_CHARS // 8 + 1)
    assert Document.of(short) is Document.of(short, "markdown")
    assert Document.of(long) is not Document.of(long)


def test_a_language_registered_later_changes_where_the_kept_units_end():
    import dataclasses

    from ragmeter.reading import languages

    long = "The crew reports every change of course, every sighting and every signal to the cmdr. " * 3
    text = long + "Bob knows where the log is kept."  # a paragraph past WHOLE_MAX is cut into sentences
    assert blocks(text)[-1] == "Bob knows where the log is kept."
    languages.register(dataclasses.replace(languages.ENGLISH, name="naval", abbreviations=frozenset({"cmdr"})))
    try:
        assert blocks(text)[-1].endswith("to the cmdr. Bob knows where the log is kept.")
    finally:
        languages.unregister("naval")
    assert blocks(text)[-1] == "Bob knows where the log is kept."
