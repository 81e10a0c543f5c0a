"""Smoothed online learning: Hedge over data-independent covers.

Unlike :mod:`sksmooth.perturbed` (whose ``partial_fit`` follows a perturbed
leader through an ERM oracle) and the private learners, the estimator here
is *not* private: :class:`SmoothHedgeClassifier` runs Hedge over a γ-cover of
the hypothesis class built from public bounds, with sublinear regret against
σ-smooth (even adaptive) adversaries where worst-case online learning is
impossible (thresholds, halfspaces).

References
----------
N. Haghtalab, T. Roughgarden and A. Shetty, "Smoothed Analysis of Online and
Differentially Private Learning", NeurIPS 2020, arXiv:2006.10129, App. C.1
Alg. 1, Thm 3.1 and 3.3.
Y. Freund and R. E. Schapire, "A decision-theoretic generalization of on-line
learning and an application to boosting", JCSS 55(1), 1997.
"""

from ._halfspace_labellings import HalfspaceLabellings
from ._smooth_hedge import SmoothHedgeClassifier

__all__ = ["SmoothHedgeClassifier", "HalfspaceLabellings"]
