"""sksmooth: smoothed online learning and differentially private learning
and query release, as scikit-learn estimators.

The public API is re-exported here; implementation lives in private modules
of the subpackages.
"""

from ._guarantee import Guarantee, PrivacySpent
from .accounting import BudgetAccountant
from .classes import (
    Boxes,
    Conjunctions,
    FiniteClass,
    FiniteConcepts,
    Halfspaces,
    Marginals,
    Parities,
    Stumps,
    Thresholds,
)
from .exceptions import BudgetError, PrivacyLeakWarning, PrivacyWarning
from .perturbed import PerturbedERMClassifier

__version__ = "0.1.0.dev0"

__all__ = [
    "BudgetAccountant",
    "BudgetError",
    "Boxes",
    "Conjunctions",
    "FiniteClass",
    "FiniteConcepts",
    "Halfspaces",
    "Marginals",
    "Parities",
    "PerturbedERMClassifier",
    "Stumps",
    "Thresholds",
    "Guarantee",
    "PrivacyLeakWarning",
    "PrivacySpent",
    "PrivacyWarning",
    "__version__",
]
