"""Smoothed online learning: Hedge over data-independent covers (SPEC §4).

References
----------
N. Haghtalab, T. Roughgarden, A. Shetty, "Smoothed Analysis of Online and
Differentially Private Learning", NeurIPS 2020, arXiv:2006.10129,
App. C.1 (Alg. 1), §3 (Thm 3.1, 3.3), App. B; Hedge: Y. Freund and R. E. Schapire,
JCSS 55(1), 1997.
"""

from ._smooth_hedge import SmoothHedgeClassifier

__all__ = ["SmoothHedgeClassifier"]
