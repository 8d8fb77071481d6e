"""How described behaviour is ranked: words meet on real stems (`wrapped` and `wrap`,
`serialised` and `serialize`); BM25F over a definition's name, docstring and body puts the
definition named after the request's rarest words first; a long body does not win by its
length; a constant ranks below the function doing the work; only definitions scoring a
healthy share of the best are attached; a message copied into a test is not where it is
raised; a dotted name's qualifier is not a second request."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve
from swetui.engine.symbols import ranking
from swetui.engine.symbols.extract import Definition
from swetui.engine.symbols.name_lookup import named
from swetui.engine.symbols.symbol_map import SymbolMap
from swetui.engine.symbols.words import prose_stems, stem, stems_of_identifier
from tests.engine.helpers import attached

FORMATTING = '''\
FORCED_WIDTH = None
"""The width help text is wrapped to, when forced."""


def wrap_text(text, width=78):
    """Wrap a paragraph of help text to the given width."""
    return textwrap.fill(text, width)


def render_everything(ctx, formatter, text, width, columns, rows, options, usage, epilog):
    """Render usage, options, epilog, columns, rows, the text and everything else."""
    formatter.write_usage(ctx, usage)
    formatter.write_columns(columns, rows, options, width)
    formatter.write_epilog(epilog, text)
    formatter.write_many(ctx, formatter, text, width, columns, rows, options, usage)
    formatter.write_more(ctx, formatter, text, width, columns, rows, options, usage)
    return formatter.getvalue()


def parse_color(name):
    """Turn a colour name into its ANSI code."""
    return COLORS[name]
'''

SERIALIZE = '''\
def serialize_body(data):
    """Dump data as JSON with compact separators."""
    return json.dumps(data, separators=(",", ":"))


def load_body(text):
    return json.loads(text)
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "formatting.py").write_text(FORMATTING)
    (root / "pkg" / "content.py").write_text(SERIALIZE)
    (root / "pkg" / "errors.py").write_text(textwrap.dedent('''\
        def check_mode(handle):
            if "b" not in handle.mode:
                raise TypeError("Uploads must be opened in binary mode, not text mode.")
        '''))
    (root / "tests" / "test_errors.py").write_text(textwrap.dedent('''\
        def test_text_mode_is_refused():
            with pytest.raises(TypeError,
                               match="Uploads must be opened in binary mode, not text mode."):
                check_mode(open("x"))
        '''))
    return root



@pytest.mark.parametrize(("written", "coded"), [
    ("wrapped", "wrap"), ("redirected", "redirects"), ("serialised", "serialize"),
    ("decompression", "decompress"), ("initialising", "initialize"), ("cookies", "cookie"),
])
def test_words_meet_the_code_on_their_stems(written: str, coded: str) -> None:
    assert stem(written) == stem(coded)


@given(st.from_regex(r"[a-z]{1,12}(_[a-z]{1,8}){0,3}", fullmatch=True))
def test_an_identifiers_stems_are_those_of_its_words(identifier: str) -> None:
    """Law: every word of a snake_case identifier (of 2+ letters, not a stop word) is
    found, stemmed, among the identifier's stems: a request saying the word meets it."""
    stems = stems_of_identifier(identifier)
    for word in identifier.split("_"):
        assert all(found in stems for found in prose_stems(word))


def definition(name: str, doc: str = "", body: str = "") -> Definition:
    return Definition(name=name, qualname=name, kind="function", start=1, end=2,
                      doc=set(prose_stems(doc)) | set(stems_of_identifier(name)),
                      body=set(prose_stems(body)))


def test_bm25f_puts_the_name_above_the_docstring_above_the_body() -> None:
    named_after = ranking.fields(definition("wrap_text"))
    documented = ranking.fields(definition("fill", doc="wrap the text"))
    mentioning = ranking.fields(definition("fill", body="wrap text"))
    stats = ranking.collection([named_after, documented, mentioning], {"wrap": 3, "text": 3})
    stems = ["wrap", "text"]
    scores = [ranking.score(found, stems, stats)[0]
              for found in (named_after, documented, mentioning)]
    assert scores[0] > scores[1] > scores[2] > 0


def test_a_rare_word_outweighs_a_common_one() -> None:
    rare = ranking.fields(definition("columns"))
    common = ranking.fields(definition("options"))
    stats = ranking.collection([rare, common] + [ranking.fields(definition(f"f{n}"))
                                                 for n in range(20)],
                               {"column": 1, "option": 15})
    assert ranking.score(rare, ["column", "option"], stats)[0] > \
        ranking.score(common, ["column", "option"], stats)[0]


def test_a_long_docstring_does_not_win_by_its_length() -> None:
    short = ranking.fields(definition("a", doc="wrap help text"))
    long = ranking.fields(definition("b", doc="wrap help text " + " ".join(
        f"word{n}" for n in range(60))))
    stats = ranking.collection([short, long], {"wrap": 2, "help": 2, "text": 2})
    stems = ["wrap", "help", "text"]
    assert ranking.score(short, stems, stats)[0] > ranking.score(long, stems, stats)[0]


