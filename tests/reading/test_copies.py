"""Answers copied from their contexts as written (reading/copies.py): supported without a
judge call, in any language; a changed word or a rearrangement is no copy (issue 61)."""

from __future__ import annotations

import ragmeter
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.reading.copies import copied

NOTE = ("Si ejecutas `git difftool` en vez de `git diff`, podrás ver los cambios con programas de este tipo "
        "como Araxis, emerge, vimdiff y más.")
IGNORE = ("Use the ``ignore=True`` parameter to ignore this error:\n\n.. code-block:: python\n\n"
          "    # This fails silently if a record with id=1 already exists\n"
          '    db.table("dogs").insert({"id": 1, "name": "Cleo"}, pk="id", ignore=True)\n\n'
          "To replace any existing records, use the ``replace=True`` parameter:\n\n.. code-block:: python\n\n"
          '    db.table("dogs").insert_all([{"id": 1}], pk="id", replace=True)\n')


def test_a_copy_with_list_numbers_and_labels_around_it_is_found_run_by_run():
    answer = f"1.\nAnswer:\n\n1. {NOTE}\n\n---\nRespuesta:\n{NOTE}"
    found = copied(answer, ["Otro contexto.", f"[NOTE]\n====\n{NOTE}\n===="])
    assert found is not None and found.contexts == (1, 1) and len(found.runs) == 2
    # any other label names what follows: it must stand over it in the context
    assert copied(f"Araxis:\n{NOTE}", [NOTE]) is None


def test_one_changed_word_is_no_copy():
    changed = NOTE.replace("`git difftool` en vez", "`git diff` en vez")
    assert copied(changed, [NOTE]) is None


def test_two_copied_lines_the_context_keeps_apart_are_no_copy():
    """The comment of the ignore=True example put on the replace=True example's code: each
    line is in the context, the pair is not."""
    moved = ("# This fails silently if a record with id=1 already exists\n"
             'db.table("dogs").insert_all([{"id": 1}], pk="id", replace=True)')
    assert copied(moved, [IGNORE]) is None
    kept = ("# This fails silently if a record with id=1 already exists\n"
            'db.table("dogs").insert({"id": 1, "name": "Cleo"}, pk="id", ignore=True)')
    assert copied(kept, [IGNORE]) is not None


def test_a_line_that_says_what_the_copied_code_does_must_be_a_copy_too():
    code = '    db.table("dogs").insert_all([{"id": 1}], pk="id", replace=True)'
    assert copied(f"To delete every dog, run this:\n{code}", [IGNORE]) is None
    assert copied(f"Answer:\n{code}", [IGNORE]) is not None  # a two-word label states nothing


def test_short_runs_decide_nothing_but_a_cut_off_tail_is_allowed():
    assert copied("Sure.", ["Sure. There are always good reasons."]) is None
    assert copied("Yes.\n" + NOTE, ["Yes. Other things.", NOTE]) is None  # "Yes." alone could be anyone's
    assert copied("Yes.\n" + NOTE, ["Yes. " + NOTE]) is not None  # the context says "Yes." right there
    assert copied(NOTE + "\n2. Para", [NOTE + " Para ver"]) is not None
    # a short last run is allowed only as the copy's own continuation, never as a word of its own
    assert copied(NOTE + "\nNo", [NOTE + " Nota: otra cosa."]) is None
    assert copied(NOTE + "\nNo", ["No hay nada. " + NOTE]) is None


def test_a_question_repeated_in_the_answer_states_nothing():
    assert copied(f"¿Qué hace git difftool?\n{NOTE}", [NOTE]) is not None


def run(response: str, **options):
    judge = ScriptedJudge({"faithfulness.verdicts": {"verdicts": [{"reason": "not found", "verdict": 0}]},
                           "abstention.declines": {"verdict": 0}})
    result = ragmeter.evaluate([{"id": "r", "user_input": "¿Qué hace git difftool?", "response": response,
                                 "retrieved_contexts": ["Intro.", NOTE]}], [{"faithfulness": options}],
                               judge=judge, cache=False, progress=False, language="spanish")
    return result.rows[0], judge.calls()


def test_faithfulness_scores_a_copy_1_without_a_call_and_says_so():
    row, calls = run(f"Respuesta:\n{NOTE}")
    assert (row["faithfulness"], calls) == (1.0, 0)
    assert row["faithfulness_evidence"]["copied"] == [{"run": NOTE, "context": 1}]
    assert row["faithfulness_reason"].startswith("copied from the contexts as written (1 run(s)), no judge call")


def test_with_copies_off_or_a_changed_word_the_judge_decides():
    assert run(f"Respuesta:\n{NOTE}", copies={"mode": "off"})[0]["faithfulness"] == 0.0
    row, calls = run(NOTE.replace("difftool` en vez", "diff` en vez"))
    assert row["faithfulness"] == 0.0 and calls >= 1 and "copied" not in row["faithfulness_evidence"]


DEBUG = ("Do not set debug to true in production. It prints every secret to the log.\n"
         "If the disk is full, delete the oldest snapshots first.\n"
         "Some forums claim that the cache can be shared between hosts.\n"
         "**Redis**: keeps the sessions in memory.\n**Postgres**: keeps the orders on disk.")


def test_a_copy_that_drops_what_changes_its_meaning_is_no_copy():
    """Issue 77 item 1: runs must start and end where the context's sentences and lines do."""
    for changed in ("Set debug to true in production.", "Delete the oldest snapshots first.",
                    "The cache can be shared between hosts.", "Do not set debug to true.",
                    "Postgres:\nkeeps the sessions in memory.",
                    "Postgres: keeps the orders on disk.\nRedis: keeps the sessions in memory.\nIt prints every secret"):
        assert copied(changed, [DEBUG]) is None, changed
    for kept in ("Do not set debug to true in production.", "If the disk is full, delete the oldest snapshots first.",
                 "Redis:\nkeeps the sessions in memory.", "It prints every secret to the log."):
        assert copied(kept, [DEBUG]) is not None, kept
