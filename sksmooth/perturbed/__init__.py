"""Perturbed ERM: Gaussian FTPL and (epsilon, delta)-DP perturbed ERM with any
scikit-learn classifier as the ERM oracle, plus exact 0-1 ERM oracles that
let the privacy guarantee be certified.

How it differs from its neighbours: :mod:`sksmooth.online` learns online by
weighting an explicit cover of experts (Hedge); this package never lists the
class, it calls an ERM oracle once per round/fit with a Gaussian
perturbation, so any scikit-learn classifier can serve (with a certificate
only for the exact oracles defined here).

References
----------
A. Block, A. Shetty. Small loss bounds for online learning separated function
classes: a Gaussian process perspective. arXiv:2502.10292, 2025 (Alg. 1,
Thm 1, Alg. 2, Lemma 1, Lemma 2, Prop. 1).
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
from ._oracles import (
    FiniteClassERMClassifier,
    MulticlassStumpERMClassifier,
    ParityERMClassifier,
    StumpERMClassifier,
    ThresholdERMClassifier,
    fwht,
    min_pairwise_distance,
    spectral_separation,
)
from ._perturbed_erm import PerturbedERMClassifier

__all__ = [
    "PerturbedERMClassifier",
    "FiniteClassERMClassifier",
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
