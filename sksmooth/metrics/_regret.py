"""Regret of an online learner against the best hypothesis in hindsight.

Exact over the infinite class of thresholds and stumps (one sorted scan per
feature); over a given finite set otherwise (then a lower bound on the class
regret). Theory: Haghtalab, Roughgarden, Shetty, NeurIPS 2020, arXiv:2006.10129, §2-3.
"""

import numpy as np

__all__ = ["regret", "best_loss_in_hindsight"]


def _stump_best(X, y_positive):
    """Exact best stump (any feature, threshold, sign): (loss, feature, threshold, sign)."""
    n_samples, n_features = X.shape
    order = np.argsort(X, axis=0, kind="stable")
    X_sorted = np.take_along_axis(X, order, axis=0)
    pos_sorted = y_positive[order]
    total_pos = int(np.count_nonzero(y_positive))
    total_neg = n_samples - total_pos
    # cut k: the k smallest points are below the threshold (predicted -1 by a
    # plus-stump, +1 by a minus-stump); k = 0..n
    cum_pos = np.zeros((n_samples + 1, n_features), dtype=np.int64)
    np.cumsum(pos_sorted, axis=0, out=cum_pos[1:])
    k = np.arange(n_samples + 1)[:, None]
    cum_neg = k - cum_pos
    plus_loss = cum_pos + (total_neg - cum_neg)
    minus_loss = n_samples - plus_loss
    valid = np.ones((n_samples + 1, n_features), dtype=bool)
    valid[1:n_samples] = X_sorted[1:] > X_sorted[:-1]  # cuts between distinct values
    big = n_samples + 1
    plus_loss = np.where(valid, plus_loss, big)
    minus_loss = np.where(valid, minus_loss, big)
    best_plus = plus_loss.min(axis=0)
    best_minus = minus_loss.min(axis=0)
    best = np.minimum(best_plus, best_minus)
    f = int(np.argmin(best))
    sign = 1 if best_plus[f] <= best_minus[f] else -1
    k_best = int(np.argmin(plus_loss[:, f] if sign > 0 else minus_loss[:, f]))
    if k_best == 0:
        threshold = -np.inf
    elif k_best == n_samples:
        threshold = np.inf
    else:
        threshold = float((X_sorted[k_best - 1, f] + X_sorted[k_best, f]) / 2)
    return int(best[f]), f, threshold, sign


def _as_2d(X, name="X"):
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D, got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or inf.")
    return X


def _encode(y_true, y_pred):
    y_true = np.asarray(y_true)
    if y_true.ndim != 1:
        raise ValueError(f"y_true must be 1-D, got shape {y_true.shape}.")
    labels = np.unique(y_true) if y_pred is None else np.unique(
        np.concatenate([y_true, np.asarray(y_pred)]))
    if len(labels) > 2:
        raise ValueError(
            f"regret is defined for binary labels; got {len(labels)} labels "
            f"{labels.tolist()[:10]}.")
    # {-1, +1} and {0, 1} keep their meaning even when one label is absent;
    # otherwise the larger label is +1 (as classes_[1] in scikit-learn)
    if labels.dtype.kind in "iufb" and (np.all(np.isin(labels, (-1, 1)))
                                        or np.all(np.isin(labels, (0, 1)))):
        positive = 1
    else:
        positive = labels[-1]
    return y_true == positive, labels


def best_loss_in_hindsight(X, y, hypotheses="thresholds"):
    """Fewest mistakes of any hypothesis of the class on ``(X, y)``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two labels: {-1, +1} or {0, 1} as such, otherwise the larger one is
        read as +1.
    hypotheses : {'thresholds', 'stumps'}, finite concepts or ndarray
        'thresholds': 1-D thresholds, both orientations (X must have one
        feature); 'stumps': thresholds on any single feature, both signs;
        an object with ``evaluate(X) -> bool (n_samples, K)`` (True = +1);
        or a prediction matrix of shape ``(n_samples, K)`` (bool, or labels
        in {-1, +1}).

    Returns
    -------
    loss : int
    best : dict
        Description of a minimiser (``feature``, ``threshold``, ``sign`` for
        stumps; ``index`` for finite sets).
    """
    y_positive, _ = _encode(y, None)
    return _best(X, y_positive, hypotheses)


