"""Metrics: regret against the best hypothesis in hindsight, and empirical
privacy audits (SPEC §8).

The audit plumbing (:func:`audit_epsilon`, :func:`audit_epsilon_search`,
:class:`AuditCase`) depends on no estimator; the audit cases of each
subpackage live in its ``_audit_cases.py`` and the catalog
:mod:`sksmooth.audits` collects them.
"""

from ._audit import (
    AuditCase,
    AuditResult,
    DeltaAuditResult,
    audit_delta,
    audit_epsilon,
    audit_epsilon_search,
    audit_epsilon_select,
)
from ._regret import best_loss_in_hindsight, regret

__all__ = [
    "AuditCase",
    "AuditResult",
    "DeltaAuditResult",
    "audit_delta",
    "audit_epsilon",
    "audit_epsilon_search",
    "audit_epsilon_select",
    "best_loss_in_hindsight",
    "regret",
]
