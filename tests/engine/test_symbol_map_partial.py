"""A look-up made while the symbol map builds searches the files already read (and says how
many of how many), source first; once the build ends it searches them all. The build reads
the files already in context first, then source before tests before documentation."""

from __future__ import annotations

import threading
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from swetui.engine.symbols import cache, symbol_map
from swetui.engine.symbols.build_order import DOCS, SOURCE, TESTS, build_order, group_of
from swetui.engine.symbols.symbol_map import SymbolMap
from tests.waiting import WAIT

FILES = {
    "src/billing.py": "def charge_card(amount):\n    return amount\n",
    "src/ledger.py": "def settle_balance(entries):\n    return sum(entries)\n",
    "tests/test_billing.py": "def test_charge_card():\n    assert True\n",
    "docs/conf.py": "PROJECT_NAME = 'demo'\n",
}


def workspace(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


class HeldBuild:
    """A build on its own thread, held when it comes to `at` (the exclusion check each
    file goes through as it is read) until `release()`."""

    def __init__(self, symbols: SymbolMap, at: str) -> None:
        self.symbols, self.at = symbols, at
        self.reached, self.go = threading.Event(), threading.Event()
        self.order: list[str] = []
        symbols.exclude = self._check
        self.thread = threading.Thread(target=symbols.build)

    def _check(self, rel: str) -> bool:
        self.order.append(rel)
        if rel == self.at:
            self.reached.set()
            self.go.wait(WAIT)
        return False

    def __enter__(self) -> HeldBuild:
        self.thread.start()
        assert self.reached.wait(WAIT), "the build never reached the held file"
        return self

    def release(self) -> None:
        self.go.set()
        self.thread.join(WAIT)

    def __exit__(self, *_exc: object) -> None:
        self.release()


def test_a_look_up_during_the_build_finds_the_source_already_read_and_says_so(tmp_path):
    symbols = SymbolMap(workspace(tmp_path), publish_every=1)
    with HeldBuild(symbols, at="tests/test_billing.py") as build:
        partial = symbols.index()
        assert partial.partial == (2, 4)
        assert {"charge_card", "settle_balance"} <= partial.by_name.keys()
        assert "test_charge_card" not in partial.by_name
        assert not symbols.ready.is_set()
        build.release()
    assert symbols.ready.is_set()
    full = symbols.index()
    assert full.partial is None and symbols.progress is None
    assert {"charge_card", "settle_balance", "test_charge_card", "PROJECT_NAME"} <= \
        full.by_name.keys()


def test_the_build_reads_files_in_context_first_then_source_tests_and_docs(tmp_path):
    order: list[str] = []
    symbols = SymbolMap(workspace(tmp_path), exclude=lambda rel: order.append(rel) is not None)
    symbols.build(first={"docs/conf.py"})
    assert order[0] == "docs/conf.py"
    assert set(order[1:3]) == {"src/billing.py", "src/ledger.py"}
    assert order[3:] == ["tests/test_billing.py"]
    assert "PROJECT_NAME" in symbols.index().by_name


def test_a_restart_from_the_cache_is_searchable_before_it_ends(tmp_path):
    root = workspace(tmp_path / "ws")
    cache = tmp_path / "cache" / "map.sqlite"
    SymbolMap(root, cache_path=cache).build()
    (root / "src" / "zz_new.py").write_text("def reopen_account():\n    pass\n")
    symbols = SymbolMap(root, cache_path=cache, publish_every=1)
    with HeldBuild(symbols, at="src/zz_new.py"):  # the cached files come first
        partial = symbols.index()
        assert partial.partial == (4, 5)
        assert "charge_card" in partial.by_name and "reopen_account" not in partial.by_name
    assert "reopen_account" in symbols.index().by_name and symbols.index().partial is None


PATHS = st.lists(st.from_regex(r"(src|tests|docs|lib/test|app)/[a-z_]{1,6}\.py", fullmatch=True),
                 unique=True, max_size=12)


@settings(max_examples=60, deadline=None)
@given(PATHS, st.data())
def test_the_build_order_is_every_file_once_in_context_then_by_group(tmp_path_factory, rels,
                                                                    data):
    root = tmp_path_factory.mktemp("order")
    first = set(data.draw(st.lists(st.sampled_from(rels), unique=True) if rels else st.just([])))
    order = build_order(root, rels, first)
    assert sorted(order) == sorted(rels)
    groups = [-1 if rel in first else group_of(rel) for rel in order]
    assert groups == sorted(groups)


def test_groups_say_source_tests_and_documentation():
    assert group_of("httpx/_client.py") == SOURCE
    assert group_of("tests/client/test_auth.py") == TESTS
    assert group_of("src/app_test.go") == TESTS
    assert group_of("docs/conf.py") == DOCS
    assert group_of("vendor/lib/x.js") == DOCS


def test_a_build_writes_what_it_parsed_to_the_cache_before_it_ends(tmp_path, monkeypatch):
    monkeypatch.setattr(symbol_map, "SAVE_EVERY", 1)
    root = workspace(tmp_path / "ws")
    stored = tmp_path / "cache" / "map.sqlite"
    symbols = SymbolMap(root, cache_path=stored)
    with HeldBuild(symbols, at="tests/test_billing.py"):  # a session closed here keeps…
        assert cache.load(stored).keys() == {"src/billing.py", "src/ledger.py"}
    assert cache.load(stored).keys() == set(FILES)
    restarted = SymbolMap(root, cache_path=stored)
    restarted.build()
    assert restarted.index().by_name.keys() == symbols.index().by_name.keys()
