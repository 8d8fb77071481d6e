"""Which MCP servers a workspace has: `[mcp.servers.NAME]` in swetui's config and the
workspace's `.mcp.json` (`mcpServers`), the latter only once the user trusted that file.

`${VAR}` and `${VAR:-default}` expand from the environment; a variable that is not set keeps
its server from starting, with a message that names it. The values of every header and of
credential-like variables are registered with the redactor, so a server's token never
reaches the model, the screen, a log or the disk through swetui.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from swetui.agent.mcp.names import valid_server_name
from swetui.config import McpServerSettings, Settings
from swetui.secrets import STORE, SecretStore, is_credential_name, names_a_place
from swetui.trust import MCP, TrustState

Transport = Literal["stdio", "http"]
Origin = Literal["user", "workspace"]
SSE_REFUSED = (
    'uses the old SSE transport (type "sse"), which MCP replaced by streamable HTTP in '
    '2025 and swetui does not speak. Most servers offer streamable HTTP too, often at /mcp '
    'instead of /sse: set type "http" and that url.')
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(frozen=True)
class ServerConfig:
    """One server ready to start: every value expanded."""

    name: str
    transport: Transport
    origin: Origin
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = 60.0
    enabled: bool = True

    @property
    def target(self) -> str:
        """What runs or where it is, for the user (secrets redacted)."""
        if self.transport == "http":
            return STORE.redact(self.url)
        return STORE.redact(" ".join([self.command, *self.args]))


@dataclass(frozen=True)
class ServerProblem:
    """A configured server that cannot be started as configured, and why."""

    name: str
    origin: Origin
    message: str


class _Missing(Exception):
    pass


def expand(text: str, environ: Mapping[str, str], secret_names: set[str]) -> str:
    """`text` with `${VAR}` / `${VAR:-default}` replaced; raises `_Missing` naming an unset
    variable. Names of secret variables used are added to `secret_names`."""

    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = environ.get(name)
        if found is None or (found == "" and default is not None):
            if default is None:
                raise _Missing(name)
            return default
        if is_credential_name(name, found):
            secret_names.add(name)
        return found

    return VARIABLE.sub(value, text)


def _resolve(name: str, raw: McpServerSettings, origin: Origin, environ: Mapping[str, str],
             call_timeout: float, secrets: SecretStore) -> ServerConfig:
    def x(text: str) -> str:
        return expand(text, environ, set())

    transport: Transport
    if raw.type == "sse":
        raise ValueError(SSE_REFUSED)
    if raw.type in ("http", "streamable-http", "streamableHttp") or (raw.type is None
                                                                      and raw.url):
        transport = "http"
        if not raw.url:
            raise ValueError("an HTTP server needs a `url`")
    else:
        transport = "stdio"
        if not raw.command:
            raise ValueError("a stdio server needs a `command` (or give a `url`)")
    env = {key: x(value) for key, value in raw.env.items()}
    headers = {key: x(value) for key, value in raw.headers.items()}
    config = ServerConfig(name=name, transport=transport, origin=origin,
                          command=x(raw.command or ""), args=tuple(x(a) for a in raw.args),
                          env=env, cwd=x(raw.cwd) if raw.cwd else None, url=x(raw.url or ""),
                          headers=headers, timeout=raw.timeout or call_timeout,
                          enabled=raw.enabled)
    for key, value in headers.items():
        secrets.register(value, f"mcp {name} header {key}")
        scheme, _, token = value.partition(" ")
        if token and scheme.lower() in ("bearer", "basic", "token"):
            secrets.register(token, f"mcp {name} header {key}")
    for key, value in env.items():
        # A value taken from the environment is most often a token: redact it too (not a
        # path-like one: `DATA_DIR=${HOME}/x` would blank out paths everywhere).
        if is_credential_name(key, value) or ("${" in raw.env[key] and not names_a_place(key)):
            secrets.register(value, f"mcp {name} {key}")
    return config


def read_mcp_json(content: bytes, path: Path) -> dict[str, McpServerSettings]:
    """The servers of an `.mcp.json` document; raises ValueError with a clear message.
    Keys other agents add (`autoApprove`, `disabled`, …) are ignored."""
    try:
        data = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from None
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise ValueError(f"{path}: expected an object with `mcpServers`")
    known = set(McpServerSettings.model_fields)
    result: dict[str, McpServerSettings] = {}
    for name, entry in servers.items():
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: mcpServers.{name}: expected an object")
        fields = {key: value for key, value in entry.items() if key in known}
        if entry.get("disabled") is True:
            fields["enabled"] = False
        try:
            result[str(name)] = McpServerSettings.model_validate(fields)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            raise ValueError(f"{path}: mcpServers.{name}.{where}: {error['msg']}") from None
    return result


@dataclass
class ConfiguredServers:
    """The servers to start, those that cannot start, and what the user should be told."""

    servers: list[ServerConfig] = field(default_factory=list)
    problems: list[ServerProblem] = field(default_factory=list)
    untrusted: bool = False
    """The workspace has an `.mcp.json` the user has not trusted (none of it starts)."""


def configured_servers(settings: Settings, trust: TrustState, environ: Mapping[str, str],
                       secrets: SecretStore = STORE) -> ConfiguredServers:
    """Every MCP server of the workspace: swetui's config first, then a trusted
    `.mcp.json` (a name in both: the user's config wins)."""
    found = ConfiguredServers()
    entries: list[tuple[str, McpServerSettings, Origin]] = [
        (name, raw, "user") for name, raw in settings.mcp.servers.items()]
    shipped = trust.file(MCP)
    if shipped is not None:
        content = trust.trusted_content(MCP)
        if content is None:
            found.untrusted = shipped.problem is None
            if shipped.problem is not None:
                found.problems.append(ServerProblem(MCP, "workspace",
                                                    f"{MCP}: {shipped.problem}"))
        else:
            try:
                servers = read_mcp_json(content, shipped.path)
            except ValueError as exc:
                found.problems.append(ServerProblem(MCP, "workspace", str(exc)))
                servers = {}
            taken = set(settings.mcp.servers)
            entries += [(name, raw, "workspace") for name, raw in servers.items()
                        if name not in taken]
    for name, raw, origin in entries:
        if not valid_server_name(name):
            found.problems.append(ServerProblem(name, origin, (
                f"MCP server {name!r}: a name is up to 32 letters, digits, '-' or single '_' "
                "(tools are called mcp__<server>__<tool>)")))
            continue
        try:
            found.servers.append(_resolve(name, raw, origin, environ,
                                          settings.mcp.call_timeout, secrets))
        except _Missing as missing:
            found.problems.append(ServerProblem(name, origin, (
                f"MCP server {name}: ${{{missing.args[0]}}} is not set in the environment, "
                "so it is not started")))
        except ValueError as exc:
            found.problems.append(ServerProblem(name, origin, f"MCP server {name}: {exc}"))
    return found
