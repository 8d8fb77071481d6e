"""The lines retrieval attaches are the lines the map found, numbered as `read_file` numbers
them: a form feed between two functions (common in older Python and C code) does not shift
what is sent, and a file changed since it was mapped is not sent under a name it no longer
holds."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve
from swetui.engine.symbols.symbol_map import SymbolMap
from swetui.files import line_count, source_lines

FORM_FEED_MODULE = (
    "import os\n"
    "\x0c\n"
    "def alpha():\n"
    "    return 1\n"
    "\n"
    "\x0c\n"
    "def frobnicate_widget_colour():\n"
    '    """Frobnicate the widget\'s colour."""\n'
    "    return 2\n"
)


def _numbered(content: str) -> dict[int, str]:
    found = {}
    for line in content.split("\n"):
        match = re.match(r"\s*(\d+)\t(.*)$", line)
        if match:
            found[int(match.group(1))] = match.group(2)
    return found


def _retrieve(root: Path, request: str, index: object) -> str:
    result = retrieve(root, request, ContextEngine(), turn=1, symbols=index,  # type: ignore[arg-type]
                      semantic=None)
    return "\n".join(item.content for item in result.items)


def test_a_form_feed_does_not_shift_the_lines_sent(tmp_path: Path) -> None:
    (tmp_path / "colours.py").write_text(FORM_FEED_MODULE)
    symbols = SymbolMap(tmp_path)
    symbols.build()
    sent = _numbered(_retrieve(tmp_path, "where is frobnicate_widget_colour?", symbols.index()))
    assert sent.get(7) == "def frobnicate_widget_colour():", sent
    assert sent.get(9) == "    return 2", sent


def test_a_file_changed_since_mapping_is_not_sent_under_an_old_name(tmp_path: Path) -> None:
    """The map says `send_overdue_reminder` is lines 4-5; the user added lines above it and
    asks before the watcher updated the map: those lines now hold other code, which must
    not be sent titled `send_overdue_reminder`."""
    mailer = tmp_path / "mailer.py"
    mailer.write_text("import os\n\n\ndef send_overdue_reminder(invoice):\n    return 1\n")
    symbols = SymbolMap(tmp_path)
    symbols.build()
    index = symbols.index()
    mailer.write_text("import os\n\n\ndef delete_every_customer(db):\n    db.drop_all()\n"
                      "\n\ndef send_overdue_reminder(invoice):\n    return 1\n")
    content = _retrieve(tmp_path, "how is send_overdue_reminder done?", index)
    assert "delete_every_customer" not in content, content


@given(st.lists(st.sampled_from(["a", "", "\x0c", "\x0b", "b\r", "\u2028c", "\x1c"]),
                max_size=12), st.booleans())
def test_source_lines_count_lines_as_the_map_does(parts: list[str], final_newline: bool) -> None:
    """Law: as many lines as line feeds (one more for an unterminated last line), each
    the text between two line feeds without a CRLF's carriage return."""
    text = "\n".join(parts) + ("\n" if final_newline and parts else "")
    data = text.encode()
    expected = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    lines = source_lines(text)
    assert len(lines) == expected == line_count(data)
    assert all("\n" not in line and not line.endswith("\r") for line in lines)
