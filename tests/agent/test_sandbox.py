"""The kernel sandbox, attacked: commands run in auto mode (or approved by a user mashing
`y`) must not write outside the workspace or into .git/, read keys or secret files, reach the
network, or signal swetui, whatever their text says."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from swetui.agent.approvals import ApprovalQueue
from swetui.agent.events import ApprovalRequested, CommandStarted
from swetui.agent.sandbox import Sandbox, probe
from swetui.agent.toolbox import Toolbox
from swetui.agent.tools.base import ToolResult
from swetui.config import Settings
from swetui.engine.bus import EventBus
from tests.agent.conftest import Recorder, tool_call, wait_pending

pytestmark = pytest.mark.skipif(not probe().available,
                                reason=f"no kernel sandbox here: {probe().detail}")

KEY = "sk-ant-planted-0123456789abcdefSANDBOX"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory beside the workspace that nothing may touch."""
    directory = tmp_path / "outside"
    directory.mkdir()
    (directory / "keep.txt").write_text("keep me\n")
    return directory


@pytest.fixture
def git_ws(ws_root: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(ws_root)], check=True)
    return ws_root


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "home"
    (directory / ".ssh").mkdir(parents=True)
    (directory / ".ssh" / "id_ed25519").write_text("PRIVATE KEY MATERIAL\n")
    monkeypatch.setenv("HOME", str(directory))
    return directory


def approving(queue: ApprovalQueue, bus: EventBus, *, unconfined: bool = False) -> list[str]:
    """A user who approves every action that asks (the sandbox must hold even then) but
    declines to run anything outside the sandbox when offered."""
    asked: list[str] = []

    def approve(event: ApprovalRequested) -> None:
        asked.append(event.action.summary)
        action = event.action

        def answer() -> None:
            if action.id not in queue:
                return
            if action.sandbox_denied is not None:  # the separate, marked choice: refused
                queue.deny(action.id, "stay in the sandbox")
            else:
                queue.approve(action.id, unconfined=unconfined)

        asyncio.get_running_loop().call_soon(answer)

    bus.subscribe(approve, ApprovalRequested)
    return asked


@pytest.fixture
def auto_box(make_toolbox: Callable[..., Toolbox], agent_bus: EventBus) -> Toolbox:
    """Auto mode, a user approving whatever still asks, and a sandbox that leaves the
    shared temp directories visible so `outside` (under the test's tmp) can be attacked."""
    box = make_toolbox("auto")
    box.sandbox = Sandbox(box.root, cover=())
    approving(box.queue, agent_bus)
    return box


async def bash(box: Toolbox, command: str) -> ToolResult:
    return await box.run(tool_call("bash", command=command))


def escape_attempts(outside: Path) -> list[str]:
    target = str(outside)
    script = base64.b64encode(f"rm -rf {target}".encode()).decode()
    return [
        f"R=rm; $R -r -f {target}",
        f"$(echo rm) -rf {target}",
        f"echo {script} | base64 -d | sh",
        f"python3 -c \"import shutil; shutil.rmtree('{target}')\"",
        f"perl -e 'system(\"rm -rf {target}\")'",
        f"awk 'BEGIN {{ system(\"rm -rf {target}\") }}'",
        f"truncate -s 0 {target}/keep.txt",
        f"shred -u {target}/keep.txt",
        f"echo pwned > {target}/keep.txt",
        f"mv {target}/keep.txt ./stolen.txt",
        f"ln -s {target}/keep.txt link && echo pwned > link",
        f"cd {target} && touch planted",
    ]


async def test_auto_mode_cannot_touch_anything_outside(auto_box: Toolbox, outside: Path) -> None:
    for command in escape_attempts(outside):
        await bash(auto_box, command)
        assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"], command
        assert (outside / "keep.txt").read_text() == "keep me\n", command


async def test_writes_above_the_workspace_are_refused(auto_box: Toolbox) -> None:
    result = await bash(auto_box, "echo hi > ../x; echo hi > ../../y")
    assert not (auto_box.root.parent / "x").exists()
    assert "Read-only file system" in result.content or "Permission denied" in result.content


