"""sksmooth: smoothed online learning and differentially private learning
and query release, as scikit-learn estimators.

The public API is re-exported here; implementation lives in private modules
of the subpackages.
"""

from ._guarantee import Guarantee, PrivacySpent
from .accounting import BudgetAccountant, CrossProcessLedgerError, LedgerIntegrityError
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
from .exceptions import (
    BudgetError,
    DefaultsWarning,
    PrivacyLeakWarning,
    PrivacyWarning,
    SksmoothWarning,
)
from .model_selection import PrivateSearchCV
from .online import SmoothHedgeClassifier
from .perturbed import PerturbedERMClassifier
from .proper import (
    PrivateProperClassifier,
    ProperRelease,
    irreducibility_order,
    is_k_irreducible,
    littlestone_dimension,
    soa,
)
from .release import (
    AdaptiveMarginalSynthesizer,
    GaussianPerQuery,
    LaplacePerQuery,
    MWEM,
    ProjectedSmoothMWEM,
    SmoothMWEM,
    SubsampledNetMechanism,
    SyntheticSampler,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "AdaptiveMarginalSynthesizer",
    "CrossProcessLedgerError",
    "LedgerIntegrityError",
    "ProperRelease",
    "SyntheticSampler",
    "Boxes",
    "BudgetAccountant",
    "BudgetError",
    "Conjunctions",
    "DefaultsWarning",
    "FiniteClass",
    "FiniteConcepts",
    "GaussianPerQuery",
    "Guarantee",
    "Halfspaces",
    "irreducibility_order",
    "is_k_irreducible",
    "LaplacePerQuery",
    "littlestone_dimension",
    "Marginals",
    "MWEM",
    "Parities",
    "PerturbedERMClassifier",
    "PrivacyLeakWarning",
    "PrivacySpent",
    "PrivacyWarning",
    "PrivateProperClassifier",
    "PrivateSearchCV",
    "ProjectedSmoothMWEM",
    "SmoothHedgeClassifier",
    "SksmoothWarning",
    "SmoothMWEM",
    "soa",
    "Stumps",
    "SubsampledNetMechanism",
    "Thresholds",
    "__version__",
]
