"""Where a generated answer ends (issue 76 item 5): with the bundled Gemma base model every
answer ran to --max-tokens, so every row was marked cut and left unscored. A base model's
answer ends where the template's own text would begin again; each answer says what ended it."""

from __future__ import annotations

import pytest

from ragmeter.judges.base import JudgeReply, JudgeRequest
from ragmeter.judges.render import first_stop, transcript_stops
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.rag import answer
from ragmeter.rag.prompt import load_answer_prompt
from ragmeter.rag.stops import (
    BLANK_LINE,
    END_OF_TURN,
    LOOP,
    REPEATED_LINE,
    TOKEN_LIMIT,
    answer_end,
    loops,
    template_stops,
)
from tests.rag.test_rag import AxisEmbedder, built


class BaseModel(ScriptedJudge):
    """A scripted generator that continues a transcript, cut where a backend cuts at a stop."""

    def __init__(self, written: str) -> None:
        super().__init__(self._cut)
        self.written = written

    def writes_transcript(self) -> bool:
        return True

    def _cut(self, request: JudgeRequest) -> JudgeReply:
        stop = first_stop(self.written, transcript_stops(request))  # as the llama.cpp judge adds them
        text = self.written[:self.written.find(stop)] if stop else self.written
        return JudgeReply(text, 10, 5, "stop" if stop else "length", stop=stop)


def test_the_templates_own_lines_end_a_base_models_answer():
    assert template_stops(load_answer_prompt(language="spanish")) == \
        ("\nContexto:", "\nPregunta:", "\nDocumento ", "\n---")
    assert template_stops(load_answer_prompt(language="english")) == \
        ("\nContext:", "\nQuestion:", "\nDocument ", "\n---")


@pytest.mark.parametrize("written, response, finish, stop", [
    ("Tres días por semana.\nPregunta: ¿y los martes?\nOutput: presenciales", "Tres días por semana.", "stop",
     "the template's 'Pregunta:'"),
    ("35 euros al mes.\n\nLos martes son presenciales." + " x" * 300, "35 euros al mes.", "stop", BLANK_LINE),
    ("Publicado el 3 de marzo.\n### Example 2\nQuestion", "Publicado el 3 de marzo.", "stop",
     "the transcript's '###'"),
    ("1" + "0" * 300, "1" + "0" * 300, "length", LOOP),
    ("Respuesta:\n" + "".join(f"# {i}.\n" for i in range(1, 40)), "Respuesta:\n# 1.\n# 2.\n# 3.", "stop",
     REPEATED_LINE),
    ("2024-03-03\n" + "Respuesta: 2024-03-03\n" * 20, "2024-03-03\n" + "\n".join(["Respuesta: 2024-03-03"] * 3),
     "stop", REPEATED_LINE),
    ("Los requisitos son:\n\n- contrato indefinido\n- seis meses\n\nPregunta 2", "Los requisitos son:\n\n- contrato "
     "indefinido\n- seis meses", "stop", BLANK_LINE),
    ("La empresa entrega un portátil, una silla ergonómica, un monitor, un teclado, " * 4, None, "length",
     TOKEN_LIMIT),
])
def test_each_answer_says_what_ended_it(tmp_path, written, response, finish, stop):
    built(tmp_path)
    run = answer([{"id": "a", "user_input": "Where do apples grow?"}], index=tmp_path / "index",
                 generator=BaseModel(written), embeddings=AxisEmbedder(), k=1, out=tmp_path / "ans", progress=False,
                 language="spanish")
    row = run.rows[0]
    assert (row["generation_finish_reason"], row["generation_stop"]) == (finish, stop)
    assert row["response"] == (response if response is not None else written.strip())
    assert run.manifest["generation_stops"] == {stop: 1}


def test_a_model_that_ends_its_turn_gets_no_template_stops(tmp_path):
    built(tmp_path)
    judge = ScriptedJudge(lambda request: "In orchards.\n\nApples also grow in gardens.")
    run = answer([{"id": "a", "user_input": "Where do apples grow?"}], index=tmp_path / "index",
                 generator=judge, embeddings=AxisEmbedder(), k=1, out=tmp_path / "ans", progress=False)
    assert judge.requests[0].stop == ()
    assert run.rows[0]["response"] == "In orchards.\n\nApples also grow in gardens."
    assert run.rows[0]["generation_stop"] == END_OF_TURN


def test_a_transcript_request_stops_at_the_transcripts_own_headers():
    free = JudgeRequest([{"role": "user", "content": "q"}], stop=("\n---",))
    assert transcript_stops(free) == ("\n---", "\n### ", "\nOutput:")
    assert transcript_stops(JudgeRequest([{"role": "user", "content": "q"}], {"type": "object"})) == ()
    assert first_stop("a\nOutput: b\n---", ("\n---", "\nOutput:")) == "\nOutput:"


def test_a_loop_is_told_from_a_long_answer():
    assert loops("Respuesta:\n" + "".join(f"# {i}.\n" for i in range(1, 40)))
    assert not loops("La solicitud se presenta a la persona responsable del equipo, que responde en quince días "
                     "hábiles; los martes son presenciales y el horario va de las 10:00 a las 14:00.")


def test_the_answer_end_of_a_server_that_does_not_say_which_stop():
    reply = JudgeReply("Tres días.", finish_reason="stop")
    assert answer_end(reply, transcript=True)[2] == "a stop string (the server did not say which)"
    assert answer_end(reply, transcript=False)[2] == END_OF_TURN


def test_a_document_lead_without_a_word_is_no_stop():
    """A review: a custom prompt writing documents as "- {text}" made every list item a stop."""
    from ragmeter.rag.prompt import AnswerPrompt

    prompt = AnswerPrompt(system="Answer.", user="{context}\nQ: {question}", document="- {text}\n")
    assert template_stops(prompt) == ("\nQ:",)


def test_a_completions_server_is_sent_four_stops_and_the_rest_are_cut_here():
    from ragmeter.judges.openai_compat import OpenAICompatJudge

    judge = OpenAICompatJudge("http://127.0.0.1:9/v1", "m", api="completions")
    request = JudgeRequest([{"role": "user", "content": "q"}], stop=template_stops(load_answer_prompt()))
    assert len(judge._body(request)["stop"]) == 4
    reply = judge._reply({"choices": [{"text": "Three days.\nOutput: more", "finish_reason": "length"}]}, request, 0.0)
    assert (reply.text, reply.finish_reason, reply.stop) == ("Three days.", "stop", "\nOutput:")
