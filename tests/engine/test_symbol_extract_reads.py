"""What the symbol map reads from one file, found in one query pass over the syntax tree:
references are the names the code uses (not a definition's own name, not words inside a
literal), a comment above a definition describes it, a call on a literal is still a call,
and a method defined outside its class (C++) still references the class. Word stems are
remembered per word and agree with the words module's own functions."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from swetui.engine.symbols.extract import extract
from swetui.engine.symbols.stem_memo import identifier_stems, text_stems
from swetui.engine.symbols.words import prose_stems, stems_of_identifier

MODULE = '''\
# Keeps the ledger balanced.
def settle(entries):
    label = f"total {compute_total(entries)} for {owner}"
    return b"".join(render(entry) for entry in entries)


class Ledger:
    """The accounts."""

    def close(self):
        def audit():
            raise OverdrawnError("account is overdrawn")
        return audit
'''


def test_references_definitions_and_their_words() -> None:
    symbols = extract("ledger.py", MODULE.encode(), "python")
    by_name = {d.qualname: d for d in symbols.definitions}
    assert list(by_name) == ["settle", "Ledger", "Ledger.close", "Ledger.close.audit"]
    settle = by_name["settle"]
    assert "balanc" in settle.doc and "ledger" in settle.doc  # the comment above it
    assert {"join", "render"} <= settle.refs  # b"".join(…) is a call on a literal
    assert "settle" not in symbols.references  # a definition's own name is no use of it
    assert "compute_total" not in symbols.references  # inside a literal's {…}: not read
    assert symbols.references["entries"] == 2  # the parameter, the loop; not the f-string
    assert by_name["Ledger.close"].kind == "method"
    assert by_name["Ledger.close.audit"].refs == {"OverdrawnError"}
    assert "overdrawn" in by_name["Ledger.close.audit"].doc
    assert "overdrawn" not in by_name["Ledger.close"].doc  # the inner function's words
    assert [line for line, _parts in symbols.literals] == [3, 8, 12]  # b"" says nothing
    assert symbols.literals[0][1] == ("total ", " for ")


def test_a_method_defined_outside_its_class_references_the_class() -> None:
    source = b"class Pool { int size(); };\nint Pool::size() { return count; }\n"
    symbols = extract("pool.cpp", source, "cpp")
    assert "Pool" in [d.name for d in symbols.definitions]
    assert symbols.references.get("Pool") == 1 and symbols.references.get("count") == 1


WORDS = st.text(alphabet=st.sampled_from("abcXYZ_ 09.-é'\"{}"), max_size=60)


@given(WORDS)
def test_remembered_stems_are_the_words_modules_stems(text: str) -> None:
    assert text_stems(text) == set(prose_stems(text))
    assert text_stems(text) == set(prose_stems(text))  # and again, remembered
    assert set(identifier_stems(text)) == stems_of_identifier(text)
