"""Tests of the Hedge kernel and engines (sksmooth/online/_hedge.py)."""

import numpy as np
import pytest

from scipy.special import logsumexp

import sksmooth.online._hedge as hedge_module
from sksmooth.online._hedge import (AxisHedge, DenseHedge, LabelPairs, hedge_regret_bound,
                                    hedge_rounds)


def naive_hedge(log_prior, positive, y_positive, eta):
    """Textbook Hedge, one round at a time, weights in log space."""
    lw = np.array(log_prior, dtype=float)
    proba, loss = [], []
    for t in range(positive.shape[0]):
        w = np.exp(lw - lw.max())
        w /= w.sum()
        wrong = positive[t] != y_positive[t]
        proba.append(w[positive[t]].sum())
        loss.append(w[wrong].sum())
        lw = lw - eta * wrong
    return np.array(proba), np.array(loss), lw - logsumexp(lw)


@pytest.mark.parametrize("eta", [1e-3, 0.3, 5.0])
def test_hedge_rounds_matches_naive_loop(eta):
    rng = np.random.default_rng(0)
    n_rounds, n_experts = 257, 40
    positive = rng.random((n_rounds, n_experts)) < 0.4
    y = rng.random(n_rounds) < 0.5
    log_prior = rng.normal(size=n_experts)
    p, el, expert_loss = hedge_rounds(log_prior, positive, y, eta, chunk_elements=40 * 17)
    p_ref, el_ref, lw_ref = naive_hedge(log_prior, positive, y, eta)
    np.testing.assert_allclose(p, p_ref, atol=1e-9)
    np.testing.assert_allclose(el, el_ref, atol=1e-9)
    np.testing.assert_array_equal(expert_loss, (positive != y[:, None]).sum(0))
    dense = DenseHedge(n_experts, eta, log_prior=log_prior)
    dense.update(positive, y)
    np.testing.assert_allclose(dense.log_weights, lw_ref, atol=1e-9)


def test_hedge_regret_bound_holds_on_adversarial_losses():
    # the adversary puts loss on the experts Hedge currently likes most
    rng = np.random.default_rng(1)
    n_experts, n_rounds = 64, 2000
    eta = np.sqrt(8 * np.log(n_experts) / n_rounds)
    hedge = DenseHedge(n_experts, eta)
    total = 0.0
    for _ in range(n_rounds):
        w = hedge.weights()
        y = rng.random() < 0.5
        positive = np.zeros((1, n_experts), dtype=bool)
        fav = w > np.median(w) + rng.normal(scale=1e-12, size=n_experts)
        positive[0] = fav != y  # favourite experts are wrong
        _, loss = hedge.update(positive, np.array([y]))
        total += loss[0]
    regret = total - hedge.expert_loss.min()
    assert regret <= hedge_regret_bound(n_experts, n_rounds, eta) + 1e-9
    assert regret > 0.2 * hedge_regret_bound(n_experts, n_rounds, eta)  # the test is tight enough to fail


def make_axis_experts(n_features, n_grid, pairs, rng, drop=0.0):
    thr = np.sort(rng.random(n_grid))
    n_pairs = len(pairs.left)
    feature = np.repeat(np.arange(n_features), n_grid * n_pairs)
    threshold = np.tile(np.repeat(thr, n_pairs), n_features)
    pair = np.tile(np.arange(n_pairs), n_grid * n_features)
    keep = rng.random(len(feature)) >= drop
    return feature[keep], threshold[keep], pair[keep]


def naive_axis_hedge(feature, threshold, pair, pairs, n_classes, X, y, eta):
    """Textbook Hedge over the listed axis experts, one round at a time."""
    lw = np.full(len(feature), -np.log(len(feature)))
    proba = []
    for t in range(len(X)):
        pred = np.where(X[t, feature] >= threshold, pairs.right[pair], pairs.left[pair])
        w = np.exp(lw - logsumexp(lw))
        proba.append(np.bincount(pred, weights=w, minlength=n_classes))
        lw = lw - eta * (pred != y[t])
    return np.array(proba), lw - logsumexp(lw)


