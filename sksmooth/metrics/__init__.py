"""Metrics: regret against the best hypothesis in hindsight, and empirical
privacy audits (SPEC §8)."""

from ._audit import AuditResult, audit_epsilon, audit_epsilon_search
from ._regret import best_loss_in_hindsight, regret

__all__ = [
    "AuditResult",
    "audit_epsilon",
    "audit_epsilon_search",
    "best_loss_in_hindsight",
    "regret",
]
