"""Shapes every reader recognises the same way: web addresses, code spans and numbers."""

from __future__ import annotations

import re

#: a web address, up to the first space, bracket, quote or backtick around it
URL = re.compile(r"(?:https?://|www\.)[^\s)\]>\"'`\u27e8\u27e9\u00ab\u00bb]+")
#: a code span in single or double backticks (markdown's `x`, reStructuredText's ``x``)
CODE_SPAN = re.compile(r"(?<!`)(`{1,3})(?!`)([^`\n]{2,80}?)\1(?!`)")
#: a number as written: 95, 1,000, 95.0, 8.849 (not a piece of a version or a word)
NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w]|[.,]\d)")