def test_described_behaviour_attaches_the_function_doing_it_not_the_constant(
        project: Path) -> None:
    found = attached(project, "How is help text wrapped to the width?")
    assert list(found) == ["pkg/formatting.py"]
    assert "def wrap_text(" in found["pkg/formatting.py"]
    assert "def render_everything(" not in found["pkg/formatting.py"]  # long, says it all
    assert "def parse_color(" not in found["pkg/formatting.py"]


def test_british_spelling_finds_the_american_code(project: Path) -> None:
    found = attached(project, "How is the body serialised, and with which separators?")
    assert "def serialize_body(" in found.get("pkg/content.py", ""), found
    assert "def load_body(" not in found.get("pkg/content.py", "")


def test_only_what_scores_near_the_best_is_attached(project: Path) -> None:
    found = attached(project, "How does a colour name become an ANSI code?")
    assert list(found) == ["pkg/formatting.py"]
    assert "def parse_color(" in found["pkg/formatting.py"]
    assert "def wrap_text(" not in found["pkg/formatting.py"]


def test_a_message_copied_into_a_test_is_not_where_it_is_raised(project: Path) -> None:
    (project / "tests" / "test_old.py").write_text(
        'def test_old_wording():\n    assert str(err) == "The upload stream was closed before '
        'its end."\n')
    pasted = "ValueError: The upload stream was closed before its end."
    assert "tests/test_old.py" not in attached(project, pasted)
    found = attached(project, "TypeError: Uploads must be opened in binary mode, not text mode.")
    assert list(found) == ["pkg/errors.py"]
    asked = attached(project, "Which test checks 'The upload stream was closed before its end'?")
    assert "tests/test_old.py" in asked


def test_a_dotted_names_qualifier_is_not_a_second_name() -> None:
    assert named("How does URL.copy_with change a URL?") == [["URL", "copy_with"]]
    assert named("URL and URL.join") == [["URL", "join"]]


def test_a_pasted_error_naming_its_exception_class_brings_where_it_is_raised(
        project: Path) -> None:
    (project / "pkg" / "exceptions.py").write_text(textwrap.dedent('''\
        class StreamConsumed(Exception):
            def __init__(self):
                super().__init__(
                    "Attempted to read or stream some content, but the content has "
                    "already been streamed."
                )
        '''))
    (project / "pkg" / "models.py").write_text(textwrap.dedent('''\
        class Response:
            def iter_raw(self):
                if self.is_stream_consumed:
                    raise StreamConsumed()
                yield from self.stream

            def close(self):
                self.stream.close()
        '''))
    found = attached(project, "pkg.StreamConsumed: Attempted to read or stream some content, "
                              "but the content has already been streamed.")
    assert "class StreamConsumed(Exception):" in found["pkg/exceptions.py"]
    assert "raise StreamConsumed()" in found["pkg/models.py"]
    assert "def close(self):" not in found["pkg/models.py"]


URLS = '''\
class URL:
    """A parsed URL."""

    def join(self, other):
        return URL(other)


class Response:
    @property
    def is_redirect(self):
        """True for 3xx status codes."""
        return codes.is_redirect(self.status_code)


class URLPattern:
    """A pattern that mount keys are matched against."""

    def matches(self, other):
        """Whether a URL matches this mount pattern."""
        return self.scheme == other.scheme
'''


def test_a_capitalised_word_after_an_article_is_prose_not_a_name(project: Path) -> None:
    (project / "pkg" / "urls.py").write_text(URLS)
    found = attached(project, "How are mount patterns matched against a URL?")
    assert "def matches(self, other):" in found["pkg/urls.py"]
    assert "def join(self, other):" not in found["pkg/urls.py"]
    assert "def join(self, other):" in attached(project, "what does URL.join do")["pkg/urls.py"]


def test_an_instance_named_after_its_class_resolves_to_the_classs_member(
        project: Path) -> None:
    (project / "pkg" / "urls.py").write_text(URLS)
    symbols = SymbolMap(project)
    symbols.build()
    result = retrieve(project, "Which status codes make response.is_redirect true?",
                      ContextEngine(), turn=1, symbols=symbols.index())
    [span] = [item for item in result.items if item.source.path == "pkg/urls.py"]
    # the note says what `response.is_redirect` was resolved to, not that it was named
    assert "lines shown (Response.is_redirect); " in span.content.splitlines()[0]
    assert "def is_redirect(self):" in span.content and "class URLPattern" not in span.content



@pytest.mark.parametrize(("written", "coded"), [("built", "build"), ("kept", "keep"),
                                                ("sent", "send"), ("chosen", "choose")])
def test_irregular_past_forms_meet_their_verb(written: str, coded: str) -> None:
    assert stem(written) == stem(coded)


def test_auth_stands_for_authorization_as_well_as_authentication() -> None:
    assert set(prose_stems("Authorization")) <= stems_of_identifier("_build_auth_header")
    assert set(prose_stems("authentication")) <= stems_of_identifier("_build_auth_header")
