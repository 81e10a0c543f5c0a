"""Factored release model: log-space factors, junction trees, sampling and
Private-PGM-style estimation over measured marginal tables (SPEC §7, issue 11).

- :class:`FactoredModel` implements the ``ReleaseModel`` protocol
  (:mod:`sksmooth.release._model`) as a graphical model over the measured
  attribute sets: calibrated clique beliefs, marginals by message passing
  or variable elimination, rows sampled clique by clique.
- :func:`estimate` fits a model to all noisy measurements at once.
- :func:`select_and_measure` (:mod:`._aim`) is the AIM-style adaptive
  loop: selection by the exponential mechanism, discrete Gaussian
  measurements, zCDP accounting, annealing, model-size cap.
"""

from ._estimation import EstimationResult, Measurement, estimate, estimate_total
from ._factor import Factor
from ._junction_tree import JunctionTree, junction_tree, tree_size
from ._model import FactoredModel

__all__ = [
    "EstimationResult",
    "Factor",
    "FactoredModel",
    "JunctionTree",
    "Measurement",
    "estimate",
    "estimate_total",
    "junction_tree",
    "tree_size",
]
