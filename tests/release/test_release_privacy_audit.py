"""Empirical privacy audits of the release mechanisms (sksmooth.metrics.audit_epsilon).

Neighbouring relation: substitution (same n, one record replaced).

SmoothMWEM design (strong event on the selection): two binary attributes,
tables = the two 1-way marginals, T = 1 round, n = 6 records, score = L1
error of a table against the uniform start, sensitivity Delta = 2/n = 1/3.

    D0 = {(1,1) x3, (0,1) x3}            scores: A 0,   B 1    (gap -3 Delta)
    D1 = {(1,1) x3, (0,1) x2, (1,0)}     scores: A 1/3, B 2/3  (gap -1 Delta)

The exponential mechanism picks A with probability sigmoid(eps_sel gap /
(2 Delta)): sigmoid(-1.5 eps_sel) on D0 and sigmoid(-0.5 eps_sel) on D1, a
ratio close to the full e^{eps_sel} because A is unlikely on both. The event
is "the released selection (``selected_``, part of the fitted output next to
the distribution and the noisy measurements) is table A". With
``selection_fraction=0.9`` and epsilon=2, eps_sel = 1.8 <= 2 (the audit bound
must stay below the claim); a broken version that spends twice the selection
budget has eps_sel = 3.6 and ratio ~e^{3.45} > e^2: the audit must catch it.
"""

import numpy as np

from sksmooth.metrics import audit_epsilon
from sksmooth.release import LaplacePerQuery, SmoothMWEM, SubsampledNetMechanism

D0 = np.array([[1.0, 1.0]] * 3 + [[0.0, 1.0]] * 3)
D1 = np.array([[1.0, 1.0]] * 3 + [[0.0, 1.0]] * 2 + [[1.0, 0.0]])
EPSILON = 2.0
N_TRIALS = 1500


class _DoubledSelection(SmoothMWEM):
    """Broken on purpose: spends 2x the selection budget it accounts for."""

    def _round_parameters(self, epsilon, delta, T, fraction, n, by_table):
        params = super()._round_parameters(epsilon, delta, T, fraction, n, by_table)
        return params._replace(selection_epsilon=2 * params.selection_epsilon)


def _mechanism(cls):
    def run(dataset, rng):
        est = cls(epsilon=EPSILON, queries="marginals", marginal_width=1, n_iter=1,
                  selection_fraction=0.9, categorical_features=[0, 1], bounds=(0, 1),
                  random_state=rng)
        return est.fit(dataset)

    return run


def _selected_a(fitted):
    return fitted.selected_[0] == 0


def test_smooth_mwem_audit_below_claim():
    res = audit_epsilon(_mechanism(SmoothMWEM), D0, D1, _selected_a, N_TRIALS,
                        random_state=0)
    assert res.epsilon_lower <= EPSILON
    # the event is informative: the selection's e^{1.8} ratio is visible
    assert res.epsilon_lower > 1.0


def test_audit_catches_doubled_selection_budget():
    res = audit_epsilon(_mechanism(_DoubledSelection), D0, D1, _selected_a, N_TRIALS,
                        random_state=0)
    assert res.epsilon_lower > EPSILON


def test_laplace_per_query_audit():
    # one binary attribute; workload = its two cells (one table, L1 sensitivity 2/n)
    X0 = np.zeros((4, 1))
    X1 = np.array([[0.0], [0.0], [0.0], [1.0]])
    eps = 1.0

    def run(X, rng):
        est = LaplacePerQuery(epsilon=eps, sensitivity="structured", queries="marginals",
                              marginal_width=1, categorical_features=[0], bounds=(0, 1),
                              random_state=rng)
        return est.fit(X).answers_

    res = audit_epsilon(run, X0, X1, lambda a: a[1] - a[0] > -0.25, 1500, random_state=2)
    assert res.epsilon_lower <= eps
    assert res.epsilon_lower > 0.2  # the shift of 0.5 in the difference is detected


def test_subsampled_net_audit_below_claim():
    eps = 1.0

    def run(dataset, rng):
        est = SubsampledNetMechanism(epsilon=eps, queries="marginals", marginal_width=1,
                                     universe="grid", n_universe=2, synthetic_size=1,
                                     categorical_features=[0, 1], bounds=(0, 1),
                                     random_state=rng)
        return est.fit(dataset)

    def event(est):
        # released point has A = 1
        return est.sample(1, random_state=0)[0, 0] == 1.0

    res = audit_epsilon(run, D0, D1, event, 300, random_state=1)
    assert res.epsilon_lower <= eps
