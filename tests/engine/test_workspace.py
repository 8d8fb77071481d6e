import pytest

from swetui.agent.tools.schemas import TOOL_SCHEMAS
from swetui.config import Settings
from swetui.engine.items import Layer
from swetui.engine.workspace import WorkspaceError, open_workspace


def test_sources_fill_the_right_layers(workspace):
    (workspace / "AGENTS.md").write_text("Run pytest before committing.")
    ws = open_workspace(workspace, Settings(), TOOL_SCHEMAS)
    layers = {item.id: item.layer for item in ws.engine}
    assert layers["system"] is Layer.SYSTEM
    assert {f"tool:{schema.name}" for schema in TOOL_SCHEMAS} <= set(layers)
    assert layers["mem:AGENTS.md"] is Layer.MEMORY
    request = ws.engine.assemble().request
    assert [tool.name for tool in request.tools] == [schema.name for schema in TOOL_SCHEMAS]
    assert "Run pytest before committing." in request.system


def test_missing_path_is_a_clear_error(tmp_path):
    with pytest.raises(WorkspaceError, match="no such directory"):
        open_workspace(tmp_path / "nope", Settings(), TOOL_SCHEMAS)


def test_file_instead_of_directory_is_a_clear_error(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(WorkspaceError, match="not a directory"):
        open_workspace(tmp_path / "f", Settings(), TOOL_SCHEMAS)


def test_workspace_where_swetui_dir_cannot_be_made_still_shows_context(workspace):
    (workspace / ".swetui").write_text("a file where the directory should be")
    ws = open_workspace(workspace, Settings(), TOOL_SCHEMAS)
    assert any("cannot be saved" in notice for notice in ws.notices)
    ws.engine.pin("system")  # changes are recorded in memory, nothing raises
    assert ws.engine.budget().total > 0
    assert not ws.store.persistent


def test_resume_restores_user_changes(workspace):
    ws = open_workspace(workspace, Settings(), TOOL_SCHEMAS)
    (workspace / "AGENTS.md").write_text("memory")
    ws = open_workspace(workspace, Settings(), TOOL_SCHEMAS)
    ws.engine.drop("mem:AGENTS.md")
    ws.engine.edit("system", "A custom system prompt.")
    session_id = ws.session_id
    ws.close()
    again = open_workspace(workspace, Settings(), TOOL_SCHEMAS, resume=session_id)
    assert again.engine.get("mem:AGENTS.md").state.value == "dropped"
    assert again.engine.get("system").content == "A custom system prompt."
    assert again.engine.budget().total == ws.engine.budget().total


def test_unknown_resume_id_is_a_clear_error(workspace):
    with pytest.raises(WorkspaceError, match="no session 'zzz'"):
        open_workspace(workspace, Settings(), TOOL_SCHEMAS, resume="zzz")


def test_corrupt_session_file_resumes_with_a_warning(workspace):
    sessions = workspace / ".swetui" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "bad.jsonl").write_bytes(b'\xff\xfe garbage\n{"seq":1,"type":"turn_started"')
    ws = open_workspace(workspace, Settings(), TOOL_SCHEMAS, resume="bad")
    assert any("unreadable" in notice for notice in ws.notices)
    assert any("cut off" in notice for notice in ws.notices)


def test_large_contents_survive_a_resume_through_the_blob_store(workspace):
    from swetui.engine.items import ContextItem, ItemKind, Layer

    ws = open_workspace(workspace, Settings(), TOOL_SCHEMAS)
    big = "line of a large file\n" * 2_000
    ws.engine.add(ContextItem(id="f1", kind=ItemKind.FILE, layer=Layer.TASK, title="big",
                              content=big))
    ws.close()
    log = (workspace / ".swetui" / "sessions" / f"{ws.session_id}.jsonl").read_text()
    assert big[:200] not in log  # stored once, in the blob store, not inline
    again = open_workspace(workspace, Settings(), TOOL_SCHEMAS, resume=ws.session_id)
    assert again.engine.get("f1").content == big


def test_resume_id_cannot_leave_the_sessions_directory(workspace, tmp_path):
    (tmp_path / "elsewhere.jsonl").write_text('{"seq":1,"type":"turn_started","turn":1}\n')
    sessions = workspace / ".swetui" / "sessions"
    sessions.mkdir(parents=True)
    relative = "../../../" + "elsewhere"
    with pytest.raises(WorkspaceError, match="no session"):
        open_workspace(workspace, Settings(), TOOL_SCHEMAS, resume=relative)
