"""What a change to the context does to the next request, worked out before it is made
(DESIGN §2, "History and the cache"): the tokens it saves, and the tokens it turns from
read-from-cache into sent fresh (and, for a provider that caches at breakpoints, written to
the cache again).

The change is assembled on the side (`ContextEngine.assemble(changes=…, added=…)`), nothing
is put in place; both requests are compared with the prefix the provider holds from the last
send, exactly as the gauge's cache line compares the next request.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from swetui.engine.assembly import AssemblyResult
from swetui.engine.cache import MIN_CACHED, CacheState, explicit_caching
from swetui.engine.context import ContextEngine, Priced
from swetui.engine.items import ContextItem


@dataclass(frozen=True, slots=True)
class NextRequest:
    """The next request's prompt tokens as the provider will bill them."""

    total: int
    cached: int
    """Expected to be read from the provider's cache."""
    written: int
    """Expected to be written to the cache (a provider that caches at breakpoints)."""

    @property
    def fresh(self) -> int:
        """Sent at the normal input price (neither read nor written)."""
        return max(0, self.total - self.cached - self.written)


@dataclass(frozen=True, slots=True)
class ChangeEffect:
    """The next request without and with a change."""

    before: NextRequest
    after: NextRequest
    state: CacheState
    """The cache as it stands (`warm`: something the provider still holds was sent)."""
    model: str
    """The model the request after the change goes to."""

    @property
    def saved(self) -> int:
        """Tokens the change takes off the request (negative: it adds them)."""
        return self.before.total - self.after.total

    @property
    def uncached(self) -> int:
        """Tokens the change turns from read-from-cache into sent fresh."""
        return max(0, self.before.cached - self.after.cached)


def next_request(engine: ContextEngine, result: AssemblyResult, *, now: float,
                 model: str | None = None) -> tuple[NextRequest, CacheState]:
    """`result` as the provider would bill it if sent at `now` (to `model`, by default the
    engine's)."""
    model = engine.model if model is None else model
    view = engine.cache_view(now, result, model=model)
    written = 0
    if explicit_caching(model):
        end = max(result.breakpoints, default=0)
        stable = sum(unit.tokens for unit in result.prefix[:end])
        if stable >= MIN_CACHED:
            written = max(0, min(stable, view.total) - view.cached)
    return NextRequest(total=view.total, cached=view.cached, written=written), view.state


def change_effect(engine: ContextEngine, *, now: float, changes: Iterable[Priced] = (),
                  added: Iterable[ContextItem] = (), model: str | None = None) -> ChangeEffect:
    """What `changes` to existing items (priced by `engine.price` / `price_edit`), `added`
    items and a switch to `model` do to the next request sent at `now`."""
    before, state = next_request(engine, engine.assemble(), now=now)
    changed = engine.assemble(changes=list(changes), added=list(added))
    after, _ = next_request(engine, changed, now=now, model=model)
    return ChangeEffect(before=before, after=after, state=state,
                        model=engine.model if model is None else model)
