"""A hit's neighbours in the call graph: the function a described hit calls, or the one
calling it, comes with it when it matches the request nearly as well (the two explain the
behaviour together) and sits in a file a hit is shown from (elsewhere it would cost a block
of its own); a named function brings what it calls, not who calls it; a function
nested in another one is nobody else's callee. And the laws of the call graph and of the
relevance every definition is weighed by."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swetui.engine.symbols.extract import extract
from swetui.engine.symbols.lookup import Relevance
from swetui.engine.symbols.neighbours import linked
from swetui.engine.symbols.symbol_map import SymbolIndex, build_index
from tests.engine.helpers import attached, decided

DECIDED = pytest.mark.usefixtures(decided.__name__)
"""What comes with a described hit once it is attached as code (`helpers.decided`)."""

STATUS = '''\
class codes:
    @classmethod
    def get_reason_phrase(cls, value):
        """The reason phrase of a status code, empty for an unknown one."""
        return PHRASES.get(value, "")


PHRASES = {200: "OK", 404: "Not Found"}
'''

RESPONSE = '''\
from .status import codes


class Response:
    def __init__(self, status_code):
        self.status_code = status_code

    @property
    def reason_phrase(self):
        """The reason phrase of the status code."""
        return codes.get_reason_phrase(self.status_code)
'''


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


@DECIDED
def test_a_described_hit_brings_the_function_it_calls_in_its_own_file(
        tmp_path: Path) -> None:
    root = write(tmp_path, {"pkg/models.py": RESPONSE.replace(
        "from .status import codes\n", STATUS)})
    found = attached(root, "What reason phrase is given for status code 418?")
    assert "def reason_phrase(self):" in found["pkg/models.py"]
    assert "def get_reason_phrase(cls, value):" in found["pkg/models.py"]


PROGRESS = {
    "pkg/progress.py": '''\
        class ProgressBar:
            def format_bar(self):
                """Draw the bar: the filled part with fill_char, the rest with empty_char."""
                filled = int(self.pct * self.width)
                return self.fill_char * filled + self.empty_char * (self.width - filled)

            def render_progress(self):
                """Write the bar."""
                print(self.format_bar())
        ''',
    "pkg/termui.py": '''\
        from .progress import ProgressBar


        def progressbar(iterable, width=36, fill_char="#", empty_char="-"):
            """Create a progress bar that is drawn while iterating: the filled part of the
            bar with fill_char, the empty part with empty_char, width characters wide."""
            bar = ProgressBar(iterable, width, fill_char, empty_char)
            bar.format_bar()
            return bar
        '''}


@DECIDED
def test_a_described_hit_does_not_bring_a_neighbour_in_a_file_of_its_own(
        tmp_path: Path) -> None:
    """The answer is the method drawing the bar; its caller in another file says the same
    words (it makes the bar) but a block of its own for it was measured needed once in 8."""
    root = write(tmp_path, PROGRESS)
    found = attached(root, "How does the progress bar draw the filled part of the bar?")
    assert "def format_bar(self):" in found["pkg/progress.py"]
    assert list(found) == ["pkg/progress.py"], found


def test_a_named_hit_still_brings_what_it_calls_from_another_file(tmp_path: Path) -> None:
    """The request asks how the named one works: what it calls is the rest of the answer."""
    root = write(tmp_path, {"pkg/status.py": STATUS, "pkg/models.py": RESPONSE})
    found = attached(root, "Which reason phrase does Response.reason_phrase give for 418?")
    assert "def reason_phrase(self):" in found["pkg/models.py"]
    assert "def get_reason_phrase(cls, value):" in found["pkg/status.py"]


@DECIDED
def test_a_function_saying_the_same_words_but_not_called_stays_out(tmp_path: Path) -> None:
    unlinked = RESPONSE.replace("return codes.get_reason_phrase(self.status_code)",
                                "return PHRASE_TABLE[self.status_code]")
    root = write(tmp_path, {"pkg/status.py": STATUS, "pkg/models.py": unlinked})
    found = attached(root, "What reason phrase is given for status code 418?")
    assert len(found) == 1, found  # one guess, not two files saying the same words


@DECIDED
def test_a_described_hit_brings_its_caller_in_its_own_file(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "pkg/models.py": '''\
            import zlib


            def gzip_decompress(data):
                """Decompress a gzip body."""
                return zlib.decompress(data, zlib.MAX_WBITS | 16)


            class Response:
                def decoded_body(self):
                    """The body, decompressed when its content encoding says gzip."""
                    if self.headers.get("content-encoding") == "gzip":
                        return gzip_decompress(self.body)
                    return self.body
            ''',
        "pkg/other.py": '''\
            def gzip_level():
                """The gzip compression level."""
                return 9
            '''})
    found = attached(root, "How is a gzip body decompressed?")
    assert "def gzip_decompress(data):" in found["pkg/models.py"]
    assert "def decoded_body(self):" in found["pkg/models.py"]
    assert "pkg/other.py" not in found


def test_a_named_function_does_not_bring_its_callers(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "pkg/urls.py": '''\
            class URL:
                def join(self, url):
                    """Join a URL to this one."""
                    return URL(self.raw + url)
            ''',
        "pkg/client.py": '''\
            class Client:
                def redirect_url(self, response):
                    """Join the relative URL a redirect points to to the request's URL."""
                    return response.request.url.join(response.headers["location"])
            '''})
    found = attached(root, "What does URL.join do with a relative URL?")
    assert list(found) == ["pkg/urls.py"]


def test_a_function_nested_in_another_is_no_callee_of_an_outside_caller(
        tmp_path: Path) -> None:
    root = write(tmp_path, {
        "pkg/output.py": '''\
            from .compat import should_strip_ansi


            def echo(message, color=None):
                """Print a message, taking ANSI colours out when asked to."""
                if should_strip_ansi(color):
                    message = message.strip()
                print(message)
            ''',
        "pkg/compat.py": '''\
            def should_strip_ansi(color):
                """Whether ANSI colour codes are taken out of the output."""
                return color is False
            ''',
        "pkg/testing.py": '''\
            def isolation():
                def should_strip_ansi(color=None):
                    """Decide whether echo strips ANSI colours: always."""
                    return True
                return should_strip_ansi
            '''})
    found = attached(root, "How does `echo` decide whether to strip ANSI colours?")
    assert "def echo(message, color=None):" in found["pkg/output.py"]
    assert "pkg/testing.py" not in found


# -- laws -------------------------------------------------------------------------------

NAMES = [f"step_{n}" for n in range(6)]
WORDS = ["parse", "option", "value", "stream", "read", "close", "header", "step"]


def _index(calls: list[set[int]], files: int) -> SymbolIndex:
    """Top-level functions `step_n` spread over `files` files, each calling the ones of
    `calls[n]`, with a docstring of words."""
    sources: dict[str, list[str]] = {}
    for n, called in enumerate(calls):
        body = "".join(f"    {NAMES[m]}(x)\n" for m in sorted(called)) or "    return x\n"
        doc = " ".join(WORDS[(n + k) % len(WORDS)] for k in range(3))
        sources.setdefault(f"pkg/m{n % files}.py", []).append(
            f'def {NAMES[n]}(x):\n    """{doc}"""\n{body}')
    return build_index({rel: (extract(rel, "\n\n".join(parts).encode(), "python"), (0, 0))
                        for rel, parts in sources.items()})


def _where(index: SymbolIndex, name: str) -> tuple[str, object]:
    return index.by_name[name][0]


graphs = st.integers(min_value=2, max_value=len(NAMES)).flatmap(
    lambda size: st.tuples(
        st.lists(st.sets(st.integers(0, size - 1), max_size=size), min_size=size,
                 max_size=size),
        st.integers(min_value=1, max_value=3)))


@settings(deadline=None, derandomize=True, database=None, max_examples=60,
          suppress_health_check=[HealthCheck.too_slow])
@given(graphs)
def test_linked_is_the_call_graph_both_ways(graph: tuple[list[set[int]], int]) -> None:
    calls, files = graph
    calls = [called - {n} for n, called in enumerate(calls)]
    index = _index(calls, files)
    for a in range(len(calls)):
        rel, definition = index.by_name[NAMES[a]][0]
        both = {d.name for _rel, d in linked(index, rel, definition)}
        callees = {d.name for _rel, d in linked(index, rel, definition, callers=False)}
        assert callees == {NAMES[b] for b in calls[a]}
        assert both == {NAMES[b] for b in range(len(calls))
                        if b != a and (b in calls[a] or a in calls[b])}


@settings(deadline=None, derandomize=True, database=None, max_examples=60)
@given(graphs, st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))
def test_ranked_lists_every_definition_saying_a_word_best_first(
        graph: tuple[list[set[int]], int], words: list[str]) -> None:
    index = _index(*graph)
    scores = Relevance(index, " ".join(words))
    ranked = scores.ranked()
    assert [score for score, _rel, _d in ranked] == \
        sorted((score for score, _rel, _d in ranked), reverse=True)
    listed = {(rel, d.qualname) for _score, rel, d in ranked}
    for rel, symbols in index.by_file.items():
        for definition in symbols.definitions:
            assert ((rel, definition.qualname) in listed) == \
                (scores.of(rel, definition) > 0)
