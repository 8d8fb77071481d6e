"""Usage read in full and normalised, from loopback servers reporting cache usage the way
each provider does (Anthropic apart from input, OpenAI inside prompt_tokens)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from swetui.messages import ChatRequest, Message
from swetui.providers.events import Done
from swetui.providers.offline import OfflineProvider
from swetui.providers.registry import create_provider
from swetui.providers.usage import Usage, anthropic_usage, openai_usage, usage_line
from tests.providers.helpers import collect, text_of
from tests.providers.loopback import sse
from tests.providers.test_anthropic import message_end
from tests.providers.test_openai import chunk


def usage_of(events: list) -> Usage:
    found = [event for event in events if isinstance(event, Usage)]
    assert len(found) == 1, events
    return found[0]


def anthropic_start(usage: dict) -> tuple[str, dict]:
    return ("message_start", {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [], "stop_reason": None, "usage": usage}})


def text_block(text: str) -> list[tuple[str, dict]]:
    return [("content_block_start", {"type": "content_block_start", "index": 0,
                                      "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                      "delta": {"type": "text_delta", "text": text}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0})]


async def test_anthropic_cache_reads_and_writes_add_to_the_input(server, anthropic):
    # Anthropic's input_tokens is only the part after the last cache breakpoint.
    server.script(sse(
        anthropic_start({"input_tokens": 40, "cache_creation_input_tokens": 1_500,
                         "cache_read_input_tokens": 48_000, "output_tokens": 1}),
        *text_block("ok"), *message_end("end_turn", 77)))
    usage = usage_of(await collect(anthropic()))
    assert usage == Usage(input_tokens=49_540, cache_read_tokens=48_000,
                          cache_write_tokens=1_500, output_tokens=77)
    assert usage.fresh_input_tokens == 40
    assert usage.measured


async def test_anthropic_final_counts_in_message_delta_win(server, anthropic):
    # Newer servers repeat the final input and cache counts in message_delta.
    server.script(sse(
        anthropic_start({"input_tokens": 10, "output_tokens": 1}),
        *text_block("ok"),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                           "usage": {"input_tokens": 12, "cache_read_input_tokens": 900,
                                     "cache_creation_input_tokens": 0,
                                     "output_tokens": 30}}),
        ("message_stop", {"type": "message_stop"})))
    usage = usage_of(await collect(anthropic()))
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (912, 900, 30)


async def test_openai_cached_and_reasoning_tokens_are_parts_of_the_totals(server, openai):
    server.script(sse(
        chunk({"role": "assistant", "content": "ok"}), chunk(finish="stop"),
        {"id": "c", "choices": [], "usage": {
            "prompt_tokens": 20_000, "completion_tokens": 900, "total_tokens": 20_900,
            "prompt_tokens_details": {"cached_tokens": 18_432, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 640}}},
        "data: [DONE]\n\n"))
    usage = usage_of(await collect(openai()))
    assert usage == Usage(input_tokens=20_000, cache_read_tokens=18_432, output_tokens=900,
                          reasoning_tokens=640)
    assert usage.fresh_input_tokens == 1_568
    assert usage.hit_rate is not None and round(usage.hit_rate, 3) == 0.922


async def test_deepseek_style_cache_hits_are_read(server, openai):
    server.script(sse(
        chunk({"content": "ok"}), chunk(finish="stop"),
        {"id": "c", "choices": [], "usage": {
            "prompt_tokens": 5_000, "completion_tokens": 10, "prompt_cache_hit_tokens": 4_096,
            "prompt_cache_miss_tokens": 904}},
        "data: [DONE]\n\n"))
    assert usage_of(await collect(openai())).cache_read_tokens == 4_096


async def test_ollama_counts_come_through_its_openai_endpoint(server, providers):
    server.script(sse(chunk({"content": "hi"}), chunk(finish="stop"),
                      {"id": "c", "choices": [], "usage": {
                          "prompt_tokens": 812, "completion_tokens": 45, "total_tokens": 857}},
                      "data: [DONE]\n\n"))
    provider = create_provider("ollama:llama3.2", {"OLLAMA_HOST": server.url})
    providers.append(provider)
    events = await collect(provider)
    assert text_of(events) == "hi" and events[-1] == Done()
    assert usage_of(events) == Usage(input_tokens=812, output_tokens=45)


async def test_a_server_that_sends_no_usage_yields_none(server, openai):
    # The turn loop then estimates (and marks it): see tests/agent/test_turn_usage.py.
    server.script(sse(chunk({"content": "ok"}), chunk(finish="stop"), "data: [DONE]\n\n"))
    events = await collect(openai())
    assert not [event for event in events if isinstance(event, Usage)]


async def test_offline_usage_is_an_estimate():
    request = ChatRequest(messages=(Message(role="user", content="list files"),))
    usage = usage_of(await collect(OfflineProvider(), request))
    assert not usage.measured and usage.input_tokens > 0


def test_the_done_line_says_what_was_cached_and_what_is_estimated():
    measured = Usage(input_tokens=49_540, cache_read_tokens=48_000, cache_write_tokens=1_500,
                     output_tokens=77)
    assert usage_line(measured) == ("↑49,540 ↓77 tokens (48,000 cached, "
                                    "1,500 written to cache)")
    assert usage_line(Usage(input_tokens=900, output_tokens=3, measured=False)) == \
        "↑~900 ↓~3 tokens (estimated)"


counts = st.one_of(st.none(), st.integers(min_value=-5, max_value=10**7), st.text(max_size=3))


@given(fresh=counts, read=counts, written=counts, output=counts)
def test_anthropic_normalisation_keeps_the_parts_inside_the_whole(fresh, read, written,
                                                                   output):
    usage = anthropic_usage({"input_tokens": fresh, "cache_read_input_tokens": read,
                             "cache_creation_input_tokens": written, "output_tokens": output})
    assert usage.fresh_input_tokens + usage.cache_read_tokens + usage.cache_write_tokens \
        == usage.input_tokens
    assert min(usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) >= 0


@given(prompt=counts, cached=counts, completion=counts, reasoning=counts)
def test_openai_normalisation_keeps_the_parts_inside_the_whole(prompt, cached, completion,
                                                                reasoning):
    usage = openai_usage({"prompt_tokens": prompt, "completion_tokens": completion,
                          "prompt_tokens_details": {"cached_tokens": cached},
                          "completion_tokens_details": {"reasoning_tokens": reasoning}})
    assert usage.cache_read_tokens <= usage.input_tokens
    assert usage.reasoning_tokens <= usage.output_tokens
    assert usage.fresh_input_tokens == usage.input_tokens - usage.cache_read_tokens
