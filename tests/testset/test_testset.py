"""Test-set generation with a scripted judge: chunking parity with the seed's splitter,
sampling, every stage, filtering, deduplication, over-generation, outputs and bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragmeter.errors import ConfigError, DataError
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.reading.outline import outline
from ragmeter.testset import generate_testset, parse_types
from ragmeter.testset.checks import answering_chunk
from ragmeter.testset.chunking import MIN_CHUNK_CHARS, split
from ragmeter.testset.documents import Document, html_text, load_documents
from ragmeter.testset.pipeline import passes, type_plan
from ragmeter.testset.quality import answer_in_chunk, language_mismatch
from ragmeter.testset.sampling import chunk_order
from tests.cli_runner import run_cli
from tests.conftest import TableEmbedder

DETAILS = [
    "It stands thirty metres tall on the northern cape and its lamp can be seen from forty kilometres away on a "
    "clear night. Its keeper lived in the stone house beside it until the light was automated in 1960.",
    "Granite blocks shipped from Aberdeen form its base; a spiral staircase of 212 steps climbs to a lantern room "
    "glazed with Fresnel lenses that were polished every morning by two assistant keepers.",
    "Storms destroyed the first wooden tower, so engineers chose cast iron plates bolted together on the reef, "
    "painted red and white, with a foghorn powered by compressed air that sounded every ninety seconds.",
]


def write_docs(folder: Path, count: int = 3) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        text = f"The lighthouse of Cape{i} was built in {1850 + i}. {DETAILS[i]} "
        (folder / f"doc{i}.md").write_text(text * 2)
    return folder


def reply(request):
    """A judge that writes one question per chunk (numbered by the lighthouse's name) and
    rates by a rule: questions naming Cape1 are irrelevant, everything else passes."""
    tag = request.tag
    text = request.messages[-1]["content"]
    if tag.startswith(("testset.factoid", "testset.multi_hop", "testset.rewrite")):
        name = text.split("lighthouse of ")[1].split(" ")[0]
        return {"question": f"When was the lighthouse of {name} built?", "answer": "In the year it was built."}
    if tag == "testset.unanswerable":
        return {"question": "Who painted the lighthouse keeper's portrait?"}
    if tag == "testset.summary":
        return {"summary": "A page about lighthouses and when they were built."}
    if tag == "testset.relevance":
        return {"rating": 2 if "Cape1" in text else 5}
    if tag == "faithfulness.verdicts":  # groundedness, the default way ("question answer" as a claim)
        return {"verdicts": [{"verdict": int("built" in text.split("statements:")[-1]), "reason": ""}]}
    if tag == "context_relevance.rating1":  # groundedness of an unanswerable question (0/1/2, read as 1/3/5)
        return {"rating": 2 if "built" in text.split("context:")[0] else 0}
    if tag == "testset.groundedness":  # the seed's 1-5 prompt (groundedness="seed")
        return {"evaluation": "answerable" if "built" in text.split("context:")[0] else "no", "rating":
                5 if "built" in text.split("context:")[0] else 1}
    return {"rating": 5}


def embedder() -> TableEmbedder:
    return TableEmbedder({})  # every text the same vector: any two questions are duplicates


def test_chunks_match_the_seed_splitter():
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    text = ("First paragraph. " * 80 + "\n\n" + "Second one, longer. " * 150 + "\nA line.\n" + "x" * 2500)
    ours = split([Document("a.md", text)], 2000, 200)
    seed = RecursiveCharacterTextSplitter(chunk_size=2000, chunk_overlap=200, add_start_index=True,
                                          separators=["\n\n", "\n", ".", " ", ""]).create_documents([text])
    assert [(c.text, c.start) for c in ours] == [(d.page_content, d.metadata["start_index"]) for d in seed]
    assert len({c.id for c in ours}) == len(ours) and ours == split([Document("a.md", text)], 2000, 200)


def test_sampling_spreads_over_sources_and_skips_near_duplicates():
    docs = [Document(f"s{i}", (DETAILS[i] + " ") * 8) for i in range(3)]
    docs.append(Document("s0-copy", docs[0].text))  # the same text under another name
    chunks = split(docs, 500, 50)
    order = list(chunk_order(chunks, seed=0))
    first = {c.source for c in order[:3]}
    assert first in ({"s0", "s1", "s2"}, {"s0-copy", "s1", "s2"})  # one of each before any second
    texts = [" ".join(c.text.split()) for c in order]
    assert len(texts) == len(set(texts))  # the copy's chunks are skipped
    assert list(chunk_order(chunks, seed=0)) == order and list(chunk_order(chunks, seed=1)) != order


def test_type_plan_follows_the_mix():
    plan = type_plan({"factoid": 0.6, "multi_hop": 0.2, "unanswerable": 0.2}, 0)
    first = [next(plan) for _ in range(20)]
    assert (first.count("factoid"), first.count("multi_hop"), first.count("unanswerable")) == (12, 4, 4)


def test_parse_types_and_bad_mixes():
    assert parse_types("factoid:0.5,unanswerable:0.5") == {"factoid": 0.5, "unanswerable": 0.5}
    with pytest.raises(ConfigError, match="sum to 1"):
        parse_types("factoid:0.5,multi_hop:0.2")
    with pytest.raises(ConfigError, match="unknown question type.*essay"):
        parse_types("factoid:0.5,essay:0.5")
    with pytest.raises(ConfigError, match="not TYPE:WEIGHT"):
        parse_types("factoid:lots")
    # issue 50: `factoid:nan` passed the sum check (nan compares false), was dropped, and the plan looped forever
    for odd in ("factoid:nan", "factoid:inf", "factoid:-inf,multi_hop:1", "factoid:-0.5,multi_hop:1.5"):
        with pytest.raises(ConfigError, match="finite numbers >= 0"):
            parse_types(odd)
    from ragmeter.testset.pipeline import type_plan

    with pytest.raises(ValueError, match="no question type"):
        next(type_plan({}, 0))


def test_inverted_groundedness_for_unanswerable():
    def rated(score):
        return {"score": score, "dist": None}

    assert passes("factoid", "groundedness", rated(4), 4) and not passes("factoid", "groundedness", rated(3), 4)
    assert passes("unanswerable", "groundedness", rated(2), 4)
    assert not passes("unanswerable", "groundedness", rated(3), 4)


def test_keep_rules_read_the_judges_probabilities_as_asked():
    # the judge's top label is 2 (read as 5) but it was unsure: expected 3.6, P(rating >= 4) = 0.45
    unsure = {"score": 5, "expected": 3.6, "dist": {1.0: 0.2, 3.0: 0.35, 5.0: 0.45}}
    assert passes("factoid", "groundedness", unsure, 4, "rating")
    assert not passes("factoid", "groundedness", unsure, 4, "probability")
    assert not passes("factoid", "groundedness", unsure, 4, "expected")
    sure = {"score": 5, "expected": 4.4, "dist": {1.0: 0.05, 3.0: 0.2, 5.0: 0.75}}
    assert all(passes("factoid", "groundedness", sure, 4, rule) for rule in ("rating", "probability", "expected"))
    # unanswerable: the corpus must not answer it (at most 2): P(rating <= 2) = 0.55 but expected 2.6
    absent = {"score": 1, "expected": 2.6, "dist": {1.0: 0.55, 3.0: 0.35, 5.0: 0.1}}
    assert passes("unanswerable", "groundedness", absent, 4, "probability")
    assert not passes("unanswerable", "groundedness", absent, 4, "expected")
    no_probs = {"score": 5, "expected": 5.0, "dist": None}  # a server without logprobs: its rating
    assert passes("factoid", "groundedness", no_probs, 4, "expected")


def test_the_quality_report_counts_kept_questions_the_judge_was_unsure_of():
    from rich.console import Console

    from ragmeter.testset.quality import print_quality, quality_report

    kept = [{"question_type": "factoid", "source": "a", "user_input": "q?", "reference": "r", "reference_contexts": [],
             "groundedness_expected": g, "relevance_expected": 4.8, "standalone_expected": 5.0} for g in (3.5, 4.2)]
    report = quality_report(kept, [], [], "english", {}, "", 2, 4)
    assert report["kept_unsure"] == 1
    console = Console(record=True, width=200)
    print_quality(report, console)
    assert "kept with an expected rating below 4 on some critique (the judge unsure): 1 of 2" in console.export_text()


@pytest.mark.parametrize(("question", "answer", "restated"), [
    ("What is the training mode for Zstd?", "Training mode.", True),  # kept before: nothing to find
    ("What are the modes of Zstd?", "Modes.", True),  # a plural is the same word
    ("¿Cuál es el modo de entrenamiento de Zstd?", "El modo de entrenamiento.", True),
    ("What is the default level?", "The default is 3", False),  # a number is an answer
    ("Does zstd have a training mode?", "Yes, training mode.", False),
    ("Which compressor is faster?", "Zstd", False),
    ("What is the training mode for Zstd?", "It builds a dictionary from samples.", False),
])
def test_an_answer_that_restates_its_question_is_caught(question, answer, restated):
    from ragmeter.reading.questions import restates_question

    assert restates_question(question, answer, "spanish" if question.startswith("¿") else "english") is restated


def test_pipeline_rejects_a_restated_answer_before_the_critiques(tmp_path):
    def restating(request):
        if request.tag.startswith("testset.factoid"):
            name = request.messages[-1]["content"].split("lighthouse of ")[1].split(" ")[0]
            return {"question": f"What is the lighthouse of {name}?", "answer": "The lighthouse."}
        return reply(request)

    judge = ScriptedJudge(restating)
    result = generate_testset(write_docs(tmp_path / "docs", 2), 2, write_from="chunk", judge=judge, embeddings=embedder(),
                              progress=False, max_attempts=1)
    assert result.rows == [] and {r["rejected_by"] for r in result.rejected} == {"restates question"}
    assert "every word of the answer 'The lighthouse.' is in the question" in result.rejected[0]["detail"]
    assert result.quality["rejected_by"] == {"restates question": 2}
    assert judge.calls("testset.standalone") == 0  # no critique paid for it


def test_pipeline_filters_and_writes_exact_rows(tmp_path):
    docs = write_docs(tmp_path / "docs")
    judge = ScriptedJudge(reply)
    emb = TableEmbedder({f"When was the lighthouse of Cape{i} built?": [float(i == 0), float(i == 2), 0.0]
                         for i in range(3)})
    result = generate_testset(docs, 3, write_from="chunk", out=tmp_path / "out", judge=judge, embeddings=emb, progress=False)
    rows = [json.loads(line) for line in (tmp_path / "out" / "testset.jsonl").read_text().splitlines()]
    assert [r["user_input"] for r in rows] == [r["user_input"] for r in result.rows]
    assert sorted(r["user_input"] for r in rows) == ["When was the lighthouse of Cape0 built?",
                                                     "When was the lighthouse of Cape2 built?"]
    row = rows[0]
    assert set(row) >= {"id", "user_input", "reference", "reference_contexts", "reference_context_ids", "source",
                        "question_type", "groundedness_score", "groundedness_rationale", "relevance_score",
                        "standalone_score"}
    assert row["reference_context_ids"][0].startswith("c-") and row["source"].startswith("doc")
    rejected = [json.loads(line) for line in (tmp_path / "out" / "rejected.jsonl").read_text().splitlines()]
    # a second round asks each chunk again from its text away from the first question; the scripted
    # generator writes the same question, rejected before any critique, and the chunk is not asked again
    assert [(r["rejected_by"], r["user_input"]) for r in rejected] == [
        ("relevance", "When was the lighthouse of Cape1 built?")] + [
        ("duplicate", f"When was the lighthouse of Cape{i} built?") for i in (0, 2)]  # Cape1's chunk: no text left
    quality = json.loads((tmp_path / "out" / "manifest.json").read_text())["quality"]
    assert (quality["generated"], quality["kept"], quality["rejected"]) == (5, 2, 3)
    assert quality["rejected_by"] == {"duplicate": 2, "relevance": 1} and quality["answer_in_chunk_rate"] == 1.0
    assert quality["stopped_short"] and quality["stop_reason"].startswith(
        "every chunk was asked about until no text was left away from its earlier questions (3 chunks, 2 rounds)")
    assert quality["source_coverage"] == 0.6667 and quality["question_types"] == {"factoid": 2}
    assert quality["kept_per_source"] == {"doc0.md": 1, "doc2.md": 1}
    # the relevance critique stopped Cape1's row: no groundedness call for it
    assert judge.calls("faithfulness.verdicts") == 2 and judge.calls("testset.relevance") == 3
    from rich.console import Console

    from ragmeter.testset.quality import print_quality

    console = Console(record=True, width=200)
    print_quality({**quality, "tokens": 8454.0, "seconds": 12.345, "tokens_per_kept": 4227.0,
                   "seconds_per_kept": 6.1725, "judge_calls": 11, "judge_calls_per_kept": 5.5}, console)
    text = console.export_text()
    assert text.startswith("2 kept of 5 generated (survival 40%); asked for 3")  # was "survival 0.4"
    assert "answer in its chunk (factoid): 100%;" in text and "kept per source: doc0.md 1, doc2.md 1" in text
    assert "judge: 11 calls, 8,454 tokens, 12 s; per kept question 5.5 calls, 4,227 tokens, 6.2 s" in text
    console = Console(record=True, width=200)  # a slow judge: was "… tokens, 1e+02 s" per kept question
    print_quality({**quality, "tokens": 8454.0, "seconds": 200.0, "tokens_per_kept": 4227.0,
                   "seconds_per_kept": 100.0, "judge_calls": 11, "judge_calls_per_kept": 5.5}, console)
    assert "8,454 tokens, 3m20s; per kept question 5.5 calls, 4,227 tokens, 1m40s" in console.export_text()


def test_duplicates_are_rejected_with_the_pair(tmp_path):
    docs = write_docs(tmp_path / "docs", 3)
    result = generate_testset(docs, 3, write_from="chunk", judge=ScriptedJudge(reply), embeddings=embedder(), progress=False,
                              max_attempts=1)
    assert len(result.rows) == 1
    duplicates = [r for r in result.rejected if r["rejected_by"] == "duplicate"]
    assert duplicates and duplicates[0]["duplicate_of"] == result.rows[0]["id"]
    assert result.quality["stopped_short"] and "attempt budget" in result.quality["stop_reason"]


def test_unanswerable_rows_get_a_refusal_and_no_contexts(tmp_path):
    docs = write_docs(tmp_path / "docs", 2)
    question = "¿Quién pintó el retrato del farero de Cape0?"  # Spanish, naming the lighthouse it asks about

    def spanish(request):
        return {"question": question} if request.tag == "testset.unanswerable" else reply(request)

    emb = TableEmbedder({question: [1.0, 0.0, 0.0]})
    result = generate_testset(docs, 1, write_from="chunk", judge=ScriptedJudge(spanish), embeddings=emb, types="unanswerable:1",
                              progress=False, language="spanish")
    row = result.rows[0]
    assert row["question_type"] == "unanswerable" and row["reference"] == "Los documentos no responden a esta pregunta."
    assert row["reference_contexts"] == [] and row["groundedness_score"] == 1


def test_an_unanswerable_question_the_corpus_answers_is_rejected_before_any_critique(tmp_path):
    docs = write_docs(tmp_path / "docs", 2)

    def answered(request):
        if request.tag == "testset.unanswerable":
            return {"question": "In what year was the lighthouse of Cape0 built?"}
        return reply(request)

    judge = ScriptedJudge(answered)
    result = generate_testset(docs, 1, write_from="chunk", judge=judge, embeddings=embedder(), types="unanswerable:1",
                              progress=False, out=tmp_path / "out")
    assert result.rows == []
    rejected = [json.loads(line) for line in (tmp_path / "out" / "rejected.jsonl").read_text().splitlines()]
    assert {(r["rejected_by"], r["detail"]) for r in rejected} == {
        ("groundedness", "answerable: doc0.md holds 80% of the question's words"),
        ("duplicate", "the same question was written before")}  # asked again in the second round
    assert judge.calls("testset.standalone") == 0 and judge.calls("context_relevance.rating1") == 0


def test_shipped_unanswerable_questions_are_not_answered_by_the_shipped_docs():
    root = Path(__file__).resolve().parents[2] / "examples"
    chunks = split(load_documents(root / "docs").documents)
    rows = [json.loads(line) for line in (root / "testset.jsonl").read_text().splitlines()]
    unanswerable = [r for r in rows if r["question_type"] == "unanswerable"]
    assert len(unanswerable) == 2
    assert {r["id"]: answering_chunk(r["user_input"], chunks) for r in unanswerable} == {"q0003": None, "q0007": None}
    # the check finds what it is for: the two questions the generator shipped here before were answered
    # (metrics.html, read as real HTML since issue 74, says it too)
    assert answering_chunk("What is the default temperature setting for decoding?", chunks)[0].source in {
        "cache.md", "metrics.html"}
    assert answering_chunk("What is the purpose of the `prompts adapt` command?", chunks)[0].source == "prompts.md"


def test_same_seed_same_testset_and_cache_resume(tmp_path):
    docs = write_docs(tmp_path / "docs")
    first = generate_testset(docs, 2, write_from="chunk", judge=ScriptedJudge(reply), embeddings=embedder(), progress=False)
    judge = ScriptedJudge(reply)
    again = generate_testset(docs, 2, write_from="chunk", judge=judge, embeddings=embedder(), progress=False)
    assert again.rows == first.rows and judge.requests == []  # everything from the cache


def test_parse_failures_are_rejected_with_the_stage(tmp_path):
    docs = write_docs(tmp_path / "docs", 1)

    def broken(request):
        return "not json" if request.tag == "testset.factoid" else reply(request)

    result = generate_testset(docs, 1, write_from="chunk", judge=ScriptedJudge(broken), embeddings=embedder(), progress=False,
                              max_attempts=2)
    assert result.rows == [] and {r["rejected_by"] for r in result.rejected} == {"parse failure"}
    assert result.rejected[0]["detail"].startswith("generate:")


def test_evaluate_reads_the_testset(tmp_path):
    import ragmeter

    docs = write_docs(tmp_path / "docs")
    generate_testset(docs, 1, write_from="chunk", out=tmp_path / "ts", judge=ScriptedJudge(reply), embeddings=embedder(),
                     progress=False)
    rows = [json.loads(line) for line in (tmp_path / "ts" / "testset.jsonl").read_text().splitlines()]
    rows[0]["response"] = "It was built in 1850."
    result = ragmeter.evaluate(rows, ["rouge"], progress=False)
    assert result.summary()["rouge"]["n"] == 1


def test_documents_html_and_tables(tmp_path):
    assert html_text("<html><head><script>x=1</script><style>p{}</style></head><body><p>One &amp; two</p>"
                     "<p>Three</p></body></html>") == "One & two\n\nThree"
    page = html_text("<body><h1>Widgets</h1><p>Intro.</p><h2>Install</h2><p>Run it.</p></body>")
    assert page == "# Widgets\n\nIntro.\n\n## Install\n\nRun it."
    assert outline(page).path_at(page.index("Run it")) == ["Widgets", "Install"]
    table = tmp_path / "docs.jsonl"
    table.write_text(json.dumps({"text": "hello", "source": "a"}) + "\n" + json.dumps({"source": "b"}) + "\n")
    with pytest.raises(DataError, match="docs.jsonl, row 2, field 'text'"):
        load_documents(table)
    # every suffix io reads is a table of documents, as judge-check reads it (issue 52: .ndjson was raw text)
    ndjson = tmp_path / "docs.ndjson"
    ndjson.write_text(json.dumps({"text": "hello there", "source": "a"}) + "\n")
    assert [(d.source, d.text) for d in load_documents(ndjson).documents] == [("a", "hello there")]
    from ragmeter.judge_check.sources import is_documents
    assert not is_documents(ndjson) and is_documents(tmp_path / "docs.jsonl") is False


def test_bad_input(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="no files ragmeter reads"):
        load_documents(tmp_path / "empty")
    short = tmp_path / "short"
    short.mkdir()
    (short / "a.txt").write_text("Too short.")
    (short / "broken.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    corpus = load_documents(short)
    assert [d.source for d in corpus.documents] == ["a.txt"]
    assert len(corpus.skipped) == 1 and "broken.pdf: cannot parse this PDF" in corpus.skipped[0]
    with pytest.raises(DataError, match=f"shorter than the minimum chunk \\({MIN_CHUNK_CHARS} characters\\)"):
        generate_testset(short, 1, write_from="chunk", judge=ScriptedJudge(reply), embeddings=embedder(), progress=False)
    with pytest.raises(ConfigError, match="testset: size: Input should be greater than or equal to 1"):
        generate_testset(short, 0, write_from="chunk", judge=ScriptedJudge(reply))
    with pytest.raises(ConfigError, match="testset: format: Input should be 'jsonl' or 'parquet'"):
        generate_testset(short, 1, write_from="chunk", judge=ScriptedJudge(reply), format="csv")
    with pytest.raises(TypeError, match="unexpected keyword arguments: sizes"):
        generate_testset(short, 1, write_from="chunk", sizes=3)  # type: ignore[call-arg]


def minimal_pdf(text: str) -> bytes:
    """A one-page PDF whose page shows `text` (Helvetica), with a correct xref table."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def test_a_damaged_pdf_is_one_line_naming_the_file_not_pypdfs_log(tmp_path, capsys, caplog):
    """pypdf printed "invalid pdf header" and "EOF marker not found" with no file name."""
    pdf = minimal_pdf("The lighthouse stands on the cape.")
    (tmp_path / "shifted.pdf").write_bytes(b"  \n" + pdf)  # read despite a bad header
    (tmp_path / "cut.pdf").write_bytes(pdf[:-6])  # no EOF marker: unreadable
    corpus = load_documents(tmp_path)
    assert [(d.source, d.text) for d in corpus.documents] == [("shifted.pdf", "The lighthouse stands on the cape.")]
    assert corpus.skipped == [f"{tmp_path / 'cut.pdf'}: cannot parse this PDF (PdfStreamError: Stream has ended "
                              "unexpectedly)"]
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"ragmeter: {tmp_path / 'shifted.pdf'}: read despite a damaged PDF "
                                               "(invalid pdf header: b'  \\n%P'")
    assert not [r for r in caplog.records if r.name.startswith("pypdf")]


