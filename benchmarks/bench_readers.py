"""Whether the text readers still read every labelled text as a base revision did.

Faithfulness, copies, evidence selection, judge-check and the test set read texts through
reading/ (blocks, units, parts, copies, excerpts, the outline, the markup cleaner, test-set
spans, judge-check's claims). A change to how a reader parses a text may move scores on the
human-labelled sets, so it is checked without a model: the base revision's src/ is taken out
of git into a temporary folder, each tree's readers are run on every text in the labelled sets
(benchmarks/**/*.jsonl and the meta-evaluation sets: answers, responses, references,
questions, contexts) and on the test-set documents in benchmarks/ (Markdown, reST, HTML,
text), in two processes, and the outputs are compared reader by reader.

    python benchmarks/bench_readers.py                 # HEAD against the working tree
    python benchmarks/bench_readers.py --base 4cd7e8a  # a revision against the working tree
    python benchmarks/bench_readers.py --show 5        # five examples of each reader's differences

Prints, per reader, how many texts (or rows) it reads differently, with examples.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
META_EVAL = "/work/shared/data/meta-eval"
TEXT_KEYS = ("response", "answer", "reference", "user_input", "question")
LIST_KEYS = ("retrieved_contexts", "contexts", "reference_contexts")
DOC_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".html", ".htm")
#: test-set documents are chunked to this many characters at paragraph breaks for the span reader
CHUNK = 2000


def labelled_rows() -> list[dict[str, Any]]:
    """Every row with text of the labelled sets: its texts, answer, contexts and question."""
    files = sorted(glob.glob(f"{META_EVAL}/*.jsonl")) + sorted(glob.glob(str(ROOT / "benchmarks/**/*.jsonl"),
                                                                         recursive=True))
    rows = []
    for name in files:
        for line in Path(name).read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict):
                rows.append(row)
    return rows


def documents() -> list[str]:
    return [p.read_text(encoding="utf-8", errors="replace") for p in sorted((ROOT / "benchmarks").rglob("*"))
            if p.suffix.lower() in DOC_SUFFIXES and p.is_file() and p.name != "README.md"]


def chunks(text: str) -> list[str]:
    out, current = [], ""
    for para in text.split("\n\n"):
        if current and len(current) + len(para) > CHUNK:
            out.append(current)
            current = ""
        current = f"{current}\n\n{para}" if current else para
    return out + ([current] if current else [])


def _text_readers() -> dict[str, Any]:
    from ragmeter.judge_check.claims import claim_sentences
    from ragmeter.reading import blocks as b
    from ragmeter.reading.copies import flat_lines
    from ragmeter.reading.outline import outline

    try:
        from ragmeter.reading.markup import clean_markup
    except ImportError:
        from ragmeter.testset.markdown import clean_markup  # type: ignore[no-redef]  # before reading/markup.py

    def heads(text: str) -> Any:
        found = outline(text)
        return [found.title, [(h.start, h.level, h.text) for h in found.headings]]

    def cleaned(text: str) -> Any:
        c = clean_markup(text)
        return [c.text, c.include_count, c.front_matter]

    return {
        "blocks": b.blocks, "units": b.units, "parts": lambda t: b.parts(t), "parts_whole": lambda t: b.parts(t, False),
        "with_leads": lambda t: b.with_leads(b.parts(t, False)[0]), "states_something": b.states_something,
        "flat_lines": flat_lines, "claim_sentences": claim_sentences, "outline": heads, "clean_markup": cleaned,
    }


def _span_readers() -> dict[str, Any]:
    from ragmeter.testset import spans as s

    return {"spans": lambda t: [(x.text, x.before, x.holds, x.offset) for x in s.spans(t)],
            "span_sentences": s.sentences}


def _row_readers() -> dict[str, Any]:
    from ragmeter.reading.copies import copied
    from ragmeter.reading.excerpts import excerpts

    def copy(answer: str, contexts: list[str], question: str) -> Any:
        found = copied(answer, contexts)
        return None if found is None else [list(found.runs), list(found.contexts)]

    return {"copied": copy, "excerpts": lambda a, c, q: excerpts(a, c, question=q)}


def dump(out: str) -> None:
    """This tree's readers on every text: {reader: [output per text]} as JSON lines."""
    rows = labelled_rows()
    texts: list[str] = []
    for row in rows:
        texts += [row[k] for k in TEXT_KEYS if isinstance(row.get(k), str)]
        texts += [c for k in LIST_KEYS if isinstance(row.get(k), list) for c in row[k] if isinstance(c, str)]
    docs = documents()
    texts = list(dict.fromkeys(texts + docs))
    pieces = list(dict.fromkeys(docs + [c for d in docs for c in chunks(d)] + texts))
    results: dict[str, list[Any]] = {}
    for name, read in _text_readers().items():
        results[name] = [read(t) for t in texts]
    for name, read in _span_readers().items():
        results[name] = [read(t) for t in pieces]
    for name, read in _row_readers().items():
        out_rows = []
        for row in rows:
            answer = row.get("response") or row.get("answer")
            contexts = row.get("retrieved_contexts") or row.get("contexts")
            if isinstance(answer, str) and isinstance(contexts, list) and all(isinstance(c, str) for c in contexts):
                out_rows.append(read(answer, contexts, row.get("user_input") or row.get("question") or ""))
        results[name] = out_rows
    results["_texts"] = texts
    results["_pieces"] = pieces
    Path(out).write_text(json.dumps(results, ensure_ascii=False), encoding="utf-8")


def run_tree(src: Path, out: Path) -> dict[str, list[Any]]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    subprocess.run([sys.executable, __file__, "--dump", str(out)], env=env, check=True)
    return json.loads(out.read_text(encoding="utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="HEAD", help="the revision whose readers are the reference")
    parser.add_argument("--show", type=int, default=3, help="examples printed per reader")
    parser.add_argument("--dump", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.dump:
        return dump(args.dump)
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base, "src"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        old = run_tree(Path(tmp) / "src", Path(tmp) / "old.json")
        new = run_tree(ROOT / "src", Path(tmp) / "new.json")
    texts, pieces = new.pop("_texts"), new.pop("_pieces")
    print(f"{len(texts)} texts, {len(pieces)} test-set pieces (documents, their chunks, the texts); base {args.base}")
    for name in new:
        if name.startswith("_"):
            continue
        before, after = old.get(name), new[name]
        inputs = pieces if name.startswith("span") else texts
        if before is None or len(before) != len(after):
            print(f"{name:18} not comparable")
            continue
        differ = [i for i in range(len(after)) if before[i] != after[i]]
        print(f"{name:18} {len(after):6} read, {len(differ):4} differently")
        for i in differ[:args.show]:
            shown = inputs[i][:300] if name not in ("copied", "excerpts") else f"row {i}"
            print(f"    in:  {shown!r}\n    was: {json.dumps(before[i], ensure_ascii=False)[:400]}\n"
                  f"    now: {json.dumps(after[i], ensure_ascii=False)[:400]}")


if __name__ == "__main__":
    main()
