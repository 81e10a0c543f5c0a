"""Metrics: empirical privacy audits (SPEC §8)."""

from ._audit import AuditResult, audit_epsilon, audit_epsilon_search

__all__ = ["AuditResult", "audit_epsilon", "audit_epsilon_search"]
