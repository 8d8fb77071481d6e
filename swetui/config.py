"""Settings: the user's and the workspace's `config.toml`, validated by pydantic.

The workspace file overrides the user file, key by key, once the user has trusted it
(`swetui.trust`): until then it is ignored, since a cloned repository can ship one. A bad
file raises `ConfigError` whose message names the file, the line (where it can be found)
and the field.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from swetui.files import SMALL_FILE_BYTES, read_error, read_regular, read_small_text
from swetui.paths import user_config_file
from swetui.trust import CONFIG, TrustState, TrustStore

Mode = Literal["ask", "auto-edit", "auto"]


class ConfigError(Exception):
    """A configuration file could not be used; the message is fit to show as is."""


class ApprovalRule(BaseModel):
    """A remembered decision: allow or deny a command prefix or a path glob."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["allow", "deny"]
    """What to do without asking."""
    kind: Literal["command", "path", "tool"]
    """`command` matches a command prefix; `path` matches a workspace-relative glob; `tool`
    matches an MCP tool's name, `*` as a wildcard (`mcp__github__*`)."""
    pattern: str = Field(min_length=1)
    """The command prefix or the path glob."""


class McpServerSettings(BaseModel):
    """One MCP server, as `[mcp.servers.NAME]` here or an entry of `.mcp.json`'s `mcpServers`.
    `${VAR}` and `${VAR:-default}` in any value expand from the environment."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["stdio", "http", "streamable-http", "streamableHttp", "sse"] | None = None
    """The transport; unset, `command` means stdio and `url` means streamable HTTP."""
    command: str | None = None
    """The program that runs a stdio server."""
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    """Variables the server gets (it inherits only HOME, LOGNAME, PATH, SHELL, TERM, USER)."""
    cwd: str | None = None
    url: str | None = None
    """The endpoint of a streamable HTTP server."""
    headers: dict[str, str] = Field(default_factory=dict)
    """HTTP headers (an `Authorization` token); their values are redacted everywhere."""
    timeout: float | None = Field(default=None, gt=0)
    """Seconds one call may take (default: `mcp.call_timeout`)."""
    enabled: bool = True
    """False: configured but not started."""


class McpSettings(BaseModel):
    """MCP servers and how their tools reach the model."""

    model_config = ConfigDict(extra="forbid")

    servers: dict[str, McpServerSettings] = Field(default_factory=dict)
    """Servers by name (tools are named `mcp__<name>__<tool>`)."""
    defer_share: float = Field(default=0.10, ge=0.0, le=1.0)
    """Past this share of the window, MCP tool schemas are deferred: the model gets their
    names and one-line descriptions and a `tool_search` tool that loads schemas."""
    call_timeout: float = Field(default=60.0, gt=0)
    """Seconds an MCP tool call may take before it is abandoned."""
    startup_timeout: float = Field(default=30.0, gt=0)
    """Seconds a server may take to start and list its tools."""


class ModelSettings(BaseModel):
    """Settings of one model (`[models."openai:qwen2.5-coder"]` in `config.toml`)."""

    model_config = ConfigDict(extra="forbid")

    tool_calls: Literal["native", "text", "auto", "json"] = "auto"
    """How the model calls tools: `native` (the protocol's tool calls only), `text` (no
    native tool calling: the tools are taught in the system prompt and calls are read from
    the answer), `auto` (native, and calls written as text in the answer are read too),
    `json` (as `text`, with every answer held by the server to a JSON schema: a call of an
    offered tool or `{"answer": ...}`; for small models on llama.cpp servers)."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    """The sampling temperature sent with each request (unset: the server's default, 0.8
    on llama-cpp-python's; small local models call tools more reliably near 0)."""


class ModelPrice(BaseModel):
    """A model's price in US dollars per million tokens; it wins over genai-prices."""

    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0)
    """Fresh (uncached) input tokens."""
    output: float = Field(ge=0)
    """Output tokens, reasoning included."""
    cache_read: float | None = Field(default=None, ge=0)
    """Input tokens read from the provider's cache (the input price when unset)."""
    cache_write: float | None = Field(default=None, ge=0)
    """Input tokens written to the cache (the input price when unset)."""


