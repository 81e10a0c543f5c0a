"""Seeded sigma-smooth adversaries for thresholds and halfspaces, adaptive or not.

Each round draws uniformly from a window of volume ``sigma * volume(box)``
(density ratio exactly ``1 / sigma``), labelled by a hidden halfspace; the
adaptive adversary binary-searches the learner's boundary (docs/guide/smooth_hedge.rst).
Theory: Haghtalab, Roughgarden, Shetty, NeurIPS 2020, arXiv:2006.10129, §2, App. B.
"""

import numpy as np

from .._validation import (check_bounds, check_flag, check_generator, check_positive_int,
                           check_probability, check_sigma)

__all__ = ["SmoothedHalfspaceAdversary", "SmoothedThresholdAdversary", "StreamRecord"]


class StreamRecord:
    """What :meth:`SmoothedHalfspaceAdversary.play` returns.

    Attributes
    ----------
    X : ndarray of shape (n_rounds, n_features)
    y : ndarray of shape (n_rounds,)
        Labels in {-1, +1} (after label noise).
    y_pred : ndarray of shape (n_rounds,)
        The learner's prediction of each round, made before it saw the label.
    y_clean : ndarray of shape (n_rounds,)
        Labels before label noise.
    """

    def __init__(self, X, y, y_pred, y_clean):
        self.X, self.y, self.y_pred, self.y_clean = X, y, y_pred, y_clean

    @property
    def mistakes(self):
        return int(np.count_nonzero(self.y_pred != self.y))

    def __iter__(self):
        return iter((self.X, self.y, self.y_pred))


