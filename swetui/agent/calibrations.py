"""Per-model token calibration kept across sessions and workspaces.

A model's tokenizer is not tiktoken's (a llama.cpp server counted 1,030 prompt tokens where
the estimate said 854), so swetui keeps, per model, the ratio of the model's count to its
estimate, learned from reported usage or from the server's tokenize endpoint. It lives in
`$XDG_STATE_HOME/swetui/calibration.json` (0600): a new session of that model starts
calibrated, before its first request.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from swetui.files import SMALL_FILE_BYTES, read_regular
from swetui.paths import state_home, write_private

log = logging.getLogger(__name__)

_SANE = (0.2, 5.0)
"""Ratios outside this range are a broken measurement, not a tokenizer."""


@dataclass(frozen=True)
class Calibration:
    """One model's ratio (its tokens / swetui's estimate) and where it came from."""

    ratio: float
    source: str


def calibration_file() -> Path:
    return state_home() / "calibration.json"


def plausible(ratio: float) -> bool:
    return _SANE[0] <= ratio <= _SANE[1]


class CalibrationStore:
    """Reads and writes the calibration file; a missing or damaged file is empty."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else calibration_file()

    def _read(self) -> dict[str, Calibration]:
        try:
            data, _ = read_regular(self.path, SMALL_FILE_BYTES)
            raw = json.loads(data)
        except (OSError, ValueError) as exc:
            if not isinstance(exc, FileNotFoundError):
                log.info("calibration file unreadable (%s): starting afresh", exc)
            return {}
        out: dict[str, Calibration] = {}
        for model, entry in (raw.items() if isinstance(raw, dict) else ()):
            if isinstance(entry, dict):
                ratio, source = entry.get("ratio"), entry.get("source")
                if isinstance(ratio, int | float) and plausible(ratio) \
                        and isinstance(source, str):
                    out[str(model)] = Calibration(float(ratio), source)
        return out

    def get(self, model: str) -> Calibration | None:
        return self._read().get(model)

    def put(self, model: str, calibration: Calibration) -> None:
        """Remember `model`'s calibration (never fails the session: a read-only home only
        means it is learned again next time)."""
        if not plausible(calibration.ratio):
            return
        entries = self._read()
        if entries.get(model) == calibration:
            return
        entries[model] = calibration
        data = {name: {"ratio": round(entry.ratio, 4), "source": entry.source}
                for name, entry in sorted(entries.items())}
        try:
            write_private(self.path, json.dumps(data, indent=1).encode(), durable=False)
        except OSError as exc:
            log.info("calibration not saved: %s", exc)
