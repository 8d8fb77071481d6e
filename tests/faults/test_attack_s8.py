"""Attacks on the sixth session's new surfaces (learned candidate ranking, the symbol map's
cache rows, the tokenizer check, source_lines and retrieval's line numbers), each test one
finding, written as a hostile workspace or a careless user would trigger it. A finding not
fixed yet is marked xfail(strict=True): the test passes once it is fixed, and then the mark
must go."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import textwrap
from pathlib import Path

import pytest

from swetui.agent.sensitive import is_secret_file
from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve
from swetui.engine.retrieval_spans import find_hits, symbol_spans
from swetui.engine.symbols import cache, compact, lookup
from swetui.engine.symbols.encoder import model_dir
from swetui.engine.symbols.extract import FileSymbols
from swetui.engine.symbols.semantic import ModelLoader
from swetui.engine.symbols.symbol_map import SymbolMap

SECRET = "sk_live_51Hq8ZqLkT2eXampleSecretValue"

LEDGER = textwrap.dedent('''\
    def reconcile_ledger(entries):
        """Reconcile the ledger entries against the bank statement."""
        return sorted(entries)


    def settle_invoice(invoice):
        """Settle an invoice once the ledger is reconciled."""
        return reconcile_ledger([invoice])
    ''')


def _stamp(path: Path) -> tuple[int, int]:
    info = os.stat(path)
    return info.st_size, info.st_mtime_ns


def _ship_row(root: Path, rel: str, change: object) -> Path:
    """A `.swetui/symbols/map.sqlite` as a hostile archive ships it: the row of `rel` carries
    the file's real size and modification time (a tar or zip keeps them) and symbols that
    `change` altered."""
    path = root / ".swetui" / "symbols" / "map.sqlite"
    built = SymbolMap(root)
    built.build()
    symbols, _ = built.files[rel]
    assert callable(change)
    cache.save(path, {rel: (change(symbols), _stamp(root / rel))}, [rel])
    return path


class FixedMeaning:
    """Closeness in meaning as the model gives it (one cosine per candidate), fixed so the
    learned ranking runs without loading the model."""

    def cosines(self, text: str, candidates: list[lookup.Scored]) -> list[float] | None:
        return [0.5 - 0.01 * n for n in range(len(candidates))]


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
                      turn=1, exclude=is_secret_file, semantic=None)
    assert not any(SECRET in item.content for item in result.items), result.summary
    assert any("secret" in note for note in result.notes), result.notes


def test_a_shipped_map_row_with_an_infinite_number_leaves_the_rest_of_the_map(
        tmp_path: Path) -> None:
    """MEDIUM: one row of a shipped map.sqlite whose line number is `Infinity` (JSON) makes
    decoding raise OverflowError, which `cache.entries` does not catch: the whole build
    fails ('the symbol map could not be built'), every session, since the cache is never
    removed; retrieval has no map at all. The row is decoded before its stamp is compared,
    so a git clone (new modification times) is enough."""
    (tmp_path / "ledger.py").write_text(LEDGER)
    (tmp_path / "other.py").write_text("def unrelated_helper():\n    return 1\n")
    path = _ship_row(tmp_path, "other.py", lambda symbols: dataclasses.replace(
        symbols, definitions=[dataclasses.replace(d, start=float("inf"))
                              for d in symbols.definitions]))
    symbols = SymbolMap(tmp_path, cache_path=path)
    symbols.build()
    assert "reconcile_ledger" in symbols.index().by_name, symbols.notes


@pytest.mark.parametrize("count", [-5, 10 ** 400], ids=["negative", "huge"])
def test_a_shipped_map_row_with_a_reference_count_out_of_range_gives_no_traceback(
        tmp_path: Path, count: int) -> None:
    """MEDIUM: a shipped row (matching the file's size and time, as an archive keeps them)
    saying a name is referenced -5 or 10**400 times: the file ranking takes its square root
    (ValueError: math domain error / OverflowError), so every look-up's index raises and
    each request's retrieval dies with a traceback."""
    (tmp_path / "ledger.py").write_text(LEDGER)
    (tmp_path / "caller.py").write_text("from ledger import reconcile_ledger\n\n"
                                        "def run():\n    return reconcile_ledger([])\n")

    def hostile(symbols: FileSymbols) -> FileSymbols:
        return dataclasses.replace(symbols, references={"reconcile_ledger": count})

    path = _ship_row(tmp_path, "caller.py", hostile)
    symbols = SymbolMap(tmp_path, cache_path=path)
    symbols.build()
    result = retrieve(tmp_path, "how are ledger entries reconciled against the bank?",
                      ContextEngine(), turn=1, symbols=symbols.index(), semantic=None)
    assert any("reconcile_ledger" in item.content for item in result.items), result.summary


@pytest.mark.parametrize(("start", "end"), [(3, -100), (-5, 2), (1, 10**400)],
                         ids=["ends-first", "negative", "past-the-file"])
def test_a_shipped_map_row_with_lines_out_of_range_sends_no_false_block(
        tmp_path: Path, start: int, end: int) -> None:
    """MEDIUM: a shipped row whose definitions end before they start (3..-100) made the
    learned ranking's size feature raise (log1p of a negative size: a traceback, fixed
    meanwhile in ade0139); after that fix, it attaches 'ledger.py: 0 of 8 lines shown'
    (an empty block), and a row starting at line -5 sends the file's LAST lines under the
    name `reconcile_ledger` ("2 of 8 lines shown", negative numbers index from the end).
    A row ending at line 10**400 (a 549-byte row) made the size feature's log overflow on
    every described request. A row with numbers no parse gives is damaged: its file is
    parsed again."""
    (tmp_path / "ledger.py").write_text(LEDGER)
    path = _ship_row(tmp_path, "ledger.py", lambda symbols: dataclasses.replace(
        symbols, definitions=[dataclasses.replace(d, start=start, end=end)
                              for d in symbols.definitions]))
    symbols = SymbolMap(tmp_path, cache_path=path)
    symbols.build()
    index, request = symbols.index(), "how are ledger entries reconciled?"
    found = list(symbol_spans(tmp_path, index, request,
                              find_hits(index, request, rerank=FixedMeaning())))
    assert found, "the ledger's definitions are found"
    for span, body in found:
        assert span.lines and min(span.lines) >= 1, body
        assert body.split("\n")[1].strip().startswith("1\tdef reconcile_ledger"), body


def test_a_shipped_map_row_with_a_column_of_another_type_leaves_the_map_on(
        tmp_path: Path) -> None:
    """MEDIUM (review): SQLite stores size = 'x' in an INTEGER column; int('x') raised out of
    the cache's reader, the build said 'the symbol map could not be built' and, the cache
    not being removed, did so at every start. Such a row is not read: its file is parsed."""
    (tmp_path / "ledger.py").write_text(LEDGER)
    path = _ship_row(tmp_path, "ledger.py", lambda symbols: symbols)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE files SET size = 'x'")
    symbols = SymbolMap(tmp_path, cache_path=path)
    symbols.build()
    assert "reconcile_ledger" in symbols.index().by_name


@pytest.mark.parametrize("fifo", ["tokenizer.json", "model.safetensors"])
def test_a_fifo_in_place_of_a_model_file_does_not_keep_the_model_loading_forever(
        tmp_path: Path, fifo: str) -> None:
    """LOW (needs write access to the model's folder): a FIFO named tokenizer.json (or
    model.safetensors) blocks the loader thread in open() forever; the model stays 'still
    loading', so every described request waits LOAD_WAIT (10 s) and then ranks by words,
    for the whole session. A damaged file should say why once, as a changed one does."""
    for name in ("tokenizer.json", "model.safetensors"):
        if name == fifo:
            os.mkfifo(tmp_path / name)
        else:
            os.symlink(model_dir() / name, tmp_path / name)
    loader = ModelLoader(tmp_path)
    assert loader.get(wait=60) is None
    assert loader.error is not None and fifo in loader.error, loader.error


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


UPLOADS = textwrap.dedent('''\
    """Upload handling for the web app."""
    import base64

    PLACEHOLDER_PNG = "{blob}"


    def handle_upload(request):
        """Store an uploaded avatar, or the placeholder when none was sent."""
        data = request.files.get("avatar") or base64.b64decode(PLACEHOLDER_PNG)
        return save_avatar(request.user, data)


    def save_avatar(user, data):
        """Write the avatar to the user's folder."""
        path = user.folder / "avatar.png"
        path.write_bytes(data)
        return path
    ''').replace("{blob}", "iVBORw0KGgo" * 300)


def test_a_module_with_one_long_data_line_stays_in_the_map(tmp_path: Path) -> None:
    """MEDIUM: a hand-written module holding one 3,300-character base64 placeholder image
    (a common way to ship an icon) has more than half its bytes in a line over 1,000
    characters, so generated.by_content calls it minified: its functions leave the map,
    'How is an uploaded avatar stored?' attaches nothing, and `swetui run` prints nothing
    about it (the Repository map item only counts '1 minified file')."""
    (tmp_path / "uploads.py").write_text(UPLOADS)
    symbols = SymbolMap(tmp_path)
    symbols.build()
    assert "save_avatar" in symbols.index().by_name, symbols.skipped


@pytest.mark.parametrize(("rel", "head"), [
    ("billing.py", "# Generated by ChatGPT, then reviewed and edited by hand.\n\n"),
    ("shop/vendor/payouts.py", ""),
], ids=["assistant-header", "vendor-domain-package"])
def test_hand_kept_code_is_not_taken_for_generated_or_vendored(
        tmp_path: Path, rel: str, head: str) -> None:
    """MEDIUM: code written with an assistant often says so in its first comment ('#
    Generated by ChatGPT, then reviewed and edited by hand.'), and a marketplace app's own
    `shop/vendor/` package (the Vendor entity) sits under a folder named `vendor`: both are
    left out of the map as generated / vendored, so a described request about them attaches
    nothing, and nothing names the file left out."""
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(head + textwrap.dedent('''\
        def compute_vendor_commission(sales):
            """The commission the marketplace keeps from a vendor's sales total."""
            return sales * 0.1
        '''))
    symbols = SymbolMap(tmp_path)
    symbols.build()
    assert "compute_vendor_commission" in symbols.index().by_name, symbols.skipped


def test_a_shipped_map_row_far_larger_than_its_file_is_not_read(tmp_path: Path) -> None:
    """MEDIUM: a shipped map.sqlite (sizes and times matching, as an archive keeps them)
    whose row for a 3-line file holds 300,000 docstring stems (6.6 MB, under the 8 MB row
    limit): 20 such rows kept 1.2 GB resident for the session, at every start (15.8 s of
    CPU). No file's symbols take more than a few bytes of row per byte of source, so such a
    row is not read: the file is parsed again."""
    (tmp_path / "ledger.py").write_text(LEDGER)
    planted = compact.StemSet(sorted(f"planted{n:06d}" for n in range(20_000)))
    path = _ship_row(tmp_path, "ledger.py", lambda symbols: dataclasses.replace(
        symbols, definitions=[dataclasses.replace(d, doc=planted)
                              for d in symbols.definitions]))
    symbols = SymbolMap(tmp_path, cache_path=path)
    symbols.build()
    found = symbols.index().by_name["reconcile_ledger"][0][1]
    assert "planted000001" not in found.doc and len(found.doc) < 100
