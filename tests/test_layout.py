"""The package layout: no import cycles, and every import (also those inside functions) goes
down the floors of docs/architecture.md, never up. Also the size rules the layout keeps:
at most 12 top-level modules and no module over 350 lines."""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src" / "ragmeter"


def _unit(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for path in SRC.rglob("*.py"):
        module = "ragmeter." + ".".join(path.relative_to(SRC).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ragmeter."):
                targets = [node.module]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith("ragmeter.")]
            else:
                continue
            for target in targets:
                if _unit(module) != _unit(target):
                    graph[_unit(module)].add(_unit(target))
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in list(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles_between_packages():
    graph = import_graph()
    assert "ragmeter.judges" in graph and "ragmeter.prompts" in graph  # the walk sees the packages
    assert cycles(graph) == []


def module_graph() -> dict[str, set[str]]:
    """Every import between ragmeter's modules (also those inside functions); `from pkg import
    sub` is an edge to the module `sub`, not to the package."""
    paths = {"ragmeter." + ".".join(p.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__"): p
             for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in paths.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ragmeter"):
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in paths else node.module
                           for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name in paths]
            else:
                continue
            graph[module].update(t for t in targets if t in paths and t != module)
    return graph


def test_no_import_cycles_between_modules():
    """Inside a package too: judges/spec.py and the backends imported each other (a cycle a
    function-level import hid), and so did judge_check's check.py and records.py (issue 39)."""
    graph = module_graph()
    assert "ragmeter.judges.registry" in graph["ragmeter.judges.spec"]  # the walk sees modules
    assert cycles(graph) == []


def test_the_cycle_finder_finds_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


#: ragmeter's floors, lowest first: a module may import its own floor and those below it.
FLOORS = (
    ("errors", "samples", "text", "stats", "cache", "accounting", "faults", "endpoints", "shard"),  # the ground
    ("reading",),  # what a text says, read without a model, in the languages of one table
    ("citations",), ("io",), ("judges", "embeddings"), ("prompts",), ("metrics",),  # the judge and its data
    ("results",),  # finished runs: reading a run folder never needs the engine or the run's machinery
    ("labels",),  # people's labels on a finished run's rows, and what they say about its means
    ("report",), ("engine",), ("run",), ("api",),
    ("meta_eval",), ("testset",), ("judge_check", "rag", "pytest_plugin", "testing", "explain", "traces"),  # built on the public API
    ("cli",),
)


def floor_of(unit: str) -> int:
    name = unit.removeprefix("ragmeter.")
    return next(i for i, names in enumerate(FLOORS) if name in names)


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} -> {b}" for a, targets in graph.items() for b in targets if floor_of(b) > floor_of(a))


def test_every_package_and_module_has_a_floor_and_imports_only_downward():
    graph = import_graph()
    units = {"ragmeter." + p.name.removesuffix(".py") for p in SRC.iterdir()
             if (p.suffix == ".py" and p.name != "__init__.py") or (p / "__init__.py").exists()}
    assert [u for u in sorted(units) if not any(u.removeprefix("ragmeter.") in f for f in FLOORS)] == []
    assert upward_imports(graph) == []


def test_an_upward_import_is_found():
    assert upward_imports({"ragmeter.results": {"ragmeter.engine"}, "ragmeter.cli": {"ragmeter.api"}}) == [
        "ragmeter.results -> ragmeter.engine"]


def test_at_most_twelve_top_level_modules_and_none_over_350_lines():
    top = sorted(p.name for p in SRC.glob("*.py"))
    assert len(top) <= 12, top
    long = {str(p.relative_to(SRC)): n for p in SRC.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 350}
    assert long == {}


def test_package_init_files_hold_no_logic():
    """A newcomer finds each function in the module its name suggests, not in __init__.py."""
    logic = {str(p.relative_to(SRC)) for p in SRC.rglob("__init__.py")
             if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                    for n in ast.parse(p.read_text(encoding="utf-8")).body)}
    assert logic == {"__init__.py"}  # ragmeter's own: the lazy public API (__getattr__, __dir__)


def run_configuration_modules() -> list[str]:
    """The modules a run's configuration passes through: those whose code (not a docstring)
    names RunConfig, the prepared run that carries it, or its `cfg` (package __init__
    re-exports aside)."""
    marks = {"RunConfig", "Prepared"}
    found = []
    for p in SRC.rglob("*.py"):
        if p.name == "__init__.py":
            continue
        tree = ast.parse(p.read_text(encoding="utf-8"))
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        attrs = {(n.value.id, n.attr) for n in ast.walk(tree)
                 if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
        if names & marks or ("ready", "cfg") in attrs:
            found.append(str(p.relative_to(SRC)))
    return sorted(found)


def test_the_run_configuration_enters_at_most_eight_modules():
    """It entered 15 modules, climbing back up 14 times, before the packages (issue 21); 10
    before the run got its own room (issue 39)."""
    modules = run_configuration_modules()
    assert {"api.py", "run/config.py", "run/prepare.py", "run/execute.py", "cli/evaluate.py"} <= set(modules)
    assert len(modules) <= 8, modules
    assert not [m for m in modules if m.startswith(("engine/", "judges/", "metrics/", "results/"))]  # typed parts


def test_the_tests_are_laid_out_like_the_package():
    """tests/<folder>/ holds the tests of src/ragmeter/<folder>/; top-level modules' tests sit in tests/."""
    tests = SRC.parents[1] / "tests"
    folders = {p.name for p in tests.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    packages = {p.name for p in SRC.iterdir() if (p / "__init__.py").exists()}
    assert "judges" in folders and folders <= packages, folders - packages


def test_every_folder_of_modules_is_a_package_a_wheel_includes():
    """setuptools' find_packages skips a folder without __init__.py: an editable install
    works, a wheel installed from PyPI would lack the folder (results/ did)."""
    from setuptools import find_packages

    found = set(find_packages(str(SRC.parent)))
    folders = {"ragmeter." + ".".join(p.parent.relative_to(SRC).parts) if p.parent != SRC else "ragmeter"
               for p in SRC.rglob("*.py")}
    assert folders - found == set()


def any_in_signatures(packages: tuple[str, ...] = ("judges", "metrics", "run", "io")) -> int:
    """`Any` written in the parameter and return annotations of these packages' functions."""
    total = 0
    for package in packages:
        for path in (SRC / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                args = node.args
                annotations = [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
                annotations += [a.annotation for a in (args.vararg, args.kwarg) if a is not None]
                annotations.append(node.returns)
                total += sum(isinstance(n, ast.Name) and n.id == "Any"
                             for a in annotations if a is not None for n in ast.walk(a))
    return total


def test_any_in_signatures_is_at_most_half_of_what_it_was():
    """343 when issue 39 was filed; JSON records became `dict[str, object]` (checked at each
    use) and prompt inputs `Mapping[str, object]`. What is left: JSON schemas walked by the
    decoders, OTLP/HTTP replies, pydantic validators' inputs. 169 before metrics named their options
    type (issue 59); 167 until a parameter only passed on or narrowed by isinstance became
    `object` where mypy proves nothing reads it as Any (issue 74 item 4). The bound only goes down."""
    assert any_in_signatures() <= 135


def test_the_any_counter_counts_parameters_returns_and_star_args(tmp_path, monkeypatch):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "m.py").write_text("from typing import Any\n"
                                  "def f(a: Any, *b: Any, c: dict[str, Any], **d: int) -> list[Any]: ...\n"
                                  "x: Any = 1\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path)
    assert any_in_signatures(("pkg",)) == 4


def test_the_architecture_map_names_every_module_as_its_docstring_says():
    """docs/architecture.md's module map is generated from the tree (issue 52 item 10)."""
    from tests import architecture_map

    doc = architecture_map.DOC.read_text(encoding="utf-8")
    start, end = doc.index(architecture_map.START), doc.index(architecture_map.END) + len(architecture_map.END)
    assert doc[start:end] == architecture_map.markdown(), "regenerate: python -m tests.architecture_map"


def row_path(tmp_path: Path, stream: bool) -> tuple[list[str], set[str]]:
    """Calls run/prepare.py makes into io/, and the files a row's reading passes through
    (every ragmeter frame below an io/ frame), found with a profiler over `prepare`."""
    import json
    import os

    from ragmeter.run.config import RunConfig
    from ragmeter.run.prepare import prepare

    tmp_path.mkdir()
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i}", "user_input": "q?", "response": "a", "reference": "a"}) + "\n"
                            for i in range(3)))
    cfg = RunConfig(dataset=str(data), metrics=["exact_match"], output=str(tmp_path / "out"))
    entries: list[str] = []
    files: set[str] = set()

    def rel(frame: Any) -> str | None:
        name = frame.f_code.co_filename
        return os.path.relpath(name, SRC) if name.startswith(str(SRC)) else None

    def profile(frame: Any, event: str, _arg: Any) -> None:
        callee = rel(frame) if event == "call" else None
        if callee is None:
            return
        caller = rel(frame.f_back) if frame.f_back else None
        if callee.startswith("io/") and caller == "run/prepare.py":
            entries.append(f"{callee}:{frame.f_code.co_name}")
        below = frame
        while below is not None and not (rel(below) or "").startswith("io/"):
            below = below.f_back
        if below is not None and not callee.startswith(("io/output.py", "text.py")):  # the run's folder
            files.add(callee)

    sys.setprofile(profile)
    try:
        prepare(cfg, stream=stream)
    finally:
        sys.setprofile(None)
    return entries, files


def test_a_row_comes_in_by_one_door_and_passes_through_at_most_eight_files(tmp_path):
    """Issue 52: a row followed from run/prepare.py entered io/readers.py 11 times, data_file()
    ran twice and format_of 4 times per file. Now prepare calls `load_dataset` once (beside the
    output folder's `expand` and `run_fingerprint` and the dataset's own attributes)."""
    for stream in (False, True):
        entries, files = row_path(tmp_path / str(stream), stream)
        # the first rows' text read once more for the run's language (issue 76: prompts/run_language.py)
        data = [e for e in entries if not e.startswith("io/output.py") and not e.endswith((":__len__", ":sha256"))
                and not e.endswith(":iter_rows")]
        assert data == ["io/datasets.py:load_dataset"], entries
        assert len(files) <= 8 and "io/data_file.py" in files, sorted(files)


def regex_uses(packages: tuple[str, ...] = ("metrics", "testset")) -> list[str]:
    """Where these packages' modules import `re` or call it: what a text says is read in
    reading/, by functions named for what they read (issue 74), never by a pattern at the
    point of use."""
    found = set()
    for package in packages:
        for path in (SRC / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                imported = (isinstance(node, ast.Import) and any(a.name.split(".")[0] == "re" for a in node.names)) \
                    or (isinstance(node, ast.ImportFrom) and node.module == "re")
                used = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "re"
                if imported or used:
                    found.add(f"{path.relative_to(SRC)}:{node.lineno}")
    return sorted(found)


def test_metrics_and_the_test_set_hold_no_regular_expression():
    assert regex_uses() == []


def test_a_regular_expression_in_the_test_set_is_found(tmp_path, monkeypatch):
    (tmp_path / "testset").mkdir()
    (tmp_path / "testset" / "m.py").write_text("import re\n\nX = re.compile('a')\n")
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "n.py").write_text("from re import sub\n\nY = 'a'.split()\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path)
    assert regex_uses() == ["metrics/n.py:1", "testset/m.py:1", "testset/m.py:3"]


#: a pattern that is a run of word characters and nothing else: a word tokenizer
WORD_RUN = frozenset({r"\w+", r"\b\w+\b", r"[\w]+", r"\w+\b", r"\b\w+", r"[^\W_]+", r"\w*"})
#: a run of a character class that holds \w ("[\wáéíóúñü]+", "[\w'-]+"): a word tokenizer too
WORD_CLASS_RUN = re.compile(r"^(?:\\b)?\[[^\]]*\\w[^\]]*\][+*](?:\\b)?$")
#: the one word tokenizer (issue 59): every other reader calls it
WORDS_MODULE = "reading/words.py"


def word_tokenizers() -> list[str]:
    """Calls of re.findall, finditer, compile or split with a bare word-run pattern outside
    reading/words.py: a second tokenizer that may count words otherwise than the first."""
    found = []
    for path in SRC.rglob("*.py"):
        if str(path.relative_to(SRC)) == WORDS_MODULE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("findall", "finditer", "compile", "split") \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args \
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str) \
                    and (node.args[0].value in WORD_RUN or WORD_CLASS_RUN.match(node.args[0].value)):
                found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    return sorted(found)


def test_one_word_tokenizer():
    assert word_tokenizers() == []


def test_a_second_word_tokenizer_is_found(tmp_path, monkeypatch):
    (tmp_path / "rag").mkdir()
    (tmp_path / "rag" / "p.py").write_text("import re\n\nW = re.compile(r'\\w+')\nV = re.findall(r'\\b\\w+\\b', 'a b')\n"
                                           "N = re.compile(r'\\d+')\nM = re.finditer(r'[\\wáé]+', 'a b')\n")
    (tmp_path / "reading").mkdir()
    (tmp_path / "reading" / "words.py").write_text("import re\n\nW = re.compile(r'\\w+')\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path)
    assert word_tokenizers() == ["rag/p.py:3", "rag/p.py:4", "rag/p.py:6"]


#: the module that names the languages; every other reader is told which one it reads
LANGUAGES_MODULE = "reading/languages.py"


def readers_not_told_the_language() -> list[str]:
    """Readers in reading/ that could read one language's words without being told which: a
    `language` parameter with a default (a caller who forgets it reads English), or a language's
    entry named in the code (ENGLISH, SPANISH) outside reading/languages.py (issue 74 item 4)."""
    found = []
    for path in sorted((SRC / "reading").glob("*.py")):
        if str(path.relative_to(SRC)) == LANGUAGES_MODULE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name) and node.id.isupper() and node.id in ENTRY_NAMES:
                found.append(f"{path.relative_to(SRC)}:{node.lineno} names {node.id}")
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                positional = [*args.posonlyargs, *args.args]
                defaults = dict(zip([a.arg for a in positional][len(positional) - len(args.defaults):], args.defaults))
                defaults |= {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
                if "language" in defaults:
                    found.append(f"{path.relative_to(SRC)}:{node.lineno} {node.name}(language=...)")
    return found


#: the entries reading/languages.py defines, by their constant names
ENTRY_NAMES = ("ENGLISH", "SPANISH")


def test_every_reader_is_told_the_language():
    assert readers_not_told_the_language() == []


def test_a_reader_that_defaults_or_names_a_language_is_found(tmp_path, monkeypatch):
    (tmp_path / "reading").mkdir()
    (tmp_path / "reading" / "r.py").write_text(
        "from ragmeter.reading.languages import ENGLISH\n\n\ndef a(text, language='english'):\n    return text\n\n\n"
        "def b(text, *, language: str = 'spanish'):\n    return ENGLISH\n\n\ndef c(text, language):\n    return text\n")
    (tmp_path / "reading" / "languages.py").write_text("ENGLISH = 1\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path)
    assert readers_not_told_the_language() == [
        "reading/r.py:4 a(language=...)", "reading/r.py:8 b(language=...)", "reading/r.py:9 names ENGLISH"]
