"""One session, every place that shows a token figure: the gauge (headline, layer rows and
its last-request line), the done line, `/context`, `/stats`, `/help`, the inspector's layer
headers and `swetui context --json` show the same figure for the same quantity.

The model is a real OpenAI-compatible server on loopback that reports usage (so the session
has measured figures and a calibration ratio); the turn makes two requests (a read, then the
answer), so the turn's "sent" differs from the last request's, and each must still agree."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from rich.style import Style

from swetui.agent.session import AgentSession
from swetui.agent.turn_events import ModelCallStarted
from swetui.commands.context import show_context
from swetui.engine.items import Layer
from swetui.options import LaunchOptions
from swetui.ui.app import SweTuiApp
from swetui.ui.commands import plain_text
from swetui.ui.widgets.gauge import format_tokens
from swetui.ui.widgets.inspector_render import RowStyles, render_row
from swetui.ui.widgets.inspector_rows import HeaderRow
from swetui.ui.widgets.token_figures import LEGEND
from swetui.ui.widgets.transcript_entries import CompletionLine, NoticeLine
from tests.providers.loopback import LoopbackServer, sse
from tests.providers.test_openai import chunk, tool_fragment
from tests.ui.waits import events_of, notices, record_events, slash, submit, until, wait_idle

FIRST, LAST = 1_111, 1_234
"""Input tokens the server reports for the turn's two requests."""


def _usage(prompt: int, cached: int, completion: int) -> dict[str, object]:
    return {"id": "chatcmpl-1", "choices": [],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "prompt_tokens_details": {"cached_tokens": cached}}}


def _notice_texts(app: SweTuiApp) -> list[str]:
    return [plain_text(widget.content, width=100)
            for widget in app.screen.transcript.query(NoticeLine)]


def _rows(text: str) -> dict[str, str]:
    """A plain two-or-more-column table as {label: first figure after it}."""
    rows: dict[str, str] = {}
    for line in text.splitlines():
        found = re.match(r"\s*(.+?)\s{2,}([\d,.]+%?|—|yes|no|\$\S+)", line)
        if found:
            rows.setdefault(found.group(1).strip(), found.group(2))
    return rows


def _number(text: str) -> int:
    return int(text.replace(",", ""))


@pytest.fixture
async def server() -> LoopbackServer:
    loopback = LoopbackServer()
    loopback.script(
        sse(tool_fragment(0, '{"path": "README.md"}', call_id="call_1", name="read_file"),
            chunk(finish="tool_calls"), _usage(FIRST, 0, 21), "data: [DONE]\n\n"),
        sse(chunk({"content": "A demo project."}), chunk(finish="stop"),
            _usage(LAST, 1_000, 9), "data: [DONE]\n\n"))
    await loopback.start()
    yield loopback
    await loopback.stop()


