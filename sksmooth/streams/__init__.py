"""Stream generators: seeded σ-smooth (and adaptive) adversaries for online learning.

Theory: Haghtalab, Roughgarden, Shetty, NeurIPS 2020, arXiv:2006.10129, §2, App. B.
"""

from ._adversaries import (SmoothedHalfspaceAdversary, SmoothedThresholdAdversary,
                           StreamRecord)

__all__ = ["SmoothedHalfspaceAdversary", "SmoothedThresholdAdversary", "StreamRecord"]
