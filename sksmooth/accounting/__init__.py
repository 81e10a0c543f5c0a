"""Privacy accounting (SPEC §3.4): composition theorems, zCDP, budget
splitting, and the privacy ledger."""

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
from ._ledger import BudgetAccountant, Spend, charge, check_accountant

__all__ = [
    "BudgetAccountant",
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
