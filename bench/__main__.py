"""Run the benchmarks: `python -m bench [--json FILE] [--only NAME ...]`."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import traceback

MODULES = ("bench_engine", "bench_compaction", "bench_watcher", "bench_streaming",
           "bench_startup", "bench_sandbox", "bench_retrieval", "bench_mcp", "bench_symbol_map",
           "bench_retrieval_quality", "bench_cost", "bench_memory")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON")
    parser.add_argument("--only", nargs="*", metavar="MODULE",
                        help=f"modules to run (default: all of {', '.join(MODULES)})")
    args = parser.parse_args(argv)
    results = []
    for name in args.only or MODULES:
        try:
            module = importlib.import_module(f"bench.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"bench.{name}":
                print(f"{name}: not present, skipped", file=sys.stderr)
                continue
            raise
        try:
            entries = module.run()
        except Exception:  # one broken benchmark must not hide the others
            traceback.print_exc()
            entries = [{"name": name, "value": None, "unit": "", "baseline": None,
                        "ratio": None, "target": "", "pass": False, "error": "crashed"}]
        for entry in entries:
            results.append(entry)
            ratio = f"{entry['ratio']}x" if entry.get("ratio") is not None else "-"
            mark = "PASS" if entry["pass"] else "FAIL"
            print(f"{mark}  {entry['name']:<34} {entry['value']} {entry['unit']:<12} "
                  f"baseline {entry['baseline']}  ratio {ratio}  target {entry['target']}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=2)
    return 0 if all(entry["pass"] for entry in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
