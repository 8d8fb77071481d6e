"""A package's public names, imported from their modules when first used (PEP 562).

A package that exports its API eagerly makes every import of any of its modules load all of
them: `swetui sessions` would load tiktoken, an offline session httpx. Instead a package lists
where each name lives and gets a module `__getattr__` that imports it on first use; type
checkers read the same names from an `if TYPE_CHECKING:` import block beside the list.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """The `__getattr__` for `package`: each name in `homes` from the module it names."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(home), name)

    return __getattr__
