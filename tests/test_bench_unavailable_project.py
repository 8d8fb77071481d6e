"""A labelled project whose sdist cannot be unpacked (a damaged archive in the cache, one
holding another folder, a download that fails) is left out of the retrieval benchmark with
a line naming it, how many requests it held and why, and counted in the score's `skipped`;
the other projects are measured. Before, its requests were skipped without a word (the
label checks) or the run stopped on a traceback. A made-up labels file: no real set read."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from bench.bench_retrieval_quality import evaluate
from bench.retrieval_projects import ProjectUnavailable, project_root


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    (cache / "tiny-1.0" / "tiny").mkdir(parents=True)
    (cache / "tiny-1.0" / "tiny" / "clock.py").write_text(
        "def tick(count):\n    \"\"\"Advance the clock by count ticks.\"\"\"\n"
        "    return count + 1\n")
    (cache / "damaged-1.0.tar.gz").write_bytes(b"not a tarball at all")
    with tarfile.open(cache / "elsewhere-2.0.tar.gz", "w:gz") as tar:
        data = b"X = 1\n"
        info = tarfile.TarInfo("other-folder/x.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    monkeypatch.setenv("SWETUI_BENCH_CACHE", str(cache))
    return cache


def made_up_labels(tmp_path: Path) -> Path:
    request = {"request": "where does tiny advance the clock by a number of ticks?",
               "needs": [{"path": "tiny/clock.py", "symbols": ["tick"]}]}
    path = tmp_path / "made_up_labels.json"
    path.write_text(json.dumps({
        "projects": {"tiny": {"requirement": "tiny==1.0", "root": "tiny-1.0"},
                     "damaged": {"requirement": "damaged==1.0", "root": "damaged-1.0"},
                     "elsewhere": {"requirement": "elsewhere==2.0", "root": "elsewhere-2.0"}},
        "requests": [{"project": "tiny", **request}, {"project": "damaged", **request},
                     {"project": "damaged", **request}, {"project": "elsewhere", **request}]}))
    return path


def test_an_unavailable_project_is_named_with_why_and_the_others_are_measured(
        tmp_path: Path, cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    score, _build = evaluate(False, made_up_labels(tmp_path), semantic=None)
    assert score.requests == 1  # tiny's one request measured
    said = capsys.readouterr().err
    assert "project damaged skipped (2 requests of made_up_labels.json)" in said
    assert "damaged-1.0.tar.gz cannot be unpacked" in said
    assert "project elsewhere skipped (1 requests of made_up_labels.json)" in said
    assert "holds no elsewhere-2.0/" in said
    assert len(score.skipped) == 2


def test_a_failed_download_says_what_pip_said(cache: Path) -> None:
    with pytest.raises(ProjectUnavailable, match=r"not a requirement ==: pip download failed"):
        project_root("not a requirement ==", "nothing-1.0")
