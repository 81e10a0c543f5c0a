"""hypotheses='intervals': exact exponential-mechanism sampling over interval partitions."""

import itertools
import math
from types import SimpleNamespace

import numpy as np
import pytest

from sksmooth.proper import Exponential, PrivateProperClassifier
from sksmooth.proper import _intervals as intervals
from sksmooth.proper._intervals import IntervalStrategy, listed_cells

PARAMS = {"gamma": 1 / 8, "cover_size": "auto", "neighbouring": "substitution"}


def _strategy(n_classes=2, neighbouring="substitution"):
    params = dict(PARAMS, neighbouring=neighbouring)
    return IntervalStrategy.build(params, np.zeros(1), np.ones(1), n_classes, False)


def _enumerate(strategy, counts, scale):
    """Every representation (cuts, labels) with its exact exponential-mechanism weight."""
    n_cells, k, law = strategy.n_cells, strategy.n_classes, {}
    for p in range(1, strategy.max_pieces + 1):
        for interior in itertools.combinations(range(1, n_cells), p - 1):
            edges = (0,) + interior + (n_cells,)
            for labels in itertools.product(range(k), repeat=p):
                errors = sum(counts[a:b].sum() - counts[a:b, l].sum()
                             for a, b, l in zip(edges[:-1], edges[1:], labels))
                law[(interior, labels)] = math.exp(-scale * errors)
    total = sum(law.values())
    return {key: w / total for key, w in law.items()}


def test_size_of_the_class_matches_enumeration():
    strategy = _strategy(3)
    counts = np.zeros((strategy.n_cells, 3))
    assert strategy.n_hypotheses == len(_enumerate(strategy, counts, 1.0))
    assert strategy.log_n_hypotheses() == pytest.approx(math.log(strategy.n_hypotheses))


def _listed_law(strategy, stats, epsilon, monkeypatch):
    """The law the listed sampler draws from: the scores and epsilon it hands the exact
    exponential mechanism (whose law is checked in tests/mechanisms), decoded."""
    seen = []

    def spy(scores, eps, sensitivity, rng, monotonic=False):
        seen.append((np.asarray(scores), eps, sensitivity, monotonic))
        return 0

    monkeypatch.setattr(intervals, "exact_exponential_mechanism", spy)
    strategy.select(stats, {"epsilon": epsilon}, SimpleNamespace(noise=None))
    (scores, eps, sensitivity, monotonic), = seen
    log_w = eps * scores / (sensitivity if monotonic else 2 * sensitivity)
    weights = np.exp(log_w - log_w.max())
    law = {}
    for index, w in enumerate(weights / weights.sum()):
        _, interior, labels = strategy._listed_choice(index)
        law[(interior, labels)] = law.get((interior, labels), 0.0) + w
    return law


def _dynamic_programming_law(strategy, stats, epsilon, monkeypatch):
    """The law of the dynamic-programming sampler, path by path: every sequence of
    Gumbel-argmax choices it can make, with the product of their softmax probabilities."""
    law, stack = {}, [()]
    while stack:
        forced, made = stack.pop(), []

        def choose(log_weights, rng, forced=forced, made=made):
            p = np.exp(log_weights - np.max(log_weights))
            p = p / p.sum()
            step = len(made)
            pick = forced[step] if step < len(forced) else int(np.flatnonzero(p > 0)[0])
            made.append((pick, p))
            return pick

        monkeypatch.setattr(intervals, "_gumbel_argmax", choose)
        (_, interior, labels), _ = strategy.select(stats, {"epsilon": epsilon},
                                                   SimpleNamespace(noise=None))
        law[(interior, labels)] = law.get((interior, labels), 0.0) + math.prod(
            p[pick] for pick, p in made)
        picks = tuple(pick for pick, _ in made)
        for step in range(len(forced), len(made)):  # the other branches from here on
            stack.extend(picks[:step] + (int(j),)
                         for j in np.flatnonzero(made[step][1] > 0) if j > picks[step])
    return law


@pytest.mark.parametrize("sampler", ["listed", "dynamic programming"])
@pytest.mark.parametrize("neighbouring, scale", [("substitution", 0.5), ("add_remove", 1.0)])
def test_sampler_law_is_exactly_the_exponential_mechanism(neighbouring, scale, sampler,
                                                          monkeypatch):
    if sampler != "listed":
        monkeypatch.setattr(intervals, "MAX_LISTED", 0)
    strategy = _strategy(2, neighbouring)
    assert strategy.listed == (sampler == "listed")
    counts = np.random.default_rng(0).integers(0, 6, size=(strategy.n_cells, 2))
    stats = type(strategy.empty_statistics())(counts[None].astype(np.int64))
    sampler_law = _listed_law if sampler == "listed" else _dynamic_programming_law
    law = _enumerate(strategy, counts, scale)

    def matches(epsilon):
        drawn = sampler_law(strategy, stats, epsilon, monkeypatch)
        return set(drawn) == set(law) and all(
            drawn[key] == pytest.approx(p, rel=1e-9, abs=1e-15) for key, p in law.items())

    assert matches(1.0)
    assert not matches(2.0)  # a doubled epsilon is caught


def test_gumbel_argmax_draws_from_the_softmax_of_its_log_weights():
    """The one random step of the dynamic programme, which the law test above replaces
    by its path enumeration: its frequencies at 20,000 draws (0.1 s) are within 5
    standard errors of softmax(log_weights); with half the Gumbel noise (2x epsilon)
    they are off by over 30 standard errors."""
    log_weights = np.array([0.0, 0.5, 1.0, -np.inf])
    rng = np.random.default_rng(0)
    n = 20_000
    drawn = np.bincount([intervals._gumbel_argmax(log_weights, rng) for _ in range(n)],
                        minlength=4) / n
    law = np.exp(log_weights) / np.exp(log_weights).sum()
    assert drawn[3] == 0
    assert np.all(np.abs(drawn - law) <= 5 * np.sqrt(law * (1 - law) / n))