async def test_every_place_shows_the_same_figures(demo: Path, server: LoopbackServer,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    options = LaunchOptions(path=demo, model="openai:local", watch=False)
    env = {"OPENAI_BASE_URL": f"{server.url}/v1"}
    session = AgentSession.open(options, env=env)
    record_events(session)
    app = SweTuiApp(session, options=options, watch=False)
    async with app.run_test(size=(140, 45)) as pilot:
        await submit(pilot, "read README.md and say what it is")
        await wait_idle(app, pilot)
        started = [event for event in events_of(app).events
                   if isinstance(event, ModelCallStarted)]
        assert len(started) == 2
        last_estimate = started[-1].input_tokens
        budget = session.engine.budget()
        assert budget.measured == LAST and budget.calibration == LAST / last_estimate
        counted, window = budget.counted, budget.limit

        # The gauge: the next request as the model counts it, and the last request measured
        # beside swetui's count of that same request (whose ratio is the calibration).
        gauge = app.screen.gauge.render().plain.splitlines()
        assert f"≈{format_tokens(counted)} / {format_tokens(window)}" in gauge[0]
        assert f"{budget.percent:.1f}%" in gauge[0]
        [last_line] = [line for line in gauge if line.startswith("measured")]
        assert last_line == (f"measured {format_tokens(LAST)} · est. "
                             f"{format_tokens(last_estimate)} ×{budget.calibration:.2f} "
                             "(last request)")
        rows = {line[2:].split()[0]: line[2:].split()[1] for line in gauge
                if line[:1] in "█▒" and len(line.split()) > 2}
        for row in budget.layers:
            assert rows[row.name.value] == format_tokens(row.tokens), row

        # The done line: what the turn sent, summed over its two requests.
        [done] = [str(line.render()) for line in app.screen.transcript.query(CompletionLine)]
        assert f"↑{format_tokens(FIRST + LAST)} " in done and "2 requests" in done

        # The inspector: each layer's header sums to the gauge's row for that layer.
        inspector = app.screen.inspector
        plain = RowStyles.read(lambda _name: Style())
        headers = [(index, row) for index, row in enumerate(inspector.rows.rows)
                   if isinstance(row, HeaderRow) and row.group is None]
        assert len(headers) >= 3
        for index, row in headers:
            text = render_row(row, session.engine, inspector.rows, set(), 50, index=index,
                              styles=plain)
            assert text is not None
            assert text.plain.split()[-1] == format_tokens(budget.layer(row.layer).tokens), \
                text.plain

        # /context: the same figures, and used + reserve + free = the window.
        await slash(pilot, "/context")
        table = _rows(next(text for text in _notice_texts(app) if "Next request" in text))
        assert _number(table["request (the sum)"]) == budget.total
        assert _number(table[f"as the model counts (×{budget.calibration:.2f})"]) == counted
        assert _number(table["last request (measured)"]) == LAST
        reserve = _number(table["reserve (for the answer, not sent)"])
        free = _number(table["free"])
        assert counted + reserve + free == _number(table["window"]) == window

        # /stats: the same names and numbers.
        await slash(pilot, "/stats")
        stats = _rows(next(text for text in _notice_texts(app) if "Session" in text))
        assert _number(stats["next request (as the model counts)"]) == counted
        assert _number(stats["next request (swetui's count)"]) == budget.total
        assert _number(stats["last request (measured)"]) == LAST
        assert float(stats["calibration"]) == round(budget.calibration, 2)
        assert _number(stats["sent (↑, all requests)"]) == FIRST + LAST
        assert _number(stats["reserve"]) == reserve and _number(stats["free"]) == free
        assert stats["percent"] == f"{budget.percent:.1f}"

        # /help names the same headline figure.
        await slash(pilot, "/help")
        assert any(f"≈{format_tokens(counted)} of {format_tokens(window)}" in text
                   for text in _notice_texts(app))
        final = session.engine.budget()
    assert final == budget  # nothing above changed the context

    # `swetui context --continue --json` on the session just closed.
    capsys.readouterr()
    closed = LaunchOptions(path=demo, model="openai:local", continue_last=True)
    assert await asyncio.to_thread(show_context, closed, as_json=True) == 0  # asyncio.run
    report = json.loads(capsys.readouterr().out)
    assert report["total"] == budget.total and report["counted"] == counted
    assert report["measured"] == LAST and report["calibration"] == round(budget.calibration, 4)
    assert report["reserve"] == reserve and report["free"] == free
    assert report["percent"] == round(budget.percent, 2)
    assert {row["name"]: row["tokens"] for row in report["layers"]} == \
        {row.name.value: row.tokens for row in budget.layers}
    assert report["last_turn"]["usage"]["input_tokens"] == FIRST + LAST
    assert report["last_turn"]["requests"] == 2
    assert Layer.RESERVE.value in {row["name"] for row in report["layers"]}


async def test_the_gauge_says_what_its_figures_mean(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        gauge = app.screen.gauge
        assert "reserve" in str(gauge.tooltip) and "calibrat" in str(gauge.tooltip)
        await pilot.press("f3")
        await pilot.press("question_mark")
        await until(pilot, lambda: notices(app), "the legend showed")
        [shown] = notices(app)
        assert shown.title == "Budget figures"
        for figure, _meaning in LEGEND:
            assert figure in shown.message
