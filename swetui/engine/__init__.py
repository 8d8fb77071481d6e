"""The context engine: items, tokens, layers, budget, assembly, the event bus and the
session store. Imports no Textual.

This package imports nothing on purpose: the start-up key handover reads files through
`swetui.engine.files` before swetui's dependencies are importable (tests/test_key_memory.py).
Import the modules themselves (`swetui.engine.context`, `swetui.engine.compaction`, …).
"""
