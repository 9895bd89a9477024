"""Rebuild docs/ from the upstream repositories (issue 61): provenance, not a runtime step.

Each document is the upstream file at the commit named in README.md; two are converted to
plain text (HAML markup dropped) or cut at a section boundary, nothing is reworded.
Run with the bare git directories of the upstream repositories under MIRROR.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

MIRROR = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror")
OUT = Path(__file__).parent / "docs"

# (language, kind, file name, repository, path, lines kept or None)
SOURCES = [
    ("en", "api_reference", "sqlite-utils-python-api.rst", "simonw+sqlite-utils", "docs/python-api.rst", (1, 1194)),
    ("en", "specification", "semver-2.0.0.md", "semver+semver.org", "spec/v2.0.0.md", None),
    ("en", "specification", "conventional-commits-1.0.0.md", "conventional-commits+conventionalcommits.org",
     "content/v1.0.0/index.md", None),
    ("en", "faq", "keep-a-changelog-1.1.0.txt", "olivierlacan+keep-a-changelog",
     "source/en/1.1.0/index.html.haml", None),
    ("es", "specification", "semver-2.0.0.es.md", "semver+semver.org", "lang/es/index.md", None),
    ("es", "specification", "conventional-commits-1.0.0.es.md", "conventional-commits+conventionalcommits.org",
     "content/v1.0.0/index.es.md", None),
    ("es", "faq", "keep-a-changelog-1.1.0.es.txt", "olivierlacan+keep-a-changelog",
     "source/es-ES/1.1.0/index.html.haml", None),
    ("es", "tutorial", "progit-guardar-cambios.txt", "progit+progit2-es",
     "book/02-git-basics/sections/recording-changes.asc", None),
    ("es", "tutorial", "progit-etiquetado.txt", "progit+progit2-es", "book/02-git-basics/sections/tagging.asc", None),
    ("es", "tutorial", "progit-ramas.txt", "progit+progit2-es",
     "book/03-git-branching/sections/basic-branching-and-merging.asc", None),
]


def upstream(repo: str, path: str) -> str:
    """The file's text at the mirror's HEAD."""
    git_dir = MIRROR / repo / "repo"
    return subprocess.run(["git", "--git-dir", str(git_dir), "show", f"HEAD:{path}"],
                          capture_output=True, text=True, check=True).stdout


def haml_to_text(haml: str) -> str:
    """Keep a Changelog's HAML page as text: headings, paragraphs and list items, links as words."""
    out: list[str] = []
    body = haml.split("---", 2)[2]
    for line in body.splitlines():
        text = line.strip()
        if not text or text.startswith(("%a.anchor", "%pre", "- ", "=", ".", "%div", "%section")):
            if text.startswith("= link_to \""):
                out.append(re.sub(r'= link_to "([^"]*)".*', r"\1", text))
            continue
        text = re.sub(r'#\{link_to "([^"]*)"[^}]*\}', r"\1", text)
        text = re.sub(r"<[^>]+>", "", text)
        heading = re.match(r"%h([34])(?:#[\w-]*)?\s*(.*)", text)
        if heading:
            out.append("\n" + "#" * int(heading.group(1)) + " " + heading.group(2))
            continue
        code = re.match(r"%code\s+(.*)", text)
        if code:
            out.append(code.group(1) + " ")
            continue
        if text in ("%p", "%ul", "%ol"):
            out.append("\n")
            continue
        if text == "%li":
            out.append("\n- ")
            continue
        if text.startswith("%"):
            continue
        out.append(text + " ")
    joined = "".join(out)
    joined = re.sub(r"(#+ )\s*\n?\s*", r"\1", joined)
    return re.sub(r"\n{3,}", "\n\n", joined).strip() + "\n"


def main() -> None:
    for language, _kind, name, repo, path, lines in SOURCES:
        text = upstream(repo, path)
        if path.endswith(".haml"):
            text = haml_to_text(text)
        if lines:
            text = "\n".join(text.splitlines()[lines[0] - 1:lines[1]]) + "\n"
        target = OUT / language / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(f"{target}: {len(text):,} characters")


if __name__ == "__main__":
    main()
