"""The symbol map follows the watcher by patching its look-up tables for the changed files
alone. The law: after any sequence of files added, changed and deleted, the patched index
answers every look-up exactly as an index built from scratch would; and a look-up still
holding the older index sees it unchanged."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from swetui.engine.symbols.symbol_map import SymbolIndex, SymbolMap, build_index

NAMES = ["send", "close", "Client", "parse_url", "TIMEOUT", "decode", "_helper"]
FILES = ["a.py", "pkg/b.py", "pkg/c.py", "d.py"]


@st.composite
def modules(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for name in draw(st.lists(st.sampled_from(NAMES), max_size=4)):
        if name.isupper():
            lines.append(f"{name} = 3")
        elif name[0].isupper():
            lines += [f"class {name}:", "    def send(self):",
                      f"        return decode('{name} sent')"]
        else:
            lines += [f"def {name}(x):", "    # follows redirects", f"    return {name}(x)"]
    return "\n".join(lines) + "\n"


STEPS = st.lists(st.tuples(st.sampled_from(FILES), st.one_of(st.none(), modules())),
                 min_size=1, max_size=8)


def view(index: SymbolIndex) -> tuple[object, ...]:
    """Everything a look-up reads, in a comparable form."""
    by_name = {name: sorted((rel, d.qualname, d.start) for rel, d in entries)
               for name, entries in index.by_name.items()}
    return (by_name, sorted(index.by_file), index.document_frequency, index.definitions,
            index.referenced, sorted(index.file_rank))


@settings(max_examples=40, deadline=None)
@given(start=st.lists(st.tuples(st.sampled_from(FILES), modules()), max_size=4), steps=STEPS)
def test_a_patched_index_answers_like_one_built_from_scratch(
        tmp_path_factory: object, start: list[tuple[str, str]],
        steps: list[tuple[str, str | None]]) -> None:
    root = tmp_path_factory.mktemp("ws")  # type: ignore[attr-defined]
    (root / "pkg").mkdir()
    for rel, text in start:
        (root / rel).write_text(text)
    symbols = SymbolMap(root)
    symbols.build()
    before = symbols.index()
    frozen = view(before)
    for step, (rel, text) in enumerate(steps):
        path: Path = root / rel
        if text is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(text + f"# change {step}\n")  # a new size: the stamp changes
        symbols.update([rel])
        patched = symbols.index()
        assert view(patched) == view(build_index(dict(symbols.files)))
    assert view(before) == frozen  # the older index, held by a running look-up, is intact