async def test_dot_git_is_read_only_so_no_planted_hooks(make_toolbox: Callable[..., Toolbox],
                                                        agent_bus: EventBus, git_ws: Path,
                                                        outside: Path) -> None:
    box = make_toolbox("auto")
    box.sandbox = Sandbox(box.root, cover=())
    approving(box.queue, agent_bus)
    config = (git_ws / ".git" / "config").read_text()
    await bash(box, f"git config core.fsmonitor 'touch {outside}/planted'")
    await bash(box, f"echo 'touch {outside}/hooked' > .git/hooks/pre-commit")
    await bash(box, "rm -rf .git/hooks; mv .git .git-old")
    assert (git_ws / ".git" / "config").read_text() == config
    assert not (git_ws / ".git" / "hooks" / "pre-commit").exists()
    assert (git_ws / ".git" / "hooks").is_dir()
    # The workspace itself stays fully usable.
    result = await bash(box, "mkdir -p pkg && echo ok > pkg/f && cat pkg/f && git status -s")
    assert "ok" in result.content and not result.is_error, result.content


async def test_user_config_outside_is_not_writable(auto_box: Toolbox, home: Path) -> None:
    await bash(auto_box, "git config --global user.name evil; echo x >> ~/.bashrc")
    assert not (home / ".gitconfig").exists()
    assert not (home / ".bashrc").exists()


async def test_swetui_own_settings_are_read_only(auto_box: Toolbox) -> None:
    settings = auto_box.root / ".swetui"
    settings.mkdir()
    (settings / "config.toml").write_text('mode = "ask"\n')
    await bash(auto_box, "echo 'mode = \"auto\"' > .swetui/config.toml")
    assert (settings / "config.toml").read_text() == 'mode = "ask"\n'


async def test_confined_command_cannot_read_keys_from_any_process(
        auto_box: Toolbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)  # in this (swetui's) process
    me = os.getpid()
    for command in (f"cat /proc/{me}/environ", "cat /proc/$PPID/environ",
                    "cat /proc/*/environ", f"tr '\\0' '\\n' < /proc/{os.getppid()}/environ",
                    f"python3 -c \"print(open('/proc/{me}/mem','rb').read(10))\"",
                    "env", "cat /proc/self/environ"):
        result = await bash(auto_box, command)
        assert KEY not in result.content, command


async def test_secret_files_cannot_be_read(auto_box: Toolbox, home: Path) -> None:
    (auto_box.root / ".env").write_text(f"API_KEY={KEY}\n")
    (auto_box.root / "deploy").mkdir()
    (auto_box.root / "deploy" / "server.pem").write_text(f"{KEY}\n")
    for command in ("cat .env", "cp .env copy && cat copy", "cat deploy/server.pem",
                    "grep -r sk-ant .", "cat ~/.ssh/id_ed25519", "tar c . | strings"):
        result = await bash(auto_box, command)
        assert KEY not in result.content, command
        assert "PRIVATE KEY MATERIAL" not in result.content, command


async def test_network_is_cut_unless_allowed(make_toolbox: Callable[..., Toolbox],
                                             agent_bus: EventBus) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    probe_script = (f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', "
                    f"{port}), timeout=5); print('CONN' + 'ECTED')\"")
    try:
        box = make_toolbox("auto")
        cut = await bash(box, probe_script)
        assert "CONNECTED" not in cut.content
        assert cut.data["sandbox_denied"] or "refused" in cut.content.lower()
        local = await bash(box, "python3 -c \"import socket; s=socket.create_server(("
                                "'127.0.0.1', 0)); print('LISTENING')\"")
        assert "LISTENING" in local.content  # its own loopback still works
        open_box = make_toolbox("auto", settings=Settings(sandbox_network=True,
                                                          bash_timeout=20))
        allowed = await bash(open_box, probe_script)
        assert "CONNECTED" in allowed.content, allowed.content
    finally:
        server.close()


async def test_shared_temp_directories_are_private(make_toolbox: Callable[..., Toolbox],
                                                   tmp_path: Path) -> None:
    """Other programs' files and sockets in /tmp (tmux, ssh-agent) are out of reach, and the
    workspace still works when it lives under /tmp."""
    assert str(tmp_path).startswith(("/tmp", os.environ.get("TMPDIR", "/tmp")))
    box = make_toolbox("auto")
    result = await bash(box, f"ls {tmp_path}; echo scratch > /tmp/s && cat /tmp/s; "
                             "echo made > inside.txt")
    assert "outside" not in result.content and "scratch" in result.content
    assert (box.root / "inside.txt").read_text() == "made\n"
    second = await bash(box, "cat /tmp/s")  # the private /tmp lasts for the session
    assert "scratch" in second.content


