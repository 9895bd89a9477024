"""What a Markdown page shows as its text (reading/markup.py): front matter and Kramdown's
attribute lists are the site's, not the page's."""

from __future__ import annotations

from ragmeter.reading.markup import clean_markup


def test_yaml_front_matter_is_not_page_text_its_title_is_the_heading():
    cleaned = clean_markup("---\ntitle: Lighthouses\ndate: 2020-01-02\nredirect_from: /old/\n---\n\nThe lamp is lit.\n")
    assert cleaned.text == "# Lighthouses\n\nThe lamp is lit.\n"
    assert cleaned.front_matter == ["title", "date", "redirect_from"]


def test_kramdown_attribute_lists_are_not_page_text():
    text = 'Updated on Monday.\n{: datetime="2020-01-02" }\n\nA note to read.{:.note}\n\n`{: kept}` in code.\n'
    assert clean_markup(text).text == "Updated on Monday.\n\nA note to read.\n\n`{: kept}` in code.\n"


def test_a_terminal_fence_loses_its_colours_a_program_fence_keeps_its_tags():
    text = "```console\n$ ls\n<span style=\"color:red\">x</span>\n```\n\n```html\n<b>x</b>\n```\n"
    assert clean_markup(text).text == "```console\n$ ls\nx\n```\n\n```html\n<b>x</b>\n```\n"
