"""Perturbed ERM: any scikit-learn classifier as the ERM oracle.

Unlike :mod:`sksmooth.proper` (which enumerates a cover and selects with the
exponential mechanism) and :mod:`sksmooth.online` (Hedge over a cover), this
subpackage never enumerates the class: it calls an ERM *oracle* on data
augmented with Gaussian-perturbed labels on separating points.
``partial_fit`` is Gaussian follow-the-perturbed-leader; ``fit`` is
(epsilon, delta)-DP perturbed ERM. The exact 0-1 ERM oracles here (stumps,
thresholds, parities, finite classes) make the privacy claim certified; a
heuristic oracle (e.g. ``LogisticRegression``) is calibrated the same way
but reported not certified.

References
----------
A. Block and A. Shetty, "Small loss bounds for online learning separated
function classes: a Gaussian process perspective", 2025, arXiv:2502.10292,
Alg. 1 and 2, Thm 1 and 2, Lemma 1 and 2, Def. 5, Prop. 1.
"""

from ._calibration import (
    finite_class_gaussian_complexity,
    ftpl_noise,
    ftpl_regret_bound,
    labelings_gaussian_complexity,
    lemma1_min_noise,
    perturbation_epsilon,
    perturbation_noise,
)
from ._finite_oracle import FiniteClassERMClassifier
from ._oracle_base import min_pairwise_distance, spectral_separation
from ._parity_oracle import ParityERMClassifier, fwht
from ._perturbed_erm import PerturbedERMClassifier
from ._protocol import ERMOracle
from ._setup import BoxScaledClassifier
from ._stump_oracle import MulticlassStumpERMClassifier, StumpERMClassifier
from ._threshold_oracle import ThresholdERMClassifier
from ._tree_oracle import DepthTwoTreeERMClassifier, MulticlassDepthTwoTreeERMClassifier

__all__ = [
    "PerturbedERMClassifier",
    "ERMOracle",
    "BoxScaledClassifier",
    "DepthTwoTreeERMClassifier",
    "FiniteClassERMClassifier",
    "MulticlassDepthTwoTreeERMClassifier",
    "MulticlassStumpERMClassifier",
    "ParityERMClassifier",
    "StumpERMClassifier",
    "ThresholdERMClassifier",
    "fwht",
    "min_pairwise_distance",
    "spectral_separation",
    "finite_class_gaussian_complexity",
    "labelings_gaussian_complexity",
    "perturbation_epsilon",
    "perturbation_noise",
    "lemma1_min_noise",
    "ftpl_noise",
    "ftpl_regret_bound",
]