def test_output_folder_holding_another_testset_is_refused(tmp_path):
    docs = write_docs(tmp_path / "docs")
    generate_testset(docs, 1, write_from="chunk", out=tmp_path / "ts", judge=ScriptedJudge(reply), embeddings=embedder(), progress=False)
    with pytest.raises(ConfigError, match="holds another run's results"):
        generate_testset(docs, 1, write_from="chunk", out=tmp_path / "ts", seed=5, judge=ScriptedJudge(reply), embeddings=embedder(),
                         progress=False)


def test_quality_checks():
    assert language_mismatch("What is the capital of the country?", "spanish")
    assert not language_mismatch("¿Cuál es la capital del país?", "spanish")
    assert answer_in_chunk("built in 1850", ["The lighthouse was built in 1850."])
    assert not answer_in_chunk("painted by Monet", ["The lighthouse was built in 1850."])


def test_dry_run_plans_without_a_judge(tmp_path):
    from ragmeter.testset import plan_testset

    docs = write_docs(tmp_path / "docs")
    plan = plan_testset(docs, 2, max_attempts=3, write_from="chunk")
    assert plan["attempts"] == {"at_least": 2, "at_most": 6}
    # a question and three critiques per attempt, at most twice (a rewrite), and one summary per document asked
    # about (the two attempts' documents, at least; the three the budget reaches, at most)
    assert plan["judge_calls"] == {"at_least": 2 * 4 + 2, "at_most": 2 * 6 * 4 + 3}
    low, high = plan["prompt_tokens_estimate"]["at_least"], plan["prompt_tokens_estimate"]["at_most"]
    assert 0 < low < high and plan["token_count"].startswith("estimate")
    proc = run_cli("testset", str(docs), "--size", "2", "--write-from", "chunk", "--dry-run", "--out", str(tmp_path / "never"))
    assert proc.returncode == 0 and "10 to 67 judge calls" in proc.stdout
    assert not (tmp_path / "never").exists()


