"""Tests of the sigma-smooth adversaries (sksmooth/streams/_adversaries.py)."""

import numpy as np
import pytest
from sklearn.linear_model import Perceptron

from sksmooth.streams import SmoothedHalfspaceAdversary, SmoothedThresholdAdversary


class RecordingLearner:
    """Predicts with a fixed threshold; records the windows it was shown."""

    def __init__(self, threshold=0.5):
        self.threshold = threshold

    def predict(self, X):
        return np.where(X[:, 0] >= self.threshold, 1, -1)

    def partial_fit(self, X, y, classes=None):
        return self


class ConsistentLearner:
    """Deterministic consistent learner: threshold midway between the classes seen."""

    def __init__(self):
        self.lo, self.hi = 0.0, 1.0

    @property
    def threshold(self):
        return (self.lo + self.hi) / 2

    def predict(self, X):
        return np.where(X[:, 0] >= self.threshold, 1, -1)

    def partial_fit(self, X, y, classes=None):
        if np.any(y < 0):
            self.lo = max(self.lo, X[y < 0, 0].max())
        if np.any(y > 0):
            self.hi = min(self.hi, X[y > 0, 0].min())
        return self


@pytest.mark.parametrize("n_features", [1, 2, 3])
@pytest.mark.parametrize("sigma", [0.001, 0.05, 1.0])
@pytest.mark.parametrize("adaptive", [True, False])
def test_every_window_is_sigma_smooth(n_features, sigma, adaptive):
    lower, upper = np.array([-1.0, 0.0, 2.0])[:n_features], np.array([1.0, 5.0, 2.5])[:n_features]
    stream = SmoothedHalfspaceAdversary(sigma=sigma, n_features=n_features, adaptive=adaptive,
                                        bounds=(lower, upper), random_state=0)
    # density of a uniform window = 1 / volume(window) <= (1/sigma) / volume(box)
    assert stream.max_density_ratio() == pytest.approx(1 / sigma, rel=1e-9)
    learner = RecordingLearner(threshold=lower[0] + 0.3 * (upper[0] - lower[0]))
    for _ in range(30):
        X, y = stream.sample(20, predict=learner.predict)
        low, high = stream.window_
        assert np.all(low >= lower - 1e-12) and np.all(high <= upper + 1e-12)
        assert np.prod(high - low) == pytest.approx(sigma * np.prod(upper - lower), rel=1e-9)
        assert np.all((X >= low) & (X <= high))
        assert set(np.unique(y)) <= {-1, 1}


def test_samples_fill_the_window_uniformly():
    stream = SmoothedThresholdAdversary(sigma=0.2, adaptive=False, random_state=1)
    X, _ = stream.sample(20000)
    low, high = stream.window_
    hist, _ = np.histogram(X[:, 0], bins=10, range=(low[0], high[0]))
    # uniform: every bin within 5 sigma of 2000
    assert np.all(np.abs(hist - 2000) < 5 * np.sqrt(2000))


def test_seeded_streams_are_reproducible():
    runs = []
    for _ in range(2):
        stream = SmoothedThresholdAdversary(sigma=0.01, label_noise=0.1, random_state=7)
        runs.append(stream.play(Perceptron(random_state=0), 300, batch_size=3))
    np.testing.assert_array_equal(runs[0].X, runs[1].X)
    np.testing.assert_array_equal(runs[0].y, runs[1].y)
    other = SmoothedThresholdAdversary(sigma=0.01, random_state=8).play(
        Perceptron(random_state=0), 300, batch_size=3)
    assert not np.array_equal(runs[0].X, other.X)
    stream = SmoothedThresholdAdversary(sigma=0.01, random_state=7)
    a = stream.sample(50)
    stream.reset()
    b = stream.sample(50)
    np.testing.assert_array_equal(a[0], b[0])


@pytest.mark.parametrize("adaptive", [True, False])
@pytest.mark.parametrize("n_features", [1, 2])
def test_clean_labels_are_realizable(adaptive, n_features):
    stream = SmoothedHalfspaceAdversary(sigma=0.05, n_features=n_features, adaptive=adaptive,
                                        label_noise=0.2, random_state=3)
    record = stream.play(Perceptron(random_state=0), 1000, batch_size=5)
    score = (record.X - stream.centre_) @ stream.normal_
    np.testing.assert_array_equal(record.y_clean, np.where(score >= stream.theta_, 1, -1))
    flipped = np.mean(record.y != record.y_clean)
    assert abs(flipped - 0.2) < 4 * np.sqrt(0.2 * 0.8 / 1000)


def test_adaptive_adversary_attacks_the_learner_boundary():
    # without (almost any) smoothing the binary search forces a consistent
    # deterministic learner to err on every round (Haghtalab et al. 2020, App. B: thresholds have
    # infinite Littlestone dimension); 40 rounds stay above float resolution
    stream = SmoothedThresholdAdversary(sigma=1e-15, random_state=0)
    learner = ConsistentLearner()
    record = stream.play(learner, 40, batch_size=1)
    assert record.mistakes >= 39
    # the window sits on the learner's current boundary
    stream.sample(1, predict=learner.predict)
    low, high = stream.window_
    spacing = (stream.version_space_[1] - stream.version_space_[0]) / 64 + 1e-12
    assert abs((low[0] + high[0]) / 2 - learner.threshold) <= spacing + 1e-9