class SmoothedHalfspaceAdversary:
    """A seeded sigma-smooth adversary for halfspaces (adaptive or not).

    Parameters
    ----------
    sigma : float in (0, 1]
        Smoothness: each round's distribution has density at most
        ``1 / sigma`` times the uniform density on ``bounds``.
    n_features : int, default=2
    adaptive : bool, default=True
        See the module docstring.
    label_noise : float in [0, 0.5), default=0.0
        Probability of flipping each label.
    bounds : tuple (lower, upper), default=(0.0, 1.0)
        The public box (scalars or arrays of length ``n_features``).
    normal : array-like of shape (n_features,), optional
        Hidden unit normal ``u`` (normalised). Default: drawn uniformly on
        the sphere at :meth:`reset` (``+1`` when ``n_features == 1``).
    n_probes : int, default=65
        Points on which an adaptive adversary queries the learner to find
        its decision boundary.
    random_state : None, int or Generator

    Attributes
    ----------
    normal_ : ndarray of shape (n_features,)
    theta_ : float
        An offset consistent with every clean label so far (the upper end of
        the version space for the adaptive adversary).
    version_space_ : tuple (lo, hi)
    window_ : tuple (low_corner, high_corner) of the last window.
    """

    def __init__(self, sigma=0.1, n_features=2, adaptive=True, label_noise=0.0,
                 bounds=(0.0, 1.0), normal=None, n_probes=65, random_state=None):
        self.sigma = sigma
        self.n_features = n_features
        self.adaptive = adaptive
        self.label_noise = label_noise
        self.bounds = bounds
        self.normal = normal
        self.n_probes = n_probes
        self.random_state = random_state
        self.reset()

    # --------------------------------------------------------------- state
    def reset(self):
        """Validate the parameters and restart the stream from its seed."""
        self.sigma_ = check_sigma(self.sigma)
        n_features = check_positive_int(self.n_features, "n_features")
        check_flag(self.adaptive, "adaptive")
        noise = check_probability(self.label_noise, "label_noise", closed=True)
        if noise >= 0.5:
            raise ValueError(f"label_noise must be < 0.5, got {noise!r}.")
        self.n_probes_ = check_positive_int(self.n_probes, "n_probes", minimum=2)
        self.lower_, self.upper_ = check_bounds(self.bounds, n_features, private=False)
        if np.any(self.upper_ <= self.lower_):
            raise ValueError("bounds: every feature needs lower < upper for a smooth stream.")
        # an int seed restarts the same stream; a Generator is used as is
        self._rng = check_generator(self.random_state)
        if self.normal is None:
            if n_features == 1:
                normal = np.ones(1)
            else:
                normal = self._rng.standard_normal(n_features)
        else:
            normal = np.asarray(self.normal, dtype=float).reshape(-1)
            if normal.shape != (n_features,) or not np.all(np.isfinite(normal)):
                raise ValueError(f"normal must be a finite vector of length {n_features}.")
        norm = np.linalg.norm(normal)
        if norm == 0:
            raise ValueError("normal must be non-zero.")
        self.normal_ = normal / norm
        self.centre_ = (self.lower_ + self.upper_) / 2.0
        half = (self.upper_ - self.lower_) / 2.0
        # range of <u, x - m> over the box
        reach = float(np.abs(self.normal_) @ half)
        self.version_space_ = (-reach, reach)
        self.side_ = self.sigma_ ** (1.0 / n_features) * (self.upper_ - self.lower_)
        if self.adaptive:
            self.theta_ = reach
        else:
            # a boundary crossing the middle half of the box
            self.theta_ = float(self._rng.uniform(-reach / 2, reach / 2))
        self.window_ = None
        self.n_rounds_ = 0
        return self

    def max_density_ratio(self):
        """Largest density of any window relative to the uniform density on the box.

        Equals ``volume(box) / volume(window) = 1 / sigma`` (up to rounding).
        """
        return float(np.prod((self.upper_ - self.lower_) / self.side_))

    # ------------------------------------------------------------ sampling
    def _window_around(self, point):
        """Window of side ``side_`` centred at ``point``, shifted inside the box."""
        low = np.clip(point - self.side_ / 2, self.lower_, self.upper_ - self.side_)
        return low, low + self.side_

    def _score(self, X):
        return (X - self.centre_) @ self.normal_

    def _locate_boundary(self, predict):
        """Offset along the normal where the learner's prediction flips."""
        lo, hi = self.version_space_
        if predict is None:
            return (lo + hi) / 2
        taus = np.linspace(lo, hi, self.n_probes_)
        probes = self._boundary_point_rows(taus)
        pred = np.asarray(predict(probes)) > 0
        change = np.flatnonzero(pred[1:] != pred[:-1])
        if len(change) == 0:
            return (lo + hi) / 2
        # the change closest to the middle of the version space
        mids = (taus[change] + taus[change + 1]) / 2
        return float(mids[np.argmin(np.abs(mids - (lo + hi) / 2))])

    def _boundary_point_rows(self, taus):
        """The points at offsets ``taus`` along the normal from the centre, in the box."""
        return np.clip(self.centre_ + taus[:, None] * self.normal_, self.lower_, self.upper_)

    def sample(self, n_samples, predict=None):
        """Draw the next ``n_samples`` rounds.

        Parameters
        ----------
        n_samples : int
            Rounds drawn from one distribution (the adversary adapts between
            calls; use ``n_samples=1`` for a fully adaptive adversary).
        predict : callable, optional
            ``predict(X) -> labels in {-1, +1}``: the learner's current
            predictions (only used when ``adaptive=True``).

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
        y : ndarray of int, shape (n_samples,), values in {-1, +1}
        """
        X, y, _, _ = self._sample(n_samples, predict)
        return X, y

    def _sample(self, n_samples, predict):
        n_samples = check_positive_int(n_samples, "n_samples")
        rng = self._rng
        if self.adaptive:
            offset = self._locate_boundary(predict)
            lo, hi = self.version_space_
            offset = min(max(offset, lo), hi)
        else:
            offset = self.theta_
        low, high = self._window_around(self._boundary_point_rows(np.array([offset]))[0])
        self.window_ = (low, high)
        X = low + rng.random((n_samples, len(low))) * (high - low)
        score = self._score(X)
        pred = None
        if predict is not None:
            pred = np.where(np.asarray(predict(X)) > 0, 1, -1)
        if self.adaptive:
            y_clean = np.empty(n_samples, dtype=int)
            lo, hi = self.version_space_
            coins = rng.random(n_samples) < 0.5
            for i in range(n_samples):  # sequential version-space update (n small)
                z = score[i]
                if z <= lo:
                    y_clean[i] = -1
                elif z >= hi:
                    y_clean[i] = 1
                else:
                    if pred is not None:
                        y_clean[i] = -pred[i]
                    else:
                        y_clean[i] = 1 if coins[i] else -1
                    if y_clean[i] > 0:
                        hi = z
                    else:
                        lo = z
            self.version_space_ = (lo, hi)
            self.theta_ = hi
        else:
            y_clean = np.where(score >= self.theta_, 1, -1)
        y = y_clean.copy()
        if self.label_noise:
            flip = rng.random(n_samples) < self.label_noise
            y[flip] = -y[flip]
        self.n_rounds_ += n_samples
        return X, y, pred, y_clean

    def iter_batches(self, n_rounds, batch_size=1, predict=None):
        """Yield ``(X, y)`` batches for ``n_rounds`` rounds.

        Parameters
        ----------
        n_rounds : int
        batch_size : int, default=1
        predict : callable, optional
            The learner's current ``predict`` (called before each batch, so the
            caller's updates between batches are seen by an adaptive adversary).
            If the learner is not fitted yet, the adversary falls back to the
            middle of its version space for that batch.

        Yields
        ------
        X : ndarray of shape (batch, n_features)
        y : ndarray of shape (batch,)
        """
        n_rounds = check_positive_int(n_rounds, "n_rounds")
        batch_size = check_positive_int(batch_size, "batch_size")
        for start in range(0, n_rounds, batch_size):
            size = min(batch_size, n_rounds - start)
            current = predict
            if predict is not None:
                try:  # an unfitted learner gives no information yet
                    predict(self._boundary_point_rows(np.zeros(1)))
                except (AttributeError, ValueError):  # NotFittedError is both
                    current = None
            X, y, _, _ = self._sample(size, current)
            yield X, y

    def play(self, learner, n_rounds, batch_size=1, classes=(-1, 1)):
        """Run the interaction with an online learner (predict, then update).

        Parameters
        ----------
        learner : estimator with ``partial_fit(X, y, classes=...)`` and ``predict``
        n_rounds : int
        batch_size : int, default=1
            Rounds per distribution / per ``partial_fit`` call.
        classes : sequence of two labels, default=(-1, 1)
            The labels the learner is trained on: ``classes[0]`` stands for
            -1 and ``classes[1]`` for +1 (any two labels, e.g. ``(0, 1)``).

        Returns
        -------
        record : StreamRecord
            Labels and predictions in {-1, +1}, whatever ``classes`` is.
        """
        n_rounds = check_positive_int(n_rounds, "n_rounds")
        batch_size = check_positive_int(batch_size, "batch_size")
        classes = np.asarray(classes)
        if classes.shape != (2,) or classes[0] == classes[1]:
            raise ValueError(
                f"classes must be two distinct labels (negative, positive), got {classes!r}.")

        def predict_pm1(X):
            return np.where(np.asarray(learner.predict(X)) == classes[1], 1, -1)

        batches = []
        for start in range(0, n_rounds, batch_size):
            b = min(batch_size, n_rounds - start)
            # the first batch comes before any fit: no prediction to adapt to (-1 recorded)
            X, y, pred, y_clean = self._sample(b, predict_pm1 if start else None)
            learner.partial_fit(X, np.where(y > 0, classes[1], classes[0]), classes=classes)
            batches.append((X, y, np.full(b, -1) if pred is None else pred, y_clean))
        return StreamRecord(*(np.concatenate(part) for part in zip(*batches)))

    def __repr__(self):
        return (f"{type(self).__name__}(sigma={self.sigma!r}, n_features={self.n_features!r}, "
                f"adaptive={self.adaptive!r}, label_noise={self.label_noise!r})")