def test_token_sized_chunks_use_the_bundled_tokenizer():
    from transformers import AutoTokenizer

    from ragmeter.embeddings.local import bundled_dir

    tokenizer = AutoTokenizer.from_pretrained(str(bundled_dir()), local_files_only=True)
    chunks = split([Document("a", " ".join(DETAILS) * 6)], 64, 8, unit="tokens")
    assert len(chunks) > 3
    assert max(len(tokenizer.encode(c.text, add_special_tokens=False)) for c in chunks) <= 64
    with pytest.raises(ConfigError, match="characters or tokens"):
        split([Document("a", "text")], 64, 8, unit="words")


def test_multi_hop_rows_cite_two_chunks(tmp_path):
    docs = write_docs(tmp_path / "docs")
    judge = ScriptedJudge(reply)
    result = generate_testset(docs, 1, write_from="chunk", judge=judge, embeddings=embedder(), types="multi_hop:1", progress=False)
    row = result.rows[0]
    assert row["question_type"] == "multi_hop" and len(row["reference_context_ids"]) == 2
    assert len(set(row["reference_context_ids"])) == 2 and len(row["reference_contexts"]) == 2
    assert judge.calls("testset.multi_hop") == 1
    written = next(r for r in judge.requests if r.tag == "testset.multi_hop")
    context1, context2 = (line for line in written.messages[-1]["content"].splitlines()
                          if line.startswith(("context1:", "context2:")))
    assert context1 != context2.replace("context2:", "context1:")


