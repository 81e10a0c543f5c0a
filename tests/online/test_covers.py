"""Tests of sksmooth.online._covers."""

import copy

import numpy as np
import pytest
from sklearn.datasets import load_digits

from sksmooth.online import SmoothHedgeClassifier
from sksmooth.online._covers import AxisCovers
from sksmooth.online._hedge import AxisHedge, LabelPairs


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


def _engine_from_experts(cover, n_classes, learning_rate, prior):
    """The reference engine: AxisHedge laid out from the cover's materialised stumps."""
    if n_classes == 2:
        pairs, pair = LabelPairs.binary(), np.where(cover.sign > 0, 0, 1)
    else:
        pairs, index = LabelPairs.all_pairs(n_classes), np.zeros((n_classes, n_classes), int)
        index[pairs.left, pairs.right] = np.arange(len(pairs.left))
        pair = index[cover.left, cover.right]
    return AxisHedge.from_experts(cover.feature, cover.threshold, pair, pairs, n_classes,
                                  learning_rate, prior=prior)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sigma", ["auto", 0.5])
def test_the_engine_built_from_the_grids_plays_as_one_built_from_the_cover(n_classes, sigma):
    # the engine is built from the grids' thresholds, the cover only when cover_ is
    # read: both must be the same Hedge (rows on the grid points: ties at thresholds)
    rng = np.random.default_rng(n_classes)
    X, y = rng.integers(0, 9, (60, 3)) / 8.0, rng.integers(0, n_classes, 60)
    X[:, 2] = 0.5  # a feature with one value
    model = SmoothHedgeClassifier(hypotheses="stumps", bounds=([0.0, 0.0, 0.5], [1.0, 1.0, 2.0]),
                                  sigma=sigma, horizon=100).fit(X[:10], y[:10])
    play = model._stream.current.play
    assert play.source.value is None and play.engine._experts.value is None  # not built
    cover, engine = model.cover_, play.engine
    assert cover.n_concepts == engine.n_experts == model.n_experts_
    sizes = np.rint(np.exp([c[0] for c in play.components]) / len(play.components))
    prior = np.repeat(1.0 / sizes, sizes.astype(int))
    reference = _engine_from_experts(cover, n_classes, engine.learning_rate, prior)
    reference.add_losses(X[:10], y[:10])
    for a, b in ((10, 20), (20, 21), (21, 60)):
        ours = engine.update(X[a:b], y[a:b])
        theirs = reference.update(X[a:b], y[a:b])
        for mine, other in zip(ours, theirs):
            np.testing.assert_allclose(mine, other, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(engine.log_weights(), reference.log_weights(), rtol=1e-12)
    np.testing.assert_array_equal(engine.expert_losses(), reference.expert_losses())


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("first", [(0.5, 0.5), (-0.0, 1.0), (1.0, 1.0 + 2.0**-44)])
def test_grid_positions_are_the_sorted_distinct_thresholds_of_the_cover(n_classes, first):
    # the engine lays out each feature's distinct grid thresholds without building the
    # cover: as AxisHedge.from_experts lays out the cover's stumps, also when feature 0
    # holds only the constants' point, starts at -0.0, or its grids' thresholds coincide
    rng = np.random.default_rng(0)
    X, y = rng.random((50, 2)), rng.integers(0, n_classes, 50)
    model = SmoothHedgeClassifier(hypotheses="stumps", horizon=400,
                                  bounds=([first[0], 0.0], [first[1], 1.0])).fit(X, y)
    engine, cover = model._stream.current.play.engine, model.cover_
    reference = _engine_from_experts(cover, n_classes, engine.learning_rate,
                                     engine.weights())
    np.testing.assert_array_equal(engine.offsets, reference.offsets)
    np.testing.assert_array_equal(engine._buckets[3], reference._buckets[3])  # thresholds
    np.testing.assert_array_equal(engine.expert_slots()[0], reference.expert_slots()[0])
    assert np.signbit(engine._buckets[3][0]) == np.signbit(first[0])


def test_one_vs_rest_labels_build_one_cover_and_one_expert_layout():
    # each label's Hedge is a copy of one engine: the cover_ and the per-expert arrays
    # weights_ reads are built once, on first read, and shared
    rng = np.random.default_rng(0)
    X, y = rng.random((200, 3)), rng.integers(0, 3, 200)
    model = SmoothHedgeClassifier(bounds=(0.0, 1.0), horizon=300).fit(X, y)
    plays = model._stream.current.label_plays
    assert len(plays) == 3 and plays[0].source.value is None
    weights = np.array([p.engine.weights() for p in plays])
    assert weights.shape == (3, plays[0].n_experts)
    assert all(p.engine.expert_slots() is plays[0].engine.expert_slots() for p in plays)
    assert all(p.cover is plays[0].cover for p in plays)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_a_grid_cover_is_read_only_as_copies_and_labels_share_it(n_classes):
    # the lazily built cover_ and expert layout are shared by deepcopies, snapshots and
    # one-vs-rest labels: a write into one model's cover_ would change another's
    rng = np.random.default_rng(0)
    X, y = rng.random((40, 2)), rng.integers(0, n_classes, 40)
    model = SmoothHedgeClassifier(hypotheses="stumps", bounds=(0.0, 1.0)).fit(X, y)
    copied = copy.deepcopy(model)
    threshold = model.cover_.threshold.copy()
    with pytest.raises(ValueError, match="read-only"):
        copied.cover_.threshold[:] = 0.5
    np.testing.assert_array_equal(model.cover_.threshold, threshold)
    assert not any(a.flags.writeable for a in model.cover_.bounds)
    slots = model._stream.current.play.engine.expert_slots()
    assert not any(array.flags.writeable for array in slots)


def test_a_one_cell_grid_holds_the_constants_only():
    # gamma near 1 (or a max_experts that leaves room for the constants alone) asks
    # for one cell: no interior threshold on any feature. The grid layout raised an
    # IndexError there (the slow parameter fuzz); the constants are the cover
    rng = np.random.default_rng(0)
    X, y = rng.random((30, 2)), rng.integers(0, 2, 30)
    model = SmoothHedgeClassifier(hypotheses="stumps", bounds=(0, 1), gamma=1 - 1e-16).fit(X, y)
    assert model.cover_.n_concepts == model.n_experts_ == 2
    with pytest.raises(ValueError, match="Raise max_experts"):
        SmoothHedgeClassifier(hypotheses="stumps", bounds=(0, 1), max_experts=2).fit(X, y)
