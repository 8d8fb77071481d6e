"""Just-in-time retrieval: named files read, terms grepped, listings, no duplicates, and
earlier turns' retrievals retired from the request."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer, Origin, Source
from swetui.engine.retrieval import retire_task_items, retrieve, search_terms
from tests.waiting import WAIT


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "app.py").write_text(
        "from pkg.config import load_config\n\ndef parse_args(argv):\n"
        "    return ConfigLoader(argv)\n")
    (root / "src" / "pkg" / "config.py").write_text("class ConfigLoader:\n    pass\n")
    (root / "README.md").write_text("# Demo\nCall parse_args with the argv.\n")
    (root / "logo.png").write_bytes(b"\x89PNG\x00\x00binary")
    for ignored in (".git", ".venv", "node_modules", ".swetui"):
        (root / ignored).mkdir()
        (root / ignored / "noise.py").write_text("parse_args = 'ignored copy'\n")
    return root


def run(root: Path, text: str, engine: ContextEngine | None = None, turn: int = 1):
    return retrieve(root, text, engine if engine is not None else ContextEngine(), turn=turn)


def test_named_files_are_read_into_the_task_layer(repo):
    result = run(repo, "Please look at src/app.py and README.md")
    files = {item.source.path: item for item in result.items if item.kind is ItemKind.FILE}
    assert set(files) == {"src/app.py", "README.md"}
    app = files["src/app.py"]
    assert app.content == (repo / "src/app.py").read_text()
    assert app.layer is Layer.TASK and app.origin is Origin.AUTO and app.turn_created == 1
    assert app.id.startswith("r")
    assert "src/app.py" in result.summary


def test_a_bare_file_name_is_found_in_the_tree_and_binaries_are_skipped(repo):
    result = run(repo, "what does config.py do? and logo.png")
    paths = [item.source.path for item in result.items if item.kind is ItemKind.FILE]
    assert paths == ["src/pkg/config.py"]
    assert "logo.png: binary file, not read" in result.summary


def test_quoted_terms_and_identifiers_are_grepped_outside_ignored_dirs(repo):
    result = run(repo, 'where is "parse_args" called, and what builds ConfigLoader?')
    grep = next(item for item in result.items if item.kind is ItemKind.GREP)
    assert grep.payload.terms[:2] == ("parse_args", "ConfigLoader")
    assert "src/app.py:3: def parse_args(argv):" in grep.content
    assert "README.md:2: Call parse_args with the argv." in grep.content
    assert "src/pkg/config.py:1: class ConfigLoader:" in grep.content
    assert "noise.py" not in grep.content


def test_grep_keeps_the_top_hits_only(repo):
    (repo / "many.txt").write_text("".join(f"hit_me line {n}\n" for n in range(50)))
    result = retrieve(repo, "find hit_me", ContextEngine(), turn=1, max_hits=10)
    grep = next(item for item in result.items if item.kind is ItemKind.GREP)
    assert grep.content.count("many.txt:") == 10 and grep.payload.hits == 10


def test_a_listing_when_asked(repo):
    result = run(repo, "list files please")
    listing = next(item for item in result.items if item.kind is ItemKind.LISTING)
    assert "src/ (2 files)" in listing.content and "README.md" in listing.content
    assert ".git" not in listing.content
    sub = run(repo, "what's in src/pkg/ ?")
    assert next(i for i in sub.items if i.kind is ItemKind.LISTING).content.startswith("src/pkg")


def test_a_plain_request_retrieves_nothing(repo):
    result = run(repo, "hello, how are you today?")
    assert result.items == [] and result.summary == "nothing to retrieve"


def test_files_already_in_context_are_not_duplicated(repo):
    engine = ContextEngine()
    first = run(repo, "show src/app.py", engine)
    engine.add_many(first.items)
    again = run(repo, "show src/app.py again", engine, turn=2)
    assert not [i for i in again.items if i.kind is ItemKind.FILE]
    assert "already in context" in again.summary
    (repo / "src/app.py").write_text("changed = True\n")
    changed = run(repo, "show src/app.py", engine, turn=3)
    assert [i.content for i in changed.items if i.kind is ItemKind.FILE] == ["changed = True\n"]


def test_earlier_retrievals_leave_the_request_but_stay_in_the_archive(repo):
    engine = ContextEngine()
    engine.add_many(run(repo, "show src/app.py and list files", engine).items)
    pinned = engine.add(run(repo, "README.md", engine).items[0])
    engine.pin(pinned.id)
    task_before = engine.budget().layer(Layer.TASK).tokens
    retired = retire_task_items(engine, 2)
    assert len(retired) == 2
    for item_id in retired:
        item = engine.get(item_id)
        assert item.state is ItemState.COMPACTED and item.content
        assert item.stub.startswith("retrieved for turn 1: ")
    assert engine.get(pinned.id).state is ItemState.INCLUDED
    assert engine.budget().layer(Layer.TASK).tokens == 0 < task_before


def test_retrieval_greps_a_whole_10000_file_workspace(tmp_path):
    # How fast is `python -m bench --only bench_retrieval`'s business; here the scan gets all
    # the time it needs, so a loaded machine cannot cut it short.
    root = tmp_path / "big"
    for d in range(100):
        folder = root / f"pkg{d}"
        folder.mkdir(parents=True)
        for f in range(100):
            (folder / f"mod{f}.py").write_text(f"def func_{d}_{f}():\n    return {f}\n")
    (root / "pkg7" / "mod3.py").write_text("def needle_function():\n    return 1\n")
    result = retrieve(root, 'read pkg7/mod3.py and find "needle_function"', ContextEngine(),
                      turn=1, time_limit=WAIT)
    grep = next(item for item in result.items if item.kind is ItemKind.GREP)
    assert "pkg7/mod3.py:1: def needle_function():" in grep.content
    assert "10,000 files scanned" in grep.content


def test_a_scan_past_its_time_limit_stops_and_says_so(repo):
    result = retrieve(repo, 'where is "parse_args"?', ContextEngine(), turn=1, time_limit=0)
    assert any(note.startswith("grep stopped after 0.0s") for note in result.notes)


def test_apostrophes_are_not_quotes_but_single_quoted_terms_are(repo):
    plain = run(repo, "don't worry, it's fine")
    assert plain.items == []
    quoted = run(repo, "where is 'parse_args' defined?")
    grep = next(item for item in quoted.items if item.kind is ItemKind.GREP)
    assert grep.payload.terms == ("parse_args",)


def test_a_long_named_file_is_cut_and_what_is_sent_says_so(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "big.py").write_text("".join(f"value_{n} = {n}\n" for n in range(3000)))
    item = next(i for i in run(root, "read big.py").items if i.kind is ItemKind.FILE)
    last = item.content.splitlines()[-1]
    assert last == ("[big.py: cut (long file), lines 1-1,000 of 3,000 shown. Read on with "
                    "read_file(path='big.py', offset=1001)]")
    assert item.content.splitlines()[-2] == "value_999 = 999"


def test_data_structure_is_no_request_for_a_listing(repo):
    assert not [i for i in run(repo, "which data structure holds the config?").items
                if i.kind is ItemKind.LISTING]
    assert [i for i in run(repo, "show me the project structure").items
            if i.kind is ItemKind.LISTING]


def test_grep_puts_source_before_tests_before_changelogs(tmp_path):
    root = tmp_path / "ws"
    (root / "tests").mkdir(parents=True)
    (root / "CHANGELOG.md").write_text("* shutdown_gracefully is new\n" * 3)
    (root / "tests" / "test_app.py").write_text("def test_it():\n    shutdown_gracefully()\n")
    (root / "app.py").write_text("def shutdown_gracefully():\n    pass\n")
    grep = next(i for i in run(root, "find shutdown_gracefully").items
                if i.kind is ItemKind.GREP)
    hits = [line.split(":", 1)[0] for line in grep.content.splitlines()[1:]]
    assert hits == ["app.py", "tests/test_app.py", "CHANGELOG.md", "CHANGELOG.md",
                    "CHANGELOG.md"]


def test_a_context_block_has_well_formed_attributes(repo):
    engine = ContextEngine()
    engine.add_many(run(repo, 'where is "parse_args" called?', engine).items)
    engine.add(ContextItem(id="q", kind=ItemKind.FILE, layer=Layer.TASK,
                           title='odd "name".py', content="x = 1",
                           source=Source(path='odd "name".py')))
    message = engine.assemble().request.context  # sent after the newest message
    headers = [line for line in message.splitlines() if line.startswith("<context ")]
    assert len(headers) == 2
    for header in headers:
        assert re.fullmatch(r'<context id="[^"]*" kind="[^"]*" source="[^"]*">', header), header
    assert 'source="odd &quot;name&quot;.py"' in message


def test_words_between_two_short_quoted_terms_are_not_searched() -> None:
    text = 'replace "a" with "b" in src/calc.py'
    assert "with" not in search_terms(text, {"src/calc.py"})
    assert search_terms('replace "a - b" with "a + b" in calc.py', {"calc.py"}) == ["a - b",
                                                                                  "a + b"]


def test_the_summary_counts_hits_in_words(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "one.txt").write_text("only_here\n")
    (repo / "two.txt").write_text("twice_here\ntwice_here\n")
    once = retrieve(repo, "find only_here", ContextEngine(), turn=1)
    assert "→ 1 hit" in once.summary and "1 hits" not in once.summary, once.summary
    twice = retrieve(repo, "find twice_here", ContextEngine(), turn=1)
    assert "→ 2 hits" in twice.summary, twice.summary