async def test_denied_run_offers_unconfined_and_runs_it_only_when_approved(
        make_toolbox: Callable[..., Toolbox], agent_bus: EventBus, recorder: Recorder,
        outside: Path) -> None:
    box = make_toolbox("auto")
    box.sandbox = Sandbox(box.root, cover=())
    offers: list[str | None] = []

    def answer(event: ApprovalRequested) -> None:
        offers.append(event.action.sandbox_denied)
        approve = len(offers) == 1
        asyncio.get_running_loop().call_soon(
            lambda: box.queue.approve(event.action.id) if approve
            else box.queue.deny(event.action.id, "no"))

    agent_bus.subscribe(answer, ApprovalRequested)
    first = await bash(box, f"touch {outside}/made")
    assert offers and offers[0] and "Read-only file system" in offers[0]
    assert (outside / "made").exists()
    assert "outside the sandbox" in first.content
    second = await bash(box, f"touch {outside}/again")
    assert not (outside / "again").exists()
    assert "declined" in second.content
    started = recorder.of(CommandStarted)
    assert [event.confined for event in started] == [True, False, True]


async def test_unconfined_is_an_explicit_choice(make_toolbox: Callable[..., Toolbox],
                                                agent_bus: EventBus, outside: Path) -> None:
    box = make_toolbox("ask")
    box.sandbox = Sandbox(box.root, cover=())
    approving(box.queue, agent_bus, unconfined=True)
    result = await bash(box, f"touch {outside}/chosen")
    assert (outside / "chosen").exists()
    assert "outside the sandbox" in result.content


async def test_running_unconfined_is_never_remembered(toolbox: Toolbox) -> None:
    task = asyncio.create_task(bash(toolbox, "echo hi"))
    [action] = await wait_pending(toolbox.queue)
    with pytest.raises(ValueError, match="not remembered"):
        toolbox.queue.approve(action.id, unconfined=True, remember="workspace")
    toolbox.queue.deny(action.id)
    await task
    assert toolbox.rules.workspace.list() == []


async def test_background_children_do_not_outlive_the_command(auto_box: Toolbox,
                                                              tmp_path: Path) -> None:
    marker = f"swetui-bg-{os.getpid()}-{tmp_path.name}"
    await bash(auto_box, f"(exec -a {marker} sleep 300) & echo started")
    assert await _gone(marker)


async def _gone(marker: str, deadline: float = 30.0) -> bool:
    """Wait (on a condition, with a generous deadline) until no process carries `marker`."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    while loop.time() < end:
        if not processes_with(marker):
            return True
        await asyncio.sleep(0.05)
    return False


def processes_with(marker: str) -> list[int]:
    """Processes whose argv[0] is `marker` (set with `exec -a`)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as handle:
                    if handle.read().split(b"\0")[0] == marker.encode():
                        found.append(int(name))
            except OSError:
                continue
    return found


async def test_no_metadata_changes_outside(auto_box: Toolbox, outside: Path) -> None:
    """Landlock does not govern chmod, chown, utimes or xattrs; the read-only mounts do."""
    keep = outside / "keep.txt"
    before = keep.stat()
    target = str(keep)
    for command in (f"chmod 000 {target}", f"chmod 4755 {target}", f"touch -d 2001-01-01 "
                    f"{target}", f"chown 1:1 {target}",
                    f"python3 -c \"import os; os.setxattr('{target}', 'user.x', b'1')\""):
        await bash(auto_box, command)
    after = keep.stat()
    assert (after.st_mode, after.st_mtime_ns, after.st_uid) == \
        (before.st_mode, before.st_mtime_ns, before.st_uid)
    assert os.listxattr(target) == []


async def test_nested_git_files_are_read_only_and_new_git_is_moved_aside(
        auto_box: Toolbox, git_ws: Path, outside: Path) -> None:
    sub = git_ws / "vendor" / "lib"
    sub.mkdir(parents=True)
    (sub / ".git").write_text("gitdir: ../../.git/modules/lib\n")
    await bash(auto_box, "echo 'gitdir: ../../evil' > vendor/lib/.git")
    assert (sub / ".git").read_text() == "gitdir: ../../.git/modules/lib\n"
    result = await bash(auto_box, f"mkdir fresh && cd fresh && git init -q && git config "
                                  f"core.fsmonitor 'touch {outside}/planted'")
    assert not (git_ws / "fresh" / ".git").exists()
    assert (git_ws / "fresh" / ".git.swetui-quarantine").is_dir()
    assert "moved git metadata" in result.content
    subprocess.run(["git", "status"], cwd=git_ws / "fresh", capture_output=True)
    assert not (outside / "planted").exists()


