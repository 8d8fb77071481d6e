"""Retention measured independently of the compactor: its own regexes over the raw text of
the folded items find paths, identifiers and error lines, and each must still be in the
request after compaction. Nothing here imports the compactor's `identifiers()` or its error
patterns, so a blind spot they share cannot report 100% by construction."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind

_PATH = re.compile(r"(?<![\w/.-])(?:[\w-]+/)+[\w-]+\.[A-Za-z]{1,5}(?![\w/])"
                   r"|(?<![\w/.-])[\w-]+\.(?:py|md|toml|json|rs|ts|js|go|txt|cfg|ya?ml)\b")
_SNAKE = re.compile(r"(?<![\w.])_*[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w(])|"
                    r"(?<![\w.])_*[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?=\()")
_CAMEL = re.compile(r"(?<![\w.])[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+(?![\w])")
_EXCEPTION = re.compile(r"\b([A-Z][A-Za-z0-9]*(?:Error|Exception)): (\S.*?)\s*$")
_TEST_ID = re.compile(r"(?:^|\s)(FAILED|ERROR) (\S+::\S+)")
_COMPILER = re.compile(r"^\s*(\S+?\.\w+:\d+(?::\d+)?): (?:fatal )?error: (.*?)\s*$")
FILE_TOOLS = ("read_file", "grep", "glob", "list_dir")


@dataclass
class Found:
    """What a reader would want kept: paths, identifiers and error lines."""

    paths: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    errors: set[str] = field(default_factory=set)


def names_in(text: str) -> tuple[set[str], set[str]]:
    """(paths, identifiers) of a text."""
    paths = set(_PATH.findall(text))
    names = {m.group(0) for m in _SNAKE.finditer(text)} | set(_CAMEL.findall(text))
    return paths, names


def errors_in(text: str) -> set[str]:
    """Exception type and message, failing test ids, compiler errors with path and line."""
    found: set[str] = set()
    for line in text.splitlines():
        exception = _EXCEPTION.search(line)
        if exception:
            found.add(f"{exception.group(1)}: {exception.group(2)}")
        test = _TEST_ID.search(line)
        if test:
            found.add(test.group(2))
        compiler = _COMPILER.match(line)
        if compiler:
            found.add(f"{compiler.group(1)}: error: {compiler.group(2)}")
    return found


def extract(items: list[ContextItem]) -> Found:
    """Everything the folded conversation and task items said that must stay findable."""
    found = Found()
    for item in items:
        texts = [item.content, item.source.path or ""]
        if item.kind is ItemKind.TOOL_CALL:
            arguments = item.call.arguments
            texts += [str(value) for value in arguments.values()]
            if item.call.name not in FILE_TOOLS or item.call.is_error:
                found.errors |= errors_in(item.content)
        for text in texts:
            paths, names = names_in(text)
            found.paths |= paths
            found.names |= names
    return found


def request_text(engine: ContextEngine) -> str:
    request = engine.assemble().request
    parts = [request.system]
    for message in request.messages:
        parts.append(message.content)
        parts += [str(call.arguments) for call in message.tool_calls]
    return "\n".join(parts)


def retention(wanted: Found, text: str) -> dict[str, tuple[int, int, list[str]]]:
    """Per class: (kept, wanted, a few missing)."""
    paths, names = names_in(text)
    out = {}
    for label, want, have in (("paths", wanted.paths, paths), ("identifiers", wanted.names,
                              names), ("errors", wanted.errors, None)):
        if have is None:
            missing = sorted(line for line in want if line not in text)
        else:
            missing = sorted(want - have)
        out[label] = (len(want) - len(missing), len(want), missing[:5])
    return out
