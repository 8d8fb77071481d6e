"""A request that names a long source file and describes behaviour asks about that file's
code: the description is looked for among the file's definitions first, and the file is sent
as the parts asked about, not whole (a 1,000-line file whole is thousands of tokens where
one function is needed)."""

from __future__ import annotations

from pathlib import Path

from swetui.engine.context import ContextEngine
from swetui.engine.items import ItemKind
from swetui.engine.retrieval import WHOLE_NAMED_LINES, retrieve
from swetui.engine.symbols.semantic import MODEL
from swetui.engine.symbols.symbol_map import SymbolMap

LENGTH = '''\
def remaining_length(stream):
    """How many bytes are left to read in a file object, from its current position."""
    total = stream.seek(0, 2)
    return total - stream.tell()
'''
FILLER = '''\


def helper_{n}(value):
    """Format value number {n} for display in a table."""
    return str(value).rjust({n})
'''
ELSEWHERE = '''\
class BodyLengthWarning(Warning):
    """The body of a request is sent with a length computed from the position left to read
    in the file, the bytes left after the current position."""
'''
REQUEST = ("pkg/utils.py: I read the first line of a file and then post the open file as "
           "the body. Is the length only the bytes left after the current position?")


def _workspace(root: Path) -> Path:
    (root / "pkg").mkdir()
    utils = LENGTH + "".join(FILLER.format(n=n) for n in range(40))
    (root / "pkg" / "utils.py").write_text(utils)
    (root / "pkg" / "warnings.py").write_text(ELSEWHERE)
    assert utils.count("\n") > WHOLE_NAMED_LINES
    return root


def test_a_named_long_file_is_searched_first_and_sent_as_its_parts(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    symbols = SymbolMap(root)
    symbols.build()
    found = retrieve(root, REQUEST, ContextEngine(), turn=1, symbols=symbols.index(),
                     semantic=MODEL)
    assert not any(item.kind is ItemKind.FILE for item in found.items), found.summary
    shown = "\n".join(item.content for item in found.items)
    assert "def remaining_length(stream):" in shown  # the answer, from the named file
    assert "class BodyLengthWarning" not in shown  # not the other file's wordier class
    assert "helper_39" not in shown  # and not the whole file
    assert any("pkg/utils.py: the parts the request asks about" in note
               for note in found.notes), found.notes
