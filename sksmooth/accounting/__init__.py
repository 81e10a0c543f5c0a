"""Privacy accounting (SPEC §3.4): composition theorems, zCDP, budget
splitting, and the privacy ledger.

The mechanisms say what one release costs; this subpackage adds costs up
(composition) and keeps the record of what was spent (the ledger, with
memory, SQLite and PostgreSQL storage drivers in ``_backends``).
"""

from ._composition import (
    RoundBudget,
    advanced_composition,
    basic_composition,
    split_budget,
    zcdp_exponential,
    zcdp_from_dp_budget,
    zcdp_gaussian,
    zcdp_to_dp,
)
from ._backends import CrossProcessLedgerError, LedgerStorage
from ._ledger import BudgetAccountant, LedgerTotals, Spend, charge, check_accountant

__all__ = [
    "BudgetAccountant",
    "CrossProcessLedgerError",
    "LedgerStorage",
    "LedgerTotals",
    "RoundBudget",
    "Spend",
    "advanced_composition",
    "basic_composition",
    "charge",
    "check_accountant",
    "split_budget",
    "zcdp_exponential",
    "zcdp_from_dp_budget",
    "zcdp_gaussian",
    "zcdp_to_dp",
]
