"""Plant keys, use swetui as an attacker would, then scan every byte it wrote and sent.

The keys are in the environment of `swetui run` and in a workspace file. The model (offline,
then an OpenAI-compatible server on loopback that records every request) asks for
`cat /proc/$PPID/environ`, `env`, `cat /proc/self/environ`, the environment of every ancestor
process, swetui's command line and the file: with the kernel sandbox, and with it turned off
(commands unconfined: the case swetui's start-up restart is for). No key may appear on stdout,
stderr, in any file swetui wrote (session log, event log, notes, blobs, checkpoints decoded)
or in any request, except the `Authorization` header to the provider, which must carry its
own key.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PLANTED
from tests.providers.loopback import LoopbackServer, Reply, json_reply, sse
from tests.providers.test_openai import USAGE, chunk, tool_fragment
from tests.waiting import WAIT, eventually

SECRET_FILE = "secretfile.txt"
WALK = ("p=$PPID; while [ $p -gt 1 ]; do echo; echo pid=$p; cat /proc/$p/environ; "
        "p=$(grep PPid: /proc/$p/status | cut -f2); done")
"""The environment of every process above the command."""
COMMANDS = ("cat /proc/$PPID/environ", "env", "cat /proc/self/environ", WALK,
            "cat /proc/$PPID/cmdline")
ATTACKS = (*(f'run "{command}"' for command in COMMANDS), f"read {SECRET_FILE}",
           'find "PLANTED"')
PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def planted_environment(config_home: Path, sandbox: str = "auto",
                        **extra: str) -> dict[str, str]:
    (config_home / "swetui").mkdir(parents=True, exist_ok=True)
    (config_home / "swetui" / "config.toml").write_text(f'sandbox = "{sandbox}"\n')
    env = {name: value for name, value in os.environ.items()
           if not name.endswith(("_API_KEY", "_TOKEN")) and name not in PROXIES
           and not name.startswith(("SWETUI_", "OPENAI_", "ANTHROPIC_"))}
    return {**env, **PLANTED, "XDG_CONFIG_HOME": str(config_home), **extra}


def plant_workspace(workspace: Path) -> bytes:
    content = "".join(f"{name} = {value}\n" for name, value in PLANTED.items()).encode()
    (workspace / SECRET_FILE).write_bytes(content)
    return content


class Scan:
    """Where each planted key was found."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self.bytes_scanned = 0

    def bytes(self, where: str, data: bytes) -> None:
        self.bytes_scanned += len(data)
        for name, value in PLANTED.items():
            if value.encode() in data:
                self.found.append(f"{name} in {where}")

    def tree(self, root: Path, planted: dict[Path, bytes]) -> None:
        """Every file under `root` except the planted ones, still as planted."""
        for path in sorted(root.rglob("*")):
            if not path.is_file() or path.is_symlink():
                continue
            data = path.read_bytes()
            if planted.get(path) == data:
                continue
            self.bytes(str(path.relative_to(root)), data)
            if path.parent.name == "checkpoints" and path.suffix == ".json":
                before = json.loads(data).get("before")  # file copies are base64
                if before:
                    self.bytes(f"{path.name} (decoded)", base64.b64decode(before))


