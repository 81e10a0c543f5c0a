"""Shared by the release tests: a broken variant of the systematic uniforms."""

import numpy as np
import pytest


def in_index_order(groups, rng, scheme="systematic"):
    """Broken variant: the systematic points of each group handed to its rows
    in index order (no random assignment), so the rows come out sorted."""
    groups = np.asarray(groups)
    order = np.argsort(groups, kind="stable")
    sorted_groups = groups[order]
    starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
    sizes = np.diff(np.r_[starts, groups.size])
    group = np.repeat(np.arange(starts.size), sizes)
    u = np.empty(groups.size)
    u[order] = (np.arange(groups.size) - starts[group] + rng.random(starts.size)[group]) / sizes[group]
    return u


@pytest.fixture
def index_order_uniforms():
    """:func:`in_index_order`, the broken variant the tests must catch."""
    return in_index_order
