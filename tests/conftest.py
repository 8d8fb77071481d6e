"""Shared fixtures: every test gets its own config, state, data and cache homes, so nothing of
the user's leaks in and no two tests (or two runs at once) share a file."""

from __future__ import annotations

import compileall
import gc
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

import swetui

# A worker holds half a million long-lived objects once it has run some tests (Textual, numpy,
# tree-sitter's grammars, hypothesis), and every app a UI test starts leaves enough behind to
# make Python's collector scan them all again, about once a test: 28 full collections, 6.3 s of
# a 30 s run of four UI test files. A full collection waits for 100 collections of the middle
# generation instead of 10 (the young ones unchanged): 4 full collections, 2.3 s, 30 MB more.
_young, _middle, _ = gc.get_threshold()
gc.set_threshold(_young, _middle, 100)

# pytest keeps the test modules it rewrote for their asserts as bytecode, unless Python is told
# not to write any (PYTHONDONTWRITEBYTECODE, set on this development machine): then every
# worker of every run rewrites all ~180 of them again, 4-5 s of CPU each. Set here, before the
# test modules are imported; nothing else is written but their bytecode (in __pycache__/).
sys.dont_write_bytecode = False


def pytest_configure(config: pytest.Config) -> None:
    """Compile swetui's modules once, before any test starts a swetui. Machines that set
    PYTHONDONTWRITEBYTECODE (this development machine does) would otherwise have every swetui a test
    starts compile the modules it imports again: about 0.3 s of CPU per start, on a fresh clone
    close to a minute of the suite. Only the first process does it (xdist's controller)."""
    if not hasattr(config, "workerinput"):
        compileall.compile_dir(Path(swetui.__file__).parent, quiet=1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The `slow` tests start first: the workers hand out tests in order, and a run whose last
    test is its longest (mypy with no cache: about 25 s of one core) ends with one worker busy
    and the others idle."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


# Property-based tests: the default run is derandomised (the same examples every time, no
# example database, no deadline), so it cannot flake on a loaded machine. A randomised run,
# with many more examples, is on demand: SWETUI_HYPOTHESIS=random python -m pytest ...
_UNTIMED = {"deadline": None, "database": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("default", derandomize=True, max_examples=100, **_UNTIMED)
settings.register_profile("random", max_examples=1000, print_blob=True, **_UNTIMED)
_PROFILE = os.environ.get("SWETUI_HYPOTHESIS", "default")
if _PROFILE not in ("default", "random"):
    raise pytest.UsageError(f"SWETUI_HYPOTHESIS={_PROFILE!r}: use 'default' or 'random'")
settings.load_profile(_PROFILE)


@pytest.fixture(scope="session", autouse=True)
def pinned_tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Count tokens with the encoding swetui ships (cl100k, offline), never with one this
    machine happens to have in tiktoken's shared cache: counts show on screen (snapshots)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path_factory.mktemp("tiktoken-cache")))
        patch.delenv("DATA_GYM_CACHE_DIR", raising=False)
        yield


@pytest.fixture(autouse=True)
def no_secrets_held() -> Iterator[None]:
    """The secret store is process-wide (the start-up handover fills it; sessions and
    `main()` called in-process add to it): every test starts and ends with it empty, so no
    key or notice one test planted is seen by the next."""
    from swetui.secrets import STORE

    STORE.clear()
    yield
    STORE.clear()


@pytest.fixture(autouse=True)
def isolated_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    home = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    for name in ("XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, str(tmp_path_factory.mktemp(name.lower())))
    for name in ("SWETUI_MODEL", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL",
                 "ANTHROPIC_BASE_URL", "OLLAMA_HOST"):
        monkeypatch.delenv(name, raising=False)
    # A swetui started by a test buffers its output as a user's does (some machines set
    # this, and it hid a pipe closed early ending in exit status 120).
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small repository-like workspace."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "README.md").write_text("# Demo\n\nA demo project for swetui tests.\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def greet(name):\n    return f'hello {name}'\n")
    return root


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A loopback port that refuses connections for the whole test: bound, so no other
    process (a second suite running at the same time) can take it, but not listening."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


PLANTED = {
    "ANTHROPIC_API_KEY": "sk-ant-PLANTED-anthropic-0123456789abcdef",
    "OPENAI_API_KEY": "sk-PLANTED-openai-fedcba9876543210",
    "MY_SERVICE_TOKEN": "tok-PLANTED-service-5a5a5a5a5a",
}
"""Distinctive key values: a test that finds one of them anywhere has found a leak."""


@pytest.fixture
def planted_secrets():
    """The planted keys held by the process's secret store (as the start-up handover leaves
    them), removed again after the test."""
    from swetui.secrets import STORE

    STORE.load(PLANTED)
    yield dict(PLANTED)
    STORE.clear()
