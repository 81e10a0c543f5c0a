"""Seeded sigma-smooth adversaries (stream generators) for online learning.

See SPEC §8 and seeds/000_08e60ac76481cbe2.txt, App. B.
"""

from ._adversaries import (SmoothedHalfspaceAdversary, SmoothedThresholdAdversary,
                           StreamRecord)

__all__ = ["SmoothedHalfspaceAdversary", "SmoothedThresholdAdversary", "StreamRecord"]
