import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _python_blocks():
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


@pytest.mark.expensive
def test_readme_example_runs_certified_and_is_rerunnable(tmp_path):
    blocks = _python_blocks()
    assert blocks, "README has no python example"
    script = tmp_path / "readme_example.py"
    script.write_text(blocks[0])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + sys.path))
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    # the stump names its feature: the DataFrame's names survive PublicBoundsScaler
    assert re.match(r"(mean|worst) [a-z ]+ (<|>=) [\d.]+ -> [01] \(else [01]\)", lines[0])
    assert lines[1].endswith("[CERTIFIED]")
    assert "PrivacyLeakWarning" not in proc.stderr  # the example seeds no private fit
    # 3 folds x (0.5 + 1.0) + selection 0.5 + refit at the dearer candidate 1.0
    assert lines[-1] == "(6, 0)-DP"
    # rerunnable: it leaves nothing in its folder (its ledger is a fresh temporary
    # file), so a second run there starts as the first did
    assert list(tmp_path.iterdir()) == [script]


def test_readme_test_command_is_the_one_ci_runs():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.S)
    assert len(blocks) == 3  # set-up is three commands: demo, tests, CI's slow stage
    demo, tests, slow = (b.strip() for b in blocks)
    assert "\n" not in demo and demo.endswith("sksmooth demo")
    assert "\n" not in tests and "install-services.sh" in tests
    assert tests.endswith('python -m pytest -q -m "not slow" tests')
    assert slow == "python -m pytest -q -m slow tests"
    ci_lines = [line.strip() for line in ci.splitlines()]
    # both stages, the default suite first
    assert tests in ci_lines and slow in ci_lines
    assert ci_lines.index(tests) < ci_lines.index(slow)


def test_user_facing_text_cites_papers_not_internal_files():
    files = [ROOT / "README.md", ROOT / "sksmooth" / "_demo.py"]
    files += sorted((ROOT / "docs").rglob("*.rst")) + sorted((ROOT / "examples").glob("*.py"))
    files += sorted((ROOT / "sksmooth" / "datasets").glob("*.py"))
    files += sorted((ROOT / "sksmooth" / "model_selection").glob("*.py"))
    offenders = [str(f.relative_to(ROOT)) for f in files
                 if re.search(r"seeds/|seed 00\d", f.read_text(encoding="utf-8"))]
    assert offenders == []
    references = (ROOT / "docs" / "references.rst").read_text(encoding="utf-8")
    for arxiv in ("2006.10129", "2012.03893", "2502.10292", "2004.00010", "2201.12677",
                  "2108.04978", "1811.07971"):
        assert f"arXiv:{arxiv}" in references