# the frequencies of the real draws (the exact law above is computed, not sampled)
@pytest.mark.parametrize("sampler", ["listed", "dynamic programming"])
@pytest.mark.parametrize("neighbouring, scale", [("substitution", 0.5), ("add_remove", 1.0)])
@pytest.mark.slow
def test_sampler_has_exactly_the_exponential_mechanism_law(neighbouring, scale, sampler,
                                                           monkeypatch):
    if sampler != "listed":
        monkeypatch.setattr(intervals, "MAX_LISTED", 0)
    strategy = _strategy(2, neighbouring)
    assert strategy.listed == (sampler == "listed")
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 6, size=(strategy.n_cells, 2))
    law = _enumerate(strategy, counts, scale)
    stats = strategy.empty_statistics()
    stats = type(stats)(counts[None].astype(np.int64))
    n_draws = 4000
    randomness = SimpleNamespace(noise=rng)

    def frequencies(epsilon):
        draws = {}
        for _ in range(n_draws):
            (_, interior, labels), _ = strategy.select(stats, {"epsilon": epsilon}, randomness)
            draws[(interior, labels)] = draws.get((interior, labels), 0) + 1
        return draws

    def within_tolerance(draws):
        return set(draws) <= set(law) and all(
            abs(draws.get(key, 0) / n_draws - p) <= 5 * math.sqrt(p * (1 - p) / n_draws) + 1e-4
            for key, p in law.items())

    stats = strategy.empty_statistics()
    stats = type(stats)(counts[None].astype(np.int64))
    assert within_tolerance(frequencies(1.0))
    assert not within_tolerance(frequencies(2.0))  # a doubled epsilon is caught


def test_iris_multiclass_intervals_are_accurate_and_proper():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    bounds = (X.min(0), X.max(0))
    accs = []
    for seed in range(3):
        perm = np.random.default_rng(seed).permutation(len(X))
        tr, te = perm[:110], perm[110:]
        # seeded: unseeded, the mean of three releases hit exactly 0.85 once in a
        # fresh-clone CI run (0/60 in a rerun: a rare draw at 1-2%, not a regression)
        clf = PrivateProperClassifier(hypotheses="intervals", epsilon=1.0, bounds=bounds,
                                      classes=[0, 1, 2], random_state=seed).fit(X[tr], y[tr])
        accs.append(clf.score(X[te], y[te]))
    assert np.mean(accs) > 0.85
    hyp = clf.hypothesis_
    assert hyp.description.count("->") <= 3  # at most n_classes pieces
    proba = clf.predict_proba(X)
    np.testing.assert_array_equal(clf.classes_[proba.argmax(1)], clf.predict(X))
    assert clf.excess_error_bound_ == pytest.approx(
        min(1.0, 2 * (math.log(clf.cover_size_) - math.log(0.1)) / (1.0 * 110)))


def test_intervals_partial_fit_counts_and_extreme_epsilon():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(90, 2))
    y = (X[:, 0] * 3).astype(int)
    clf = PrivateProperClassifier(hypotheses="intervals", epsilon=1e6, bounds=(0.0, 1.0),
                                  classes=[0, 1, 2])
    for chunk in np.array_split(np.arange(90), 3):
        clf.partial_fit(X[chunk], y[chunk])
    assert clf.n_releases_ == 3 and clf.n_samples_seen_ == 90
    assert clf.score(X, y) > 0.9  # epsilon = 1e6 (the largest allowed): the best partition


def test_tiny_gamma_is_capped_to_a_bounded_grid():
    X = np.random.default_rng(0).uniform(size=(40, 2))
    y = (X[:, 0] > 0.5).astype(int)
    clf = PrivateProperClassifier(hypotheses="intervals", bounds=(0.0, 1.0), classes=[0, 1],
                                  method=Exponential(gamma=1e-300)).fit(X, y)
    assert clf._strategy.n_cells == 1024  # (N + 1)^2 k log weights per feature, not 5e299


def test_listing_decodes_every_hypothesis_with_its_error_count():
    strategy = IntervalStrategy.build(dict(PARAMS, gamma=0.1), np.zeros(2), np.ones(2), 3, False)
    counts = np.random.default_rng(0).integers(0, 5, size=(2, strategy.n_cells, 3))
    errors = strategy._listed_errors(counts).ravel()
    assert errors.size == strategy.n_hypotheses
    seen = set()
    for index in range(errors.size):
        f, interior, labels = strategy._listed_choice(index)
        edges = (0,) + interior + (strategy.n_cells,)
        assert errors[index] == sum(counts[f, a:b].sum() - counts[f, a:b, label].sum()
                                    for a, b, label in zip(edges[:-1], edges[1:], labels))
        seen.add((f, interior, labels))
    assert len(seen) == errors.size


def test_auto_picks_the_finest_listed_grid_from_public_inputs():
    assert listed_cells(13, 3) == 64 and listed_cells(10, 4) == 23
    assert listed_cells(20, 5) is None and listed_cells(64, 10) is None
    assert intervals.interval_class_size(13, 64, 3) <= intervals.MAX_LISTED
    assert intervals.interval_class_size(10, 24, 4) > intervals.MAX_LISTED