async def test_secrets_behind_links_and_in_tool_dirs_are_covered(auto_box: Toolbox,
                                                                 outside: Path) -> None:
    (outside / "prod.env").write_text(f"PROD={KEY}\n")
    (auto_box.root / ".env.local").symlink_to(outside / "prod.env")
    (auto_box.root / "node_modules" / "pkg").mkdir(parents=True)
    (auto_box.root / "node_modules" / "pkg" / ".env").write_text(f"K={KEY}\n")
    (auto_box.root / ".venv").mkdir()
    (auto_box.root / ".venv" / "id_rsa").write_text(f"{KEY}\n")
    result = await bash(auto_box, "cat .env.local; cat .en* | rev | rev; "
                                  "cat node_modules/pkg/.env .venv/id_rsa")
    assert KEY not in result.content


async def test_other_terminals_cannot_be_read(auto_box: Toolbox) -> None:
    leader, follower = os.openpty()
    try:
        name = os.ttyname(follower)
        os.write(leader, b"typed-password\n")
        result = await bash(auto_box, f"timeout 5 head -n 1 {name}; ls /dev")
        assert "typed-password" not in result.content
        assert "vda" not in result.content and "kmsg" not in result.content
    finally:
        os.close(leader)
        os.close(follower)


async def test_tampering_with_the_private_tmp_does_not_break_the_sandbox(
        auto_box: Toolbox) -> None:
    (auto_box.root / ".env").write_text(f"K={KEY}\n")
    await bash(auto_box, "rm -rf /tmp/.swetui-cover /dev/.swetui-cover; "
                         "mkdir /tmp/.swetui-cover; ln -s /etc/passwd /tmp/x")
    result = await bash(auto_box, "cat .env; echo still-works")
    assert "still-works" in result.content and KEY not in result.content


async def test_a_workspace_too_large_to_scan_is_refused(auto_box: Toolbox,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import swetui.agent.sandbox.scan as scan_module

    monkeypatch.setattr(scan_module, "MAX_WALK", 20)
    for index in range(30):
        (auto_box.root / f"f{index}").write_text("x")
    result = await bash(auto_box, "echo should-not-run > ran.txt")
    assert not (auto_box.root / "ran.txt").exists()
    assert "could not start" in result.content and "more than 20" in result.content


async def test_swetui_own_code_in_the_workspace_is_read_only(
        auto_box: Toolbox, monkeypatch: pytest.MonkeyPatch) -> None:
    """Developing swetui with swetui: a command must not rewrite the code swetui runs next
    outside the sandbox (nor the helper, which is passed as source, read at import)."""
    import swetui.agent.sandbox as sandbox_module

    own = auto_box.root / "swetui-install"
    own.mkdir()
    (own / "toolbox.py").write_text("# swetui's code\n")
    monkeypatch.setattr(sandbox_module, "_own_code_dirs", lambda: [str(own)])
    await bash(auto_box, "echo 'import os; os.system(\"evil\")' > swetui-install/toolbox.py")
    assert (own / "toolbox.py").read_text() == "# swetui's code\n"
    argv = auto_box.sandbox.argv("true", "/bin/sh", confine=True)
    assert sandbox_module.HELPER_SOURCE in argv and str(sandbox_module.HELPER) not in argv


async def test_the_session_keyring_is_not_inherited(auto_box: Toolbox) -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    add_key = {"x86_64": 248, "aarch64": 217}.get(os.uname().machine)
    if add_key is None:
        pytest.skip("add_key number unknown on this machine")
    payload = KEY.encode()
    serial = libc.syscall(add_key, b"user", b"swetui-test", payload, len(payload), -3)
    if serial < 0:
        pytest.skip("no session keyring here")
    script = ("import ctypes; l=ctypes.CDLL(None); "
              "k=l.syscall({n}, 10, -3, b'user', b'swetui-test', 0); "
              "b=ctypes.create_string_buffer(100); l.syscall({n}, 11, k, b, 100); "
              "print(b.value)").format(n={"x86_64": 250, "aarch64": 219}[os.uname().machine])
    result = await bash(auto_box, f'python3 -c "{script}"')
    assert KEY not in result.content
