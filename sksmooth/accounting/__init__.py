"""Privacy accounting (SPEC §3.4): composition, zCDP, budget splitting.

The privacy ledger (``BudgetAccountant``, ``charge``) lives in ``_ledger.py``.
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

__all__ = [
    "RoundBudget",
    "advanced_composition",
    "basic_composition",
    "split_budget",
    "zcdp_exponential",
    "zcdp_from_dp_budget",
    "zcdp_gaussian",
    "zcdp_to_dp",
]