@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("max_factor", [4, 2])  # 2: the deepest recursion
@pytest.mark.parametrize("drop, skip_feature", [(0.0, None), (0.3, 1)])
def test_axis_engine_equals_textbook_hedge(n_classes, max_factor, drop, skip_feature,
                                           monkeypatch):
    monkeypatch.setattr(hedge_module, "_MAX_FACTOR", max_factor)
    if max_factor == 2:  # predictions look their positions up in increasing order
        monkeypatch.setattr(hedge_module, "_ORDERED_LOOKUPS", 16)
    rng = np.random.default_rng(n_classes)
    pairs = LabelPairs.binary() if n_classes == 2 else LabelPairs.all_pairs(n_classes)
    d = 3
    feature, threshold, pair = make_axis_experts(d, 40, pairs, rng, drop=drop)
    if skip_feature is not None:  # a feature without any expert
        keep = feature != skip_feature
        feature, threshold, pair = feature[keep], threshold[keep], pair[keep]
    X = rng.random((400, d))
    X[::7, 2] = threshold[5]  # ties with grid values
    y = rng.integers(0, n_classes, 400)
    engine = AxisHedge.from_experts(feature, threshold, pair, pairs, n_classes, 0.2)
    out = [engine.update(X[a:b], y[a:b]) for a, b in [(0, 1), (1, 250), (250, 251), (251, 400)]]
    proba_ref, lw_ref = naive_axis_hedge(feature, threshold, pair, pairs, n_classes, X, y, 0.2)
    np.testing.assert_allclose(np.vstack([p for p, _ in out]), proba_ref, atol=1e-10)
    np.testing.assert_allclose(np.concatenate([l for _, l in out]),
                               1 - proba_ref[np.arange(400), y], atol=1e-10)
    np.testing.assert_allclose(engine.log_weights(), lw_ref, atol=1e-9)
    wrong = np.where(X[:, feature] >= threshold, pairs.right[pair], pairs.left[pair]) != y[:, None]
    np.testing.assert_array_equal(engine.expert_losses(), wrong.sum(0))
    X_new = rng.random((50, d))
    pred = np.where(X_new[:, feature] >= threshold, pairs.right[pair], pairs.left[pair])
    w = engine.weights()
    expected = np.stack([(w * (pred == c)).sum(1) for c in range(n_classes)], 1)
    np.testing.assert_allclose(engine.predict_proba_from(X_new), expected, atol=1e-10)


