"""What a session learns from a local model's server before its first request: the context
window (unless the user set one) and the model's own token counts (calibration), and
whether the window is big enough at all."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import BaseModel

from swetui.agent.calibrations import Calibration, CalibrationStore, plausible
from swetui.config import Settings
from swetui.engine.budget import window_problem
from swetui.engine.context import ContextEngine
from swetui.engine.events import EngineNotice
from swetui.engine.items import Layer
from swetui.engine.workspace import budget_settings
from swetui.messages import ChatRequest

if TYPE_CHECKING:
    from swetui.providers.local_server import LocalServer

MIN_SAMPLE_TOKENS = 200
"""A calibration from fewer estimated tokens than this would be noise."""


def request_text(request: ChatRequest) -> str:
    """The text a request carries (system, tools, messages): what both tokenizers count."""
    parts = [request.system]
    parts.extend(json.dumps(tool.model_dump(mode="json"), sort_keys=True)
                 for tool in request.tools)
    for message in request.messages:
        parts.append(message.content)
        parts.extend(json.dumps(call.arguments, sort_keys=True) for call in message.tool_calls)
    return "\n".join(part for part in parts if part)


def too_small(engine: ContextEngine) -> str | None:
    """Why the engine's window cannot hold swetui's own system prompt and tools, if so."""
    system = engine.budget().layer(Layer.SYSTEM).tokens
    return window_problem(engine.settings.limit, system, engine.settings.reserve)


class LocalModelSetup:
    """Runs once per model, before the first request; `ready` returns a refusal message
    when the window is too small."""

    def __init__(self, engine: ContextEngine, settings: Settings, server: LocalServer | None,
                 store: CalibrationStore, publish: Callable[[BaseModel], None]) -> None:
        self.engine = engine
        self.settings = settings
        self.server = server
        self.store = store
        self.publish = publish
        self._task: asyncio.Task[str | None] | None = None

    def remembered(self) -> None:
        """Start calibrated from what an earlier session learned about this model."""
        model = self.engine.model
        if self.engine.calibration(model) is None:
            known = self.store.get(model)
            if known is not None:
                self.engine.calibrate(known.ratio, known.source, model)

    async def ready(self) -> str | None:
        """Learn from the server (once); a refusal when the window is too small."""
        if self._task is None:
            self._task = asyncio.ensure_future(self._learn())
        return await asyncio.shield(self._task)

    def remember(self) -> None:
        """Keep the model's current calibration for later sessions."""
        model = self.engine.model
        ratio, source = self.engine.calibration(model), self.engine.calibration_source(model)
        if ratio is not None and source is not None:
            self.store.put(model, Calibration(ratio, source))

    async def _learn(self) -> str | None:
        server = self.server
        if server is not None and self.settings.context_limit is None:
            window = await server.window()
            if window:
                self.engine.resize(budget_settings(self.settings, window))
                where = "/api/show num_ctx" if server.ollama else "/props n_ctx"
                self._notice(f"context window {window:,} tokens, from the server ({where}); "
                             "set context_limit to override it", "info")
        problem = too_small(self.engine)
        if problem:
            return problem
        if server is not None and self.engine.calibration() is None:
            # Once known (remembered, or from reported usage, which also counts the chat
            # template), the model is not asked again.
            await self._calibrate(server)
        return None

    async def _calibrate(self, server: LocalServer) -> None:
        text = request_text(self.engine.assemble().request)
        estimate = self.engine.counter.count(text)
        if estimate < MIN_SAMPLE_TOKENS:
            return
        counted = await server.count_tokens(text)
        if not counted or not plausible(counted / estimate):
            return
        ratio = counted / estimate
        source = server.tokenizer or "tokenize"
        self.engine.calibrate(ratio, source)
        self.remember()
        self._notice(f"calibrated against the server's tokenizer ({source}): it counts "
                     f"{counted:,} tokens where swetui estimates {estimate:,} (×{ratio:.2f}); "
                     "the gauge and the compaction threshold use the calibrated figure", "info")

    def _notice(self, message: str, level: str) -> None:
        self.publish(EngineNotice(message=message, level=level))
