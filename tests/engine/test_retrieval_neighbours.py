"""What retrieval brings beside a hit, and what it no longer mistakes for one: the code a
named function uses that the request asks about, where an exception whose message was
pasted is raised, the specific raise rather than the wrapper every error shares; words
joined by hyphens and capitalised prose are not names; a function named by its bare name
is found; a guess in another file that adds nothing the first did not say is left out."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from bench.block_origins import Origins
from swetui.engine.context import ContextEngine
from swetui.engine.retrieval import retrieve
from swetui.engine.symbols.symbol_map import SymbolMap
from tests.engine.helpers import attached, decided

EXCEPTIONS = '''\
class UsageError(Exception):
    pass


class BadParameter(UsageError):
    def format_message(self):
        return f"Invalid value for {self.param_hint}: {self.message}"


class NoSuchOption(UsageError):
    def __init__(self, option_name):
        super().__init__(f"No such option: {option_name}")
'''

PARSER = '''\
from .exceptions import BadParameter, NoSuchOption
from .lines import LineSplitter


class OptionParser:
    def _match_long_opt(self, opt, state):
        if opt not in self._long_opt:
            raise NoSuchOption(opt)
        return self._long_opt[opt]


def convert_choice(value, choices):
    if value not in choices:
        raise BadParameter(f"{value!r} is not one of {choices!r}.")
    return value


def read_records(stream):
    splitter = LineSplitter()
    return [record for chunk in stream for record in splitter.feed(chunk)]


def make_pass_decorator(object_type):
    def decorator(f):
        def new_func(ctx, *args):
            obj = ctx.find_object(object_type)
            return f(obj, *args)
        return new_func
    return decorator
'''

LINES = '''\
class LineSplitter:
    """Splits a stream of text chunks into lines, keeping a partial line between chunks."""

    def feed(self, chunk):
        return chunk.splitlines()


class Context:
    def find_object(self, object_type):
        """The closest object of the given type, walking up the parents."""
        node = self
        while node is not None:
            if isinstance(node.obj, object_type):
                return node.obj
            node = node.parent
'''

OUTPUT = '''\
def echo(message, color=None):
    """Print a message, taking colours out when the output is no terminal."""
    if should_strip_colours(color):
        message = strip(message)
    print(message)


def should_strip_colours(color):
    return color is False


def strip(message):
    return message
'''

MULTIPART = '''\
def boundary_from_content_type(content_type):
    """The multipart boundary parameter of a Content-Type header value."""
    for part in content_type.split(";"):
        if part.strip().startswith("boundary="):
            return part.split("=", 1)[1]
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    for name, text in (("exceptions.py", EXCEPTIONS), ("parser.py", PARSER),
                       ("lines.py", LINES), ("output.py", OUTPUT),
                       ("multipart.py", MULTIPART)):
        (root / "pkg" / name).write_text(text)
    (root / "tests" / "test_content.py").write_text(textwrap.dedent('''\
        def test_content_is_kept():
            class Content:
                pass
            assert Content
        '''))
    return root



def test_a_pasted_error_built_in_an_exception_class_brings_where_it_is_raised(
        project: Path) -> None:
    found = attached(project, "Error: No such option: --verbos")
    assert 'super().__init__(f"No such option: {option_name}")' in found["pkg/exceptions.py"]
    assert "raise NoSuchOption(opt)" in found["pkg/parser.py"]


@pytest.mark.usefixtures(decided.__name__)  # what is found, once attached as code
def test_a_message_asked_about_is_not_taken_for_a_pasted_error(project: Path) -> None:
    found = attached(project, "Where is the 'No such option' message built?")
    assert list(found) == ["pkg/exceptions.py"]


def test_the_specific_raise_wins_over_the_wrapper_every_error_shares(project: Path) -> None:
    found = attached(project, "Error: Invalid value for '--color': 'pink' is not one of "
                              "['red', 'green'].")
    assert list(found) == ["pkg/parser.py"]
    assert "raise BadParameter(f\"{value!r} is not one of" in found["pkg/parser.py"]


def test_a_named_function_brings_what_it_uses_that_the_request_asks_about(
        project: Path) -> None:
    found = attached(project, "How does read_records split the stream into lines?")
    assert "def read_records(stream):" in found["pkg/parser.py"]
    assert "class LineSplitter:" in found["pkg/lines.py"]
    assert "def find_object" not in found["pkg/lines.py"]  # used by nobody shown


def test_what_an_inner_function_uses_counts_for_the_function_shown(project: Path) -> None:
    found = attached(project, "how does make_pass_decorator find the object to pass")
    assert "def make_pass_decorator(object_type):" in found["pkg/parser.py"]
    assert "def find_object(self, object_type):" in found["pkg/lines.py"]


def test_words_joined_by_hyphens_and_capitalised_prose_are_no_names(project: Path) -> None:
    found = attached(project, "where is the multipart boundary read from the "
                              "Content-Type header?")
    assert list(found) == ["pkg/multipart.py"]  # not the test's `class Content`


@pytest.mark.parametrize("text", ["How does echo decide whether to strip colours?",
                                  "What does confirm() print?"])
def test_a_function_called_by_its_bare_name_is_found(project: Path, text: str) -> None:
    (project / "pkg" / "prompts.py").write_text(
        "def confirm(text):\n    print(text + ' [y/N]')\n")
    found = attached(project, text)
    expected = "def echo(" if "echo" in text else "def confirm("
    assert expected in "\n".join(found.values()), found


def test_a_bare_name_after_an_article_is_prose(project: Path) -> None:
    (project / "pkg" / "api.py").write_text(
        "def stream(url):\n    '''Open a URL.'''\n    return url\n")
    found = attached(project, "How does read_records split the stream into lines?")
    assert "pkg/api.py" not in found


def test_a_module_qualified_name_is_the_modules_function_not_a_method(project: Path) -> None:
    (project / "pkg" / "editing.py").write_text(textwrap.dedent('''\
        def edit(text):
            return Editor().edit(text)


        class Editor:
            def edit(self, text):
                return self.run_editor(text)

            def run_editor(self, text):
                """Start the editor named by $EDITOR, else vi."""
                return text

            def unrelated(self):
                return 1
        '''))
    symbols = SymbolMap(project)
    symbols.build()
    result = retrieve(project, "Which editor does pkg.edit start?", ContextEngine(), turn=1,
                      symbols=symbols.index())
    [span] = [item for item in result.items if item.source.path == "pkg/editing.py"]
    header = span.content.splitlines()[0]
    # the note says which `edit` the name was resolved to (the module's), not that the
    # request named it (the request says so)
    assert header.startswith("8 of 14 lines shown (edit; ") and "named" not in header
    # What it uses, and one step further, when the request's words say so.
    assert "def run_editor(self, text):" in span.content


def test_the_hits_retrieval_finds_are_told_apart_by_origin_and_one_can_be_left_out(
        project: Path) -> None:
    """The benchmark's study of where blocks come from reads retrieval's own hits through
    its `keep` (not a copy of how they are found): the named function is tagged `named`,
    what it uses `callee elsewhere`, and leaving the callees out drops their block only."""
    symbols = SymbolMap(project)
    symbols.build()
    index = symbols.index()
    text = "How does read_records split the stream into lines?"
    origins = Origins()
    shipped = retrieve(project, text, ContextEngine(), turn=1, symbols=index, keep=origins)
    tags = {(origin, hit.definition.qualname) for origin, hit in origins.tagged
            if hit.definition is not None}
    assert ("named", "read_records") in tags
    assert ("callee elsewhere", "LineSplitter") in tags
    assert {item.source.path for item in shipped.items} >= {"pkg/parser.py", "pkg/lines.py"}
    origins.dropped = {"callee elsewhere"}
    without = retrieve(project, text, ContextEngine(), turn=1, symbols=index, keep=origins)
    paths = {item.source.path for item in without.items}
    assert "pkg/parser.py" in paths and "pkg/lines.py" not in paths
