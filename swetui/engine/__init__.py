"""The context engine: items, tokens, layers, budget, assembly, the event bus and the
session store. Imports no Textual.

This package imports nothing, so a headless command loads only the engine modules it uses
(`swetui sessions` lists sessions without loading tiktoken). Import the modules themselves
(`swetui.engine.context`, `swetui.engine.compaction`, …).
"""
