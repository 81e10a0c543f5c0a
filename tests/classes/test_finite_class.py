import numpy as np
import pytest

from sksmooth.classes import FiniteClass


def test_matrix_class_evaluates_by_domain_lookup():
    rng = np.random.default_rng(0)
    domain = rng.integers(0, 5, size=(40, 3)).astype(float)
    domain = np.unique(domain, axis=0)
    matrix = rng.choice([-1, 1], size=(7, len(domain)))
    F = FiniteClass(matrix=matrix, domain=domain)
    assert F.n_concepts == 7 and F.gamma == 0.0 and F.gamma_certified
    idx = rng.integers(0, len(domain), size=100)
    got = F.evaluate(domain[idx], chunk_size=9)
    np.testing.assert_array_equal(got, (matrix > 0).T[idx])
    np.testing.assert_array_equal(F.evaluate_sign(domain[idx]), matrix.T[idx])
    assert F.cover() is F
    sub = F.subset([6, 0])
    np.testing.assert_array_equal(sub.evaluate(domain[idx]), (matrix[[6, 0]] > 0).T[idx])
    assert sub.gamma is None and F.gamma == 0.0


def test_matrix_class_default_index_domain_and_negative_zero():
    F = FiniteClass(matrix=np.array([[True, False, True]]), domain=[[0.0], [1.0], [2.0]])
    np.testing.assert_array_equal(F.evaluate(np.array([-0.0, 2.0])), [[True], [True]])
    # a point off the domain (rows may be private) is evaluated as the first point
    np.testing.assert_array_equal(F.evaluate([[0.5]]), F.evaluate([[0.0]]))
    with pytest.raises(ValueError, match="not a point"):
        F.domain_index([[0.5]])


def test_callable_class_matches_functions():
    fs = [lambda X: X[:, 0] > 0.5, lambda X: X.sum(axis=1) < 1.0, lambda X: X[:, 1] > 0]
    F = FiniteClass(functions=fs, n_features=2, names=["a", "b", "c"])
    X = np.random.default_rng(1).normal(size=(50, 2))
    expected = np.stack([np.asarray(f(X)) for f in fs], 1)
    np.testing.assert_array_equal(F.evaluate(X, chunk_size=7), expected)
    assert F.describe(1) == "b" and F.subset([2]).describe(0) == "c"


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        (dict(), ValueError, "exactly one"),
        (dict(matrix=[[1, 0, -1]]), ValueError, "mix"),
        (dict(matrix=[[2, 1]]), ValueError, "matrix"),
        (dict(matrix=[1, 0]), ValueError, "2-D"),
        (dict(matrix=[[1, 0]], domain=[[0], [1], [2]]), ValueError, "domain"),
        (dict(matrix=[[1, 0]], domain=[[0], [0]]), ValueError, "duplicate"),
        (dict(functions=[lambda X: X[:, 0] > 0]), ValueError, "n_features"),
        (dict(functions=[1, 2], n_features=1), TypeError, "callables"),
        (dict(matrix=[[1, 0]], names=["a", "b"]), ValueError, "names"),
    ],
)
def test_finite_class_bad_input(kwargs, err, match):
    with pytest.raises(err, match=match):
        FiniteClass(**kwargs)


def test_function_with_wrong_output_shape():
    F = FiniteClass(functions=[lambda X: X], n_features=2)
    with pytest.raises(ValueError, match="functions\\[0\\]"):
        F.evaluate(np.zeros((3, 2)))


def test_point_outside_domain_error_does_not_echo_private_values():
    # X is typically private data: the error must not copy a record into
    # messages/logs
    F = FiniteClass(matrix=np.array([[1, -1, 1]]), domain=np.array([[0.0], [1.0], [2.0]]))
    X = np.array([[1.0], [123.456789]])
    with pytest.raises(ValueError, match="domain") as info:
        F.domain_index(X)
    assert "123.45" not in str(info.value)
