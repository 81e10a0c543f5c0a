import contextlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.expensive  # seconds each: after the cheap tests

ROOT = Path(__file__).resolve().parent.parent


def test_docs_build_without_warnings(tmp_path):
    pytest.importorskip("sphinx", reason="docs extra not installed")
    pytest.importorskip("numpydoc", reason="docs extra not installed")
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(ROOT / "docs"), str(tmp_path / "html")],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert (tmp_path / "html" / "api.html").exists()


GUIDES = sorted(p.name for p in (ROOT / "docs" / "guide").glob("*.rst") if p.name != "concepts.rst")


def _opening_example(text):
    """The first python block of a guide and whether it comes before any section."""
    lines = text.splitlines()
    first_section = next(i for i in range(3, len(lines))
                         if set(lines[i]) <= set("-=~^") and len(lines[i]) > 3)
    start = lines.index(".. code-block:: python")
    code = []
    for line in lines[start + 2:]:
        if line and not line.startswith("    "):
            break
        code.append(line[4:])
    return "\n".join(code).strip(), start < first_section


@pytest.mark.parametrize("guide", GUIDES)
def test_each_guide_opens_with_a_short_runnable_example(guide, monkeypatch):
    code, first = _opening_example((ROOT / "docs" / "guide" / guide).read_text())
    assert first, f"{guide}: the first python example must come before the first section"
    assert len(code.splitlines()) <= 15, f"{guide}: the opening example has over 15 lines"
    # in this process (no second interpreter importing scipy and scikit-learn again),
    # with fresh globals: the example must import every name it uses
    monkeypatch.chdir(ROOT)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, guide, "exec"), {"__name__": "__main__"})
    assert printed.getvalue().strip(), f"{guide}: the opening example prints nothing"
