"""Attacks on what retrieval reads and how it shows it: a named file that is a link to the
`.env` file must not be attached, and a grep hit in a file with a lone carriage return is
numbered as `read_file` numbers it. Each test is one finding, written as a hostile workspace
or a careless user would trigger it.
A finding not fixed yet is marked xfail(strict=True): the test passes once it is fixed, and
then the mark must go."""

from __future__ import annotations

import os
from pathlib import Path

from swetui.agent.sandbox import secret_files
from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve

SECRET = "sk_live_51Hq8ZqLkT2eXampleSecretValue"

def test_a_named_file_linked_to_the_env_file_is_not_attached(tmp_path: Path) -> None:
    """HIGH: a cloned repository ships `settings.py -> .env`; the user creates `.env` with
    their keys. "read settings.py" makes retrieval attach the .env's contents to the request
    (sent to the model, written to the session log), though `read_file` refuses the same
    path ('.env may hold secrets'): retrieval checks the name asked for, not the file it
    reads."""
    (tmp_path / ".env").write_text(f'STRIPE_SECRET_KEY = "{SECRET}"\n')
    os.symlink(".env", tmp_path / "settings.py")
    (tmp_path / "app.py").write_text("def charge(amount):\n    return amount\n")
    result = retrieve(tmp_path, "read settings.py and tell me what it holds", ContextEngine(),
                      turn=1, exclude=secret_files(tmp_path), semantic=None)
    assert not any(SECRET in item.content for item in result.items), result.summary
    assert any("secret" in note for note in result.notes), result.notes


def test_retrievals_grep_numbers_lines_as_read_file_does(tmp_path: Path) -> None:
    """LOW: retrieval's grep splits a file's bytes with `bytes.splitlines`, which also
    splits at a lone carriage return (old Mac line ends, a CR inside a string): the hit is
    numbered one further than `read_file` and the map number it, so the model reads the
    wrong line when it follows the hit."""
    (tmp_path / "notes.txt").write_bytes(b"first\rstill the first line\nsecond\n"
                                         b"third mentions wibblefrotz here\n")
    result = retrieve(tmp_path, 'Where is "wibblefrotz" mentioned?', ContextEngine(),
                      turn=1, semantic=None)
    shown = "\n".join(item.content for item in result.items)
    assert "notes.txt:3: third mentions wibblefrotz" in shown, shown
