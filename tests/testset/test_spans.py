"""The answers a test-set question is written for (testset/spans.py), chosen with no model,
and the rounds that ask each once (testset/sampling.py: SpanRounds)."""

from __future__ import annotations

from ragmeter.testset.chunking import Chunk
from ragmeter.testset.sampling import SpanRounds
from ragmeter.testset.spans import holds, key, prose_key, spans

PAGE = """# Preparing infant formula

Preparing infant formula safely matters.

## Steps

1. Wash your hands with soap and water for at least 20 seconds.
2. Use the amount of water listed on the formula container's instructions.

-   **Ready-to-feed formula**: a liquid that does not need any water added before feeding.

Prepared formula must be used within 2 hours of preparation. If the baby does not finish
the bottle, throw away the leftover formula.

```python
bottle = prepare(water=120, scoops=4)  # the example's own code is no answer
```

| Age | Amount |
|-----|--------|
| 2 months | 120 ml per feeding |

How much formula does a baby need?
See [the CDC page](https://www.cdc.gov/formula) for more advice on feeding.
Short line here.
"""


def test_spans_are_sentences_and_items_of_prose_ranked_by_what_they_hold():
    found = spans(PAGE, "Preparing infant formula")
    texts = [s.text for s in found]
    assert texts[:4] == ["Wash your hands with soap and water for at least 20 seconds.",
                         "Use the amount of water listed on the formula container's instructions.",
                         "Ready-to-feed formula: a liquid that does not need any water added before feeding.",
                         "Prepared formula must be used within 2 hours of preparation."]
    assert [s.holds for s in found[:4]] == [("number", "step"), ("step",), ("term",), ("number",)]
    # code, table rows, headings, the title, a question and a short line are never asked about
    assert not any("prepare(" in t or "|" in t or t.startswith(("#", "Steps", "How much")) or t == "Short line here."
                   for t in texts)
    # a link keeps its words, not its address; emphasis marks are dropped
    assert "See the CDC page for more advice on feeding." in texts
    assert not any("**" in t or "https" in t for t in texts)
    leftover = next(s for s in found if s.text.startswith("If the baby"))
    assert leftover.before == "Prepared formula must be used within 2 hours of preparation."
    assert leftover.passage == f"{leftover.before} {leftover.text}"


def test_a_sentence_cut_by_the_chunks_edge_is_not_asked():
    text = "used within 2 hours of its preparation time.\nStore the powder in a cool and dry place always.\n" \
           "Throw away any formula left in the bottle after"
    assert [s.text for s in spans(text, None, (False, False))] == ["Store the powder in a cool and dry place always."]
    # a lowercase start began in the chunk before, whatever the edges say
    assert [s.text for s in spans(text, None, (True, True))] == [
        "Store the powder in a cool and dry place always.", "Throw away any formula left in the bottle after"]


def test_span_rounds_ask_each_fact_once_even_where_chunks_overlap():
    shared = "Prepared formula must be used within 2 hours of preparation."
    pad = "Short one. " * 20  # chunks under 200 characters are never asked about
    first = Chunk("c-1", "a.md", 0, f"{pad}Wash your hands with soap for at least 20 seconds. {shared}")
    second = Chunk("c-2", "a.md", 40, f"{shared} Store the powder in a cool and dry place always. {pad}")
    rounds = SpanRounds([first, second], 0, lambda c: spans(c.text))
    asked = []
    while True:
        item = rounds.next()
        if item is None:
            if not rounds.advance():
                break
            continue
        asked.append(item[1].text)
    assert sorted(asked) == sorted(["Wash your hands with soap for at least 20 seconds.", shared,
                                    "Store the powder in a cool and dry place always."])
    assert rounds.exhausted().startswith("every span worth asking about was asked (2 chunks, 3 spans, 2 rounds)")
    assert key("Prepared **formula**, 2 hours!") == "prepared formula 2 hours"
    assert holds(key("Unprepared formula keeps."), key("formula keeps")) and not holds(
        key("Unprepared formula keeps."), key("prepared formula"))  # whole words only
    # a span is found in its chunk's prose as written, a link's address and emphasis marks aside
    linked = "See [the CDC page](https://www.cdc.gov/formula) for _more_ advice on feeding."
    assert holds(prose_key(linked), key(spans(linked)[0].text)) and not holds(key(linked), key(spans(linked)[0].text))
    # a span drawn for a question of another type goes back, to be asked by a factoid question
    rounds = SpanRounds([first], 0, lambda c: spans(c.text))
    item = rounds.next()
    assert rounds.release(item) == (first, first.text) and key(item[1].text) not in rounds.taken
    assert rounds.advance() and rounds.next()[1] == item[1]


