"""The prompt's `@path` mentions: each one adds that file to the context before the send."""

from __future__ import annotations

import re

from rich.text import Text

from swetui.agent import (
    Session,
)
from swetui.text import one_line
from swetui.ui.widgets.transcript import Transcript

AT_PATH = re.compile(r"(?:^|(?<=\s))@(\S+)")


def add_mentioned_paths(session: Session, text: str, transcript: Transcript) -> str:
    """Add every `@path` of `text` to the context, saying so (or why not) in the transcript;
    returns the text without them."""
    for match in AT_PATH.finditer(text):
        path = match.group(1).rstrip(",.;:")
        try:
            item = session.add_path(path)
        except (ValueError, OSError) as exc:
            transcript.error(str(exc))
            continue
        transcript.notice(Text(f"+ Added {one_line(item.title)} to the context "
                               f"({item.tokens:,} tokens, {item.layer.value} layer)"), "added")
    return AT_PATH.sub("", text)
