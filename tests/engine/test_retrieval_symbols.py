"""Retrieval from the symbol map: names in the request resolve to their definitions, pasted
errors to the code raising them, described behaviour to the code doing it (source before
tests); what is sent is a span that says which lines of how many it shows."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, ItemState, Layer, Origin, Source
from swetui.engine.retrieval import RetrievalResult, retrieve
from swetui.engine.symbols.symbol_map import SymbolMap
from swetui.engine.watcher import apply_change
from tests.engine.helpers import decided

CLIENT = '''\
"""An HTTP client."""


class BaseClient:
    def _build_redirect_request(self, request, response):
        """Given a request and a redirect response, return a new request."""
        method = self._redirect_method(request, response)
        return Request(method, response.headers["location"])

    def _redirect_method(self, request, response):
        return "GET" if response.status_code == 303 else request.method


class Client(BaseClient):
    def send(self, request):
        if self.closed:
            raise RuntimeError("Cannot send a request, as the client has been closed.")
        return self._send_handling_redirects(request)

    def _send_handling_redirects(self, request):
        # Follow redirects until the response is final.
        while True:
            response = self._send_single_request(request)
            if not response.is_redirect:
                return response
            request = self._build_redirect_request(request, response)

    def _send_single_request(self, request):
        if not isinstance(request.stream, SyncStream):
            raise RuntimeError(
                "Attempted to send an async request with a sync Client instance."
            )
        return self.transport.handle(request)


class AsyncClient(BaseClient):
    async def send(self, request):
        return await self._send_single_request(request)

    async def _send_single_request(self, request):
        if not isinstance(request.stream, AsyncStream):
            raise RuntimeError(
                "Attempted to send an sync request with an AsyncClient instance."
            )
        return await self.transport.handle(request)


class NetRCAuth:
    """Use a .netrc file for credentials."""

    def auth_flow(self, request):
        credentials = self._netrc.authenticators(request.url.host)
        yield request


def normalize_port(port, scheme):
    if not str(port).isdigit():
        raise ValueError(f"Invalid port: {port!r}")
    return int(port)
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "client.py").write_text(CLIENT)
    (root / "pkg" / "decoders.py").write_text(textwrap.dedent('''\
        class GZipDecoder:
            """Handle 'gzip' decoding."""

            def decode(self, data):
                return self.decompressor.decompress(data)


        def iter_lines(text):
            return text.splitlines()
        '''))
    (root / "tests" / "test_client.py").write_text(textwrap.dedent('''\
        def test_redirects_are_followed(client):
            # Follow redirects: the final response comes back.
            assert client.get("/redirect").status_code == 200
        '''))
    (root / "CHANGELOG.md").write_text(
        "* Attempted to send an sync request with an AsyncClient instance. is now clearer\n")
    return root


def ask(root: Path, text: str, engine: ContextEngine | None = None) -> RetrievalResult:
    symbols = SymbolMap(root)
    symbols.build()
    return retrieve(root, text, engine or ContextEngine(), turn=1, symbols=symbols.index())


def spans(result: RetrievalResult) -> list[ContextItem]:
    return [item for item in result.items if item.kind is ItemKind.SPAN]


def shown_lines(item: ContextItem) -> str:
    return "\n".join(line.split("\t", 1)[1] for line in item.content.splitlines()
                     if "\t" in line)


def test_a_dotted_name_resolves_to_that_classes_method(project: Path) -> None:
    [span] = spans(ask(project, "Why does Client.send raise when the client is closed?"))
    body = shown_lines(span)
    assert "class Client(BaseClient):" in body
    assert "raise RuntimeError(\"Cannot send a request" in body
    assert "class AsyncClient" not in body and "await self._send_single_request" not in body
    assert span.source.path == "pkg/client.py" and span.layer is Layer.TASK


@pytest.mark.parametrize(("text", "expected"), [
    ("How does BaseClient._build_redirect_request pick the method?",
     "def _build_redirect_request"),
    ("what does NetRCAuth do with the host", "credentials = self._netrc"),
    ("is `iter_lines` splitting on \\r too?", "return text.splitlines()"),
    ("look at normalize_port() please", "def normalize_port"),
])
def test_snake_camel_backticked_and_called_names_resolve(project: Path, text: str,
                                                         expected: str) -> None:
    result = ask(project, text)
    assert any(expected in shown_lines(span) for span in spans(result)), result.summary
    assert not [item for item in result.items if item.kind is ItemKind.GREP]


def test_a_pasted_error_finds_the_code_raising_it_not_the_changelog(project: Path) -> None:
    result = ask(project, "RuntimeError: Attempted to send an sync request with an "
                          "AsyncClient instance.")
    [span] = spans(result)
    assert "async def _send_single_request" in shown_lines(span)
    assert "def send(self, request):\n        if self.closed" not in shown_lines(span)
    assert not any("CHANGELOG" in (item.source.path or item.title) for item in result.items)


def test_a_pasted_error_matches_a_format_string_around_its_values(project: Path) -> None:
    [span] = spans(ask(project, "ValueError: Invalid port: '99999x'"))
    assert 'raise ValueError(f"Invalid port: {port!r}")' in shown_lines(span)


@pytest.mark.usefixtures(decided.__name__)  # what is found, once attached as code
def test_described_behaviour_finds_the_source_before_the_tests(project: Path) -> None:
    found = spans(ask(project, "where are redirects followed?"))
    assert found and found[0].source.path == "pkg/client.py"
    assert "def _send_handling_redirects" in shown_lines(found[0])
    assert not any(span.source.path.startswith("tests/") for span in found)
    decoding = spans(ask(project, "how is gzip decompression done"))
    assert [span.source.path for span in decoding] == ["pkg/decoders.py"]


def test_a_span_says_which_lines_of_how_many_it_shows_and_how_to_read_on(
        project: Path) -> None:
    [span] = spans(ask(project, "What does Client._send_single_request check?"))
    header = span.content.splitlines()[0]
    total = len(CLIENT.splitlines())
    assert re.match(rf"\d+ of {total:,} lines shown", header)
    assert "read_file(path='pkg/client.py'" in header
    numbered = [line for line in span.content.splitlines()[1:] if "\t" in line]
    for line in numbered:  # numbered like read_file shows them, and true to the file
        number, text = line.split("\t", 1)
        assert CLIENT.splitlines()[int(number) - 1] == text


def test_what_a_read_file_result_already_shows_is_not_attached_again(project: Path) -> None:
    engine = ContextEngine()
    lines = CLIENT.splitlines()
    shown = "\n".join(f"{n:>6}\t{text}" for n, text in enumerate(lines, 1))
    engine.add(ContextItem(id="c1", kind=ItemKind.TOOL_CALL, layer=Layer.HISTORY,
                           title="read_file pkg/client.py", content=shown,
                           origin=Origin.AGENT, source=Source(path="pkg/client.py",
                                                              tool_call_id="call1")))
    result = ask(project, "Why does Client.send raise when the client is closed?", engine)
    assert spans(result) == []
    assert "already in context" in result.summary


def test_a_name_nothing_defines_greps_and_an_empty_grep_is_not_sent(project: Path) -> None:
    result = ask(project, "where is frobnicate_widget used?")
    assert result.items == []
    assert "no matches" in result.summary


def test_other_languages_are_mapped(tmp_path: Path) -> None:
    root = tmp_path / "poly"
    root.mkdir()
    (root / "server.go").write_text(
        'package main\n\ntype Server struct{}\n\nfunc (s *Server) ServeHTTP() error {\n'
        '\treturn fmt.Errorf("listener closed: %d", 3)\n}\n')
    (root / "app.ts").write_text("export class Router {\n  route(path: string): void {}\n}\n")
    (root / "lib.rs").write_text("pub struct Pool;\nimpl Pool {\n    pub fn acquire(&self) {}\n}\n")
    symbols = SymbolMap(root)
    symbols.build()
    index = symbols.index()
    assert {"Server", "ServeHTTP", "Router", "route", "Pool", "acquire"} <= set(index.by_name)
    result = retrieve(root, "error: listener closed: 7", ContextEngine(), turn=1,
                      symbols=index)
    assert "fmt.Errorf" in shown_lines(spans(result)[0])


def test_a_span_whose_file_changes_turns_stale_and_is_not_rewritten(project: Path) -> None:
    engine = ContextEngine()
    [span] = spans(ask(project, "Why does Client.send raise when the client is closed?"))
    engine.add(span)
    (project / "pkg" / "client.py").write_text("# rewritten\n")
    assert apply_change(engine, project, "pkg/client.py", deleted=False) == [span.id]
    after = engine.get(span.id)
    assert after.state is ItemState.STALE and after.content == span.content
    assert after.stale_reason == "changed on disk since it was retrieved"
