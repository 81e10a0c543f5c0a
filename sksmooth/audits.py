"""The catalog of privacy audits: every subpackage's cases in one list.

Run by ``sksmooth audit``, the demo and the test suite. The audit plumbing
(:func:`sksmooth.metrics.audit_epsilon`, :class:`sksmooth.metrics.AuditCase`)
lives in :mod:`sksmooth.metrics` and knows no estimator; each subpackage
lists its own cases in its ``_audit_cases.py``; this module, above all
estimators, only collects them (so there is no import circle).
"""

from .mechanisms._audit_cases import mechanism_audit_cases
from .metrics import AuditCase
from .model_selection._audit_cases import private_search_audit_cases
from .perturbed._audit_cases import perturbed_audit_cases
from .preprocessing._audit_cases import private_bounds_audit_cases
from .proper._audit_cases import private_proper_audit_cases
from .release._audit_cases import release_audit_cases

__all__ = ["AuditCase", "audit_cases"]


def audit_cases():
    """Return the list of :class:`AuditCase` of every mechanism and estimator.

    The first case is the Laplace mechanism's (the demo runs it).
    """
    return [
        *mechanism_audit_cases(),
        *perturbed_audit_cases(),
        *release_audit_cases(),
        *private_proper_audit_cases(),
        *private_search_audit_cases(),
        *private_bounds_audit_cases(),
    ]
