"""The audit suite run by ``sksmooth audit`` (SPEC §8, §10).

Each :class:`AuditCase` runs one mechanism or private estimator many times on
a fixed pair of neighbouring datasets and returns an :class:`AuditResult`
whose ``epsilon_lower`` must stay below the case's claimed epsilon. The cases
are written once here and used by the command line and by the test suite.
"""

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..mechanisms import exponential_mechanism, gaussian_mechanism, laplace_mechanism
from ._audit import audit_epsilon, audit_epsilon_search

__all__ = ["AuditCase", "audit_cases"]


@dataclass(frozen=True)
class AuditCase:
    """A named privacy audit.

    Attributes
    ----------
    name : str
        What is audited, on which neighbouring pair.
    epsilon, delta : float
        The claimed privacy parameters.
    run : callable
        ``run(n_trials, random_state) -> AuditResult``.
    n_trials : int
        Trials per dataset for the full audit (``fast`` runs use a tenth).
    """

    name: str
    epsilon: float
    delta: float
    run: Callable
    n_trials: int


def _laplace_case(epsilon=1.0):
    def mechanism(value, rng, n):
        return laplace_mechanism(value, epsilon, 1.0, rng, size=n)

    def run(n_trials, random_state):
        return audit_epsilon(
            mechanism, 0.0, 1.0, lambda out: out > 0.5 + 2.0 / epsilon,
            n_trials, random_state=random_state, batch=True,
        )

    return AuditCase(f"laplace_mechanism (eps={epsilon}, counts 0 vs 1)", epsilon, 0.0, run, 400_000)


def _gaussian_case(epsilon=1.0, delta=1e-5):
    def mechanism(value, rng, n):
        return gaussian_mechanism(value, epsilon, delta, 1.0, rng, size=n)

    def run(n_trials, random_state):
        return audit_epsilon_search(
            mechanism, 0.0, 1.0, n_trials, random_state=random_state,
            batch=True, delta=delta,
        )

    return AuditCase(
        f"gaussian_mechanism analytic (eps={epsilon}, delta={delta})",
        epsilon, delta, run, 400_000,
    )


def _exponential_case(epsilon=1.0):
    # Neighbouring score vectors (sensitivity 1): one candidate gains a point
    # while all others lose one, the extreme case for the 2*sensitivity scaling.
    scores0 = np.zeros(5)
    scores1 = scores0 - 1.0
    scores1[0] = 1.0

    def mechanism(scores, rng, n):
        return exponential_mechanism(scores, epsilon, 1.0, rng, size=n)

    def run(n_trials, random_state):
        return audit_epsilon(
            mechanism, scores1, scores0, lambda out: out == 0, n_trials,
            random_state=random_state, batch=True,
        )

    return AuditCase(
        f"exponential_mechanism (eps={epsilon}, 5 candidates)", epsilon, 0.0, run, 400_000
    )


def audit_cases():
    """Return the list of :class:`AuditCase` of every mechanism and estimator."""
    return [_laplace_case(), _gaussian_case(), _exponential_case()]
