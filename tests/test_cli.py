import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sksmooth.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _run(*args, timeout=300):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + sys.path))
    return subprocess.run(
        [sys.executable, "-m", "sksmooth", *args],
        capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT,
    )


@pytest.mark.expensive
def test_demo_fast_end_to_end(tmp_path):
    out = tmp_path / "figs"
    proc = _run("demo", "--fast", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    report = proc.stdout
    from sksmooth._demo import SECTIONS

    for title, _ in SECTIONS:
        assert f"== {title}" in report
    assert "privacy" in report and "done in" in report
    # every private accuracy sits next to the majority-class rate
    accuracy_lines = [line for line in report.splitlines() if "accuracy" in line and "eps=" in line]
    assert accuracy_lines and all("majority class" in line for line in accuracy_lines)
    assert "PrivateSearchCV: selected" in report
    # no private fit is seeded, so nothing is reported as seeded noise
    assert "PrivacyLeakWarning" not in proc.stderr and "seeded noise" not in report
    # a fit's warning is reported once per configuration, not once per split
    assert "Warning" not in proc.stderr
    warned = [line for line in report.splitlines() if line.strip().startswith("warning:")]
    assert warned and len(warned) == len(set(warned))
    assert "seeds/" not in report
    if importlib.util.find_spec("matplotlib") is None:
        assert "figures skipped" in report and "figures in" not in report
        assert not out.exists()  # no empty folder left behind
    else:
        assert sorted(p.suffix for p in out.iterdir()) == [".png"] * 4
        assert "figures in" in report


def test_demo_without_matplotlib_says_figures_are_skipped(tmp_path, monkeypatch, capsys):
    import sksmooth._demo as demo
    from sksmooth.cli import run_demo

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails
    calls = []
    monkeypatch.setattr(demo, "SECTIONS", [("one section", lambda out_dir, fast, progress:
                                            calls.append(out_dir) or iter(["line"]))])
    assert run_demo(tmp_path / "figs", fast=True) == 0
    report = capsys.readouterr().out
    assert "figures skipped" in report and "figures in" not in report
    assert calls and not (tmp_path / "figs").exists()


def test_audit_fast_reports_every_case_within_its_claim(capsys, monkeypatch):
    # in this process: `python -m sksmooth` is run by the demo test above. Every
    # case of the catalog runs end to end, at 4 trials (a smoke test of the command
    # and of each case); at full size with their broken variants: tests/test_audits.py
    import dataclasses

    import sksmooth.cli
    from sksmooth.audits import audit_cases

    cases = [dataclasses.replace(case, n_trials=min(case.n_trials, 4))
             for case in audit_cases()]
    monkeypatch.setattr(sksmooth.cli, "audit_cases", lambda: cases)
    code = main(["audit", "--fast"])
    out = capsys.readouterr().out
    assert code == 0, out

    lines = out.splitlines()
    for case in cases:
        (row,) = [line for line in lines if line.startswith(case.name + " ")]
        assert "  yes; " in row
        # a case that cannot see a 2x overspend says so instead of passing as "ok"
        assert row.rstrip().endswith(case.power())
        assert ("no power at" in row) == (case.detectable_factor > 2)


def test_errors_are_one_line_with_nonzero_exit(capsys):
    assert main(["bench", "no-such-benchmark"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("sksmooth: error:")
    assert "available" in err[0]


def test_demo_out_naming_a_file_names_the_option(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    taken = tmp_path / "results.json"
    taken.write_text("{}")
    assert main(["demo", "--fast", "--out", str(taken)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0] and "folder" in err[0]
    assert taken.read_text() == "{}"


def test_unknown_command_exits_nonzero():
    with pytest.raises(SystemExit) as exc:
        main(["frobnicate"])
    assert exc.value.code != 0


def test_bench_skips_staged_scripts_and_passes_quick_only_where_it_exists(monkeypatch, capsys):
    # `sksmooth bench` always failed the staged synthetic-tables script (no
    # subcommand) and passed --quick to scripts without one (found by a review)
    from sksmooth import cli

    calls = []
    monkeypatch.setattr(cli.subprocess, "run",
                        lambda cmd, cwd: calls.append(cmd) or type("P", (), {"returncode": 0}))
    assert main(["bench", "--quick", "synthetic_tables", "audits", "ledger"]) == 0
    ran = {cmd[1].rsplit("/", 1)[-1]: cmd[2:] for cmd in calls}
    assert ran == {"bench_audits.py": [], "bench_ledger.py": ["--quick"]}
    assert "skipped: bench_synthetic_tables.py runs in stages" in capsys.readouterr().out


def test_bench_and_audit_help_say_what_they_take_and_do(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    assert "available: aim_dependent_table, " in " ".join(capsys.readouterr().out.split())
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    assert "lower bound on its epsilon" in " ".join(capsys.readouterr().out.split())


def test_audit_seed_must_be_a_non_negative_integer(capsys):
    with pytest.raises(SystemExit):
        main(["audit", "--seed", "-1"])
    assert "--seed must be an integer >= 0" in capsys.readouterr().err
