"""swetui's benchmarks: `python -m bench [--json FILE] [--only NAME ...]`.

Each module exposes `run() -> list[dict]`; every entry has name, value, unit, baseline,
ratio, target and pass. Absolute times on shared machines are noisy, so each benchmark
measures its naive baseline in the same run and reports the ratio.
"""
