"""Seeded sigma-smooth adversaries (stream generators) for online learning.

References
----------
N. Haghtalab, T. Roughgarden, A. Shetty, "Smoothed Analysis of Online and
Differentially Private Learning", NeurIPS 2020, arXiv:2006.10129,
§2 (sigma-smooth distributions), App. B (adaptive adversaries).
"""

from ._adversaries import (SmoothedHalfspaceAdversary, SmoothedThresholdAdversary,
                           StreamRecord)

__all__ = ["SmoothedHalfspaceAdversary", "SmoothedThresholdAdversary", "StreamRecord"]