class Settings(BaseModel):
    """Everything a user can set in `config.toml`."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    """The model, as `provider:model` (e.g. `anthropic:claude-sonnet-4-5`) or `offline`."""
    mode: Mode = "ask"
    """Approval mode: `ask`, `auto-edit` or `auto`."""
    theme: str = "swetui-dark"
    """The theme's name (a file in `themes/` or in the user's themes directory)."""
    context_limit: int | None = Field(default=None, ge=1_000, le=10_000_000)
    """The model's context window, in tokens. Unset: what the server says (llama.cpp's
    `/props`, Ollama's `/api/show`), else 256,000."""
    compaction_threshold: float = Field(default=0.80, ge=0.10, le=0.95)
    """Share of the window at which automatic compaction starts (0.10 to 0.95)."""
    compaction_target: float | None = Field(default=None, ge=0.05, le=0.90)
    """Share of the window a compaction aims to bring the request under, below the
    threshold (unset: 0.50, or 5/8 of a threshold at or under 0.50): it folds more when it
    must, and fires again only once the request has grown past the threshold again."""
    auto_compact: bool = True
    """Compact automatically when the next request passes the threshold."""
    compaction_model: str | None = None
    """A cheaper model for summaries; the working model when unset."""
    reserve_tokens: int | None = Field(default=None, ge=0)
    """Room kept for the model's answer and the compaction buffer. Unset: a sixth of the
    window, at most 16,000."""
    memory_budget: int | None = Field(default=None, ge=0)
    """Token budget of the memory layer. Unset: a tenth of the window, at most 3,000."""
    summary_budget: int | None = Field(default=None, ge=0)
    """Token budget of the running summary. Unset: a fortieth of the window, at most 300."""
    task_share: float = Field(default=0.20, ge=0.0, le=1.0)
    """Share of the window the task layer (just-in-time retrieval) may use."""
    symbol_map: bool = True
    """Build the workspace's symbol map in the background (retrieval by names, errors and
    described behaviour, and the repository outline); off, retrieval greps instead."""
    rank_by_meaning: bool = True
    """Rank described behaviour by meaning as well as words with the embedding model swetui
    installs (loaded at the first request that describes behaviour: about 0.4 s of CPU and
    180 MB of memory); off, by words only, and the model is never loaded."""
    max_read_lines: int = Field(default=2_000, ge=1)
    """Lines one `read_file` returns at most."""
    max_file_bytes: int = Field(default=256_000, ge=1_024)
    """Bytes of one file a tool reads at most."""
    bash_timeout: float = Field(default=120.0, gt=0)
    """Seconds a shell command may run by default."""
    sandbox: Literal["auto", "off"] = "auto"
    """`auto`: commands run confined by the kernel where the system allows it (Linux with
    Landlock and user namespaces); `off`: never, and every command the reader cannot prove
    harmless asks, in every mode."""
    sandbox_network: bool = False
    """Let confined commands use the network (off: they see only their own loopback)."""
    sandbox_read: list[str] = Field(default_factory=list)
    """Places outside the workspace that confined commands may also read (absolute or `~/`
    paths): a sibling project an editable install points at, a venv kept elsewhere. By
    default they read only the system and your toolchains; secret files stay covered."""
    request_timeout: float = Field(default=120.0, gt=0)
    """Seconds to wait for a model's first byte."""
    warn_turns: int = Field(default=25, ge=0)
    """Your turns in a chunk at which swetui warns that a handoff is near (0: off)."""
    soft_chunk_turns: int = Field(default=30, ge=0)
    """Your turns in a chunk after which, at the end of the turn, a chunk boundary writes a
    handoff and the next request starts from it (0: off)."""
    hard_chunk_turns: int = Field(default=50, ge=0)
    """Your turns in a chunk at which a boundary falls at the next step, mid-turn (0: off)."""
    chunk_window_share: float = Field(default=0.90, ge=0.0, le=1.0)
    """Share of the window at which a boundary falls at the next step (0: off)."""
    chunk_failures: int = Field(default=3, ge=0)
    """A boundary falls after more than this many consecutive failed tool calls or model
    errors (0: off)."""
    files_read_limit: int = Field(default=75, ge=0)
    """Files read in a chunk before swetui warns (seed 003's maximum; 0: off)."""
    files_modified_limit: int = Field(default=25, ge=0)
    """Files modified in a chunk before swetui warns (seed 003's maximum; 0: off)."""
    models: dict[str, ModelSettings] = Field(default_factory=dict)
    """Per-model settings, keyed by `provider:model` as given to `--model`."""
    approval_rules: list[ApprovalRule] = Field(default_factory=list)
    """Remembered approval decisions (workspace config)."""
    mcp: McpSettings = Field(default_factory=McpSettings)
    """MCP servers (`[mcp.servers.NAME]`) and deferral, timeouts (`[mcp]`)."""
    spending_cap: float | None = Field(default=None, gt=0)
    """US dollars one session may spend on model calls. Before a call that would pass it, the
    screen asks (once per turn) and `swetui run` does not send it (exit code 3). Unset: no
    cap."""
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    """Prices per model (`[prices."openai:my-model"]` or by the model's name), in dollars per
    million tokens, for models genai-prices does not know or prices differently."""
    secret_env: list[str] = Field(default_factory=list)
    """More environment variables that hold secrets, beyond the names swetui recognises
    (`*_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`, `ANTHROPIC_*`, `OPENAI_*`): their values
    are redacted from everything tools return and kept from commands. Listed in the user
    config, they are also kept out of swetui's own environment at start."""

    @property
    def target_share(self) -> float:
        """The compaction target in effect (share of the window)."""
        if self.compaction_target is not None:
            return self.compaction_target
        return 0.50 if self.compaction_threshold > 0.50 else self.compaction_threshold * 0.625

    @field_validator("sandbox_read")
    @classmethod
    def _absolute_places(cls, places: list[str]) -> list[str]:
        # a relative place would be left out unsaid (relative to what: the workspace, the
        # directory swetui started in?), and the commands needing it fail unexplained
        for place in places:
            if not os.path.isabs(os.path.expanduser(place)):
                raise ValueError(f"{place!r} is neither an absolute path nor under ~/")
        return places

    @model_validator(mode="after")
    def _target_below_threshold(self) -> Settings:
        if self.compaction_target is not None and \
                self.compaction_target >= self.compaction_threshold:
            raise ValueError(f"compaction_target ({self.compaction_target}) must be below "
                             f"compaction_threshold ({self.compaction_threshold})")
        return self


