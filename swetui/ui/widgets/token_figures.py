"""How the screen writes token figures, and what each one means: one definition per figure,
the same words in the gauge's tooltip, `?` on the gauge and `/help`.

The figures (the engine's `Budget` holds them):
- the next request: swetui's count of every layer it sends (`total`), and that count times
  the model's calibration ratio (`counted`), which the gauge's headline, its percentage,
  the threshold and the free room use;
- the reserve: room kept for the answer, never sent, so used + reserve + free = the window;
- the last request: what the provider reported (`measured`) beside swetui's count of that
  same request (`measured_estimate`); their ratio is the calibration;
- a turn's `↑`: the input of all its requests summed (a tool call makes a second request).
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from swetui.engine.budget import Budget

LEGEND: tuple[tuple[str, str], ...] = (
    ("Context ≈N / W", "the next request as the model counts it, of a window of W tokens "
                       "(≈: swetui's count × the calibration)"),
    ("layer rows", "swetui's count of each layer of the next request"),
    ("reserve ▒", "room kept for the answer: not sent, not in N (N + reserve + free = W)"),
    ("compact at", "past this share of the window, compaction runs before sending"),
    ("measured M", "input tokens the provider reported for the last request"),
    ("est. E ×R", "swetui's count of that same request; R = M ÷ E calibrates N"),
    ("cache · fresh", "of the next request: expected from the provider's cache · sent anew"),
    ("last H% hit", "share of the last turn's input read from the cache (~: estimated)"),
    ("↑ ↓ (done line)", "tokens a turn sent, all its requests summed · tokens the model wrote"),
)
"""Each figure of the gauge (and the done line) with what it means."""


def format_tokens(tokens: int) -> str:
    """A token count as people read it: 812, 12.3k, 256k, 1.2M."""
    if tokens < 1_000:
        return str(tokens)
    if tokens < 100_000:
        value = f"{tokens / 1_000:.1f}".rstrip("0").rstrip(".")
        return f"{value}k"
    if tokens < 1_000_000:
        return f"{round(tokens / 1_000)}k"
    value = f"{tokens / 1_000_000:.1f}".rstrip("0").rstrip(".")
    return f"{value}M"


def legend_text() -> str:
    """The legend as plain lines (a tooltip, a notification)."""
    return "\n".join(f"{figure}: {meaning}" for figure, meaning in LEGEND)


def used_figure(budget: Budget) -> str:
    """The next request as the gauge's headline writes it: `≈1.3k` when calibrated."""
    mark = "≈" if budget.calibrated_total is not None else ""
    return f"{mark}{format_tokens(budget.counted)}"


def last_request_line(budget: Budget, width: int, *, label: Style, figure: Style) -> Text:
    """`measured 1.2k · est. 957 ×1.29 (last request)`: the last request as the provider
    counted it and as swetui did, whose ratio calibrates the headline; `calibrated ×0.95
    (server tokenizer)` before any request was measured. Pieces that do not fit the width
    are left out from the end."""
    pieces: list[list[tuple[str, Style]]] = []
    if budget.measured is not None:
        pieces.append([("measured ", label), (format_tokens(budget.measured), figure)])
        if budget.measured_estimate:
            pieces.append([(" · est. ", label),
                           (format_tokens(budget.measured_estimate), figure)])
    learned = budget.calibration_source == "usage"
    if budget.calibration is not None:
        ratio = f"×{budget.calibration:.2f}"
        if budget.measured is not None and learned:
            pieces.append([(f" {ratio}", label)])
        else:
            pieces.append([(" · " if pieces else "", label), ("calibrated ", label),
                           (ratio, figure)])
            pieces.append([(" (earlier usage)" if learned else " (server tokenizer)", label)])
    if budget.measured is not None and (learned or budget.calibration is None):
        pieces.append([(" (last request)", label)])
    text = Text(no_wrap=True, overflow="ellipsis")
    for piece in pieces:
        if text.cell_len + sum(len(part) for part, _ in piece) > width:
            break
        for part, style in piece:
            text.append(part, style)
    return text
