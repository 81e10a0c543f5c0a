"""Privacy accounting: composition theorems and the privacy ledger."""

from ._ledger import BudgetAccountant, Spend, charge, check_accountant

__all__ = ["BudgetAccountant", "Spend", "charge", "check_accountant"]
