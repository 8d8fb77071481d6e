"""Hand-damaged session logs: `swetui run --continue` warns, keeps every event it can read,
carries on, and never ends in a traceback; `swetui sessions` and `swetui context` too."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from swetui.commands.run import run_once
from swetui.engine.store import load_session
from swetui.options import LaunchOptions
from tests.faults.corpus import OUTSIDE, swetui

Damage = Callable[[Path, bytes], None]


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _insert(line: bytes) -> Damage:
    def damage(log: Path, data: bytes) -> None:
        lines = _lines(data)
        log.write_bytes(b"".join([*lines[:3], line, *lines[3:]]))
    return damage


def _torn(log: Path, data: bytes) -> None:
    log.write_bytes(data + b'{"seq": 99, "type": "turn_sta')


def _half(log: Path, data: bytes) -> None:
    log.write_bytes(data[: len(data) // 2])


def _crlf(log: Path, data: bytes) -> None:
    log.write_bytes(data.replace(b"\n", b"\r\n"))


def _noise(log: Path, data: bytes) -> None:
    log.write_bytes(bytes((i * 7919) % 256 for i in range(64 * 1024)))


def _empty(log: Path, data: bytes) -> None:
    log.write_bytes(b"")


def _seq_backwards(log: Path, data: bytes) -> None:
    events = [json.loads(line) for line in _lines(data)]
    for event in events:
        event["seq"] = 1000 - event["seq"]
    log.write_bytes(b"".join(json.dumps(e).encode() + b"\n" for e in events))


def _broken_approval(log: Path, data: bytes) -> None:
    bad = {"seq": 500, "type": "approval_requested", "action": {"id": "act_x", "kind": "bomb"}}
    log.write_bytes(data + json.dumps(bad).encode() + b"\n")


DAMAGES: dict[str, tuple[Damage, str]] = {
    # name: (what is done to the log, what the user is told on stderr)
    "torn-last-line": (_torn, "the last line was cut off"),
    "nul-line": (_insert(b"\x00" * 512 + b"\n"), "unreadable, skipped"),
    "invalid-utf8": (_insert(b'{"seq": 7, "type": "turn_started", "text": "\xff\xfe"}\n'),
                     "unreadable, skipped"),
    "5mb-line": (_insert(b"x" * (5 * 1024 * 1024) + b"\n"), "unreadable, skipped"),
    "json-array": (_insert(b"[1, 2, 3]\n"), "unreadable, skipped"),
    "json-null": (_insert(b"null\n"), "unreadable, skipped"),
    "unknown-type": (_insert(b'{"seq": 8, "type": "from_the_future", "x": 1}\n'), ""),
    "wrong-types": (_insert(b'{"seq": "9", "type": "item", "item": 4}\n'), "malformed"),
    "half-the-file": (_half, ""),
    "crlf": (_crlf, ""),
    "seq-backwards": (_seq_backwards, ""),
    "broken-approval": (_broken_approval, "malformed and could not be restored"),
    "random-bytes": (_noise, "unreadable, skipped"),
    "empty": (_empty, ""),
}


@pytest.fixture
def damaged(workspace: Path, capsys: pytest.CaptureFixture[str]) -> Callable[[str], Path]:
    """A workspace whose one session (a real `read README.md` turn) was damaged by hand."""
    def make(name: str) -> Path:
        sessions = workspace / ".swetui" / "sessions"
        before = set(sessions.glob("*.jsonl"))
        assert run_once(LaunchOptions(path=workspace, model="offline", watch=False),
                        "read README.md") == 0
        capsys.readouterr()
        (log,) = set(sessions.glob("*.jsonl")) - before
        DAMAGES[name][0](log, log.read_bytes())
        return log
    return make


@pytest.mark.parametrize("name", list(DAMAGES))
def test_continue_after_hand_damage(name: str, damaged: Callable[[str], Path], workspace: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    log = damaged(name)
    readable = load_session(log).events
    code = run_once(LaunchOptions(path=workspace, model="offline", continue_last=True,
                                  watch=False), "list files")
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in err
    assert "▤ list_dir" in out and "done in" in out  # the session carries on
    assert DAMAGES[name][1] in err
    after = load_session(log)
    # Every event that could be read before is still there, in order, and the new turn
    # follows; the file ends on a line boundary.
    keys = [(e["seq"], e["type"]) for e in after.events]
    assert keys[: len(readable)] == [(e["seq"], e["type"]) for e in readable]
    assert [e["text"] for e in after.events if e["type"] == "turn_started"][-1] == "list files"
    assert log.read_bytes().endswith(b"\n")


def test_sessions_and_context_survive_every_damage_at_once(workspace: Path,
                                                           damaged: Callable[[str], Path]) -> None:
    sessions = workspace / ".swetui" / "sessions"
    for number, name in enumerate(DAMAGES):
        log = damaged(name)
        log.rename(sessions / f"20990101-0000{number:02d}-{name}.jsonl")
    (sessions / "20990102-000000-link.jsonl").symlink_to(workspace.parent / "outside.txt")
    (workspace.parent / "outside.txt").write_text(f"{OUTSIDE}\n")
    listed = swetui(workspace, "sessions")
    assert listed.returncode == 0 and "Traceback" not in listed.stderr
    for name in DAMAGES:
        assert name in listed.stdout
    context = swetui(workspace, "context", "--json", "--resume", "20990101-000001-nul-line")
    assert context.returncode == 0 and "Traceback" not in context.stderr
    assert json.loads(context.stdout)["items"]
    assert OUTSIDE not in listed.stdout + context.stdout


def test_continue_when_the_newest_log_is_a_fifo(workspace: Path) -> None:
    first = swetui(workspace, "run", "read README.md")
    assert first.returncode == 0, first.stderr
    fifo = workspace / ".swetui" / "sessions" / "20990101-000000-fifo.jsonl"
    os.mkfifo(fifo)
    done = swetui(workspace, "run", "--continue", "list files")  # watched: fails at once
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "▤ list_dir" in done.stdout
    (log,) = [p for p in fifo.parent.glob("*.jsonl") if p.is_file()]
    assert log.read_text().count('"type":"turn_started"') == 2  # continued the real one