def model_settings(settings: Settings, spec: str) -> ModelSettings:
    """The settings of the model `spec` (defaults when it has no section)."""
    return settings.models.get(spec.strip()) or ModelSettings()


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        data, size = read_regular(path, SMALL_FILE_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except OSError as exc:  # a FIFO or device is refused without blocking
        raise ConfigError(read_error(str(path), exc)) from None
    if len(data) > SMALL_FILE_BYTES:
        raise ConfigError(f"{path}: too large for a config file ({size:,} bytes)")
    return parse_toml(path, data)


def parse_toml(path: Path, data: bytes) -> dict[str, Any]:
    """The TOML document in `data` (read from `path`, named in errors)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _line_of(text: str, key: str) -> int | None:
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.match(line):
            return number
    return None


def validate(path: Path, data: dict[str, Any], text: str | None = None) -> Settings:
    """`data` as settings, or a ConfigError naming `path`, the line and the field."""
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or "(top level)"
        if text is None:
            try:
                text = read_small_text(path)
            except (OSError, UnicodeDecodeError):
                text = ""
        line = _line_of(text, str(error["loc"][0])) if error["loc"] else None
        where = f"{path}, line {line}" if line else str(path)
        message = error["msg"]
        if error["type"] == "extra_forbidden":
            message = "unknown setting"
        raise ConfigError(f"{where}: {field}: {message}") from None


def load_settings(workspace: Path | None, user_file: Path | None = None,
                  trust: TrustState | TrustStore | None = None) -> Settings:
    """Read the user config, then the workspace config if the user trusts it (an untrusted
    one is ignored whole: its deny rules are honoured by `WorkspaceRules` instead). Each is
    validated on its own so an error names the right file."""
    user_path = user_file if user_file is not None else user_config_file()
    merged = _read_toml(user_path)
    validate(user_path, merged)
    if workspace is not None:
        state = trust if isinstance(trust, TrustState) else \
            (trust or TrustStore()).state(workspace, (CONFIG,))
        content = state.trusted_content(CONFIG)
        if content is not None:
            path = state.root / CONFIG
            data = parse_toml(path, content)
            validate(path, data, content.decode("utf-8"))
            merged.update(data)
    return Settings.model_validate(merged)