def test_smoothing_limits_the_binary_search():
    wide = SmoothedThresholdAdversary(sigma=0.1, random_state=0).play(ConsistentLearner(), 400)
    narrow = SmoothedThresholdAdversary(sigma=1e-9, random_state=0).play(
        ConsistentLearner(), 400)
    assert narrow.mistakes > 3 * wide.mistakes
    non_adaptive = SmoothedThresholdAdversary(sigma=1e-9, adaptive=False,
                                              random_state=0).play(ConsistentLearner(), 400)
    assert narrow.mistakes > 3 * non_adaptive.mistakes


def test_threshold_attribute_and_bounds():
    stream = SmoothedThresholdAdversary(sigma=0.1, adaptive=False, bounds=(10.0, 20.0),
                                        random_state=0)
    X, y = stream.sample(500)
    assert np.all((X >= 10) & (X <= 20))
    np.testing.assert_array_equal(y, np.where(X[:, 0] >= stream.threshold_, 1, -1))


@pytest.mark.parametrize("kwargs, match", [
    (dict(sigma=0.0), "sigma"),
    (dict(label_noise=0.5), "label_noise"),
    (dict(bounds=(1.0, 1.0)), "bounds"),
    (dict(adaptive="yes"), "adaptive"),
    (dict(n_probes=1), "n_probes"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        SmoothedThresholdAdversary(**kwargs)


def test_bad_normal():
    with pytest.raises(ValueError, match="normal"):
        SmoothedHalfspaceAdversary(n_features=2, normal=[0.0, 0.0])


def test_iter_batches_matches_play():
    from sksmooth.online import SmoothHedgeClassifier

    clf = SmoothHedgeClassifier(sigma=0.05, horizon=300, bounds=(0.0, 1.0))
    stream = SmoothedThresholdAdversary(sigma=0.05, random_state=4)
    Xs, ys = [], []
    for X, y in stream.iter_batches(300, batch_size=7, predict=clf.predict):
        clf.partial_fit(X, y, classes=[-1, 1])
        Xs.append(X)
        ys.append(y)
    other = SmoothHedgeClassifier(sigma=0.05, horizon=300, bounds=(0.0, 1.0))
    record = SmoothedThresholdAdversary(sigma=0.05, random_state=4).play(other, 300,
                                                                       batch_size=7)
    np.testing.assert_array_equal(np.concatenate(Xs), record.X)
    np.testing.assert_array_equal(np.concatenate(ys), record.y)
    assert clf.mistakes_ == other.mistakes_


@pytest.mark.parametrize("classes", [(0, 1), ("neg", "pos"), (1, -1)])
def test_play_maps_labels_to_the_learner_classes(classes):
    # the record is in {-1, +1}; the learner sees (and predicts) its own labels
    reference = SmoothedThresholdAdversary(sigma=0.05, random_state=3).play(
        Perceptron(random_state=0), 200, batch_size=10)
    learner = Perceptron(random_state=0)
    record = SmoothedThresholdAdversary(sigma=0.05, random_state=3).play(
        learner, 200, batch_size=10, classes=classes)
    assert set(learner.classes_.tolist()) == set(classes)
    assert set(np.unique(record.y)) <= {-1, 1} and set(np.unique(record.y_pred)) <= {-1, 1}
    assert record.mistakes == int(np.count_nonzero(record.y_pred != record.y))
    if classes != (1, -1):  # same ordering of the labels: the very same game
        np.testing.assert_array_equal(record.X, reference.X)
        np.testing.assert_array_equal(record.y, reference.y)
        np.testing.assert_array_equal(record.y_pred, reference.y_pred)


def test_play_rejects_bad_classes():
    with pytest.raises(ValueError, match="classes"):
        SmoothedThresholdAdversary(random_state=0).play(Perceptron(), 10, classes=(1, 1))


def empirical_density_ratio(X, lower, upper, bins):
    """Largest (cell frequency / cell's uniform mass) over a grid of the box."""
    hist, _ = np.histogramdd(X, bins=bins, range=list(zip(lower, upper)))
    return hist.max() / len(X) * hist.size


@pytest.mark.parametrize("sigma", [0.25, 0.0625])
def test_samples_are_sigma_smooth_empirically(sigma):
    """Density of the samples <= 1 / sigma times the uniform density (Def. of
    sigma-smoothness, Haghtalab et al. 2020, §2), measured on a grid whose cells
    tile one window exactly; a generator ignoring sigma (a window half as
    large) is caught by the same check."""
    stream = SmoothedHalfspaceAdversary(sigma=sigma, n_features=2, adaptive=False,
                                        random_state=0)
    X, _ = stream.sample(40000)
    low, high = stream.window_
    cells = int(round(1 / np.sqrt(sigma)))  # window side = box side / cells
    # a grid aligned with the window: every cell inside it has mass sigma / 4
    grid_lo = low - np.floor(low * 2 * cells) / (2 * cells)
    ratio = empirical_density_ratio(X - grid_lo, [0, 0], [1, 1], 2 * cells)
    assert ratio <= (1 / sigma) * (1 + 5 / np.sqrt(40000 * sigma / 4))
    assert ratio >= 0.8 / sigma  # the stream does use its smoothness budget
    narrow = low + (X - low) * np.array([0.5, 1.0])  # window of volume sigma / 2
    assert empirical_density_ratio(narrow - grid_lo, [0, 0], [1, 1], 2 * cells) > \
        (1 / sigma) * (1 + 5 / np.sqrt(40000 * sigma / 4))


def test_bounds_none_asks_for_the_box_without_talking_of_a_private_release():
    # a stream generator reads no rows: the private releases' refusal does not apply
    with pytest.raises(ValueError, match=r"needs data.*bounds=\(lower, upper\)") as info:
        SmoothedHalfspaceAdversary(bounds=None)
    assert "private" not in str(info.value)
