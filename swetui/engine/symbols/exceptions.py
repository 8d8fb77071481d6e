"""Which classes of the map are exceptions: the name says so (`…Error`, `…Exception`), or a
base class is one (`RequestRedirect(HTTPException, RoutingException)`)."""

from __future__ import annotations

from swetui.engine.symbols.symbol_map import SymbolIndex

EXCEPTION_ENDINGS = ("Error", "Exception", "Exit", "Abort", "Warning", "Interrupt")


def is_exception(index: SymbolIndex, name: str, seen: frozenset[str] = frozenset()) -> bool:
    """Whether a class of this name is an exception: its name says so, or a base is one."""
    if name.endswith(EXCEPTION_ENDINGS):
        return True
    if name in seen or len(seen) > 8:
        return False
    return any(definition.kind == "class"
               and any(is_exception(index, base, seen | {name}) for base in definition.bases)
               for _rel, definition in index.by_name.get(name, []))
