"""Smoothed online learning: Hedge over data-independent covers (SPEC §4).

See seeds/000_08e60ac76481cbe2.txt, App. C.1 and seeds/003_a96633f97736c2ff.txt, §3.
"""

from ._smooth_hedge import SmoothHedgeClassifier

__all__ = ["SmoothHedgeClassifier"]
