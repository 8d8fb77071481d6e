"""A realistic, deterministic synthetic session (benchmarks, tests and demos of compaction).

Each turn: a user request naming a file and a function, the agent reading files, grepping,
editing and running the tests (sometimes failing), then answering. Paths, function and class
names vary, some reads repeat the same output, and some files are retrieved into the task layer.
"""

from __future__ import annotations

import random
from typing import Any

from swetui.engine.budget import BudgetSettings
from swetui.engine.context import ContextEngine
from swetui.engine.items import ContextItem, ItemKind, Layer, Origin, Source
from swetui.engine.payloads import AssistantPayload, ToolCallPayload

_PACKAGES = ("core", "api", "storage", "cli", "auth", "billing", "search", "ui")
_VERBS = ("parse", "load", "render", "validate", "merge", "fetch", "compute", "resolve")
_NOUNS = ("config", "session", "invoice", "token", "index", "query", "payload", "record")


def _name(rng: random.Random) -> tuple[str, str]:
    verb, noun = rng.choice(_VERBS), rng.choice(_NOUNS)
    return f"{verb}_{noun}_{rng.randint(1, 40)}", f"{noun.title()}{verb.title().rstrip('e')}er"


def _code(rng: random.Random, path: str, lines: int) -> str:
    out = [f'"""Module {path}."""', "", "import logging", ""]
    while len(out) < lines:
        func, cls = _name(rng)
        other, _ = _name(rng)
        out += [f"class {cls}:", f'    """Handles {func}."""', "",
                f"    def {func}(self, value, *, strict=False):",
                f"        result = self.{other}(value)",
                "        if strict and not result:",
                f"            raise ValueError('{func} failed for %r' % value)",
                f"        logging.debug('{cls}.{func} -> %s', result)",
                "        return result", ""]
    return "\n".join(out[:lines])


def _carrying(calls: list[ContextItem]) -> AssistantPayload:
    """An assistant message's payload: it carries `calls`."""
    return AssistantPayload(tool_call_ids=tuple(call.source.tool_call_id or ""
                                                for call in calls))


_KEYS = ("api_key", "user_id", "timeout", "region", "token")
_ATTRS = ("close", "read", "items", "encode", "commit")


def _failure(rng: random.Random, path: str, func: str, cls: str) -> str:
    """What a failing run prints: a pytest failure with its exception, or type errors."""
    line = rng.randint(10, 400)
    if rng.random() < 0.25:
        return "\n".join(
            [f'{path}:{line}: error: Argument 1 to "{func}" has incompatible type "str"; '
             'expected "int"  [arg-type]',
             f"{path}:{line + 7}: error: \"{cls}\" has no attribute \"{func}_cache\"  "
             "[attr-defined]", "Found 2 errors in 1 file (checked 41 source files)"])
    exception = rng.choice((
        f"KeyError: '{rng.choice(_KEYS)}'",
        f"AttributeError: 'NoneType' object has no attribute '{rng.choice(_ATTRS)}'",
        f"TypeError: {func}() got an unexpected keyword argument 'strict'",
        f"ValueError: invalid literal for int() with base 10: '{rng.randint(1, 99)}x'",
    ))
    test = f"tests/test_{func}.py::test_{func}_empty"
    return "\n".join([
        "=" * 20 + " FAILURES " + "=" * 20, f"____ test_{func}_empty ____", "",
        f"    def test_{func}_empty():", f">       assert {cls}().{func}(None) == []", "",
        f"{path}:{line}: in {func}", f"    result = self.{func}_impl(value)",
        f"E   {exception}", "", f"{path}:{line}: {exception.split(':')[0]}",
        "=" * 10 + " short test summary info " + "=" * 10,
        f"FAILED {test} - {exception}", f"1 failed, {rng.randint(5, 60)} passed in 0.42s"])


def _summary(name: str, arguments: dict[str, str], content: str, is_error: bool) -> str:
    if is_error:
        return f"{name} failed"
    if name == "read_file":
        return f"read {content.count(chr(10)) + 1} lines"
    if name == "grep":
        return f"{content.count(chr(10)) + 1} matches"
    return content.splitlines()[0][:60] if content else "done"