def answer_first_reply(request):
    """A writer that asks for the lighthouse's year where its answer gives one and writes a
    question naming nothing otherwise; answer checks that read Cape2's answers as not answering
    (the sentence check picks no sentence for it, else the one that says when it was built)."""
    tag, text = request.tag, request.messages[-1]["content"]
    if tag == "testset.summary":
        return {"summary": "A page about lighthouses and when they were built."}
    if tag == "testset.from_answer":
        answer = text.split("\nanswer: ")[-1]
        if "was built in" in answer:
            return {"question": f"When was the lighthouse of {answer.split('lighthouse of ')[1].split(' ')[0]} built?"}
        return {"question": "What else is there to know?"}
    if tag == "abstention.answerable":
        return {"verdict": int("Cape2" not in text)}
    if tag == "testset.which_sentence":
        if "Cape2" in text.split("question:")[-1]:
            return {"sentence": 0}
        lines = text.split("question:")[0].splitlines()
        return {"sentence": next(int(line[1]) for line in lines if "was built in" in line)}
    raise KeyError(tag)


def test_answer_first_questions_carry_their_span_as_reference_and_what_each_check_found(tmp_path):
    from ragmeter.judges.scripted import ScriptedJudge
    from ragmeter.testset import generate_testset
    from tests.conftest import TableEmbedder
    from tests.testset.test_testset import write_docs

    docs = write_docs(tmp_path / "docs")
    judge = ScriptedJudge(answer_first_reply)
    emb = TableEmbedder({f"When was the lighthouse of Cape{i} built?": [float(i == 0), float(i == 1), 0.5]
                         for i in range(3)})
    result = generate_testset(docs, 3, out=tmp_path / "out", judge=judge, embeddings=emb, progress=False,
                              max_attempts=3)
    assert [(r["id"], r["user_input"], r["reference"]) for r in result.rows] == [
        (f"q000{n}", f"When was the lighthouse of Cape{i} built?", f"The lighthouse of Cape{i} was built in {1850 + i}.")
        for n, i in ((1, 0), (3, 1))]
    for row in result.rows:
        assert row["answer_span"] == row["reference"] and row["reference_in_chunk"] is True
        assert row["answered_by_span"] == 1.0 and row["round_trip_rank"] in (1, 2, 3) and "answerable" not in row
        assert row["reference_contexts"][0].startswith(row["reference"])
    by = {}
    for row in result.rejected:
        by.setdefault(row["rejected_by"], []).append(row["user_input"])
    assert by["answer sentence"] == ["When was the lighthouse of Cape2 built?"]
    # names no lighthouse: dropped with no call after writing, not written again (the next span is asked);
    # the same question written again for another span is not even checked
    assert (by["standalone"], by["duplicate"]) == (["What else is there to know?"], ["What else is there to know?"] * 3)
    assert judge.calls("testset.from_answer") == 7
    assert judge.calls("testset.which_sentence") == 3 and judge.calls("abstention.answerable") == 0
    # the checks that ran, counted (answerability did not run: not a 0)
    assert result.quality["answer_first"] == {"kept": 2, "span": 2, "reference_in_chunk": 2, "answered_by_span": 2,
                                              "round_trip_rank": 2}
    # abstention's answerability verdict on the span alone instead: the same rows kept, the same one dropped
    other = ScriptedJudge(answer_first_reply)
    again = generate_testset(docs, 3, judge=other, embeddings=emb, progress=False, max_attempts=3,
                             answer_check="answerable", cache=False)
    assert [r["user_input"] for r in again.rows] == [r["user_input"] for r in result.rows]
    assert [r["user_input"] for r in again.rejected if r["rejected_by"] == "answerable"] == [
        "When was the lighthouse of Cape2 built?"]
    assert other.calls("abstention.answerable") == 3 and other.calls("testset.which_sentence") == 0


