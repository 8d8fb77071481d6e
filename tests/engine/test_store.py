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


def test_hand_damaged_event_fields_are_skipped_not_fatal(tmp_path):
    """A log edited by hand (or by another tool) with fields of the wrong type: the bad
    events are skipped with a warning, so resuming never ends in a traceback."""
    path = tmp_path / "s.jsonl"
    good = [{"seq": 1, "type": "turn_started", "turn": 1, "text": "hi"},
            {"seq": 5, "type": "model_call", "model": "offline", "measured": True,
             "input_tokens": 10, "estimated_input": 12}]
    bad = [{"seq": 2, "type": "turn_started", "turn": "abc", "text": "x"},
           {"seq": "3", "type": "turn_started", "turn": 1},
           {"seq": 4, "type": "approval_requested", "action": "oops"},
           {"seq": 6, "type": "approval_decided", "action_id": [1]},
           {"seq": 7, "type": "model_call", "measured": True, "input_tokens": "x"},
           {"seq": 8, "type": "turn_started", "turn": None},
           {"seq": 9, "type": "item", "item": "not an item"},
           {"seq": 9, "type": "item", "item": {"id": [1]}},
           {"seq": 9, "type": "approval_requested", "action": {"id": [1]}},
           {"seq": 10, "type": "assistant", "turn": 1, "calls": "x"},
           {"seq": 11, "type": "turn_started", "turn": 1e300}]
    path.write_text("".join(json.dumps(event) + "\n" for event in [good[0], *bad, good[1]]))
    loaded = load_session(path)
    assert [event["seq"] for event in loaded.events] == [1, 5]
    assert len(loaded.warnings) == len(bad)
    assert all("skipped" in warning for warning in loaded.warnings)
    store = SessionStore(tmp_path, "s")
    store.continue_from(loaded)
    assert store.append("turn_started", {"turn": 2, "text": "again"})["seq"] == 6


def test_a_directory_named_like_a_session_is_not_a_session(tmp_path):
    (tmp_path / "odd.jsonl").mkdir()
    store = SessionStore(tmp_path, "real")
    store.append("turn_started", {"turn": 1, "text": "hello"})
    store.close()
    assert [info.session_id for info in list_sessions(tmp_path)] == ["real"]
