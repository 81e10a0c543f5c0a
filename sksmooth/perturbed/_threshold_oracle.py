"""Exact weighted 0-1 ERM over 1-D thresholds: on the whole line (an
infinite class) or on the stumps' public grid."""

import numpy as np

from ._stump_oracle import StumpERMClassifier

__all__ = ["ThresholdERMClassifier"]


class ThresholdERMClassifier(StumpERMClassifier):
    """Exact weighted 0-1 ERM over 1-D thresholds.

    ``n_thresholds=None`` (default): exact ERM over *all* thresholds
    ``x -> s * sign(x - t)`` on the real line, by sorting the data and one
    cumulative sum (``O(n log n)``). The class is then infinite and
    ``threshold_`` is halfway between two rows' values, so
    :class:`PerturbedERMClassifier`'s private ``fit`` refuses it (its online
    ``partial_fit`` takes it). An integer ``n_thresholds`` restricts to a
    grid on ``bounds`` (the 1-D case of :class:`StumpERMClassifier`), which
    certifies.

    Parameters
    ----------
    n_thresholds : int or None, default=None
    bounds : tuple (lower, upper) or None, default=None

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    threshold_ : float
        Predict ``sign_`` (in {-1, +1} coding) for ``x >= threshold_``.
    sign_ : {-1, +1}
    n_features_in_ : int
        Always 1.

    Examples
    --------
    >>> from sksmooth.perturbed import ThresholdERMClassifier
    >>> ThresholdERMClassifier().fit([[0.], [1.], [2.]], [0, 1, 1]).threshold_
    0.5
    """

    def __init__(self, n_thresholds=None, *, bounds=None):
        super().__init__(n_thresholds=n_thresholds, bounds=bounds)

    def _erm_check_domain(self, X):
        if X.shape[1] != 1:
            raise ValueError(
                f"{type(self).__name__} learns 1-D thresholds: X must have one "
                f"feature, got {X.shape[1]}. Use StumpERMClassifier."
            )
        return X

    @property
    def _over_the_whole_line(self):
        """The exact path: every threshold of the real line (an infinite class),
        instead of the grid on ``bounds``."""
        return self.n_thresholds is None

    @property
    def _erm_uses_bounds(self):
        return not self._over_the_whole_line

    @property
    def _erm_exact_finite_class(self):
        return not self._over_the_whole_line

    @property
    def _erm_output_is_private_values(self):
        """The exact path's threshold is the midpoint of two rows' values: no private
        fit may release it (:func:`~sksmooth.perturbed._setup.make_oracle` refuses)."""
        return self._over_the_whole_line

    def _erm_incremental(self):
        # the exact path (n_thresholds=None) sorts the rows: no finite statistic
        return (not self._over_the_whole_line
                and type(self)._fit_pm1 is ThresholdERMClassifier._fit_pm1)

    def _fit_pm1(self, X, y_pm1, weights):
        if not self._over_the_whole_line:
            return super()._fit_pm1(X, y_pm1, weights)
        self._n_thresholds = None  # the exact path (read by predict)
        x = X[:, 0]
        order = np.argsort(x, kind="stable")
        xs, signed = x[order], (weights * y_pm1)[order]
        total = signed.sum()
        # cut after position i (between distinct values) or before everything
        last = np.flatnonzero(np.r_[xs[1:] != xs[:-1], True])
        below = np.r_[0.0, np.cumsum(signed)[last]]
        corr = total - 2.0 * below  # s = +1, threshold just above cut
        scores = np.concatenate([corr, -corr])
        best = int(np.argmax(scores))
        self.sign_ = 1 if best < len(corr) else -1
        cut = best % len(corr)
        if cut == 0:
            self.threshold_ = -np.inf
        elif cut == len(corr) - 1:
            self.threshold_ = np.inf
        else:
            self.threshold_ = float((xs[last[cut - 1]] + xs[last[cut - 1] + 1]) / 2)
        self.feature_ = 0

    def _predict_pm1(self, X):
        if self._n_thresholds is not None:
            return super()._predict_pm1(X)
        return np.where(X[:, 0] >= self.threshold_, 1.0, -1.0) * self.sign_

    def _erm_class_size(self, n_features):
        if self._over_the_whole_line:
            return None
        return super()._erm_class_size(n_features)

    def _erm_default_n_points(self, n_features):
        if self._over_the_whole_line:
            return 16
        return super()._erm_default_n_points(n_features)

    def _erm_evaluate_class(self, Z):
        if self._over_the_whole_line:
            raise ValueError("ThresholdERMClassifier(n_thresholds=None) is an infinite class.")
        return super()._erm_evaluate_class(Z)