def tool_outputs(workspace: Path) -> list[str]:
    """What each tool returned, from the session log (stdout shows summaries)."""
    [log] = (workspace / ".swetui" / "sessions").glob("*.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    return [event["content"] for event in events if event["type"] == "tool_result"]


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_offline_attacks_leak_no_key(workspace, tmp_path, sandbox):
    config_home = tmp_path / "config"
    planted = {workspace / SECRET_FILE: plant_workspace(workspace)}
    env = planted_environment(config_home, sandbox, SWETUI_MODEL="offline")
    scan = Scan()
    # Two turns (the second resumes the first): every attack runs as its own tool call.
    halves = (ATTACKS[:4], ATTACKS[4:])
    for number, attacks in enumerate(halves):
        request = " and ".join(attacks)
        resume = ["--continue"] if number else []
        result = subprocess.run(
            [sys.executable, "-m", "swetui", "run", request, "--yes", "--mode", "auto",
             *resume], cwd=workspace, env=env, capture_output=True, timeout=WAIT)
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        scan.bytes(f"stdout of {request}", result.stdout)
        scan.bytes(f"stderr of {request}", result.stderr)
    scan.tree(workspace, planted)
    scan.tree(config_home, {})
    assert scan.found == []
    # The attacks ran and the model saw what they read: the scan looked at real output.
    outputs = tool_outputs(workspace)
    assert len(outputs) == len(ATTACKS)
    environ, listing, own, walk, cmdline, read, grep = outputs
    assert "PATH=" in listing and "PATH=" in own
    if sandbox == "off":  # unconfined, they read swetui's (and every ancestor's) environment
        assert "PATH=" in environ and walk.count("PATH=") >= 2
        assert "swetui" in cmdline
    assert "ANTHROPIC_API_KEY = [redacted: ANTHROPIC_API_KEY]" in read
    assert "[redacted: MY_SERVICE_TOKEN]" in grep
    assert scan.bytes_scanned > 20_000


def calls_reply(gate: asyncio.Event) -> Reply:
    tools = [*(("bash", {"command": command}) for command in COMMANDS),
             ("read_file", {"path": SECRET_FILE}), ("grep", {"pattern": "PLANTED"})]
    events: list[dict] = [chunk({"role": "assistant", "content": None})]
    for index, (name, arguments) in enumerate(tools):
        events.append(tool_fragment(index, "", f"call_{index}", name))
        events.append(tool_fragment(index, json.dumps(arguments)))
    reply = sse(*events, chunk(finish="tool_calls"), USAGE, "data: [DONE]\n\n")
    reply.gate = gate
    return reply


def echoing_error() -> Reply:
    # Some servers echo the key they refused; this one echoes every planted value.
    return json_reply(401, {"error": {"message": "invalid keys: " + ", ".join(PLANTED.values())}})


@pytest.mark.parametrize("sandbox", ["auto", "off"])
async def test_a_real_provider_is_sent_no_key_but_its_own(workspace, tmp_path, sandbox):
    server = LoopbackServer()
    await server.start()
    config_home = tmp_path / "config"
    planted = {workspace / SECRET_FILE: plant_workspace(workspace)}
    env = planted_environment(config_home, sandbox, OPENAI_BASE_URL=f"{server.url}/v1")
    gate = asyncio.Event()
    server.script(calls_reply(gate),
                  sse(chunk({"content": "Checked."}), chunk(finish="stop"), USAGE,
                      "data: [DONE]\n\n"),
                  echoing_error())
    scan = Scan()
    try:
        command = [sys.executable, "-m", "swetui", "run", "look around", "--yes",
                   "--mode", "auto", "--model", "openai:gpt-test"]
        process = await asyncio.create_subprocess_exec(
            *command, cwd=workspace, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        await eventually(lambda: server.requests or process.returncode is not None,
                         "swetui is waiting on the model")
        assert process.returncode is None
        # swetui's own process, mid-turn: neither its environment nor its command line
        # holds a key (a command it runs could read both).
        scan.bytes("/proc/<swetui>/environ", Path(f"/proc/{process.pid}/environ").read_bytes())
        scan.bytes("/proc/<swetui>/cmdline", Path(f"/proc/{process.pid}/cmdline").read_bytes())
        gate.set()
        out, err = await asyncio.wait_for(process.communicate(), WAIT)
        assert process.returncode == 0, err.decode(errors="replace")
        scan.bytes("stdout", out)
        scan.bytes("stderr", err)
        again = await asyncio.create_subprocess_exec(
            *command[:4], "and again", *command[5:], "--continue", cwd=workspace, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out2, err2 = await asyncio.wait_for(again.communicate(), WAIT)
        assert again.returncode == 1  # the 401: the turn failed, the error was shown
        assert b"invalid keys: [redacted: " in err2
        scan.bytes("stdout of the failed turn", out2)
        scan.bytes("stderr of the failed turn", err2)
    finally:
        await server.stop()
    assert len(server.requests) == 3
    for number, request in enumerate(server.requests, 1):
        headers = dict(request.headers)
        assert headers.pop("authorization") == f"Bearer {PLANTED['OPENAI_API_KEY']}"
        scan.bytes(f"request {number} line", f"{request.method} {request.path}".encode())
        scan.bytes(f"request {number} headers", json.dumps(headers).encode())
        scan.bytes(f"request {number} body", request.body)
    scan.tree(workspace, planted)
    scan.tree(config_home, {})
    assert scan.found == []
    # The model did get the tools' output, redacted where it held a key.
    second = server.requests[1].body.decode()
    assert second.count("PATH=") >= (4 if sandbox == "off" else 2)  # env, self, walk...
    assert "OPENAI_API_KEY = [redacted: OPENAI_API_KEY]" in second


def test_a_confined_command_cannot_read_a_launchers_environment(workspace, tmp_path):
    from swetui.agent.sandbox import probe

    if not probe().available:
        pytest.skip(f"no kernel sandbox here: {probe().detail}")
    env = planted_environment(tmp_path / "config", SWETUI_MODEL="offline")
    # A launcher keeps the keys in its own environment while swetui runs; `rev` walks
    # around the redaction as `base64` would. Only the sandbox stops this.
    attack = f'run "{WALK} | tr \'\\000\' \'\\n\' | rev"'
    result = subprocess.run(
        ["sh", "-c", f'"{sys.executable}" -m swetui run "$1" --yes --mode auto; :', "sh",
         attack], cwd=workspace, env=env, capture_output=True, timeout=WAIT)
    assert result.returncode == 0, result.stderr
    written = result.stdout + b"".join(path.read_bytes() for path in workspace.rglob("*")
                                       if path.is_file())
    assert b'"type":"tool_result"' in written and b"exit code" in written  # it ran
    leaked = [name for name, value in PLANTED.items() if value[::-1].encode() in written]
    assert leaked == []