class SessionMaker:
    """Adds turns to an engine until it holds about `target_tokens` of conversation."""

    def __init__(self, engine: ContextEngine, seed: int = 7) -> None:
        self.engine = engine
        self.rng = random.Random(seed)
        self.files = [f"src/{pkg}/{noun}_{i}.py" for pkg in _PACKAGES
                      for i, noun in enumerate(_NOUNS[:5])]
        self.contents: dict[str, str] = {}
        self._calls = 0

    def _item(self, kind: ItemKind, content: str, title: str, **extra: Any) -> ContextItem:
        engine = self.engine
        prefix = {ItemKind.USER_MESSAGE: "u", ItemKind.ASSISTANT_MESSAGE: "a"}.get(kind, "c")
        return ContextItem(id=engine.new_id(prefix), kind=kind, layer=Layer.HISTORY,
                           title=title, content=content, turn_created=engine.turn,
                           turn_last_used=engine.turn, origin=Origin.AGENT, **extra)

    def _call(self, name: str, arguments: dict[str, str], content: str, *,
              path: str | None = None, is_error: bool = False) -> ContextItem:
        self._calls += 1
        call_id = f"call_{self._calls}"
        return self._item(ItemKind.TOOL_CALL, content, f"{name} {arguments}",
                          source=Source(path=path, turn_id=f"t{self.engine.turn}",
                                        tool_call_id=call_id),
                          payload=ToolCallPayload(
                              name=name, arguments=arguments, is_error=is_error,
                              summary=_summary(name, arguments, content, is_error)))

    def turn(self, lines: int = 120) -> None:
        """One whole exchange."""
        engine, rng = self.engine, self.rng
        engine.next_turn()
        path = rng.choice(self.files)
        func, cls = _name(rng)
        items = [self._item(ItemKind.USER_MESSAGE,
                            f"In {path}, fix {func} so {cls} handles empty input; keep "
                            f"the behaviour of {rng.choice(self.files)} the same.",
                            f"fix {func}")]
        if path not in self.contents or rng.random() < 0.3:
            self.contents[path] = _code(rng, path, lines)
        read = self._call("read_file", {"path": path}, self.contents[path], path=path)
        hits = "\n".join(f"{rng.choice(self.files)}:{rng.randint(1, 400)}: "
                         f"    return {func}(value)" for _ in range(rng.randint(3, 12)))
        grep = self._call("grep", {"pattern": func}, hits)
        old, new = f"def {func}(self, value", f"def {func}(self, value=None"
        edit = self._call("edit_file", {"path": path, "old": old, "new": new},
                          f"Edited {path}: 1 hunk", path=path)
        failed = rng.random() < 0.25
        output = (_failure(rng, path, func, cls)
                  if failed else f"{rng.randint(20, 90)} passed in 0.{rng.randint(1, 9)}s")
        test = self._call("bash", {"command": f"pytest -q tests/test_{func}.py"}, output,
                          is_error=failed)
        calls = [read, grep, edit, test]
        items.append(self._item(ItemKind.ASSISTANT_MESSAGE, f"Reading {path} first.",
                                "reads", payload=_carrying([read])))
        items.append(read)
        items.append(self._item(ItemKind.ASSISTANT_MESSAGE, "Now the fix and the tests.",
                                "edits", payload=_carrying(calls[1:])))
        items.extend(calls[1:])
        items.append(self._item(ItemKind.ASSISTANT_MESSAGE,
                                f"Fixed {cls}.{func} in {path}; "
                                f"{'one test still fails' if failed else 'tests pass'}.",
                                "answer"))
        engine.add_many(items, reason="turn")

    def retrieved(self, path: str) -> ContextItem:
        """A file retrieved into the task layer this turn."""
        item = ContextItem(id=self.engine.new_id("r"), kind=ItemKind.FILE, layer=Layer.TASK,
                           title=path, source=Source(path=path),
                           content=self.contents.get(path) or _code(self.rng, path, 60),
                           turn_created=self.engine.turn, turn_last_used=self.engine.turn)
        return self.engine.add(item, reason="retrieved")

    def fill(self, target_tokens: int, lines: int = 120) -> int:
        """Add turns until the budget shows `target_tokens`; returns the number of turns."""
        while self.engine.budget().total < target_tokens:
            self.turn(lines)
            if self.engine.turn % 7 == 3:
                self.retrieved(self.rng.choice(self.files))
        return self.engine.turn


def make_session(target_tokens: int = 200_000, *, seed: int = 7, lines: int = 120,
                 limit: int = 400_000) -> ContextEngine:
    """A fresh engine holding a realistic session of about `target_tokens`."""
    engine = ContextEngine(BudgetSettings(limit=limit, reserve=8_000))
    SessionMaker(engine, seed).fill(target_tokens, lines)
    return engine
