"""A value the request quotes ('https://', 'utf-8') is not an error message: it does not
bring the code that happens to hold that literal in place of the code the request names; a
quoted one-word message ('Aborted!') still finds where it is said."""

from __future__ import annotations

import textwrap
from pathlib import Path

from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve
from swetui.engine.symbols.symbol_map import SymbolMap

SESSIONS = textwrap.dedent('''\
    class Session:
        def __init__(self):
            self.adapters = {}
            self.mount("https://", object())
            self.mount("http://", object())

        def mount(self, prefix, adapter):
            """Register an adapter; longer prefixes are tried first."""
            self.adapters[prefix] = adapter
            for key in [k for k in self.adapters if len(k) < len(prefix)]:
                self.adapters[key] = self.adapters.pop(key)
    ''')

CLI = textwrap.dedent('''\
    def main(run, echo):
        try:
            run()
        except KeyboardInterrupt:
            echo("Aborted!")


    def shutdown(echo):
        echo("bye")
    ''')


def _sent(root: Path, request: str) -> str:
    symbols = SymbolMap(root)
    symbols.build()
    result = retrieve(root, request, ContextEngine(), turn=1, symbols=symbols.index(),
                      semantic=None)
    return "\n".join(item.content for item in result.items)


def test_a_quoted_value_does_not_replace_the_method_the_request_names(tmp_path: Path) -> None:
    (tmp_path / "sessions.py").write_text(SESSIONS)
    sent = _sent(tmp_path, "I mounted one adapter on 'https://' and another on "
                           "'https://api.example.com'; how does Session.mount make sure the "
                           "longer prefix wins?")
    assert "def mount(self, prefix, adapter):" in sent, sent


def test_a_quoted_one_word_message_still_finds_where_it_is_said(tmp_path: Path) -> None:
    (tmp_path / "cli.py").write_text(CLI)
    sent = _sent(tmp_path, "Where is 'Aborted!' printed when I press ctrl-c?")
    assert 'echo("Aborted!")' in sent and "main: raises the quoted message" in sent, sent
