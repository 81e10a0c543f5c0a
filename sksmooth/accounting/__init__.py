"""Privacy accounting: composition arithmetic and the :class:`BudgetAccountant` ledger.

Draws no randomness and never sees data (docs/privacy_ledger.rst). Theory:
Dwork and Roth, Found. Trends Theor. Comput. Sci. 9(3-4), 2014, Thm 3.16, 3.20;
Bun and Steinke, TCC 2016, arXiv:1605.02065 (zCDP).
"""

from ._composition import (
    RoundBudget,
    advanced_composition,
    basic_composition,
    exact_rest,
    split_budget,
    zcdp_exponential,
    zcdp_from_dp_budget,
    zcdp_gaussian,
    zcdp_to_dp,
)
from ._backends import CrossProcessLedgerError, LedgerIntegrityError, LedgerStorage
from ._ledger import (
    BudgetAccountant,
    LedgerSpent,
    LedgerTotals,
    RemainingBudget,
    Spend,
    charge,
    charge_not_private,
    check_accountant,
)

__all__ = [
    "BudgetAccountant",
    "CrossProcessLedgerError",
    "LedgerIntegrityError",
    "LedgerSpent",
    "LedgerStorage",
    "LedgerTotals",
    "RemainingBudget",
    "RoundBudget",
    "Spend",
    "advanced_composition",
    "basic_composition",
    "charge",
    "charge_not_private",
    "check_accountant",
    "exact_rest",
    "split_budget",
    "zcdp_exponential",
    "zcdp_from_dp_budget",
    "zcdp_gaussian",
    "zcdp_to_dp",
]
