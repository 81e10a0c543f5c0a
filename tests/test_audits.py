"""The audit catalog (sksmooth.audits): every case valid, informative, and with power.

Each case must give a lower bound below its claim and at least its stated
fraction of it; each broken variant (2x epsilon, half the noise, too little
padding) must be caught, i.e. give a bound above the claim, at the same
number of trials. Seeds are fixed; a bound is valid with 95% confidence.
"""

import ast
from pathlib import Path

import pytest

import sksmooth

from sksmooth.audits import audit_cases
from sksmooth.mechanisms._audit_cases import mechanism_audit_cases

MECHANISM_CASES = mechanism_audit_cases()
_MECHANISM_NAMES = {case.name for case in MECHANISM_CASES}
# The estimator cases refit an estimator per trial (30-70 s each on 2 cores):
# at full size they run with -m slow; `sksmooth audit --fast` (tests/test_cli.py)
# checks them in the default run.
CASES = [
    case if case.name in _MECHANISM_NAMES else pytest.param(case, marks=pytest.mark.slow)
    for case in audit_cases()
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: getattr(c, "name", None))
def test_audit_case_within_claim_and_informative(case):
    result = case.run(case.n_trials, 1234)
    assert result.epsilon_lower <= case.epsilon
    assert result.epsilon_lower >= case.min_fraction * case.epsilon


@pytest.mark.parametrize("case", [c for c in audit_cases() if c.run_broken is not None],
                         ids=lambda c: c.name)
def test_audit_case_catches_its_broken_variant(case):
    result = case.run_broken(case.n_trials, 1234)
    assert result.epsilon_lower > case.epsilon, case.broken


def test_every_mechanism_case_has_a_broken_variant():
    assert all(case.run_broken is not None and case.broken for case in mechanism_audit_cases())


def test_audit_plumbing_imports_no_estimator():
    """metrics/ is below the estimators: none of its modules imports one (issue 15)."""
    estimators = {"perturbed", "proper", "release", "online", "audits", "mechanisms"}
    for path in (Path(sksmooth.__file__).parent / "metrics").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level >= 2:
                top = (node.module or "").split(".")[0]
                assert top not in estimators, f"{path.name} imports ..{node.module}"
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                parts = node.module.split(".")
                assert not (parts[0] == "sksmooth" and len(parts) > 1
                            and parts[1] in estimators), f"{path.name} imports {node.module}"
