"""The engine and the providers export their public API from their package, lazily: each
name is the object its module defines, and importing the package loads none of them (a
headless command pays only for what it uses)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

PACKAGES = ("swetui.engine", "swetui.providers")


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_is_its_modules_object(package: str) -> None:
    module = importlib.import_module(package)
    homes = module._HOMES
    assert sorted(module.__all__) == sorted(homes)
    for name in module.__all__:
        assert getattr(module, name) is getattr(importlib.import_module(homes[name]), name)
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        module.nothing_here  # noqa: B018


@pytest.mark.parametrize("package", PACKAGES)
def test_importing_the_package_loads_none_of_its_modules(package: str) -> None:
    code = (f"import sys, {package}; "
            f"print(sorted(m for m in sys.modules if m.startswith('{package}.')), "
            "[m for m in ('tiktoken', 'httpx', 'pydantic') if m in sys.modules])")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.strip()
    assert shown == "[] []"
