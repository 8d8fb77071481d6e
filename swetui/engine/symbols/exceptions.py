"""Which classes of the map are exceptions: the name says so (`…Error`, `…Exception`), or a
base class is one (`RequestRedirect(HTTPException, RoutingException)`)."""

from __future__ import annotations

from swetui.engine.symbols.symbol_map import SymbolIndex

EXCEPTION_ENDINGS = ("Error", "Exception", "Exit", "Abort", "Warning", "Interrupt")
MAX_DEPTH = 8
"""Generations of base classes looked through."""


def is_exception(index: SymbolIndex, name: str) -> bool:
    """Whether a class of this name is an exception: its name says so, or one of its bases
    (up to MAX_DEPTH generations) does. Each name is looked at once, so a workspace whose
    classes each list many others as bases costs one pass over them, not a walk of every
    path through them."""
    seen = {name}
    generation = [name]
    for _depth in range(MAX_DEPTH + 1):
        if any(found.endswith(EXCEPTION_ENDINGS) for found in generation):
            return True
        following: list[str] = []
        for found in generation:
            for _rel, definition in index.by_name.get(found, []):
                if definition.kind != "class":
                    continue
                for base in definition.bases:
                    if base not in seen:
                        seen.add(base)
                        following.append(base)
        if not following:
            return False
        generation = following
    return False