@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("eta, linear_decay, level_elements", [
    (0.2, 0.0, 1 << 22),     # log weights at every level
    (0.2, 300.0, 400),       # a batch in several passes
    (40.0, 300.0, 1 << 22),  # log weights on top, linear below (blocks of <= 7 rounds)
])
def test_axis_engine_paths_equal_textbook_hedge(n_classes, eta, linear_decay, level_elements,
                                                monkeypatch):
    monkeypatch.setattr(hedge_module, "_MAX_LINEAR_DECAY", linear_decay)
    monkeypatch.setattr(hedge_module, "_LEVEL_ELEMENTS", level_elements)
    feature, threshold, pair, pairs, X, y, engine = _random_axis_problem(n_classes, eta)
    # one batch: the engine's bins start from exact masses (a later batch's bins are
    # prefix-sum differences, exact relative to the total weight only)
    proba, _ = engine.update(X, y)
    proba_ref, lw_ref = naive_axis_hedge(feature, threshold, pair, pairs, n_classes, X, y, eta)
    np.testing.assert_allclose(proba, proba_ref, atol=1e-10)
    np.testing.assert_allclose(engine.log_weights(), lw_ref, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("n_classes", [2, 4])
def test_axis_engine_added_losses_reach_the_textbook_state(n_classes):
    """add_losses (fit's path) adds the mistakes without predicting: after any split
    of the rows, the losses and weights are textbook Hedge's and update's."""
    feature, threshold, pair, pairs, X, y, engine = _random_axis_problem(n_classes, 0.3)
    X[::5, 1] = threshold[7]  # ties with grid values
    played = AxisHedge.from_experts(feature, threshold, pair, pairs, n_classes, 0.3)
    for a, b in [(0, 1), (1, 40), (40, 41), (41, 300)]:
        engine.add_losses(X[a:b], y[a:b])
        played.update(X[a:b], y[a:b])
    _, lw_ref = naive_axis_hedge(feature, threshold, pair, pairs, n_classes, X, y, 0.3)
    wrong = np.where(X[:, feature] >= threshold, pairs.right[pair], pairs.left[pair]) != y[:, None]
    np.testing.assert_array_equal(engine.expert_losses(), wrong.sum(0))
    np.testing.assert_array_equal(engine.starts, played.starts)
    np.testing.assert_array_equal(engine.loss, played.loss)
    np.testing.assert_allclose(engine.log_weights(), lw_ref, rtol=1e-12, atol=1e-9)
    X_new = np.random.default_rng(1).random((40, 3))
    np.testing.assert_array_equal(engine.predict_proba_from(X_new),
                                  played.predict_proba_from(X_new))


def test_dense_engine_added_losses_equal_update():
    rng = np.random.default_rng(2)
    positive, y = rng.random((60, 9)) < 0.5, rng.random(60) < 0.5
    added, played = DenseHedge(9, 0.4), DenseHedge(9, 0.4)
    added.add_losses(positive, y)
    played.update(positive, y)
    np.testing.assert_array_equal(added.expert_loss, played.expert_loss)
    np.testing.assert_allclose(added.log_weights, played.log_weights, rtol=1e-13)


@pytest.mark.parametrize("position_elements", [1 << 20, 64])  # 64: rows in chunks
def test_axis_positions_of_many_rows_are_searchsorted_counts(position_elements, monkeypatch):
    """Rows start from a bucket guess (for every batch size): the counts must be
    searchsorted's exactly, at ties, just below thresholds and outside the grid."""
    monkeypatch.setattr(hedge_module, "_POSITION_ELEMENTS", position_elements)
    pairs = LabelPairs.binary()
    rng = np.random.default_rng(4)
    grid = np.concatenate([np.linspace(0.1, 0.9, 50), np.linspace(0.1, 0.9, 7),
                           [0.5 + 1e-12, 0.5 + 2e-12]])           # uneven: clustered values
    feature = np.concatenate([np.repeat([0, 2], len(grid)), [1]])  # feature 1: one threshold
    threshold = np.concatenate([np.tile(grid, 2), [0.5]])
    engine = AxisHedge.from_experts(feature, threshold, np.zeros(len(feature), int), pairs, 2, 0.1)
    picks = rng.choice(grid, 300)
    X = np.column_stack([np.concatenate([rng.random(300), picks, np.nextafter(picks, 0),
                                         [-1.0, 0.0, 0.1, 0.5, 0.9, 2.0]])] * 3)
    unique = np.unique(grid)
    expected = np.column_stack([np.searchsorted(unique, X[:, 0], side="right"),
                                len(unique) + (X[:, 1] >= 0.5),
                                len(unique) + 1 + np.searchsorted(unique, X[:, 2],
                                                                  side="right")])
    for rows in (slice(None), slice(300, 310), slice(0, 1)):
        np.testing.assert_array_equal(engine._positions(X[rows]), expected[rows])


def _random_axis_problem(n_classes, eta):
    """Axis experts on 3 features, 300 random rows and a fresh engine over them."""
    rng = np.random.default_rng(7)
    pairs = LabelPairs.binary() if n_classes == 2 else LabelPairs.all_pairs(n_classes)
    feature, threshold, pair = make_axis_experts(3, 30, pairs, rng, drop=0.2)
    X = rng.random((300, 3))
    y = rng.integers(0, n_classes, 300)
    engine = AxisHedge.from_experts(feature, threshold, pair, pairs, n_classes, eta)
    return feature, threshold, pair, pairs, X, y, engine


@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("eta", [5.0, 40.0])
def test_axis_engine_is_exact_across_batches_at_a_large_learning_rate(n_classes, eta):
    # a later batch's bins took their masses from prefix-sum differences, exact only
    # relative to the total weight: a bin far below it that the batch then raised by
    # up to exp(eta * rounds) came out wrong (errors 2.6e-6 at eta=5, 1.0 at eta=40)
    feature, threshold, pair, pairs, X, y, engine = _random_axis_problem(n_classes, eta)
    out = [engine.update(X[a:b], y[a:b]) for a, b in [(0, 7), (7, 8), (8, 300)]]
    proba_ref, lw_ref = naive_axis_hedge(feature, threshold, pair, pairs, n_classes, X, y, eta)
    np.testing.assert_allclose(np.vstack([p for p, _ in out]), proba_ref, atol=1e-10)
    np.testing.assert_allclose(engine.log_weights(), lw_ref, rtol=1e-12, atol=1e-9)


def test_axis_engine_binary_equals_dense_engine():
    rng = np.random.default_rng(2)
    pairs = LabelPairs.binary()
    feature, threshold, pair = make_axis_experts(3, 30, pairs, rng)
    sign = np.where(pair == 0, 1, -1)  # pair 0: x >= t -> class 1
    X = rng.random((300, 3))
    y = (X[:, 0] > 0.4) ^ (rng.random(300) < 0.15)

    def positive(Xb):
        return np.where(Xb[:, feature] >= threshold, sign, -sign) > 0

    dense = DenseHedge(len(feature), 0.2)
    axis = AxisHedge.from_experts(feature, threshold, pair, pairs, 2, 0.2)
    for a, b in [(0, 1), (1, 50), (50, 300)]:
        p1, l1 = dense.update(positive(X[a:b]), y[a:b])
        p2, l2 = axis.update(X[a:b], y[a:b].astype(int))
        np.testing.assert_allclose(p1, p2, atol=1e-10)
        np.testing.assert_allclose(l1, l2, atol=1e-10)
    np.testing.assert_allclose(dense.log_weights, axis.log_weights(), atol=1e-9)
    draws = np.bincount([axis.sample_expert(np.random.default_rng(s)) for s in range(3000)],
                        minlength=len(feature))
    w = axis.weights()
    top = np.argmax(w)
    assert abs(draws[top] / 3000 - w[top]) < 4 * np.sqrt(w[top] / 3000) + 1e-3


def _grid_engine(n_features, n_cells, eta=0.01):
    inner = np.arange(1, n_cells) / n_cells
    feature = np.repeat(np.arange(n_features), 2 * len(inner))
    threshold = np.tile(np.concatenate([inner, inner]), n_features)
    pair = np.tile(np.repeat([0, 1], len(inner)), n_features)
    return AxisHedge.from_experts(feature, threshold, pair, LabelPairs.binary(), 2, eta)


def test_axis_engine_operation_count_is_linear_in_rounds():
    """Complexity on operation counts (not wall time): the work per round does not
    grow with the rounds already played (the old segment engine's did: O(min(t, K)))."""
    rng = np.random.default_rng(0)
    X = rng.random((16000, 4))
    y = (X[:, 1] >= 0.3).astype(int)
    work = {}
    for n in (4000, 8000, 16000):
        engine = _grid_engine(4, 2000)
        for a in range(0, n, 4000):
            engine.update(X[a:a + 4000], y[a:a + 4000])
        work[n] = engine.work
    assert work[8000] / work[4000] < 2.15
    assert work[16000] / work[8000] < 2.15
    # and per round it is far below the cover size x pairs (K = 4 * 1999 * 2)
    assert work[16000] / 16000 < 0.5 * 4 * 1999 * 2 * 8


def test_axis_engine_work_per_round_grows_slowly_with_cover_size():
    rng = np.random.default_rng(1)
    X = rng.random((3000, 2))
    y = (X[:, 0] >= 0.5).astype(int)
    per_round = {}
    for n_cells in (500, 5000, 50000):
        engine = _grid_engine(2, n_cells)
        engine.update(X, y)
        per_round[n_cells] = engine.work / 3000
    # 100x more experts: far less than 100x more work per round
    assert per_round[50000] < 6 * per_round[500]


def test_engine_snapshot_is_isolated_from_later_updates():
    engine = _grid_engine(2, 50)
    snap = engine.snapshot()
    before = snap.log_weights().copy()
    engine.update(np.random.default_rng(0).random((30, 2)), np.ones(30, dtype=int))
    np.testing.assert_array_equal(snap.log_weights(), before)
    assert not np.array_equal(engine.log_weights(), before)
    with pytest.raises(ValueError):
        engine.loss[0, 0] = 1  # read-only: copy-on-write state


def test_segment_split_inserts_only_new_boundaries_as_the_union_did():
    # _split re-sorted and hashed every segment on each call (np.union1d): most of a
    # one-row partial_fit's time on large covers (a review); the insertion must give
    # the same segments, each new one inheriting its parent's weights and losses
    engine = _grid_engine(3, 50)
    rng = np.random.default_rng(0)
    for _ in range(30):
        positions = rng.integers(0, engine.offsets[-1] + 3, rng.integers(0, 12))
        starts = engine.starts
        inside = positions[positions < engine.offsets[-1]]
        union = np.union1d(starts, inside)
        parent = np.searchsorted(starts, union, side="right") - 1
        engine.loss = rng.integers(0, 50, engine.loss.shape)  # distinct parents
        loss = engine.loss
        first = engine._split(np.unique(positions))  # the engine passes sorted distinct edges
        np.testing.assert_array_equal(engine.starts, union)
        np.testing.assert_array_equal(engine.starts[first], np.unique(inside))  # their segments
        np.testing.assert_array_equal(engine.loss, loss[:, parent])
        ends = np.append(union[1:], engine.offsets[-1])
        np.testing.assert_allclose(engine.segment_count,
                                   engine.count_cumulative[:, ends]
                                   - engine.count_cumulative[:, union])


def test_axis_engine_short_batch_work_does_not_scale_with_segments_times_rounds():
    # a batch of b rounds on S segments was played densely (b x S work) whenever
    # b <= _BASE_ROWS; it is binned first to at most b + 1 bins per feature
    engine = _grid_engine(2, 20000)
    rng = np.random.default_rng(0)
    X = rng.random((4020, 2))
    y = (X[:, 0] >= 0.5).astype(int)
    engine.update(X[:4000], y[:4000])  # thousands of segments per feature
    work = {}
    for b, (lo, hi) in ((1, (4000, 4001)), (16, (4001, 4017))):
        before = engine.work
        engine.update(X[lo:hi], y[lo:hi])
        work[b] = engine.work - before
    assert len(engine.starts) > 5000  # segments
    # short batches go to the pending layer: less than one pass over the segments
    assert max(work.values()) < engine.loss.size


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("pending_edges", [1 << 12, 48])  # 48: folded on size as well
def test_axis_engine_pending_layer_equals_textbook_hedge(n_classes, pending_edges,
                                                         monkeypatch):
    """Short batches add their losses to a pending layer folded into the segments only
    now and then: on a stream with ties and repeated values, in batches of 1 to 12 (with
    predict, expert_losses and log_weights read between them and a fit-style
    add_losses mid-stream), everything equals textbook Hedge."""
    monkeypatch.setattr(hedge_module, "_PENDING_EDGES", pending_edges)
    rng = np.random.default_rng(11)
    pairs = LabelPairs.binary() if n_classes == 2 else LabelPairs.all_pairs(n_classes)
    feature, threshold, pair = make_axis_experts(3, 25, pairs, rng, drop=0.2)
    n, eta = 260, 0.15
    X = rng.choice(np.unique(threshold)[::3], (n, 3))       # ties with the grid, repeats
    X[::4] = rng.random((len(X[::4]), 3))
    X[5:25] = X[5]                                          # a run of one repeated row
    y = rng.integers(0, n_classes, n)
    engine = AxisHedge.from_experts(feature, threshold, pair, pairs, n_classes, eta)
    cuts = np.concatenate([[0], np.cumsum(rng.integers(1, 13, n)), [n]])
    cuts = np.unique(np.minimum(cuts, n))
    proba, folded, pending = [], 0, 0
    for a, b in zip(cuts[:-1], cuts[1:]):
        proba.append(engine.update(X[a:b], y[a:b])[0])
        layer = engine._pending
        pending += layer is not None and layer.rounds > b - a   # earlier batches pending
        folded += layer is None or layer.rounds == b - a        # the segments took them
        if b % 5 and b < n:
            continue
        ref_proba, lw_ref = naive_axis_hedge(feature, threshold, pair, pairs, n_classes,
                                             X[:b], y[:b], eta)
        if b % 5 == 0:
            X_new = np.vstack([X[:3], rng.random((3, 3))])
            pred = np.where(X_new[:, feature] >= threshold, pairs.right[pair],
                            pairs.left[pair])
            w = np.exp(lw_ref)
            expected = np.stack([(w * (pred == c)).sum(1) for c in range(n_classes)], 1)
            np.testing.assert_allclose(engine.predict_proba_from(X_new), expected,
                                       atol=1e-10)
            np.testing.assert_allclose(engine.log_weights(), lw_ref, rtol=1e-12, atol=1e-9)
    assert pending > 5 and folded > 2  # both states were exercised
    np.testing.assert_allclose(np.vstack(proba), ref_proba, atol=1e-10)
    wrong = np.where(X[:, feature] >= threshold, pairs.right[pair], pairs.left[pair]) \
        != y[:, None]
    np.testing.assert_array_equal(engine.expert_losses(), wrong.sum(0))
    # fit's path after a pending batch reaches the same state
    engine.update(X[:2], y[:2])
    engine.add_losses(X[2:9], y[2:9])
    _, lw_ref = naive_axis_hedge(feature, threshold, pair, pairs, n_classes,
                                 np.vstack([X, X[:9]]), np.concatenate([y, y[:9]]), eta)
    np.testing.assert_allclose(engine.log_weights(), lw_ref, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_axis_engine_predict_then_update_on_one_batch_equals_textbook_hedge(n_classes):
    """predict_proba_from, then update on the same rows (the progressive-validation
    call pattern): the second call takes the batch's positions and masses from the
    first while neither the rows nor the weights changed; rows changed in place
    between the two, a rollback snapshot and an update in between are looked up
    afresh. Ties with the grid, repeated rows, pending and folded states."""
    rng = np.random.default_rng(5)
    pairs = LabelPairs.binary() if n_classes == 2 else LabelPairs.all_pairs(n_classes)
    feature, threshold, pair = make_axis_experts(3, 20, pairs, rng, drop=0.2)
    n, eta = 150, 0.2
    X = rng.choice(np.unique(threshold)[::2], (n, 3))
    X[::3] = rng.random((len(X[::3]), 3))
    X[40:52] = X[40]
    y = rng.integers(0, n_classes, n)
    engine = AxisHedge.from_experts(feature, threshold, pair, pairs, n_classes, eta)
    cuts = np.unique(np.minimum(np.concatenate([[0], np.cumsum(rng.integers(1, 9, n)),
                                                [n]]), n))
    lw, proba = np.full(len(pair), -np.log(len(pair))), []  # textbook Hedge on the played rows
    for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])):
        batch = X[a:b].copy()
        w = np.exp(lw - logsumexp(lw))
        vote = np.where(batch[:, feature] >= threshold, pairs.right[pair], pairs.left[pair])
        expected = np.stack([(w * (vote == c)).sum(1) for c in range(n_classes)], 1)
        np.testing.assert_allclose(engine.predict_proba_from(batch), expected, atol=1e-10)
        if i % 4 == 1:    # the caller changes its rows in place after predicting
            batch[0] = rng.random(3)
            X[a] = batch[0]
        elif i % 4 == 2:  # a later update replaces the weights the masses were of
            snap = engine.snapshot()
            snap.update(batch[::-1], y[a:b][::-1])
        lw = lw - eta * (np.where(batch[:, feature] >= threshold, pairs.right[pair],
                                  pairs.left[pair]) != y[a:b, None]).sum(axis=0)
        proba.append(engine.update(batch, y[a:b])[0])
    ref_proba, lw_ref = naive_axis_hedge(feature, threshold, pair, pairs, n_classes,
                                         X, y, eta)
    np.testing.assert_allclose(np.vstack(proba), ref_proba, atol=1e-10)
    np.testing.assert_allclose(engine.log_weights(), lw_ref, rtol=1e-12, atol=1e-9)
    wrong = np.where(X[:, feature] >= threshold, pairs.right[pair], pairs.left[pair]) \
        != y[:, None]
    np.testing.assert_array_equal(engine.expert_losses(), wrong.sum(0))


def test_engine_snapshot_is_isolated_from_pending_and_folded_updates():
    engine = _grid_engine(2, 50, eta=0.3)
    rng = np.random.default_rng(3)
    engine.update(rng.random((3, 2)), np.ones(3, dtype=int))   # pending
    assert engine._pending is not None
    snap = engine.snapshot()
    before, proba = snap.log_weights().copy(), snap.predict_proba_from(rng.random((4, 2)))
    engine.update(rng.random((5, 2)), np.zeros(5, dtype=int))  # pending grows
    engine.update(rng.random((9, 2)), np.zeros(9, dtype=int))  # folded
    np.testing.assert_array_equal(snap.log_weights(), before)
    np.testing.assert_array_equal(snap.predict_proba_from(rng.random((4, 2))) * 0 + proba,
                                  proba)
    assert not np.array_equal(engine.log_weights(), before)
    with pytest.raises(ValueError):
        snap._pending.loss[0, 0] = 1  # read-only: copy-on-write state
