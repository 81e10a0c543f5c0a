"""Smoothed online learning (not private): Hedge over data-independent covers.

Theory: Haghtalab, Roughgarden, Shetty, NeurIPS 2020, arXiv:2006.10129,
App. C.1, Alg. 1, Thm 3.1 and 3.3; guide in docs/guide/smooth_hedge.rst.
"""

from ._halfspace_labellings import HalfspaceLabellings
from ._smooth_hedge import SmoothHedgeClassifier

__all__ = ["SmoothHedgeClassifier", "HalfspaceLabellings"]
