"""The embedded `offline` provider: deterministic, no network, no key.

It understands a few plain requests (see `offline_intents`), calls the real tools through the
same events a model would stream (so approvals, edits and the gauge all work), then answers
in Markdown from the tool results. Anything else gets a plain note on what it can do and how
to configure a real model.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import PurePosixPath

from swetui.messages import ChatRequest, Message, ToolCall
from swetui.providers.events import (
    Done,
    ProviderEvent,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from swetui.providers.offline_intents import Intent, understand
from swetui.providers.usage import estimated_usage

HELP_TEXT = """\
I'm the **offline** responder: no model is configured, so I only understand a few plain \
requests and carry them out with the workspace tools:

- `read README.md` (also *show*, *open*, *cat*) — read a file
- `find "TODO"` (also *grep*, *search for*) — search the files for a term
- `list files` or `list directory src` — list a directory
- `replace "old" with "new" in path/to/file.py` — edit a file (you approve it first)
- `run "pytest -q"` — run a shell command (you approve it first)

Join several with *and* / *then*.

To work with a real model, choose one:

- `--model anthropic:MODEL` with `ANTHROPIC_API_KEY` set (and `ANTHROPIC_BASE_URL` for a proxy)
- `--model openai:MODEL` with `OPENAI_API_KEY` (and `OPENAI_BASE_URL` for any \
OpenAI-compatible server)
- `--model ollama:MODEL` with a running Ollama (`OLLAMA_HOST`, default http://localhost:11434)

or set `SWETUI_MODEL=provider:model` in the environment, or `model = "provider:model"` in \
`config.toml`.
"""

_EXCERPT_LINES = 40
_NUMBERED = re.compile(r"^ *\d+\t")
_GREP_HIT = re.compile(r"^[^\s\[][^:]*:\d+: ")
_HITS_SHOWN = 20
_LANGUAGES = {".py": "python", ".js": "javascript", ".ts": "typescript", ".tsx": "tsx",
              ".json": "json", ".toml": "toml", ".yaml": "yaml", ".yml": "yaml", ".md": "markdown",
              ".rs": "rust", ".go": "go", ".sh": "bash", ".c": "c", ".h": "c", ".cpp": "cpp",
              ".java": "java", ".rb": "ruby", ".html": "html", ".css": "css", ".tcss": "css",
              ".sql": "sql", ".txt": "text"}


class OfflineProvider:
    """The `offline` back end: plain requests → tool calls → a Markdown summary."""

    name = "offline"

    def __init__(self, *, delay: float = 0.0, chunk_size: int = 16) -> None:
        """`delay` pauses between chunks (for demos); `chunk_size` is characters per delta."""
        self.delay = delay
        self.chunk_size = max(1, chunk_size)

    async def aclose(self) -> None:
        """Nothing to release."""

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        """Decide on tool calls or answer, streamed as a model would."""
        output: list[str] = []
        for event in self._events(request):
            if isinstance(event, TextDelta | ReasoningDelta):
                output.append(event.text)
            elif isinstance(event, ToolCallEnd):
                output.append(event.raw_arguments)
            elif isinstance(event, Done):
                # No tokenizer here: a rough estimate, marked as one (the turn loop
                # counts properly when a provider's usage is not measured).
                yield estimated_usage(_request_chars(request) // 4, sum(map(len, output)) // 4)
            if self.delay:
                await asyncio.sleep(self.delay)
            yield event

    def _events(self, request: ChatRequest) -> Iterator[ProviderEvent]:
        turn, since = _since_last_user(request.messages)
        if turn is None:
            yield from self._say(HELP_TEXT)
            yield Done(stop_reason="stop")
            return
        results = [m for m in since if m.role == "tool"]
        if results:
            calls = {c.id: c for m in since if m.role == "assistant" for c in m.tool_calls}
            yield from self._reason("The tools answered; summarising their results.")
            yield from self._say(summarise(results, calls))
            yield Done(stop_reason="stop")
            return
        intents = understand(_own_words(turn.content))
        if not intents:
            yield from self._reason("I don't recognise a request I can carry out offline.")
            yield from self._say(HELP_TEXT)
            yield Done(stop_reason="stop")
            return
        plan = "; ".join(intent.reason for intent in intents)
        yield from self._reason(f"The request asks me to {plan}. "
                                f"Calling {_tool_list(intents)}.")
        user_turns = sum(1 for m in request.messages if m.role == "user")
        for index, intent in enumerate(intents):
            yield from self._call(index, f"offline_{user_turns}_{index}", intent)
        yield Done(stop_reason="tool_calls")

    def _call(self, index: int, call_id: str, intent: Intent) -> Iterator[ProviderEvent]:
        raw = json.dumps(intent.arguments, ensure_ascii=False)
        yield ToolCallStart(index=index, id=call_id, name=intent.tool)
        for piece in _pieces(raw, self.chunk_size):
            yield ToolCallDelta(index=index, id=call_id, arguments_delta=piece)
        yield ToolCallEnd(index=index, id=call_id, name=intent.tool,
                          arguments=dict(intent.arguments), raw_arguments=raw)

    def _reason(self, text: str) -> Iterator[ProviderEvent]:
        for piece in _pieces(text, self.chunk_size):
            yield ReasoningDelta(text=piece)

    def _say(self, text: str) -> Iterator[ProviderEvent]:
        for piece in _pieces(text, self.chunk_size):
            yield TextDelta(text=piece)


_CONTEXT_BLOCK = re.compile(r"<context\b[^>]*>.*?</context>\s*", re.DOTALL)


def _own_words(content: str) -> str:
    """What the user typed: the engine puts retrieved and pinned context in `<context>`
    blocks ahead of it, and those are material to read, not requests to act on."""
    return _CONTEXT_BLOCK.sub("", content).strip()


def _since_last_user(messages: tuple[Message, ...]) -> tuple[Message | None, list[Message]]:
    for position in range(len(messages) - 1, -1, -1):
        if messages[position].role == "user":
            return messages[position], list(messages[position + 1:])
    return None, []


def _pieces(text: str, size: int) -> Iterator[str]:
    """Cut text into small chunks, preferring to end a chunk after a space."""
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            space = text.rfind(" ", start + 1, end)
            end = space + 1 if space > start else end
        yield text[start:end]
        start = end


def _tool_list(intents: list[Intent]) -> str:
    names = [f"`{intent.tool}`" for intent in intents]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _request_chars(request: ChatRequest) -> int:
    size = len(request.system) + sum(len(t.description) + len(json.dumps(t.parameters))
                                     for t in request.tools)
    for message in request.messages:
        size += len(message.content) + sum(len(json.dumps(c.arguments))
                                           for c in message.tool_calls)
    return size


def summarise(results: list[Message], calls: dict[str, ToolCall]) -> str:
    """A Markdown answer reporting each tool result in order."""
    sections = [_section(result, calls.get(result.tool_call_id or "")) for result in results]
    return "\n\n".join(sections) + "\n"


def _section(result: Message, call: ToolCall | None) -> str:
    tool = call.name if call else (result.name or "tool")
    args = call.arguments if call else {}
    content = result.content.rstrip("\n")
    subject = _subject(tool, args)
    if tool == "bash" and content.startswith("$ "):
        # The command ran (a non-zero exit is an error result, not a refusal): show output.
        outcome = "failed" if result.is_error else "finished"
        return (f"Ran `{args.get('command', '')}`; it {outcome}:\n\n"
                f"{_fence(content, 'text', _EXCERPT_LINES)}")
    if result.is_error:
        reason = content.strip() or "no reason given"
        return f"**{tool}** {subject}did not go through: {_first_lines(reason, 3)}"
    if tool == "read_file":
        path = str(args.get("path", ""))
        code, notes = _split_numbered(content)
        shown = _fence(code, _language(path), _EXCERPT_LINES)
        extra = "".join(f"\n\n*{note.strip('[]')}*" for note in notes)
        return f"Here is `{path}`:\n\n{shown}{extra}"
    if tool == "grep":
        # Hits are `path:line: text`; bracketed lines are the tool's notes, not hits.
        hits = [line for line in content.splitlines() if _GREP_HIT.match(line)]
        term = args.get("pattern", "")
        if not hits:
            return f"No matches for `{term}`." + (f" ({_first_lines(content, 2)})"
                                                   if content.strip() else "")
        count = f"{len(hits)} match{'es' if len(hits) != 1 else ''}"
        return f"Found {count} for `{term}`:\n\n{_fence(content, 'text', _HITS_SHOWN)}"
    if tool in ("list_dir", "glob"):
        where = f"`{args.get('path') or args.get('pattern') or '.'}`"
        title = "Contents of" if tool == "list_dir" else "Files matching"
        return f"{title} {where}:\n\n{_fence(content or '(empty)', 'text', _EXCERPT_LINES)}"
    if tool in ("edit_file", "write_file"):
        hunks = [line.strip().partition(":")[0] for line in content.splitlines()
                 if line.startswith(("  kept hunk ", "  rejected hunk "))]
        if hunks:  # the user kept only some hunks: say which, never "the edit"
            return (f"Applied part of the edit to `{args.get('path', '')}`: "
                    f"{', '.join(hunks)}; the rejected lines were left as they were.")
        verb = "Applied the edit to" if tool == "edit_file" else "Wrote"
        detail = f"\n\n{_first_lines(content, 3)}" if content.strip() else ""
        return f"{verb} `{args.get('path', '')}`.{detail}"
    if tool == "bash":
        output = _fence(content or "(no output)", "text", _EXCERPT_LINES)
        return f"Ran `{args.get('command', '')}`:\n\n{output}"
    return f"**{tool}** {subject}returned:\n\n{_fence(content, 'text', _EXCERPT_LINES)}"


def _subject(tool: str, args: Mapping[str, object]) -> str:
    for key in ("path", "command", "pattern", "id"):
        if args.get(key):
            return f"`{args[key]}` "
    return ""


def _split_numbered(content: str) -> tuple[str, list[str]]:
    """File text without the read tool's `   12\\t` line numbers, and its `[...]` notes."""
    lines = content.splitlines()
    numbered = [line for line in lines if _NUMBERED.match(line)]
    if not numbered:
        return content, []
    code = "\n".join(_NUMBERED.sub("", line) for line in numbered)
    notes = [line for line in lines if not _NUMBERED.match(line) and line.startswith("[")]
    return code, notes


def _first_lines(text: str, count: int) -> str:
    lines = text.strip().splitlines()
    shown = " ".join(line.strip() for line in lines[:count])
    return shown + (" …" if len(lines) > count else "")


def _language(path: str) -> str:
    return _LANGUAGES.get(PurePosixPath(path).suffix.lower(), "")


def _fence(text: str, language: str, max_lines: int) -> str:
    """A fenced block that cannot be broken by backticks inside the text."""
    lines = text.splitlines()
    shown = "\n".join(lines[:max_lines])
    fence = "```"
    while fence in shown:
        fence += "`"
    more = f"\n\n*… {len(lines) - max_lines} more lines*" if len(lines) > max_lines else ""
    return f"{fence}{language}\n{shown}\n{fence}{more}"
