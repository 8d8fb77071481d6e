"""Small rooms (CONVENTIONS "Shape"): every module of swetui stays under the size limit, so a
module keeps doing one thing and its name can say which."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "swetui"
MAX_LINES = 400


def lines_of(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


def oversized(package: Path, limit: int) -> list[str]:
    """A line per Python module under `package` with more than `limit` lines."""
    return [f"{path.relative_to(package.parent)}: {count} lines (limit {limit})"
            for path in sorted(package.rglob("*.py"))
            if (count := lines_of(path)) > limit]


def test_every_module_is_under_the_size_limit() -> None:
    too_long = oversized(PACKAGE, MAX_LINES)
    assert not too_long, ("split these into modules named for what they do (not a class "
                          "spread over files, not a mixin that imports its host):\n"
                          + "\n".join(too_long))


def test_the_check_names_an_oversized_module(tmp_path: Path) -> None:
    package = tmp_path / "swetui"
    (package / "ui").mkdir(parents=True)
    (package / "ui" / "small.py").write_text("x = 1\n" * MAX_LINES)
    (package / "ui" / "big.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert oversized(package, MAX_LINES) == [f"swetui/ui/big.py: {MAX_LINES + 1} lines "
                                             f"(limit {MAX_LINES})"]
