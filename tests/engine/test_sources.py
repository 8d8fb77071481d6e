from swetui.engine.sources import MEMORY_MAX_BYTES, memory_items


def test_memory_files_become_memory_items(workspace):
    (workspace / "AGENTS.md").write_text("Always run the tests.")
    (workspace / "CLAUDE.md").write_text("Prefer small commits.")
    items, warnings = memory_items(workspace)
    assert [item.title for item in items] == ["AGENTS.md", "CLAUDE.md"]
    assert {item.layer.value for item in items} == {"memory"}
    assert warnings == []


def test_binary_memory_file_is_reported_and_skipped(workspace):
    (workspace / "AGENTS.md").write_bytes(b"\x00\x01\x02binary")
    items, warnings = memory_items(workspace)
    assert items == []
    assert warnings == ["AGENTS.md: binary file, not used as memory"]


def test_huge_memory_file_is_cut_without_reading_it_all(workspace):
    with open(workspace / "AGENTS.md", "w") as handle:
        handle.write("rule\n" * (50 * 1024 * 1024 // 5))  # 50 MB
    items, warnings = memory_items(workspace)
    assert len(items[0].content) <= MEMORY_MAX_BYTES
    assert "cut to the first" in warnings[0] and "52,428,800" in warnings[0]


def test_non_utf8_memory_file_is_decoded_with_a_note(workspace):
    (workspace / "CLAUDE.md").write_bytes("caf\xe9 notes".encode("latin-1"))
    items, warnings = memory_items(workspace)
    assert items[0].content == "caf\ufffd notes"
    assert "not valid UTF-8" in warnings[0]


def test_session_notes_are_loaded(workspace):
    notes = workspace / ".swetui" / "memory" / "session_notes.md"
    notes.parent.mkdir(parents=True)
    notes.write_text("# Session notes\n- goal: ship")
    items, _ = memory_items(workspace, notes)
    assert items[0].id == "notes" and items[0].source.path == ".swetui/memory/session_notes.md"
