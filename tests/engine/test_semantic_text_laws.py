"""What the encoder reads of a definition never fails on the file's current lines: a file
cut short or changed since it was mapped (before the watcher updates the map) gives the
definition's name in words, not an IndexError that ended a described request."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.semantic_text import definition_text, words_of


@given(start=st.integers(1, 60), length=st.integers(0, 30),
       lines=st.lists(st.sampled_from(["# a comment", "def f():", '    """Doc."""', "", "x"]),
                      max_size=40))
def test_the_text_of_a_definition_starts_with_its_name_whatever_the_lines(
        start: int, length: int, lines: list[str]) -> None:
    definition = Definition(name="send_reminder", qualname="Mailer.send_reminder",
                            kind="method", start=start, end=start + length)
    text = definition_text(definition, lines)
    assert text.startswith(f"{words_of('Mailer')} . {words_of('send_reminder')}:")
