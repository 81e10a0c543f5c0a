"""The shared progress reporter behind every estimator's ``verbose``."""

import builtins
import sys

import pytest

from sksmooth._progress import Progress


def test_silent_when_not_verbose(capsys):
    with Progress("Est", 0, total=10) as progress:
        progress.log("stage")
        progress.update(10)
    assert capsys.readouterr().err == ""


def test_plain_bar_and_lines_without_tqdm(capsys, monkeypatch):
    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name == "tqdm":
            raise ImportError("tqdm hidden by the test")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    monkeypatch.delitem(sys.modules, "tqdm", raising=False)
    with Progress("Est", 1, total=5, unit="rounds") as progress:
        progress.log("start")
        progress.update(2)
        progress.log("middle")
        progress.update(3)
    err = capsys.readouterr().err
    assert err.startswith("[Est] start\n")
    assert "\r[Est] 2/5 rounds\n[Est] middle\n" in err
    assert err.endswith("\r[Est] 5/5 rounds\n")


def test_no_bar_for_short_loops(capsys):
    with Progress("Est", 1, total=3, min_total=10) as progress:
        progress.update(3)
        progress.log("done")
    assert capsys.readouterr().err == "[Est] done\n"


def test_tqdm_bar_when_installed(capsys):
    pytest.importorskip("tqdm")
    with Progress("Est", 1, total=4, unit="fits") as progress:
        progress.update(4)
    assert "4/4" in capsys.readouterr().err
