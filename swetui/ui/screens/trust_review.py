"""Review what the workspace ships before trusting it: every effect, then trust or not now
(`TrustReview`, the modal; `review_workspace_trust`, the whole exchange with the user)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from swetui.trust import MCP, trust_state
from swetui.trust_review import Review, applies_after_trust, review, trust_reviewed

INTRO = ("This workspace ships settings you have not trusted. Until you do, swetui uses your "
         "own settings and starts nothing they name; a change to them asks again.")


def review_text(reviews: list[Review]) -> Text:
    """Each file with its state and every effect (already escaped by `review`)."""
    text = Text()
    for found in reviews:
        state = "cannot be trusted" if found.error else "not trusted"
        text.append(found.name, style="bold")
        text.append(f"  ({state})\n", style="bold red" if found.error else "bold yellow")
        for line in (found.error,) if found.error else found.effects or (found.summary,):
            text.append(f"  {line}\n")
        text.append("\n")
    return text


class TrustReview(ModalScreen[bool]):
    """Dismisses with True when the user trusts the files (t), False for not now (esc)."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")

    BINDINGS = [
        Binding("t", "trust", "Trust and apply"),
        Binding("escape,n", "later", "Not now"),
    ]

    def __init__(self, reviews: list[Review]) -> None:
        super().__init__()
        self.reviews = reviews
        self.can_trust = any(not found.error for found in reviews)

    def compose(self) -> ComposeResult:
        with Vertical(id="trust-dialog"):
            yield Label("Trust this workspace's settings?", id="trust-title")
            yield Static(INTRO, id="trust-intro")
            with VerticalScroll(id="trust-files"):
                yield Static(review_text(self.reviews), id="trust-effects")
            with Horizontal(id="trust-buttons"):
                if self.can_trust:
                    yield Button("Trust and apply (t)", id="trust", variant="warning")
                yield Button("Not now (esc)", id="later")
            keys = "t trust and apply · esc not now (asks again next start)" if \
                self.can_trust else "esc close · fix the files above, then /trust"
            yield Static(keys, id="trust-keys")

    def on_mount(self) -> None:
        self.query_one("#later", Button).focus()  # enter must not trust by accident

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "trust" and self.can_trust)

    def action_trust(self) -> None:
        if self.can_trust:
            self.dismiss(True)

    def action_later(self) -> None:
        self.dismiss(False)


Notice = Callable[[str, str], None]
"""Shows a line in the transcript: the text and its kind (`info`, `warning`)."""


async def review_workspace_trust(app: App[object], root: Path, notice: Notice, *, asked: bool,
                                 mode: str, launch_mode: str | None,
                                 set_mode: Callable[[str], None]) -> bool:
    """Show what untrusted shipped files would change and trust them if the user says so (at
    start, and on /trust, `asked`); then apply the workspace's mode unless `--mode` set one.
    True when the user just trusted `.mcp.json` (its servers can start now)."""
    state = await asyncio.to_thread(trust_state, root)
    reviews = [review(shipped) for shipped in state.untrusted]
    if not reviews:
        if asked:
            notice("✓ Nothing to trust: everything this workspace ships "
                   "(.swetui/config.toml, .mcp.json) is trusted, or absent.", "info")
        return False
    if not await app.push_screen_wait(TrustReview(reviews)):
        notice("Not trusted: swetui keeps your own settings and ignores "
               "what the workspace ships. /trust reviews it again.", "warning")
        return False
    after, _ = await asyncio.to_thread(trust_reviewed, state)
    trusted = ", ".join(shipped.name for shipped in after.files if shipped.trusted)
    shipped_mode, later = applies_after_trust(after)
    notice(f"✓ Trusted {trusted}; any change to it asks again.", "info")
    if shipped_mode and shipped_mode != mode:
        if launch_mode:
            notice(f"Mode stays {mode} (--mode on the command line); the workspace sets "
                   f"{shipped_mode}.", "info")
        else:
            set_mode(shipped_mode)
    if later:
        notice(f"{', '.join(later)}: from the next start.", "warning")
    return any(shipped.name == MCP and shipped.trusted for shipped in after.files)
