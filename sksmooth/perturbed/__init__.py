"""Perturbed ERM: Gaussian FTPL and (epsilon, delta)-DP perturbed ERM with any
scikit-learn classifier as the ERM oracle, plus exact 0-1 ERM oracles that
let the privacy guarantee be certified (seeds/004_97dac565ce402d2d.txt)."""

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
