import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from sksmooth.perturbed import (
    DepthTwoTreeERMClassifier,
    ERMOracle,
    FiniteClassERMClassifier,
    MulticlassDepthTwoTreeERMClassifier,
    MulticlassStumpERMClassifier,
    ParityERMClassifier,
    PerturbedERMClassifier,
    StumpERMClassifier,
    ThresholdERMClassifier,
)
from sksmooth.perturbed._protocol import IncrementalERMOracle


@pytest.mark.parametrize("oracle", [
    StumpERMClassifier(), MulticlassStumpERMClassifier(), ThresholdERMClassifier(),
    ParityERMClassifier(), FiniteClassERMClassifier(np.eye(3) * 2 - 1),
    DepthTwoTreeERMClassifier(), MulticlassDepthTwoTreeERMClassifier()])
def test_package_oracles_implement_the_protocol(oracle):
    assert isinstance(oracle, ERMOracle)
    assert isinstance(oracle, IncrementalERMOracle)


def test_a_heuristic_oracle_is_not_an_erm_oracle():
    assert not isinstance(LogisticRegression(), ERMOracle)


class _HalfOracle(LogisticRegression):
    """Declares part of the protocol only."""

    _erm_exact_finite_class = True

    def _erm_class_size(self, n_features):
        return 2


def test_a_partial_implementation_is_refused_naming_estimator_and_the_fix():
    X, y = np.random.default_rng(0).uniform(size=(20, 2)), np.arange(20) % 2
    with pytest.raises(TypeError, match=r"estimator _HalfOracle .*lacks .*_erm_design.*ERMOracle"):
        PerturbedERMClassifier(_HalfOracle(), bounds=(0, 1), classes=[0, 1]).fit(X, y)