def _best(X, y_positive, hypotheses):
    n_samples = len(y_positive)
    if isinstance(hypotheses, str):
        if hypotheses not in ("thresholds", "stumps"):
            raise ValueError(
                f"hypotheses={hypotheses!r}: exact best-in-hindsight is available for "
                "'thresholds' and 'stumps'; for other classes pass a finite cover "
                "(an object with evaluate(X)) or a prediction matrix.")
        X = _as_2d(X)
        if X.shape[0] != n_samples:
            raise ValueError(f"X has {X.shape[0]} rows but y has {n_samples}.")
        if hypotheses == "thresholds" and X.shape[1] != 1:
            raise ValueError(
                f"hypotheses='thresholds' needs one feature, X has {X.shape[1]}; "
                "use hypotheses='stumps'.")
        if n_samples == 0:
            return 0, {"feature": 0, "threshold": -np.inf, "sign": 1}
        loss, f, threshold, sign = _stump_best(X, y_positive)
        return loss, {"feature": f, "threshold": threshold, "sign": sign}
    if hasattr(hypotheses, "evaluate"):
        positive = np.asarray(hypotheses.evaluate(X), dtype=bool)
    else:
        matrix = np.asarray(hypotheses)
        if matrix.ndim != 2:
            raise ValueError("a hypothesis matrix must have shape (n_samples, n_hypotheses).")
        positive = matrix > 0 if matrix.dtype != bool else matrix
    if positive.shape[0] != n_samples:
        raise ValueError(
            f"the hypotheses give {positive.shape[0]} rows but y has {n_samples}.")
    losses = np.count_nonzero(positive != y_positive[:, None], axis=0)
    j = int(np.argmin(losses))
    return int(losses[j]), {"index": j}


def regret(y_true, y_pred, X, hypotheses="thresholds", *, learner_loss=None,
           return_best=False):
    """Regret of a sequence of online predictions against the best hypothesis.

    Parameters
    ----------
    y_true : array-like of shape (n_rounds,)
        The labels of the rounds, in order (two distinct labels).
    y_pred : array-like of shape (n_rounds,) or None
        The learner's predictions, each made before seeing its label.
    X : array-like of shape (n_rounds, n_features)
        The instances of the rounds.
    hypotheses : {'thresholds', 'stumps'}, finite concepts or ndarray, default='thresholds'
        The comparator class; see :func:`best_loss_in_hindsight`.
    learner_loss : float or array-like, optional
        The learner's cumulative (or per-round) loss, e.g. the expected loss
        of a randomised learner (``SmoothHedgeClassifier.cumulative_loss_``);
        used instead of counting ``y_pred != y_true``.
    return_best : bool, default=False
        Also return the best loss and a description of the minimiser.

    Returns
    -------
    regret : float
        ``learner loss - best loss``; can be negative (a learner outside the
        class can beat every hypothesis in it).
    best_loss : int
        Only if ``return_best``.
    best : dict
        Only if ``return_best``.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.metrics._regret import regret
    >>> X = np.array([[0.1], [0.4], [0.6], [0.9]])
    >>> y = np.array([-1, -1, 1, 1])
    >>> regret(y, np.array([1, -1, -1, 1]), X)
    2.0
    """
    y_positive, labels = _encode(y_true, y_pred)
    if learner_loss is None:
        if y_pred is None:
            raise ValueError("pass y_pred (the learner's predictions) or learner_loss.")
        y_pred = np.asarray(y_pred)
        if y_pred.shape != y_positive.shape:
            raise ValueError(
                f"y_pred has shape {y_pred.shape} but y_true has {y_positive.shape}.")
        learner = float(np.count_nonzero(y_pred != np.asarray(y_true)))
    else:
        try:
            learner_loss = np.asarray(learner_loss, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(
                "learner_loss must be a number or an array of per-round losses, got "
                f"{type(learner_loss).__name__}.") from None
        if learner_loss.ndim > 1:
            raise ValueError(
                "learner_loss must be a number or a 1-D array of per-round losses, got "
                f"shape {learner_loss.shape}.")
        if not np.all(np.isfinite(learner_loss)):
            raise ValueError("learner_loss contains NaN or inf; pass finite losses.")
        if learner_loss.ndim == 1 and len(learner_loss) != len(y_positive):
            raise ValueError(
                f"learner_loss has {len(learner_loss)} per-round losses but y_true has "
                f"{len(y_positive)} rounds; pass one loss per round or their sum.")
        learner = float(np.sum(learner_loss))
    best_loss, best = _best(X, y_positive, hypotheses)
    value = learner - best_loss
    if return_best:
        return value, best_loss, best
    return value
