"""One rule says what a path is (source, tests, documentation, vendored, generated), and the
three places that act on it agree: the symbol map leaves vendored and generated code out,
a cold build parses source first and documentation last, retrieval ranks source above tests
above the rest. Before, each kept its own lists: an app's own `shop/vendor/` package was
mapped but built last as documentation, a vendored `third_party/` copy and a top-level
`conftest.py` ranked as source, `specs/` and `samples/` were tests and documentation to the
build only."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swetui.engine.symbols import generated
from swetui.engine.symbols.build_order import DOCS, SOURCE, TESTS, group_of
from swetui.engine.symbols.file_roles import FileRole, role_of
from swetui.engine.symbols.lookup import Relevance, candidates, file_weight
from swetui.engine.symbols.symbol_map import SymbolMap


@pytest.mark.parametrize(("rel", "role"), [
    ("httpx/_client.py", FileRole.SOURCE),
    ("shop/vendor/models.py", FileRole.SOURCE),
    ("tests/client/test_auth.py", FileRole.TESTS),
    ("src/app_test.go", FileRole.TESTS),
    ("web/button.spec.ts", FileRole.TESTS),
    ("specs/parser.rb", FileRole.TESTS),
    ("conftest.py", FileRole.TESTS),
    ("docs/conf.py", FileRole.DOCS),
    ("samples/demo.py", FileRole.DOCS),
    ("bench/bench_engine.py", FileRole.DOCS),
    ("vendor/github.com/x/y.go", FileRole.VENDORED),
    ("lib/third_party/leftpad/tests/test_pad.py", FileRole.VENDORED),
    ("pip/_vendor/rich/text.py", FileRole.VENDORED),
    ("api/order_pb2.py", FileRole.GENERATED),
    ("ui/__generated__/schema.ts", FileRole.GENERATED),
])
def test_each_role_by_its_path(rel: str, role: FileRole) -> None:
    assert role_of(rel) is role


def test_the_former_disagreements_are_settled() -> None:
    # an app's own package named vendor: mapped, built with the source, ranked as source
    assert generated.by_path("shop/vendor/models.py") is None
    assert group_of("shop/vendor/models.py") == SOURCE
    assert file_weight("shop/vendor/models.py") == 1.0
    # a vendored copy is left out of the map, built last and ranked below source (grep)
    assert generated.by_path("third_party/leftpad/pad.py") == generated.VENDORED
    assert group_of("third_party/leftpad/pad.py") == DOCS
    assert file_weight("third_party/leftpad/pad.py") < 1.0
    # a top-level conftest.py and a specs/ folder are tests to the build and to ranking
    for rel in ("conftest.py", "specs/helpers.py"):
        assert group_of(rel) == TESTS
        assert file_weight(rel) == file_weight("tests/test_x.py")
    assert group_of("samples/demo.py") == DOCS
    assert file_weight("samples/demo.py") == file_weight("docs/conf.py")


_FOLDERS = ["pkg", "src", "shop", "vendor", "vendored", "_vendor", "third_party", "tests",
            "spec", "specs", "testing", "docs", "examples", "samples", "bench", "generated",
            "__generated__", "Tests", "Vendor"]
_NAMES = ["app.py", "test_app.py", "app_test.go", "app.spec.ts", "conftest.py",
          "order_pb2.py", "schema.g.dart", "bundle.min.js", "README.md", "vendor.py"]


@given(st.lists(st.sampled_from(_FOLDERS), max_size=4), st.sampled_from(_NAMES))
def test_the_map_the_build_order_and_the_ranking_agree_on_every_path(
        folders: list[str], name: str) -> None:
    """Law: for any path, what the map leaves out as vendored or generated is what the rule
    calls so; the build parses first exactly what ranking counts as source, and tests second
    exactly what it weighs as tests."""
    rel = "/".join([*folders, name])
    role = role_of(rel)
    left_out = generated.by_path(rel)
    assert (left_out in (generated.VENDORED, generated.GENERATED)) == \
        (role in (FileRole.VENDORED, FileRole.GENERATED))
    assert (group_of(rel) == SOURCE) == (file_weight(rel) == 1.0) == (role is FileRole.SOURCE)
    assert (group_of(rel) == TESTS) == (file_weight(rel) == file_weight("tests/t.py")) == \
        (role is FileRole.TESTS)


def test_a_fixture_in_a_top_level_conftest_yields_to_the_source(tmp_path: Path) -> None:
    """What retrieval chooses among for a described request: the source's definition, not
    the same words in the test suite's top-level `conftest.py` (ranked as source before)."""
    body = ('def make_temporary_database(path):\n'
            '    """Create an empty temporary database file for a run."""\n'
            '    return open(path, "w")\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "storage.py").write_text(body, encoding="utf-8")
    (tmp_path / "conftest.py").write_text(body, encoding="utf-8")
    built = SymbolMap(tmp_path)
    built.build()
    index = built.index()
    text = "Where is the temporary database file created?"
    assert [rel for _s, rel, _d in candidates(Relevance(index, text), text)] == \
        ["pkg/storage.py"]
