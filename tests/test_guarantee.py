"""The Guarantee record (sksmooth._guarantee)."""

import numpy as np
import pytest

from sksmooth import PerturbedERMClassifier
from sksmooth._guarantee import Guarantee


def test_a_certified_guarantee_cannot_list_unverified_assumptions():
    # PerturbedERM's online guarantee was certified=True while it listed "L* = 0"
    # as not certified (found by an audit); the record now refuses the mix
    with pytest.raises(ValueError, match="certified Guarantee lists"):
        Guarantee("claim", "source", True, assumptions_not_certified=("unchecked",))
    assert not Guarantee("claim", "source", False, assumptions_not_certified=("x",)).certified


def test_the_online_regret_claim_states_its_condition_in_notes():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(200, 1))
    y = (X[:, 0] > 0.5).astype(int)
    clf = PerturbedERMClassifier(noise="theory", horizon=10, bounds=(0, 1), classes=[0, 1],
                                 random_state=0)
    for start in range(0, 100, 10):
        clf.partial_fit(X[start:start + 10], y[start:start + 10])
    guarantee = clf.guarantee_
    assert any("L* = 0" in n for n in guarantee.notes)
    assert guarantee.certified == (not guarantee.assumptions_not_certified)
