import json
import subprocess
import sys

from swetui import __version__
from tests.in_process import call_main
from tests.trusted import trust_workspace


def swetui(*args, cwd=None):
    """The headless commands in-process (tests/in_process.py); --version and --help, whose
    start-up is what they are about, as a process."""
    if args[0].startswith("-"):
        return subprocess.run([sys.executable, "-m", "swetui", *args], capture_output=True,
                              text=True, cwd=cwd, timeout=60)
    return call_main(*args, cwd=cwd)


def test_version_and_help():
    assert swetui("--version").stdout.strip() == f"swetui {__version__}"
    help_text = swetui("--help").stdout
    assert "run PROMPT" in help_text and "--model" in help_text


def test_version_does_not_load_textual_or_the_tokenizer():
    code = ("import sys; from swetui.cli import main\n"
            "try: main(['--version'])\nexcept SystemExit: pass\n"
            "print('textual' in sys.modules, 'tiktoken' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    assert out.strip().endswith("False False")


def test_context_json_shape(workspace):
    (workspace / "AGENTS.md").write_text("Be brief.")
    result = swetui("context", str(workspace), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["limit"] == 256_000 and report["threshold"] == 0.8
    assert report["total"] == sum(layer["tokens"] for layer in report["layers"]
                                  if layer["name"] != "reserve")
    assert {"name", "tokens", "budget"} <= set(report["layers"][0])
    item = next(i for i in report["items"] if i["id"] == "mem:AGENTS.md")
    assert item == item | {"layer": "memory", "kind": "memory_file", "title": "AGENTS.md",
                           "state": "included", "pinned": False}
    assert item["tokens"] > 0


def test_context_table_and_context_limit(workspace):
    result = swetui("context", str(workspace), "--context-limit", "32000")
    assert result.returncode == 0
    assert "of 32,000 tokens" in result.stdout and "Layers" in result.stdout
    assert "read_file" in result.stdout


def test_missing_path_is_one_line_exit_2(tmp_path):
    result = swetui("context", str(tmp_path / "missing"))
    assert result.returncode == 2
    assert result.stderr.strip() == f"swetui: {tmp_path / 'missing'}: no such directory"


def test_bad_config_is_one_line_exit_2(workspace):
    (workspace / ".swetui").mkdir()
    (workspace / ".swetui" / "config.toml").write_text("context_limit = 'lots'\n")
    trust_workspace(workspace)
    result = swetui("context", str(workspace))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "config.toml, line 1: context_limit" in result.stderr


def test_read_only_workspace_still_shows_context(workspace):
    (workspace / ".swetui").write_text("not a directory")
    result = swetui("context", str(workspace), "--json")
    assert result.returncode == 0
    assert "cannot be saved" in result.stderr
    assert json.loads(result.stdout)["total"] > 0


def test_init_writes_project_memory(workspace):
    (workspace / "pyproject.toml").write_text('[project]\nname="demo"\ndependencies=["httpx"]\n')
    result = swetui("init", str(workspace))
    assert result.returncode == 0
    text = (workspace / "SWETUI.md").read_text()
    assert "A demo project for swetui tests." in text and "httpx" in text
    assert "`src/`" in text
    assert swetui("init", str(workspace)).returncode == 1  # never overwrites silently


def test_sessions_lists_nothing_then_something(workspace):
    assert "No sessions" in swetui("sessions", str(workspace)).stdout


def test_rules_are_listed_and_removed(workspace):
    (workspace / ".swetui").mkdir()
    config = workspace / ".swetui" / "config.toml"
    config.write_text('mode = "ask"\n\n[[approval_rules]]\naction = "allow"\nkind = "command"\n'
                      'pattern = "git status"\n\n[[approval_rules]]\naction = "deny"\n'
                      'kind = "path"\npattern = "secrets/**"\n')
    trust_workspace(workspace)
    listing = swetui("rules", str(workspace))
    assert "1. allow command git status" in " ".join(listing.stdout.split())
    assert "2. deny path secrets/**" in " ".join(listing.stdout.split())
    removed = swetui("rules", str(workspace), "--remove", "1")
    assert removed.returncode == 0 and "Removed rule 1" in removed.stdout
    assert "git status" not in config.read_text() and 'mode = "ask"' in config.read_text()
    assert swetui("rules", str(workspace), "--remove", "5").returncode == 1


def test_the_workspace_without_a_terminal_says_so_instead_of_drawing_into_a_pipe(workspace):
    # `swetui > log` or `swetui < /dev/null` once drew the full screen into the pipe and spun
    # on input that never came; a user gets one line saying what to run instead.
    result = subprocess.run([sys.executable, "-m", "swetui", str(workspace), "--model",
                             "offline"], capture_output=True, text=True, timeout=60,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("swetui: the full-screen workspace needs a terminal")
    assert 'swetui run "PROMPT"' in result.stderr