def test_a_run_of_names_or_a_line_of_terms_states_nothing_to_ask_about():
    text = ("Pawlak V, Greenberg DS, Sprekeler H, Gerstner W, Kerr JND.\n\n"
            "Subjects: Immunology; Microbiology and Infectious Disease.\n\n"
            "Palabras clave: espirometría; niños; adolescencia; Puerto Rico\n\n"
            "Common fixed periods are 3, 5, 7, and 10 years for these loans.\n\n"
            "Histones bound to lipid droplets protect cells against bacteria in Drosophila embryos.")
    assert sorted(s.text for s in spans(text)) == [
        "Common fixed periods are 3, 5, 7, and 10 years for these loans.",
        "Histones bound to lipid droplets protect cells against bacteria in Drosophila embryos."]


def test_the_dry_run_plans_two_calls_per_answer_first_attempt(tmp_path):
    from ragmeter.testset import plan_testset
    from tests.cli_runner import run_cli
    from tests.testset.test_testset import write_docs

    docs = write_docs(tmp_path / "docs")
    plan = plan_testset(docs, 2, max_attempts=3)
    # a question and its answerability verdict per attempt, never written again, and one summary per document
    # asked about (the two attempts' documents at least, the three the budget reaches at most)
    assert plan["judge_calls"] == {"at_least": 2 * 2 + 2, "at_most": 6 * 2 + 3}
    chunk_first = plan_testset(docs, 2, max_attempts=3, write_from="chunk")
    assert plan["prompt_tokens_estimate"]["at_least"] < chunk_first["prompt_tokens_estimate"]["at_least"]
    critiqued = plan_testset(docs, 2, max_attempts=3, critiques=["standalone"])
    assert critiqued["judge_calls"] == {"at_least": 2 * 3 + 2, "at_most": 6 * 3 + 3}
    proc = run_cli("testset", str(docs), "--size", "2", "--dry-run", "--out", str(tmp_path / "never"))
    # 8 attempts per question asked for by default: the calls of 4 chunk-first attempts
    assert proc.returncode == 0 and "2 to 16 attempts: 6 to 35 judge calls" in proc.stdout


def test_a_span_knows_where_it_stands_so_its_section_names_its_subject():
    text = "# Studies\n\n## First study\n\nVaccination reached 80 percent of the children in 2018.\n\n## Second study\n\n" \
           "- Spirometry was measured in 215 healthy children aged 5 to 18."
    found = {s.text: s.offset for s in spans(text)}
    assert {s.text: s.offset for s in spans(text.replace("\n", "\r\n"))} == {  # one more character a line
        t: o + text[:o].count("\n") for t, o in found.items()}
    assert text[found["Vaccination reached 80 percent of the children in 2018."]:].startswith("Vaccination")
    assert text[found["Spirometry was measured in 215 healthy children aged 5 to 18."]:].startswith("- Spirometry")
    from ragmeter.testset.documents import Document
    from ragmeter.testset.subjects import Subjects

    chunk = Chunk("c-1", "studies.md", 0, text)
    subjects = Subjects([Document("studies.md", text)], "english")
    assert subjects.section(chunk) == []  # the chunk's first line is the title's
    assert subjects.section(chunk, found["Vaccination reached 80 percent of the children in 2018."]) == [
        "First study"]
    assert subjects.section(chunk, found["Spirometry was measured in 215 healthy children aged 5 to 18."]) == [
        "Second study"]
