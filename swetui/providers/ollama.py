"""`ollama:MODEL`: Ollama's OpenAI-compatible endpoint, no key needed."""

from __future__ import annotations

from typing import Any

from swetui.providers.openai import OpenAIProvider

DEFAULT_OLLAMA_HOST = "http://localhost:11434"
_OLLAMA_PORT = 11434


def ollama_base_url(host: str | None) -> str:
    """The `/v1` base URL for an `OLLAMA_HOST` value.

    Accepts what Ollama itself accepts: a full URL, `host:port`, or a bare host (port 11434).
    `0.0.0.0` (a bind address) is read as this machine.
    """
    host = (host or "").strip().rstrip("/")
    if not host:
        host = DEFAULT_OLLAMA_HOST
    # Like Ollama's own client: a URL with a scheme keeps that scheme's default port.
    explicit_scheme = "://" in host
    if not explicit_scheme:
        host = f"http://{host}"
    scheme, _, rest = host.partition("://")
    authority, slash, path = rest.partition("/")
    if authority.startswith("0.0.0.0"):  # a bind address; connect to this machine instead
        authority = "127.0.0.1" + authority[len("0.0.0.0"):]
    if not explicit_scheme and ":" not in authority.rsplit("]", 1)[-1]:
        authority = f"{authority}:{_OLLAMA_PORT}"
    path = f"/{path}" if slash and path else ""
    if path.endswith("/v1"):
        path = path[: -len("/v1")]
    return f"{scheme}://{authority}{path}/v1"


class OllamaProvider(OpenAIProvider):
    """`ollama:MODEL` served by a local (or remote) Ollama through its `/v1` API."""

    provider_id = "ollama"

    def __init__(self, model: str, *, host: str | None = None, **options: Any) -> None:
        options.setdefault("api_key", None)
        super().__init__(model, base_url=ollama_base_url(host), **options)

    @property
    def max_tokens_field(self) -> str:
        """Ollama's compatibility layer knows `max_tokens`."""
        return "max_tokens"