def test_the_seeds_groundedness_prompt_on_request(tmp_path):
    docs = write_docs(tmp_path / "docs")
    judge = ScriptedJudge(reply)
    result = generate_testset(docs, 1, write_from="chunk", judge=judge, embeddings=embedder(), groundedness="seed", progress=False)
    assert result.rows[0]["groundedness_score"] == 5 and result.rows[0]["groundedness_rationale"] == "answerable"
    assert judge.calls("testset.groundedness") == 1 and judge.calls("context_relevance.rating1") == 0


def conversation_reply(request):
    if request.tag == "testset.conversational":
        name = request.messages[-1]["content"].split("lighthouse of ")[1].split(" ")[0]
        return {"first_question": f"When was the lighthouse of {name} built?", "first_answer": "In 1851.",
                "follow_up": "And who kept it?", "answer": "A keeper who lived beside it."}
    return reply(request)


def test_conversational_rows_carry_the_turns_and_load_as_multi_turn(tmp_path):
    from ragmeter.io.datasets import load_dataset

    docs = write_docs(tmp_path / "docs")
    judge = ScriptedJudge(conversation_reply)
    generate_testset(docs, 1, write_from="chunk", out=tmp_path / "out", judge=judge, embeddings=embedder(),
                     types="conversational:1", progress=False)
    row = json.loads((tmp_path / "out" / "testset.jsonl").read_text())
    assert row["question_type"] == "conversational" and row["user_input"] == "And who kept it?"
    assert [t["role"] for t in row["messages"]] == ["user", "assistant", "user"]
    assert row["messages"][0]["content"].startswith("When was the lighthouse of Cape")
    assert row["reference"] == "A keeper who lived beside it." and len(row["reference_context_ids"]) == 1
    # the critiques read the whole conversation, not the follow-up alone
    standalone = next(r for r in judge.requests if r.tag == "testset.standalone").messages[-1]["content"]
    assert "User: When was the lighthouse" in standalone and "Assistant: In 1851." in standalone
    sample = load_dataset(tmp_path / "out" / "testset.jsonl").samples[0]
    assert sample.user_input == "And who kept it?" and [t.type for t in sample.messages] == ["human", "ai", "human"]


