"""Tests of sksmooth.online._covers."""

import numpy as np
import pytest
from sklearn.datasets import load_digits

from sksmooth.online import SmoothHedgeClassifier
from sksmooth.online._covers import AxisCovers


@pytest.mark.parametrize("max_experts", [4000, 10**4, 2**21])
@pytest.mark.parametrize("per_cell", [2, 128])
def test_a_union_of_grids_stays_within_max_experts(max_experts, per_cell):
    # sigma='auto': one grid per sigma of a geometric grid; the union was capped per
    # grid only (digits: max_experts=2097152 played K=2426384 hypotheses)
    needs = [2560 * 2 ** -j for j in range(8)]
    grids = AxisCovers._grid_sizes([int(n) for n in needs], per_cell, 2, max_experts)
    assert sum(2 + (c - 1) * per_cell for c in grids) <= max_experts
    # the finest grid keeps half the budget, as before
    assert grids[-1] == min(2560, (max_experts // 2 - 2) // per_cell + 1)
    assert grids == sorted(set(grids))


def test_digits_cover_at_the_default_cap_is_within_it():
    X, y = load_digits(return_X_y=True)
    model = SmoothHedgeClassifier(bounds=(np.zeros(64), np.full(64, 16.0)), max_experts=2**16)
    with pytest.warns(UserWarning, match=r"max_experts=65536 allows K=\d+ hypotheses"):
        model.fit(X[:400], y[:400])
    assert all(e["n_experts"] <= 2**16 for e in model.epochs_)


def test_a_cover_of_public_inputs_is_built_once_and_its_engine_copied():
    # the cover of ~2M stumps took most of a 10^5-row fit; fits of clones reuse the
    # last one built from public inputs, never one whose bounds were read from the rows
    rng = np.random.default_rng(0)
    X, y = rng.random((300, 3)), rng.integers(0, 2, 300)
    first = SmoothHedgeClassifier(bounds=(0.0, 1.0), horizon=400).fit(X, y)
    again = SmoothHedgeClassifier(bounds=(0.0, 1.0), horizon=400).fit(X[::-1], y[::-1])
    assert again.cover_ is first.cover_
    with pytest.raises(ValueError, match="read-only"):  # an edit would reach every clone
        first.cover_.threshold[0] = 5.0
    engines = [m._stream.current.play.engine for m in (first, again)]
    assert engines[0] is not engines[1]
    np.testing.assert_allclose(again.weights_, first.weights_, rtol=1e-9, atol=1e-15)
    before = first.weights_.copy()
    again.partial_fit(X[:50], 1 - y[:50])  # the shared arrays are never written
    np.testing.assert_array_equal(first.weights_, before)
    assert not np.allclose(again.weights_, before)
    other = SmoothHedgeClassifier(bounds=(0.0, 2.0)).fit(X, y)
    assert other.cover_ is not first.cover_
    with pytest.warns(UserWarning, match="first batch"):
        read = [SmoothHedgeClassifier(bounds="data").fit(X, y) for _ in range(2)]
    assert read[0].cover_ is not read[1].cover_
