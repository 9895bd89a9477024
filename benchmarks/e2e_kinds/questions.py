"""The questions asked of the baseline RAG (issue 61), written by hand as a new user would ask
them, before any answer was generated or scored; `split` was fixed here, by a hash of the id,
before any score was seen (dev for tuning, held for the held-out figures)."""

from __future__ import annotations

import hashlib
import json
import sys

QUESTIONS = {
    ("en", "api_reference"): [
        "How do I create an in-memory database with sqlite-utils?",
        "What does passing recreate=True to Database() do?",
        "How can I turn off recursive triggers when opening a sqlite-utils Database?",
        "What exception does table.get() raise when the record does not exist?",
        "How do I pass named parameters to db.query() in sqlite-utils?",
        "Do I need to call commit() after db.table(...).insert() in sqlite-utils?",
        "How do I group several writes into a single transaction in sqlite-utils?",
        "What is the default batch size of insert_all() in sqlite-utils?",
        "How can I make insert() ignore a row whose primary key already exists?",
        "What does the db.schema property return?",
        "How do I count the rows that match a where clause with sqlite-utils?",
        "How do I return only some columns with rows_where()?",
        "Which configuration options can be set through db.table(...) in sqlite-utils?",
        "How do I enable SQLite STRICT mode for all tables created by a sqlite-utils Database?",
        "How does sqlite-utils decide the column types when insert_all() creates a table?",
        "How do I add a full-text search index to a table with sqlite-utils?",
    ],
    ("en", "specification"): [
        "When should the MAJOR version be incremented under Semantic Versioning?",
        "How is a pre-release version denoted in Semantic Versioning?",
        "Does build metadata affect version precedence in SemVer?",
        "What does version 0.y.z mean in Semantic Versioning?",
        "Is 'v1.2.3' a semantic version?",
        "What should I do if I accidentally release a backwards incompatible change as a minor version?",
        "Can a pre-release identifier contain leading zeroes in SemVer?",
        "What commit type should be used for a bug fix in Conventional Commits?",
        "How do you indicate a breaking change in a Conventional Commits message?",
        "Which Semantic Versioning change does a feat commit correspond to in Conventional Commits?",
        "Is the scope of a Conventional Commit required, and how is it written?",
        "Are Conventional Commits types case sensitive?",
        "What should I do if a commit conforms to more than one of the commit types?",
        "How does Conventional Commits recommend handling revert commits?",
    ],
    ("en", "faq"): [
        "What is a changelog according to Keep a Changelog?",
        "Which types of changes does Keep a Changelog list?",
        "Why should I keep an Unreleased section at the top of the changelog?",
        "What date format does Keep a Changelog recommend?",
        "Why are commit log diffs a bad changelog?",
        "How should yanked releases appear in a changelog?",
        "What should I name my changelog file?",
        "Should I rewrite a changelog?",
        "Is there a tool that parses changelogs automatically?",
    ],
    ("es", "specification"): [
        "¿Cuándo se incrementa la versión MAYOR en el Versionado Semántico?",
        "¿Cómo se indica una versión de prelanzamiento en el Versionado Semántico?",
        "¿La metadata de compilación influye en la precedencia de versiones?",
        "¿Qué significa la versión 0.y.z en el Versionado Semántico?",
        "¿Es 'v1.2.3' una versión semántica?",
        "¿Qué hago si publico por error un cambio incompatible como versión menor?",
        "¿Cómo se ordenan por precedencia 1.0.0-alpha y 1.0.0?",
        "¿Qué tipo de commit se usa para corregir un error en Commits Convencionales?",
        "¿Cómo se indica un cambio que rompe la compatibilidad en un mensaje de Commits Convencionales?",
        "¿Con qué cambio del Versionado Semántico se corresponde un commit feat?",
        "¿Es obligatorio el ámbito de un commit y cómo se escribe?",
        "¿Los tipos de Commits Convencionales distinguen entre mayúsculas y minúsculas?",
        "¿Qué hago si un commit corresponde a más de un tipo?",
    ],
    ("es", "faq"): [
        "¿Qué es un changelog según Mantenga un Changelog?",
        "¿Qué tipos de cambios propone Mantenga un Changelog?",
        "¿Para qué sirve la sección Unreleased?",
        "¿Qué formato de fecha recomienda Mantenga un Changelog?",
        "¿Por qué no conviene usar los diffs del log de commits como changelog?",
        "¿Cómo se deben mostrar las versiones retiradas en el changelog?",
        "¿Cómo debería llamarse el archivo del changelog?",
        "¿Qué opina el documento de los releases de Github?",
        "¿Existe alguna herramienta que analice los changelogs?",
    ],
    ("es", "tutorial"): [
        "¿Qué comando muestra el estado de los archivos en Git?",
        "¿Cómo empiezo a rastrear un archivo nuevo con Git?",
        "¿Qué muestra git status -s?",
        "¿Cómo ignoro los archivos con extensión .a en Git?",
        "¿Qué diferencia hay entre git diff y git diff --staged?",
        "¿Cómo hago un commit saltándome el área de preparación?",
        "¿Cómo elimino un archivo del área de preparación pero lo mantengo en el disco?",
        "¿Cómo cambio el nombre de un archivo con Git?",
        "¿Cómo creo una etiqueta anotada en Git?",
        "¿Qué diferencia hay entre una etiqueta ligera y una anotada?",
        "¿Cómo envío todas las etiquetas al servidor remoto?",
        "¿Cómo etiqueto un commit antiguo?",
        "¿Cómo creo una rama y cambio a ella en un solo comando?",
        "¿Qué es una fusión de avance rápido (fast-forward)?",
        "¿Cómo resuelvo un conflicto de fusión en Git?",
        "¿Cómo borro una rama que ya no necesito?",
    ],
}


def rows() -> list[dict[str, str]]:
    """One row per question, with its id, language, kind and fixed split."""
    out = []
    for (language, kind), questions in QUESTIONS.items():
        for n, question in enumerate(questions, 1):
            qid = f"{language}-{kind}-{n:02d}"
            held = int(hashlib.sha1(qid.encode()).hexdigest(), 16) % 2 == 1
            out.append({"id": qid, "language": "english" if language == "en" else "spanish", "kind": kind,
                        "split": "held" if held else "dev", "user_input": question})
    return out


if __name__ == "__main__":
    for language, code in (("english", "en"), ("spanish", "es")):
        with open(f"{sys.argv[1]}/questions_{code}.jsonl", "w", encoding="utf-8") as handle:
            for row in rows():
                if row["language"] == language:
                    handle.write(json.dumps(row, ensure_ascii=False) + "\n")
