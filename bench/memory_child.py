"""One process holding what a long session holds, for `bench_memory`: `python -m
bench.memory_child MODE` prints one JSON object of resident memory (MB, from
/proc/self/status: `rss` now, `peak` the high-water mark) after each stage:

- `imports`: swetui's screen, engine and agent imported (Textual included);
- `session`: a realistic 256k-token session in the context engine (DESIGN §9's size);
- `map`: the symbol map of a real project (httpx 0.28.1 from the benchmark's cache);
- `retrieval`: three requests that describe behaviour retrieved from it, with MODE `meaning`
  (the embedding model loaded, as swetui installs it) or `words` (`rank_by_meaning = false`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench.retrieval_projects import project_root
from swetui.engine.compaction.sample import make_session
from swetui.engine.retrieval import retrieve
from swetui.engine.symbols.semantic import MODEL
from swetui.engine.symbols.symbol_map import SymbolMap
from swetui.ui.app import SweTuiApp

REQUESTS = ("where does the client decide whether to follow a redirect?",
            "how are cookies from a response kept for the next request?",
            "what happens when reading the response body times out?")


def _memory() -> dict[str, float]:
    fields = dict(line.split(":", 1) for line in
                  Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return {"rss": int(fields["VmRSS"].split()[0]) / 1024,
            "peak": int(fields["VmHWM"].split()[0]) / 1024}


def main(mode: str) -> dict[str, dict[str, float]]:
    stages = {"imports": _memory()}
    assert SweTuiApp is not None
    engine = make_session(256_000, limit=400_000)
    stages["session"] = _memory()
    symbols = SymbolMap(project_root("httpx==0.28.1", "httpx-0.28.1"))
    symbols.build()
    index = symbols.index()
    stages["map"] = _memory()
    for text in REQUESTS:
        result = retrieve(symbols.root, text, engine, turn=1, symbols=index,
                          semantic=MODEL if mode == "meaning" else None)
        assert result.items, text
    stages["retrieval"] = _memory()
    return stages


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
