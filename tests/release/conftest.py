"""Shared by the release tests: a broken variant of the systematic uniforms."""

import numpy as np
import pytest

from sksmooth.release._systematic import systematic_uniforms


class _Unshuffled:
    """A sampling stream whose permutations are the identity."""

    def __init__(self, rng):
        self.rng = rng

    def permutation(self, n):
        return np.arange(n)

    def random(self, size):
        return self.rng.random(size)


def in_index_order(groups, rng, scheme="systematic"):
    """Broken variant: the systematic points of each group handed to its rows
    in index order (no random assignment), so the rows come out sorted."""
    return systematic_uniforms(groups, _Unshuffled(rng))


@pytest.fixture
def index_order_uniforms():
    """:func:`in_index_order`, the broken variant the tests must catch."""
    return in_index_order
