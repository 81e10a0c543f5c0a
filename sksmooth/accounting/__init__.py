"""Privacy accounting: composition arithmetic and the ledger.

Where :mod:`sksmooth.mechanisms` *produces* noisy outputs, this subpackage
only *counts* what they cost: composition theorems (basic, advanced, zCDP),
budget splitting, and the :class:`BudgetAccountant` ledger that every
private estimator charges before it publishes anything. It draws no
randomness and never sees data. The ledger is a shared handle (``clone``
and pickling return the same ledger) over a storage backend (memory, an SQLite file for joblib
workers, or a PostgreSQL server for several hosts; ``_backends``).

References
----------
C. Dwork and A. Roth, "The Algorithmic Foundations of Differential Privacy",
Found. Trends Theor. Comput. Sci. 9(3-4), 2014, Thm 3.16 and 3.20.
M. Bun and T. Steinke, "Concentrated Differential Privacy: Simplifications,
Extensions, and Lower Bounds", TCC 2016, arXiv:1605.02065.
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
