"""Perturbed ERM: Gaussian FTPL and (epsilon, delta)-DP perturbed ERM with any
scikit-learn classifier as the ERM oracle, plus exact 0-1 ERM oracles that
let the privacy guarantee be certified (seeds/004_97dac565ce402d2d.txt)."""

from ._oracles import (
    FiniteClassERMClassifier,
    ParityERMClassifier,
    StumpERMClassifier,
    ThresholdERMClassifier,
    fwht,
    min_pairwise_distance,
    spectral_separation,
)

__all__ = [
    "FiniteClassERMClassifier",
    "ParityERMClassifier",
    "StumpERMClassifier",
    "ThresholdERMClassifier",
    "fwht",
    "min_pairwise_distance",
    "spectral_separation",
]
