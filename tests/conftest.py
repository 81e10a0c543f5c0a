"""Suite-wide test configuration.

* ``SCIPY_ARRAY_API=1`` is set here, before any test module imports scipy,
  so scikit-learn's array-API estimator checks run with the plain README
  command (``python -m pytest -q -m "not slow" tests``) instead of skipping.
* In CI (``CI`` set to true), a test skipped because an optional dependency
  is missing *fails* instead: CI installs the ``test`` extra, so such a skip
  means the extra is broken, and it must not pass silently. Only skips whose
  reason says a dependency is missing are turned into failures.
* Tests marked ``expensive`` (seconds each: subprocesses, documentation
  builds, audits) run after all the others, so a broken cheap check is
  reported first.
"""

import os
import re

os.environ.setdefault("SCIPY_ARRAY_API", "1")

import pytest  # noqa: E402

_MISSING_DEPENDENCY = re.compile(
    r"not installed|could not import|no module named|SCIPY_ARRAY_API", re.IGNORECASE
)


def _in_ci():
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _skip_reason(report):
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        return str(report.longrepr[2])
    return str(report.longrepr)


def _fail_missing_dependency(report):
    if not (_in_ci() and report.skipped and not hasattr(report, "wasxfail")):
        return
    reason = _skip_reason(report)
    if _MISSING_DEPENDENCY.search(reason):
        report.outcome = "failed"
        report.longrepr = (
            f"{reason}\nIn CI an optional dependency may not be missing: the test "
            "extra (pip install -e '.[test]') must install it."
        )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_missing_dependency(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_missing_dependency(outcome.get_result())


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("expensive") is not None)  # stable
