"""The hand-written readers: what ragmeter reads in a text without a model.

Cutting text where a reader would cite it (blocks), choosing the parts of long contexts a
claim is about (excerpts), the literal details a claim states (literals), the chunks that
disagree about a statement (conflicts), the sentences an answer addresses to its judge
(addressed), and a test-set question's checks (questions), over one word tokenizer (words)
and one sentence splitter (sentences). Every word of a language they know is in one table
(languages.py); a language without an entry is said to be not covered.
"""
