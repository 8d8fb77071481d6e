"""No control sequence from the model, a tool, a file name or a server reaches the terminal
raw: `swetui run` and the other commands print them as visible escapes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from swetui.text import terminal_safe
from tests import headless
from tests.in_process import call_main
from tests.providers.loopback import LoopbackServer, json_reply

OSC52 = "\x1b]52;c;cHduZWQ=\x07"
TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"
C1_CSI = "\x9b31m"
OVERWRITE = "safe\rrm -rf ~\x08\x08"
HOSTILE = f"{OSC52}{TITLE}{CLEAR}{C1_CSI}{OVERWRITE}\u202etxt.exe"
RAW = (b"\x1b", b"\xc2\x9b", b"\x07", b"\x08", b"\r", "\u202e".encode())


def assert_clean(*streams: bytes) -> None:
    for stream in streams:
        for raw in RAW:
            assert raw not in stream, (raw, stream)


@pytest.fixture
async def model() -> AsyncIterator[LoopbackServer]:
    server = LoopbackServer()
    await server.start()
    yield server
    await server.stop()


def test_terminal_safe_shows_every_control_and_keeps_lines():
    assert terminal_safe("a\x1b[2Jb\tc\r\nd\re\x9b\x07\u202e\x7f") == \
        "a␛[2Jb\tc\nd\\x0de\\x9b\\x07\\u202e\\x7f"
    assert terminal_safe("one\ntwo", newlines=False) == "one\\x0atwo"
    plain = "plain text, ünïcode and emoji 👩‍💻"
    assert terminal_safe(plain) is plain


async def test_model_text_tool_names_arguments_and_results_are_shown_not_obeyed(
        workspace: Path, model: LoopbackServer):
    (workspace / f"evil{TITLE}.txt").write_text(f"inside {OSC52} the file\n")
    model.script(
        headless.tool_call("list_dir", {}),
        headless.tool_call(f"frob{CLEAR}nicate", {"x": HOSTILE}, "call_2"),
        headless.tool_call("read_file", {"path": f"evil{TITLE}.txt"}, "call_3"),
        headless.tool_call("read_file", {"path": f"gone{C1_CSI}.txt"}, "call_4"),
        headless.answer(f"answer {HOSTILE}", reasoning=f"thinking {HOSTILE}"),
    )
    code, out, err = await headless.run("go", workspace, headless.environment(model))
    assert code == 0, (out, err)
    assert_clean(out, err)
    text = out.decode()
    assert "answer ␛]52;c;cHduZWQ=\\x07␛]0;pwned\\x07␛[2J\\x9b31msafe\\x0drm" in text
    assert "thinking ␛]52;c;" in text
    assert "frob␛[2Jnicate" in text  # the unknown tool's name
    assert "evil␛]0;pwned\\x07.txt" in text  # a file name in a summary
    assert "gone\\x9b31m.txt" in text


async def test_a_servers_error_message_is_shown_not_obeyed(workspace: Path,
                                                           model: LoopbackServer):
    model.script(json_reply(400, {"error": {"message": f"bad request {HOSTILE}"}}))
    code, out, err = await headless.run("go", workspace, headless.environment(model))
    assert code == 1
    assert_clean(out, err)
    assert "bad request ␛]52;c;" in err.decode()


def test_offline_answers_quoting_files_and_names_are_clean(workspace: Path):
    (workspace / f"name{TITLE}{CLEAR}.md").write_text(f"body {OSC52}{C1_CSI}\r\n")
    (workspace / "plain.txt").write_text(f"text {HOSTILE}\n")
    env = headless.environment()
    # One turn, four tool calls: each answer quotes the hostile names or text.
    prompt = 'list files and read plain.txt and find "pwned" and find "text"'
    done = subprocess.run([sys.executable, "-m", "swetui", "run", prompt], cwd=workspace,
                          env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert_clean(done.stdout, done.stderr)
    shown = done.stdout.decode()
    assert "name␛]0;pwned\\x07␛[2J.md" in shown
    assert shown.count("▤ list_dir") == 1 and "read_file" in shown and shown.count("grep") >= 2


def test_context_and_sessions_commands_print_hostile_names_visibly(tmp_path: Path):
    root = tmp_path / f"repo{TITLE}"
    root.mkdir()
    (root / "AGENTS.md").write_bytes(b"\x00binary memory")  # a notice naming the workspace
    env = headless.environment()
    run = subprocess.run([sys.executable, "-m", "swetui", "run", f"hello {HOSTILE}", str(root)],
                         env=env, capture_output=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert_clean(run.stdout, run.stderr)
    printed = {}
    for command in (["context", str(root)], ["context", str(root), "--json"],
                    ["sessions", str(root)]):
        done = call_main(*command)  # what they print is the point, not a start-up
        out, err = done.stdout.encode(), done.stderr.encode()
        assert done.returncode == 0, err
        assert_clean(out, err)
        printed[" ".join(command[:1] + command[2:])] = out
    assert "hello ␛]52;c;" in printed["sessions"].decode()
    report = json.loads(printed["context --json"])
    assert report["workspace"] == str(root)  # JSON carries the real name, escaped by JSON
    assert os.path.isdir(report["workspace"])
