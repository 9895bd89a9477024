"""Evidence that keeps code and markup whole, answers judged in parts, literal details checked
against the contexts (issue 48), with the judge scripted at its boundary."""

from __future__ import annotations

from ragmeter.reading.blocks import blocks, parts
from ragmeter.reading.excerpts import excerpts, words
from ragmeter.reading.literals import literals, missing
from tests.metrics.test_metrics_arithmetic import evaluate, v

README = """# fuzz

A library for fuzzy string matching. It compares strings quickly and has many scorers.

#### Weighted Ratio
```console
> from fuzz import WRatio
> WRatio("this is a test", "this is a new test!!!")
95.0
```

| name | meaning |
|------|---------|
| ratio | plain similarity |
| WRatio | weighted similarity |

- install with pip
- or build from source
"""

MANPAGE = """NOMBRE
       cut - elimina fragmentos en cada línea de un archivo

       -b, --bytes=LISTA
              selecciona solo estos bytes

       -f, --fields=LISTA
              selecciona solo estos campos. También mostrará todas las  líneas
              que no contengan delimitador salvo que se indique la opción -s.
"""


def test_a_code_block_a_table_row_and_a_list_item_are_each_one_block():
    got = blocks(README)
    assert got[0] == "# fuzz"
    assert '```console\n> from fuzz import WRatio\n> WRatio("this is a test", "this is a new test!!!")\n95.0\n```' in got
    assert "| WRatio | weighted similarity |" in got
    assert "- install with pip" in got and "- or build from source" in got
    assert "#### Weighted Ratio" in got


def test_a_manual_pages_option_stays_with_its_description_and_loses_the_margin():
    got = blocks(MANPAGE)
    assert "-b, --bytes=LISTA\n       selecciona solo estos bytes" in got
    assert got[0] == "NOMBRE\n       cut - elimina fragmentos en cada línea de un archivo"


def test_a_long_prose_paragraph_is_cut_into_sentences_a_short_one_kept_whole():
    long = " ".join(f"Sentence {i} says something about gardens." for i in range(12))
    assert blocks(long) == [f"Sentence {i} says something about gardens." for i in range(12)]
    assert blocks("One short paragraph. Two sentences.") == ["One short paragraph. Two sentences."]


def test_the_excerpts_for_a_claim_about_printed_code_hold_the_code_block():
    filler = " ".join(f"Sentence {i} talks about gardens and roses." for i in range(30))
    contexts = [filler, README]
    shown = excerpts("The weighted ratio of the two strings is 95.0", contexts)
    assert len(shown) == 1 and "95.0" in shown[0] and "WRatio(" in shown[0]
    # the heading before the block comes with it, on a line of its own
    assert "#### Weighted Ratio\n```console" in shown[0]


def test_words_keep_identifiers_and_flags_whole_and_match_on_stems():
    got = words("Use `zstd --train FILES` with dpkg-split; configuration")
    assert {"zstd", "--train", "train", "dpkg-split", "dpkg", "split", "config"} <= set(got)
    assert "config" in words("configure") and "selecc" in words("seleccionar")


def test_literals_are_urls_code_flags_paths_identifiers_and_numbers_not_prose():
    claim = ("See Debian-split(1) at https://example.com/badge.svg: `dpkg --version` prints it, "
             "xmltodict.parse() takes process_namespaces, version 1.2.3, about 1,000 well-known files.")
    assert literals(claim) == ["https://example.com/badge.svg", "dpkg --version", "Debian-split(1)",
                               "xmltodict.parse()", "process_namespaces", "1.2.3", "1,000"]
    assert literals("It is a well-known, three-part, open source tool.") == []
    assert literals('What fills the blank in "It opened in ___."?') == []
    assert literals("See ⟨https://www.gnu.org/licenses/gpl-___.html⟩.") == []
    # a manual page's hyphenation is undone before reading: one address, found in its context
    page = "Ayuda en línea: <https://www.gnu.org/software/core‐\n       utils/>"
    assert literals(page) == ["https://www.gnu.org/software/coreutils/"] and missing(page, [page]) == []
    assert literals("⟨https://www.gnu.org/licenses/gpl-3.0.html⟩") == ["https://www.gnu.org/licenses/gpl-3.0.html"]
    # reStructuredText's double backticks, and a link inside a code span, read whole
    assert literals("``PYTHONOPTIMIZE=2`` and ``python -OO`` fail") == ["PYTHONOPTIMIZE=2", "python -OO"]
    assert literals("| ``fieldname`` | the field ``fieldname`` |") == ["fieldname"]
    assert literals("`PLY <https://github.com/dabeaz/ply>`__ is the parser") == ["https://github.com/dabeaz/ply"]
    assert literals('<b>Fantômas</b> and <a href="https://x.org/a">x</a>') == ["https://x.org/a"]  # tags are markup


def test_missing_literals_are_those_no_context_holds_as_written():
    contexts = ["See dpkg-split(1).", "Run `zstd --train FILES`; the ratio is 95 and the\n"
                "opción  obli‐\ngatoria is -s."]
    assert missing("dpkg-split(1) and zstd --train give 95.0 with -s", contexts) == []
    assert missing("Debian-split(1) and --fast", contexts) == ["Debian-split(1)", "--fast"]
    assert missing("the ratio is 96", contexts) == ["96"]
    # numbers as their values: thousands written the English or the Spanish way, decimals either way
    assert missing("20000 bytes, 1,130,000 copies, 2,5 x", ["20.000 bytes; 1130000 copies; 2.5 x"]) == []
    assert missing("version 1.2.3", ["version 1.2.4"]) == ["1.2.3"]
    # a detail the question names is the question's: repeating it invents nothing
    assert missing("The option `-u` is not documented here.", contexts, "What does `-u` do?") == []
    assert missing("The 5 and the 1 in a 5/1 ARM are the fixed and adjustable periods.", ["The 5 is ..."],
                   "What do the 5 and the 1 mean in a 5/1 ARM?") == []
    # what the answer adds counts: the chunks hold no such version
    assert missing("The version released on March 27, 2021 is 0.16.0.", contexts,
                   "What version was released on March 27, 2021?") == ["0.16.0"]


