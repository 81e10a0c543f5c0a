"""Metrics: regret and the empirical privacy audit.

Unlike the estimators, nothing here is private or learns: these functions
*measure*. :func:`regret` compares a learner's losses with the best
hypothesis in hindsight (exactly, by sweeping the class); :func:`audit_epsilon`
and :func:`audit_epsilon_search` turn repeated runs of any mechanism on two
neighbouring datasets into a statistically valid lower bound on its epsilon.
Estimator-specific audit cases live with their estimators; this subpackage
holds only the plumbing (``AuditCase``, ``AuditResult``); the catalog
:mod:`sksmooth.audits` collects the cases.

References
----------
M. Jagielski, J. Ullman and A. Oprea, "Auditing differentially private
machine learning: how private is private SGD?", NeurIPS 2020, arXiv:2006.07709.
Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer, "Detecting violations of
differential privacy", CCS 2018, arXiv:1805.10277.
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
