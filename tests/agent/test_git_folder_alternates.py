"""The check for FIFOs before swetui's own git reads a workspace's history walks the object
folders `objects/info/alternates` names. A planted alternates file could name one folder in
many spellings (`vendor`, `vendor/../vendor`, ...) or list thousands of lines: each spelling
was walked again, each line compared with every other (6,000 lines took 30 s, 20 spellings
of /usr/share 11 s), and every command waits on the history for up to 45 s a time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from swetui.agent import git_folder


def test_an_object_folder_named_many_ways_is_walked_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "ws"
    (root / ".git" / "objects" / "info").mkdir(parents=True)
    borrowed = tmp_path / "vendor"
    for number in range(40):
        (borrowed / f"d{number}").mkdir(parents=True)
    spellings = [str(borrowed) + "/../vendor" * count for count in range(30)]
    lines = [*spellings, *(f"missing-{number}" for number in range(3000))]
    (root / ".git" / "objects" / "info" / "alternates").write_text("\n".join(lines) + "\n")
    walked: list[str] = []
    scandir = os.scandir

    def counted(path: str) -> object:
        walked.append(os.path.realpath(path))
        return scandir(path)

    monkeypatch.setattr(git_folder.os, "scandir", counted)
    assert git_folder.why_not_git(root) is None
    under_vendor = [path for path in walked if path.startswith(str(borrowed))]
    assert len(under_vendor) == 41, len(under_vendor)  # the folder and its 40, once


def test_a_fifo_behind_a_far_alternate_still_refuses_git(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / ".git" / "objects" / "info").mkdir(parents=True)
    borrowed = tmp_path / "vendor" / "objects"
    (borrowed / "ab").mkdir(parents=True)
    os.mkfifo(borrowed / "ab" / "cdef")
    (root / ".git" / "objects" / "info" / "alternates").write_text(
        "".join(f"missing-{number}\n" for number in range(100)) + f"{borrowed}/../objects\n")
    found = git_folder.why_not_git(root)
    assert found is not None and "is a FIFO" in found, found


def test_folders_naming_each_other_by_thousands_refuse_git(tmp_path: Path) -> None:
    """A thousand borrowed folders each naming the thousand again: a million lines to read
    (each folder once, but every line of each file): git is not run."""
    root = tmp_path / "ws"
    (root / ".git" / "objects" / "info").mkdir(parents=True)
    listing = tmp_path / "listing"
    folders = [tmp_path / "many" / f"f{number}" for number in range(1000)]
    listing.write_text("".join(f"../{folder.name}\n" for folder in folders))
    for folder in folders:
        (folder / "info").mkdir(parents=True)
        (folder / "info" / "alternates").symlink_to(listing)
    (root / ".git" / "objects" / "info" / "alternates").write_text(f"{folders[0]}\n")
    found = git_folder.why_not_git(root)
    assert found is not None and "object folders" in found, found


def test_an_alternates_file_too_large_to_check_refuses_git(tmp_path: Path) -> None:
    """git reads all of it; the check read none of one past 64 KiB (its folders unwalked)."""
    root = tmp_path / "ws"
    (root / ".git" / "objects" / "info").mkdir(parents=True)
    borrowed = tmp_path / "vendor"
    (borrowed / "ab").mkdir(parents=True)
    os.mkfifo(borrowed / "ab" / "cdef")
    (root / ".git" / "objects" / "info" / "alternates").write_text(
        "#" * 70_000 + f"\n{borrowed}\n")
    found = git_folder.why_not_git(root)
    assert found is not None, "a FIFO git would wait on went unseen"
