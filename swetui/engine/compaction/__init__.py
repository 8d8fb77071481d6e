"""Compaction (DESIGN §3): fold older context into headers, summaries and a reference index,
keep everything in the archive, and undo on request.

Two compactors share one interface (`compactor.Compactor`): `StructuralCompactor`
(`structural`: offline, deterministic, fast) and `ModelCompactor` (`model`: summaries by the
configured `compaction_model`, structural fallback). `plan` prices a compaction, `build`
assembles it, `apply` applies and undoes it, `text` writes headers, stubs and summaries,
`recall` gives back an archived exchange, `sample` makes synthetic sessions for tests and
benchmarks.
"""

from __future__ import annotations

from swetui.engine.compaction.apply import (
    NoCompaction,
    StalePlan,
    active_compactions,
    apply,
    priced_folds,
    undo,
)
from swetui.engine.compaction.compactor import Compactor
from swetui.engine.compaction.model import ModelCompactor, parse_reply
from swetui.engine.compaction.plan import CompactionPlan, Fold
from swetui.engine.compaction.recall import FORMS, RecallError, recall
from swetui.engine.compaction.structural import StructuralCompactor
from swetui.engine.compaction.text import identifiers

__all__ = [
    "FORMS", "CompactionPlan", "Compactor", "Fold", "ModelCompactor", "NoCompaction",
    "RecallError", "StalePlan", "StructuralCompactor", "active_compactions", "apply",
    "identifiers", "parse_reply", "priced_folds", "recall", "undo",
]
