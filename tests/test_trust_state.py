"""The trust API the MCP start-up gates on: `.mcp.json` content only once trusted, exactly
the bytes that were hashed; oversized files are refused without being read."""

from __future__ import annotations

from pathlib import Path

from swetui.trust import CONFIG, MAX_BYTES, MCP, TrustStore, trust_state


def test_mcp_json_content_is_withheld_until_trusted(tmp_path: Path):
    (tmp_path / MCP).write_text('{"mcpServers": {}}\n')
    state = trust_state(tmp_path)
    assert not state.is_trusted(MCP) and state.trusted_content(MCP) is None
    assert state.is_trusted(CONFIG)  # absent: nothing of it can apply
    store = TrustStore()
    after = store.trust(state)
    assert after.is_trusted(MCP)
    assert after.trusted_content(MCP) == b'{"mcpServers": {}}\n'
    (tmp_path / MCP).write_text('{"mcpServers": {"x": {"command": "sh"}}}\n')
    assert trust_state(tmp_path).trusted_content(MCP) is None


def test_trusting_records_what_was_shown_not_what_is_there_later(tmp_path: Path):
    (tmp_path / MCP).write_text('{"mcpServers": {}}\n')
    store = TrustStore()
    shown = store.state(tmp_path)
    (tmp_path / MCP).write_text('{"mcpServers": {"x": {"command": "sh"}}}\n')  # swapped
    assert not store.trust(shown).is_trusted(MCP)


def test_an_oversized_file_is_refused_unread(tmp_path: Path):
    (tmp_path / ".swetui").mkdir()
    with open(tmp_path / CONFIG, "wb") as handle:
        handle.truncate(1 << 30)  # a 1 GB sparse file
    shipped = trust_state(tmp_path).file(CONFIG)
    assert shipped is not None and shipped.content is None
    assert f"larger than {MAX_BYTES:,} bytes" in (shipped.problem or "")
