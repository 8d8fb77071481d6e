"""What a local OpenAI-compatible server can tell beyond chat: its context window, its own
token counts, and the models it serves.

llama.cpp's `llama-server` has `/props` (`n_ctx`) and `/tokenize`; llama-cpp-python's server
has `/extras/tokenize`; Ollama has `/api/show` (`num_ctx`) and `/api/tags`; every
compatible server has `/v1/models`. Each question is one short request; a server that does
not answer it (404, refused, garbage, slow) gives None, never an exception.
"""

from __future__ import annotations

import asyncio
import logging
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from swetui.providers.ollama import OllamaProvider
from swetui.providers.openai import OpenAIProvider

log = logging.getLogger(__name__)

OLLAMA_DEFAULT_WINDOW = 4096
"""Ollama's context size when the model sets no `num_ctx`."""
_ASK_TIMEOUT = httpx.Timeout(5.0, connect=2.0)
_MAX_TOKENS_TEXT = 200_000
"""Characters sent to a tokenize endpoint at most (calibration needs a sample, not a book)."""


class LocalServer:
    """The side doors of the server behind an OpenAI-compatible provider."""

    def __init__(self, base_url: str, model: str, *, ollama: bool = False,
                 headers: dict[str, str] | None = None,
                 client: httpx.AsyncClient | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.root = self.base_url[: -len("/v1")] if self.base_url.endswith("/v1") \
            else self.base_url
        self.model = model
        self.ollama = ollama
        self._headers = dict(headers or {})
        self._client = client
        self.tokenizer: str | None = None
        """Which endpoint counted tokens last (`/tokenize` or `/extras/tokenize`)."""

    @classmethod
    def of(cls, provider: object) -> LocalServer | None:
        """The server behind `provider`, when it is an OpenAI-compatible one other than
        OpenAI's own API (which has none of these endpoints)."""
        if isinstance(provider, OllamaProvider):
            return cls(provider.base_url, provider.model, ollama=True)
        if isinstance(provider, OpenAIProvider) and "api.openai.com" not in provider.base_url:
            return cls(provider.base_url, provider.model, headers=provider.auth_headers())
        return None

    async def _ask(self, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
        """The decoded JSON answer, or None for any failure."""
        try:
            if self._client is not None:
                response = await self._client.request(method, url, json=body,
                                                      headers=self._headers,
                                                      timeout=_ASK_TIMEOUT)
            else:
                async with httpx.AsyncClient(timeout=_ASK_TIMEOUT) as client:
                    response = await client.request(method, url, json=body,
                                                    headers=self._headers)
            if response.status_code != 200:
                return None
            return response.json()
        except (httpx.HTTPError, ValueError) as exc:
            log.info("%s %s: no answer (%s)", method, url, type(exc).__name__)
            return None

    async def window(self) -> int | None:
        """The context size the server runs the model with, when it says."""
        if self.ollama:
            return await self._ollama_window()
        props = await self._ask("GET", f"{self.root}/props")
        if not isinstance(props, dict):
            return None
        settings = props.get("default_generation_settings")
        for source in (settings if isinstance(settings, dict) else {}, props):
            n_ctx = source.get("n_ctx")
            if isinstance(n_ctx, int) and n_ctx > 0:
                return n_ctx
        return None

    async def _ollama_window(self) -> int | None:
        shown = await self._ask("POST", f"{self.root}/api/show", {"model": self.model})
        if not isinstance(shown, dict):
            return None
        parameters = shown.get("parameters")
        if isinstance(parameters, str):
            match = re.search(r"^\s*num_ctx\s+(\d+)\s*$", parameters, re.MULTILINE)
            if match:
                return int(match.group(1))
        return OLLAMA_DEFAULT_WINDOW

    async def count_tokens(self, text: str) -> int | None:
        """The server's own token count for `text`, when it has a tokenize endpoint."""
        text = text[:_MAX_TOKENS_TEXT]
        if self.ollama or not text:
            return None
        for path, body in (("/tokenize", {"content": text}),
                           ("/extras/tokenize", {"input": text, "model": self.model})):
            answer = await self._ask("POST", f"{self.root}{path}", body)
            tokens = answer.get("tokens") if isinstance(answer, dict) else None
            if isinstance(tokens, list):
                self.tokenizer = path
                return len(tokens)
        return None

    async def models(self) -> list[str] | None:
        """The models the server offers (`/v1/models`; Ollama's `/api/tags`), or None when
        it does not say."""
        if self.ollama:
            tags = await self._ask("GET", f"{self.root}/api/tags")
            entries = tags.get("models") if isinstance(tags, dict) else None
            key = "name"
        else:
            listing = await self._ask("GET", f"{self.base_url}/models")
            entries = listing.get("data") if isinstance(listing, dict) else None
            key = "id"
        if not isinstance(entries, list):
            return None
        names = [entry.get(key) for entry in entries if isinstance(entry, dict)]
        return sorted({name for name in names if isinstance(name, str) and name})

    def models_now(self) -> list[str] | None:
        """`models()`, blocking: for the command line, which may be inside an event loop
        (it runs in a thread of its own)."""
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, self.models()).result()


def models_message(provider: str, host: str, names: list[str] | None) -> str:
    """What to tell a user who named no model: what the server offers."""
    if not names:
        said = "did not list its models" if names is None else "offers no model"
        return f"{provider} needs a model name: the server at {host} {said}; " \
               f"use --model {provider}:NAME"
    shown = ", ".join(names[:20]) + (f" and {len(names) - 20} more" if len(names) > 20 else "")
    return (f"{provider} needs a model name: the server at {host} offers {shown} "
            f"(use --model {provider}:{names[0]})")
