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


def test_demo_fast_end_to_end(tmp_path):
    out = tmp_path / "figs"
    proc = _run("demo", "--fast", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    report = proc.stdout
    from sksmooth._demo import SECTIONS

    for title, _ in SECTIONS:
        assert f"== {title}" in report
    assert "privacy" in report and "done in" in report
    assert out.is_dir()


def test_audit_fast_reports_every_case_within_its_claim():
    proc = _run("audit", "--fast")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    from sksmooth.audits import audit_cases

    rows = [line for line in proc.stdout.splitlines() if line.rstrip().endswith(("yes", "NO"))]
    assert len(rows) == len(audit_cases())
    assert all(row.rstrip().endswith("yes") for row in rows)


def test_errors_are_one_line_with_nonzero_exit(capsys):
    assert main(["bench", "no-such-benchmark"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("sksmooth: error:")
    assert "available" in err[0]


def test_unknown_command_exits_nonzero():
    with pytest.raises(SystemExit) as exc:
        main(["frobnicate"])
    assert exc.value.code != 0
