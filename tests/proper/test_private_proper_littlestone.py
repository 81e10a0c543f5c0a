"""PrivateProperClassifier(method='littlestone'): PolyPriPropLearn.

Ghazi, Golowich, Kumar, Manurangsi, "Sample-efficient proper PAC learning
with approximate differential privacy", STOC 2021, arXiv:2012.03893, Alg. 3,
Thm 6.4.
"""

import warnings

import numpy as np
import pytest

from sksmooth.accounting import BudgetAccountant
from sksmooth.classes import FiniteClass
from sksmooth.exceptions import PrivacyWarning
from sksmooth.proper import Littlestone, PrivateProperClassifier


def _littlestone_data(N=16, n=400, target=5, seed=0):
    domain = np.arange(N) / N
    rng = np.random.default_rng(seed)
    x = rng.choice(domain, n)
    y = (x >= domain[target]).astype(int)
    return domain, x[:, None], y


def _littlestone(**kw):
    own = {name: kw.pop(name) for name in list(kw) if name in Littlestone().get_params()}
    params = dict(hypotheses="thresholds", method=Littlestone(**own), epsilon=1.0, delta=1e-6,
                  classes=[0, 1])
    params.update(kw)
    return PrivateProperClassifier(**params)


def test_littlestone_proper_accurate_and_reported():
    domain, X, y = _littlestone_data()
    acc = BudgetAccountant()
    with pytest.warns(PrivacyWarning, match="Thm 6.4"):
        clf = _littlestone(domain=domain, accountant=acc).fit(X, y)
    assert clf.littlestone_dimension_ == 4  # floor(log2(17))
    assert clf.cover_size_ == 17
    hyp = clf.hypothesis_
    D = domain[:, None]
    matrix = domain[None, :] >= np.append(np.sort(domain), np.inf)[:, None]
    np.testing.assert_array_equal(clf.predict(D), matrix[hyp.index].astype(int))
    assert hyp.index in clf.candidate_indices_
    assert clf.score(D, (domain >= domain[5]).astype(int)) >= 0.9
    # composition arithmetic of the release: parallel parts, charged once
    assert clf.privacy_spent_ == (1.0, 1e-6)
    assert [(r.epsilon, r.delta) for r in acc.ledger] == [(1.0, 1e-6)]
    assert clf.theoretical_sample_size_ > len(X)
    assert "Alg. 3" in clf.guarantee_.source
    # GenericLearner samples exactly; the sparse selection with floating-point Gumbel
    # noise, which was certified (found by a review)
    assert any("sampled exactly" in a for a in clf.guarantee_.assumptions_certified)
    assert not clf.guarantee_.certified and any(
        "sparse selection" in a and "floating-point" in a
        for a in clf.guarantee_.assumptions_not_certified)
    assert not acc.ledger[0].certified
    assert set(clf.parameters_) >= {"n_chunks", "n_generic", "k_prime", "alpha_delta"}


def test_littlestone_matrix_class_and_partial_fit():
    domain, X, y = _littlestone_data(N=8, n=300, target=3, seed=1)
    F = np.where(domain[None, :] >= np.append(domain, np.inf)[:, None], 1, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        part = _littlestone(domain=domain, hypotheses=F)
        for chunk in np.array_split(np.arange(len(X)), 3):
            part.partial_fit(X[chunk], y[chunk])
    assert part.n_releases_ == 3 and part.privacy_spent_.epsilon == pytest.approx(3.0)
    assert part.privacy_spent_.delta == pytest.approx(3e-6)
    np.testing.assert_array_equal(part.predict(domain[:, None]),
                                  (F[part.hypothesis_.index] > 0).astype(int))


def test_rows_off_the_domain_are_mapped_not_refused():
    domain, X, y = _littlestone_data(N=8, n=100)
    clf = _littlestone(domain=domain)
    X_bad = np.vstack([X[:5], [[0.123456]], [[np.nan]], [[np.inf]]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        clf.fit(X_bad, np.r_[y[:5], 1, 0, 1])
    assert clf.n_samples_seen_ == 8
    assert np.isin(clf.predict(X_bad), [0, 1]).all()
    with pytest.raises(ValueError, match="columns"):
        _littlestone(domain=domain, hypotheses=np.ones((3, 5))).fit(X, y)
    with pytest.raises(ValueError, match="neighbouring"):
        _littlestone(domain=domain, neighbouring="add_remove").fit(X, y)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_littlestone_runs_for_every_n(n):
    """Privacy holds for every n: tiny samples still give a proper, charged release."""
    domain = np.arange(8.0)
    x = domain[:n, None]
    clf = _littlestone(domain=domain)
    with pytest.warns(PrivacyWarning):
        clf.fit(x, (x[:, 0] >= 3).astype(int))
    assert 0 <= clf.hypothesis_.index < 9
    assert clf.privacy_spent_ == (1.0, 1e-6)


def test_littlestone_accepts_a_finite_class_instance():
    domain, X, y = _littlestone_data(N=8, n=400, target=3, seed=2)
    matrix = np.where(domain[None, :] >= np.append(domain, np.inf)[:, None], 1, -1)
    concepts = FiniteClass(matrix=matrix, domain=domain[:, None])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        clf = _littlestone(domain=domain, hypotheses=concepts).fit(X, y)
    assert clf.littlestone_dimension_ == 3
    np.testing.assert_array_equal(
        clf.predict(domain[:, None]), (matrix[clf.hypothesis_.index] > 0).astype(int)
    )


def test_a_refit_with_another_method_keeps_no_stale_attribute():
    domain, X, y = _littlestone_data()
    clf = _littlestone(domain=domain)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        clf.fit(X, y)
    assert hasattr(clf, "littlestone_dimension_")
    clf.set_params(method="exponential", bounds=(float(domain.min()), float(domain.max())))
    clf.fit(X, y)
    stale = [name for name in ("littlestone_dimension_", "theoretical_sample_size_",
                               "candidate_indices_") if hasattr(clf, name)]
    assert stale == []