def test_a_flaky_judge_does_not_stop_a_test_set_and_a_dead_one_does(tmp_path, monkeypatch):
    """Issue 50: testset stopped at the first call that failed its retries. A failed attempt
    is now asked again once; only a judge that is down (the breaker and its probe) stops."""
    from ragmeter.errors import JudgeUnavailable, TransientJudgeError
    from ragmeter.judges import retry

    async def no_sleep(seconds: float) -> None:
        return None

    monkeypatch.setattr(retry.asyncio, "sleep", no_sleep)  # the retries' back-off
    docs = write_docs(tmp_path / "docs")
    emb = TableEmbedder({f"When was the lighthouse of Cape{i} built?": [float(i == 0), float(i == 2), 0.0]
                         for i in range(3)})
    failed_once: set[str] = set()

    def flaky(request):
        text = request.messages[-1]["content"]
        if request.tag == "testset.relevance" and "Cape2" in text and len(failed_once) < 4:
            failed_once.add(f"Cape2 {len(failed_once)}")  # the call and its 3 retries
            raise TransientJudgeError("HTTP 503 from the judge", status=503)
        return reply(request)

    result = generate_testset(docs, 3, write_from="chunk", judge=ScriptedJudge(flaky), embeddings=emb, progress=False)
    assert sorted(r["user_input"] for r in result.rows) == ["When was the lighthouse of Cape0 built?",
                                                            "When was the lighthouse of Cape2 built?"]
    assert len(failed_once) == 4 and "judge call failed" not in result.quality["rejected_by"]

    def down(request):
        raise TransientJudgeError("connection refused", status=None)

    with pytest.raises(JudgeUnavailable, match="the judge answered no call of this build: it looks down"):
        generate_testset(docs, 3, write_from="chunk", judge=ScriptedJudge(down), embeddings=emb, progress=False, cache=False)