class SmoothedThresholdAdversary(SmoothedHalfspaceAdversary):
    """A seeded sigma-smooth adversary for 1-D thresholds ``y = +1 iff x >= theta``.

    The one-feature case of :class:`SmoothedHalfspaceAdversary`: each round's
    distribution is uniform on an interval of length ``sigma * (upper -
    lower)`` inside ``bounds``; the adaptive version runs a binary search on
    the learner's current decision boundary (Haghtalab et al. 2020, App. B).

    Parameters
    ----------
    sigma, adaptive, label_noise, bounds, n_probes, random_state
        See :class:`SmoothedHalfspaceAdversary`.

    Attributes
    ----------
    threshold_ : float
        A threshold consistent with every clean label so far.

    Examples
    --------
    >>> from sksmooth.streams import SmoothedThresholdAdversary
    >>> stream = SmoothedThresholdAdversary(sigma=0.1, adaptive=False, random_state=0)
    >>> X, y = stream.sample(5)
    >>> X.shape, sorted(set(y.tolist())) <= [-1, 1]
    ((5, 1), True)
    """

    def __init__(self, sigma=0.1, adaptive=True, label_noise=0.0, bounds=(0.0, 1.0),
                 n_probes=65, random_state=None):
        super().__init__(sigma=sigma, n_features=1, adaptive=adaptive,
                         label_noise=label_noise, bounds=bounds, normal=None,
                         n_probes=n_probes, random_state=random_state)

    @property
    def threshold_(self):
        return float(self.centre_[0] + self.theta_)

    def __repr__(self):
        return (f"{type(self).__name__}(sigma={self.sigma!r}, adaptive={self.adaptive!r}, "
                f"label_noise={self.label_noise!r})")

