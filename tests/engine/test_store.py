import json
import os
import signal
import subprocess
import sys
import textwrap

from swetui.engine.store import SessionStore, list_sessions, load_session


def test_events_round_trip(tmp_path):
    store = SessionStore(tmp_path, "s1")
    store.append("turn_started", {"turn": 1, "text": "hi"})
    store.append("item", {"item": {"id": "u1"}})
    store.close()
    loaded = load_session(tmp_path / "s1.jsonl")
    assert [e["type"] for e in loaded.events] == ["turn_started", "item"]
    assert loaded.warnings == []


def test_torn_last_line_is_skipped_with_a_warning_and_repaired(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"seq": 1, "type": "user_input", "text": "a"}) + "\n"
                    + '{"seq": 2, "type": "ite')
    loaded = load_session(path, repair=True)
    assert [e["seq"] for e in loaded.events] == [1]
    assert "cut off" in loaded.warnings[0]
    store = SessionStore(tmp_path, "s")
    store.continue_from(loaded)
    store.append("user_input", {"text": "b"})
    store.close()
    again = load_session(path)
    assert [e["seq"] for e in again.events] == [1, 2] and again.warnings == []


def test_corrupt_middle_line_is_skipped(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"seq":1,"type":"a"}\nnot json at all\n{"seq":3,"type":"c"}\n')
    loaded = load_session(path)
    assert [e["seq"] for e in loaded.events] == [1, 3]
    assert loaded.warnings == ["s.jsonl, line 2: unreadable, skipped"]


def test_killed_process_loses_no_committed_event(tmp_path):
    script = textwrap.dedent(f"""
        import os, sys
        from pathlib import Path
        from swetui.engine.store import SessionStore
        store = SessionStore(Path({str(tmp_path)!r}), "k")
        for n in range(50):
            store.append("tick", {{"n": n}})
        print("ready", flush=True)
        os.kill(os.getpid(), 9)
    """)
    process = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert process.returncode == -signal.SIGKILL and "ready" in process.stdout
    loaded = load_session(tmp_path / "k.jsonl")
    assert [e["n"] for e in loaded.events] == list(range(50))


def test_memory_only_store_when_directory_unwritable(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    os.chmod(locked, 0o500)
    try:
        store = SessionStore(locked / "sessions", "x")
        store.append("a", {})
        if os.geteuid() != 0:  # root can write anywhere; the fallback is exercised elsewhere
            assert not store.persistent and "cannot write" in (store.error or "")
        assert len(store.events) == 1
    finally:
        os.chmod(locked, 0o700)


def test_list_sessions_newest_first_with_titles(tmp_path):
    for name, text in (("a", "first"), ("b", "second")):
        store = SessionStore(tmp_path, name)
        store.append("turn_started", {"turn": 1, "text": text})
        store.close()
    os.utime(tmp_path / "a.jsonl", (1, 1))
    infos = list_sessions(tmp_path)
    assert [(i.session_id, i.title) for i in infos] == [("b", "second"), ("a", "first")]