def test_keep_on_probabilities_without_them_says_so(tmp_path):
    """Issue 50: --keep-on probability|expected with a judge that gives no probabilities fell
    back to the rating without a word; the quality report counts and says it."""
    from rich.console import Console

    from ragmeter.testset.quality import print_quality

    docs = write_docs(tmp_path / "docs")
    emb = TableEmbedder({f"When was the lighthouse of Cape{i} built?": [float(i == 0), float(i == 2), 0.0]
                         for i in range(3)})
    result = generate_testset(docs, 3, write_from="chunk", judge=ScriptedJudge(reply), embeddings=emb, progress=False,
                              keep_on="probability")
    # the rated critiques (standalone, relevance; groundedness has probabilities) of the two kept questions and
    # of Cape1's, which fails relevance and is dropped without a rewrite (a critique's failure is not rewritten)
    assert result.quality["kept_on_rating"] == 6
    assert [r["detail"] for r in result.rejected if r["rejected_by"] == "relevance"] == [
        "relevance 2: rated 2 of 1-5"]
    console = Console(record=True, width=200)
    print_quality(result.quality, console)
    assert "--keep-on: the judge gave no label probabilities for 6 critiques" in console.export_text()
    assert generate_testset(docs, 3, write_from="chunk", judge=ScriptedJudge(reply), embeddings=emb,
                            progress=False).quality["kept_on_rating"] == 0


