"""Stream generators: σ-smooth (and adaptive) adversaries for online learning.

Unlike :mod:`sksmooth.datasets` (fixed tables with public bounds), these
generate data *against* a learner: each round's distribution has density at
most 1/σ times uniform, and the adaptive adversaries choose it from the
learner's past predictions. They feed :mod:`sksmooth.online` and the regret
checks of :mod:`sksmooth.metrics`; they are seeded test beds, not private data.

References
----------
N. Haghtalab, T. Roughgarden and A. Shetty, "Smoothed Analysis of Online and
Differentially Private Learning", NeurIPS 2020, arXiv:2006.10129, §2 and
App. B (the adaptive-adversary counter-example).
"""

from ._adversaries import (SmoothedHalfspaceAdversary, SmoothedThresholdAdversary,
                           StreamRecord)

__all__ = ["SmoothedHalfspaceAdversary", "SmoothedThresholdAdversary", "StreamRecord"]