def test_parts_are_sentences_lines_and_code_with_repeats_once():
    answer = ("The options are:\n- `-b` selects bytes\n- `-c` selects characters\n\n"
              "The page is Debian-split(1). The page is Debian-split(1).\n\n```sh\ncut -b 1-3 file\n```")
    got, repeats = parts(answer)
    # fragments of under four words join the part before them (a list item alone is no claim)
    assert got == ["The options are:\n- `-b` selects bytes\n- `-c` selects characters",
                   "The page is Debian-split(1).", "```sh\ncut -b 1-3 file\n```"]
    assert repeats == 1
    assert parts("Paris is the capital of France. It has 2 million people.")[0] == [
        "Paris is the capital of France.", "It has 2 million people."]


#: every part in one judge call, the mode before issue 72 (Ragas's: one verdict per part, read in order)
ONE_CALL = {"verdicts": {"calls": "one"}}
ROW = {"id": "r1", "user_input": "What does cut -b do?", "retrieved_contexts": [MANPAGE, README],
       "response": "The -b option selects only these bytes. It is described in dpkg-cut(1). It is a fast option."}


def test_by_default_each_part_is_judged_the_weakest_counts_and_an_absent_literal_fails_its_part():
    spec = [{"faithfulness": {"statements": "parts", "combine": "min", "literals": "score"}}]
    result, judge = evaluate([ROW], spec, {"faithfulness.verdicts": v(1, 1, 1)})
    out = result.rows[0]
    statements = out["faithfulness_evidence"]["statements"]
    assert [s["statement"] for s in statements] == ["The -b option selects only these bytes.",
                                                     "It is described in dpkg-cut(1).", "It is a fast option."]
    assert statements[1]["not_in_contexts"] == ["dpkg-cut(1)"] and "not_in_contexts" not in statements[0]
    # dpkg-cut(1) is in no context and the weakest part counts: 0 whatever the verdicts, so no call (issue 63)
    assert out["faithfulness"] == 0.0 and judge.calls() == 0
    assert "not in any context: dpkg-cut(1)" in out["faithfulness_reason"]
    assert out["faithfulness_evidence"]["statements_from"] == "parts"
    spec = [{"faithfulness": {"statements": "parts", "combine": "min", "literals": "evidence"}}]
    result, judge = evaluate([ROW], spec, lambda request: v(*[1] * request.schema["properties"]["verdicts"]["maxItems"]))
    # listed only: each part is judged, in a call of its own
    assert judge.calls() == 3 and [r.schema["properties"]["verdicts"]["maxItems"] for r in judge.requests] == [1, 1, 1]
    assert result.rows[0]["faithfulness"] == 1.0


def test_combine_mean_is_ragas_share_and_literals_can_be_evidence_only():
    spec = [{"faithfulness": {"statements": "parts", "combine": "mean", "literals": "evidence", "judgment": "label",
                              **ONE_CALL}}]
    result, _ = evaluate([ROW], spec, {"faithfulness.verdicts": v(1, 0, 1)})
    out = result.rows[0]
    assert out["faithfulness"] == 2 / 3
    assert out["faithfulness_evidence"]["statements"][1]["not_in_contexts"] == ["dpkg-cut(1)"]
    spec = [{"faithfulness": {"statements": "parts", "combine": "mean", "literals": "score", "judgment": "label",
                              **ONE_CALL}}]
    assert evaluate([ROW], spec, {"faithfulness.verdicts": v(1, 1, 1)})[0].rows[0]["faithfulness"] == 2 / 3
    spec = [{"faithfulness": {"statements": "response", "literals": "off", "judgment": "label"}}]
    result, judge = evaluate([ROW], spec, {"faithfulness.verdicts": v(1)})
    assert result.rows[0]["faithfulness"] == 1.0 and judge.requests[0].schema["properties"]["verdicts"]["minItems"] == 1


FILLER = " ".join(f"Sentence {i} talks about gardens and roses." for i in range(30))


def test_a_heading_brings_the_block_it_introduces_and_a_sentence_its_code_block():
    doc = ("## Command-line Interface\n\nA tool `dotenv` is also included, which edits the file.\n\n" + FILLER +
           "\n\nThere is an official package for Debian.\n\n```sh\n$ sudo apt install python-xmltodict\n```\n")
    shown = excerpts("The command-line interface is named dotenv.", [doc, FILLER])
    assert shown[0].startswith("## Command-line Interface\nA tool `dotenv` is also included")
    shown = excerpts("The official Debian package is python-xmltodict.", [doc, FILLER])
    assert "There is an official package for Debian.\n```sh\n$ sudo apt install python-xmltodict\n```" in shown[0]


def test_a_long_paragraph_ending_in_a_colon_does_not_bring_its_list():
    doc = ("httplib2 is a comprehensive HTTP client library that supports many features left out of other "
           "HTTP libraries, caches responses and follows redirects. More example usage can be found at:\n"
           "* https://github.com/httplib2/httplib2/wiki/Examples\n\n" + FILLER)
    shown = excerpts("httplib2 is an HTTP client library.", [doc, FILLER])
    assert "github.com" not in " ".join(shown)
    assert excerpts("Jsonpath operators are listed.", ["Jsonpath operators:\n\n- `$` the root\n\n" + FILLER,
                                                      FILLER])[0].startswith("Jsonpath operators:\n- `$` the root")