def test_the_progress_line_says_the_stage_of_the_questions_in_flight(tmp_path, monkeypatch):
    """Issue 64 item 2: "0/12 questions · 39 judge calls" for 10 of 12.6 minutes, then 11/12
    at once. The line now says how many questions are written and where the others are."""
    import ragmeter.engine.progress as progress

    seen: list[str] = []
    given: dict[str, Any] = {}
    real = progress.row_progress

    def capturing(total, enabled=None, *args, **kwargs):
        given["work"] = kwargs["work"]
        return real(total, False, *args, **kwargs)

    monkeypatch.setattr(progress, "row_progress", capturing)

    def watched(request):
        if request.tag == "testset.relevance":  # a critique: the question is written, its critique under way
            seen.append(given["work"]())
        return reply(request)

    generate_testset(write_docs(tmp_path / "docs", 2), 2, write_from="chunk", judge=ScriptedJudge(watched), embeddings=embedder(),
                     progress=True, concurrency=1)
    assert seen and seen[0].startswith("1 written (") and "critiquing" in seen[0] and "judge call" in seen[0]


def test_stages_count_an_attempt_once_wherever_it_ends():
    from ragmeter.testset.generation import Stages

    stages = Stages()
    with stages.attempt() as wrote:
        assert stages.text() == "0 written (1 writing)"
        wrote()
        wrote()  # twice: counted once
        with stages.attempt():
            assert stages.text() == "1 written (1 writing, 1 critiquing)"
    assert (stages.writing, stages.critiquing, stages.text()) == (0, 0, "1 written")
