"""The contract between PerturbedERMClassifier and its ERM oracles.

An exact oracle implements :class:`ERMOracle`; any other classifier whose
``fit`` takes ``sample_weight`` is a heuristic oracle, called the same way
and certified for nothing. The theory is in Block and Shetty,
arXiv:2502.10292 (2025), Alg. 1-2, Lemma 2, Def. 5.
"""

import functools
import typing
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["ERMOracle", "IncrementalERMOracle", "is_erm_oracle", "check_erm_oracle",
           "predict_validated"]


@runtime_checkable
class ERMOracle(Protocol):
    """An exact weighted 0-1 ERM oracle, as :class:`PerturbedERMClassifier` uses it.

    The declarations say what the oracle certifies; the methods give the
    calibration what it needs (``|F|``, the separation ``rho`` of ``F`` on the
    separating points, a data-independent separating design). Only public
    inputs reach them, except :meth:`_erm_fit`.

    Attributes
    ----------
    _erm_exact_finite_class : bool
        The oracle declares that it returns an exact minimiser of the weighted
        0-1 loss over a fixed finite class, depending on the rows only through
        the weighted losses (ties broken in a data-independent order), and
        stores nothing else of them: the conditions of Lemma 2. The private
        fit certifies nothing else.
    _erm_output_is_private_values : bool
        The fitted parameters hold values of the rows (a threshold halfway
        between two rows): the private fit refuses the oracle.
    _erm_multiclass : bool
        Labels are class indices ``0..k-1`` (else ``-1``/``+1``).
    _erm_uses_bounds : bool
        The class is defined by the oracle's ``bounds`` parameter (set to the
        public box when it is ``None``).
    _erm_own_domain : bool
        The oracle has its own finite domain (a cube, a point set): no box needed.
    _erm_class_size_is_bound, _erm_separation_is_bound : bool
        ``_erm_class_size`` is an upper bound on ``|F|`` and ``_erm_separation``
        a lower bound on ``rho`` (else both are exact).
    _erm_separation_hint : str
        How to obtain a separating design (said when ``rho = 0``).
    """

    _erm_exact_finite_class: bool
    _erm_output_is_private_values: bool
    _erm_multiclass: bool
    _erm_uses_bounds: bool
    _erm_own_domain: bool
    _erm_class_size_is_bound: bool
    _erm_separation_is_bound: bool
    _erm_separation_hint: str

    def _erm_fit(self, X, y, weights, n_classes=2):
        """Fit on validated rows (labels +-1, or indices if multiclass; weights >= 0)."""

    def _erm_predict_validated(self, X):
        """Predictions of validated rows in the oracle's label coding."""

    def _erm_sanitize(self, X):
        """Rows mapped onto the oracle's own domain by a fixed public rule."""

    def _erm_class_size(self, n_features, n_classes=2):
        """``|F|`` (or an upper bound, see above); ``None`` for an infinite class."""

    def _erm_evaluate_class(self, Z):
        """The whole class on ``Z``: a ``(len(Z), |F|)`` matrix of +-1."""

    def _erm_separation(self, Z, n_classes=2):
        """``rho``: the least empirical L2 distance of two members on ``Z`` (Def. 5)."""

    def _erm_sample_domain(self, n_points, rng, lower, upper):
        """``n_points`` i.i.d. uniform points of the domain."""

    def _erm_design(self, n_points, rng, lower, upper):
        """A data-independent separating design of about ``n_points`` points."""

    def _erm_default_n_points(self, n_features):
        """The design size ``n_hallucinated='auto'`` takes."""

    def _erm_certifying_n_points(self, n_features):
        """The design size that certifies ``rho > 0`` if the default does not, else None."""

    def _erm_incremental(self):
        """Whether the fit is a function of an additive statistic of the rows
        (then the oracle is an :class:`IncrementalERMOracle`)."""


@runtime_checkable
class IncrementalERMOracle(ERMOracle, Protocol):
    """An exact oracle whose loss of every hypothesis is an additive statistic
    of the rows: online FTPL keeps the statistic instead of the rows."""

    def _erm_check_domain(self, X):
        """``X`` if its rows are in the oracle's domain, else a ValueError."""

    def _erm_prepare(self, X, context=None):
        """Rows encoded for the statistic (``context``: of rows prepared before)."""

    def _erm_accumulate(self, prepared, y, weights, n_classes=2):
        """The additive statistic of weighted rows."""

    def _fit_from_statistic(self, statistic, prepared, n_classes=2):
        """Fit from a statistic (the sum of those of the rows)."""


_MEMBERS = tuple(sorted(typing._get_protocol_attrs(ERMOracle)))


@functools.cache
def _type_is_erm_oracle(cls):
    return all(hasattr(cls, name) for name in _MEMBERS)


def is_erm_oracle(estimator):
    """Whether ``estimator`` implements :class:`ERMOracle` (cached per type: the
    members are class attributes and methods)."""
    return _type_is_erm_oracle(type(estimator))


def predict_validated(estimator, X):
    """``estimator``'s predictions of rows already validated (an exact oracle skips
    its own checks), in its own label coding."""
    return np.asarray(estimator._erm_predict_validated(X) if is_erm_oracle(estimator)
                      else estimator.predict(X))


def check_erm_oracle(estimator, name="estimator"):
    """Refuse an estimator that implements part of :class:`ERMOracle`: it looks
    like an exact oracle but cannot be calibrated as one."""
    if is_erm_oracle(estimator):
        return estimator
    declared = [attr for attr in dir(type(estimator)) if attr.startswith("_erm_")]
    if declared:
        missing = ", ".join(m for m in _MEMBERS if not hasattr(estimator, m))
        raise TypeError(
            f"{name} {type(estimator).__name__} defines part of the ERMOracle protocol "
            f"({', '.join(declared[:3])}, ...) but lacks {missing}. Implement all of "
            "sksmooth.perturbed.ERMOracle (or subclass an oracle of sksmooth.perturbed), or "
            "drop its _erm_ members to use it as a heuristic oracle.")
    return estimator
