"""What the sandbox grants for swetui's own sake, and what it says about `sandbox_read`:
swetui's own Python installed with the home as its prefix must not open the home to
reading; a `sandbox_read` folder too large to scan is named as the reason a command did
not run (not "the workspace")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from swetui.agent.sandbox import Sandbox, WorkspaceTooLarge, probe
from swetui.agent.sandbox import scan as scan_module

KEY = "sk-ant-planted-PREFIXHOME-0123456789abcdef"


@pytest.mark.skipif(not probe().available, reason=f"no kernel sandbox here: {probe().detail}")
def test_a_python_installed_in_the_home_does_not_open_the_home(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    (home / "lib" / version).mkdir(parents=True)
    (home / "lib" / version / "site.py").write_text("# the standard library\n")
    (home / "notes.txt").write_text(f"bank login {KEY}\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(sys, "prefix", str(home))  # ./configure --prefix=$HOME
    monkeypatch.setattr(sys, "base_prefix", str(home))
    root = tmp_path / "ws"
    root.mkdir()
    sandbox = Sandbox(root, cover=())
    try:
        done = subprocess.run(sandbox.argv(f"cat {home}/notes.txt; cat {home}/lib/{version}/"
                                           "site.py", "/bin/sh", confine=True),
                              cwd=root, capture_output=True, text=True, timeout=60)
    finally:
        sandbox.close()
    assert KEY not in done.stdout + done.stderr
    assert "the standard library" in done.stdout  # its library is still readable


def test_a_sandbox_read_folder_too_large_to_scan_is_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan_module, "MAX_WALK", 40)
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("print(1)\n")
    big = tmp_path / "datasets"
    big.mkdir()
    for number in range(60):
        (big / f"part{number}.csv").write_text("1\n")
    sandbox = Sandbox(root, cover=(), readable=(str(big),))
    try:
        with pytest.raises(WorkspaceTooLarge, match="sandbox_read entry .*datasets"):
            sandbox.argv("true", "/bin/sh", confine=True)
    finally:
        sandbox.close()


@pytest.mark.skipif(not probe().available, reason=f"no kernel sandbox here: {probe().detail}")
def test_pytest_runs_in_a_package_of_a_monorepo_whose_top_configures_it(tmp_path: Path) -> None:
    """pytest takes the top's pyproject.toml as its rootdir and lists each folder from there
    down to the tests: the sandbox lets it list them (names only), not read the rest."""
    top = tmp_path / "mono"
    package = top / "packages" / "billing"
    (package / "tests").mkdir(parents=True)
    (top / "services").mkdir()
    (top / "services" / "notes.txt").write_text(f"admin login {KEY}\n")
    (top / "pyproject.toml").write_text('[tool.pytest.ini_options]\naddopts = "-q"\n')
    (package / "tests" / "test_total.py").write_text("def test_total():\n    assert 1 + 1 == 2\n")
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    sandbox = Sandbox(package, cover=())
    try:
        done = subprocess.run(sandbox.argv(
            f"{sys.executable} -m pytest -p no:cacheprovider -p no:randomly; "
            "cat ../../services/notes.txt", "/bin/sh", confine=True),
            cwd=package, capture_output=True, text=True, timeout=120)
    finally:
        sandbox.close()
    assert "1 passed" in done.stdout, done.stdout + done.stderr
    assert KEY not in done.stdout + done.stderr
